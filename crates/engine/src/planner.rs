//! The optional model planner, behind [`Engine::plan_task`] when the request asks for it: a
//! model proposes the plan or swarm DAG as JSON through the client's structured-output path; core validates it and falls back to the deterministic
//! planner when it cannot be used, saying why.
//!
//! Which model plans: the one the caller names, else a model on a reachable local server
//! (free, private), else the best usable fast-and-cheap catalog model with structured output
//! through a vendor key or OpenRouter (routed as [`Engine::ask`] routes). With none of those
//! the deterministic planner plans, with a warning. Every plan's first warning names the
//! planner that made it.

use serde_json::Value;
use switchyard_core::catalog::card::{Category, Pricing};
use switchyard_core::providers::ProviderKind;
use switchyard_core::routing::plan::planner::{
    ModelPlannerOutput, PLANNER_INSTRUCTIONS, PLANNER_SCHEMA,
};
use switchyard_core::routing::plan::{Plan, PlanMode, PlanOrigin};
use switchyard_core::routing::{pick, Budget, BudgetTier, RouteRequest};
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, OutputSchema,
};

use crate::keys::RoutedModel;
use crate::Engine;

/// The warning when no model can plan.
pub(crate) const NO_PLANNER_MODEL: &str = "no model available for the model planner";

/// Longest answer the planner may write (50 steps of a few sentences each).
const PLANNER_MAX_TOKENS: u32 = 8192;

/// What asking the model planner came to, owned (core's [`ModelPlannerOutput`] borrows it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PlannerAttempt {
    /// No model could be asked; the text says why.
    NotAsked(String),
    /// The model was asked and the call failed, or its answer never matched the schema.
    Failed {
        /// The model reference asked.
        model: String,
        /// Why, naming the validation problem when there was one.
        reason: String,
    },
    /// The model's answer, valid against [`PLANNER_SCHEMA`].
    Answer {
        /// The model reference asked.
        model: String,
        /// The JSON value, as text.
        json: String,
    },
}

impl PlannerAttempt {
    /// The attempt as core's [`resolve_plan`] takes it.
    pub(crate) fn output(&self) -> ModelPlannerOutput<'_> {
        match self {
            PlannerAttempt::NotAsked(_) => ModelPlannerOutput::NotAsked,
            PlannerAttempt::Failed { reason, .. } => ModelPlannerOutput::Failed(reason),
            PlannerAttempt::Answer { json, .. } => ModelPlannerOutput::Answer(json),
        }
    }

    /// Puts first in `plan`'s warnings which planner made it (core already says why a model
    /// answer was not used).
    pub(crate) fn label(&self, plan: &mut Plan) {
        let note = match (self, plan.origin()) {
            (PlannerAttempt::Answer { model, .. }, PlanOrigin::Model) => {
                format!("planned by the model planner ({model})")
            }
            (PlannerAttempt::NotAsked(why), _) => {
                format!("{why}; planned by the deterministic planner")
            }
            // Core's fallback warning already names the deterministic planner and the reason.
            _ => return,
        };
        plan.warnings_mut().insert(0, note);
    }
}

impl Engine {
    /// Chooses the planner model and asks it; never fails (failures are the attempt's).
    pub(crate) async fn ask_model_planner(
        &self,
        task: &str,
        mode: PlanMode,
        planner_model: Option<String>,
    ) -> PlannerAttempt {
        let model = match planner_model
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
        {
            Some(model) => model,
            None => match self.choose_planner_model().await {
                Some(model) => model,
                None => return PlannerAttempt::NotAsked(NO_PLANNER_MODEL.to_owned()),
            },
        };
        tracing::info!(%model, ?mode, "asking the model planner");
        match self.structured_plan(&model, task, mode).await {
            Ok(json) => PlannerAttempt::Answer { model, json },
            Err(reason) => PlannerAttempt::Failed { model, reason },
        }
    }

    /// A model on a reachable local server, else the best usable fast-and-cheap model (with
    /// structured output when one is usable).
    pub(crate) async fn choose_planner_model(&self) -> Option<String> {
        if let Some(model) = self.local_planner_model().await {
            return Some(model);
        }
        // The planner must be callable whatever the request says about providers.
        let inputs = self.route_inputs(false, None).await.ok()?;
        let mut request = RouteRequest::new(Category::FastCheap);
        request.budget = Budget::tier(BudgetTier::Low);
        request.needs.structured_output = true;
        inputs.with_context(|ctx| {
            pick(&request, ctx)
                .or_else(|_| {
                    request.needs.structured_output = false;
                    pick(&request, ctx)
                })
                .ok()
                .map(|found| found.id)
        })
    }

    /// `<server>:<model>` for the first chat model of the first local server that answers.
    async fn local_planner_model(&self) -> Option<String> {
        self.probe_local_servers()
            .await
            .into_iter()
            .find_map(|probe| {
                let name = probe
                    .models
                    .ok()?
                    .into_iter()
                    .find(|name| !name.to_lowercase().contains("embed"))?;
                Some(format!("{}:{name}", probe.provider.id))
            })
    }

    /// Asks `model` for a plan as JSON matching [`PLANNER_SCHEMA`]; the valid value as text,
    /// or why there is none.
    async fn structured_plan(
        &self,
        model: &str,
        task: &str,
        mode: PlanMode,
    ) -> Result<String, String> {
        let RoutedModel {
            provider,
            target,
            key,
            model: provider_model,
        } = self
            .route_model(model)
            .await
            .map_err(|e| format!("{model}: {e}"))?;
        let schema: Value = serde_json::from_str(PLANNER_SCHEMA)
            .map_err(|e| format!("the plan schema does not parse: {e}"))?;
        let mode_line = match mode {
            PlanMode::Plan => "Use mode \"plan\": the steps run one after another in list order.",
            PlanMode::Swarm => {
                "Use mode \"swarm\": steps run in parallel once the steps in their dependsOn \
                 have finished."
            }
        };
        let mut request = ChatRequest::new(provider_model, format!("Task:\n{task}"));
        request.system = Some(format!("{PLANNER_INSTRUCTIONS}\n{mode_line}"));
        request.max_tokens = Some(PLANNER_MAX_TOKENS);
        request.pricing = match provider.kind {
            ProviderKind::Local => Some(Pricing {
                prompt_per_m: Some(0.0),
                completion_per_m: Some(0.0),
            }),
            _ => self.catalog_pricing(model).await,
        };
        let client = ModelClient::new(ClientConfig::default())
            .map_err(|e| format!("the model client could not start: {e}"))?;
        let answer = client
            .structured(
                &target,
                key.secret(),
                &request,
                &OutputSchema::new("plan", schema),
            )
            .await;
        match answer {
            Ok(answer) => Ok(answer.value.to_string()),
            Err(ClientError::Schema { error, .. }) => Err(format!(
                "{model} answered no valid plan, even after a repair request: {error}"
            )),
            Err(error) => Err(key.failure(&provider.id, error).to_string()),
        }
    }
}
