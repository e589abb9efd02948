//! Settings → "Connect an agent": the MCP configuration snippets for each agent host, and
//! whether agents may approve what they delegated.

use std::path::{Path, PathBuf};

use switchyard_core::agent_connect::AgentConnect;
use tauri::State;

use crate::{AppState, IpcError};

/// The snippet each MCP host (Claude Code, Codex, Claude Desktop, Cursor, generic stdio) takes
/// to start `switchyard mcp`, with the absolute path of the `switchyard` binary found next to
/// the app, else on `PATH` (the result says when none was found), and the approve setting.
#[tauri::command]
#[specta::specta]
pub async fn agent_connect_configs(state: State<'_, AppState>) -> Result<AgentConnect, IpcError> {
    Ok(state.require()?.agent_connect(app_dir().as_deref()).await?)
}

/// Lets agents approve attempts and runs whose gates all passed (`true`), or keeps approval
/// with the human (`false`, the default). MCP servers started afterwards follow it. Returns
/// the snippets with the setting as stored.
#[tauri::command]
#[specta::specta]
pub async fn set_agents_may_approve(
    state: State<'_, AppState>,
    allowed: bool,
) -> Result<AgentConnect, IpcError> {
    let engine = state.require()?;
    engine.set_agents_may_approve(allowed).await?;
    Ok(engine.agent_connect(app_dir().as_deref()).await?)
}

/// The folder of the app's executable: an installed `switchyard` is looked for there first.
fn app_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
}
