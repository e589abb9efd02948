//! Typed events (low rate, state changes). Ids go in payloads; names are never built at runtime.
//!
//! Catalog refresh events are the engine's own ([`switchyard_engine::EngineEvent`]), forwarded
//! here by [`forward`]; every one carries its refresh's id. Run events carry the run's id and
//! the number of the log entry stored before they were sent.

use serde::{Deserialize, Serialize};
use specta::Type;
use switchyard_core::attempt::AttemptState;
use switchyard_core::catalog::view::{RefreshId, RefreshProgress, RefreshReport, RefreshTrigger};
use switchyard_core::doctor::DoctorReport;
use switchyard_core::run::{NodeState, RunState};
use switchyard_engine::{Engine, EngineEvent};
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;
use tokio::sync::broadcast::error::RecvError;

use crate::IpcError;

/// A fresh doctor report: sent once after start-up and after every `run_doctor`.
#[derive(Debug, Clone, Serialize, Deserialize, Type, Event)]
pub struct DoctorUpdated {
    pub report: DoctorReport,
}

/// A catalog refresh began (on request or on the engine's schedule). Exactly one
/// `CatalogRefreshed` with the same id follows.
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct CatalogRefreshStarted {
    pub refresh_id: RefreshId,
    pub trigger: RefreshTrigger,
    /// The folder imported from; `null` = the network.
    pub from_dir: Option<String>,
}

/// One step of a running catalog refresh (a source started, failed, was saved, held back…).
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct CatalogRefreshProgress {
    pub refresh_id: RefreshId,
    pub progress: RefreshProgress,
}

/// A catalog refresh ended: its per-source report, or why it stopped (`canceled` when the
/// app is closing).
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct CatalogRefreshed {
    pub refresh_id: RefreshId,
    pub report: Option<RefreshReport>,
    pub error: Option<IpcError>,
}

/// An attempt moved to a new state (persisted before this is sent). Pages reload the attempt;
/// worker output does not come this way but through `watch_attempt`'s channel.
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct AttemptStateChanged {
    pub attempt_id: String,
    pub state: AttemptState,
    /// Whether the attempt can still change on its own.
    pub live: bool,
}

/// A run moved to a new state (stored as event `seq` of its log before this is sent). Lists
/// reload; an open run page follows its run through `watch_run`.
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunStateChanged {
    pub run_id: String,
    pub state: RunState,
    /// Whether the run can still change.
    pub live: bool,
    pub seq: u32,
}

/// A node of a run moved to a new state (stored as event `seq`).
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunNodeChanged {
    pub run_id: String,
    pub node_id: String,
    pub state: NodeState,
    pub seq: u32,
}

/// A run's ledger moved: a call reserved its worst case or settled (stored as event `seq`).
#[derive(Debug, Clone, Serialize, Type, Event)]
#[serde(rename_all = "camelCase")]
pub struct RunBudgetChanged {
    pub run_id: String,
    pub spent_usd: f64,
    pub reserved_usd: f64,
    pub seq: u32,
}

/// Forwards the engine's events to the webview as the typed events above, until the engine
/// is gone. Call once per app, right after the engine starts.
pub fn forward<R: Runtime>(app: AppHandle<R>, engine: &Engine) {
    let mut events = engine.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => emit(&app, event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "the UI fell behind the engine's events");
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

fn emit<R: Runtime>(app: &AppHandle<R>, event: EngineEvent) {
    let sent = match event {
        EngineEvent::CatalogRefreshStarted {
            refresh_id,
            trigger,
            from_dir,
        } => CatalogRefreshStarted {
            refresh_id,
            trigger,
            from_dir,
        }
        .emit(app),
        EngineEvent::CatalogRefreshProgress {
            refresh_id,
            progress,
        } => CatalogRefreshProgress {
            refresh_id,
            progress,
        }
        .emit(app),
        EngineEvent::CatalogRefreshFinished {
            refresh_id,
            report,
            error,
        } => CatalogRefreshed {
            refresh_id,
            report,
            error: error.map(|e| IpcError::new(e.code, e.message)),
        }
        .emit(app),
        EngineEvent::AttemptState { attempt_id, state } => {
            crate::notify::attempt_state(app, &attempt_id, state);
            AttemptStateChanged {
                attempt_id,
                state,
                live: state.is_live(),
            }
            .emit(app)
        }
        EngineEvent::RunState { run_id, state, seq } => {
            crate::notify::run_state(app, &run_id, state);
            RunStateChanged {
                run_id,
                state,
                live: state.is_live(),
                seq,
            }
            .emit(app)
        }
        EngineEvent::RunNode {
            run_id,
            node_id,
            state,
            seq,
        } => RunNodeChanged {
            run_id,
            node_id,
            state,
            seq,
        }
        .emit(app),
        EngineEvent::RunBudget {
            run_id,
            spent_usd,
            reserved_usd,
            seq,
        } => RunBudgetChanged {
            run_id,
            spent_usd,
            reserved_usd,
            seq,
        }
        .emit(app),
        // Streamed text is high rate: it reaches the page only through `watch_run`.
        EngineEvent::RunOutput { .. } => Ok(()),
        _ => Ok(()),
    };
    if let Err(error) = sent {
        tracing::warn!(%error, "cannot emit an engine event");
    }
}
