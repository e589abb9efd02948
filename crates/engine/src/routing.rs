//! Routing use cases: classify a task, pick and recommend models, plan a task as steps or a
//! swarm DAG, re-check an edited plan, and record ratings (by hand or of past picks).
//!
//! Every request loads what ranking needs once, before ranking starts: the cached catalog,
//! the ratings aggregated by one `GROUP BY` (a [`FeedbackIndex`]), the recorded outcomes (a
//! [`LearnedIndex`], see `learning`), and which providers have a
//! key or answer locally (one [`Engine::list_providers`] pass, skipped when the request
//! ignores providers). Nothing inside the ranking touches the database or the keychain.

use std::path::Path;
use std::sync::Arc;

use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::providers as ids;
use switchyard_core::routing::plan::planner::{resolve_plan, ModelPlannerOutput};
use switchyard_core::routing::plan::{
    recompute, validate_models, validate_plan, Plan, PlanOptions,
};
use switchyard_core::routing::{
    check_rating, classify, evaluate, parse_eval_tsv, pick, recommend, Classification, Evaluation,
    FeedbackIndex, FeedbackSummary, LearnedIndex, PastPick, PickAnswer, PlanCheck, PlanTaskRequest,
    PlannerChoice, Recommendation, RouteContext, RouteTaskRequest, RoutingError, ValidPlanTask,
};
use switchyard_store::routing::{NewRoutePick, RatingSource, RoutePickRecord};

use crate::catalog::{find_model, now, CatalogState};
use crate::workers::WorkerReadiness;
use crate::{Engine, EngineError};

/// The most past picks one call returns.
pub const MAX_RECENT_PICKS: u32 = 200;

/// Which models can be called now: local ones, any model when OpenRouter has a key, and
/// models of vendors whose own provider has a key.
#[derive(Debug, Clone, Default)]
pub(crate) struct Usability {
    /// Every model counts as usable (the request ignores providers).
    any: bool,
    /// OpenRouter has a key.
    openrouter: bool,
    /// Vendor prefixes of catalog ids (`openai`, `anthropic`, …) whose provider has a key.
    vendors: Vec<String>,
}

impl Usability {
    /// Whether `card` can be called.
    pub(crate) fn allows(&self, card: &ModelCard) -> bool {
        self.any
            || card.local
            || self.openrouter
            || card
                .id
                .split_once('/')
                .is_some_and(|(vendor, _)| self.vendors.iter().any(|v| v == vendor))
    }
}

/// Everything one routing request ranks over, loaded before ranking starts.
#[derive(Debug, Clone)]
pub(crate) struct RouteInputs {
    /// The cached catalog.
    pub state: Arc<CatalogState>,
    /// Every rating, aggregated per (model, category).
    pub feedback: FeedbackIndex,
    /// Every recorded outcome since the last reset, per (category, model).
    pub learned: LearnedIndex,
    /// Which models can be called.
    pub usability: Usability,
}

impl RouteInputs {
    /// Runs `f` with a routing context over these inputs. The context borrows a closure, so
    /// it is built inside synchronous code only (it must not live across an `.await`).
    pub(crate) fn with_context<T>(&self, f: impl FnOnce(&RouteContext<'_>) -> T) -> T {
        let usable = |card: &ModelCard| self.usability.allows(card);
        let ctx = RouteContext {
            catalog: &self.state.catalog.models,
            feedback: &self.feedback,
            learned: &self.learned,
            usable: &usable,
        };
        f(&ctx)
    }
}

impl Engine {
    /// Loads the catalog, the ratings and (unless `any_provider`) which providers have a
    /// key, once for one routing request.
    pub(crate) async fn route_inputs(
        &self,
        any_provider: bool,
        launcher: Option<&str>,
    ) -> Result<RouteInputs, EngineError> {
        let state = self.catalog_state().await?;
        let mut feedback = FeedbackIndex::empty();
        for aggregate in self.store().rating_aggregates().await? {
            feedback.add_summary(&aggregate.model_id, aggregate.category, aggregate.summary);
        }
        let learned = self.learned_index(launcher).await?;
        let usability = if any_provider {
            Usability {
                any: true,
                ..Usability::default()
            }
        } else {
            self.usability().await?
        };
        Ok(RouteInputs {
            state,
            feedback,
            learned,
            usability,
        })
    }

    /// One pass over the providers: which have a usable key.
    async fn usability(&self) -> Result<Usability, EngineError> {
        let statuses = self.list_providers().await?;
        let keyed = |id: &str| {
            statuses
                .iter()
                .any(|s| s.id == id && !s.custom && s.key.is_usable())
        };
        let vendors = self
            .providers()
            .await?
            .into_iter()
            .filter(|p| !p.custom && keyed(&p.id))
            .filter_map(|p| p.vendor)
            .collect();
        Ok(Usability {
            any: false,
            openrouter: keyed(ids::OPENROUTER),
            vendors,
        })
    }

