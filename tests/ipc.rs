//! Typed commands through Tauri's mock runtime (no display): the same invoke handler as the
//! real app, a real engine on a temp SQLite file, and the one error shape on the wire.

mod support;

use serde_json::{json, Value};
use support::{app_with, engine_in, request};
use switchyard_core::error::ErrorCode;
use switchyard_desktop::{AppState, IpcError};
use tauri::test::get_ipc_response;

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
            err["message"].as_str().unwrap_or_default().contains("user name or password"),
            "{err}"
        );
    }
}
