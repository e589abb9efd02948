//! Recovering an interrupted attempt (its owner went away while it was live).
//!
//! An attempt whose worker ran is re-captured and re-gated, the worker is not run again: the
//! worktree holds what it did. One whose worker never ran (a detached owner that died before
//! adopting it) starts over: back to `queued` and through the whole pipeline, in the engine's
//! supervised task set like [`Engine::start_attempt`]. Either can instead be handed to a
//! detached process ([`Engine::recover_attempt_detached`], the CLI's `recover --detach`).

use std::sync::Arc;

use switchyard_core::attempt::{AttemptReview, AttemptState, AttemptSummary};
use switchyard_core::error::ErrorCode;
use switchyard_store::attempts::{AttemptChanges, AttemptRow};
use tokio_util::sync::CancellationToken;

use super::pipeline::Confined;
use super::record::{code_name, now_ms, summary};
use crate::handoff::Launch;
use crate::{Engine, EngineError};

impl Engine {
    /// Recovers interrupted attempt `id` under this engine's lease. If its worker ran: re-
    /// captures the worktree, re-runs the gates and the verification, and returns it in
    /// review (or failed, canceled). If its worker never ran: re-queues it, runs its pipeline
    /// in the background and returns it `queued` at once; follow it with
    /// [`Engine::wait_attempt`]. Cancel reaches both as any attempt this engine runs.
    ///
    /// Takes `self: &Arc<Self>` because a re-queued pipeline outlives the call.
    ///
    /// Errors: `NotFound` (no such attempt, or its worktree is gone: it is then `failed`);
    /// `InvalidInput` when it is not interrupted; `Busy` when another action took it first;
    /// `Canceled` when the engine is closing.
    pub async fn recover_attempt(self: &Arc<Self>, id: &str) -> Result<AttemptReview, EngineError> {
        let row = self.interrupted_row(id).await?;
        let token = self.owner.token.clone();
        if self.never_ran(&row) {
            self.take_for_recovery(&row, AttemptState::Queued, &token)
                .await?;
            self.spawn_pipeline(id).await?;
            return self.attempt_review(id).await;
        }
        self.take_for_recovery(&row, AttemptState::Verifying, &token)
            .await?;
        let cancel = self.supervisor.cancellation();
        self.attempts.running.insert(id, cancel.clone());
        let result = self.recover_owned(id, &cancel).await;
        self.attempts.running.remove(id);
        result?;
        self.attempt_review(id).await
    }

    /// Like [`Engine::recover_attempt`], but the recovery runs in the process `launch` starts
    /// (see `detach`); returns once that process is recorded as the owner, with the attempt
    /// `queued` (its worker never ran) or `verifying`.
    ///
    /// Errors: as [`Engine::recover_attempt`]; `Internal` when `launch` fails (the attempt is
    /// then `failed` with the reason).
    pub async fn recover_attempt_detached(
        &self,
        id: &str,
        launch: &mut Launch<'_>,
    ) -> Result<AttemptSummary, EngineError> {
        let row = self.interrupted_row(id).await?;
        let state = if self.never_ran(&row) {
            AttemptState::Queued
        } else {
            AttemptState::Verifying
        };
        let token = self.owner.new_handoff();
        let result = async {
            self.take_for_recovery(&row, state, &token).await?;
            self.launch_handed(id, state, &token, launch).await
        }
        .await;
        self.owner.release(&token);
        result?;
        Ok(summary(&self.attempt_row(id).await?, now_ms()))
    }

    /// The row of `id`, which must be interrupted (`InvalidInput` otherwise).
    async fn interrupted_row(&self, id: &str) -> Result<AttemptRow, EngineError> {
        let row = self.attempt_row(id).await?;
        if row.state != AttemptState::Interrupted {
            return Err(EngineError::InvalidInput(format!(
                "attempt {id} is {}; only an interrupted attempt can be recovered",
                row.state.as_str()
            )));
        }
        Ok(row)
    }

