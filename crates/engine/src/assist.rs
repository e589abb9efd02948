//! The classifier's model-assisted fallback (off by default): when the local classifier's
//! confidence is below the user's threshold, one structured call asks a small model for the
//! category. Answers are cached per task text; any failure (no model, a refused connection,
//! a timeout, an answer that is not a category) keeps the local answer, so routing never
//! waits on a model that is not there.
//!
//! Which model: the one in the settings, else the planner's choice (a model on a reachable
//! local server, else the best usable fast-and-cheap model with structured output).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use switchyard_core::catalog::card::{Category, Pricing};
use switchyard_core::providers::ProviderKind;
use switchyard_core::routing::{
    assist_schema, classify, parse_assist_answer, Classification, ClassifierSettings,
    ASSIST_INSTRUCTIONS, DEFAULT_ASSIST_THRESHOLD,
};
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, OutputSchema, RetryPolicy, Timeouts,
};

use crate::catalog::now;
use crate::keys::RoutedModel;
use crate::{Engine, EngineError};

const ASSIST_SETTING: &str = "classifier.assist";
const THRESHOLD_SETTING: &str = "classifier.assistThreshold";
const MODEL_SETTING: &str = "classifier.assistModel";
/// Answers kept (oldest dropped first).
const CACHE_CAPACITY: usize = 1024;
/// The answer is one short JSON object.
const ASSIST_MAX_TOKENS: u32 = 64;

/// Categories a model gave, keyed by (configured model, task text).
#[derive(Debug, Default)]
pub(crate) struct AssistCache {
    entries: HashMap<(String, String), (Category, String)>,
    order: VecDeque<(String, String)>,
}

impl AssistCache {
    fn get(&self, key: &(String, String)) -> Option<(Category, String)> {
        self.entries.get(key).cloned()
    }

    fn insert(&mut self, key: (String, String), category: Category, model: String) {
        if self
            .entries
            .insert(key.clone(), (category, model))
            .is_none()
        {
            self.order.push_back(key);
        }
        while self.order.len() > CACHE_CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.entries.remove(&old);
            }
        }
    }
}

/// Short timeouts and no retries: a missing server must fail fast.
fn client_config() -> ClientConfig {
    ClientConfig {
        timeouts: Timeouts {
            connect: Duration::from_secs(3),
            first_byte: Duration::from_secs(20),
            idle: Duration::from_secs(20),
            total: Duration::from_secs(25),
        },
        retry: RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        },
        ..ClientConfig::default()
    }
}

impl Engine {
    /// The classifier fallback's settings (defaults when never set).
    pub async fn classifier_settings(&self) -> Result<ClassifierSettings, EngineError> {
        let store = self.store();
        let assist = store.setting(ASSIST_SETTING).await?;
        let threshold = store.setting(THRESHOLD_SETTING).await?;
        let model = store.setting(MODEL_SETTING).await?;
        Ok(ClassifierSettings {
            assist: assist.as_deref() == Some("on"),
            threshold: threshold
                .and_then(|t| t.parse::<f64>().ok())
                .filter(|t| t.is_finite() && (0.0..=1.0).contains(t))
                .unwrap_or(DEFAULT_ASSIST_THRESHOLD),
            model: model.filter(|m| !m.is_empty()),
        })
    }

    /// Saves the classifier fallback's settings; returns them as stored.
    ///
    /// Errors: `InvalidInput` for a threshold outside 0–1.
    pub async fn set_classifier_settings(
        &self,
        settings: ClassifierSettings,
    ) -> Result<ClassifierSettings, EngineError> {
        let settings = settings
            .checked()
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        let at = now();
        let store = self.store();
        store
            .set_setting(
                ASSIST_SETTING,
                if settings.assist { "on" } else { "off" },
                &at,
            )
            .await?;
        store
            .set_setting(THRESHOLD_SETTING, &settings.threshold.to_string(), &at)
            .await?;
        store
            .set_setting(MODEL_SETTING, settings.model.as_deref().unwrap_or(""), &at)
            .await?;
        self.classifier_settings().await
    }

    /// The local classification of `task`, decided by a model instead when the fallback is
    /// on and the classifier is unsure. Never fails: without a usable answer the local one
    /// stands.
    pub(crate) async fn classify_assisted(&self, task: &str) -> Classification {
        let local = classify(task);
        let settings = match self.classifier_settings().await {
            Ok(settings) => settings,
            Err(error) => {
                tracing::warn!(%error, "classifier settings unreadable; local answer kept");
                return local;
            }
        };
        if !settings.wants_assist(&local) {
            return local;
        }
        let key = (
            settings.model.clone().unwrap_or_default(),
            task.trim().to_owned(),
        );
        let cached = self
            .assist_cache
            .lock()
            .ok()
            .and_then(|cache| cache.get(&key));
        if let Some((category, model)) = cached {
            return local.assisted(category, &model, true);
        }
        let model = match settings.model {
            Some(model) => model,
            None => match self.choose_planner_model().await {
                Some(model) => model,
                None => {
                    tracing::info!("no model for the classifier fallback; local answer kept");
                    return local;
                }
            },
        };
        match self.ask_category(&model, task).await {
            Ok(category) => {
                if let Ok(mut cache) = self.assist_cache.lock() {
                    cache.insert(key, category, model.clone());
                }
                local.assisted(category, &model, false)
            }
            Err(reason) => {
                tracing::warn!(%model, %reason, "classifier fallback failed; local answer kept");
                local
            }
        }
    }

    /// One structured call asking `model` for the category of `task`.
    async fn ask_category(&self, model: &str, task: &str) -> Result<Category, String> {
        let RoutedModel {
            provider,
            target,
            key,
            model: provider_model,
        } = self
            .route_model(model)
            .await
            .map_err(|e| format!("{model}: {e}"))?;
        let mut request = ChatRequest::new(provider_model, format!("Task:\n{task}"));
        request.system = Some(ASSIST_INSTRUCTIONS.to_owned());
        request.max_tokens = Some(ASSIST_MAX_TOKENS);
        request.pricing = match provider.kind {
            ProviderKind::Local => Some(Pricing {
                prompt_per_m: Some(0.0),
                completion_per_m: Some(0.0),
            }),
            _ => self.catalog_pricing(model).await,
        };
        let client = ModelClient::new(client_config())
            .map_err(|e| format!("the model client could not start: {e}"))?;
        let answer = client
            .structured(
                &target,
                key.secret(),
                &request,
                &OutputSchema::new("category", assist_schema()),
            )
            .await
            .map_err(|error| match error {
                ClientError::Schema { error, .. } => format!("no valid category: {error}"),
                error => key.failure(&provider.id, error).to_string(),
            })?;
        parse_assist_answer(&answer.value)
            .ok_or_else(|| format!("not a category: {}", answer.value))
    }
}
