//! Worker CLI and worktree settings: which agent CLIs are installed (and where), the path set
//! for each, worktree disk usage and how long failed attempts keep their worktrees.

use switchyard_core::confinement::ConfinementSupport;
use switchyard_core::doctor::{WorkerCliStatus, WorktreePrune, WorktreeUsage};
use switchyard_core::worker::WorkerCli;
use tauri::State;

use crate::{AppState, IpcError};

/// Every adapter (claude, codex, gemini, opencode, aider): installed with its version and
/// where it was found, or missing and why.
#[tauri::command]
#[specta::specta]
pub async fn list_worker_clis(
    state: State<'_, AppState>,
) -> Result<Vec<WorkerCliStatus>, IpcError> {
    Ok(state.require()?.worker_clis().await?)
}

/// Sets the executable used for `cli` (`null` or blank clears it, back to `PATH`); fails with
/// `invalidInput` when it is not an absolute path to an executable file. Returns the adapter
/// as found afterwards.
#[tauri::command]
#[specta::specta]
pub async fn set_worker_path(
    state: State<'_, AppState>,
    cli: WorkerCli,
    path: Option<String>,
) -> Result<WorkerCliStatus, IpcError> {
    Ok(state
        .require()?
        .set_worker_path(cli, path.as_deref())
        .await?)
}

/// Settings → Agent CLIs → "Use the CLI's own account": `true` runs `cli` on its own login
/// or settings (Switchyard passes it no key and writes no configuration for it), `false`
/// on Switchyard's key when it holds one. Returns the adapter as found afterwards.
#[tauri::command]
#[specta::specta]
pub async fn set_worker_account(
    state: State<'_, AppState>,
    cli: WorkerCli,
    own: bool,
) -> Result<WorkerCliStatus, IpcError> {
    Ok(state.require()?.set_worker_own_account(cli, own).await?)
}

/// Bytes and count of attempt worktrees in the data directory, with the retention setting.
#[tauri::command]
#[specta::specta]
pub async fn worktree_usage(state: State<'_, AppState>) -> Result<WorktreeUsage, IpcError> {
    Ok(state.require()?.worktree_usage().await?)
}

/// Applies the retention now ("Remove old worktrees now"): removes the worktrees, branches and
/// detached logs of attempts that ended without integrating longer ago than the retention;
/// those live, in review or approved stay. Returns what went and the usage afterwards.
#[tauri::command]
#[specta::specta]
pub async fn prune_worktrees(state: State<'_, AppState>) -> Result<WorktreePrune, IpcError> {
    Ok(state.require()?.prune_worktrees().await?)
}

/// Sets how many days failed, canceled or interrupted attempts keep their worktrees (0–3650);
/// returns the usage with the new setting.
#[tauri::command]
#[specta::specta]
pub async fn set_worktree_retention(
    state: State<'_, AppState>,
    days: u32,
) -> Result<WorktreeUsage, IpcError> {
    let engine = state.require()?;
    engine.set_worktree_retention_days(days).await?;
    Ok(engine.worktree_usage().await?)
}

/// What confines workers on this machine: bubblewrap (with its version), socat for the
/// provider-only network, why not when not, and "Allow unconfined workers".
#[tauri::command]
#[specta::specta]
pub async fn confinement_support(
    state: State<'_, AppState>,
) -> Result<ConfinementSupport, IpcError> {
    Ok(state.require()?.confinement_support().await?)
}

/// Settings → Workers → "Allow unconfined workers" (off by default): where no sandbox is
/// available, workers may then run as the user. Returns the support with the new setting.
#[tauri::command]
#[specta::specta]
pub async fn set_allow_unconfined(
    state: State<'_, AppState>,
    allowed: bool,
) -> Result<ConfinementSupport, IpcError> {
    let engine = state.require()?;
    engine.set_allow_unconfined(allowed).await?;
    Ok(engine.confinement_support().await?)
}
