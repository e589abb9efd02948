//! Keys and providers commands through Tauri's mock runtime: the real invoke handler, a real
//! engine on a temp SQLite file, the scripted HTTP server of the providers crate on 127.0.0.1,
//! and the real keychain, JSON in and out exactly as the UI sends and receives it.
//!
//! Tests that store a key need a Secret Service: run them inside `with_session` (scripts/lib.sh:
//! a private D-Bus session with an unlocked gnome-keyring). Without a session bus they print a
//! note and skip, unless `SWITCHYARD_REQUIRE_KEYCHAIN` is set. Each harness stores its keys
//! under a keychain service of its own, so the user's real keys are never touched.

#[path = "../crates/providers/tests/support/mod.rs"]
mod http;

mod support;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use http::{wire, Reply, TestServer};
use serde_json::{json, Value};
use support::Harness;
use switchyard_core::providers::KeyOriginChange;
use switchyard_desktop::dialog::{confirmation_text, KeyMoveConfirmation};
use switchyard_desktop::AppState;
use switchyard_engine::{Engine, EngineConfig};
use switchyard_store::{Store, DATABASE_FILE};

/// A recognizable test key; its bytes must never leave the keychain and the HTTP header.
const KEY: &str = "sk-IPCLEAK-7f3e9a1c-b00c55d2";

static HARNESSES: AtomicU32 = AtomicU32::new(0);

/// Every log line of this test binary, at TRACE level, for the leak checks.
fn captured_logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || LogSink(sink.clone()))
            .init();
        logs
    })
}

struct LogSink(Arc<Mutex<Vec<u8>>>);

impl Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
    );
    eprintln!(
        "note: no D-Bus session bus; skipping a real keychain test (run it under with_session)"
    );
    false
}

/// Answers the native key-move confirmation for the user, and remembers what it was shown.
struct ScriptedDialog {
    answer: bool,
    shown: Mutex<Vec<String>>,
}

impl ScriptedDialog {
    fn answering(answer: bool) -> Arc<Self> {
        Arc::new(Self {
            answer,
            shown: Mutex::new(Vec::new()),
        })
    }

    fn shown(&self) -> Vec<String> {
        self.shown.lock().expect("shown").clone()
    }
}

impl KeyMoveConfirmation for ScriptedDialog {
    fn confirm_key_move(&self, change: &KeyOriginChange) -> bool {
        self.shown
            .lock()
            .expect("shown")
            .push(confirmation_text(change));
        self.answer
    }
}

impl Harness {
    /// A fresh engine on a temp dir whose keys go to a keychain service of its own; no
    /// response may contain the test key.
    fn isolated() -> Self {
        Self::isolated_with(None)
    }

    /// [`Harness::isolated`] whose key-move confirmations `dialog` answers.
    fn isolated_with(dialog: Option<Arc<ScriptedDialog>>) -> Self {
        captured_logs();
        let dir = tempfile::tempdir().expect("tempdir");
        let service = format!(
            "dev.switchyard.test.ipc.{}.{}",
            std::process::id(),
            HARNESSES.fetch_add(1, Ordering::Relaxed)
        );
        let engine = tauri::async_runtime::block_on(async {
            let store = Store::open(&dir.path().join(DATABASE_FILE))
                .await
                .expect("open store");
            store
                .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
                .await
                .expect("keychain service setting");
            store.close().await;
            Engine::open(EngineConfig {
                home: Some(dir.path().to_path_buf()),
            })
            .await
        })
        .expect("engine");
        let mut state = AppState::ready(Arc::new(engine));
        if let Some(dialog) = dialog {
            state = state.with_key_move_confirmation(dialog);
        }
        Self::with_state(dir, state).never_returning(KEY)
    }

    fn row(&self, id: &str) -> Value {
        self.ok("list_providers", json!({}))
            .as_array()
            .expect("array")
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("provider {id} in the list"))
    }
}

fn server(script: Vec<Reply>) -> TestServer {
    tauri::async_runtime::block_on(TestServer::start(script))
}

