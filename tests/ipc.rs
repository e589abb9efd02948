//! Typed commands through Tauri's mock runtime (no display): the same invoke handler as the
//! real app, a real engine on a temp SQLite file, and the one error shape on the wire.

#[path = "../crates/engine/tests/support/mod.rs"]
mod sources;
mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sources::{serve, Reply, SOURCE_PATHS};
use support::{app_with, engine_in, request};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::error::ErrorCode;
use switchyard_desktop::{AppState, IpcError};
use switchyard_store::{Store, DATABASE_FILE};
use tauri::test::get_ipc_response;
use tauri::Listener;

#[test]
fn app_info_comes_from_the_engine() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_app, window) = app_with(AppState::ready(engine_in(dir.path())));
    let info: Value = get_ipc_response(&window, request("get_app_info", json!({})))
        .expect("get_app_info ok")
        .deserialize()
        .expect("json");
    assert_eq!(info["dataDir"], dir.path().display().to_string());
    assert_eq!(
        info["databasePath"],
        dir.path().join("switchyard.db").display().to_string()
    );
    assert!(info["migrationsApplied"].as_u64().is_some_and(|n| n >= 1));
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn doctor_runs_through_ipc() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_app, window) = app_with(AppState::ready(engine_in(dir.path())));
    let report: Value = get_ipc_response(&window, request("run_doctor", json!({})))
        .expect("run_doctor ok")
        .deserialize()
        .expect("json");
    let database = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == "database"))
        .expect("database check");
    assert_eq!(database["status"], "ok");
}

#[test]
fn startup_failure_is_the_error_shape_with_code() {
    let state = AppState::failed(IpcError::new(
        ErrorCode::Startup,
        "data directory /x: cannot create",
    ));
    let (_app, window) = app_with(state);
    let err = get_ipc_response(&window, request("get_app_info", json!({}))).expect_err("fails");
    assert_eq!(
        err,
        json!({ "code": "startup", "message": "data directory /x: cannot create" })
    );
}

#[test]
fn open_link_refuses_non_http_urls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_app, window) = app_with(AppState::ready(engine_in(dir.path())));
    let err = get_ipc_response(
        &window,
        request("open_link", json!({ "url": "file:///etc/passwd" })),
    )
    .expect_err("refused");
    assert_eq!(err["code"], "invalidInput");
}

#[test]
fn open_link_refuses_userinfo_links_that_passed_the_old_prefix_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_app, window) = app_with(AppState::ready(engine_in(dir.path())));
    for url in [
        "https://openrouter.ai@evil.example/",
        "http://user:pass@127.0.0.1/",
    ] {
        let err = get_ipc_response(&window, request("open_link", json!({ "url": url })))
            .expect_err("refused");
        assert_eq!(err["code"], "invalidInput", "{url}");
        assert!(
            err["message"]
                .as_str()
                .unwrap_or_default()
                .contains("user name or password"),
            "{err}"
        );
    }
}

fn catalog_fixture(folder: &str, file: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "crates/core/tests/fixtures/catalog",
        folder,
        file,
    ]
    .iter()
    .collect();
    std::fs::read(path).expect("fixture")
}

fn call(
    window: &tauri::WebviewWindow<tauri::test::MockRuntime>,
    cmd: &str,
    body: Value,
) -> Result<Value, Value> {
    get_ipc_response(window, request(cmd, body)).map(|r| r.deserialize().expect("json"))
}

/// Opens the store beside a running engine (as a second process would) and runs `f` on it.
fn with_store(dir: &Path, f: impl AsyncFnOnce(&Store)) {
    tauri::async_runtime::block_on(async {
        let store = Store::open(&dir.join(DATABASE_FILE)).await.expect("store");
        f(&store).await;
        store.close().await;
    });
}

#[test]
fn an_undecodable_snapshot_row_still_opens_the_app() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine_in(dir.path());
    with_store(dir.path(), async |store| {
        store
            .overwrite_source_snapshot_for_tests(SourceId::OpenRouter, "not json at all")
            .await
            .expect("damage");
    });
    let (_app, window) = app_with(AppState::ready(engine));
    let info = call(&window, "get_app_info", json!({})).expect("app info, not the start-up error");
    assert!(info["catalogSnapshotDate"].is_string(), "{info}");
    let status = call(&window, "catalog_status", json!({})).expect("catalog status");
    assert!(
        status["bundledSources"]
            .as_array()
            .is_some_and(|s| s.contains(&json!("openRouter"))),
        "{}",
        status["bundledSources"]
    );
    let openrouter = status["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["source"] == "openRouter"))
        .expect("openRouter row");
    assert!(
        openrouter["error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot be read")),
        "{openrouter}"
    );
    assert!(
        openrouter["records"].as_u64().is_some_and(|n| n > 100),
        "bundled models"
    );
    let models = call(&window, "list_models", json!({ "query": { "limit": 3 } })).expect("models");
    assert_eq!(models.as_array().map(Vec::len), Some(3));
}

