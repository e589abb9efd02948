//! Detached attempts: the lease handed to another process, so the one that started the
//! attempt may exit at once (the CLI's `run --detach`).
//!
//! The hand-off, and why nothing can take the attempt for an orphan on the way:
//! 1. [`Engine::start_attempt_detached`] records the attempt `queued` under a fresh hand-off
//!    token (held by this process, so an engine here never interrupts it) with this pid.
//! 2. It calls the launcher, which starts the child and gives it the token (on stdin, never on
//!    argv); the child's pid comes back and is written on the row with a fresh heartbeat.
//!    From then on the owner is the child's pid: alive, so no start-up interrupts it, even
//!    after this process has exited.
//! 3. The child opens its engine with [`Engine::open_for_handoff`] (the token counts as held
//!    there before the start-up check runs) and calls [`Engine::adopt_attempt`]: a guarded
//!    update (still `queued`, still under the hand-off token) moves the lease to its own
//!    engine, and the pipeline runs there under its own heartbeat.
//!
//! The child may adopt before step 2's write lands (that write then matches nothing and is
//! skipped). A child that dies before adopting leaves its dead pid on the row: the next
//! start-up marks the attempt interrupted as for any dead owner, and `recover` applies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchyard_core::attempt::{AttemptRequest, AttemptReview, AttemptState, AttemptSummary};
use switchyard_runner::process::{spawn_detached, DetachedSpec};
use switchyard_store::attempts::{AttemptChanges, AttemptRow, Guard};

use super::record::{now_ms, summary};
use super::start::{Origin, Prepared};
use crate::{Engine, EngineConfig, EngineError};

/// What the process that will own an attempt needs to adopt it.
#[derive(Clone, PartialEq, Eq)]
pub struct Handoff {
    pub attempt_id: String,
    /// Proves the adopter is the process it was handed to: keep it off argv and out of logs.
    pub token: String,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("attempt_id", &self.attempt_id)
            .finish_non_exhaustive()
    }
}

/// Starts the process that will own a handed-off attempt; returns its pid or why it could
/// not be started.
pub type Launch<'a> = dyn FnMut(&Handoff) -> Result<u32, String> + Send + 'a;

/// Whether the detached engine needs this variable of ours: Switchyard's own settings
/// (`SWITCHYARD_*`: data dir, log filter), where the platform data and config dirs are
/// (`XDG_*`), the session bus the keychain is reached through, and provider keys the engine
/// falls back to when the keychain has none (`*_API_KEY`). Its workers still get only the
/// runner's allowlist plus their own key.
fn engine_needs(name: &str) -> bool {
    name.starts_with("SWITCHYARD_")
        || name.starts_with("XDG_")
        || name == "DBUS_SESSION_BUS_ADDRESS"
        || name.ends_with("_API_KEY")
}

/// Where the detached process of attempt `id` writes its log.
pub fn detached_log(home: &Path, id: &str) -> PathBuf {
    home.join("logs").join("attempts").join(format!("{id}.log"))
}

