//! The key store: one keychain entry per provider and origin, plus the environment-variable
//! fallback.
//!
//! Entries live under the service [`crate::SERVICE`] (or a test service) with the account
//! `<provider>@<origin>`, e.g. `openai@https://api.openai.com`: a key is bound to the origin it
//! was entered for. Every read names the origin of the request about to be made
//! ([`KeyQuery::target`]), so a changed base URL cannot make the keychain hand a key to another
//! host; only [`KeyStore::move_key`] rebinds one, and the engine calls it only after the user
//! confirmed. Entries of the first layout (account = bare provider id) are moved once by
//! [`KeyStore::migrate_legacy`].
//!
//! Nothing but [`KeyStore::get`] and [`KeyStore::lookup`] ever hands a key out, and those
//! return a [`Secret`] that only the engine passes on to the HTTP client.

use std::time::Duration;

use switchyard_core::origin::Origin;
use switchyard_core::providers::{validate_provider_id, KeySource};

use crate::{
    again_if_restarted, precondition, with_timeout, KeychainError, ProviderKey, Secret,
    CALL_TIMEOUT, SERVICE,
};

/// A key found for a call, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedKey {
    /// The key; `Debug` redacts it.
    pub secret: Secret,
    /// Keychain or environment.
    pub source: KeySource,
}

/// One key lookup: which provider, where the request would go, and what else to consider.
#[derive(Debug, Clone, Copy)]
pub struct KeyQuery<'a> {
    /// Provider id.
    pub provider: &'a str,
    /// The origin of the request about to be made. Only an entry for exactly this origin is
    /// ever returned as usable.
    pub target: &'a Origin,
    /// The origin the engine's binding record says the key is held for, if any; read only to
    /// report [`Lookup::HeldElsewhere`], never returned as usable.
    pub bound: Option<&'a Origin>,
    /// The provider's environment variable.
    pub env_var: Option<&'a str>,
    /// Whether the variable's value may be sent to `target` (see
    /// `switchyard_core::origin::env_key_allowed`).
    pub env_allowed: bool,
}

/// What a [`KeyQuery`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The keychain holds a key for the target origin.
    Keychain(Secret),
    /// The environment variable is set and may go to the target origin.
    Environment {
        /// The variable's name.
        variable: String,
        /// Its value.
        secret: Secret,
    },
    /// The keychain holds a key for another origin; it must not be sent to the target.
    HeldElsewhere {
        /// Where it is held.
        origin: Origin,
        /// Its last four characters.
        last4: String,
    },
    /// The environment variable is set but may not go to the target origin.
    EnvironmentWithheld {
        /// The variable's name.
        variable: String,
        /// Last four characters of its value.
        last4: String,
    },
    /// No key anywhere.
    Missing,
}

impl Lookup {
    /// The key to send to the target origin, if the lookup found one that may go there.
    pub fn usable(&self) -> Option<ResolvedKey> {
        match self {
            Lookup::Keychain(secret) => Some(ResolvedKey {
                secret: secret.clone(),
                source: KeySource::Keychain,
            }),
            Lookup::Environment { secret, .. } => Some(ResolvedKey {
                secret: secret.clone(),
                source: KeySource::Environment,
            }),
            _ => None,
        }
    }
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

    /// Stores (or replaces) the key of `provider` for `origin`; returns its last four
    /// characters.
    ///
    /// Errors: [`KeychainError::Invalid`] for a bad provider id or an origin that takes no
    /// keys (plain `http` to another host), otherwise why the keychain refused.
    pub fn set(
        &self,
        provider: &str,
        origin: &Origin,
        key: &ProviderKey,
    ) -> Result<String, KeychainError> {
        let account = account(provider, origin)?;
        if !origin.accepts_keys() {
            return Err(KeychainError::Invalid(format!(
                "{origin} is plain http to another host; keys are only sent over https or to \
                 this machine"
            )));
        }
        precondition()?;
        let (service, value) = (self.service.clone(), key.secret().clone());
        with_timeout(self.timeout, move || {
            again_if_restarted(|| {
                keyring::Entry::new(&service, &account)?.set_password(value.expose())?;
                Ok(())
            })
        })?;
        Ok(key.last4())
    }

    /// The stored key of `provider` for `origin`, `None` when there is none. For the engine
    /// only: the value goes to the HTTP client of a request to `origin` and nowhere else.
    pub fn get(&self, provider: &str, origin: &Origin) -> Result<Option<Secret>, KeychainError> {
        let account = account(provider, origin)?;
        self.read(account)
    }