    /// Moves interrupted `row` to `to` leased by this process under `token`, forgetting its
    /// old error and any cancel asked for before it was interrupted. `Busy` when another
    /// action or process moved it first.
    async fn take_for_recovery(
        &self,
        row: &AttemptRow,
        to: AttemptState,
        token: &str,
    ) -> Result<(), EngineError> {
        let note = match to {
            AttemptState::Queued => "recovering: its worker never ran, so it starts over",
            _ => "recovering: re-running the gates",
        };
        let taken = self
            .move_attempt(
                row,
                to,
                None,
                AttemptChanges::new()
                    .owner(self.owner.pid, token, now_ms())
                    .clear_error()
                    .clear_cancel_request(),
                Some(note.into()),
            )
            .await?;
        if !taken {
            return Err(EngineError::Busy(format!(
                "attempt {} is being recovered elsewhere",
                row.id
            )));
        }
        Ok(())
    }

    /// Whether interrupted `row` never got as far as its worker: no start time and no
    /// worktree of its own (a detached owner that died before adopting it).
    pub(crate) fn never_ran(&self, row: &AttemptRow) -> bool {
        let home = std::fs::canonicalize(self.home()).unwrap_or_else(|_| self.home().to_owned());
        row.started_ms.is_none()
            && row.worktree_id == row.id
            && !home.join("worktrees").join(&row.id).exists()
    }

    /// Runs the recovery of `id` (leased `verifying` by this engine) in the supervisor.
    pub(crate) async fn spawn_recovery(self: &Arc<Self>, id: &str) -> Result<(), EngineError> {
        let cancel = self.supervisor.cancellation();
        self.attempts.running.insert(id, cancel.clone());
        let engine = self.clone();
        let task_id = id.to_owned();
        let started = self.supervisor.spawn("attempt recovery", async move {
            if let Err(error) = engine.recover_owned(&task_id, &cancel).await {
                tracing::warn!(attempt = %task_id, %error, "recovery failed");
            }
            engine.attempts.running.remove(&task_id);
        });
        if !started {
            self.attempts.running.remove(id);
            return Err(EngineError::Canceled("the engine is closing".into()));
        }
        Ok(())
    }

    /// Re-captures and re-gates `id` (leased `verifying` by this engine) beside its heartbeat;
    /// a failure ends it `failed` (or `canceled`) with the error, which is returned.
    async fn recover_owned(&self, id: &str, cancel: &CancellationToken) -> Result<(), EngineError> {
        let token = self.owner.token.clone();
        let result = self
            .with_heartbeat(id, cancel, self.recover_leased(id, cancel))
            .await;
        let Err(error) = result else {
            return Ok(());
        };
        let row = self.attempt_row(id).await?;
        if row.state.is_live() && row.owner_token.as_deref() == Some(token.as_str()) {
            let (to, code) = if cancel.is_cancelled() {
                (AttemptState::Canceled, ErrorCode::Canceled)
            } else {
                (AttemptState::Failed, error.code())
            };
            self.move_attempt(
                &row,
                to,
                Some(&token),
                AttemptChanges::new()
                    .release()
                    .finished_ms(now_ms())
                    .error(&code_name(code), &error.to_string()),
                Some(error.to_string()),
            )
            .await?;
        }
        Err(error)
    }

    async fn recover_leased(
        &self,
        id: &str,
        cancel: &CancellationToken,
    ) -> Result<(), EngineError> {
        let row = self.attempt_row(id).await?;
        let worktree = self.attempt_worktree(&row, false).await?;
        // The worker ran before the interruption; its confinement cannot be re-checked, but the
        // verification runs confined again and what it changes outside the worktree is caught.
        let (jail, snapshot) = self.confine_attempt(&row, &worktree).await?;
        let scratch = self.home().join("scratch").join(id);
        let confined = Confined {
            jail: &jail,
            snapshot: &snapshot,
            outside: Vec::new(),
        };
        let checked = self
            .check_worktree(&row, &worktree, true, cancel, confined)
            .await;
        if scratch.exists() {
            let _ = std::fs::remove_dir_all(&scratch);
        }
        checked?;
        if cancel.is_cancelled() {
            return Err(EngineError::Canceled("canceled during verification".into()));
        }
        self.advance_owned(
            id,
            AttemptState::Review,
            AttemptChanges::new().release().finished_ms(now_ms()),
            None,
        )
        .await?;
        Ok(())
    }
}
