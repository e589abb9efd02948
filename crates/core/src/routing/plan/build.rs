//! The deterministic planner: split a task, classify and budget each step, infer a swarm's
//! dependencies, and pick a model per step.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;
use crate::routing::budget::{Budget, Nudge};
use crate::routing::classify::{classify, Classification};
use crate::routing::pick::pick;
use crate::routing::request::{RouteContext, RouteRequest};
use crate::routing::signals::Needs;

use super::graph::{cycles, levels, transitive_reduction};
use super::lexicon::{PlanLexicon, StepFacts};
use super::split::{split_steps, StepText};
use super::{Plan, PlanEdge, PlanMode, PlanOrigin, PlanStep, MAX_STEPS};

/// A step keeps its own category only when the classifier is at least this sure of it and it
/// is not `general` (no particular skill); otherwise it inherits the whole task's ("then do
/// it again" says little on its own).
const STEP_MIN_CONFIDENCE: f64 = 0.5;

/// What every step of a plan starts from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanOptions {
    /// The run's budget; each step's words may nudge it one tier (never `any` → `low`).
    pub budget: Budget,
    /// Needs every step has on top of its own.
    pub needs: Needs,
    /// Ignore whether a key or local endpoint exists.
    pub any_provider: bool,
}

/// Builds a sequential plan or a swarm for `task`.
pub fn build_plan(
    task: &str,
    mode: PlanMode,
    options: &PlanOptions,
    ctx: &RouteContext<'_>,
) -> Plan {
    match mode {
        PlanMode::Plan => plan(task, options, ctx),
        PlanMode::Swarm => swarm(task, options, ctx),
    }
}

/// A sequential plan: the task's steps in order, each waiting for the one before.
pub fn plan(task: &str, options: &PlanOptions, ctx: &RouteContext<'_>) -> Plan {
    let mut result = Plan::empty(PlanMode::Plan, task, PlanOrigin::Deterministic);
    let drafts = drafts(task, "s", options, result.warnings_mut());
    *result.steps_mut() = drafts.into_iter().map(|(step, _, _)| step).collect();
    super::recompute(&mut result);
    assign_models(&mut result, options, ctx);
    result
}

/// A swarm DAG: dependencies from phases, shared artifacts and explicit references
/// ("after step 2"), reduced transitively; cycles are reported with their edges.
pub fn swarm(task: &str, options: &PlanOptions, ctx: &RouteContext<'_>) -> Plan {
    let mut result = Plan::empty(PlanMode::Swarm, task, PlanOrigin::Deterministic);
    let drafts = drafts(task, "n", options, result.warnings_mut());
    let lexicon = PlanLexicon::builtin();
    let texts: Vec<&StepText> = drafts.iter().map(|(_, text, _)| text).collect();
    let facts: Vec<&StepFacts> = drafts.iter().map(|(_, _, facts)| facts).collect();
    let (edges, unknown) = infer_edges(lexicon, &texts, &facts);
    let mut steps: Vec<PlanStep> = drafts.into_iter().map(|(step, _, _)| step).collect();
    for (step, reference) in unknown {
        if let Some(s) = steps.get(step) {
            result.warnings_mut().push(format!(
                "{} refers to step {reference}, which does not exist",
                s.id
            ));
        }
    }
    let n = steps.len();
    let pairs: Vec<(usize, usize)> = edges.iter().map(|(from, to, _)| (*from, *to)).collect();
    let found = cycles(n, &pairs);
    let kept = if found.is_empty() {
        transitive_reduction(n, &pairs)
    } else {
        pairs.clone()
    };
    let mut plan_edges = Vec::new();
    for (from, to) in &kept {
        let reason = edges
            .iter()
            .find(|(f, t, _)| f == from && t == to)
            .map(|(_, _, r)| r.clone())
            .unwrap_or_default();
        let (Some(a), Some(b)) = (steps.get(*from), steps.get(*to)) else {
            continue;
        };
        plan_edges.push(PlanEdge {
            from: a.id.clone(),
            to: b.id.clone(),
            reason,
        });
    }
    for edge in &plan_edges {
        if let Some(step) = steps.iter_mut().find(|s| s.id == edge.to) {
            if !step.depends_on.contains(&edge.from) {
                step.depends_on.push(edge.from.clone());
            }
        }
    }
    let waves = levels(n, &kept);
    for (step, wave) in steps.iter_mut().zip(waves) {
        step.wave = wave;
    }
    *result.steps_mut() = steps;
    *result.edges_mut() = plan_edges;
    super::validate::note_cycles(&mut result);
    assign_models(&mut result, options, ctx);
    result
}

