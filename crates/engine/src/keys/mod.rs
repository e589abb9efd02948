//! Provider keys and provider settings: the Keys page, `switchyard keys …`,
//! `switchyard providers …`, and `ask` (in [`ask`]).
//!
//! Keys live in the OS keychain (`switchyard_keychain::KeyStore`), base URLs and custom
//! providers in SQLite (`switchyard_store::providers`), the provider list in
//! `switchyard_providers::registry`. No method here returns a key: callers get
//! [`ProviderStatus`] (presence, source, last four characters) and [`ProviderTest`].
//!
//! The keychain service entries are stored under is [`switchyard_keychain::SERVICE`], unless
//! the setting [`KEYCHAIN_SERVICE_SETTING`] names another (tests and separate profiles use
//! this so they never touch the user's real keys).

mod ask;

pub(crate) use ask::{provider_error, RoutedModel};

use futures_util::future::join_all;
use switchyard_core::providers::{
    validate_provider_id, AddProviderRequest, KeyStatus, LocalReachability, ProviderKind,
    ProviderStatus, ProviderTest,
};
use switchyard_keychain::{KeyStore, KeychainError, ResolvedKey, Secret};
use switchyard_providers::local;
use switchyard_providers::probe;
use switchyard_providers::registry::{builtin, normalize_base_url, Provider, BUILTIN};
use switchyard_store::providers::ProviderRecord;

use crate::{Engine, EngineError};

/// Setting naming the keychain service for this data directory.
pub const KEYCHAIN_SERVICE_SETTING: &str = "keychain.service";

/// Longest display name of a custom provider.
const MAX_NAME_CHARS: usize = 80;

impl Engine {
    /// Every provider, built-ins first (in registry order) then custom ones (by id), with the
    /// base URL in use and the key status; local servers are probed (short timeouts, in
    /// parallel). A keychain problem shows as [`KeyStatus::Unavailable`] on each provider
    /// rather than failing the list.
    pub async fn list_providers(&self) -> Result<Vec<ProviderStatus>, EngineError> {
        let providers = self.providers().await?;
        let keys = self.key_store().await?;
        // One blocking task per provider: each keychain read is its own D-Bus round trip.
        let lookups = providers.iter().map(|provider| {
            let (keys, id, env_var) = (keys.clone(), provider.id.clone(), provider.env_var.clone());
            let takes_key = provider.takes_key();
            blocking(move || {
                if takes_key {
                    keys.status(&id, env_var.as_deref())
                } else {
                    KeyStatus::NotNeeded
                }
            })
        });
        let statuses = join_all(lookups)
            .await
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        let reachability = join_all(providers.iter().map(local_reachability)).await;
        Ok(providers
            .iter()
            .zip(statuses)
            .zip(reachability)
            .map(|((provider, key), local)| status_of(provider, key, local))
            .collect())
    }

    /// One provider's row of [`Engine::list_providers`]. Errors: `NotFound`.
    pub async fn provider_status(&self, id: &str) -> Result<ProviderStatus, EngineError> {
        let provider = self.provider(id).await?;
        let key = if provider.takes_key() {
            let keys = self.key_store().await?;
            let (id, env_var) = (provider.id.clone(), provider.env_var.clone());
            blocking(move || keys.status(&id, env_var.as_deref())).await?
        } else {
            KeyStatus::NotNeeded
        };
        let local = local_reachability(&provider).await;
        Ok(status_of(&provider, key, local))
    }

    /// Stores (or replaces) the key of `provider` in the keychain and returns its new status
    /// (last four characters only). Errors: `NotFound`, `InvalidInput` (empty key, a local
    /// server), `Keychain` (no keychain, locked; the message says how to fix it).
    pub async fn set_key(
        &self,
        provider: &str,
        key: Secret,
    ) -> Result<ProviderStatus, EngineError> {
        let provider = self.provider(provider).await?;
        if !provider.takes_key() {
            return Err(EngineError::InvalidInput(format!(
                "{} takes no key",
                provider.name
            )));
        }
        if key.is_empty() {
            return Err(EngineError::InvalidInput("the key is empty".into()));
        }
        let keys = self.key_store().await?;
        let id = provider.id.clone();
        let last4 = blocking(move || keys.set(&id, &key))
            .await?
            .map_err(keychain_error)?;
        tracing::info!(provider = %provider.id, "provider key stored");
        Ok(status_of(&provider, KeyStatus::Stored { last4 }, None))
    }

