//! `ask`: one streamed answer from whichever provider serves a model reference.
//!
//! Routing is `switchyard_providers::route::route`: `local/<server>/<name>` and
//! `<provider>:<model>` go where they say; an OpenRouter catalog id (`vendor/name`) goes to the
//! vendor's own API when the user has that vendor's key (keychain or environment) for the
//! vendor's current origin, otherwise through OpenRouter. A key held for another origin counts
//! as no key (see [`super::binding`]).

use std::collections::HashMap;

use switchyard_core::catalog::card::Pricing;
use switchyard_core::origin::Origin;
use switchyard_core::providers::{AskAnswer, AskRequest, ProviderKind};
use switchyard_keychain::KeychainError;
use switchyard_providers::client::{
    CancellationToken, ChatRequest, ClientConfig, ClientError, ModelClient, StreamEvent, Target,
};
use switchyard_providers::registry::Provider;
use switchyard_providers::route::{key_candidates, route, RouteError};

use super::binding::{key_use, Found, KeyUse};
use super::missing_key;
use crate::{Engine, EngineError};

impl Engine {
    /// The shared client of [`Engine::ask`] (built on first use).
    fn ask_client(&self) -> Result<&ModelClient, EngineError> {
        if let Some(client) = self.ask_client.get() {
            return Ok(client);
        }
        let client = ModelClient::new(ClientConfig::default())
            .map_err(|e| EngineError::Internal(e.to_string()))?;
        // A racing first call may have set it meanwhile: either client is the same.
        Ok(self.ask_client.get_or_init(|| client))
    }

    /// Streams one answer: `on_delta` receives the text as it arrives; the finished answer
    /// (usage, cost, provider, latency) is returned. Cancel with `cancel` (the call returns
    /// `Provider` "the model call was canceled" at once) or by dropping the future.
    ///
    /// Cost uses `request.pricing` when given, else the catalog's per-million prices of the
    /// model (the id as given, or the part after `<provider>:`); local models are free; a
    /// model the catalog does not know reports no cost. Errors: `InvalidInput` (empty prompt,
    /// unreadable model reference), `NotFound` (unknown provider in the reference),
    /// `MissingCredential`, `KeyOriginMismatch` (the key is held for another origin than the
    /// provider's current one), `InsecureOrigin`, `Keychain`, `Provider` (the provider's own
    /// message: wrong key, rate limit, timeout…).
    pub async fn ask(
        &self,
        request: AskRequest,
        cancel: Option<CancellationToken>,
        mut on_delta: impl FnMut(&str) + Send,
    ) -> Result<AskAnswer, EngineError> {
        if request.prompt.trim().is_empty() {
            return Err(EngineError::InvalidInput("the prompt is empty".into()));
        }
        let RoutedModel {
            provider,
            target,
            key,
            model: provider_model,
        } = self.route_model(&request.model).await?;
        let pricing = match (request.pricing, provider.kind) {
            (Some(pricing), _) => Some(pricing),
            (None, ProviderKind::Local) => Some(Pricing {
                prompt_per_m: Some(0.0),
                completion_per_m: Some(0.0),
            }),
            (None, _) => self.catalog_pricing(&request.model).await,
        };
        let mut chat = ChatRequest::new(provider_model.clone(), request.prompt.clone());
        chat.system = request.system.clone();
        chat.max_tokens = request.max_tokens;
        chat.pricing = pricing;
        chat.cancel = cancel;
        let client = self.ask_client()?;
        tracing::info!(model = %request.model, provider = %provider.id, "ask");
        let mut on_event = |event: StreamEvent| {
            if let StreamEvent::Delta(text) = event {
                on_delta(&text);
            }
        };
        let answer = client
            .chat_streaming(&target, key.secret(), &chat, &mut on_event)
            .await
            .map_err(|source| key.failure(&provider.id, source))?;
        Ok(AskAnswer {
            model: request.model,
            provider_id: provider.id.clone(),
            provider_model,
            key_source: key.key.map(|k| k.source),
            text: answer.text,
            finish_reason: answer.finish_reason,
            usage: answer.usage,
            cost: answer.cost,
            latency_ms: u32::try_from(answer.elapsed.as_millis()).unwrap_or(u32::MAX),
        })
    }
}

/// Where a model reference is sent: the provider, its wire target, the key to send and the
/// model name the provider expects.
pub(crate) struct RoutedModel {
    pub provider: Provider,
    pub target: Target,
    pub key: KeyUse,
    pub model: String,
}