/// Every byte under `dir`: the database, its WAL, anything else the engine wrote.
fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            bytes.extend(all_bytes(&path));
        } else {
            bytes.extend(std::fs::read(&path).expect("read file"));
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn providers_are_listed_with_kinds_urls_and_key_state() {
    let h = Harness::isolated();
    let tags = r#"{"models":[{"name":"llama3.2:3b"},{"name":"qwen3:8b"}]}"#;
    let ollama = server(vec![Reply::json(200, tags), Reply::json(200, tags)]);
    let moved = h.ok(
        "set_provider_base_url",
        json!({"provider": "ollama", "baseUrl": ollama.at("/v1/")}),
    );
    assert_eq!(moved["baseUrl"], ollama.at("/v1"), "normalized: {moved}");
    assert_eq!(moved["defaultBaseUrl"], "http://127.0.0.1:11434/v1");

    let list = h.ok("list_providers", json!({}));
    let ids: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "openrouter",
            "openai",
            "anthropic",
            "gemini",
            "deepseek",
            "ollama",
            "lmstudio",
            "artificialanalysis"
        ]
    );
    let row = |id: &str| {
        list.as_array()
            .expect("array")
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .expect("row")
    };
    let ollama_row = row("ollama");
    assert_eq!(ollama_row["kind"], "local");
    assert_eq!(ollama_row["key"], json!({"state": "notNeeded"}));
    assert_eq!(ollama_row["local"]["reachable"], true);
    assert_eq!(ollama_row["local"]["modelCount"], 2);
    let anthropic = row("anthropic");
    assert_eq!(anthropic["kind"], "anthropic");
    assert_eq!(anthropic["envVar"], "ANTHROPIC_API_KEY");
    assert_eq!(anthropic["custom"], false);
    assert!(anthropic["local"].is_null());
    assert_eq!(row("artificialanalysis")["kind"], "data-source");
    if keychain_present() {
        // A fresh keychain service: nothing stored (the test command sets no provider variable).
        assert_eq!(
            row("openrouter")["key"]["state"],
            "missing",
            "{}",
            row("openrouter")
        );
    } else {
        let key = &row("openrouter")["key"];
        assert_eq!(key["state"], "unavailable", "{key}");
        assert!(
            key["message"].as_str().is_some_and(|m| m.contains("D-Bus")),
            "the reason names what is missing: {key}"
        );
    }
}

#[test]
fn a_key_is_stored_tested_and_deleted_and_never_comes_back() {
    if !keychain_present() {
        return;
    }
    let h = Harness::isolated();
    let api = server(vec![Reply::json(200, wire::model_list(7))]);
    h.ok(
        "set_provider_base_url",
        json!({"provider": "openai", "baseUrl": api.at("/v1")}),
    );

    let stored = h.ok(
        "set_provider_key",
        json!({"provider": "openai", "key": format!("  {KEY}\n")}),
    );
    assert_eq!(stored["id"], "openai");
    assert_eq!(
        stored["key"],
        json!({"state": "stored", "last4": "55d2", "origin": api.url})
    );
    assert_eq!(
        h.row("openai")["key"],
        json!({"state": "stored", "last4": "55d2", "origin": api.url})
    );
    assert_eq!(h.row("openai")["origin"], api.url);

    let report = h.ok("test_provider", json!({"provider": "openai"}));
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["modelCount"], 7);
    assert_eq!(report["httpStatus"], 200);
    assert_eq!(report["keySource"], "keychain");
    assert_eq!(report["url"], api.at("/v1/models"));
    assert!(report["latencyMs"].is_u64());
    let sent = api.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/models");
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the stored key (trimmed) goes to the provider and only there"
    );

    assert_eq!(
        h.ok("delete_provider_key", json!({"provider": "openai"})),
        true
    );
    assert_eq!(h.row("openai")["key"], json!({"state": "missing"}));
    assert_eq!(
        h.ok("delete_provider_key", json!({"provider": "openai"})),
        false
    );
    let missing = h.err("test_provider", json!({"provider": "openai"}));
    assert_eq!(missing["code"], "missingCredential", "{missing}");
    assert!(
        missing["message"]
            .as_str()
            .is_some_and(|m| m.contains("switchyard keys set openai")),
        "{missing}"
    );

    assert!(
        !contains(&all_bytes(h.dir.path()), KEY),
        "the key reached the data directory"
    );
    let logs = captured_logs().lock().expect("logs").clone();
    assert!(
        contains(&logs, "provider key stored"),
        "the log capture must see the engine's lines"
    );
    assert!(!contains(&logs, KEY), "the key reached a log line");
}

