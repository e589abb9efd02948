//! Typed events (low rate, state changes). Ids go in payloads; names are never built at runtime.

use serde::{Deserialize, Serialize};
use specta::Type;
use switchyard_core::doctor::DoctorReport;
use tauri_specta::Event;

/// A fresh doctor report: sent once after start-up and after every `run_doctor`.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
pub struct DoctorUpdated {
    pub report: DoctorReport,
}
