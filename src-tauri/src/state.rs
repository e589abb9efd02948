use std::sync::Arc;

use switchyard_engine::Engine;

use crate::IpcError;

/// What every command gets: the engine, or the reason it could not start.
pub struct AppState {
    engine: Result<Arc<Engine>, IpcError>,
}

impl AppState {
    pub fn ready(engine: Arc<Engine>) -> Self {
        Self { engine: Ok(engine) }
    }

    pub fn failed(error: IpcError) -> Self {
        Self { engine: Err(error) }
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