#[test]
fn refusals_have_codes_the_ui_switches_on() {
    let h = Harness::isolated();
    for (cmd, body, code) in [
        (
            "set_provider_key",
            json!({"provider": "nope", "key": "sk-x"}),
            "notFound",
        ),
        (
            "set_provider_key",
            json!({"provider": "ollama", "key": "sk-x"}),
            "invalidInput",
        ),
        (
            "set_provider_key",
            json!({"provider": "openai", "key": " \n"}),
            "invalidInput",
        ),
        (
            "set_provider_base_url",
            json!({"provider": "openai", "baseUrl": "ftp://example.com"}),
            "invalidInput",
        ),
        (
            "set_provider_base_url",
            json!({"provider": "openai", "baseUrl": "https://user:pw@example.com/v1"}),
            "invalidInput",
        ),
        (
            "add_provider",
            json!({"request": {"id": "openai", "kind": "openai-compatible", "baseUrl": "http://h"}}),
            "invalidInput",
        ),
        (
            "add_provider",
            json!({"request": {"id": "lab", "kind": "local", "baseUrl": "http://h"}}),
            "invalidInput",
        ),
        (
            "remove_provider",
            json!({"provider": "openai"}),
            "invalidInput",
        ),
        ("test_provider", json!({"provider": "nope"}), "notFound"),
    ] {
        let err = h.err(cmd, body.clone());
        assert_eq!(err["code"], code, "{cmd} {body}: {err}");
        assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

#[test]
fn a_custom_endpoint_is_added_tested_reset_and_removed() {
    let h = Harness::isolated();
    let api = server(vec![
        Reply::json(200, wire::model_list(3)),
        Reply::json(
            401,
            wire::openai_error(
                "Incorrect API key provided",
                "invalid_request_error",
                "invalid_api_key",
            ),
        ),
    ]);
    let added = h.ok(
        "add_provider",
        json!({"request": {"id": "lab-vllm", "name": "Lab vLLM", "kind": "openai-compatible", "baseUrl": api.at("/v1/")}}),
    );
    assert_eq!(added["custom"], true);
    assert_eq!(added["name"], "Lab vLLM");
    assert_eq!(added["baseUrl"], api.at("/v1"));
    assert!(added["defaultBaseUrl"].is_null());
    let list = h.ok("list_providers", json!({}));
    assert_eq!(
        list.as_array()
            .and_then(|l| l.last())
            .map(|p| p["id"].clone()),
        Some(json!("lab-vllm")),
        "custom providers come after the built-ins"
    );

    // A custom endpoint's key is optional: the Test goes out without one.
    let report = h.ok("test_provider", json!({"provider": "lab-vllm"}));
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["modelCount"], 3);
    assert!(report["keySource"].is_null());
    assert_eq!(api.requests()[0].header("authorization"), None);

    // The provider's own error message is the report, not a command failure.
    let report = h.ok("test_provider", json!({"provider": "lab-vllm"}));
    assert_eq!(report["ok"], false);
    assert_eq!(report["httpStatus"], 401);
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("Incorrect API key provided")),
        "{report}"
    );

    let err = h.err(
        "set_provider_base_url",
        json!({"provider": "lab-vllm", "baseUrl": null}),
    );
    assert_eq!(
        err["code"], "invalidInput",
        "a custom provider has no default"
    );

    h.ok("remove_provider", json!({"provider": "lab-vllm"}));
    let list = h.ok("list_providers", json!({}));
    assert!(list
        .as_array()
        .expect("array")
        .iter()
        .all(|p| p["id"] != "lab-vllm"));
    let gone = h.err("remove_provider", json!({"provider": "lab-vllm"}));
    assert_eq!(gone["code"], "notFound");
}

#[test]
fn a_built_in_base_url_goes_back_to_its_default() {
    let h = Harness::isolated();
    let moved = h.ok(
        "set_provider_base_url",
        json!({"provider": "deepseek", "baseUrl": "http://127.0.0.1:9/v1"}),
    );
    assert_eq!(moved["baseUrl"], "http://127.0.0.1:9/v1");
    let reset = h.ok(
        "set_provider_base_url",
        json!({"provider": "deepseek", "baseUrl": null}),
    );
    assert_eq!(reset["baseUrl"], "https://api.deepseek.com");
    assert_eq!(h.row("deepseek")["baseUrl"], "https://api.deepseek.com");
}

#[test]
fn the_app_refuses_the_keys_the_cli_refuses() {
    let h = Harness::isolated();
    let long = "k".repeat(5000);
    for key in [
        "sk-one\nsk-two",
        "sk-one sk-two",
        "sk-tab\tkey",
        "sk-zero\u{200B}width",
        "\u{FEFF}sk-bom",
        long.as_str(),
        " \n",
    ] {
        let err = h.err(
            "set_provider_key",
            json!({"provider": "openai", "key": key}),
        );
        assert_eq!(err["code"], "invalidInput", "{key:?}: {err}");
        assert!(
            err["message"].as_str().is_some_and(|m| !m.contains("sk-")),
            "{err}"
        );
    }
    if keychain_present() {
        assert_eq!(h.row("openai")["key"], json!({"state": "missing"}));
    }
}

