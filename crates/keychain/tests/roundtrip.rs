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

use switchyard_core::origin::Origin;
use switchyard_core::providers::KeySource;
use switchyard_keychain::{KeyQuery, KeyStore, KeychainError, Lookup, ProviderKey};

/// Set in the child process that runs the no-bus check.
const CHILD_ENV: &str = "SWITCHYARD_KEYCHAIN_TEST_CHILD";
/// A provider env var only this test sets, on the child process.
const TEST_KEY_ENV: &str = "SWITCHYARD_TEST_PROVIDER_KEY";

fn test_store() -> KeyStore {
    KeyStore::with_service(format!("dev.switchyard.test.{}", std::process::id()))
}

/// The tests of this file take turns on the keychain: a burst of concurrent probes from one
/// of them made gnome-keyring answer another's calls with "no result found".
static KEYCHAIN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    KEYCHAIN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
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

fn origin(url: &str) -> Origin {
    Origin::of_url(url).expect("origin")
}

fn key(text: &str) -> ProviderKey {
    ProviderKey::parse(text).expect("valid key")
}

#[test]
fn keys_are_bound_to_their_origin_moved_and_deleted() {
    if !keychain_present() {
        return;
    }
    let _turn = turn();
    let store = test_store();
    let a = "roundtrip-a";
    let (home, other) = (
        origin("https://api.example.com/v1"),
        origin("http://127.0.0.1:9"),
    );
    for o in [&home, &other] {
        store.delete(a, o).expect("clean up leftovers");
    }
    assert_eq!(store.get(a, &home).expect("get"), None);

    let last4 = store
        .set(a, &home, &key("sk-roundtrip-π-WXYZ\n"))
        .expect("set");
    assert_eq!(last4, "WXYZ");
    assert_eq!(
        store.get(a, &home).expect("get").expect("present").expose(),
        "sk-roundtrip-π-WXYZ"
    );
    assert_eq!(
        store.get(a, &other).expect("get"),
        None,
        "a key is only ever read for the origin it is held for"
    );
    let last4 = store
        .set(a, &home, &key("sk-replaced-1234"))
        .expect("replace");
    assert_eq!(last4, "1234");

    // A request to another origin finds the key only as "held elsewhere".
    let query = KeyQuery {
        provider: a,
        target: &other,
        bound: Some(&home),
        env_var: Some("ANY"),
        env_allowed: false,
    };
    let env = |_: &str| Some("sk-from-env-0000".to_owned());
    assert_eq!(
        store.lookup_with(&query, env).expect("lookup"),
        Lookup::HeldElsewhere {
            origin: home.clone(),
            last4: "1234".into()
        }
    );
    // The keychain wins over the environment for its own origin.
    let at_home = KeyQuery {
        target: &home,
        env_allowed: true,
        ..query
    };
    let resolved = store
        .lookup_with(&at_home, env)
        .expect("lookup")
        .usable()
        .expect("usable");
    assert_eq!(resolved.source, KeySource::Keychain);
    assert_eq!(resolved.secret.expose(), "sk-replaced-1234");

    assert_eq!(
        store.move_key(a, &home, &other).expect("move"),
        Some("1234".into())
    );
    assert_eq!(store.get(a, &home).expect("get"), None);
    assert_eq!(
        store.get(a, &other).expect("get").map(|s| s.last4()),
        Some("1234".into())
    );
    assert_eq!(store.move_key(a, &home, &other).expect("nothing"), None);

    assert!(store.delete(a, &other).expect("delete"));
    assert!(!store
        .delete(a, &other)
        .expect("second delete finds nothing"));
    assert_eq!(
        store.lookup_with(&query, env).expect("lookup"),
        Lookup::EnvironmentWithheld {
            variable: "ANY".into(),
            last4: "0000".into()
        }
    );
    assert_eq!(
        store.lookup_with(&query, |_| None).expect("lookup"),
        Lookup::Missing
    );
}

#[test]
fn legacy_entries_are_migrated_once_to_their_origin() {
    if !keychain_present() {
        return;
    }
    let _turn = turn();
    let store = test_store();
    let (id, to) = ("roundtrip-legacy", origin("https://api.example.com"));
    store.delete(id, &to).expect("clean up");
    keyring::Entry::new(store.service(), id)
        .expect("entry")
        .set_password("sk-legacy-entry-5678")
        .expect("legacy entry");

    assert_eq!(
        store.migrate_legacy(id, &to).expect("migrate"),
        Some("5678".into())
    );
    assert_eq!(
        store
            .get(id, &to)
            .expect("get")
            .map(|s| s.expose().to_owned()),
        Some("sk-legacy-entry-5678".into())
    );
    assert!(
        matches!(
            keyring::Entry::new(store.service(), id)
                .expect("entry")
                .get_password(),
            Err(keyring::Error::NoEntry)
        ),
        "the bare-id entry is gone"
    );
    assert_eq!(store.migrate_legacy(id, &to).expect("again"), None);
    assert!(store.delete(id, &to).expect("delete"));
}

/// Runs in a child process without `DBUS_SESSION_BUS_ADDRESS` (the parent half spawns it), so
/// no environment variable of this process is ever mutated.
#[cfg(target_os = "linux")]
/// The app, `doctor` and a second window probe the keychain at the same moment; each probe
/// uses its own entry, so none reads back another's delete.
#[test]
fn concurrent_probes_all_succeed() {
    if !keychain_present() {
        return;
    }
    let _turn = turn();
    let probes: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(|| {
                (0..4)
                    .map(|_| switchyard_keychain::probe())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for handle in probes {
        for result in handle.join().expect("probe thread") {
            assert_eq!(result, Ok(()));
        }
    }
}

#[test]
fn no_session_bus_is_a_clear_error() {
    if std::env::var_os(CHILD_ENV).is_some() {
        let store = test_store();
        let at = origin("https://api.example.com");
        let err = store
            .set("nobus", &at, &key("sk-nobus-1"))
            .expect_err("no keychain");
        assert!(matches!(err, KeychainError::Unavailable(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.starts_with("no keychain available"), "{message}");
        assert!(message.contains("DBUS_SESSION_BUS_ADDRESS"), "{message}");
        assert!(message.contains("dbus-run-session"), "{message}");
        assert!(matches!(
            store.get("nobus", &at),
            Err(KeychainError::Unavailable(_))
        ));
        assert!(matches!(
            store.delete("nobus", &at),
            Err(KeychainError::Unavailable(_))
        ));
        let query = KeyQuery {
            provider: "nobus",
            target: &at,
            bound: None,
            env_var: Some("SWITCHYARD_TEST_UNSET_VARIABLE"),
            env_allowed: true,
        };
        assert!(matches!(
            store.lookup(&query),
            Err(KeychainError::Unavailable(_))
        ));
        // Headless use: the environment variable still works, read at call time.
        let resolved = store
            .lookup(&KeyQuery {
                env_var: Some(TEST_KEY_ENV),
                ..query
            })
            .expect("env")
            .usable()
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