type Draft = (PlanStep, StepText, StepFacts);

/// Splits and classifies the steps (without models or dependencies).
fn drafts(
    task: &str,
    prefix: &str,
    options: &PlanOptions,
    warnings: &mut Vec<String>,
) -> Vec<Draft> {
    let mut texts = split_steps(task);
    if texts.len() > MAX_STEPS {
        warnings.push(format!(
            "the task splits into {} steps; only the first {MAX_STEPS} are planned",
            texts.len()
        ));
        texts.truncate(MAX_STEPS);
    }
    if texts.is_empty() {
        warnings.push("the task is empty: nothing to plan".to_owned());
        return Vec::new();
    }
    let whole = classify(task);
    let lexicon = PlanLexicon::builtin();
    texts
        .into_iter()
        .zip(1u32..)
        .map(|(text, number)| {
            let facts = lexicon.facts(&text.text);
            let step = draft_step(
                &format!("{prefix}{number}"),
                &text.text,
                &whole,
                &facts,
                lexicon,
                options,
            );
            (step, text, facts)
        })
        .collect()
}

fn draft_step(
    id: &str,
    text: &str,
    whole: &Classification,
    facts: &StepFacts,
    lexicon: &PlanLexicon,
    options: &PlanOptions,
) -> PlanStep {
    let own = classify(text);
    let mut notes = Vec::new();
    let category = if own.has_signal()
        && own.category != Category::General
        && own.confidence >= STEP_MIN_CONFIDENCE
    {
        let words: Vec<&str> = own
            .features
            .iter()
            .take(3)
            .map(|f| f.feature.as_str())
            .collect();
        notes.push(format!(
            "category {} from: {}",
            own.category.id(),
            words.join(", ")
        ));
        own.category
    } else {
        notes.push(format!(
            "category {} inherited from the whole task",
            whole.category.id()
        ));
        whole.category
    };
    let budget = match &facts.nudge {
        Some((nudge, word)) => {
            let nudged = options.budget.nudged(*nudge);
            if nudged.tier != options.budget.tier {
                let way = if *nudge == Nudge::Up { "up" } else { "down" };
                notes.push(format!(
                    "budget {way} from {} to {} ({word:?})",
                    options.budget.tier.id(),
                    nudged.tier.id()
                ));
            }
            nudged
        }
        None => options.budget,
    };
    PlanStep {
        id: id.to_owned(),
        task: text.to_owned(),
        category,
        budget,
        model: None,
        depends_on: Vec::new(),
        wave: None,
        phase: facts
            .phase
            .and_then(|p| lexicon.phases.get(p))
            .map(|p| p.phase),
        artifacts: facts
            .artifacts
            .iter()
            .filter_map(|a| lexicon.artifacts.get(*a).cloned())
            .collect(),
        needs: own.signals.needs.union(options.needs),
        notes,
    }
}

