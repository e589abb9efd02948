//! Provider keys and provider settings: the Keys page, `switchyard keys …`,
//! `switchyard providers …`, and `ask` (in [`ask`]).
//!
//! Keys live in the OS keychain (`switchyard_keychain::KeyStore`), each bound to the origin it
//! was entered for (see [`binding`]); base URLs, custom providers and the key bindings in
//! SQLite (`switchyard_store::providers`, `switchyard_store::keys`), the provider list in
//! `switchyard_providers::registry`. No method here returns a key: callers get
//! [`ProviderStatus`] (presence, source, origin, last four characters) and [`ProviderTest`].
//!
//! The keychain service entries are stored under is [`switchyard_keychain::SERVICE`], unless
//! the setting [`KEYCHAIN_SERVICE_SETTING`] names another (tests and separate profiles use
//! this so they never touch the user's real keys).

mod ask;
pub mod binding;

pub(crate) use ask::{provider_error, RoutedModel};

use futures_util::future::join_all;
use switchyard_core::origin::Origin;
use switchyard_core::providers::{
    validate_provider_id, AddProviderRequest, KeyStatus, LocalReachability, ProviderKind,
    ProviderStatus, ProviderTest,
};
use switchyard_keychain::{KeyStore, KeychainError, ProviderKey};
use switchyard_providers::local;
use switchyard_providers::probe;
use switchyard_providers::registry::{builtin, normalize_base_url, Provider, BUILTIN};
use switchyard_store::keys::KeyBinding;
use switchyard_store::providers::ProviderRecord;

