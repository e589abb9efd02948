//! Keys bound to origins.
//!
//! A stored key is held in the keychain under `<provider>@<origin>`, the origin
//! (`scheme://host[:port]`) it was entered for, and SQLite records that binding
//! (`switchyard_store::keys`) so the UI can say "key held for <origin>". Every lookup names the
//! origin of the request about to be made, derived from the URL it is sent to, so a changed
//! base URL can never make a key travel: the key is withheld until the user moves it (the
//! app's native confirmation → [`Engine::move_key`]; the CLI's `--keep-key` →
//! [`Engine::set_provider_base_url_keeping_key`]) or stores a key for the new origin.
//!
//! Rules enforced here, before any request:
//! - a key goes only over `https` or to loopback (`InsecureOrigin` otherwise);
//! - an environment key goes only to the built-in default origin or to loopback
//!   (`switchyard_core::origin::env_key_allowed`);
//! - a provider that needs a key and has one held for another origin fails with
//!   `KeyOriginMismatch` naming both origins; one whose key is optional (custom endpoints) is
//!   called without it, and a failure says why.
//!
//! Entries of the first layout (account = bare provider id) are moved once per data
//! directory to the built-in default origin (built-ins) or the custom provider's current base
//! URL ([`Engine::keys`]).

use std::collections::HashMap;

use futures_util::future::join_all;
use switchyard_core::origin::{env_key_allowed, Origin};
use switchyard_core::providers::{KeyOriginChange, KeyStatus, ProviderStatus};
use switchyard_keychain::{KeyQuery, KeyStore, KeychainError, Lookup, ResolvedKey, Secret};
use switchyard_providers::client::ClientError;
use switchyard_providers::registry::Provider;
use switchyard_store::keys::KeyBinding;

use super::{blocking, keychain_error, missing_key, now, provider_error};
use crate::{Engine, EngineError};

/// Setting recording that this data directory's keys use the origin-bound layout.
pub const KEY_LAYOUT_SETTING: &str = "keys.layout";
const ORIGIN_BOUND: &str = "origin-bound";

/// A provider's key as found for requests to one origin.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Where the request would go.
    pub target: Origin,
    /// The provider's built-in default origin.
    pub default: Option<Origin>,
    /// What the keychain and the environment hold for it.
    pub lookup: Lookup,
}

/// The key to send with one request, and, when a stored key was withheld from an optional-key
/// provider, why (said when the request fails).
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyUse {
    pub key: Option<ResolvedKey>,
    pub withheld: Option<String>,
}

impl KeyUse {
    /// The secret to put on the wire, if any.
    pub fn secret(&self) -> Option<&Secret> {
        self.key.as_ref().map(|k| &k.secret)
    }

    /// The error for a failed model call: the provider's, or, when the key was withheld and
    /// the provider refused for want of credentials, `KeyOriginMismatch` saying why.
    pub fn failure(&self, provider: &str, source: ClientError) -> EngineError {
        match &self.withheld {
            Some(why) if source.is_auth() => {
                EngineError::KeyOriginMismatch(format!("{why}; {provider} answered: {source}"))
            }
            _ => provider_error(provider, source),
        }
    }
}

impl Engine {
    /// The key store of this data directory, with keys of the first layout migrated (once;
    /// retried on a later call while the keychain cannot be used).
    pub(crate) async fn keys(&self) -> Result<KeyStore, EngineError> {
        let keys = self.key_store().await?;
        let migrated = self
            .key_layout
            .get_or_try_init(|| self.migrate_legacy_keys(keys.clone()))
            .await;
        if let Err(error) = migrated {
            tracing::debug!(%error, "legacy keys not migrated yet");
        }
        Ok(keys)
    }

