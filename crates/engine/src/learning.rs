//! What routing learns from: the recorded outcomes (see `outcomes`) tallied per category and
//! model into a [`LearnedIndex`], and the two settings that steer it — since when outcomes
//! count (a reset moves it to now) and below which estimate a routed cascade skips a rung.

use std::collections::{BTreeMap, HashMap};

use switchyard_core::catalog::card::{Catalog, Category, ModelCard, Pricing};
use switchyard_core::outcomes::OutcomeRecord;
use switchyard_core::routing::{
    coverage_adjustment, prior_from_score, recommend, AgentPreference, FeedbackIndex, LearnedIndex,
    LearningSettings, RouteContext, RouteRequest, OWN_HISTORY_WEIGHT,
};
use switchyard_core::run::savings::LearningSavings;

use crate::attempts::record::now_ms;
use crate::catalog::{find_model, now};
use crate::{Engine, EngineError};

/// Settings key: outcomes that finished before this time (Unix ms) are not learned from.
pub const LEARN_SINCE_SETTING: &str = "routing.learn_since_ms";
/// Settings key: a routed cascade skips a rung whose estimate for the task's category is
/// below this (0 turns skipping off).
pub const SKIP_BELOW_SETTING: &str = "routing.cascade_skip_below";
/// The default skip threshold.
pub const DEFAULT_SKIP_BELOW: f64 = 0.3;
/// Settings key: each agent's starting model, a JSON object `{agent: model}`.
pub const START_MODELS_SETTING: &str = "agents.start_models";
/// The longest model reference a starting model may be.
const MAX_MODEL_CHARS: usize = 200;

/// A model's benchmark prior in `category`: its category score less the missing-evidence
/// penalty, read as a probability (unknown models start at the floor). Ratings and context
/// are left out: they belong to a request, and the prior here describes the model.
pub(crate) fn benchmark_prior(catalog: &Catalog, model: &str, category: Category) -> f64 {
    let score = find_model(catalog, model)
        .and_then(|card| card.categories.get(&category))
        .map_or(0.0, |s| s.score + coverage_adjustment(s.coverage));
    prior_from_score(score)
}

impl Engine {
    /// The learning settings and what routing learned: each (category, model) estimate with
    /// its benchmark prior and outcomes.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn learning_settings(&self) -> Result<LearningSettings, EngineError> {
        let since_ms = self.learn_since().await?;
        let skip_below = self.skip_below().await?;
        let (learned, counted) = self.learned_outcomes(None).await?;
        let state = self.catalog_state().await.ok();
        let prior = |model: &str, category: Category| {
            state.as_ref().map_or(prior_from_score(0.0), |state| {
                benchmark_prior(&state.catalog, model, category)
            })
        };
        let mut static_picks = StaticPicks::new(state.as_ref().map(|s| &s.catalog));
        let premium = self.baseline().await.map(|(_, pricing)| pricing);
        let mut savings = LearningSavings::default();
        for record in &counted {
            let (Some(tokens_in), Some(tokens_out)) = (record.tokens_in, record.tokens_out) else {
                continue;
            };
            savings.add(
                tokens_in,
                tokens_out,
                record.cost_usd,
                static_picks.pricing(record.task.category),
                premium.as_ref(),
            );
        }
        Ok(LearningSettings::new(
            since_ms, skip_below, &learned, prior, savings,
        ))
    }

    /// Forgets what routing learned: outcomes recorded until now stop counting (they stay
    /// in the journal and in `outcomes`). Returns the settings after the reset.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn reset_learning(&self) -> Result<LearningSettings, EngineError> {
        self.store()
            .set_setting(LEARN_SINCE_SETTING, &now_ms().to_string(), &now())
            .await?;
        self.learning_settings().await
    }

    /// Sets the cascade skip threshold (0 turns skipping off).
    ///
    /// # Errors
    /// `InvalidInput` outside 0–1; [`EngineError::Store`].
    pub async fn set_skip_below(&self, value: f64) -> Result<LearningSettings, EngineError> {
        if !(0.0..=1.0).contains(&value) {
            return Err(EngineError::InvalidInput(format!(
                "{SKIP_BELOW_SETTING} is a success estimate from 0 to 1, not {value}"
            )));
        }
        self.store()
            .set_setting(SKIP_BELOW_SETTING, &value.to_string(), &now())
            .await?;
        self.learning_settings().await
    }

    /// The skip threshold (a stored value that does not parse reads as the default).
    pub(crate) async fn skip_below(&self) -> Result<f64, EngineError> {
        Ok(self
            .store()
            .setting(SKIP_BELOW_SETTING)
            .await?
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| (0.0..=1.0).contains(v))
            .unwrap_or(DEFAULT_SKIP_BELOW))
    }

    async fn learn_since(&self) -> Result<Option<i64>, EngineError> {
        Ok(self
            .store()
            .setting(LEARN_SINCE_SETTING)
            .await?
            .and_then(|v| v.trim().parse::<i64>().ok()))
    }

    /// Every outcome since the last reset, tallied per category and model (the catalog id
    /// its model reference names, else the reference as recorded). With `launcher`, that
    /// agent's own outcomes weigh [`OWN_HISTORY_WEIGHT`] times as much.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub(crate) async fn learned_index(
        &self,
        launcher: Option<&str>,
    ) -> Result<LearnedIndex, EngineError> {
        Ok(self.learned_outcomes(launcher).await?.0)
    }

    /// The tallies and the outcomes they were made from (since the last reset, with a model).
    async fn learned_outcomes(
        &self,
        launcher: Option<&str>,
    ) -> Result<(LearnedIndex, Vec<OutcomeRecord>), EngineError> {
        let since = self.learn_since().await?;
        let now = now_ms();
        let mut index = LearnedIndex::default();
        // A reference through a provider (`openrouter:openai/gpt-4o`) counts for the catalog
        // model it names, the id picks rank; one lookup per distinct reference.
        let mut ids: HashMap<String, String> = HashMap::new();
        let mut counted = Vec::new();
        for record in self.outcomes_since(since.unwrap_or(i64::MIN)).await? {
            let Some(model) = record.model.clone() else {
                continue;
            };
            let id = match ids.get(&model) {
                Some(id) => id.clone(),
                None => {
                    let id = self
                        .catalog_id(&model)
                        .await
                        .unwrap_or_else(|| model.clone());
                    ids.insert(model, id.clone());
                    id
                }
            };
            let own = launcher.is_some_and(|l| l == record.launcher);
            index.add_task(
                &id,
                &record.task,
                record.succeeded,
                record.finished_ms,
                now,
                if own { OWN_HISTORY_WEIGHT } else { 1.0 },
            );
            counted.push(record);
        }
        Ok((index, counted))
    }
}