#[test]
fn a_second_refresh_start_follows_the_running_one_instead_of_ending_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine_in(dir.path());
    let mut routes = HashMap::new();
    routes.insert(
        "/or/models".to_owned(),
        Reply::ok(catalog_fixture("openrouter", "openrouter_models_live.json"))
            .after(Duration::from_millis(800)),
    );
    let server = tauri::async_runtime::block_on(serve(routes));
    tauri::async_runtime::block_on(async {
        for (source, path) in SOURCE_PATHS {
            engine
                .set_source_endpoint(source, &format!("{}{path}", server.base))
                .await
                .expect("endpoint");
        }
    });
    with_store(dir.path(), async |store| {
        store
            .set_setting(
                "keychain.service",
                &format!("dev.switchyard.test.ipc-refresh.{}", std::process::id()),
                "2026-12-01T00:00:00Z",
            )
            .await
            .expect("setting");
    });
    let (app, window) = app_with(AppState::ready(engine));
    let events: Arc<Mutex<Vec<(&'static str, Value)>>> = Arc::default();
    for name in [
        "catalog-refresh-started",
        "catalog-refresh-progress",
        "catalog-refreshed",
    ] {
        let events = events.clone();
        app.listen_any(name, move |event| {
            let payload = serde_json::from_str(event.payload()).expect("payload json");
            events.lock().expect("lock").push((name, payload));
        });
    }

    let first = call(&window, "refresh_catalog", json!({ "fromDir": null })).expect("start");
    assert_eq!(first["alreadyRunning"], false);
    let id = first["refreshId"].clone();
    assert!(id.is_u64(), "{first}");
    let second = call(&window, "refresh_catalog", json!({ "fromDir": null })).expect("second");
    assert_eq!(second, json!({ "refreshId": id, "alreadyRunning": true }));
    let status = call(&window, "catalog_status", json!({})).expect("status");
    assert_eq!(status["refreshId"], id);
    assert_eq!(status["refreshing"], true);

    let deadline = Instant::now() + Duration::from_secs(30);
    while !events
        .lock()
        .expect("lock")
        .iter()
        .any(|(n, _)| *n == "catalog-refreshed")
    {
        assert!(Instant::now() < deadline, "the refresh finishes");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Anything a second, losing refresh would have sent has had time to arrive.
    std::thread::sleep(Duration::from_millis(300));
    let events = events.lock().expect("lock").clone();
    let of = |name: &str| {
        events
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
    };
    let finished = of("catalog-refreshed");
    assert_eq!(finished.len(), 1, "one outcome: {finished:?}");
    assert_eq!(finished[0]["refreshId"], id);
    assert!(finished[0]["error"].is_null(), "{}", finished[0]);
    assert!(finished[0]["report"]["sources"].is_array());
    let started = of("catalog-refresh-started");
    assert_eq!(started.len(), 1);
    assert_eq!(
        started[0],
        &json!({ "refreshId": id, "trigger": "user", "fromDir": null })
    );
    let progress = of("catalog-refresh-progress");
    assert!(!progress.is_empty());
    assert!(progress.iter().all(|p| p["refreshId"] == id));
    let status = call(&window, "catalog_status", json!({})).expect("status");
    assert_eq!(status["refreshing"], false);
    assert!(status["refreshId"].is_null());
}

#[test]
fn a_held_back_snapshot_is_shown_and_accepted_through_ipc() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine_in(dir.path());
    // A folder import whose OpenRouter file is empty: held back, the bundled models stay.
    let import = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(import.path().join("openrouter")).expect("mkdir");
    std::fs::write(
        import.path().join("openrouter/openrouter_models_live.json"),
        br#"{"data": []}"#,
    )
    .expect("write");
    let report =
        tauri::async_runtime::block_on(engine.refresh_catalog_from_dir(import.path(), &|_| {}))
            .expect("import");
    let openrouter = report
        .sources
        .iter()
        .find(|s| s.source == SourceId::OpenRouter)
        .expect("row");
    assert!(openrouter.held.is_some(), "{openrouter:?}");

    let (_app, window) = app_with(AppState::ready(engine));
    let status = call(&window, "catalog_status", json!({})).expect("status");
    let models_before = status["modelCount"].as_u64().expect("count");
    assert!(models_before > 100, "the bundled models stay");
    assert_eq!(
        status["held"].as_array().map(Vec::len),
        Some(1),
        "{}",
        status["held"]
    );
    let held = &status["held"][0];
    assert_eq!(held["source"], "openRouter");
    assert_eq!(held["reason"], json!({ "kind": "empty" }));
    assert_eq!(held["records"], 0);
    assert!(held["message"]
        .as_str()
        .is_some_and(|m| m.contains("held back")));

    let status = call(
        &window,
        "accept_held_snapshot",
        json!({ "source": "openRouter" }),
    )
    .expect("accept anyway");
    assert_eq!(status["held"], json!([]));
    assert!(status["modelCount"].as_u64().expect("count") < models_before);
    let err = call(
        &window,
        "accept_held_snapshot",
        json!({ "source": "openRouter" }),
    )
    .expect_err("nothing held");
    assert_eq!(err["code"], "notFound");
}
