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
//! [`Engine::recover_attempt_detached`] hands an interrupted attempt over the same way, leased
//! `queued` (its worker never ran: the whole pipeline) or `verifying` (re-capture and gates).
//!
//! The child may adopt before step 2's write lands (that write then matches nothing and is
//! skipped). A child that dies before adopting leaves its dead pid on the row: the next
//! start-up marks the attempt interrupted as for any dead owner, and `recover` applies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchyard_core::attempt::{AttemptRequest, AttemptState, AttemptSummary};
use switchyard_runner::process::{spawn_detached, DetachedSpec};
use switchyard_store::attempts::{AttemptChanges, Guard};

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
pub(crate) fn engine_needs(name: &str) -> bool {
    name.starts_with("SWITCHYARD_")
        || name.starts_with("XDG_")
        || name == "DBUS_SESSION_BUS_ADDRESS"
        || name.ends_with("_API_KEY")
}

/// The folder of the detached processes' logs, `<data dir>/logs/attempts`.
pub(crate) fn detached_logs_dir(home: &Path) -> PathBuf {
    home.join("logs").join("attempts")
}

/// Where the detached process of attempt `id` writes its log (removed by the sweep once the
/// attempt has ended longer ago than the worktree retention).
pub fn detached_log(home: &Path, id: &str) -> PathBuf {
    detached_logs_dir(home).join(format!("{id}.log"))
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
        let handoff = Handoff {
            attempt_id: id.to_owned(),
            token: token.to_owned(),
        };
        match launch(&handoff) {
            Ok(pid) => {
                let now = now_ms();
                let guard = Guard {
                    state,
                    owner: Some(token),
                };
                // `false`: the child adopted it already (or it is gone and was interrupted).
                let recorded = self
                    .store()
                    .update_attempt(
                        id,
                        guard,
                        now,
                        &AttemptChanges::new().owner(pid, token, now),
                    )
                    .await?;
                tracing::info!(attempt = %id, pid, recorded, "attempt handed to a detached process");
                Ok(())
            }
            Err(reason) => {
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
        }
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
        let now = now_ms();
        let state = match row.state {
            AttemptState::Verifying => AttemptState::Verifying,
            _ => AttemptState::Queued,
        };
        let guard = Guard {
            state,
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
        tracing::info!(attempt = %id, state = state.as_str(), "adopted a handed-off attempt");
        if state == AttemptState::Verifying {
            self.spawn_recovery(id).await?;
        } else {
            self.spawn_pipeline(id).await?;
        }
        Ok(summary(&self.attempt_row(id).await?, now_ms()))
    }
}