    /// Deletes the key of `provider` for `origin`; `false` when there was none.
    pub fn delete(&self, provider: &str, origin: &Origin) -> Result<bool, KeychainError> {
        let account = account(provider, origin)?;
        self.remove(account)
    }

    /// Deletes an entry of the first layout (account = bare provider id), if one is left.
    pub fn delete_legacy(&self, provider: &str) -> Result<bool, KeychainError> {
        check_provider(provider)?;
        self.remove(provider.to_owned())
    }

    /// Rebinds the key of `provider` from `from` to `to` (read, write, delete the old entry);
    /// returns its last four characters, `None` when nothing is held for `from`. The engine
    /// calls this only for a move the user confirmed. Errors: `Invalid` when `to` takes no
    /// keys, otherwise the keychain's.
    pub fn move_key(
        &self,
        provider: &str,
        from: &Origin,
        to: &Origin,
    ) -> Result<Option<String>, KeychainError> {
        if !to.accepts_keys() {
            return Err(KeychainError::Invalid(format!(
                "{to} is plain http to another host; keys are only sent over https or to this \
                 machine"
            )));
        }
        if from == to {
            return Ok(self.get(provider, from)?.map(|k| k.last4()));
        }
        self.relocate(account(provider, from)?, account(provider, to)?, true)
    }

    /// Moves an entry of the first layout (account = bare provider id) to `<provider>@<to>`
    /// and deletes it; returns the key's last four characters, `None` when there was none.
    /// An entry already held for `to` wins over the old one. Idempotent.
    pub fn migrate_legacy(
        &self,
        provider: &str,
        to: &Origin,
    ) -> Result<Option<String>, KeychainError> {
        check_provider(provider)?;
        self.relocate(provider.to_owned(), account(provider, to)?, false)
    }

    /// Finds the key for one request (see [`KeyQuery`]): the keychain entry for the target
    /// origin, else the environment variable when it may go there, else what exists but may
    /// not be sent. The variable is read now, at call time.
    ///
    /// When the keychain is unusable but an allowed variable is set, the variable is used
    /// (headless machines); otherwise the keychain error is returned so the user learns why.
    pub fn lookup(&self, query: &KeyQuery<'_>) -> Result<Lookup, KeychainError> {
        self.lookup_with(query, |name| std::env::var(name).ok())
    }

    /// [`KeyStore::lookup`] with an injected environment lookup (tests).
    pub fn lookup_with(
        &self,
        query: &KeyQuery<'_>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Lookup, KeychainError> {
        let from_env = || {
            let variable = query.env_var?;
            let secret = Secret::new(env(variable)?);
            (!secret.is_empty()).then(|| (variable.to_owned(), secret))
        };
        match self.get(query.provider, query.target) {
            Ok(Some(secret)) => return Ok(Lookup::Keychain(secret)),
            Ok(None) => {}
            Err(error) => {
                return match from_env().filter(|_| query.env_allowed) {
                    Some((variable, secret)) => {
                        tracing::debug!(provider = query.provider, %error, "keychain unusable; using the environment");
                        Ok(Lookup::Environment { variable, secret })
                    }
                    None => Err(error),
                };
            }
        }
        let env_value = from_env();
        if query.env_allowed {
            if let Some((variable, secret)) = env_value {
                return Ok(Lookup::Environment { variable, secret });
            }
        }
        if let Some(bound) = query.bound.filter(|bound| *bound != query.target) {
            if let Some(held) = self.get(query.provider, bound)? {
                return Ok(Lookup::HeldElsewhere {
                    origin: bound.clone(),
                    last4: held.last4(),
                });
            }
        }
        Ok(match env_value {
            Some((variable, secret)) => Lookup::EnvironmentWithheld {
                variable,
                last4: secret.last4(),
            },
            None => Lookup::Missing,
        })
    }

    fn read(&self, account: String) -> Result<Option<Secret>, KeychainError> {
        precondition()?;
        let service = self.service.clone();
        with_timeout(self.timeout, move || {
            again_if_restarted(
                || match keyring::Entry::new(&service, &account)?.get_password() {
                    Ok(value) => Ok(Some(Secret::new(value))),
                    Err(keyring::Error::NoEntry) => Ok(None),
                    Err(e) => Err(e.into()),
                },
            )
        })
    }