    async fn migrate_legacy_keys(&self, keys: KeyStore) -> Result<(), EngineError> {
        if self.store().setting(KEY_LAYOUT_SETTING).await?.as_deref() == Some(ORIGIN_BOUND) {
            return Ok(());
        }
        let wanted: Vec<(String, Origin)> = self
            .providers()
            .await?
            .into_iter()
            .filter(|p| p.takes_key())
            .filter_map(|p| {
                // Built-ins: the origin the key was meant for is the vendor's, whatever the
                // base URL says now. Custom providers have only their own URL.
                let origin = if p.custom {
                    p.origin().ok()
                } else {
                    p.default_origin()
                };
                Some((p.id, origin?))
            })
            .collect();
        let moved = blocking(move || {
            wanted
                .into_iter()
                .map(|(id, origin)| {
                    let result = keys.migrate_legacy(&id, &origin);
                    (id, origin, result)
                })
                .collect::<Vec<_>>()
        })
        .await?;
        let mut failed = None;
        for (provider, origin, result) in moved {
            match result {
                Ok(Some(last4)) => {
                    if self.store().key_binding(&provider).await?.is_none() {
                        self.store()
                            .set_key_binding(&KeyBinding {
                                provider: provider.clone(),
                                origin: origin.to_string(),
                                last4,
                                stored_at: now(),
                            })
                            .await?;
                    }
                    tracing::info!(%provider, %origin, "provider key bound to its origin");
                }
                Ok(None) => {}
                Err(error) => failed = Some(error),
            }
        }
        if let Some(error) = failed {
            return Err(EngineError::Keychain(error));
        }
        self.store()
            .set_setting(KEY_LAYOUT_SETTING, ORIGIN_BOUND, &now())
            .await?;
        Ok(())
    }

    /// Looks up each provider's key for requests to `target` (its own origin when `None`),
    /// one blocking keychain task per provider, in parallel.
    pub(crate) async fn find_keys(
        &self,
        wanted: &[(&Provider, Option<Origin>)],
    ) -> Result<Vec<Result<Found, KeychainError>>, EngineError> {
        let keys = self.keys().await?;
        let bindings: HashMap<String, KeyBinding> = self
            .store()
            .key_bindings()
            .await?
            .into_iter()
            .map(|b| (b.provider.clone(), b))
            .collect();
        let lookups = wanted.iter().map(|(provider, target)| {
            let target = match target.clone().map(Ok).unwrap_or_else(|| provider.origin()) {
                Ok(target) => target,
                Err(error) => {
                    let message = format!("{}: {error}", provider.base_url);
                    return futures_util::future::Either::Left(async move {
                        Ok(Err(KeychainError::Invalid(message)))
                    });
                }
            };
            let default = provider.default_origin();
            let bound = bindings
                .get(&provider.id)
                .and_then(|b| Origin::of_url(&b.origin).ok());
            let env_allowed = env_key_allowed(&target, default.as_ref());
            let (keys, id, env_var) = (keys.clone(), provider.id.clone(), provider.env_var.clone());
            futures_util::future::Either::Right(blocking(move || {
                let query = KeyQuery {
                    provider: &id,
                    target: &target,
                    bound: bound.as_ref(),
                    env_var: env_var.as_deref(),
                    env_allowed,
                };
                keys.lookup(&query).map(|lookup| Found {
                    target: target.clone(),
                    default,
                    lookup,
                })
            }))
        });
        join_all(lookups).await.into_iter().collect()
    }

    /// [`Engine::find_keys`] for one provider.
    pub(crate) async fn find_key(
        &self,
        provider: &Provider,
        target: Option<Origin>,
    ) -> Result<Result<Found, KeychainError>, EngineError> {
        let mut found = self.find_keys(&[(provider, target)]).await?;
        found
            .pop()
            .ok_or_else(|| EngineError::Internal("no key lookup result".into()))
    }

    /// The key to send to `provider` (see the module documentation for the rules).
    pub(crate) async fn key_for(&self, provider: &Provider) -> Result<KeyUse, EngineError> {
        if !provider.takes_key() {
            return Ok(KeyUse::default());
        }
        key_use(provider, self.find_key(provider, None).await?)
    }

    /// The key of `provider` for a request to `url` (a catalog source endpoint), `None` when
    /// there is none that may go there; the reason is logged, never the key.
    pub(crate) async fn key_for_url(&self, provider: &str, url: &str) -> Option<Secret> {
        let provider = self.provider(provider).await.ok()?;
        let target = Origin::of_url(url).ok()?;
        let found = self.find_key(&provider, Some(target)).await.ok()?;
        match key_use(&provider, found) {
            Ok(KeyUse { key, .. }) => key.map(|k| k.secret),
            Err(error) => {
                tracing::info!(provider = %provider.id, %error, "key not sent to the source");
                None
            }
        }
    }

