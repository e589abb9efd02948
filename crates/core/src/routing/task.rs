//! The routing requests and answers that cross IPC and the CLI: a task with its budget and
//! needs as the user typed them, and what the engine answers (the pick with the id it was
//! recorded under, a checked plan, past picks with their ratings).

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::budget::{Budget, BudgetTier};
use super::classify::Classification;
use super::error::RoutingError;
use super::pick::Pick;
use super::plan::{Plan, PlanIssue, PlanMode, PlanOptions};
use super::request::RouteRequest;
use super::signals::Needs;

/// Pick or recommend models for a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RouteTaskRequest {
    /// The task as typed.
    pub task: String,
    /// The price band.
    pub budget: BudgetTier,
    /// Maximum blended USD per million tokens (3 input : 1 output), on top of the band.
    pub max_price: Option<f64>,
    /// Needs on top of those the task's words imply: `vision`, `tools`,
    /// `structured-output`, `long-context` or `long-context=200000`.
    pub needs: Vec<String>,
    /// Ignore whether a key or local endpoint exists for the model.
    pub any_provider: bool,
    /// Who asks (an MCP client's name, `cli`, `app`): that agent's own recorded outcomes
    /// weigh double in the learned estimates. `None`: everyone's count alike.
    #[serde(default)]
    pub launcher: Option<String>,
}

impl RouteTaskRequest {
    /// A request for `task` at the default budget, with no extra needs, usable models only.
    pub fn new(task: &str) -> RouteTaskRequest {
        RouteTaskRequest {
            task: task.to_owned(),
            budget: BudgetTier::default(),
            max_price: None,
            needs: Vec::new(),
            any_provider: false,
            launcher: None,
        }
    }

    /// The routing request for this task once classified: the classification's category,
    /// stack and needs (plus the asked needs), this budget and provider choice.
    ///
    /// # Errors
    /// [`RoutingError::InvalidRequest`] for an empty task, a bad price cap or an unknown need.
    pub fn route_request(
        &self,
        classification: &Classification,
    ) -> Result<RouteRequest, RoutingError> {
        check_task(&self.task)?;
        let needs = parse_needs(&self.needs)?;
        let mut request =
            RouteRequest::from_classification(classification, budget(self.budget, self.max_price)?);
        request.needs = request.needs.union(needs);
        request.any_provider = self.any_provider;
        Ok(request)
    }
}

/// Plan a task as sequential steps or a swarm DAG: what the desktop's `plan_task` command
/// takes and what the CLI's `plan` flags make. [`PlanTaskRequest::validate`] is the one check
/// both go through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanTaskRequest {
    /// The task as typed.
    pub task: String,
    /// Sequential plan or swarm.
    pub mode: PlanMode,
    /// The run's price band; step words may nudge it one tier.
    pub budget: BudgetTier,
    /// Maximum blended USD per million tokens (3 input : 1 output) for every step.
    pub max_price: Option<f64>,
    /// Ignore whether a key or local endpoint exists for the models.
    pub any_provider: bool,
    /// Ask a model to propose the plan (falls back to the deterministic planner, saying so).
    #[serde(default)]
    #[specta(optional)]
    pub use_model_planner: bool,
    /// The planner model (`ollama:qwen3`, `openai/gpt-5-mini`); chosen when absent. Naming
    /// one without `use_model_planner` is an error, not silently ignored.
    #[serde(default)]
    #[specta(optional)]
    pub planner_model: Option<String>,
}

/// Which planner proposes a plan.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PlannerChoice {
    /// The rule-based planner.
    #[default]
    Deterministic,
    /// A model proposes the plan: this model reference, or one the engine chooses (`None`).
    Model(Option<String>),
}

/// A plan request that passed [`PlanTaskRequest::validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValidPlanTask {
    /// What the deterministic planner (and the fallback) plans with.
    pub options: PlanOptions,
    /// Who proposes the plan.
    pub planner: PlannerChoice,
}

impl PlanTaskRequest {
    /// A request to plan `task` in `mode` at the default budget with the deterministic
    /// planner, usable models only.
    pub fn new(task: &str, mode: PlanMode) -> PlanTaskRequest {
        PlanTaskRequest {
            task: task.to_owned(),
            mode,
            budget: BudgetTier::default(),
            max_price: None,
            any_provider: false,
            use_model_planner: false,
            planner_model: None,
        }
    }

    /// Checks the request and says how to plan it. A blank planner model counts as none.
    ///
    /// # Errors
    /// [`RoutingError::InvalidRequest`] for an empty task, a bad price cap, or a planner model
    /// named without the model planner.
    pub fn validate(&self) -> Result<ValidPlanTask, RoutingError> {
        check_task(&self.task)?;
        let options = PlanOptions {
            budget: budget(self.budget, self.max_price)?,
            needs: Needs::default(),
            any_provider: self.any_provider,
        };
        let model = self
            .planner_model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        let planner = match (self.use_model_planner, model) {
            (true, model) => PlannerChoice::Model(model),
            (false, None) => PlannerChoice::Deterministic,
            (false, Some(model)) => {
                return Err(RoutingError::InvalidRequest(format!(
                    "the planner model {model:?} was named but the model planner was not asked \
                     for; ask for the model planner or leave the model out"
                )))
            }
        };
        Ok(ValidPlanTask { options, planner })
    }
}

