//! Plans: a task decomposed into steps, each with a category, a budget and a model.
//!
//! Two shapes share one step type. A sequential **plan** runs its steps in list order. A
//! **swarm** is a DAG: dependencies come from work phases (design → setup → implement →
//! integrate → test → deploy/docs) and shared artifacts (schema, api, component, config,
//! tests, docs), so independent steps share a wave and run in parallel.
//!
//! Plans are plain data: the user may reassign models, add or remove steps and change
//! dependencies, then call [`recompute`] (edges and waves) and [`validate_plan`] before a
//! run consumes the plan unchanged.

mod build;
mod graph;
mod lexicon;
pub mod planner;
mod split;
mod validate;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::budget::Budget;
use super::signals::Needs;

pub use build::{assign_models, build_plan, plan, swarm, PlanOptions};
pub use lexicon::Phase;
pub use split::{split_steps, SplitRule, StepText};
pub use validate::{recompute, validate_models, validate_plan, PlanIssue, PlanIssueCode, Severity};

pub(crate) use lexicon::check_builtin;

/// The most steps a plan may have.
pub const MAX_STEPS: usize = 50;

/// How a plan's steps run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum PlanMode {
    /// One after another, in list order.
    Plan,
    /// A DAG: each step waits only for its dependencies.
    Swarm,
}

/// Who proposed the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum PlanOrigin {
    /// The rule-based planner in this module.
    Deterministic,
    /// A model's JSON, validated against [`planner::PLANNER_SCHEMA`].
    Model,
}

/// One step (a node of a swarm).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanStep {
    /// Unique within the plan: `s1`, `s2`, … (`n1`, … in a swarm).
    pub id: String,
    /// What the step must do.
    pub task: String,
    /// The category of model it needs.
    pub category: Category,
    /// Its price band (the plan's, nudged by the step's words).
    pub budget: Budget,
    /// The model chosen for the step (catalog id); `None` when none fits.
    pub model: Option<String>,
    /// Ids of the steps this one waits for.
    pub depends_on: Vec<String>,
    /// Dependency level: 0 for steps without dependencies; `None` inside or after a cycle.
    pub wave: Option<u32>,
    /// The work phase its words name, if any.
    pub phase: Option<Phase>,
    /// Artifacts its words name (`schema`, `api`, `component`, `config`, `tests`, `docs`).
    pub artifacts: Vec<String>,
    /// Needs found in the step (plus the plan's own).
    pub needs: Needs,
    /// How the category, budget and model were decided.
    pub notes: Vec<String>,
}

/// A dependency: `to` waits for `from`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanEdge {
    /// The step waited for.
    pub from: String,
    /// The waiting step.
    pub to: String,
    /// Why: `sequence`, `phase design → implement`, `shared api`, `schema before api`,
    /// `after step 2`, `model planner`, `edited`.
    pub reason: String,
}

/// A plan or a swarm DAG, tagged by `mode` in JSON (`{"mode": "plan", "steps": …}` or
/// `{"mode": "swarm", "nodes": …}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "mode")]
pub enum Plan {
    /// Steps run in list order.
    #[serde(rename = "plan")]
    Sequential {
        /// The original task.
        task: String,
        /// The steps in run order.
        steps: Vec<PlanStep>,
        /// Each step after the one before it.
        edges: Vec<PlanEdge>,
        /// What the user should know.
        warnings: Vec<String>,
        /// Who proposed it.
        origin: PlanOrigin,
    },
    /// Nodes run as their dependencies finish.
    #[serde(rename = "swarm")]
    Swarm {
        /// The original task.
        task: String,
        /// The nodes, in the task's order.
        nodes: Vec<PlanStep>,
        /// Dependencies (transitively reduced when inferred).
        edges: Vec<PlanEdge>,
        /// What the user should know (cycles, steps without a model, fallbacks).
        warnings: Vec<String>,
        /// Who proposed it.
        origin: PlanOrigin,
    },
}

impl Plan {
    /// An empty plan of `mode` for `task`.
    pub fn empty(mode: PlanMode, task: &str, origin: PlanOrigin) -> Plan {
        let task = task.to_owned();
        let (steps, edges, warnings) = (Vec::new(), Vec::new(), Vec::new());
        match mode {
            PlanMode::Plan => Plan::Sequential {
                task,
                steps,
                edges,
                warnings,
                origin,
            },
            PlanMode::Swarm => Plan::Swarm {
                task,
                nodes: steps,
                edges,
                warnings,
                origin,
            },
        }
    }

    /// `plan` or `swarm`.
    pub fn mode(&self) -> PlanMode {
        match self {
            Plan::Sequential { .. } => PlanMode::Plan,
            Plan::Swarm { .. } => PlanMode::Swarm,
        }
    }

    /// The original task text.
    pub fn task(&self) -> &str {
        match self {
            Plan::Sequential { task, .. } | Plan::Swarm { task, .. } => task,
        }
    }

    /// Who proposed it.
    pub fn origin(&self) -> PlanOrigin {
        match self {
            Plan::Sequential { origin, .. } | Plan::Swarm { origin, .. } => *origin,
        }
    }

    /// The steps (the nodes of a swarm), in list order.
    pub fn steps(&self) -> &[PlanStep] {
        match self {
            Plan::Sequential { steps, .. } | Plan::Swarm { nodes: steps, .. } => steps,
        }
    }

    /// The steps, for editing; call [`recompute`] afterwards.
    pub fn steps_mut(&mut self) -> &mut Vec<PlanStep> {
        match self {
            Plan::Sequential { steps, .. } | Plan::Swarm { nodes: steps, .. } => steps,
        }
    }

    /// The dependencies, derived from the steps' `dependsOn` by [`recompute`].
    pub fn edges(&self) -> &[PlanEdge] {
        match self {
            Plan::Sequential { edges, .. } | Plan::Swarm { edges, .. } => edges,
        }
    }

    pub(crate) fn edges_mut(&mut self) -> &mut Vec<PlanEdge> {
        match self {
            Plan::Sequential { edges, .. } | Plan::Swarm { edges, .. } => edges,
        }
    }

    /// What the planner wants the user to know (cycles, steps without a model, fallbacks).
    pub fn warnings(&self) -> &[String] {
        match self {
            Plan::Sequential { warnings, .. } | Plan::Swarm { warnings, .. } => warnings,
        }
    }

    /// The warnings, for appending.
    pub fn warnings_mut(&mut self) -> &mut Vec<String> {
        match self {
            Plan::Sequential { warnings, .. } | Plan::Swarm { warnings, .. } => warnings,
        }
    }

    /// Steps grouped by wave, in wave order (steps without a wave are left out).
    pub fn waves(&self) -> Vec<Vec<&PlanStep>> {
        let mut waves: Vec<Vec<&PlanStep>> = Vec::new();
        for step in self.steps() {
            let Some(wave) = step.wave else { continue };
            let wave = wave as usize;
            if waves.len() <= wave {
                waves.resize_with(wave + 1, Vec::new);
            }
            if let Some(slot) = waves.get_mut(wave) {
                slot.push(step);
            }
        }
        waves
    }
}
