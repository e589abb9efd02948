//! The mock-runtime setup every IPC test shares: the same invoke handler and events as the
//! real app (`specta_builder!` + `mount_events`), a real engine on a temp SQLite file, and
//! requests shaped exactly as the UI sends them.

// Each test binary includes this module and uses a different part of it.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use switchyard_desktop::AppState;
use switchyard_engine::{Engine, EngineConfig};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY,
};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

/// An invoke of `cmd` with a JSON `body`, as the webview sends it.
pub fn request(cmd: &str, body: Value) -> InvokeRequest {
    InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().expect("url"),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    }
}

/// A mock app managing `state`, with the real invoke handler and events (the engine's events
/// forwarded as in the app), and its main window.
pub fn app_with(state: AppState) -> (App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let builder = switchyard_desktop::specta_builder!(MockRuntime);
    let engine = state.engine();
    let app = mock_builder()
        .invoke_handler(builder.invoke_handler())
        .manage(state)
        .build(mock_context(noop_assets()))
        .expect("mock app");
    builder.mount_events(&app);
    if let Some(engine) = engine {
        switchyard_desktop::events::forward(app.handle().clone(), &engine);
    }
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window");
    (app, window)
}

/// An engine whose home is `dir`.
pub fn engine_in(dir: &Path) -> Arc<Engine> {
    let engine = tauri::async_runtime::block_on(Engine::open(EngineConfig {
        home: Some(dir.to_path_buf()),
    }))
    .expect("engine");
    Arc::new(engine)
}

/// One app with its engine on a temp dir; the dir lives as long as the app.
pub struct Harness {
    /// The engine's home.
    pub dir: tempfile::TempDir,
    _app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    /// Text no response may contain (a secret that must stay out of the UI).
    secret: Option<&'static str>,
}

impl Harness {
    /// A fresh engine on a new temp dir.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = engine_in(dir.path());
        Self::with_engine(dir, engine)
    }

    /// An app around `engine`, whose home is `dir`.
    pub fn with_engine(dir: tempfile::TempDir, engine: Arc<Engine>) -> Self {
        Self::with_state(dir, AppState::ready(engine))
    }

    /// An app managing `state`, whose engine's home is `dir`.
    pub fn with_state(dir: tempfile::TempDir, state: AppState) -> Self {
        let (app, window) = app_with(state);
        Self {
            dir,
            _app: app,
            window,
            secret: None,
        }
    }

    /// Fails every call whose response, success or error, contains `secret`.
    pub fn never_returning(mut self, secret: &'static str) -> Self {
        self.secret = Some(secret);
        self
    }

    /// Invokes `cmd`, giving the JSON response or the JSON error.
    pub fn call(&self, cmd: &str, body: Value) -> Result<Value, Value> {
        let response = get_ipc_response(&self.window, request(cmd, body))
            .map(|r| r.deserialize().expect("json response"));
        if let Some(secret) = self.secret {
            let text = match &response {
                Ok(v) | Err(v) => v.to_string(),
            };
            assert!(!text.contains(secret), "{cmd} returned the key: {text}");
        }
        response
    }

    /// Invokes `cmd`, which must succeed.
    pub fn ok(&self, cmd: &str, body: Value) -> Value {
        self.call(cmd, body)
            .unwrap_or_else(|e| panic!("{cmd} should succeed, got {e}"))
    }

    /// Invokes `cmd`, which must fail; gives the error.
    pub fn err(&self, cmd: &str, body: Value) -> Value {
        match self.call(cmd, body) {
            Ok(v) => panic!("{cmd} should fail, got {v}"),
            Err(e) => e,
        }
    }
}