    /// The move the user would confirm for `provider`: its stored key is held for another
    /// origin than the current base URL's. `None` when there is nothing to move (no stored
    /// key, or it is already held for the current origin). Errors: `NotFound`,
    /// `InsecureOrigin` (the current origin is plain http to another host), `Keychain`.
    pub async fn key_origin_change(
        &self,
        provider: &str,
    ) -> Result<Option<KeyOriginChange>, EngineError> {
        let provider = self.provider(provider).await?;
        if !provider.takes_key() {
            return Ok(None);
        }
        let found = self
            .find_key(&provider, None)
            .await?
            .map_err(keychain_error)?;
        let Lookup::HeldElsewhere { origin, last4 } = &found.lookup else {
            return Ok(None);
        };
        if !found.target.accepts_keys() {
            return Err(insecure(&provider, &found.target));
        }
        Ok(Some(KeyOriginChange {
            provider: provider.id.clone(),
            provider_name: provider.name.clone(),
            last4: last4.clone(),
            from: origin.to_string(),
            to: found.target.to_string(),
        }))
    }

    /// Moves a stored key to the provider's current origin, exactly as `change` (from
    /// [`Engine::key_origin_change`], shown to and confirmed by the user) describes it.
    /// Errors: `InvalidInput` when the provider's base URL or key changed since (nothing is
    /// moved), `InsecureOrigin`, `NotFound`, `Keychain`.
    pub async fn move_key(&self, change: &KeyOriginChange) -> Result<ProviderStatus, EngineError> {
        if self.key_origin_change(&change.provider).await?.as_ref() != Some(change) {
            return Err(EngineError::InvalidInput(format!(
                "{}: the base URL or the key changed since you were asked; nothing was moved",
                change.provider
            )));
        }
        let provider = self.provider(&change.provider).await?;
        let (from, to) = (origin_of(&change.from)?, origin_of(&change.to)?);
        self.relocate_key(&provider, &from, &to).await?;
        self.provider_status(&provider.id).await
    }

    /// `switchyard providers set <id> --base-url URL --keep-key`: points the provider at
    /// `base_url` (`None`: its default) and moves its stored key, wherever it is held, to the
    /// new origin. The user typed both in their own terminal, so no confirmation is asked.
    /// Errors: those of [`Engine::set_provider_base_url`], and `InsecureOrigin` (nothing is
    /// changed) when a key would move to plain http on another host.
    pub async fn set_provider_base_url_keeping_key(
        &self,
        provider: &str,
        base_url: Option<&str>,
    ) -> Result<ProviderStatus, EngineError> {
        let current = self.provider(provider).await?;
        let next = Provider {
            base_url: self.next_base_url(&current, base_url)?,
            ..current.clone()
        };
        let to = next
            .origin()
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        let held = if current.takes_key() {
            self.held_origin(&current).await?
        } else {
            None
        };
        if held.is_some() && !to.accepts_keys() {
            return Err(insecure(&next, &to));
        }
        self.set_provider_base_url(&current.id, base_url).await?;
        if let Some(from) = held {
            self.relocate_key(&current, &from, &to).await?;
        }
        self.provider_status(&current.id).await
    }

    /// Where `provider`'s stored key is held: its binding, or its current origin when the
    /// keychain has an entry there but no binding was recorded.
    async fn held_origin(&self, provider: &Provider) -> Result<Option<Origin>, EngineError> {
        let found = self
            .find_key(provider, None)
            .await?
            .map_err(keychain_error)?;
        Ok(match found.lookup {
            Lookup::HeldElsewhere { origin, .. } => Some(origin),
            Lookup::Keychain(_) => Some(found.target),
            _ => None,
        })
    }

    async fn relocate_key(
        &self,
        provider: &Provider,
        from: &Origin,
        to: &Origin,
    ) -> Result<(), EngineError> {
        let keys = self.keys().await?;
        let (id, f, t) = (provider.id.clone(), from.clone(), to.clone());
        let last4 = blocking(move || keys.move_key(&id, &f, &t))
            .await?
            .map_err(keychain_error)?
            .ok_or_else(|| {
                EngineError::NotFound(format!("no {} key is held for {from}", provider.name))
            })?;
        self.store()
            .set_key_binding(&KeyBinding {
                provider: provider.id.clone(),
                origin: to.to_string(),
                last4,
                stored_at: now(),
            })
            .await?;
        tracing::info!(provider = %provider.id, %from, %to, "provider key moved to a new origin");
        Ok(())
    }
}

