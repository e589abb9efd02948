//! Keys bound to the origin they were entered for: a changed base URL never makes a key travel,
//! a confirmed move does, plain http to another host never carries one, and keys of the first
//! keychain layout are bound once to the origin they were meant for.
//!
//! Real parts: a tempdir home (real SQLite), the real keychain under a per-test service (run
//! under `with_session`; without a session bus these tests are skipped with a note unless
//! `SWITCHYARD_REQUIRE_KEYCHAIN` is set), and scripted servers on 127.0.0.1 whose recorded
//! headers show where the key went. Two servers on different ports are two origins.

#[path = "../../providers/tests/support/mod.rs"]
mod http;

mod leak_scan;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use http::{wire, Reply, TestServer};
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AddProviderRequest, AskRequest, KeyStatus, ProviderKind};
use switchyard_core::routing::plan::PlanMode;
use switchyard_core::routing::{BudgetTier, PlanTaskRequest};
use switchyard_engine::{Engine, EngineConfig, ProviderKey, KEY_LAYOUT_SETTING};
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

const KEY: &str = "sk-ORIGIN-LEAK-8c1f0e2d-a7b3c4d5";

/// A fresh home whose keys go to a keychain service of its own; the service name.
async fn home() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let service = format!(
        "dev.switchyard.test.origin.{}.{}",
        std::process::id(),
        ENGINES.fetch_add(1, Ordering::Relaxed)
    );
    let store = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("open store");
    store
        .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
        .await
        .expect("setting");
    store.close().await;
    (dir, service)
}

async fn open(home: &Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
    );
    eprintln!("note: no D-Bus session bus; skipping a real keychain test");
    false
}

fn key() -> ProviderKey {
    ProviderKey::parse(KEY).expect("valid key")
}

