//! The optional model planner: the JSON Schema a model's plan must follow, the conversion of
//! a valid answer into a [`Plan`], and the fallback to the deterministic planner.
//!
//! The client that asks the model (structured output) lives elsewhere; it hands the raw
//! answer to [`resolve_plan`], which either converts it or falls back, saying why.

use serde::Deserialize;

use crate::catalog::card::Category;
use crate::routing::budget::{Budget, BudgetTier};
use crate::routing::classify::classify;
use crate::routing::error::RoutingError;
use crate::routing::request::RouteContext;

use super::build::{assign_models, build_plan, PlanOptions};
use super::validate::{recompute, validate_plan, Severity};
use super::{Plan, PlanMode, PlanOrigin, PlanStep, MAX_STEPS};

/// JSON Schema (draft 2020-12, within the subset strict structured-output modes accept:
/// every property required, no additional properties) for the model planner's answer.
pub const PLANNER_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "SwitchyardPlan",
  "type": "object",
  "additionalProperties": false,
  "required": ["mode", "steps"],
  "properties": {
    "mode": {
      "type": "string",
      "enum": ["plan", "swarm"],
      "description": "plan: steps run in order; swarm: steps run when their dependencies finish"
    },
    "steps": {
      "type": "array",
      "minItems": 1,
      "maxItems": 50,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["id", "task", "category", "budget", "dependsOn"],
        "properties": {
          "id": {
            "type": "string",
            "pattern": "^[A-Za-z0-9_-]{1,32}$",
            "description": "unique step id, e.g. s1"
          },
          "task": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4000,
            "description": "what this step must do, self-contained"
          },
          "category": {
            "type": "string",
            "enum": ["coding", "reasoning", "math", "creative", "vision", "research", "fastCheap", "general"]
          },
          "budget": {
            "type": "string",
            "enum": ["low", "medium", "high", "any"],
            "description": "low for simple or boilerplate steps, high for critical, security or architecture steps"
          },
          "dependsOn": {
            "type": "array",
            "items": { "type": "string" },
            "description": "ids of steps whose output this step needs; empty when independent"
          }
        }
      }
    }
  }
}"#;

/// Instructions to send with [`PLANNER_SCHEMA`].
pub const PLANNER_INSTRUCTIONS: &str = "Split the user's task into the smallest set of \
self-contained steps (at most 50). Give each step an id, its task, the category of model it \
needs, a budget, and the ids of the steps it needs output from. Only add a dependency when \
the step really needs the other's result: independent steps run in parallel. Answer with JSON \
that follows the schema exactly.";