    /// How `task` reads: category, confidence, needs, stack words and hints, and the
    /// features that decided it — decided by a model instead when the classifier fallback is
    /// on and the classifier is unsure (see `assist`). Errors: `InvalidInput` for an empty
    /// task.
    pub async fn classify_task(&self, task: &str) -> Result<Classification, EngineError> {
        if task.trim().is_empty() {
            return Err(EngineError::InvalidInput("the task is empty".into()));
        }
        Ok(self.classify_assisted(task).await)
    }

    /// The built-in classifier measured on a labeled TSV file (`task`, `category`, optional
    /// `lang` columns): accuracy overall, per category and per language, the confusion
    /// matrix, calibration and the misses. Local classifier only (no fallback), so the
    /// figures are reproducible.
    ///
    /// Errors: `InvalidInput` for an unreadable file or a malformed line (named).
    pub async fn evaluate_classifier(&self, path: &Path) -> Result<Evaluation, EngineError> {
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|e| EngineError::InvalidInput(format!("{}: {e}", path.display())))?;
        let items = parse_eval_tsv(&text)
            .map_err(|e| EngineError::InvalidInput(format!("{}: {e}", path.display())))?;
        if items.is_empty() {
            return Err(EngineError::InvalidInput(format!(
                "{}: no tasks to evaluate",
                path.display()
            )));
        }
        Ok(evaluate(&items, classify))
    }

    /// Classifies the task, picks the best usable model that fits the budget and needs
    /// (ratings blended in), records the pick and returns it with its id.
    ///
    /// Errors: `InvalidInput` for a bad request; `NotFound` when no model fits (the message
    /// says which filter removed how many).
    pub async fn pick_model(&self, request: RouteTaskRequest) -> Result<PickAnswer, EngineError> {
        let classification = self.classify_assisted(&request.task).await;
        let route = request
            .route_request(&classification)
            .map_err(routing_error)?;
        let inputs = self
            .route_inputs(request.any_provider, request.launcher.as_deref())
            .await?;
        let mut chosen = inputs
            .with_context(|ctx| pick(&route, ctx))
            .map_err(routing_error)?;
        if chosen.category == Category::Coding {
            let mut ready = WorkerReadiness::default();
            chosen.worker = Some(self.suggest_worker(&chosen.id, &mut ready).await);
            for alternative in &mut chosen.alternatives {
                alternative.worker = Some(self.suggest_worker(&alternative.id, &mut ready).await);
            }
        }
        let id = self
            .store()
            .insert_route_pick(&NewRoutePick {
                task: request.task.trim(),
                category: chosen.category,
                budget: route.budget.tier.id(),
                model_id: &chosen.id,
                created_at: &now(),
            })
            .await?;
        Ok(PickAnswer {
            pick_id: pick_id(id)?,
            classification,
            pick: chosen,
        })
    }

    /// The best `count` (1–10) models for the task, one per provider first.
    ///
    /// Errors: `InvalidInput` for a bad request or count; `NotFound` when no model fits.
    pub async fn recommend_models(
        &self,
        request: RouteTaskRequest,
        count: u32,
    ) -> Result<Recommendation, EngineError> {
        let classification = self.classify_assisted(&request.task).await;
        let route = request
            .route_request(&classification)
            .map_err(routing_error)?;
        let inputs = self
            .route_inputs(request.any_provider, request.launcher.as_deref())
            .await?;
        let mut recommendation = inputs
            .with_context(|ctx| recommend(&route, count, ctx))
            .map_err(routing_error)?;
        if route.category == Category::Coding {
            let mut ready = WorkerReadiness::default();
            for model in &mut recommendation.models {
                model.worker = Some(self.suggest_worker(&model.id, &mut ready).await);
            }
        }
        Ok(recommendation)
    }

    /// Plans the task: sequential steps or a swarm DAG, a model per step. The one entry point
    /// the desktop command and the CLI share: the request is checked once
    /// ([`PlanTaskRequest::validate`]), then the deterministic planner plans it, or the model
    /// planner proposes it (model failures become a fallback to the
    /// deterministic plan with a warning, and the first warning names the planner).
    ///
    /// Errors: `InvalidInput` for a bad request (empty task, bad price cap, a planner model
    /// without the model planner).
    pub async fn plan_task(&self, request: PlanTaskRequest) -> Result<Plan, EngineError> {
        let ValidPlanTask { options, planner } = request.validate().map_err(routing_error)?;
        match planner {
            PlannerChoice::Deterministic => {
                self.plan_with_planner_output(&request, &options, ModelPlannerOutput::NotAsked)
                    .await
            }
            PlannerChoice::Model(model) => {
                let attempt = self
                    .ask_model_planner(&request.task, request.mode, model)
                    .await;
                let mut plan = self
                    .plan_with_planner_output(&request, &options, attempt.output())
                    .await?;
                attempt.label(&mut plan);
                Ok(plan)
            }
        }
    }