    /// Deletes the stored key of `provider`; `false` when there was none. An environment
    /// variable, if set, is not affected. Errors: `NotFound`, `InvalidInput`, `Keychain`.
    pub async fn delete_key(&self, provider: &str) -> Result<bool, EngineError> {
        let provider = self.provider(provider).await?;
        if !provider.takes_key() {
            return Err(EngineError::InvalidInput(format!(
                "{} takes no key",
                provider.name
            )));
        }
        let keys = self.key_store().await?;
        let id = provider.id.clone();
        let deleted = blocking(move || keys.delete(&id))
            .await?
            .map_err(keychain_error)?;
        tracing::info!(provider = %provider.id, deleted, "provider key deleted");
        Ok(deleted)
    }

    /// "Test": one request to the provider's model-list endpoint with its key (keychain, else
    /// environment). Provider-side failures (wrong key, unreachable) are a report with
    /// `ok: false` and the provider's message, not an error. Errors: `NotFound`,
    /// `MissingCredential` (no key anywhere), `Keychain` (keychain unusable and no variable).
    pub async fn test_provider(&self, provider: &str) -> Result<ProviderTest, EngineError> {
        let provider = self.provider(provider).await?;
        let key = self.key_for(&provider).await?;
        let mut report = probe::test_provider(&provider, key.as_ref().map(|k| &k.secret)).await;
        report.key_source = key.map(|k| k.source);
        Ok(report)
    }

    /// Points a provider elsewhere (`None`: back to the built-in default). The URL is checked
    /// and normalized. Errors: `NotFound`, `InvalidInput` (bad URL; `None` for a custom one).
    pub async fn set_provider_base_url(
        &self,
        provider: &str,
        base_url: Option<&str>,
    ) -> Result<ProviderStatus, EngineError> {
        let current = self.provider(provider).await?;
        let normalized = base_url
            .map(normalize_base_url)
            .transpose()
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        match (normalized, current.custom) {
            (None, true) => {
                return Err(EngineError::InvalidInput(format!(
                    "{} is a custom provider; it needs a base URL",
                    current.id
                )))
            }
            (None, false) => {
                self.store().clear_provider_base_url(&current.id).await?;
            }
            (Some(url), false) if current.default_base_url.as_deref() == Some(url.as_str()) => {
                self.store().clear_provider_base_url(&current.id).await?;
            }
            (Some(url), _) => {
                self.store()
                    .set_provider_base_url(&current.id, &url, &now())
                    .await?;
            }
        }
        self.provider_status(&current.id).await
    }

