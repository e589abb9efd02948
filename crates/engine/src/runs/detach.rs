//! Detached runs: a run handed to another process the way every job is (`crate::handoff`):
//! [`Engine::start_run_detached`] records it `queued` under a hand-off token,
//! [`Engine::recover_run_detached`] resets an interrupted one and queues it again, and the
//! child executes it under its own heartbeat — hearing cancel requests from other processes
//! like any owner.

use std::sync::Arc;

use switchyard_core::run::{NodeState, RunReason, RunRequest, RunState, RunSummary};
use switchyard_store::runs::nodes::NodeChanges;
use switchyard_store::runs::RunChanges;

use super::now_ms;
use crate::handoff::{JobKind, Launch};
use crate::{Engine, EngineError};

impl Engine {
    /// Like [`Engine::start_run`], but the run is executed by the process `launch` starts
    /// (see the module documentation). Returns once the hand-off is stored; this engine never
    /// executes the run and may close at once. A run paused after planning is not handed to
    /// anyone (`resume_run` continues it).
    ///
    /// Errors: as [`Engine::start_run`]; `Internal` when `launch` fails (the run is then
    /// recorded as failed with that reason).
    pub async fn start_run_detached(
        self: &Arc<Self>,
        request: RunRequest,
        launch: &mut Launch<'_>,
    ) -> Result<RunSummary, EngineError> {
        let token = self.owner.new_handoff();
        let result = async {
            let (id, state) = self.record_run(&request, &token).await?;
            if state == RunState::Queued {
                self.hand_run_off(&id, &token, launch).await?;
            }
            self.run_summary(&id).await
        }
        .await;
        self.owner.release(&token);
        result
    }

    /// Like [`Engine::recover_run`], but the recovered run is executed by the process
    /// `launch` starts. Errors: as [`Engine::recover_run`]; `Internal` when `launch` fails.
    pub async fn recover_run_detached(
        self: &Arc<Self>,
        id: &str,
        launch: &mut Launch<'_>,
    ) -> Result<RunSummary, EngineError> {
        let token = self.owner.new_handoff();
        let result = async {
            self.requeue_interrupted(id, &token).await?;
            self.hand_run_off(id, &token, launch).await?;
            self.run_summary(id).await
        }
        .await;
        self.owner.release(&token);
        result
    }

    /// Starts the owner of queued run `id` (leased under hand-off `token`) and records its
    /// pid; a launch that fails fails the run.
    async fn hand_run_off(
        &self,
        id: &str,
        token: &str,
        launch: &mut Launch<'_>,
    ) -> Result<(), EngineError> {
        let launched = self
            .launch_owner(JobKind::Run, id, RunState::Queued.as_str(), token, launch)
            .await?;
        let Err(reason) = launched else {
            return Ok(());
        };
        let message = format!("could not start the process to execute the run: {reason}");
        self.fail_handoff(id, token, &message).await?;
        Err(EngineError::Internal(message))
    }

    /// Records that queued run `id` could not be handed off: its pending nodes skipped, the
    /// run failed with `message`.
    async fn fail_handoff(&self, id: &str, token: &str, message: &str) -> Result<(), EngineError> {
        for node in self.store().run_nodes(id).await? {
            if node.state == NodeState::Pending {
                self.move_node(
                    id,
                    &node.node_id,
                    NodeState::Pending,
                    NodeState::Skipped,
                    Some(token),
                    NodeChanges::new().finished_ms(Some(now_ms())),
                    None,
                )
                .await?;
            }
        }
        let row = self.run_row(id).await?;
        let changes = RunChanges::new()
            .finished_ms(Some(now_ms()))
            .error("internal", message)
            .release();
        self.move_run(
            &row,
            RunState::Failed,
            Some(token),
            Some(RunReason::NodeFailed),
            changes,
            Some(message.to_owned()),
        )
        .await?;
        Ok(())
    }

    /// Takes over run `id` handed to this process under `token` (see the module
    /// documentation) and executes it here; follow it with [`Engine::wait_run`].
    ///
    /// Errors: `NotFound`; `Busy` when the run is no longer queued under that token (adopted
    /// already, interrupted, canceled); `Canceled` when the engine is closing.
    pub async fn adopt_run(
        self: &Arc<Self>,
        id: &str,
        token: &str,
    ) -> Result<RunSummary, EngineError> {
        let row = self.run_row(id).await?;
        self.adopt_lease(
            JobKind::Run,
            id,
            RunState::Queued.as_str(),
            token,
            row.state.as_str(),
        )
        .await?;
        self.spawn_run(id)?;
        self.run_summary(id).await
    }
}