fn ask(model: &str) -> AskRequest {
    AskRequest {
        model: model.into(),
        prompt: "Say hi".into(),
        system: None,
        max_tokens: None,
        pricing: None,
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// No header of any request `server` recorded carries the key.
fn never_received_the_key(server: &TestServer) {
    for request in server.requests() {
        for (name, value) in &request.headers {
            assert!(
                !value.contains(KEY),
                "{} received the key in {name} ({} {})",
                server.url,
                request.method,
                request.path
            );
        }
        assert!(!request.body.contains(KEY), "the key in a request body");
    }
}

#[tokio::test]
async fn a_changed_base_url_does_not_take_the_stored_key_to_the_new_host() {
    if !keychain_present() {
        return;
    }
    let (dir, _) = home().await;
    let engine = open(dir.path()).await;
    let entered_for = TestServer::start(vec![
        Reply::json(200, wire::model_list(2)),
        Reply::json(200, wire::model_list(2)),
    ])
    .await;
    // The "other host": everything it is asked it would answer, so only the engine's refusal
    // keeps the key from it.
    let other = TestServer::start(vec![
        Reply::json(200, wire::model_list(9)),
        Reply::sse(wire::openai_stream(
            "gpt-4o-mini",
            &["leaked"],
            Some((1, 1)),
        )),
        Reply::json(200, wire::model_list(9)),
    ])
    .await;
    engine
        .set_provider_base_url("openai", Some(&entered_for.at("/v1")))
        .await
        .expect("url");
    let stored = engine.set_key("openai", key()).await.expect("set");
    assert_eq!(
        stored.key,
        KeyStatus::Stored {
            last4: "c4d5".into(),
            origin: entered_for.url.clone()
        }
    );
    assert!(engine.test_provider("openai").await.expect("test").ok);
    assert_eq!(
        entered_for.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // What a compromised page could do: point the provider elsewhere, then ask for a call.
    let moved = engine
        .set_provider_base_url("openai", Some(&other.at("/v1")))
        .await
        .expect("url");
    assert_eq!(moved.origin.as_deref(), Some(other.url.as_str()));
    assert_eq!(
        moved.key,
        KeyStatus::OriginMismatch {
            last4: "c4d5".into(),
            origin: entered_for.url.clone(),
            target_origin: other.url.clone(),
            variable: None
        }
    );
    let mut messages = Vec::new();
    let tested = engine.test_provider("openai").await.expect_err("withheld");
    assert_eq!(tested.code(), ErrorCode::KeyOriginMismatch, "{tested}");
    let message = tested.to_string();
    assert!(
        message.contains(&entered_for.url) && message.contains(&other.url),
        "names both origins: {message}"
    );
    assert!(message.contains("--keep-key"), "{message}");
    messages.push(format!("{tested} {tested:?}"));
    let asked = engine
        .ask(ask("openai:gpt-4o-mini"), None, |_| {})
        .await
        .expect_err("withheld");
    assert_eq!(asked.code(), ErrorCode::KeyOriginMismatch, "{asked}");
    messages.push(format!("{asked} {asked:?}"));
    let routed = engine
        .ask(ask("openai/gpt-4o-mini"), None, |_| {})
        .await
        .expect_err("no usable key for the catalog id either");
    assert_eq!(routed.code(), ErrorCode::KeyOriginMismatch, "{routed}");
    messages.push(format!("{routed} {routed:?}"));
    let request = PlanTaskRequest {
        task: "Add a login page, then write tests for it".into(),
        mode: PlanMode::Plan,
        budget: BudgetTier::Low,
        max_price: None,
        any_provider: true,
        use_model_planner: true,
        planner_model: Some("openai:gpt-4o-mini".into()),
    };
    let plan = engine
        .plan_task(request)
        .await
        .expect("the deterministic planner plans");
    let warnings = plan.warnings().join("\n");
    assert!(warnings.contains(&other.url), "{warnings}");
    messages.push(warnings);

    assert!(
        other.requests().is_empty(),
        "nothing was sent to the new origin"
    );
    never_received_the_key(&other);

    // Back to where the key was entered: it is used again.
    engine
        .set_provider_base_url("openai", Some(&entered_for.at("/v1")))
        .await
        .expect("url");
    assert!(engine.test_provider("openai").await.expect("test").ok);
    assert_eq!(entered_for.requests().len(), 2);

    for message in &messages {
        assert!(!message.contains(KEY), "the key in {message}");
    }
    engine.close().await;
    assert!(
        !contains(&leak_scan::all_bytes(dir.path()), KEY),
        "key in the data dir"
    );
}

#[tokio::test]
async fn a_confirmed_move_and_keep_key_send_the_key_to_the_new_origin_only() {
    if !keychain_present() {
        return;
    }
    let (dir, _) = home().await;
    let engine = open(dir.path()).await;
    let first = TestServer::start(vec![]).await;
    let second = TestServer::start(vec![Reply::json(200, wire::model_list(3))]).await;
    let third = TestServer::start(vec![Reply::json(200, wire::model_list(4))]).await;
    engine
        .set_provider_base_url("deepseek", Some(&first.url))
        .await
        .expect("url");
    engine.set_key("deepseek", key()).await.expect("set");
    assert_eq!(
        engine.key_origin_change("deepseek").await.expect("change"),
        None,
        "nothing to move while the key is held for the current origin"
    );
    engine
        .set_provider_base_url("deepseek", Some(&second.url))
        .await
        .expect("url");
    let change = engine
        .key_origin_change("deepseek")
        .await
        .expect("change")
        .expect("a move to confirm");
    assert_eq!(
        (
            change.from.as_str(),
            change.to.as_str(),
            change.last4.as_str()
        ),
        (first.url.as_str(), second.url.as_str(), "c4d5")
    );
    assert_eq!(change.provider_name, "DeepSeek");

    // A move confirmed for one URL is refused once the URL changed again.
    engine
        .set_provider_base_url("deepseek", Some(&third.url))
        .await
        .expect("url");
    let stale = engine.move_key(&change).await.expect_err("stale");
    assert_eq!(stale.code(), ErrorCode::InvalidInput, "{stale}");
    engine
        .set_provider_base_url("deepseek", Some(&second.url))
        .await
        .expect("url");

    let moved = engine.move_key(&change).await.expect("move");
    assert_eq!(
        moved.key,
        KeyStatus::Stored {
            last4: "c4d5".into(),
            origin: second.url.clone()
        }
    );
    assert!(engine.test_provider("deepseek").await.expect("test").ok);
    assert_eq!(
        second.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // The CLI's --keep-key: the user's own terminal moves it explicitly.
    let kept = engine
        .set_provider_base_url_keeping_key("deepseek", Some(&third.url))
        .await
        .expect("keep key");
    assert_eq!(
        kept.key,
        KeyStatus::Stored {
            last4: "c4d5".into(),
            origin: third.url.clone()
        }
    );
    assert!(engine.test_provider("deepseek").await.expect("test").ok);
    assert_eq!(
        third.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    // Moving back to the second origin without --keep-key leaves the key at the third.
    let status = engine
        .set_provider_base_url("deepseek", Some(&second.url))
        .await
        .expect("url");
    assert!(
        matches!(&status.key, KeyStatus::OriginMismatch { origin, .. } if *origin == third.url),
        "{:?}",
        status.key
    );
    assert_eq!(
        second.requests().len(),
        1,
        "no new request to the second origin"
    );
    assert!(first.requests().is_empty());
    assert!(engine.delete_key("deepseek").await.expect("delete"));
    assert_eq!(
        engine
            .provider_status("deepseek")
            .await
            .expect("status")
            .key,
        KeyStatus::Missing
    );
    engine.close().await;
    assert!(
        !contains(&leak_scan::all_bytes(dir.path()), KEY),
        "key in the data dir"
    );
}

#[tokio::test]
async fn keys_are_never_sent_over_plain_http_to_another_host() {
    if !keychain_present() {
        return;
    }
    let (dir, service) = home().await;
    let engine = open(dir.path()).await;
    // `.invalid` never resolves: if a request were made it would fail, not reach a host.
    let lan = "http://lan-vllm.invalid:8000/v1";
    engine
        .set_provider_base_url("openai", Some(lan))
        .await
        .expect("a keyless http URL may be set");
    let err = engine
        .set_key("openai", key())
        .await
        .expect_err("no key for http");
    assert_eq!(err.code(), ErrorCode::InsecureOrigin, "{err}");
    let https = TestServer::start(vec![]).await;
    engine
        .set_provider_base_url("openai", Some(&https.url))
        .await
        .expect("url");
    engine.set_key("openai", key()).await.expect("set");
    let err = engine
        .set_provider_base_url_keeping_key("openai", Some(lan))
        .await
        .expect_err("the key may not move to http");
    assert_eq!(err.code(), ErrorCode::InsecureOrigin, "{err}");
    assert_eq!(
        engine
            .provider_status("openai")
            .await
            .expect("status")
            .base_url,
        https.url,
        "nothing changed"
    );

    // A custom endpoint whose key was stored over http before keys were bound to origins.
    engine
        .add_provider(AddProviderRequest {
            id: "lan".into(),
            name: None,
            kind: ProviderKind::OpenaiCompatible,
            base_url: lan.into(),
        })
        .await
        .expect("add");
    plant_legacy(&service, "lan", "legacy entry");
    let store = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("store");
    forget_key_layout(&store).await;
    store.close().await;
    let reopened = open(dir.path()).await;
    let status = reopened.provider_status("lan").await.expect("status");
    assert_eq!(
        status.key,
        KeyStatus::InsecureOrigin {
            last4: "c4d5".into(),
            origin: "http://lan-vllm.invalid:8000".into()
        }
    );
    for err in [
        reopened.test_provider("lan").await.expect_err("refused"),
        reopened
            .ask(ask("lan:qwen3"), None, |_| {})
            .await
            .expect_err("refused"),
    ] {
        assert_eq!(err.code(), ErrorCode::InsecureOrigin, "{err}");
        assert!(!err.to_string().contains(KEY));
    }
    assert!(reopened.delete_key("lan").await.expect("delete"));
    assert!(reopened.delete_key("openai").await.expect("delete"));
    reopened.close().await;
    engine.close().await;
}

#[tokio::test]
async fn legacy_keys_are_bound_once_to_the_origin_they_were_meant_for() {
    if !keychain_present() {
        return;
    }
    let (dir, service) = home().await;
    let elsewhere = TestServer::start(vec![]).await;
    let lab = TestServer::start(vec![Reply::json(200, wire::model_list(1))]).await;
    {
        let engine = open(dir.path()).await;
        engine
            .add_provider(AddProviderRequest {
                id: "lab".into(),
                name: None,
                kind: ProviderKind::OpenaiCompatible,
                base_url: lab.at("/v1"),
            })
            .await
            .expect("add");
        engine.close().await;
    }
    let store = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_provider_base_url("openai", &elsewhere.at("/v1"), "2026-11-29T12:00:00Z")
        .await
        .expect("override");
    // The add above already migrated an empty keychain; a data dir from before this layout
    // has no marker.
    forget_key_layout(&store).await;
    store.close().await;
    for id in ["openai", "lab"] {
        plant_legacy(&service, id, "legacy entry");
    }

    let engine = open(dir.path()).await;
    let list = engine.list_providers().await.expect("list");
    let by_id = |id: &str| list.iter().find(|p| p.id == id).expect(id).key.clone();
    assert_eq!(
        by_id("openai"),
        KeyStatus::OriginMismatch {
            last4: "c4d5".into(),
            origin: "https://api.openai.com".into(),
            target_origin: elsewhere.url.clone(),
            variable: None
        },
        "a built-in's key is bound to the vendor's origin, not to the override"
    );
    assert_eq!(
        by_id("lab"),
        KeyStatus::Stored {
            last4: "c4d5".into(),
            origin: lab.url.clone()
        },
        "a custom provider's key is bound to its own URL"
    );
    assert!(engine.test_provider("lab").await.expect("test").ok);
    assert_eq!(
        lab.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        engine
            .test_provider("openai")
            .await
            .expect_err("withheld")
            .code(),
        ErrorCode::KeyOriginMismatch
    );
    assert!(elsewhere.requests().is_empty());
    for id in ["openai", "lab"] {
        assert!(
            matches!(
                keyring::Entry::new(&service, id)
                    .expect("entry")
                    .get_password(),
                Err(keyring::Error::NoEntry)
            ),
            "the bare-id entry of {id} is gone"
        );
    }
    engine.close().await;

    // Once: a bare-id entry that appears later is not picked up by a new process.
    let store = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("store");
    assert!(store
        .setting(KEY_LAYOUT_SETTING)
        .await
        .expect("setting")
        .is_some());
    store.close().await;
    plant_legacy(&service, "gemini", "late legacy entry");
    let engine = open(dir.path()).await;
    assert_eq!(
        engine.provider_status("gemini").await.expect("status").key,
        KeyStatus::Missing
    );
    let _ = keyring::Entry::new(&service, "gemini")
        .expect("entry")
        .delete_credential();
    for id in ["openai", "lab"] {
        engine.delete_key(id).await.expect("clean up");
    }
    engine.close().await;
    assert!(
        !contains(&leak_scan::all_bytes(dir.path()), KEY),
        "key in the data dir"
    );
}

/// Forgets that the keys were migrated, as in a data dir from before origin binding.
async fn forget_key_layout(store: &Store) {
    store
        .set_setting(KEY_LAYOUT_SETTING, "", "2026-11-29T12:00:00Z")
        .await
        .expect("reset marker");
}

/// Writes a bare-id (pre-origin) keychain entry, as an older Switchyard stored keys. Tried once
/// more when the Secret Service went away mid-call (gnome-keyring can abort under the suite's
/// load; the bus starts a new one), as the keychain crate does for its own calls.
fn plant_legacy(service: &str, id: &str, what: &str) {
    let write = || keyring::Entry::new(service, id).and_then(|e| e.set_password(KEY));
    if let Err(first) = write() {
        std::thread::sleep(std::time::Duration::from_millis(250));
        write().unwrap_or_else(|e| panic!("{what}: {e} (first try: {first})"));
    }
}