#[test]
fn the_webview_gets_no_dialog_permission() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("capabilities");
    for entry in std::fs::read_dir(&dir).expect("capabilities").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("read");
        let capability: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let permissions = capability["permissions"].to_string();
        assert!(
            !permissions.contains("dialog"),
            "{} grants a dialog permission: the key-move confirmation must stay Rust-only",
            entry.path().display()
        );
    }
}

#[test]
fn a_key_moves_to_a_new_origin_only_when_the_user_confirms_natively() {
    if !keychain_present() {
        return;
    }
    let declined = ScriptedDialog::answering(false);
    let h = Harness::isolated_with(Some(declined.clone()));
    let entered_for = server(vec![Reply::json(200, wire::model_list(2))]);
    // The new origin would answer anything; only the engine keeps the key from it.
    let other = server(vec![
        Reply::json(200, wire::model_list(8)),
        Reply::json(200, wire::model_list(8)),
    ]);
    h.ok(
        "set_provider_base_url",
        json!({"provider": "anthropic", "baseUrl": entered_for.url}),
    );
    h.ok(
        "set_provider_key",
        json!({"provider": "anthropic", "key": KEY}),
    );
    assert_eq!(
        h.ok("test_provider", json!({"provider": "anthropic"}))["ok"],
        true
    );
    assert_eq!(entered_for.requests()[0].header("x-api-key"), Some(KEY));

    // Two calls a compromised page could make: point elsewhere, then test.
    let moved = h.ok(
        "set_provider_base_url",
        json!({"provider": "anthropic", "baseUrl": other.url}),
    );
    assert_eq!(
        moved["key"],
        json!({"state": "originMismatch", "last4": "55d2", "origin": entered_for.url,
               "targetOrigin": other.url, "variable": null})
    );
    let err = h.err("test_provider", json!({"provider": "anthropic"}));
    assert_eq!(err["code"], "keyOriginMismatch", "{err}");

    // The page cannot confirm for itself: the native dialog asks, and here the user declines.
    let status = h.ok("confirm_key_origin", json!({"provider": "anthropic"}));
    assert_eq!(status["key"]["state"], "originMismatch", "{status}");
    let shown = declined.shown();
    assert_eq!(shown.len(), 1);
    assert!(
        shown[0].contains("Anthropic")
            && shown[0].contains(&entered_for.url)
            && shown[0].contains(&other.url),
        "the dialog names the provider and both origins: {}",
        shown[0]
    );
    assert_eq!(
        h.err("test_provider", json!({"provider": "anthropic"}))["code"],
        "keyOriginMismatch"
    );
    assert!(other.requests().is_empty(), "declined: nothing was sent");

    // The same data dir and keychain, a user who confirms.
    let confirmed = ScriptedDialog::answering(true);
    let engine = support::engine_in(h.dir.path());
    let again = Harness::with_state(
        tempfile::tempdir().expect("tempdir"),
        AppState::ready(engine).with_key_move_confirmation(confirmed.clone()),
    )
    .never_returning(KEY);
    let status = again.ok("confirm_key_origin", json!({"provider": "anthropic"}));
    assert_eq!(
        status["key"],
        json!({"state": "stored", "last4": "55d2", "origin": other.url})
    );
    assert_eq!(confirmed.shown().len(), 1);
    assert_eq!(
        again.ok("test_provider", json!({"provider": "anthropic"}))["ok"],
        true
    );
    assert_eq!(other.requests()[0].header("x-api-key"), Some(KEY));
    let nothing = again.err("confirm_key_origin", json!({"provider": "anthropic"}));
    assert_eq!(
        nothing["code"], "invalidInput",
        "nothing left to move: {nothing}"
    );
    assert_eq!(confirmed.shown().len(), 1, "no dialog without a move");
    assert_eq!(
        again.ok("delete_provider_key", json!({"provider": "anthropic"})),
        true
    );

    assert!(
        !contains(&all_bytes(h.dir.path()), KEY),
        "the key reached the data directory"
    );
    let logs = captured_logs().lock().expect("logs").clone();
    assert!(
        contains(&logs, "provider key moved to a new origin"),
        "the log capture must see the engine's lines"
    );
    assert!(!contains(&logs, KEY), "the key reached a log line");
    for text in shown.iter().chain(confirmed.shown().iter()) {
        assert!(!text.contains(KEY), "the key in the dialog: {text}");
    }
}