    /// The seam for the model planner: the plan for `request` given what the model planner
    /// produced (its answer when valid, else the deterministic plan with a warning saying
    /// why). `NotAsked` gives the deterministic plan.
    pub(crate) async fn plan_with_planner_output(
        &self,
        request: &PlanTaskRequest,
        options: &PlanOptions,
        output: ModelPlannerOutput<'_>,
    ) -> Result<Plan, EngineError> {
        let inputs = self.route_inputs(request.any_provider, None).await?;
        Ok(inputs
            .with_context(|ctx| resolve_plan(output, &request.task, request.mode, options, ctx)))
    }

    /// Re-checks an edited plan: recomputes its edges and waves from the steps'
    /// dependencies, and lists what is wrong (unknown or cyclic dependencies, duplicate ids,
    /// models not in the catalog, steps without a model).
    pub async fn revalidate_plan(&self, mut plan: Plan) -> Result<PlanCheck, EngineError> {
        let state = self.catalog_state().await?;
        recompute(&mut plan);
        let mut issues = validate_plan(&plan);
        issues.extend(validate_models(&plan, &state.catalog.models));
        Ok(PlanCheck { plan, issues })
    }

    /// Rates a model (1–5) in a category by hand; returns its ratings there afterwards.
    /// Variant ids (`…:free`) count for their model.
    ///
    /// Errors: `InvalidInput` for a rating outside 1–5; `NotFound` for a model not in the
    /// catalog.
    pub async fn rate_model(
        &self,
        model_id: &str,
        category: Category,
        rating: u8,
    ) -> Result<FeedbackSummary, EngineError> {
        let rating = check_rating(rating).map_err(routing_error)?;
        let state = self.catalog_state().await?;
        let model_id = find_model(&state.catalog, model_id.trim())
            .map(|card| card.id.clone())
            .ok_or_else(|| EngineError::NotFound(format!("no model {model_id} in the catalog")))?;
        self.store()
            .add_rating(&model_id, category, rating, RatingSource::Manual, &now())
            .await?;
        Ok(self.store().rating_summary(&model_id, category).await?)
    }

    /// Rates a past pick (1–5), replacing an earlier rating of it; the rating counts for the
    /// picked model in the pick's category. Returns the pick as now stored.
    ///
    /// Errors: `InvalidInput` for a rating outside 1–5; `NotFound` for an unknown pick.
    pub async fn rate_pick(&self, pick_id: u32, rating: u8) -> Result<PastPick, EngineError> {
        let rating = check_rating(rating).map_err(routing_error)?;
        let record = self
            .store()
            .rate_route_pick(i64::from(pick_id), rating, &now())
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("no pick {pick_id}")))?;
        let state = self.catalog_state().await?;
        past_pick(record, &state)
    }

    /// The newest `limit` picks (at most [`MAX_RECENT_PICKS`]), newest first, with their
    /// ratings.
    pub async fn recent_picks(&self, limit: u32) -> Result<Vec<PastPick>, EngineError> {
        let records = self
            .store()
            .recent_route_picks(limit.min(MAX_RECENT_PICKS))
            .await?;
        let state = self.catalog_state().await?;
        records
            .into_iter()
            .map(|record| past_pick(record, &state))
            .collect()
    }
}

fn past_pick(record: RoutePickRecord, state: &CatalogState) -> Result<PastPick, EngineError> {
    let model_name = find_model(&state.catalog, &record.model_id)
        .map_or_else(|| record.model_id.clone(), |card| card.name.clone());
    Ok(PastPick {
        id: pick_id(record.id)?,
        task: record.task,
        category: record.category,
        model_id: record.model_id,
        model_name,
        created_at: record.created_at,
        rating: record.rating,
    })
}

fn pick_id(id: i64) -> Result<u32, EngineError> {
    u32::try_from(id).map_err(|_| EngineError::Internal(format!("pick id {id} out of range")))
}

/// Request problems are the caller's; "nothing fits" is a `NotFound` the UI explains.
fn routing_error(error: RoutingError) -> EngineError {
    match error {
        RoutingError::NoCandidate { .. } => EngineError::NotFound(error.to_string()),
        RoutingError::InvalidRequest(_) | RoutingError::InvalidCount(_) => {
            EngineError::InvalidInput(error.to_string())
        }
        RoutingError::Data { .. } | RoutingError::Term { .. } | RoutingError::PlannerOutput(_) => {
            EngineError::Internal(error.to_string())
        }
    }
}