/// What the Keys page shows for a lookup.
pub(crate) fn key_status(found: Result<Found, KeychainError>) -> KeyStatus {
    let found = match found {
        Ok(found) => found,
        Err(error) => {
            return KeyStatus::Unavailable {
                message: error.to_string(),
            }
        }
    };
    let target = found.target.to_string();
    match found.lookup {
        Lookup::Keychain(secret) if !found.target.accepts_keys() => KeyStatus::InsecureOrigin {
            last4: secret.last4(),
            origin: target,
        },
        Lookup::Keychain(secret) => KeyStatus::Stored {
            last4: secret.last4(),
            origin: target,
        },
        Lookup::Environment { variable, secret } => KeyStatus::Environment {
            variable,
            last4: secret.last4(),
        },
        Lookup::HeldElsewhere { origin, last4 } => KeyStatus::OriginMismatch {
            last4,
            origin: origin.to_string(),
            target_origin: target,
            variable: None,
        },
        Lookup::EnvironmentWithheld { variable, last4 } => KeyStatus::OriginMismatch {
            last4,
            origin: found
                .default
                .map(|o| o.to_string())
                .unwrap_or_else(|| target.clone()),
            target_origin: target,
            variable: Some(variable),
        },
        Lookup::Missing => KeyStatus::Missing,
    }
}

/// The key one request may carry, or why it cannot be made.
pub(crate) fn key_use(
    provider: &Provider,
    found: Result<Found, KeychainError>,
) -> Result<KeyUse, EngineError> {
    let found = match found {
        Ok(found) => found,
        Err(_) if !provider.needs_key() => return Ok(KeyUse::default()),
        Err(error) => return Err(keychain_error(error)),
    };
    let target = &found.target;
    let withheld = |why: String| {
        if provider.needs_key() {
            Err(EngineError::KeyOriginMismatch(why))
        } else {
            Ok(KeyUse {
                key: None,
                withheld: Some(format!("the request was made without it: {why}")),
            })
        }
    };
    if let Some(key) = found.lookup.usable() {
        if !target.accepts_keys() {
            return Err(insecure(provider, target));
        }
        return Ok(KeyUse {
            key: Some(key),
            withheld: None,
        });
    }
    match &found.lookup {
        Lookup::HeldElsewhere { origin, last4 } => withheld(format!(
            "the {name} key …{last4} is held for {origin}, but {name} now points at {target}, so \
             it is not sent there. To send it to {target}, confirm the move on the Keys page or \
             run `switchyard providers set {id} --base-url {url} --keep-key`; or store a key for \
             {target} with `switchyard keys set {id}`",
            name = provider.name,
            id = provider.id,
            url = provider.base_url,
        )),
        Lookup::EnvironmentWithheld { variable, .. } => withheld(format!(
            "{variable} is only sent to {default} or to this machine, but {name} now points at \
             {target}. Store a key for {target} with `switchyard keys set {id}` (or on the Keys \
             page), or point {name} back at its default",
            default = found
                .default
                .as_ref()
                .map_or_else(|| "its default origin".to_owned(), |o| o.to_string()),
            name = provider.name,
            id = provider.id,
        )),
        _ if provider.needs_key() => Err(missing_key(provider)),
        _ => Ok(KeyUse::default()),
    }
}

/// The `InsecureOrigin` error for a key that would go to `target`.
fn insecure(provider: &Provider, target: &Origin) -> EngineError {
    EngineError::InsecureOrigin(format!(
        "{} points at {target}, plain http to another host: keys are only sent over https or to \
         this machine. Use an https URL, or delete the key with `switchyard keys delete {}`",
        provider.name, provider.id
    ))
}

fn origin_of(text: &str) -> Result<Origin, EngineError> {
    Origin::of_url(text).map_err(|e| EngineError::InvalidInput(format!("{text}: {e}")))
}
