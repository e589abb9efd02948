//! App-level commands: info, doctor, links.

use switchyard_core::doctor::DoctorReport;
use switchyard_core::error::ErrorCode;
use switchyard_core::info::AppInfo;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_shell::ShellExt;
use tauri_specta::Event;

use crate::events::DoctorUpdated;
use crate::{AppState, IpcError};

/// Version, data directory, database file and schema version. Fails with code `startup`
/// when the engine could not start, which the UI shows as its error screen.
#[tauri::command]
#[specta::specta]
pub async fn get_app_info(state: State<'_, AppState>) -> Result<AppInfo, IpcError> {
    Ok(state.require()?.app_info().await?)
}

/// Runs every doctor check now, returns the report and broadcasts it as `DoctorUpdated`.
#[tauri::command]
#[specta::specta]
pub async fn run_doctor<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<DoctorReport, IpcError> {
    let report = state.require()?.doctor().await;
    if let Err(error) = (DoctorUpdated {
        report: report.clone(),
    })
    .emit(&app)
    {
        tracing::warn!(%error, "cannot emit DoctorUpdated");
    }
    Ok(report)
}

/// The newest doctor report without running the checks again (`null` before the first one
/// finished; `DoctorUpdated` follows when it does).
#[tauri::command]
#[specta::specta]
pub async fn last_doctor_report(
    state: State<'_, AppState>,
) -> Result<Option<DoctorReport>, IpcError> {
    Ok(state.require()?.last_doctor())
}

/// Opens a plain `http`/`https` link (parsed; no user name or password) in the system
/// browser. Anything else is refused with `invalidInput`.
#[tauri::command]
#[specta::specta]
pub async fn open_link<R: Runtime>(app: AppHandle<R>, url: String) -> Result<(), IpcError> {
    let url = crate::links::external_link(&url)
        .map_err(|e| IpcError::new(ErrorCode::InvalidInput, e.to_string()))?;
    #[allow(deprecated)] // the opener plugin replaces this; the brief asks for the shell plugin
    app.shell()
        .open(url.as_str(), None)
        .map_err(|e| IpcError::new(ErrorCode::Io, format!("cannot open the browser: {e}")))
}

/// Called by the UI once its first page has rendered. Logs the time since the process
/// started; with `SWITCHYARD_EXIT_ON_FIRST_PAINT=1` (the start-up benchmark) prints
/// `first_paint_ms=<n>` on stdout and exits.
#[tauri::command]
#[specta::specta]
pub fn record_first_paint<R: Runtime>(app: AppHandle<R>) -> u32 {
    let elapsed = crate::startup::since_process_start();
    let millis = u32::try_from(elapsed.as_millis()).unwrap_or(u32::MAX);
    tracing::info!(millis, "first paint");
    crate::startup::mark_first_paint();
    if std::env::var("SWITCHYARD_EXIT_ON_FIRST_PAINT").as_deref() == Ok("1") {
        println!("first_paint_ms={millis}");
        app.exit(0);
    }
    millis
}

/// What the command palette can open that Rust knows: catalog models, the newest runs and
/// attempts (pages and actions are the UI's own).
#[tauri::command]
#[specta::specta]
pub async fn palette_entries(
    state: State<'_, AppState>,
) -> Result<Vec<switchyard_core::palette::PaletteEntry>, IpcError> {
    Ok(state.require()?.palette_entries().await?)
}

/// The app's preferences: theme, and whether the first-run checklist was dismissed.
#[tauri::command]
#[specta::specta]
pub async fn ui_prefs(
    state: State<'_, AppState>,
) -> Result<switchyard_core::first_run::UiPrefs, IpcError> {
    Ok(state.require()?.ui_prefs().await?)
}

/// Stores the theme (light, dark, system); resolves to the preferences as stored.
#[tauri::command]
#[specta::specta]
pub async fn set_theme(
    state: State<'_, AppState>,
    theme: switchyard_core::first_run::Theme,
) -> Result<switchyard_core::first_run::UiPrefs, IpcError> {
    Ok(state.require()?.set_theme(theme).await?)
}

/// Hides the Models page's plot (`true`) or shows it, from the next start on too; resolves to
/// the preferences as stored.
#[tauri::command]
#[specta::specta]
pub async fn set_plot_hidden(
    state: State<'_, AppState>,
    hidden: bool,
) -> Result<switchyard_core::first_run::UiPrefs, IpcError> {
    Ok(state.require()?.set_plot_hidden(hidden).await?)
}

/// What a new user still needs, each item with its one-step fix.
#[tauri::command]
#[specta::specta]
pub async fn first_run_checklist(
    state: State<'_, AppState>,
) -> Result<switchyard_core::first_run::FirstRunChecklist, IpcError> {
    Ok(state.require()?.first_run_checklist().await?)
}

/// Hides the first-run checklist (`true`) or shows it again; resolves to the checklist.
#[tauri::command]
#[specta::specta]
pub async fn set_checklist_dismissed(
    state: State<'_, AppState>,
    dismissed: bool,
) -> Result<switchyard_core::first_run::FirstRunChecklist, IpcError> {
    Ok(state.require()?.set_checklist_dismissed(dismissed).await?)
}
