//! Roles composer commands: the block library, composing, presets, custom blocks and the
//! roles file. Each one delegates to the engine; the rules live in `switchyard_core::roles`.

use switchyard_core::roles::{
    ComposeRequest, ComposedRole, CustomBlockInput, ImportMode, ImportReport, RoleBlock, RolePreset,
};
use tauri::State;

use crate::{AppState, IpcError};

/// Every block the pickers offer: built-ins by kind, then the user's custom blocks.
#[tauri::command]
#[specta::specta]
pub async fn list_role_blocks(state: State<'_, AppState>) -> Result<Vec<RoleBlock>, IpcError> {
    Ok(state.require()?.role_blocks().await?)
}

/// Composes the full prompt for a selection and a task. Unknown ids come back as warnings;
/// an empty task is `invalidInput`, an unknown preset `notFound`.
#[tauri::command]
#[specta::specta]
pub async fn compose_role(
    state: State<'_, AppState>,
    request: ComposeRequest,
) -> Result<ComposedRole, IpcError> {
    Ok(state.require()?.compose_role(request).await?)
}

/// Every saved preset, by name.
#[tauri::command]
#[specta::specta]
pub async fn list_role_presets(state: State<'_, AppState>) -> Result<Vec<RolePreset>, IpcError> {
    Ok(state.require()?.list_role_presets().await?)
}

/// Saves a preset under its name (replacing one with the same name); returns it as stored.
#[tauri::command]
#[specta::specta]
pub async fn save_role_preset(
    state: State<'_, AppState>,
    preset: RolePreset,
) -> Result<RolePreset, IpcError> {
    Ok(state.require()?.save_role_preset(preset).await?)
}

/// Renames preset `from` to `to`; `notFound` when `from` is missing, `invalidInput` when `to`
/// is invalid or taken.
#[tauri::command]
#[specta::specta]
pub async fn rename_role_preset(
    state: State<'_, AppState>,
    from: String,
    to: String,
) -> Result<RolePreset, IpcError> {
    Ok(state.require()?.rename_role_preset(&from, &to).await?)
}

/// Copies a preset, as `new_name` or as `<name> copy` (numbered when taken); returns the copy.
#[tauri::command]
#[specta::specta]
pub async fn duplicate_role_preset(
    state: State<'_, AppState>,
    name: String,
    new_name: Option<String>,
) -> Result<RolePreset, IpcError> {
    Ok(state
        .require()?
        .duplicate_role_preset(&name, new_name.as_deref())
        .await?)
}

/// Deletes a preset; `notFound` when it does not exist.
#[tauri::command]
#[specta::specta]
pub async fn delete_role_preset(state: State<'_, AppState>, name: String) -> Result<(), IpcError> {
    Ok(state.require()?.delete_role_preset(&name).await?)
}

/// Adds a custom block; its id (`custom:<slug of the title>`) is assigned here and returned.
#[tauri::command]
#[specta::specta]
pub async fn add_custom_block(
    state: State<'_, AppState>,
    input: CustomBlockInput,
) -> Result<RoleBlock, IpcError> {
    Ok(state.require()?.add_custom_block(input).await?)
}

/// Replaces the content of custom block `id`; built-in blocks are `notFound` (read-only).
#[tauri::command]
#[specta::specta]
pub async fn update_custom_block(
    state: State<'_, AppState>,
    id: String,
    input: CustomBlockInput,
) -> Result<RoleBlock, IpcError> {
    Ok(state.require()?.update_custom_block(&id, input).await?)
}

/// Deletes custom block `id`; presets naming it keep the id and warn when composing.
#[tauri::command]
#[specta::specta]
pub async fn delete_custom_block(state: State<'_, AppState>, id: String) -> Result<(), IpcError> {
    Ok(state.require()?.delete_custom_block(&id).await?)
}

/// The roles file (every custom block and preset) as JSON text, for the UI to save.
#[tauri::command]
#[specta::specta]
pub async fn export_roles(state: State<'_, AppState>) -> Result<String, IpcError> {
    Ok(state.require()?.export_roles().await?)
}

/// Imports a roles file given as JSON text. All or nothing: a malformed file is
/// `invalidInput` naming the first problem, and nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn import_roles(
    state: State<'_, AppState>,
    json: String,
    mode: ImportMode,
) -> Result<ImportReport, IpcError> {
    Ok(state.require()?.import_roles(&json, mode).await?)
}