/// What the model planner produced, as the client reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelPlannerOutput<'a> {
    /// No model planner was asked (no key or local model): use the deterministic planner.
    NotAsked,
    /// The request failed (network, refusal, timeout); the text says why.
    Failed(&'a str),
    /// The model's raw answer.
    Answer(&'a str),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ModelPlan {
    mode: String,
    steps: Vec<ModelStep>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ModelStep {
    id: String,
    task: String,
    category: String,
    budget: String,
    depends_on: Vec<String>,
}

/// Converts a model planner's answer into a [`Plan`] of `mode` with a model per step.
///
/// The step budgets follow the answer, except under an `any` budget (which stays `any`);
/// the explicit price cap of `options` always applies. In a sequential plan the steps are
/// chained in the answer's order whatever its `dependsOn` says.
///
/// # Errors
/// [`RoutingError::PlannerOutput`] when the answer is not JSON, does not follow
/// [`PLANNER_SCHEMA`], or describes an invalid plan (unknown or cyclic dependencies,
/// duplicate ids).
pub fn plan_from_model_json(
    answer: &str,
    task: &str,
    mode: PlanMode,
    options: &PlanOptions,
    ctx: &RouteContext<'_>,
) -> Result<Plan, RoutingError> {
    let reject = |message: String| RoutingError::PlannerOutput(message);
    let json = strip_fence(answer);
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| reject(format!("not JSON: {e}")))?;
    let parsed: ModelPlan = serde_json::from_value(value)
        .map_err(|e| reject(format!("does not follow the schema: {e}")))?;
    let answered_mode = match parsed.mode.as_str() {
        "plan" => PlanMode::Plan,
        "swarm" => PlanMode::Swarm,
        other => return Err(reject(format!("mode {other:?} is not plan or swarm"))),
    };
    if parsed.steps.is_empty() || parsed.steps.len() > MAX_STEPS {
        return Err(reject(format!(
            "{} steps; 1 to {MAX_STEPS} expected",
            parsed.steps.len()
        )));
    }
    let mut plan = Plan::empty(mode, task, PlanOrigin::Model);
    if answered_mode != mode {
        plan.warnings_mut().push(format!(
            "the model planner answered a {} but a {} was asked; its steps are used as a {}",
            parsed.mode,
            mode_name(mode),
            mode_name(mode)
        ));
    }
    for step in parsed.steps {
        let category = Category::parse(&step.category).ok_or_else(|| {
            reject(format!(
                "step {}: unknown category {:?}",
                step.id, step.category
            ))
        })?;
        let tier = BudgetTier::parse(&step.budget).ok_or_else(|| {
            reject(format!(
                "step {}: unknown budget {:?}",
                step.id, step.budget
            ))
        })?;
        let tier = if options.budget.tier == BudgetTier::Any {
            BudgetTier::Any
        } else {
            tier
        };
        let needs = classify(&step.task).signals.needs.union(options.needs);
        plan.steps_mut().push(PlanStep {
            id: step.id,
            task: step.task.trim().to_owned(),
            category,
            budget: Budget {
                tier,
                max_price_per_m: options.budget.max_price_per_m,
            },
            model: None,
            depends_on: if mode == PlanMode::Swarm {
                step.depends_on
            } else {
                Vec::new()
            },
            wave: None,
            phase: None,
            artifacts: Vec::new(),
            needs,
            notes: vec!["proposed by the model planner".to_owned()],
        });
    }
    recompute(&mut plan);
    for edge in plan.edges_mut().iter_mut() {
        edge.reason = if mode == PlanMode::Swarm {
            "model planner"
        } else {
            "sequence"
        }
        .to_owned();
    }
    let errors: Vec<String> = validate_plan(&plan)
        .into_iter()
        .filter(|i| i.severity == Severity::Error)
        .map(|i| i.message)
        .collect();
    if !errors.is_empty() {
        return Err(reject(errors.join("; ")));
    }
    assign_models(&mut plan, options, ctx);
    Ok(plan)
}

/// The plan to show: the model planner's when its answer is valid, otherwise the
/// deterministic planner's with a warning saying why the model's was not used.
pub fn resolve_plan(
    output: ModelPlannerOutput<'_>,
    task: &str,
    mode: PlanMode,
    options: &PlanOptions,
    ctx: &RouteContext<'_>,
) -> Plan {
    let reason = match output {
        ModelPlannerOutput::NotAsked => return build_plan(task, mode, options, ctx),
        ModelPlannerOutput::Failed(why) => format!("the model planner failed ({why})"),
        ModelPlannerOutput::Answer(answer) => {
            match plan_from_model_json(answer, task, mode, options, ctx) {
                Ok(plan) => return plan,
                Err(error) => error.to_string(),
            }
        }
    };
    let mut plan = build_plan(task, mode, options, ctx);
    plan.warnings_mut().insert(
        0,
        format!("{reason}; used the deterministic planner instead"),
    );
    plan
}

fn mode_name(mode: PlanMode) -> &'static str {
    match mode {
        PlanMode::Plan => "plan",
        PlanMode::Swarm => "swarm",
    }
}

/// The JSON inside a ```json fence, when a model wrapped its answer in one.
fn strip_fence(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}
