//! Checking an edited plan, and recomputing its edges and waves after edits.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::ModelCard;

use super::graph::{cycles, levels};
use super::{Plan, PlanEdge, MAX_STEPS};

/// The longest step id.
pub const MAX_ID_CHARS: usize = 32;
/// The longest step task, in characters.
pub const MAX_STEP_CHARS: usize = 4_000;
/// Prefix of the warnings [`recompute`] owns (replaced on every call).
const CYCLE_PREFIX: &str = "cycle: ";

/// How bad an issue is: errors stop a run from starting, warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The plan cannot run.
    Error,
    /// The plan can run; the user should know.
    Warning,
}

/// What is wrong with a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum PlanIssueCode {
    /// No steps.
    EmptyPlan,
    /// More than [`MAX_STEPS`] steps.
    TooManySteps,
    /// An id that is empty, too long or not `[A-Za-z0-9_-]`.
    InvalidId,
    /// Two steps with the same id.
    DuplicateId,
    /// A step with no text, or too long a text.
    InvalidTask,
    /// `dependsOn` names a step that does not exist.
    UnknownDependency,
    /// A step depends on itself.
    SelfDependency,
    /// Dependencies that go round in a circle; `edges` lists them.
    Cycle,
    /// A sequential plan whose steps do not each wait for the one before.
    NotSequential,
    /// `edges` do not match the steps' `dependsOn` (call `recompute`).
    EdgeMismatch,
    /// A step's `wave` is not its dependency level (call `recompute`).
    WaveMismatch,
    /// A step without a model (a warning: the run engine may pick one).
    MissingModel,
    /// A step's model is not in the catalog.
    UnknownModel,
}

/// One problem found by [`validate_plan`] or [`validate_models`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanIssue {
    /// What kind of problem.
    pub code: PlanIssueCode,
    /// Whether it stops a run.
    pub severity: Severity,
    /// The step concerned, when one is.
    pub step: Option<String>,
    /// For people.
    pub message: String,
    /// The edges involved (cycles).
    pub edges: Vec<PlanEdge>,
}