use binding::key_status;

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
        let keyed: Vec<(&Provider, Option<Origin>)> = providers
            .iter()
            .filter(|p| p.takes_key())
            .map(|p| (p, None))
            .collect();
        let mut found = self.find_keys(&keyed).await?.into_iter();
        let statuses: Vec<KeyStatus> = providers
            .iter()
            .map(|p| match p.takes_key() {
                true => found.next().map_or(KeyStatus::Missing, key_status),
                false => KeyStatus::NotNeeded,
            })
            .collect();
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
            key_status(self.find_key(&provider, None).await?)
        } else {
            KeyStatus::NotNeeded
        };
        let local = local_reachability(&provider).await;
        Ok(status_of(&provider, key, local))
    }

    /// Stores (or replaces) the key of `provider` in the keychain, bound to the origin of the
    /// provider's current base URL (a key held for another origin is replaced), and returns
    /// its new status (last four characters and origin only). The key was validated by
    /// [`ProviderKey::parse`], the one rule the app and the CLI share. Errors: `NotFound`,
    /// `InvalidInput` (a local server), `InsecureOrigin` (the base URL is plain http to
    /// another host), `Keychain` (no keychain, locked; the message says how to fix it).
    pub async fn set_key(
        &self,
        provider: &str,
        key: ProviderKey,
    ) -> Result<ProviderStatus, EngineError> {
        let provider = self.provider(provider).await?;
        if !provider.takes_key() {
            return Err(EngineError::InvalidInput(format!(
                "{} takes no key",
                provider.name
            )));
        }
        let origin = provider
            .origin()
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        if !origin.accepts_keys() {
            return Err(EngineError::InsecureOrigin(format!(
                "{} points at {origin}, plain http to another host: keys are only sent over                  https or to this machine, so none can be stored for it. Use an https URL first",
                provider.name
            )));
        }
        let keys = self.keys().await?;
        let previous = self
            .store()
            .key_binding(&provider.id)
            .await?
            .and_then(|b| Origin::of_url(&b.origin).ok())
            .filter(|o| *o != origin);
        let (id, at) = (provider.id.clone(), origin.clone());
        let last4 = blocking(move || {
            let last4 = keys.set(&id, &at, &key)?;
            // One key per provider: the one held for the old origin goes.
            if let Some(old) = previous {
                if let Err(error) = keys.delete(&id, &old) {
                    tracing::warn!(provider = %id, %error, "could not delete the key held for the old origin");
                }
            }
            Ok(last4)
        })
        .await?
        .map_err(keychain_error)?;
        self.store()
            .set_key_binding(&KeyBinding {
                provider: provider.id.clone(),
                origin: origin.to_string(),
                last4: last4.clone(),
                stored_at: now(),
            })
            .await?;
        tracing::info!(provider = %provider.id, %origin, "provider key stored");
        Ok(status_of(
            &provider,
            KeyStatus::Stored {
                last4,
                origin: origin.to_string(),
            },
            None,
        ))
    }

    /// Deletes the stored key of `provider` (whatever origin it is held for); `false` when
    /// there was none. An environment variable, if set, is not affected. Errors: `NotFound`,
    /// `InvalidInput`, `Keychain`.
    pub async fn delete_key(&self, provider: &str) -> Result<bool, EngineError> {
        let provider = self.provider(provider).await?;
        if !provider.takes_key() {
            return Err(EngineError::InvalidInput(format!(
                "{} takes no key",
                provider.name
            )));
        }
        let deleted = self.forget_key(&provider).await?;
        tracing::info!(provider = %provider.id, deleted, "provider key deleted");
        Ok(deleted)
    }

    /// "Test": one request to the provider's model-list endpoint with its key (keychain, else
    /// environment), if one may go to the provider's current origin. Provider-side failures
    /// (wrong key, unreachable) are a report with `ok: false` and the provider's message, not
    /// an error; when a custom provider's key was withheld (held for another origin) the
    /// message says so. Errors: `NotFound`, `MissingCredential` (no key anywhere),
    /// `KeyOriginMismatch` (the key is held for another origin), `InsecureOrigin`, `Keychain`
    /// (keychain unusable and no variable).
    pub async fn test_provider(&self, provider: &str) -> Result<ProviderTest, EngineError> {
        let provider = self.provider(provider).await?;
        let key = self.key_for(&provider).await?;
        let mut report = probe::test_provider(&provider, key.secret()).await;
        report.key_source = key.key.as_ref().map(|k| k.source);
        if let (false, Some(why)) = (report.ok, &key.withheld) {
            let error = report.error.take().unwrap_or_default();
            report.error = Some(format!("{error} ({why})"));
        }
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
        let next = self.next_base_url(&current, base_url)?;
        if current.default_base_url.as_deref() == Some(next.as_str()) && !current.custom {
            self.store().clear_provider_base_url(&current.id).await?;
        } else {
            self.store()
                .set_provider_base_url(&current.id, &next, &now())
                .await?;
        }
        self.provider_status(&current.id).await
    }

    /// The base URL `provider` would use after `set_provider_base_url(base_url)`: normalized,
    /// or the default for `None`. Errors: `InvalidInput` (bad URL; `None` for a custom one).
    pub(crate) fn next_base_url(
        &self,
        current: &Provider,
        base_url: Option<&str>,
    ) -> Result<String, EngineError> {
        let normalized = base_url
            .map(normalize_base_url)
            .transpose()
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        match (normalized, &current.default_base_url) {
            (Some(url), _) => Ok(url),
            (None, Some(default)) if !current.custom => Ok(default.clone()),
            (None, _) => Err(EngineError::InvalidInput(format!(
                "{} is a custom provider; it needs a base URL",
                current.id
            ))),
        }
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
        if let Err(error) = self.forget_key(&current).await {
            tracing::warn!(provider = %current.id, %error, "could not delete the removed provider's key");
        }
        Ok(())
    }

    /// Deletes every keychain entry `provider`'s key may be held under (its binding, its
    /// current and default origins, the first layout's bare id) and the binding.
    async fn forget_key(&self, provider: &Provider) -> Result<bool, EngineError> {
        let keys = self.keys().await?;
        let binding = self.store().key_binding(&provider.id).await?;
        let mut origins: Vec<Origin> = binding
            .iter()
            .filter_map(|b| Origin::of_url(&b.origin).ok())
            .chain(provider.origin().ok())
            .chain(provider.default_origin())
            .collect();
        origins.sort();
        origins.dedup();
        let id = provider.id.clone();
        let deleted = blocking(move || -> Result<bool, KeychainError> {
            let mut deleted = keys.delete_legacy(&id)?;
            for origin in &origins {
                deleted |= keys.delete(&id, origin)?;
            }
            Ok(deleted)
        })
        .await?
        .map_err(keychain_error)?;
        self.store().delete_key_binding(&provider.id).await?;
        Ok(deleted)
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

    pub(crate) async fn provider(&self, id: &str) -> Result<Provider, EngineError> {
        self.providers()
            .await?
            .into_iter()
            .find(|p| p.id == id.trim())
            .ok_or_else(|| EngineError::NotFound(format!("no provider {:?}", id.trim())))
    }

    /// The key store of this data directory, as it is (see [`Engine::keys`] for the one every
    /// key operation uses).
    pub(crate) async fn key_store(&self) -> Result<KeyStore, EngineError> {
        Ok(
            match self.store().setting(KEYCHAIN_SERVICE_SETTING).await? {
                Some(service) if !service.trim().is_empty() => KeyStore::with_service(service),
                _ => KeyStore::new(),
            },
        )
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
        origin: provider.origin().ok().map(|o| o.to_string()),
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
