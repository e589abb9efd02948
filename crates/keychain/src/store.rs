//! The key store: one keychain entry per provider, plus the environment-variable fallback.
//!
//! Entries live under the service [`crate::SERVICE`] (or a test service) with the provider id
//! as the account name. Presence and the last four characters are recomputed by reading the
//! entry inside this crate, so nothing but [`KeyStore::get`] and [`KeyStore::resolve`] ever
//! hands a key out, and those return a [`Secret`] that only the engine passes on to the HTTP
//! client. The UI and the CLI only ever see [`KeyStatus`].

use std::time::Duration;

use switchyard_core::providers::{validate_provider_id, KeySource, KeyStatus};

use crate::{precondition, with_timeout, KeychainError, Secret, CALL_TIMEOUT, SERVICE};

/// A key found for a call, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedKey {
    /// The key; `Debug` redacts it.
    pub secret: Secret,
    /// Keychain or environment.
    pub source: KeySource,
}

/// Provider keys in the OS keychain. Every method blocks (D-Bus, Keychain Services) for at
/// most the configured timeout; call it from `spawn_blocking` in async code.
#[derive(Debug, Clone)]
pub struct KeyStore {
    service: String,
    timeout: Duration,
}

impl Default for KeyStore {
    fn default() -> Self {
        Self::new()
    }
}

impl KeyStore {
    /// The store the app and the CLI share (service [`SERVICE`]).
    pub fn new() -> Self {
        Self::with_service(SERVICE)
    }

