//! Typed events (low rate, state changes). Ids go in payloads; names are never built at runtime.

use serde::{Deserialize, Serialize};
use specta::Type;
use switchyard_core::catalog::view::{RefreshProgress, RefreshReport};
use switchyard_core::doctor::DoctorReport;
use tauri_specta::Event;

/// A fresh doctor report: sent once after start-up and after every `run_doctor`.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
pub struct DoctorUpdated {
    pub report: DoctorReport,
}

/// One step of a running catalog refresh (a source started, failed, was saved…).
#[derive(Debug, Clone, Serialize, Type, Event)]
pub struct CatalogRefreshProgress {
    pub progress: RefreshProgress,
}

/// A catalog refresh ended: its per-source report, or why it could not run at all.
#[derive(Debug, Clone, Serialize, Type, Event)]
pub struct CatalogRefreshed {
    pub report: Option<RefreshReport>,
    pub error: Option<crate::IpcError>,
}
