//! Attempt commands: start, watch, review and decide. Each one delegates to the engine's
//! attempt use cases (`switchyard_engine::attempts`); the pipeline, the gates and every rule
//! live there and in `switchyard_core::attempt`. Worker output reaches the page through the
//! `Channel` opened by `watch_attempt`, which first replays the stored log so a page opened
//! late (or reopened) misses nothing.

use serde::Deserialize;
use specta::Type;
use switchyard_core::attempt::{
    AttemptLogEntry, AttemptRequest, AttemptReview, AttemptSummary, DiffAgainst, LineComment,
};
use switchyard_core::feed::AttemptFeedItem;
use switchyard_core::review::diff::{FileChange, REVIEW_LINE_BUDGET};
use switchyard_engine::attempts::{CompareSummary, RepoProbe};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};

use crate::{AppState, IpcError};

/// Who the engine records as having started attempts from the desktop app.
const LAUNCHER: &str = "app";

/// Validates the request, pins the base commit and queues the attempt; returns at once.
/// Progress arrives as `AttemptStateChanged` events and through `watch_attempt`.
#[tauri::command]
#[specta::specta]
pub async fn start_attempt(
    state: State<'_, AppState>,
    request: AttemptRequest,
) -> Result<AttemptSummary, IpcError> {
    Ok(state
        .require_arc()?
        .start_attempt(request, LAUNCHER)
        .await?)
}

/// Everything review shows for one attempt (diff, gates, verification, usage, decision).
/// Each diff (against the base, and a revision's against the previous attempt) carries hunks
/// for its first files only (about `REVIEW_LINE_BUDGET` lines); the rest are marked
/// `hunksDeferred` and come one by one from `attempt_file_diff`, so a huge change opens at
/// once.
#[tauri::command]
#[specta::specta]
pub async fn attempt_review(
    state: State<'_, AppState>,
    id: String,
) -> Result<AttemptReview, IpcError> {
    Ok(state
        .require()?
        .attempt_review_budgeted(&id, REVIEW_LINE_BUDGET)
        .await?)
}

/// One changed file of the attempt's diff against `against` (the base, or the previous
/// attempt) with all its hunks (for a file the review payload deferred). `not_found` for an
/// unknown attempt, no such diff, or a path not in it.
#[tauri::command]
#[specta::specta]
pub async fn attempt_file_diff(
    state: State<'_, AppState>,
    id: String,
    path: String,
    against: DiffAgainst,
) -> Result<FileChange, IpcError> {
    Ok(state
        .require()?
        .attempt_file_diff(&id, &path, against)
        .await?)
}

/// The review as the page receives it: hunks budgeted like `attempt_review`'s, since the
/// decision commands hand the page a fresh review too.
fn budgeted(mut review: AttemptReview) -> AttemptReview {
    review.defer_hunks(REVIEW_LINE_BUDGET);
    review
}

/// Every attempt, newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_attempts(state: State<'_, AppState>) -> Result<Vec<AttemptSummary>, IpcError> {
    Ok(state.require()?.list_attempts().await?)
}

/// The stored log entries after `after_seq` (0 = all).
#[tauri::command]
#[specta::specta]
pub async fn attempt_log(
    state: State<'_, AppState>,
    id: String,
    after_seq: u32,
) -> Result<Vec<AttemptLogEntry>, IpcError> {
    Ok(state.require()?.attempt_log(&id, after_seq).await?)
}

/// Follows the attempt for a page (the engine's feed): its state, the stored log after
/// `after_seq`, every new entry as it is stored — also when another process owns the attempt
/// — each state change, and an `end` item. Returns once the feed is set up.
#[tauri::command]
#[specta::specta]
pub async fn watch_attempt(
    state: State<'_, AppState>,
    id: String,
    after_seq: u32,
    on_item: Channel<AttemptFeedItem>,
) -> Result<(), IpcError> {
    let feed = state.require_arc()?.follow_attempt(&id, after_seq).await?;
    crate::feed::forward(feed, on_item);
    Ok(())
}

/// Stops a live attempt (the worker's whole process group); returns it as `canceled`. One run
/// by another Switchyard process (the CLI) is asked to stop and waited for up to 10 s
/// (`busy` if it has not stopped by then).
#[tauri::command]
#[specta::specta]
pub async fn cancel_attempt(
    state: State<'_, AppState>,
    id: String,
) -> Result<AttemptSummary, IpcError> {
    Ok(state.require()?.cancel_attempt(&id).await?)
}

