//! Desktop notifications for jobs that need the user, while the window is not focused. The
//! engine decides what is worth telling and words it (`switchyard_core::notice`); this shows
//! it through tauri-plugin-notification (the webview holds no notification permission).

use switchyard_core::attempt::AttemptState;
use switchyard_core::notice::{attempt_needs_notice, run_needs_notice, Notice};
use switchyard_core::run::RunState;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

use crate::AppState;

/// Whether the app's main window has the focus (a notification would only interrupt).
fn focused<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false)
}

fn show<R: Runtime>(app: &AppHandle<R>, notice: Notice) {
    let shown = app
        .notification()
        .builder()
        .title(notice.title)
        .body(notice.body)
        .show();
    if let Err(error) = shown {
        tracing::warn!(%error, "cannot show a desktop notification");
    }
}

/// Notifies when attempt `attempt_id` reached a state that needs the user and the main window
/// is not focused. Never fails the caller: a missing notification daemon is only logged.
pub fn attempt_state<R: Runtime>(app: &AppHandle<R>, attempt_id: &str, state: AttemptState) {
    if !attempt_needs_notice(state) || focused(app) {
        return;
    }
    let Some(engine) = app.try_state::<AppState>().and_then(|s| s.engine()) else {
        return;
    };
    let app = app.clone();
    let id = attempt_id.to_owned();
    tauri::async_runtime::spawn(async move {
        match engine.attempt_notice(&id, state).await {
            Ok(Some(notice)) => show(&app, notice),
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, attempt = %id, "no notification"),
        }
    });
}

/// Notifies when run `run_id` reached review or finished and the main window is not
/// focused. Never fails the caller.
pub fn run_state<R: Runtime>(app: &AppHandle<R>, run_id: &str, state: RunState) {
    if !run_needs_notice(state) || focused(app) {
        return;
    }
    let Some(engine) = app.try_state::<AppState>().and_then(|s| s.engine()) else {
        return;
    };
    let app = app.clone();
    let id = run_id.to_owned();
    tauri::async_runtime::spawn(async move {
        match engine.run_notice(&id, state).await {
            Ok(Some(notice)) => show(&app, notice),
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, run = %id, "no notification"),
        }
    });
}
