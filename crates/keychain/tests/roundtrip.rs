//! The key store against the real platform keychain.
//!
//! On Linux run it inside a throwaway Secret Service:
//!
//! ```sh
//! dbus-run-session -- sh -c 'echo -n test | gnome-keyring-daemon --unlock \
//!   --components=secrets >/dev/null; cargo test -p switchyard-keychain'
//! ```
//!
//! Without a session bus the round trip is skipped with a note, unless
//! `SWITCHYARD_REQUIRE_KEYCHAIN` is set (CI sets it), in which case it fails. Entries go under a
//! per-process test service, never the app's own.
// These tests re-runs its own test binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::process::Command;

use switchyard_core::providers::{KeySource, KeyStatus};
use switchyard_keychain::{KeyStore, KeychainError, Secret};

/// Set in the child process that runs the no-bus check.
const CHILD_ENV: &str = "SWITCHYARD_KEYCHAIN_TEST_CHILD";
/// A provider env var only this test sets, on the child process.
const TEST_KEY_ENV: &str = "SWITCHYARD_TEST_PROVIDER_KEY";

fn test_store() -> KeyStore {
    KeyStore::with_service(format!("dev.switchyard.test.{}", std::process::id()))
}

/// Whether a keychain is expected here; panics when CI demands one and there is no bus.
fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but DBUS_SESSION_BUS_ADDRESS is not: run the tests \
         under dbus-run-session with gnome-keyring-daemon"
    );
    eprintln!("note: no D-Bus session bus; skipping the real keychain round trip");
    false
}

#[test]
fn set_list_resolve_delete_roundtrip() {
    if !keychain_present() {
        return;
    }
    let store = test_store();
    let (a, b) = ("roundtrip-a", "roundtrip-b");
    for provider in [a, b] {
        store.delete(provider).expect("clean up leftovers");
    }
    assert_eq!(store.get(a).expect("get"), None);
    assert_eq!(store.status(a, None), KeyStatus::Missing);

    let last4 = store
        .set(a, &Secret::new("sk-roundtrip-π-WXYZ\n"))
        .expect("set");
    assert_eq!(last4, "WXYZ");
    assert_eq!(
        store.get(a).expect("get").expect("present").expose(),
        "sk-roundtrip-π-WXYZ"
    );

    let last4 = store
        .set(a, &Secret::new("sk-replaced-1234"))
        .expect("replace");
    assert_eq!(last4, "1234");
    assert_eq!(
        store.list(&[a, b]).expect("list"),
        vec![(a.to_owned(), "1234".to_owned())]
    );
    assert_eq!(
        store.status(a, None),
        KeyStatus::Stored {
            last4: "1234".into()
        }
    );

    // The keychain wins over the environment.
    let env = |_: &str| Some("sk-from-env-0000".to_owned());
    let resolved = store
        .resolve_with(a, Some("ANY"), env)
        .expect("resolve")
        .expect("some");
    assert_eq!(resolved.source, KeySource::Keychain);
    assert_eq!(resolved.secret.expose(), "sk-replaced-1234");

    assert!(store.delete(a).expect("delete"));
    assert!(!store.delete(a).expect("second delete finds nothing"));
    assert_eq!(store.get(a).expect("get"), None);
    assert_eq!(
        store.status_with(a, Some("ANY"), env),
        KeyStatus::Environment {
            variable: "ANY".into(),
            last4: "0000".into()
        }
    );
    assert_eq!(store.list(&[a, b]).expect("list"), vec![]);
}

/// Runs in a child process without `DBUS_SESSION_BUS_ADDRESS` (the parent half spawns it), so
/// no environment variable of this process is ever mutated.
#[cfg(target_os = "linux")]
#[test]
fn no_session_bus_is_a_clear_error() {
    if std::env::var_os(CHILD_ENV).is_some() {
        let store = test_store();
        let err = store
            .set("nobus", &Secret::new("sk-nobus-1"))
            .expect_err("no keychain");
        assert!(matches!(err, KeychainError::Unavailable(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.starts_with("no keychain available"), "{message}");
        assert!(message.contains("DBUS_SESSION_BUS_ADDRESS"), "{message}");
        assert!(message.contains("dbus-run-session"), "{message}");
        assert!(matches!(
            store.get("nobus"),
            Err(KeychainError::Unavailable(_))
        ));
        assert!(matches!(
            store.delete("nobus"),
            Err(KeychainError::Unavailable(_))
        ));
        match store.status("nobus", Some("SWITCHYARD_TEST_UNSET_VARIABLE")) {
            KeyStatus::Unavailable { message } => assert!(message.contains("no keychain")),
            other => panic!("expected Unavailable, got {other:?}"),
        }
        // Headless use: the environment variable still works, read at call time.
        let resolved = store
            .resolve("nobus", Some(TEST_KEY_ENV))
            .expect("env")
            .expect("some");
        assert_eq!(resolved.source, KeySource::Environment);
        assert_eq!(resolved.secret.last4(), "ENV9");
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let output = Command::new(exe)
        .args([
            "--exact",
            "no_session_bus_is_a_clear_error",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .env(TEST_KEY_ENV, "sk-headless-ENV9")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("DISPLAY")
        .output()
        .expect("spawn the test binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the child did not run the check:\n{stdout}"
    );
}