/// Resumes an `interrupted` attempt (its owner went away): takes it over, re-captures the
/// worktree and re-runs the gates and verification, to `review`. One whose worker never ran
/// is re-queued instead and returned `queued` at once; its progress arrives as for a start.
#[tauri::command]
#[specta::specta]
pub async fn recover_attempt(
    state: State<'_, AppState>,
    id: String,
) -> Result<AttemptReview, IpcError> {
    Ok(budgeted(state.require_arc()?.recover_attempt(&id).await?))
}

/// What Approve sends.
#[derive(Debug, Clone, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ApproveRequest {
    pub id: String,
    /// The commit message.
    pub message: String,
    /// Land the commit on the target branch (`false`: commit on `switchyard/<id>` only).
    pub integrate: bool,
}

/// Re-hashes the worktree (`changed` if any byte moved since verification), commits exactly
/// the verified change and, with `integrate`, lands it on the target branch (`conflict` names
/// the files and leaves the branch and working tree untouched). Every gate must have passed.
#[tauri::command]
#[specta::specta]
pub async fn approve_attempt(
    state: State<'_, AppState>,
    request: ApproveRequest,
) -> Result<AttemptReview, IpcError> {
    Ok(budgeted(
        state
            .require()?
            .approve_attempt(&request.id, &request.message, request.integrate)
            .await?,
    ))
}

/// Rejects the attempt with a reason and removes its worktree.
#[tauri::command]
#[specta::specta]
pub async fn reject_attempt(
    state: State<'_, AppState>,
    id: String,
    reason: String,
) -> Result<AttemptReview, IpcError> {
    Ok(budgeted(
        state.require()?.reject_attempt(&id, &reason).await?,
    ))
}

/// What Request changes sends.
#[derive(Debug, Clone, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ChangesRequest {
    pub id: String,
    /// The general comment (may be empty when there are line comments).
    pub comment: String,
    pub lines: Vec<LineComment>,
}

/// Supersedes the attempt; a new attempt of the same worker continues on the same worktree
/// with the comments as context. Returns the new attempt.
#[tauri::command]
#[specta::specta]
pub async fn request_changes(
    state: State<'_, AppState>,
    request: ChangesRequest,
) -> Result<AttemptSummary, IpcError> {
    Ok(state
        .require_arc()?
        .request_changes(&request.id, &request.comment, request.lines)
        .await?)
}

/// The same task for 2–5 workers, one attempt each, from the same pinned base.
#[tauri::command]
#[specta::specta]
pub async fn start_compare(
    state: State<'_, AppState>,
    request: AttemptRequest,
    workers: Vec<String>,
) -> Result<CompareSummary, IpcError> {
    Ok(state
        .require_arc()?
        .start_compare(request, workers, LAUNCHER)
        .await?)
}

/// A compare group with its attempts (oldest first).
#[tauri::command]
#[specta::specta]
pub async fn compare_group(
    state: State<'_, AppState>,
    id: String,
) -> Result<CompareSummary, IpcError> {
    Ok(state.require()?.compare_group(&id).await?)
}

/// What "Pick this one" sends.
#[derive(Debug, Clone, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PickRequest {
    pub compare: String,
    pub winner: String,
    pub message: String,
}

/// Approves and integrates the winner, rejects the other attempts of the group.
#[tauri::command]
#[specta::specta]
pub async fn pick_attempt(
    state: State<'_, AppState>,
    request: PickRequest,
) -> Result<AttemptReview, IpcError> {
    Ok(budgeted(
        state
            .require()?
            .pick_attempt(&request.compare, &request.winner, &request.message)
            .await?,
    ))
}

/// The repository around `repo`: top level, branch, head, uncommitted paths and the
/// verification commands detected from its files (for the New task form).
#[tauri::command]
#[specta::specta]
pub async fn detect_verification(
    state: State<'_, AppState>,
    repo: String,
) -> Result<RepoProbe, IpcError> {
    Ok(state.require()?.detect_verification(&repo).await?)
}

/// Asks the user for a repository folder in the OS dialog (raised here, never by the page);
/// `null` when they closed it.
#[tauri::command]
#[specta::specta]
pub async fn pick_repo_folder<R: Runtime>(app: AppHandle<R>) -> Result<Option<String>, IpcError> {
    Ok(crate::dialog::pick_folder(&app, "Choose a git repository").await)
}
