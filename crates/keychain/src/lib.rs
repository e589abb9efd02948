//! Provider keys live here and nowhere else: the OS keychain through `keyring`
//! (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows).
//!
//! This is the only crate that reads secrets. It has no dependency on storage, HTTP or the UI.
//! Entry points: [`KeyStore`] (keys bound to an origin: set, get, delete, move, and
//! [`KeyStore::lookup`] for one request's target with the environment fallback),
//! [`ProviderKey`] (the one validation rule for entered keys), [`probe`] (doctor) and
//! [`Secret`].
//! Every keychain call runs on a helper thread under a timeout, because a Secret Service
//! lookup without a session bus can block forever (libdbus tries to autolaunch a daemon).

mod key;
mod secret;
mod store;

use std::sync::mpsc;
use std::time::Duration;

pub use key::{InvalidKey, ProviderKey, MAX_KEY_BYTES};
pub use secret::Secret;
pub use store::{KeyQuery, KeyStore, Lookup, ResolvedKey};

/// Service name under which Switchyard's entries are stored.
pub const SERVICE: &str = "dev.switchyard.desktop";

/// How long one keychain call may take before it is reported as hung.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the keychain cannot be used, phrased for the user with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeychainError {
    /// No keychain service is reachable (no Secret Service on D-Bus, no session bus).
    #[error("no keychain available: {0}")]
    Unavailable(String),
    /// The keychain is there but locked or refused access.
    #[error("keychain locked or access denied: {0}")]
    Locked(String),
    /// The call did not return within [`CALL_TIMEOUT`].
    #[error("keychain did not answer within {0:?}; is a Secret Service (e.g. gnome-keyring) running and unlocked?")]
    Timeout(Duration),
    /// Anything else the platform store reported.
    #[error("keychain error: {0}")]
    Platform(String),
    /// The request was refused before reaching the keychain (bad provider id, an origin that
    /// takes no keys).
    #[error("{0}")]
    Invalid(String),
}

impl From<keyring::Error> for KeychainError {
    fn from(error: keyring::Error) -> Self {
        match error {
            keyring::Error::NoStorageAccess(e) => Self::Locked(e.to_string()),
            keyring::Error::PlatformFailure(e) => {
                let text = e.to_string();
                if text.contains("locked") || text.contains("IsLocked") {
                    Self::Locked(text)
                } else {
                    Self::Unavailable(text)
                }
            }
            other => Self::Platform(other.to_string()),
        }
    }
}

/// Runs a blocking keychain call on its own thread and gives up after `timeout`.
///
/// A hung call leaves its thread behind (it cannot be cancelled); the caller gets a clear error.
pub(crate) fn with_timeout<T: Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> Result<T, KeychainError> + Send + 'static,
) -> Result<T, KeychainError> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("keychain-call".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| KeychainError::Platform(format!("cannot start keychain thread: {e}")))?;
    rx.recv_timeout(timeout)
        .map_err(|_| KeychainError::Timeout(timeout))?
}

/// Runs `call`, and once more when the Secret Service went away while answering it (its
/// daemon crashed or restarted mid-call; the bus starts a new one for the second try). Only
/// for calls that are safe to repeat: one read, one write or one delete.
pub(crate) fn again_if_restarted<T>(
    call: impl Fn() -> Result<T, KeychainError>,
) -> Result<T, KeychainError> {
    match call() {
        Err(error) if error.is_service_restart() => {
            tracing::warn!(%error, "the Secret Service went away mid-call; trying once more");
            std::thread::sleep(RESTART_PAUSE);
            call()
        }
        other => other,
    }
}

/// How long the second try waits for the bus to start a new Secret Service.
const RESTART_PAUSE: Duration = Duration::from_millis(250);

impl KeychainError {
    /// The service vanished during the call: the daemon left the bus without replying, or the
    /// encryption session the call opened was gone when it was used.
    fn is_service_restart(&self) -> bool {
        match self {
            Self::Unavailable(text) | Self::Platform(text) => {
                text.contains("disconnected from message bus without replying")
                    || text.contains("NoSession")
            }
            _ => false,
        }
    }
}

/// Checks, before touching the platform store, that a store can exist at all.
pub(crate) fn precondition() -> Result<(), KeychainError> {
    if cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Err(KeychainError::Unavailable(
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no Secret Service can be \
             reached; log in to a desktop session, or run under `dbus-run-session` with \
             `gnome-keyring-daemon --unlock --components=secrets`"
                .into(),
        ));
    }
    Ok(())
}

/// Proves the keychain works: writes, reads back and deletes a probe entry.
///
/// The entry's name is this call's own (process id and a counter): the app, the CLI's
/// `doctor` and a second window probe the same keychain at once, and with one shared name
/// one probe's delete made another's read-back fail with "no matching entry".
pub fn probe() -> Result<(), KeychainError> {
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    precondition()?;
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let account = format!("__switchyard_probe__{}_{n}", std::process::id());
    // The probe's entry is its own, so the whole probe is safe to repeat.
    with_timeout(CALL_TIMEOUT, move || {
        again_if_restarted(|| {
            let entry = keyring::Entry::new(SERVICE, &account)?;
            entry.set_password("probe")?;
            let read = entry.get_password()?;
            entry.delete_credential()?;
            if read == "probe" {
                Ok(())
            } else {
                Err(KeychainError::Platform(
                    "probe entry read back differently".into(),
                ))
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_is_reported_not_waited_forever() {
        let err = with_timeout(Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(2));
            Ok(())
        })
        .expect_err("must time out");
        assert_eq!(err, KeychainError::Timeout(Duration::from_millis(50)));
    }

    #[test]
    fn a_call_cut_off_by_a_restarting_service_is_tried_once_more_and_others_are_not() {
        let calls = std::cell::Cell::new(0);
        let restarted = again_if_restarted(|| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                Err(KeychainError::Unavailable(
                    "DBus error: Message recipient disconnected from message bus without replying"
                        .into(),
                ))
            } else {
                Ok(7)
            }
        });
        assert_eq!((restarted, calls.get()), (Ok(7), 2));

        calls.set(0);
        let locked = again_if_restarted(|| -> Result<(), _> {
            calls.set(calls.get() + 1);
            Err(KeychainError::Locked("collection is locked".into()))
        });
        assert!(matches!(locked, Err(KeychainError::Locked(_))));
        assert_eq!(calls.get(), 1, "a locked keychain is not asked twice");

        calls.set(0);
        let gone = again_if_restarted(|| -> Result<(), _> {
            calls.set(calls.get() + 1);
            Err(KeychainError::Unavailable("NoSession".into()))
        });
        assert!(gone.is_err());
        assert_eq!(
            calls.get(),
            2,
            "tried twice, then the error is the caller's"
        );
    }

    #[test]
    fn locked_collection_maps_to_locked() {
        let err: KeychainError = keyring::Error::NoStorageAccess("nope".into()).into();
        assert!(matches!(err, KeychainError::Locked(_)));
    }
}