    /// Adds a user-defined OpenAI-compatible or Anthropic endpoint. Errors: `InvalidInput`
    /// (bad id, a built-in or taken id, another kind, bad URL, bad name).
    pub async fn add_provider(
        &self,
        request: AddProviderRequest,
    ) -> Result<ProviderStatus, EngineError> {
        let id = request.id.trim();
        validate_provider_id(id).map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        if builtin(id).is_some() {
            return Err(EngineError::InvalidInput(format!(
                "{id} is a built-in provider"
            )));
        }
        if !matches!(
            request.kind,
            ProviderKind::OpenaiCompatible | ProviderKind::Anthropic
        ) {
            return Err(EngineError::InvalidInput(format!(
                "a custom provider is openai-compatible or anthropic, not {}",
                request.kind
            )));
        }
        let base_url = normalize_base_url(&request.base_url)
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        let name = request
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or(id);
        if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(EngineError::InvalidInput(format!(
                "the name must be one line of at most {MAX_NAME_CHARS} characters"
            )));
        }
        let added = self
            .store()
            .insert_custom_provider(id, name, request.kind, &base_url, &now())
            .await?;
        if !added {
            return Err(EngineError::InvalidInput(format!(
                "provider {id} already exists"
            )));
        }
        self.provider_status(id).await
    }

    /// Removes a custom provider and its stored key (a keychain that cannot be reached only
    /// leaves the key behind, with a warning). Errors: `NotFound`, `InvalidInput` (built-in).
    pub async fn remove_provider(&self, provider: &str) -> Result<(), EngineError> {
        let current = self.provider(provider).await?;
        if !current.custom {
            return Err(EngineError::InvalidInput(format!(
                "{} is built in and cannot be removed",
                current.id
            )));
        }
        self.store().delete_custom_provider(&current.id).await?;
        let keys = self.key_store().await?;
        let id = current.id.clone();
        if let Err(error) = blocking(move || keys.delete(&id)).await? {
            tracing::warn!(provider = %current.id, %error, "could not delete the removed provider's key");
        }
        Ok(())
    }

    /// Every provider with its base URL in use.
    pub(crate) async fn providers(&self) -> Result<Vec<Provider>, EngineError> {
        let records = self.store().provider_records().await?;
        let override_of = |id: &str| {
            records.iter().find_map(|r| match r {
                ProviderRecord::Override { id: rid, base_url } if rid == id => {
                    Some(base_url.as_str())
                }
                _ => None,
            })
        };
        let mut providers: Vec<Provider> = BUILTIN
            .iter()
            .map(|spec| Provider::from_spec(spec, override_of(spec.id)))
            .collect();
        for record in &records {
            if let ProviderRecord::Custom {
                id,
                name,
                kind,
                base_url,
            } = record
            {
                providers.push(Provider::custom(id, name, *kind, base_url));
            }
        }
        Ok(providers)
    }

    async fn provider(&self, id: &str) -> Result<Provider, EngineError> {
        self.providers()
            .await?
            .into_iter()
            .find(|p| p.id == id.trim())
            .ok_or_else(|| EngineError::NotFound(format!("no provider {:?}", id.trim())))
    }

    /// The key store of this data directory.
    pub(crate) async fn key_store(&self) -> Result<KeyStore, EngineError> {
        Ok(
            match self.store().setting(KEYCHAIN_SERVICE_SETTING).await? {
                Some(service) if !service.trim().is_empty() => KeyStore::with_service(service),
                _ => KeyStore::new(),
            },
        )
    }

    /// The key to send to `provider`: `None` when it takes none, or when a custom provider
    /// has none (its key is optional).
    pub(crate) async fn key_for(
        &self,
        provider: &Provider,
    ) -> Result<Option<ResolvedKey>, EngineError> {
        if !provider.takes_key() {
            return Ok(None);
        }
        let keys = self.key_store().await?;
        let (id, env_var) = (provider.id.clone(), provider.env_var.clone());
        match blocking(move || keys.resolve(&id, env_var.as_deref())).await? {
            Ok(Some(key)) => Ok(Some(key)),
            Ok(None) if !provider.needs_key() => Ok(None),
            Ok(None) => Err(missing_key(provider)),
            Err(_) if !provider.needs_key() => Ok(None),
            Err(error) => Err(keychain_error(error)),
        }
    }
}

/// The `MissingCredential` error for `provider`, naming both ways to fix it.
fn missing_key(provider: &Provider) -> EngineError {
    let env = provider
        .env_var
        .as_deref()
        .map(|v| format!(" or set {v}"))
        .unwrap_or_default();
    EngineError::MissingCredential(format!(
        "no key for {}: add one with `switchyard keys set {}` (or on the Keys page){env}",
        provider.name, provider.id
    ))
}

fn keychain_error(error: KeychainError) -> EngineError {
    match error {
        KeychainError::Invalid(message) => EngineError::InvalidInput(message),
        other => EngineError::Keychain(other),
    }
}

/// Runs a blocking keychain call off the async threads.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, EngineError> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| EngineError::Internal(format!("keychain task failed: {e}")))
}

async fn local_reachability(provider: &Provider) -> Option<LocalReachability> {
    let server = provider.local_server()?;
    let result = local::list_models(server, &provider.base_url).await;
    Some(LocalReachability {
        reachable: result.is_ok(),
        model_count: result
            .as_ref()
            .ok()
            .map(|m| u32::try_from(m.len()).unwrap_or(u32::MAX)),
        error: result.err().map(|e| e.to_string()),
    })
}

fn status_of(
    provider: &Provider,
    key: KeyStatus,
    local: Option<LocalReachability>,
) -> ProviderStatus {
    ProviderStatus {
        id: provider.id.clone(),
        name: provider.name.clone(),
        kind: provider.kind,
        base_url: provider.base_url.clone(),
        default_base_url: provider.default_base_url.clone(),
        custom: provider.custom,
        env_var: provider.env_var.clone(),
        key,
        local,
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
