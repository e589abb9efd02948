//! Run commands: preview and launch, list and read, watch, cancel, resume and recover,
//! approve and reject (code runs), rate,
//! spend, and the run defaults. Each one delegates to the engine's run use cases
//! (`switchyard_engine::runs`); every rule lives there and in `switchyard_core::run`. A run's
//! log and its nodes' streamed text reach the page through the `Channel` opened by
//! `watch_run`, which first replays what the page has not seen.

use switchyard_core::run::savings::SpendReport;
use switchyard_core::run::{
    NodeView, RunDefaults, RunDetail, RunFilter, RunLogEntry, RunOptions, RunOutput, RunPreview,
    RunSummary,
};
use tauri::ipc::Channel;
use tauri::State;

use crate::{AppState, IpcError};
use switchyard_core::feed::RunFeedItem;
use switchyard_engine::EngineError;

/// Who the engine records as having launched runs from the desktop app.
const LAUNCHER: &str = "app";

/// What `options` would run — nodes with their models or workers, the ladder or plan,
/// warnings and the worst-case cost — without recording anything. The launch form sends an
/// edited plan, ladder or member list back through here to have it checked again. The
/// options are checked the way the CLI's and the MCP server's are (`RunOptions::request`).
#[tauri::command]
#[specta::specta]
pub async fn preview_run(
    state: State<'_, AppState>,
    options: RunOptions,
) -> Result<RunPreview, IpcError> {
    let request = options.request().map_err(EngineError::from)?;
    Ok(state.require()?.preview_run(request).await?)
}

/// Records the run (`queued`, or `paused` when it should stop after planning) and executes
/// it in the background; returns at once. Progress arrives as `RunStateChanged` events and
/// through `watch_run`.
#[tauri::command]
#[specta::specta]
pub async fn start_run(
    state: State<'_, AppState>,
    options: RunOptions,
) -> Result<RunSummary, IpcError> {
    let request = RunOptions {
        launcher: LAUNCHER.to_owned(),
        ..options
    }
    .request()
    .map_err(EngineError::from)?;
    Ok(state.require_arc()?.start_run(request).await?)
}

/// Continues a paused run.
#[tauri::command]
#[specta::specta]
pub async fn resume_run(state: State<'_, AppState>, id: String) -> Result<RunSummary, IpcError> {
    Ok(state.require_arc()?.resume_run(&id).await?)
}

/// Approves a code run in review: its result's attempt is re-hashed, committed and
/// integrated into the branch it targets (for a collective, `attempt` names the member
/// picked). Refused while a gate failed.
#[tauri::command]
#[specta::specta]
pub async fn approve_run(
    state: State<'_, AppState>,
    id: String,
    attempt: Option<String>,
    message: String,
) -> Result<RunDetail, IpcError> {
    Ok(state
        .require()?
        .approve_run(&id, attempt.as_deref(), &message)
        .await?)
}

/// Rejects a code run in review: every result still in review is rejected with `reason`.
#[tauri::command]
#[specta::specta]
pub async fn reject_run(
    state: State<'_, AppState>,
    id: String,
    reason: String,
) -> Result<RunDetail, IpcError> {
    Ok(state.require()?.reject_run(&id, &reason).await?)
}

/// Runs matching the filter (state, mode, launcher, words of the task), newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_runs(
    state: State<'_, AppState>,
    filter: RunFilter,
) -> Result<Vec<RunSummary>, IpcError> {
    Ok(state.require()?.list_runs(filter).await?)
}

/// Everything the run page shows: nodes with their tries, tokens, timings and context
/// traces, the ladder, the baseline, the limits and the newest event number.
#[tauri::command]
#[specta::specta]
pub async fn run_detail(state: State<'_, AppState>, id: String) -> Result<RunDetail, IpcError> {
    Ok(state.require()?.run_detail(&id).await?)
}

/// The run's stored log entries after `after_seq` (0 = from the start).
#[tauri::command]
#[specta::specta]
pub async fn run_log(
    state: State<'_, AppState>,
    id: String,
    after_seq: u32,
) -> Result<Vec<RunLogEntry>, IpcError> {
    Ok(state.require()?.run_log(&id, after_seq).await?)
}

/// The run's result text and each node's output (or only `node`'s); a running node's text
/// is what it streamed so far.
#[tauri::command]
#[specta::specta]
pub async fn run_output(
    state: State<'_, AppState>,
    id: String,
    node: Option<String>,
) -> Result<RunOutput, IpcError> {
    Ok(state.require()?.run_output(&id, node.as_deref()).await?)
}

/// Follows the run for a page (the engine's feed): its state, the log after `after_seq`, the
/// text running nodes streamed so far, then every new entry and text piece — also when
/// another process executes the run — until an `end` item. Returns once the feed is set up.
#[tauri::command]
#[specta::specta]
pub async fn watch_run(
    state: State<'_, AppState>,
    id: String,
    after_seq: u32,
    on_item: Channel<RunFeedItem>,
) -> Result<(), IpcError> {
    let feed = state.require_arc()?.follow_run(&id, after_seq).await?;
    crate::feed::forward(feed, on_item);
    Ok(())
}

/// Cancels the run: every in-flight call and worker stops; returns it once `canceled`.
#[tauri::command]
#[specta::specta]
pub async fn cancel_run(state: State<'_, AppState>, id: String) -> Result<RunSummary, IpcError> {
    Ok(state.require()?.cancel_run(&id).await?)
}

/// Takes over an interrupted run: finished nodes are kept (never paid for twice), the rest
/// resume. Returns once it is queued again.
#[tauri::command]
#[specta::specta]
pub async fn recover_run(state: State<'_, AppState>, id: String) -> Result<RunSummary, IpcError> {
    Ok(state.require_arc()?.recover_run(&id).await?)
}

/// Rates a finished node's output 1–5 (replacing an earlier rating); routing learns from it.
#[tauri::command]
#[specta::specta]
pub async fn rate_run_node(
    state: State<'_, AppState>,
    run: String,
    node: String,
    rating: u8,
) -> Result<NodeView, IpcError> {
    Ok(state.require()?.rate_run_node(&run, &node, rating).await?)
}

/// Spend and savings of the runs created since `since_ms` (all when `null`): totals, per
/// model, per mode and per day.
#[tauri::command]
#[specta::specta]
pub async fn runs_spend(
    state: State<'_, AppState>,
    since_ms: Option<f64>,
) -> Result<SpendReport, IpcError> {
    // Milliseconds since the epoch fit an f64 exactly; the cast saturates on nonsense.
    let since = since_ms.filter(|s| s.is_finite()).map(|s| s as i64);
    Ok(state.require()?.runs_spend(since).await?)
}

/// The defaults new runs start with (max parallel runs, limits, the savings baseline).
#[tauri::command]
#[specta::specta]
pub async fn run_defaults(state: State<'_, AppState>) -> Result<RunDefaults, IpcError> {
    Ok(state.require()?.run_defaults().await?)
}

/// Saves the run defaults; returns them as stored.
#[tauri::command]
#[specta::specta]
pub async fn set_run_defaults(
    state: State<'_, AppState>,
    defaults: RunDefaults,
) -> Result<RunDefaults, IpcError> {
    Ok(state.require()?.set_run_defaults(defaults).await?)
}