impl Engine {
    /// A [`Launch`] that starts `program args… <attempt id>` detached (see
    /// `switchyard_runner::process::spawn_detached`): in this data dir, with the token on its
    /// stdin (one line), its output appended to [`detached_log`], and the environment the
    /// engine needs there. `program` must open the engine with [`Engine::open_for_handoff`]
    /// and call [`Engine::adopt_attempt`] (the CLI's hidden `attempt-worker`).
    pub fn detached_launcher(
        &self,
        program: PathBuf,
        args: Vec<OsString>,
    ) -> impl FnMut(&Handoff) -> Result<u32, String> + Send + 'static {
        let home = self.home().to_owned();
        move |handoff: &Handoff| {
            let mut spec = DetachedSpec::new(program.clone())
                .args(
                    args.iter()
                        .cloned()
                        .chain([handoff.attempt_id.clone().into()]),
                )
                .current_dir(&home)
                .forward_if(engine_needs)
                .env(crate::paths::HOME_ENV, home.clone())
                .stdin(format!("{}\n", handoff.token))
                .log_to(detached_log(&home, &handoff.attempt_id));
            if std::env::var_os("SWITCHYARD_LOG").is_none() {
                spec = spec.env("SWITCHYARD_LOG", "info");
            }
            spawn_detached(spec).map_err(|e| e.to_string())
        }
    }

    /// Opens the engine in the process an attempt is being handed to: `token` counts as held
    /// here from the start, so the start-up check does not take the attempt (whose row names
    /// this pid) for an orphan. Then call [`Engine::adopt_attempt`].
    pub async fn open_for_handoff(config: EngineConfig, token: &str) -> Result<Self, EngineError> {
        Self::open_holding(config, Some(token)).await
    }

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
        let token = self.attempts.new_handoff();
        let result = self
            .hand_off(prepared, worker, launcher, origin, &token, launch)
            .await;
        self.attempts.release(&token);
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
        let handoff = Handoff {
            attempt_id: id.clone(),
            token: token.to_owned(),
        };
        match launch(&handoff) {
            Ok(pid) => {
                let now = now_ms();
                let guard = Guard {
                    state: AttemptState::Queued,
                    owner: Some(token),
                };
                // `false`: the child adopted it already (or it is gone and was interrupted).
                let recorded = self
                    .store()
                    .update_attempt(
                        &id,
                        guard,
                        now,
                        &AttemptChanges::new().owner(pid, token, now),
                    )
                    .await?;
                tracing::info!(attempt = %id, pid, recorded, "attempt handed to a detached process");
            }
            Err(reason) => {
                let message = format!("could not start the process to run the attempt: {reason}");
                let row = self.attempt_row(&id).await?;
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
                return Err(EngineError::Internal(message));
            }
        }
        Ok(summary(&self.attempt_row(&id).await?, now_ms()))
    }

    /// Takes over attempt `id` handed to this process under `token` (see the module docs) and
    /// runs its pipeline here; follow it with [`Engine::wait_attempt`].
    ///
    /// Errors: `NotFound`; `Busy` when the attempt is no longer queued under that token
    /// (adopted already, interrupted, canceled); `Canceled` when the engine is closing.
    pub async fn adopt_attempt(
        self: &Arc<Self>,
        id: &str,
        token: &str,
    ) -> Result<AttemptSummary, EngineError> {
        let row = self.attempt_row(id).await?;
        let now = now_ms();
        let guard = Guard {
            state: AttemptState::Queued,
            owner: Some(token),
        };
        let taken = self
            .store()
            .update_attempt(
                id,
                guard,
                now,
                &AttemptChanges::new().owner(self.attempts.pid, &self.attempts.token, now),
            )
            .await?;
        self.attempts.release(token);
        if !taken {
            return Err(EngineError::Busy(format!(
                "attempt {id} was not handed to this process (it is {})",
                row.state.as_str()
            )));
        }
        tracing::info!(attempt = %id, "adopted a handed-off attempt");
        self.spawn_pipeline(id).await?;
        Ok(summary(&self.attempt_row(id).await?, now_ms()))
    }

    /// Whether interrupted `row` never got as far as its worker: no start time and no
    /// worktree of its own (a detached owner that died before adopting it).
    pub(crate) fn never_ran(&self, row: &AttemptRow) -> bool {
        let home = std::fs::canonicalize(self.home()).unwrap_or_else(|_| self.home().to_owned());
        row.started_ms.is_none()
            && row.worktree_id == row.id
            && !home.join("worktrees").join(&row.id).exists()
    }

    /// Recovers an attempt that [`Engine::never_ran`]: back to `queued` under this engine's
    /// lease and through the whole pipeline, in this call (the CLI's `recover` waits for it
    /// anyway; cancel reaches it as any attempt this engine runs).
    pub(crate) async fn start_over(&self, row: &AttemptRow) -> Result<AttemptReview, EngineError> {
        let id = row.id.as_str();
        let token = self.attempts.token.clone();
        let taken = self
            .move_attempt(
                row,
                AttemptState::Queued,
                None,
                AttemptChanges::new()
                    .owner(self.attempts.pid, &token, now_ms())
                    .clear_error(),
                Some("recovering: its worker never ran, so it starts over".into()),
            )
            .await?;
        if !taken {
            return Err(EngineError::Busy(format!(
                "attempt {id} is being recovered elsewhere"
            )));
        }
        let cancel = self.supervisor.cancellation();
        self.attempts.running.insert(id, cancel.clone());
        self.run_pipeline(id, cancel).await;
        self.attempts.running.remove(id);
        self.attempt_review(id).await
    }
}