fn issue(code: PlanIssueCode, step: Option<&str>, message: String) -> PlanIssue {
    let severity = if code == PlanIssueCode::MissingModel {
        Severity::Warning
    } else {
        Severity::Error
    };
    PlanIssue {
        code,
        severity,
        step: step.map(str::to_owned),
        message,
        edges: Vec::new(),
    }
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Index pairs `(dependency, step)` from `dependsOn`, skipping unknown ids and self-loops.
fn dependency_pairs(plan: &Plan) -> Vec<(usize, usize)> {
    let steps = plan.steps();
    let mut pairs = Vec::new();
    for (to, step) in steps.iter().enumerate() {
        for dependency in &step.depends_on {
            if let Some(from) = steps.iter().position(|s| s.id == *dependency) {
                if from != to && !pairs.contains(&(from, to)) {
                    pairs.push((from, to));
                }
            }
        }
    }
    pairs
}

/// Every problem with `plan`, in step order. A plan with no [`Severity::Error`] issue is
/// ready for the run engine.
pub fn validate_plan(plan: &Plan) -> Vec<PlanIssue> {
    use PlanIssueCode as Code;
    let steps = plan.steps();
    let mut issues = Vec::new();
    if steps.is_empty() {
        issues.push(issue(
            Code::EmptyPlan,
            None,
            "the plan has no steps".to_owned(),
        ));
        return issues;
    }
    if steps.len() > MAX_STEPS {
        let message = format!("{} steps; at most {MAX_STEPS}", steps.len());
        issues.push(issue(Code::TooManySteps, None, message));
    }
    for (index, step) in steps.iter().enumerate() {
        let id = Some(step.id.as_str());
        if !valid_id(&step.id) {
            let message = format!(
                "step id {:?} must be 1–{MAX_ID_CHARS} of A-Z a-z 0-9 - _",
                step.id
            );
            issues.push(issue(Code::InvalidId, id, message));
        }
        if steps[..index].iter().any(|s| s.id == step.id) {
            issues.push(issue(
                Code::DuplicateId,
                id,
                format!("step id {:?} is used twice", step.id),
            ));
        }
        let chars = step.task.chars().count();
        if step.task.trim().is_empty() || chars > MAX_STEP_CHARS {
            let message = format!(
                "step {} needs a task of 1–{MAX_STEP_CHARS} characters",
                step.id
            );
            issues.push(issue(Code::InvalidTask, id, message));
        }
        for dependency in &step.depends_on {
            if *dependency == step.id {
                let message = format!("step {} depends on itself", step.id);
                issues.push(issue(Code::SelfDependency, id, message));
            } else if !steps.iter().any(|s| s.id == *dependency) {
                let message = format!("step {} depends on unknown step {dependency:?}", step.id);
                issues.push(issue(Code::UnknownDependency, id, message));
            }
        }
        if step.model.is_none() {
            let message = format!("step {} has no model", step.id);
            issues.push(issue(Code::MissingModel, id, message));
        }
    }
    if matches!(plan, Plan::Sequential { .. }) {
        for (index, step) in steps.iter().enumerate() {
            let expected: Vec<String> = index
                .checked_sub(1)
                .and_then(|p| steps.get(p))
                .map(|p| p.id.clone())
                .into_iter()
                .collect();
            if step.depends_on != expected {
                let message = format!(
                    "in a sequential plan step {} must depend on {}",
                    step.id,
                    if expected.is_empty() {
                        "nothing".to_owned()
                    } else {
                        expected.join(", ")
                    }
                );
                issues.push(issue(Code::NotSequential, Some(&step.id), message));
            }
        }
    }
    let pairs = dependency_pairs(plan);
    for cycle in cycles(steps.len(), &pairs) {
        let edges = to_edges(plan, &cycle);
        let message = format!("dependencies form a cycle: {}", describe(&edges));
        issues.push(PlanIssue {
            edges,
            ..issue(Code::Cycle, None, message)
        });
    }
    let mut expected: Vec<(String, String)> = pairs
        .iter()
        .map(|(f, t)| (steps[*f].id.clone(), steps[*t].id.clone()))
        .collect();
    let mut actual: Vec<(String, String)> = plan
        .edges()
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    expected.sort();
    actual.sort();
    actual.dedup();
    if expected != actual {
        let message = "edges differ from the steps' dependsOn; recompute the plan".to_owned();
        issues.push(issue(Code::EdgeMismatch, None, message));
    }
    for (step, wave) in steps.iter().zip(levels(steps.len(), &pairs)) {
        if step.wave != wave {
            let message = format!(
                "step {} is in wave {:?}, its dependency level is {wave:?}",
                step.id, step.wave
            );
            issues.push(issue(Code::WaveMismatch, Some(&step.id), message));
        }
    }
    issues
}

/// Steps whose model is not in `catalog`.
pub fn validate_models(plan: &Plan, catalog: &[ModelCard]) -> Vec<PlanIssue> {
    plan.steps()
        .iter()
        .filter_map(|step| {
            let model = step.model.as_ref()?;
            let known = catalog
                .iter()
                .any(|card| card.id == *model || card.variants.contains(model));
            (!known).then(|| {
                let message = format!("step {}: model {model:?} is not in the catalog", step.id);
                issue(PlanIssueCode::UnknownModel, Some(&step.id), message)
            })
        })
        .collect()
}

/// Rebuilds a plan's derived data after edits: a sequential plan's steps are chained in
/// list order; a swarm's edges follow the steps' `dependsOn` (keeping the reasons of edges
/// that existed, `edited` for new ones). Waves are recomputed and cycle warnings replaced.
pub fn recompute(plan: &mut Plan) {
    if matches!(plan, Plan::Sequential { .. }) {
        let ids: Vec<String> = plan.steps().iter().map(|s| s.id.clone()).collect();
        for (index, step) in plan.steps_mut().iter_mut().enumerate() {
            step.depends_on = index
                .checked_sub(1)
                .and_then(|p| ids.get(p))
                .cloned()
                .into_iter()
                .collect();
        }
    }
    let pairs = dependency_pairs(plan);
    let old = plan.edges().to_vec();
    let sequential = matches!(plan, Plan::Sequential { .. });
    let edges: Vec<PlanEdge> = to_edges(plan, &pairs)
        .into_iter()
        .map(|mut edge| {
            edge.reason = match old.iter().find(|o| o.from == edge.from && o.to == edge.to) {
                Some(known) => known.reason.clone(),
                None if sequential => "sequence".to_owned(),
                None => "edited".to_owned(),
            };
            edge
        })
        .collect();
    let waves = levels(plan.steps().len(), &pairs);
    for (step, wave) in plan.steps_mut().iter_mut().zip(waves) {
        step.wave = wave;
    }
    *plan.edges_mut() = edges;
    note_cycles(plan);
}

/// Replaces the plan's cycle warnings with the cycles it has now.
pub(crate) fn note_cycles(plan: &mut Plan) {
    let pairs = dependency_pairs(plan);
    let found: Vec<String> = cycles(plan.steps().len(), &pairs)
        .iter()
        .map(|cycle| {
            let edges = to_edges(plan, cycle);
            format!(
                "{CYCLE_PREFIX}{}; these steps get no wave until it is broken",
                describe(&edges)
            )
        })
        .collect();
    let warnings = plan.warnings_mut();
    warnings.retain(|w| !w.starts_with(CYCLE_PREFIX));
    warnings.extend(found);
}

fn to_edges(plan: &Plan, pairs: &[(usize, usize)]) -> Vec<PlanEdge> {
    let steps = plan.steps();
    pairs
        .iter()
        .filter_map(|(from, to)| {
            let reason = plan
                .edges()
                .iter()
                .find(|e| {
                    Some(&e.from) == steps.get(*from).map(|s| &s.id)
                        && Some(&e.to) == steps.get(*to).map(|s| &s.id)
                })
                .map_or_else(String::new, |e| e.reason.clone());
            Some(PlanEdge {
                from: steps.get(*from)?.id.clone(),
                to: steps.get(*to)?.id.clone(),
                reason,
            })
        })
        .collect()
}

fn describe(edges: &[PlanEdge]) -> String {
    edges
        .iter()
        .map(|e| format!("{} → {}", e.from, e.to))
        .collect::<Vec<_>>()
        .join(", ")
}