    /// A store under another service name, so tests and separate profiles never touch the
    /// user's real keys.
    pub fn with_service(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
            timeout: CALL_TIMEOUT,
        }
    }

    /// The keychain service name entries are stored under.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// Stores (or replaces) the key of `provider`; returns its last four characters.
    ///
    /// Errors: [`KeychainError::Invalid`] for an empty key or a bad provider id, otherwise
    /// why the keychain refused.
    pub fn set(&self, provider: &str, key: &Secret) -> Result<String, KeychainError> {
        check_provider(provider)?;
        if key.is_empty() {
            return Err(KeychainError::Invalid("the key is empty".into()));
        }
        precondition()?;
        let (service, account, value) = (self.service.clone(), provider.to_owned(), key.clone());
        with_timeout(self.timeout, move || {
            keyring::Entry::new(&service, &account)?.set_password(value.expose())?;
            Ok(())
        })?;
        Ok(key.last4())
    }

    /// The stored key of `provider`, `None` when there is none. For the engine only: the
    /// value goes to the HTTP client and nowhere else.
    pub fn get(&self, provider: &str) -> Result<Option<Secret>, KeychainError> {
        check_provider(provider)?;
        precondition()?;
        let (service, account) = (self.service.clone(), provider.to_owned());
        with_timeout(self.timeout, move || {
            match keyring::Entry::new(&service, &account)?.get_password() {
                Ok(value) => Ok(Some(Secret::new(value))),
                Err(keyring::Error::NoEntry) => Ok(None),
                Err(e) => Err(e.into()),
            }
        })
    }

    /// Deletes the key of `provider`; `false` when there was none.
    pub fn delete(&self, provider: &str) -> Result<bool, KeychainError> {
        check_provider(provider)?;
        precondition()?;
        let (service, account) = (self.service.clone(), provider.to_owned());
        with_timeout(self.timeout, move || {
            match keyring::Entry::new(&service, &account)?.delete_credential() {
                Ok(()) => Ok(true),
                Err(keyring::Error::NoEntry) => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    /// The last four characters of the stored key, `None` when there is none.
    pub fn last4(&self, provider: &str) -> Result<Option<String>, KeychainError> {
        Ok(self.get(provider)?.map(|key| key.last4()))
    }

    /// Which of `providers` have a stored key, with their last four characters, in the order
    /// given. The keychain cannot be enumerated portably, so the caller names the ids.
    pub fn list(&self, providers: &[&str]) -> Result<Vec<(String, String)>, KeychainError> {
        let mut found = Vec::new();
        for provider in providers {
            if let Some(last4) = self.last4(provider)? {
                found.push(((*provider).to_owned(), last4));
            }
        }
        Ok(found)
    }

    /// The key to use for a call: the keychain entry, else the environment variable `env_var`
    /// (read now, at call time). `Ok(None)` when neither has one.
    ///
    /// When the keychain is unusable but the variable is set, the variable is used (headless
    /// machines); when neither works the keychain error is returned so the user learns why.
    pub fn resolve(
        &self,
        provider: &str,
        env_var: Option<&str>,
    ) -> Result<Option<ResolvedKey>, KeychainError> {
        self.resolve_with(provider, env_var, |name| std::env::var(name).ok())
    }

    /// [`KeyStore::resolve`] with an injected environment lookup (tests).
    pub fn resolve_with(
        &self,
        provider: &str,
        env_var: Option<&str>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ResolvedKey>, KeychainError> {
        let from_env = || {
            env_var
                .and_then(&lookup)
                .map(Secret::new)
                .filter(|secret| !secret.is_empty())
                .map(|secret| ResolvedKey {
                    secret,
                    source: KeySource::Environment,
                })
        };
        match self.get(provider) {
            Ok(Some(secret)) => Ok(Some(ResolvedKey {
                secret,
                source: KeySource::Keychain,
            })),
            Ok(None) => Ok(from_env()),
            Err(error) => match from_env() {
                Some(key) => {
                    tracing::debug!(provider, %error, "keychain unusable; using the environment");
                    Ok(Some(key))
                }
                None => Err(error),
            },
        }
    }

    /// What the Keys page shows for a provider that needs a key. Never fails: a keychain
    /// problem becomes [`KeyStatus::Unavailable`] unless the environment supplies the key.
    pub fn status(&self, provider: &str, env_var: Option<&str>) -> KeyStatus {
        self.status_with(provider, env_var, |name| std::env::var(name).ok())
    }

    /// [`KeyStore::status`] with an injected environment lookup (tests).
    pub fn status_with(
        &self,
        provider: &str,
        env_var: Option<&str>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> KeyStatus {
        match self.resolve_with(provider, env_var, lookup) {
            Ok(Some(ResolvedKey {
                secret,
                source: KeySource::Keychain,
            })) => KeyStatus::Stored {
                last4: secret.last4(),
            },
            Ok(Some(ResolvedKey {
                secret,
                source: KeySource::Environment,
            })) => KeyStatus::Environment {
                variable: env_var.unwrap_or_default().to_owned(),
                last4: secret.last4(),
            },
            Ok(None) => KeyStatus::Missing,
            Err(error) => KeyStatus::Unavailable {
                message: error.to_string(),
            },
        }
    }
}

fn check_provider(provider: &str) -> Result<(), KeychainError> {
    validate_provider_id(provider).map_err(|e| KeychainError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // These tests never reach a real keychain: they use invalid input, which is refused
    // before any platform call, or the environment path with a keychain that cannot answer.

    #[test]
    fn empty_key_and_bad_id_are_refused_before_the_keychain() {
        let store = KeyStore::with_service("dev.switchyard.unit");
        assert!(matches!(
            store.set("openai", &Secret::new("  \n")),
            Err(KeychainError::Invalid(_))
        ));
        assert!(matches!(
            store.get("../etc"),
            Err(KeychainError::Invalid(_))
        ));
        assert!(matches!(store.delete(""), Err(KeychainError::Invalid(_))));
    }

    #[test]
    fn bad_id_is_unavailable_status_without_env_and_env_status_with_it() {
        // An id the keychain refuses stands in for "keychain unusable".
        let store = KeyStore::with_service("dev.switchyard.unit");
        let no_env = |_: &str| None;
        assert!(matches!(
            store.status_with("Bad Id", Some("X_KEY"), no_env),
            KeyStatus::Unavailable { .. }
        ));
        let env = |name: &str| (name == "X_KEY").then(|| "sk-env-value-9876".to_owned());
        assert_eq!(
            store.status_with("Bad Id", Some("X_KEY"), env),
            KeyStatus::Environment {
                variable: "X_KEY".into(),
                last4: "9876".into()
            }
        );
        let resolved = store
            .resolve_with("Bad Id", Some("X_KEY"), env)
            .expect("env")
            .expect("some");
        assert_eq!(resolved.source, KeySource::Environment);
        assert_eq!(resolved.secret.expose(), "sk-env-value-9876");
        let blank = |_: &str| Some("   ".to_owned());
        assert!(store.resolve_with("Bad Id", Some("X_KEY"), blank).is_err());
    }
}
