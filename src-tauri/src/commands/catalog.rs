//! Catalog commands: query, detail, compare, the metric registry, status, refresh (started in
//! the engine, with progress events carrying its id), "accept anyway" for held-back
//! snapshots, and match corrections.

use std::path::PathBuf;

use switchyard_core::catalog::card::ModelCard;
use switchyard_core::catalog::matching::MatchOverride;
use switchyard_core::catalog::query::ModelQuery;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::view::{
    CatalogMetrics, CatalogStatus, ModelDetail, ModelSummary, RefreshTicket,
};
use switchyard_engine::RefreshFrom;
use tauri::State;

use crate::{AppState, IpcError};

/// Models matching the query, as summaries for the table and the plot.
#[tauri::command]
#[specta::specta]
pub async fn list_models(
    state: State<'_, AppState>,
    query: ModelQuery,
) -> Result<Vec<ModelSummary>, IpcError> {
    Ok(state.require()?.models(&query).await?)
}

/// One model in full: every source's raw and normalized values, matches, and each category
/// score taken apart (weights, contributions, the inputs that did not count).
#[tauri::command]
#[specta::specta]
pub async fn get_model(state: State<'_, AppState>, id: String) -> Result<ModelDetail, IpcError> {
    Ok(state.require()?.model_detail(&id).await?)
}

/// The metric registry (labels, units, direction) and the category weights.
#[tauri::command]
#[specta::specta]
pub async fn catalog_metrics(state: State<'_, AppState>) -> Result<CatalogMetrics, IpcError> {
    Ok(state.require()?.catalog_metrics())
}

/// Two to five models side by side.
#[tauri::command]
#[specta::specta]
pub async fn compare_models(
    state: State<'_, AppState>,
    ids: Vec<String>,
) -> Result<Vec<ModelCard>, IpcError> {
    Ok(state.require()?.compare(&ids).await?)
}

/// Per-source dates, counts, errors and unmatched records.
#[tauri::command]
#[specta::specta]
pub async fn catalog_status(state: State<'_, AppState>) -> Result<CatalogStatus, IpcError> {
    Ok(state.require()?.catalog_status().await?)
}

/// Starts a refresh (from the network, or from a folder laid out like the corpus) and returns
/// at once with its id. Events `CatalogRefreshStarted`, `CatalogRefreshProgress` and
/// `CatalogRefreshed` carry that id. When a refresh is already running nothing new starts and
/// the ticket names the running one (`alreadyRunning`).
#[tauri::command]
#[specta::specta]
pub async fn refresh_catalog(
    state: State<'_, AppState>,
    from_dir: Option<String>,
) -> Result<RefreshTicket, IpcError> {
    let from = from_dir.map_or(RefreshFrom::Network, |dir| {
        RefreshFrom::Dir(PathBuf::from(dir))
    });
    Ok(state.require_arc()?.start_catalog_refresh(from)?)
}

/// "Accept anyway": applies the snapshot held back for `source` (zero records, or a drop of
/// more than half) without refetching; returns the new status. `notFound` if none is held.
#[tauri::command]
#[specta::specta]
pub async fn accept_held_snapshot(
    state: State<'_, AppState>,
    source: SourceId,
) -> Result<CatalogStatus, IpcError> {
    Ok(state.require()?.accept_held_snapshot(source).await?)
}

/// Ties a source record to a model, or refuses that match; applied on every refresh.
#[tauri::command]
#[specta::specta]
pub async fn set_match_override(
    state: State<'_, AppState>,
    correction: MatchOverride,
) -> Result<ModelDetail, IpcError> {
    Ok(state.require()?.set_match_override(correction).await?)
}

/// Forgets a stored correction; returns whether there was one.
#[tauri::command]
#[specta::specta]
pub async fn clear_match_override(
    state: State<'_, AppState>,
    source: SourceId,
    record: String,
    model_id: String,
) -> Result<bool, IpcError> {
    Ok(state
        .require()?
        .clear_match_override(source, &record, &model_id)
        .await?)
}