impl Engine {
    /// Every agent that launched work (since the last reset) or has a starting model, with
    /// its own outcomes and starting model; most outcomes first.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn agent_preferences(&self) -> Result<Vec<AgentPreference>, EngineError> {
        let starts = self.start_models().await?;
        let (_, counted) = self.learned_outcomes(None).await?;
        let blank = |agent: &str| AgentPreference {
            agent: agent.to_owned(),
            start_model: starts.get(agent).cloned(),
            outcomes: 0,
            succeeded: 0,
        };
        let mut agents: BTreeMap<String, AgentPreference> = BTreeMap::new();
        for record in &counted {
            let preference = agents
                .entry(record.launcher.clone())
                .or_insert_with(|| blank(&record.launcher));
            preference.outcomes += 1;
            preference.succeeded += u32::from(record.succeeded);
        }
        for agent in starts.keys() {
            agents.entry(agent.clone()).or_insert_with(|| blank(agent));
        }
        let mut list: Vec<AgentPreference> = agents.into_values().collect();
        list.sort_by(|a, b| {
            b.outcomes
                .cmp(&a.outcomes)
                .then_with(|| a.agent.cmp(&b.agent))
        });
        Ok(list)
    }

    /// Sets (or, with `None` or blank, clears) the model `agent`'s runs start with when they
    /// name none. Returns every agent's preferences.
    ///
    /// # Errors
    /// `InvalidInput` for a blank agent or a model reference that is too long or has
    /// control characters; [`EngineError::Store`].
    pub async fn set_agent_start_model(
        &self,
        agent: &str,
        model: Option<&str>,
    ) -> Result<Vec<AgentPreference>, EngineError> {
        let agent = agent.trim();
        if agent.is_empty() {
            return Err(EngineError::InvalidInput("name the agent".into()));
        }
        let model = model.map(str::trim).filter(|m| !m.is_empty());
        if let Some(model) = model {
            if model.chars().count() > MAX_MODEL_CHARS || model.chars().any(char::is_control) {
                return Err(EngineError::InvalidInput(format!(
                    "{model:?} is not a model reference"
                )));
            }
        }
        let mut starts = self.start_models().await?;
        match model {
            Some(model) => starts.insert(agent.to_owned(), model.to_owned()),
            None => starts.remove(agent),
        };
        let json = serde_json::to_string(&starts)
            .map_err(|e| EngineError::Internal(format!("starting models: {e}")))?;
        self.store()
            .set_setting(START_MODELS_SETTING, &json, &now())
            .await?;
        self.agent_preferences().await
    }

    /// The starting model set for `agent`, if any.
    pub(crate) async fn start_model_for(&self, agent: &str) -> Result<Option<String>, EngineError> {
        Ok(self.start_models().await?.remove(agent))
    }

    /// Every agent's starting model (an unreadable setting reads as none, and is logged).
    async fn start_models(&self) -> Result<BTreeMap<String, String>, EngineError> {
        let Some(text) = self.store().setting(START_MODELS_SETTING).await? else {
            return Ok(BTreeMap::new());
        };
        Ok(serde_json::from_str(&text).unwrap_or_else(|error| {
            tracing::warn!(%error, "ignoring an unreadable {START_MODELS_SETTING} setting");
            BTreeMap::new()
        }))
    }
}

/// The prices of each category's static pick — what routing chose before it learned —
/// looked up once per category.
pub(crate) struct StaticPicks<'c> {
    catalog: Option<&'c Catalog>,
    by_category: HashMap<Category, Option<Pricing>>,
}

impl<'c> StaticPicks<'c> {
    pub(crate) fn new(catalog: Option<&'c Catalog>) -> Self {
        Self {
            catalog,
            by_category: HashMap::new(),
        }
    }

    /// `None` without a catalog or a priced pick.
    pub(crate) fn pricing(&mut self, category: Category) -> Option<&Pricing> {
        let catalog = self.catalog;
        self.by_category
            .entry(category)
            .or_insert_with(|| catalog.and_then(|c| static_pick(c, category)))
            .as_ref()
    }
}

/// The static pick for `category`: the best-scored model of the default budget on the
/// benchmarks alone, any provider — what `pick` answered before routing learned.
fn static_pick(catalog: &Catalog, category: Category) -> Option<Pricing> {
    let request = RouteRequest {
        any_provider: true,
        ..RouteRequest::new(category)
    };
    let feedback = FeedbackIndex::empty();
    let usable = |_: &ModelCard| true;
    let ctx = RouteContext {
        catalog: &catalog.models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &usable,
    };
    recommend(&request, 1, &ctx)
        .ok()?
        .models
        .into_iter()
        .next()
        .map(|m| m.pricing)
}
