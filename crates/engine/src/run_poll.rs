//! Reading a run for a caller that polls it from a long-lived process (an agent over MCP).
//! A run whose owner process died is marked interrupted by the next engine to open, or by
//! [`Engine::wait_run`]; a poller whose engine opened long before would otherwise see it
//! `running` forever.

use switchyard_core::run::RunDetail;

use crate::{Engine, EngineError};

impl Engine {
    /// Run `id`'s detail, after marking it `interrupted` if it is live and its owner is gone
    /// (as [`Engine::wait_run`] does). Errors: `NotFound`.
    pub async fn poll_run(&self, id: &str) -> Result<RunDetail, EngineError> {
        let row = self.run_row(id).await?;
        self.interrupt_run_if_orphaned(&row).await?;
        self.run_detail(id).await
    }
}
