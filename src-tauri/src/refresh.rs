//! Catalog refreshes in the app: on demand, and every six hours in the background.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use switchyard_engine::Engine;
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;

use crate::events::{CatalogRefreshProgress, CatalogRefreshed};

/// How often the background refresh runs.
pub const INTERVAL: Duration = Duration::from_secs(6 * 60 * 60);

/// Runs one refresh, forwarding progress and the outcome as typed events.
pub async fn run<R: Runtime>(app: AppHandle<R>, engine: Arc<Engine>, from_dir: Option<PathBuf>) {
    let emitter = app.clone();
    let progress = move |progress| {
        if let Err(error) = (CatalogRefreshProgress { progress }).emit(&emitter) {
            tracing::warn!(%error, "cannot emit CatalogRefreshProgress");
        }
    };
    let result = match from_dir {
        Some(dir) => engine.refresh_catalog_from_dir(&dir, &progress).await,
        None => engine.refresh_catalog_from_network(&progress).await,
    };
    let event = match result {
        Ok(report) => CatalogRefreshed {
            report: Some(report),
            error: None,
        },
        Err(error) => {
            tracing::warn!(%error, "catalog refresh failed");
            CatalogRefreshed {
                report: None,
                error: Some(crate::IpcError::from(error)),
            }
        }
    };
    if let Err(error) = event.emit(&app) {
        tracing::warn!(%error, "cannot emit CatalogRefreshed");
    }
}

/// Refreshes from the network when the last refresh is older than [`INTERVAL`], then every
/// [`INTERVAL`]. Offline machines just record the failures; the previous data stays.
/// `SWITCHYARD_NO_BACKGROUND_REFRESH=1` turns it off (tests, metered connections).
pub async fn background<R: Runtime>(app: AppHandle<R>, engine: Arc<Engine>) {
    if std::env::var("SWITCHYARD_NO_BACKGROUND_REFRESH").as_deref() == Ok("1") {
        return;
    }
    loop {
        let due = match engine.last_network_refresh().await {
            Ok(Some(last)) => chrono::DateTime::parse_from_rfc3339(&last)
                .map(|t| {
                    chrono::Utc::now()
                        .signed_duration_since(t)
                        .to_std()
                        .unwrap_or_default()
                })
                .map(|age| INTERVAL.saturating_sub(age))
                .unwrap_or_default(),
            _ => Duration::ZERO,
        };
        tokio::time::sleep(due.max(Duration::from_secs(30))).await;
        if !engine.catalog_refreshing() {
            run(app.clone(), engine.clone(), None).await;
        }
        tokio::time::sleep(INTERVAL).await;
    }
}
