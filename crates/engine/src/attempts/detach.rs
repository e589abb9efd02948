//! Detached attempts: an attempt handed to another process the way every job is
//! (`crate::handoff`), leased `queued` (the whole pipeline runs there) or, by
//! [`Engine::recover_attempt_detached`], `verifying` (re-capture and gates).

use std::sync::Arc;

use switchyard_core::attempt::{AttemptRequest, AttemptState, AttemptSummary};
use switchyard_store::attempts::AttemptChanges;

use super::record::{now_ms, summary};
use super::start::{Origin, Prepared};
use crate::handoff::{JobKind, Launch};
use crate::{Engine, EngineError};

impl Engine {
    /// Like [`Engine::start_attempt`], but the attempt is run by the process `launch` starts:
    /// recorded `queued` under a hand-off token, `launch` called with it, the returned pid
    /// recorded as the owner. Returns once that is stored; this engine never runs the
    /// attempt, and may close at once without canceling it.
    ///
    /// Errors: as [`Engine::start_attempt`]; `Internal` when `launch` fails (the attempt is
    /// then recorded as failed with that reason).
    pub async fn start_attempt_detached(
        self: &Arc<Self>,
        req: AttemptRequest,
        launcher: &str,
        launch: &mut Launch<'_>,
    ) -> Result<AttemptSummary, EngineError> {
        let prepared = self.prepare_attempt(req).await?;
        let worker = prepared.request.worker.clone();
        self.launch_detached(&prepared, &worker, launcher, Origin::default(), launch)
            .await
    }

    /// Records one attempt and hands it to the process `launch` starts.
    pub(crate) async fn launch_detached(
        &self,
        prepared: &Prepared,
        worker: &str,
        launcher: &str,
        origin: Origin,
        launch: &mut Launch<'_>,
    ) -> Result<AttemptSummary, EngineError> {
        let token = self.owner.new_handoff();
        let result = self
            .hand_off(prepared, worker, launcher, origin, &token, launch)
            .await;
        self.owner.release(&token);
        result
    }

    async fn hand_off(
        &self,
        prepared: &Prepared,
        worker: &str,
        launcher: &str,
        origin: Origin,
        token: &str,
        launch: &mut Launch<'_>,
    ) -> Result<AttemptSummary, EngineError> {
        let id = self
            .record_attempt(prepared, worker, launcher, origin, token)
            .await?;
        self.launch_handed(&id, AttemptState::Queued, token, launch)
            .await?;
        Ok(summary(&self.attempt_row(&id).await?, now_ms()))
    }

    /// Step 2 of the hand-off for attempt `id`, leased in `state` under hand-off `token`:
    /// starts the new owner with `launch` and records its pid. A launch that fails ends the
    /// attempt `failed` with the reason (`Internal`).
    pub(crate) async fn launch_handed(
        &self,
        id: &str,
        state: AttemptState,
        token: &str,
        launch: &mut Launch<'_>,
    ) -> Result<(), EngineError> {
        let launched = self
            .launch_owner(JobKind::Attempt, id, state.as_str(), token, launch)
            .await?;
        let Err(reason) = launched else {
            return Ok(());
        };
        let message = format!("could not start the process to run the attempt: {reason}");
        let row = self.attempt_row(id).await?;
        self.move_attempt(
            &row,
            AttemptState::Failed,
            Some(token),
            AttemptChanges::new()
                .release()
                .finished_ms(now_ms())
                .error("internal", &message),
            Some(message.clone()),
        )
        .await?;
        Err(EngineError::Internal(message))
    }

    /// Takes over attempt `id` handed to this process under `token` (see the module docs) and
    /// runs it here: the pipeline for a `queued` attempt, the re-capture and gates for one
    /// handed over `verifying` by [`Engine::recover_attempt_detached`]. Follow it with
    /// [`Engine::wait_attempt`].
    ///
    /// Errors: `NotFound`; `Busy` when the attempt is no longer handed over under that token
    /// (adopted already, interrupted, canceled); `Canceled` when the engine is closing.
    pub async fn adopt_attempt(
        self: &Arc<Self>,
        id: &str,
        token: &str,
    ) -> Result<AttemptSummary, EngineError> {
        let row = self.attempt_row(id).await?;
        let state = match row.state {
            AttemptState::Verifying => AttemptState::Verifying,
            _ => AttemptState::Queued,
        };
        self.adopt_lease(
            JobKind::Attempt,
            id,
            state.as_str(),
            token,
            row.state.as_str(),
        )
        .await?;
        if state == AttemptState::Verifying {
            self.spawn_recovery(id).await?;
        } else {
            self.spawn_pipeline(id).await?;
        }
        Ok(summary(&self.attempt_row(id).await?, now_ms()))
    }
}