/// A pick, the classification it was made from, and the id it was recorded under (rate it
/// with that id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PickAnswer {
    /// The recorded pick's id.
    pub pick_id: u32,
    /// How the task was read.
    pub classification: Classification,
    /// The model chosen, its reason and the runner-ups.
    pub pick: Pick,
}

/// An edited plan with its edges and waves recomputed, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PlanCheck {
    /// The plan with recomputed edges and waves.
    pub plan: Plan,
    /// Errors block a launch; warnings do not.
    pub issues: Vec<PlanIssue>,
}

/// A pick made earlier, with its rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PastPick {
    /// The id to rate it with.
    pub id: u32,
    /// The task as typed.
    pub task: String,
    /// The category it was picked in.
    pub category: Category,
    /// The picked model's catalog id.
    pub model_id: String,
    /// Its display name (the id when the model left the catalog).
    pub model_name: String,
    /// RFC 3339 timestamp.
    pub created_at: String,
    /// The rating given to it (1–5).
    pub rating: Option<u8>,
}

/// Checks a rating is 1–5.
///
/// # Errors
/// [`RoutingError::InvalidRequest`] otherwise.
pub fn check_rating(rating: u8) -> Result<u8, RoutingError> {
    if (1..=5).contains(&rating) {
        Ok(rating)
    } else {
        Err(RoutingError::InvalidRequest(format!(
            "a rating is 1 to 5, got {rating}"
        )))
    }
}

fn check_task(task: &str) -> Result<(), RoutingError> {
    if task.trim().is_empty() {
        return Err(RoutingError::InvalidRequest("the task is empty".into()));
    }
    Ok(())
}

fn budget(tier: BudgetTier, max_price: Option<f64>) -> Result<Budget, RoutingError> {
    if let Some(cap) = max_price {
        if !cap.is_finite() || cap < 0.0 {
            return Err(RoutingError::InvalidRequest(format!(
                "the max price must be a number of USD per million tokens ≥ 0, got {cap}"
            )));
        }
    }
    Ok(Budget {
        tier,
        max_price_per_m: max_price,
    })
}

fn parse_needs(needs: &[String]) -> Result<Needs, RoutingError> {
    Needs::parse_list(&needs.join(",")).map_err(RoutingError::InvalidRequest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::classify;

    #[test]
    fn asked_needs_add_to_the_task_needs_and_the_budget_is_applied() {
        let classification = classify("write a python script");
        let mut request = RouteTaskRequest::new("write a python script");
        request.needs = vec!["vision".into(), "tools".into()];
        request.budget = BudgetTier::Low;
        request.max_price = Some(0.5);
        request.any_provider = true;
        let route = request.route_request(&classification).expect("valid");
        assert!(route.needs.vision && route.needs.tools);
        assert_eq!(route.category, classification.category);
        assert_eq!(route.budget.tier, BudgetTier::Low);
        assert_eq!(route.budget.max_price_per_m, Some(0.5));
        assert!(route.any_provider);
    }

    #[test]
    fn bad_requests_are_refused() {
        let classification = classify("x");
        let mut request = RouteTaskRequest::new("  ");
        assert!(request.route_request(&classification).is_err());
        request.task = "write code".into();
        request.needs = vec!["telepathy".into()];
        assert!(request.route_request(&classification).is_err());
        request.needs.clear();
        request.max_price = Some(-1.0);
        assert!(request.route_request(&classification).is_err());
        request.max_price = Some(f64::NAN);
        assert!(request.route_request(&classification).is_err());
    }

    #[test]
    fn plan_requests_are_checked_once_with_the_planner_choice() {
        let mut request =
            PlanTaskRequest::new("design the schema, then build the api", PlanMode::Swarm);
        assert_eq!(
            request.validate().map(|v| v.planner),
            Ok(PlannerChoice::Deterministic)
        );
        request.use_model_planner = true;
        request.planner_model = Some("  ".into());
        assert_eq!(
            request.validate().map(|v| v.planner),
            Ok(PlannerChoice::Model(None))
        );
        request.planner_model = Some(" ollama:qwen3 ".into());
        assert_eq!(
            request.validate().map(|v| v.planner),
            Ok(PlannerChoice::Model(Some("ollama:qwen3".into())))
        );
        request.use_model_planner = false;
        assert!(matches!(
            request.validate(),
            Err(RoutingError::InvalidRequest(_))
        ));
        let mut empty = PlanTaskRequest::new(" ", PlanMode::Plan);
        assert!(empty.validate().is_err());
        empty.task = "write docs".into();
        empty.max_price = Some(-1.0);
        assert!(empty.validate().is_err());
    }

    #[test]
    fn ratings_outside_one_to_five_are_refused() {
        assert!(check_rating(0).is_err());
        assert!(check_rating(6).is_err());
        assert_eq!(check_rating(5), Ok(5));
    }
}
