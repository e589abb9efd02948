//! Canceling and recovering runs.
//!
//! Cancel stops every in-flight call of the run at once (their futures are dropped, closing
//! the connections) and returns when the run is `canceled`; a run another process executes
//! is asked to cancel through the store and followed until it is. Recover takes an
//! interrupted run over: calls its dead owner left in flight count as spent at their
//! reservation, finished nodes whose output artifact still matches its SHA-256 are kept and
//! never called again, interrupted nodes are pending again, and the run executes from there.

use std::sync::Arc;
use std::time::Duration;

use switchyard_core::run::{NodeState, RunReason, RunState, RunSummary};
use switchyard_store::runs::nodes::NodeChanges;
use switchyard_store::runs::RunChanges;

use super::artifacts::read_output;
use super::driver::Stop;
use super::now_ms;
use crate::{Engine, EngineError};

/// How long cancel follows a run executed by another process before giving up.
const FOREIGN_CANCEL_WAIT: Duration = Duration::from_secs(10);

impl Engine {
    /// Cancels run `id` and returns it once `canceled`: in this engine every in-flight call
    /// stops at once; a run another process executes is asked to cancel and followed; a
    /// paused or interrupted run is canceled directly.
    ///
    /// Errors: `NotFound`; `InvalidInput` when the run is no longer live, paused or
    /// interrupted; `Busy` when another process did not cancel it in time.
    pub async fn cancel_run(&self, id: &str) -> Result<RunSummary, EngineError> {
        let row = self.run_row(id).await?;
        if let Some(control) = self.runs.control(id) {
            control.stop(Stop::Canceled);
            self.wait_run(id).await?;
            return self.run_summary(id).await;
        }
        match row.state {
            RunState::Paused | RunState::Interrupted => {
                self.cancel_free(&row).await?;
                self.run_summary(id).await
            }
            state if state.is_live() => {
                if self.interrupt_run_if_orphaned(&row).await? {
                    let row = self.run_row(id).await?;
                    self.cancel_free(&row).await?;
                    return self.run_summary(id).await;
                }
                self.store()
                    .request_cancel(switchyard_store::lease::Leased::Run, id, now_ms())
                    .await?;
                let deadline = tokio::time::Instant::now() + FOREIGN_CANCEL_WAIT;
                loop {
                    let row = self.run_row(id).await?;
                    if !row.state.is_live() {
                        return self.run_summary(id).await;
                    }
                    if tokio::time::Instant::now() >= deadline {
                        return Err(EngineError::Busy(format!(
                            "run {id} is executed by another Switchyard process (pid {}), which \
                             has not canceled it yet; it will when it sees the request",
                            row.owner_pid.unwrap_or_default()
                        )));
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
            state => Err(EngineError::InvalidInput(format!(
                "run {id} is {}; only a live, paused or interrupted run can be canceled",
                state.as_str()
            ))),
        }
    }

    /// Cancels a run nobody executes (paused or interrupted): its unfinished nodes first.
    async fn cancel_free(&self, row: &switchyard_store::runs::RunRow) -> Result<(), EngineError> {
        for node in self.store().run_nodes(&row.id).await? {
            if matches!(node.state, NodeState::Pending | NodeState::Interrupted) {
                self.move_node(
                    &row.id,
                    &node.node_id,
                    node.state,
                    NodeState::Canceled,
                    None,
                    NodeChanges::new().finished_ms(Some(now_ms())),
                    None,
                )
                .await?;
            }
        }
        let changes = RunChanges::new().finished_ms(Some(now_ms()));
        if !self
            .move_run(
                row,
                RunState::Canceled,
                None,
                Some(RunReason::Canceled),
                changes,
                None,
            )
            .await?
        {
            return Err(EngineError::Busy(format!(
                "run {} changed meanwhile; look again",
                row.id
            )));
        }
        Ok(())
    }

    /// Recovers interrupted run `id` in this engine (see the module documentation) and
    /// returns once it is queued again; follow it with [`Engine::wait_run`].
    ///
    /// Errors: `NotFound`; `InvalidInput` when the run is not interrupted; `Busy` when
    /// another process recovered it first.
    pub async fn recover_run(self: &Arc<Self>, id: &str) -> Result<RunSummary, EngineError> {
        let token = self.owner.token.clone();
        self.requeue_interrupted(id, &token).await?;
        // Read before it starts, so the caller sees it queued.
        let summary = self.run_summary(id).await?;
        self.spawn_run(id)?;
        Ok(summary)
    }

    /// The first half of recovering interrupted run `id`: takes its lease for `token` (with
    /// this pid), resets it (see the module documentation) and records it `queued`; the
    /// lease's holder then executes it.
    pub(super) async fn requeue_interrupted(
        &self,
        id: &str,
        token: &str,
    ) -> Result<(), EngineError> {
        let mut row = self.run_row(id).await?;
        if row.state.is_live() && self.interrupt_run_if_orphaned(&row).await? {
            row = self.run_row(id).await?;
        }
        if row.state != RunState::Interrupted {
            return Err(EngineError::InvalidInput(format!(
                "run {id} is {}; only an interrupted run can be recovered",
                row.state.as_str()
            )));
        }
        // Take the lease first: the nodes and calls change only under it.
        let take = RunChanges::new().owner(self.owner.pid, token, now_ms());
        let guard = switchyard_store::runs::RunGuard {
            state: RunState::Interrupted,
            owner: None,
        };
        if !self.store().update_run(id, guard, now_ms(), &take).await? {
            return Err(EngineError::Busy(format!(
                "run {id} was taken over by another process; look again"
            )));
        }
        let result = self.reset_for_recovery(id, token).await;
        let row = self.run_row(id).await?;
        if let Err(error) = result {
            // Give the lease back; the run stays interrupted.
            let release = RunChanges::new().release();
            let guard = switchyard_store::runs::RunGuard {
                state: RunState::Interrupted,
                owner: Some(token),
            };
            self.store()
                .update_run(id, guard, now_ms(), &release)
                .await?;
            return Err(error);
        }
        let changes = RunChanges::new().clear_cancel_request().finished_ms(None);
        if !self
            .move_run(
                &row,
                RunState::Queued,
                Some(token),
                None,
                changes,
                Some("recovered".into()),
            )
            .await?
        {
            return Err(EngineError::Busy(format!(
                "run {id} changed meanwhile; look again"
            )));
        }
        Ok(())
    }

    /// Under this engine's new lease: counts calls left in flight, keeps finished nodes
    /// whose artifacts match, and makes interrupted nodes pending again.
    async fn reset_for_recovery(&self, id: &str, token: &str) -> Result<(), EngineError> {
        let lost = self.store().settle_lost_calls(id, token, now_ms()).await?;
        if !lost.is_empty() {
            tracing::info!(run = %id, calls = lost.len(), "calls lost in flight counted at their reservation");
        }
        for node in self.store().run_nodes(id).await? {
            match node.state {
                NodeState::Interrupted => {
                    self.move_node(
                        id,
                        &node.node_id,
                        NodeState::Interrupted,
                        NodeState::Pending,
                        Some(token),
                        NodeChanges::new().clear_output(),
                        Some("recovered".into()),
                    )
                    .await?;
                }
                NodeState::Done => {
                    let intact = match (&node.output_path, &node.output_sha256) {
                        (Some(path), Some(sha)) => read_output(path, sha).await.is_some(),
                        _ => false,
                    };
                    if !intact {
                        // Kept done (it was paid for); a dependent that needs it fails
                        // naming it rather than the run paying for it again unasked.
                        tracing::warn!(run = %id, node = %node.node_id,
                            "a finished node's output is missing or changed");
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}
