use std::sync::Arc;

use switchyard_core::error::ErrorCode;
use switchyard_engine::Engine;

use crate::dialog::KeyMoveConfirmation;
use crate::IpcError;

/// What every command gets: the engine, or the reason it could not start; and the native
/// confirmation dialog the key commands ask the user through.
pub struct AppState {
    engine: Result<Arc<Engine>, IpcError>,
    key_move: Option<Arc<dyn KeyMoveConfirmation>>,
}

impl AppState {
    pub fn ready(engine: Arc<Engine>) -> Self {
        Self {
            engine: Ok(engine),
            key_move: None,
        }
    }

    pub fn failed(error: IpcError) -> Self {
        Self {
            engine: Err(error),
            key_move: None,
        }
    }

    /// Sets how the user is asked before a stored key moves to a new origin.
    pub fn with_key_move_confirmation(mut self, dialog: Arc<dyn KeyMoveConfirmation>) -> Self {
        self.key_move = Some(dialog);
        self
    }

    /// The confirmation dialog; `internal` when none was set up (nothing can be confirmed).
    pub fn key_move_confirmation(&self) -> Result<Arc<dyn KeyMoveConfirmation>, IpcError> {
        self.key_move.clone().ok_or_else(|| {
            IpcError::new(
                ErrorCode::Internal,
                "no confirmation dialog is available, so the key cannot be moved",
            )
        })
    }

    /// The engine, for background tasks started at setup.
    pub fn engine(&self) -> Option<Arc<Engine>> {
        self.engine.as_ref().ok().cloned()
    }

    /// The shared engine, for work that outlives the command (background refreshes).
    pub fn require_arc(&self) -> Result<Arc<Engine>, IpcError> {
        self.engine.clone()
    }

    /// The engine, or the start-up error for the UI to show.
    pub fn require(&self) -> Result<&Engine, IpcError> {
        self.engine.as_deref().map_err(Clone::clone)
    }
}
