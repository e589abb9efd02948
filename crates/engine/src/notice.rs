//! What a desktop notification says about a job: read the job, word it (`core::notice`).

use switchyard_core::attempt::AttemptState;
use switchyard_core::notice::{attempt_notice, run_notice, Notice};
use switchyard_core::run::RunState;

use crate::{Engine, EngineError};

impl Engine {
    /// The notification for attempt `id` having reached `state`, or `None` when that needs
    /// no notification. Errors: `NotFound`.
    pub async fn attempt_notice(
        &self,
        id: &str,
        state: AttemptState,
    ) -> Result<Option<Notice>, EngineError> {
        Ok(attempt_notice(state, &self.attempt_summary(id).await?))
    }

    /// The notification for run `id` having reached `state`, or `None` when that needs no
    /// notification. Errors: `NotFound`.
    pub async fn run_notice(
        &self,
        id: &str,
        state: RunState,
    ) -> Result<Option<Notice>, EngineError> {
        Ok(run_notice(state, &self.run_summary(id).await?))
    }
}