/// Dependency edges `(from, to, reason)` between step indices, and references to steps
/// that do not exist `(step, number)`.
///
/// A step naming other steps ("after step 2") depends on exactly those. Otherwise a step
/// depends on an earlier-keyed step when they share an artifact (not counting the one
/// their common phase implies, e.g. `tests` for two test steps), when one's artifact must
/// exist before the other's (`schema` before `api`), or when either names no artifact
/// and its phase comes first. Steps are keyed by (phase rank, artifact level, position):
/// inferred edges always go forward in that key, so they cannot form a cycle.
#[allow(clippy::type_complexity)]
fn infer_edges(
    lexicon: &PlanLexicon,
    texts: &[&StepText],
    facts: &[&StepFacts],
) -> (Vec<(usize, usize, String)>, Vec<(usize, u32)>) {
    let n = texts.len();
    let default_rank = lexicon
        .phases
        .iter()
        .find(|p| p.phase == super::Phase::Implement)
        .map_or(2, |p| p.rank);
    let rank = |i: usize| {
        facts[i]
            .phase
            .and_then(|p| lexicon.phases.get(p))
            .map_or(default_rank, |p| p.rank)
    };
    let level = |i: usize| {
        facts[i]
            .artifacts
            .iter()
            .map(|a| lexicon.before.get(*a).map_or(0, Vec::len))
            .min()
            .unwrap_or(0)
    };
    let key = |i: usize| (rank(i), level(i), i);
    let phase_name = |i: usize| {
        facts[i]
            .phase
            .and_then(|p| lexicon.phases.get(p))
            .map_or("implement", |p| p.phase.id())
    };
    let own_artifact = |i: usize| {
        facts[i]
            .phase
            .and_then(|p| lexicon.phases.get(p))
            .and_then(|p| p.own_artifact)
    };
    let numbered = texts.iter().any(|t| t.label.is_some());
    let number_of = |i: usize| {
        if numbered {
            texts[i].label
        } else {
            u32::try_from(i + 1).ok()
        }
    };

    let mut edges = Vec::new();
    let mut unknown = Vec::new();
    for to in 0..n {
        if !texts[to].refs.is_empty() {
            for reference in &texts[to].refs {
                match (0..n).find(|i| number_of(*i) == Some(*reference)) {
                    Some(from) => edges.push((from, to, format!("after step {reference}"))),
                    None => unknown.push((to, *reference)),
                }
            }
            continue;
        }
        for from in 0..n {
            if from == to || key(from) >= key(to) {
                continue;
            }
            let (a, b) = (&facts[from].artifacts, &facts[to].artifacts);
            let same_rank = rank(from) == rank(to);
            let shared = a.iter().find(|x| {
                b.contains(x)
                    && !(same_rank
                        && own_artifact(from) == Some(**x)
                        && own_artifact(to) == Some(**x))
            });
            if let Some(x) = shared {
                let name = lexicon.artifacts.get(*x).map_or("", String::as_str);
                edges.push((from, to, format!("shared {name}")));
                continue;
            }
            let ordered = a.iter().find_map(|x| {
                b.iter()
                    .find(|y| lexicon.before.get(**y).is_some_and(|list| list.contains(x)))
                    .map(|y| (*x, *y))
            });
            if let Some((x, y)) = ordered.filter(|_| rank(from) <= rank(to)) {
                let name = |i: usize| lexicon.artifacts.get(i).map_or("", String::as_str);
                edges.push((from, to, format!("{} before {}", name(x), name(y))));
                continue;
            }
            // Texts that name no artifact are about the whole project.
            if (a.is_empty() || b.is_empty()) && rank(from) < rank(to) {
                edges.push((
                    from,
                    to,
                    format!("phase {} → {}", phase_name(from), phase_name(to)),
                ));
            }
        }
    }
    (edges, unknown)
}

/// Picks a model for every step without one; a step whose nudged-down budget fits no model
/// falls back to the plan's budget. Steps where nothing fits keep `model: None` and add a
/// warning.
pub fn assign_models(plan: &mut Plan, options: &PlanOptions, ctx: &RouteContext<'_>) {
    let whole = classify(plan.task());
    let mut warnings = Vec::new();
    for step in plan.steps_mut().iter_mut().filter(|s| s.model.is_none()) {
        let mut stack = whole.signals.stack.clone();
        for id in classify(&step.task).signals.stack {
            if !stack.contains(&id) {
                stack.push(id);
            }
        }
        let mut request = RouteRequest {
            category: step.category,
            needs: step.needs.union(options.needs),
            stack,
            budget: step.budget,
            any_provider: options.any_provider,
        };
        let mut chosen = pick(&request, ctx);
        if chosen.is_err() && step.budget.tier != options.budget.tier {
            request.budget = options.budget;
            chosen = pick(&request, ctx);
            if chosen.is_ok() {
                step.notes.push(format!(
                    "no model fits {}; used the plan's budget {}",
                    step.budget.tier.id(),
                    options.budget.tier.id()
                ));
                step.budget = options.budget;
            }
        }
        match chosen {
            Ok(picked) => {
                step.notes
                    .push(format!("model {}: {}", picked.id, picked.reason.text));
                step.model = Some(picked.id);
            }
            Err(error) => warnings.push(format!("{}: {error}", step.id)),
        }
    }
    plan.warnings_mut().extend(warnings);
}