    fn remove(&self, account: String) -> Result<bool, KeychainError> {
        precondition()?;
        let service = self.service.clone();
        // A delete cut off after it landed reads as "nothing to delete" the second time.
        with_timeout(self.timeout, move || {
            again_if_restarted(|| {
                match keyring::Entry::new(&service, &account)?.delete_credential() {
                    Ok(()) => Ok(true),
                    Err(keyring::Error::NoEntry) => Ok(false),
                    Err(e) => Err(e.into()),
                }
            })
        })
    }

    /// Copies `from` to `to` (replacing what `to` holds only when `overwrite`), then deletes
    /// `from`, all on one keychain thread; the last four characters of the key now at `to`.
    fn relocate(
        &self,
        from: String,
        to: String,
        overwrite: bool,
    ) -> Result<Option<String>, KeychainError> {
        precondition()?;
        let service = self.service.clone();
        with_timeout(self.timeout, move || {
            let source = keyring::Entry::new(&service, &from)?;
            let value = match source.get_password() {
                Ok(value) => Secret::new(value),
                Err(keyring::Error::NoEntry) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            let target = keyring::Entry::new(&service, &to)?;
            let kept = if overwrite {
                None
            } else {
                match target.get_password() {
                    Ok(existing) => Some(Secret::new(existing)),
                    Err(keyring::Error::NoEntry) => None,
                    Err(e) => return Err(e.into()),
                }
            };
            let now_at_target = match kept {
                Some(existing) => existing,
                None => {
                    target.set_password(value.expose())?;
                    value
                }
            };
            match source.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => {}
                Err(e) => return Err(e.into()),
            }
            Ok(Some(now_at_target.last4()))
        })
    }
}

/// The keychain account of `provider`'s key for `origin`: `<provider>@<origin>`. Provider ids
/// contain no `@`, so the split is unambiguous.
fn account(provider: &str, origin: &Origin) -> Result<String, KeychainError> {
    check_provider(provider)?;
    Ok(format!("{provider}@{origin}"))
}

fn check_provider(provider: &str) -> Result<(), KeychainError> {
    validate_provider_id(provider).map_err(|e| KeychainError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // These tests never reach a real keychain: they use invalid input, which is refused
    // before any platform call, or the environment path with a keychain that cannot answer.

    fn origin(url: &str) -> Origin {
        Origin::of_url(url).expect("origin")
    }

    #[test]
    fn bad_ids_and_insecure_origins_are_refused_before_the_keychain() {
        let store = KeyStore::with_service("dev.switchyard.unit");
        let key = ProviderKey::parse("sk-unit-1234").expect("key");
        let https = origin("https://api.openai.com");
        assert!(matches!(
            store.get("../etc", &https),
            Err(KeychainError::Invalid(_))
        ));
        assert!(matches!(
            store.delete("", &https),
            Err(KeychainError::Invalid(_))
        ));
        let err = store
            .set("openai", &origin("http://10.0.0.5:8000"), &key)
            .expect_err("plain http to another host");
        assert!(
            matches!(err, KeychainError::Invalid(ref m) if m.contains("https")),
            "{err:?}"
        );
        assert!(matches!(
            store.move_key("openai", &https, &origin("http://api.example")),
            Err(KeychainError::Invalid(_))
        ));
    }

    #[test]
    fn accounts_name_provider_and_origin() {
        assert_eq!(
            account("openai", &origin("https://API.openai.com:443/v1")).expect("ok"),
            "openai@https://api.openai.com"
        );
    }

    #[test]
    fn environment_goes_only_where_allowed_when_the_keychain_cannot_answer() {
        // An id the keychain refuses stands in for "keychain unusable".
        let store = KeyStore::with_service("dev.switchyard.unit");
        let target = origin("https://api.deepseek.com");
        let query = |env_allowed| KeyQuery {
            provider: "Bad Id",
            target: &target,
            bound: None,
            env_var: Some("X_KEY"),
            env_allowed,
        };
        let env = |name: &str| (name == "X_KEY").then(|| "sk-env-value-9876".to_owned());
        let found = store.lookup_with(&query(true), env).expect("env");
        let resolved = found.usable().expect("usable");
        assert_eq!(resolved.source, KeySource::Environment);
        assert_eq!(resolved.secret.expose(), "sk-env-value-9876");
        assert!(store.lookup_with(&query(false), env).is_err());
        assert!(store.lookup_with(&query(true), |_| None).is_err());
        let blank = |_: &str| Some("   ".to_owned());
        assert!(store.lookup_with(&query(true), blank).is_err());
    }
}
