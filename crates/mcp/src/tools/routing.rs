//! `switchyard_pick`, `switchyard_recommend` and `switchyard_plan`: routing a task to models,
//! with the reasons.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::routing::plan::PlanMode;
use switchyard_core::routing::{
    BudgetTier, Classification, Pick, PlanTaskRequest, RouteTaskRequest,
};

use crate::inputs::{Budget, PlanModeInput};
use crate::reply;
use crate::server::Server;

/// The most models `switchyard_recommend` returns.
pub(crate) const MAX_RECOMMEND: u32 = 10;

/// A task to route.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RouteInput {
    /// The task, in words.
    task: String,
    /// Price band (default medium).
    #[serde(default)]
    budget: Option<Budget>,
    /// Highest blended USD per million tokens (3 input : 1 output), on top of the budget.
    #[serde(default)]
    max_price: Option<f64>,
    /// Needs on top of the task's own: `vision`, `tools`, `structured-output`,
    /// `long-context` or `long-context=<tokens>`.
    #[serde(default)]
    needs: Vec<String>,
    /// Choose among all catalog models, not only those with a key, a local server or
    /// OpenRouter.
    #[serde(default)]
    any_provider: bool,
}

impl RouteInput {
    /// The request, asked by `launcher` (the agent whose own outcomes weigh double).
    fn request(self, launcher: String) -> RouteTaskRequest {
        RouteTaskRequest {
            task: self.task,
            budget: self.budget.map_or(BudgetTier::default(), Into::into),
            max_price: self.max_price,
            needs: self.needs,
            any_provider: self.any_provider,
            launcher: Some(launcher),
        }
    }
}

/// `switchyard_recommend`'s input: a task to route and how many models.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RecommendInput {
    /// The task, in words.
    task: String,
    /// Price band (default medium).
    #[serde(default)]
    budget: Option<Budget>,
    /// Highest blended USD per million tokens (3 input : 1 output), on top of the budget.
    #[serde(default)]
    max_price: Option<f64>,
    /// Needs on top of the task's own: `vision`, `tools`, `structured-output`,
    /// `long-context` or `long-context=<tokens>`.
    #[serde(default)]
    needs: Vec<String>,
    /// Choose among all catalog models, not only usable ones.
    #[serde(default)]
    any_provider: bool,
    /// How many models (1–10, default 3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10))]
    count: Option<u32>,
}

impl RecommendInput {
    // serde cannot flatten a struct into one that denies unknown fields, so the route's
    // fields are repeated here.
    fn split(self) -> (RouteInput, Option<u32>) {
        let route = RouteInput {
            task: self.task,
            budget: self.budget,
            max_price: self.max_price,
            needs: self.needs,
            any_provider: self.any_provider,
        };
        (route, self.count)
    }
}

/// `switchyard_plan`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PlanInput {
    /// The task, in words (numbered lists, bullets and "then" split it into steps).
    task: String,
    /// plan (default) or swarm.
    #[serde(default)]
    mode: Option<PlanModeInput>,
    /// Price band for the steps (default medium; step words may nudge it one tier).
    #[serde(default)]
    budget: Option<Budget>,
    /// Highest blended USD per million tokens (3 input : 1 output) for every step.
    #[serde(default)]
    max_price: Option<f64>,
    /// Choose among all catalog models, not only usable ones.
    #[serde(default)]
    any_provider: bool,
    /// Ask a model to propose the plan (checked against a schema; an unusable answer falls
    /// back to the deterministic planner with a warning).
    #[serde(default)]
    use_model_planner: bool,
    /// The planner model (`ollama:qwen3`, `openai/gpt-5-mini`); chosen when absent.
    #[serde(default)]
    planner_model: Option<String>,
}

/// A pick with its id and the classification it was made from (the CLI's `pick --json`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Picked {
    #[serde(flatten)]
    pick: Pick,
    pick_id: u32,
    classification: Classification,
}

#[tool_router(router = routing_tools, vis = "pub(crate)")]
impl Server {
    /// The best usable model for a task.
    #[tool(
        name = "switchyard_pick",
        description = "The cheapest usable model per verified success for a task within a budget \
                       (blended price per million tokens, 3 input : 1 output), with the reason \
                       (category, score, price, estimated success, the filters applied), the \
                       evidence (benchmark prior, recorded verified successes and failures) and \
                       the runner-ups. The task is classified first; ratings and recorded \
                       outcomes of earlier work move the choice.",
        annotations(
            title = "Pick a model",
            read_only_hint = false,
            open_world_hint = false
        )
    )]
    async fn pick(
        &self,
        Parameters(input): Parameters<RouteInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let launcher = self.launcher(&context);
        match self.engine().pick_model(input.request(launcher)).await {
            Ok(answer) => reply::ok(&Picked {
                pick: answer.pick,
                pick_id: answer.pick_id,
                classification: answer.classification,
            }),
            Err(error) => reply::engine_error(&error),
        }
    }

    /// The best N models for a task.
    #[tool(
        name = "switchyard_recommend",
        description = "The best N (1-10, default 3) usable models for a task, one per provider \
                       first, each with its rank, score, price and reason.",
        annotations(
            title = "Recommend models",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn recommend(
        &self,
        Parameters(input): Parameters<RecommendInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let (route, count) = input.split();
        let launcher = self.launcher(&context);
        let count = count.unwrap_or(3);
        if !(1..=MAX_RECOMMEND).contains(&count) {
            return reply::invalid(format!("count must be 1 to {MAX_RECOMMEND}, not {count}"));
        }
        reply::reply(
            self.engine()
                .recommend_models(route.request(launcher), count)
                .await,
        )
    }

    /// A plan or swarm DAG for a task.
    #[tool(
        name = "switchyard_plan",
        description = "Split a task into sequential steps (mode plan) or a DAG whose independent \
                       steps run in parallel (mode swarm), with a category, budget and model per \
                       step, dependencies, waves and warnings. Deterministic unless \
                       useModelPlanner is set.",
        annotations(title = "Plan a task", read_only_hint = true, open_world_hint = false)
    )]
    async fn plan(&self, Parameters(input): Parameters<PlanInput>) -> CallToolResult {
        let request = PlanTaskRequest {
            task: input.task,
            mode: input.mode.map_or(PlanMode::Plan, Into::into),
            budget: input.budget.map_or(BudgetTier::default(), Into::into),
            max_price: input.max_price,
            any_provider: input.any_provider,
            use_model_planner: input.use_model_planner,
            planner_model: input.planner_model,
        };
        reply::reply(self.engine().plan_task(request).await)
    }
}