impl Engine {
    /// Routes a model reference as [`Engine::ask`] does (see the module documentation),
    /// reading only the keys routing may use. Errors as `ask`'s, minus `Provider`.
    pub(crate) async fn route_model(&self, model: &str) -> Result<RoutedModel, EngineError> {
        let providers = self.providers().await?;
        // Only the keys routing may use: each keychain read is a D-Bus round trip.
        let candidates = key_candidates(model, &providers);
        let wanted: Vec<(&Provider, Option<Origin>)> = providers
            .iter()
            .filter(|p| p.takes_key() && p.target().is_some() && candidates.contains(&p.id))
            .map(|p| (p, None))
            .collect();
        let found = self.find_keys(&wanted).await?;
        let mut resolved: HashMap<String, Result<Found, KeychainError>> = wanted
            .iter()
            .map(|(p, _)| p.id.clone())
            .zip(found)
            .collect();
        let usable = |id: &str| {
            providers.iter().find(|p| p.id == id).is_some_and(|p| {
                resolved
                    .get(id)
                    .is_some_and(|f| key_use(p, f.clone()).is_ok_and(|k| k.key.is_some()))
            })
        };
        let route = route(model, &providers, usable).map_err(|error| match error {
            RouteError::NoCredential { ref candidates, .. } => {
                if let Some(keychain) = resolved.values().find_map(|r| r.as_ref().err()) {
                    // The keychain could not be asked: that is the thing to fix, not the key.
                    return EngineError::Keychain(keychain.clone());
                }
                // A key that exists but may not go where the provider points now says so.
                candidates
                    .iter()
                    .filter_map(|id| {
                        let provider = providers.iter().find(|p| &p.id == id)?;
                        key_use(provider, resolved.get(id)?.clone()).err()
                    })
                    .find(|e| !matches!(e, EngineError::MissingCredential(_)))
                    .unwrap_or_else(|| EngineError::MissingCredential(error.to_string()))
            }
            RouteError::UnknownProvider(_) => EngineError::NotFound(error.to_string()),
            RouteError::Ambiguous(_) | RouteError::NotAModelProvider(_) => {
                EngineError::InvalidInput(error.to_string())
            }
        })?;
        let provider = providers
            .into_iter()
            .find(|p| p.id == route.provider_id)
            .ok_or_else(|| {
                EngineError::Internal(format!("routed to unknown {}", route.provider_id))
            })?;
        let target = provider.target().ok_or_else(|| {
            EngineError::InvalidInput(format!("{} takes no prompts", provider.id))
        })?;
        let key = match resolved.remove(&provider.id) {
            Some(found) => key_use(&provider, found)?,
            None if provider.needs_key() => return Err(missing_key(&provider)),
            None => KeyUse::default(),
        };
        Ok(RoutedModel {
            provider,
            target,
            key,
            model: route.model,
        })
    }
}

pub(crate) fn provider_error(provider: &str, source: ClientError) -> EngineError {
    EngineError::Provider {
        provider: provider.to_owned(),
        source,
    }
}

impl Engine {
    /// The catalog's prices for a model reference: the id as given, the part after
    /// `<provider>:` (`openrouter:anthropic/claude-opus-4.5`), or that part under the
    /// provider's vendor (`openai:gpt-4o-mini` is the catalog's `openai/gpt-4o-mini`).
    pub(crate) async fn catalog_pricing(&self, model: &str) -> Option<Pricing> {
        let id = self.catalog_id(model).await?;
        self.model(&id).await.ok().map(|card| card.pricing)
    }

    /// The catalog id a model reference names: the reference itself, the model after a
    /// provider prefix (`openrouter:openai/gpt-4o`), or the prefix's vendor and the model
    /// (`openai:gpt-4o` → `openai/gpt-4o`); `None` when the catalog has none of them.
    pub(crate) async fn catalog_id(&self, model: &str) -> Option<String> {
        let mut ids = vec![model.to_owned()];
        if let Some((provider, rest)) = model.split_once(':') {
            if !provider.contains('/') {
                ids.push(rest.to_owned());
                let vendor = self.providers().await.ok().and_then(|providers| {
                    providers
                        .into_iter()
                        .find(|p| p.id == provider && !p.custom)
                        .and_then(|p| p.vendor)
                });
                if let Some(vendor) = vendor.filter(|_| !rest.contains('/')) {
                    ids.push(format!("{vendor}/{rest}"));
                }
            }
        }
        for id in ids {
            if self.model(&id).await.is_ok() {
                return Some(id);
            }
        }
        None
    }
}
