//! Detached runs: a run's lease handed to another process, so the one that started it may
//! exit at once (the CLI's `run --detach` and `runs recover --detach`).
//!
//! The hand-off, as for attempts (see `crate::attempts::detach`):
//! 1. [`Engine::start_run_detached`] records the run `queued` under a fresh hand-off token,
//!    registered as held in this process (so no engine here takes it for an orphan), with
//!    this pid. [`Engine::recover_run_detached`] does the same for an interrupted run: it is
//!    reset and queued again under the hand-off token.
//! 2. It calls the launcher, which starts the child and gives it the token (on stdin, never
//!    on argv); the child's pid comes back and is written on the row. From then on the owner
//!    is the child's pid: alive, so no other process interrupts the run, even after this one
//!    has exited.
//! 3. The child opens its engine with [`Engine::open_for_run_handoff`] (the token counts as
//!    held there before the start-up check runs) and calls [`Engine::adopt_run`]: a guarded
//!    update (still `queued`, still under the hand-off token) moves the lease to its own
//!    engine, which executes the run under its own heartbeat — hearing cancel requests from
//!    other processes like any owner.
//!
//! A child that adopts before step 2's write lands makes that write match nothing (skipped).
//! A child that dies before adopting leaves its dead pid on the row: the next engine to open
//! marks the run interrupted, and `recover` applies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchyard_core::run::{NodeState, RunReason, RunRequest, RunState, RunSummary};
use switchyard_runner::process::{spawn_detached, DetachedSpec};
use switchyard_store::runs::nodes::NodeChanges;
use switchyard_store::runs::{RunChanges, RunGuard};

use super::lease::{forget_owner_token, hold_owner_token, new_owner_token};
use super::now_ms;
use crate::attempts::engine_needs;
use crate::{Engine, EngineConfig, EngineError};

/// What the process that will own a run needs to adopt it.
#[derive(Clone, PartialEq, Eq)]
pub struct RunHandoff {
    pub run_id: String,
    /// Proves the adopter is the process it was handed to: keep it off argv and out of logs.
    pub token: String,
}

impl std::fmt::Debug for RunHandoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunHandoff")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

/// Starts the process that will own a handed-off run; returns its pid or why it could not
/// be started.
pub type RunLaunch<'a> = dyn FnMut(&RunHandoff) -> Result<u32, String> + Send + 'a;

/// Where the detached process of run `id` writes its log.
pub fn detached_run_log(home: &Path, id: &str) -> PathBuf {
    home.join("logs").join("runs").join(format!("{id}.log"))
}

impl Engine {
    /// A [`RunLaunch`] that starts `program args… <run id>` detached: in this data dir, with
    /// the token on its stdin (one line), its output appended to [`detached_run_log`], and
    /// the environment the engine needs there. `program` must open the engine with
    /// [`Engine::open_for_run_handoff`] and call [`Engine::adopt_run`] (the CLI's hidden
    /// `run-worker`).
    pub fn detached_run_launcher(
        &self,
        program: PathBuf,
        args: Vec<OsString>,
    ) -> impl FnMut(&RunHandoff) -> Result<u32, String> + Send + 'static {
        let home = self.home().to_owned();
        move |handoff: &RunHandoff| {
            let mut spec = DetachedSpec::new(program.clone())
                .args(args.iter().cloned().chain([handoff.run_id.clone().into()]))
                .current_dir(&home)
                .forward_if(engine_needs)
                .env(crate::paths::HOME_ENV, home.clone())
                .stdin(format!("{}\n", handoff.token))
                .log_to(detached_run_log(&home, &handoff.run_id));
            if std::env::var_os("SWITCHYARD_LOG").is_none() {
                spec = spec.env("SWITCHYARD_LOG", "info");
            }
            spawn_detached(spec).map_err(|e| e.to_string())
        }
    }

    /// Opens the engine in the process a run is being handed to: `token` counts as held here
    /// from the start, so the start-up check does not take the run (whose row names this
    /// pid) for an orphan. Then call [`Engine::adopt_run`].
    pub async fn open_for_run_handoff(
        config: EngineConfig,
        token: &str,
    ) -> Result<Self, EngineError> {
        hold_owner_token(token);
        let opened = Self::open(config).await;
        if opened.is_err() {
            forget_owner_token(token);
        }
        opened
    }

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
        launch: &mut RunLaunch<'_>,
    ) -> Result<RunSummary, EngineError> {
        let token = new_owner_token();
        let result = async {
            let (id, state) = self.record_run(&request, &token).await?;
            if state == RunState::Queued {
                self.hand_run_off(&id, &token, launch).await?;
            }
            self.run_summary(&id).await
        }
        .await;
        forget_owner_token(&token);
        result
    }

    /// Like [`Engine::recover_run`], but the recovered run is executed by the process
    /// `launch` starts. Errors: as [`Engine::recover_run`]; `Internal` when `launch` fails.
    pub async fn recover_run_detached(
        self: &Arc<Self>,
        id: &str,
        launch: &mut RunLaunch<'_>,
    ) -> Result<RunSummary, EngineError> {
        let token = new_owner_token();
        let result = async {
            self.requeue_interrupted(id, &token).await?;
            self.hand_run_off(id, &token, launch).await?;
            self.run_summary(id).await
        }
        .await;
        forget_owner_token(&token);
        result
    }

    /// Starts the owner of queued run `id` (leased under hand-off `token`) and records its
    /// pid; a launch that fails fails the run.
    async fn hand_run_off(
        &self,
        id: &str,
        token: &str,
        launch: &mut RunLaunch<'_>,
    ) -> Result<(), EngineError> {
        let handoff = RunHandoff {
            run_id: id.to_owned(),
            token: token.to_owned(),
        };
        match launch(&handoff) {
            Ok(pid) => {
                let now = now_ms();
                let guard = RunGuard {
                    state: RunState::Queued,
                    owner: Some(token),
                };
                // `false`: the child adopted it already (or it is gone and was interrupted).
                let recorded = self
                    .store()
                    .update_run(id, guard, now, &RunChanges::new().owner(pid, token, now))
                    .await?;
                tracing::info!(run = %id, pid, recorded, "run handed to a detached process");
                Ok(())
            }
            Err(reason) => {
                let message = format!("could not start the process to execute the run: {reason}");
                self.fail_handoff(id, token, &message).await?;
                Err(EngineError::Internal(message))
            }
        }
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
        let now = now_ms();
        let guard = RunGuard {
            state: RunState::Queued,
            owner: Some(token),
        };
        let taken = self
            .store()
            .update_run(
                id,
                guard,
                now,
                &RunChanges::new().owner(self.runs.pid, &self.runs.token, now),
            )
            .await?;
        forget_owner_token(token);
        if !taken {
            return Err(EngineError::Busy(format!(
                "run {id} was not handed to this process (it is {})",
                row.state.as_str()
            )));
        }
        tracing::info!(run = %id, "adopted a handed-off run");
        self.spawn_run(id)?;
        self.run_summary(id).await
    }
}
