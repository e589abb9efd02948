//! The engine's domain events, published through [`crate::Engine::subscribe`].
//!
//! The desktop shell forwards each as a typed tauri-specta event; the CLI can print them.
//! Every event names the piece of work it belongs to by id (a refresh, later a run), so a
//! subscriber follows the work it started and ignores the rest. Events are low rate and never
//! carry a secret: error texts pass through the same redaction as stored errors.

use serde::Serialize;
use switchyard_core::attempt::{AttemptLogEntry, AttemptState};
use switchyard_core::catalog::view::{RefreshId, RefreshProgress, RefreshReport, RefreshTrigger};
use switchyard_core::error::ErrorCode;
use switchyard_core::run::{NodeState, RunState};

use crate::EngineError;

/// An error as events carry it: the code the UI switches on and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventError {
    pub code: ErrorCode,
    pub message: String,
}

impl From<&EngineError> for EventError {
    fn from(error: &EngineError) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

/// Something the engine did on its own or on request. New kinds are added as the engine
/// grows (runs, nodes); match with a wildcard arm.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum EngineEvent {
    /// A catalog refresh began. Always followed, eventually, by exactly one
    /// [`EngineEvent::CatalogRefreshFinished`] with the same id.
    #[serde(rename_all = "camelCase")]
    CatalogRefreshStarted {
        refresh_id: RefreshId,
        trigger: RefreshTrigger,
        /// The folder imported from; `None` = the network.
        from_dir: Option<String>,
    },
    /// One step of a running refresh (a source fetched, saved, held back, failed…).
    #[serde(rename_all = "camelCase")]
    CatalogRefreshProgress {
        refresh_id: RefreshId,
        progress: RefreshProgress,
    },
    /// A refresh ended: its per-source report, or why it stopped (`canceled` when the engine
    /// closed under it).
    #[serde(rename_all = "camelCase")]
    CatalogRefreshFinished {
        refresh_id: RefreshId,
        report: Option<RefreshReport>,
        error: Option<EventError>,
    },
    /// An attempt moved to `state` (already stored).
    #[serde(rename_all = "camelCase")]
    AttemptState {
        attempt_id: String,
        state: AttemptState,
    },
    /// An entry was appended to an attempt's log (already stored with its `seq`): worker
    /// output, a gate result, a state change. High rate while a worker runs; a subscriber
    /// that lags replays from `Engine::attempt_log`.
    #[serde(rename_all = "camelCase")]
    AttemptLog {
        attempt_id: String,
        entry: AttemptLogEntry,
    },
    /// A run moved to `state` (already stored as event `seq` of its log).
    #[serde(rename_all = "camelCase")]
    RunState {
        run_id: String,
        state: RunState,
        seq: u32,
    },
    /// A node of a run moved to `state` (already stored as event `seq`).
    #[serde(rename_all = "camelCase")]
    RunNode {
        run_id: String,
        node_id: String,
        state: NodeState,
        seq: u32,
    },
    /// A run's ledger moved (a call reserved or finished; already stored as event `seq`).
    #[serde(rename_all = "camelCase")]
    RunBudget {
        run_id: String,
        spent_usd: f64,
        reserved_usd: f64,
        seq: u32,
    },
    /// Streamed text of a running text node, not stored per delta: `text` replaces the
    /// node's live text from byte `offset` on (a cascade's next rung starts again at 0). The
    /// whole output is stored as the node's artifact when it is done; a page opened late
    /// reads `Engine::run_output` and follows these from there.
    #[serde(rename_all = "camelCase")]
    RunOutput {
        run_id: String,
        node_id: String,
        offset: u64,
        text: String,
    },
}

impl EngineEvent {
    /// The refresh this event belongs to, if it is a catalog refresh event.
    pub fn refresh_id(&self) -> Option<RefreshId> {
        match self {
            EngineEvent::CatalogRefreshStarted { refresh_id, .. }
            | EngineEvent::CatalogRefreshProgress { refresh_id, .. }
            | EngineEvent::CatalogRefreshFinished { refresh_id, .. } => Some(*refresh_id),
            _ => None,
        }
    }

    /// The attempt this event belongs to, if it is an attempt event.
    pub fn attempt_id(&self) -> Option<&str> {
        match self {
            EngineEvent::AttemptState { attempt_id, .. }
            | EngineEvent::AttemptLog { attempt_id, .. } => Some(attempt_id),
            _ => None,
        }
    }

    /// The run this event belongs to, if it is a run event.
    pub fn run_id(&self) -> Option<&str> {
        match self {
            EngineEvent::RunState { run_id, .. }
            | EngineEvent::RunNode { run_id, .. }
            | EngineEvent::RunBudget { run_id, .. }
            | EngineEvent::RunOutput { run_id, .. } => Some(run_id),
            _ => None,
        }
    }
}
