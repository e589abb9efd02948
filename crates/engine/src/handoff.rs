//! Handing a job's lease to another process, so the one that started the job may exit at
//! once (the CLI's `run --detach` and `runs recover --detach`, an agent's code run over MCP).
//! Attempts and runs are handed over the same way:
//! 1. The job is recorded (or re-queued) under a fresh hand-off token held by this process
//!    (`crate::owner`), so no engine here takes it for an orphan, with this pid.
//! 2. [`Engine::launch_owner`] calls the launcher, which starts the child and gives it the
//!    token (on stdin, never on argv), and writes the child's pid on the lease. From then on
//!    the owner is the child's pid: alive, so no other process interrupts the job, even after
//!    this one has exited.
//! 3. The child opens its engine with [`Engine::open_for_handoff`] (the token counts as held
//!    there before the start-up check runs) and adopts the job (`adopt_attempt`, `adopt_run`,
//!    both through [`Engine::adopt_lease`]): a guarded update (still in the handed state,
//!    still under the hand-off token) moves the lease to its own engine.
//!
//! A child that adopts before step 2's write lands makes that write match nothing (skipped).
//! A child that dies before adopting leaves its dead pid on the row: the next engine to open
//! marks the job interrupted, and `recover` applies. The launching process reaps the child
//! when it exits (`spawn_detached`), so a long-lived launcher (`switchyard mcp`, the app)
//! collects no zombies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchyard_runner::process::{spawn_detached, DetachedSpec};
use switchyard_store::lease::Leased;

use crate::attempts::now_ms;
use crate::{Engine, EngineConfig, EngineError};

/// The kind of job handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    Attempt,
    Run,
}

impl JobKind {
    fn leased(self) -> Leased {
        match self {
            JobKind::Attempt => Leased::Attempt,
            JobKind::Run => Leased::Run,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            JobKind::Attempt => "attempt",
            JobKind::Run => "run",
        }
    }

    /// The folder of this kind's detached logs under `<data dir>/logs`.
    fn logs(self) -> &'static str {
        match self {
            JobKind::Attempt => "attempts",
            JobKind::Run => "runs",
        }
    }
}

/// What the process that will own a job needs to adopt it.
#[derive(Clone, PartialEq, Eq)]
pub struct Handoff {
    pub kind: JobKind,
    pub id: String,
    /// Proves the adopter is the process it was handed to: keep it off argv and out of logs.
    pub token: String,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("kind", &self.kind)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Starts the process that will own a handed-off job; returns its pid or why it could not be
/// started.
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

/// The folder of the detached processes' logs of `kind`, `<data dir>/logs/<kind>`.
pub(crate) fn detached_logs_dir(home: &Path, kind: JobKind) -> PathBuf {
    home.join("logs").join(kind.logs())
}

/// Where the detached process of job `id` writes its log (an attempt's is removed by the
/// sweep once it has ended longer ago than the worktree retention).
pub fn detached_log(home: &Path, kind: JobKind, id: &str) -> PathBuf {
    detached_logs_dir(home, kind).join(format!("{id}.log"))
}

impl Engine {
    /// A [`Launch`] that starts `program args… <job id>` detached (see
    /// `switchyard_runner::process::spawn_detached`): in this data dir, with the token on its
    /// stdin (one line), its output appended to [`detached_log`], and the environment the
    /// engine needs there. `program` must open the engine with [`Engine::open_for_handoff`]
    /// and adopt the job (the CLI's hidden `attempt-worker` and `run-worker`).
    pub fn detached_launcher(
        &self,
        program: PathBuf,
        args: Vec<OsString>,
    ) -> impl FnMut(&Handoff) -> Result<u32, String> + Send + 'static {
        let home = self.home().to_owned();
        move |handoff: &Handoff| {
            let mut spec = DetachedSpec::new(program.clone())
                .args(args.iter().cloned().chain([handoff.id.clone().into()]))
                .current_dir(&home)
                .forward_if(engine_needs)
                .env(crate::paths::HOME_ENV, home.clone())
                .stdin(format!("{}\n", handoff.token))
                .log_to(detached_log(&home, handoff.kind, &handoff.id));
            if std::env::var_os("SWITCHYARD_LOG").is_none() {
                spec = spec.env("SWITCHYARD_LOG", "info");
            }
            spawn_detached(spec).map_err(|e| e.to_string())
        }
    }

    /// Opens the engine in the process a job is being handed to: `token` counts as held here
    /// from the start, so the start-up check does not take the job (whose row names this pid)
    /// for an orphan. Then adopt it.
    pub async fn open_for_handoff(config: EngineConfig, token: &str) -> Result<Self, EngineError> {
        Self::open_holding(config, Some(token)).await
    }

    /// Step 2 for job `id` of `kind`, leased in `state` under hand-off `token`: starts its
    /// new owner with `launch` and records the child's pid on the lease. `Ok(Err(reason))`
    /// when the child could not be started: the caller ends the job with it.
    pub(crate) async fn launch_owner(
        &self,
        kind: JobKind,
        id: &str,
        state: &str,
        token: &str,
        launch: &mut Launch<'_>,
    ) -> Result<Result<(), String>, EngineError> {
        let pid = match launch(&Handoff {
            kind,
            id: id.to_owned(),
            token: token.to_owned(),
        }) {
            Ok(pid) => pid,
            Err(reason) => return Ok(Err(reason)),
        };
        // `false`: the child adopted it already (or it is gone and was interrupted).
        let recorded = self
            .store()
            .pass_lease(kind.leased(), id, state, token, pid, token, now_ms())
            .await?;
        tracing::info!(job = kind.noun(), %id, pid, recorded, "handed to a detached process");
        Ok(Ok(()))
    }

    /// Step 3: takes job `id`, handed to this process in `state` under `token`, as this
    /// engine's own, and stops holding the token. Errors: `Busy` when it is not handed over
    /// that way (any more): adopted already, interrupted, canceled; it is `now` then.
    pub(crate) async fn adopt_lease(
        &self,
        kind: JobKind,
        id: &str,
        state: &str,
        token: &str,
        now: &str,
    ) -> Result<(), EngineError> {
        let taken = self
            .store()
            .pass_lease(
                kind.leased(),
                id,
                state,
                token,
                self.owner.pid,
                &self.owner.token,
                now_ms(),
            )
            .await?;
        self.owner.release(token);
        if !taken {
            return Err(EngineError::Busy(format!(
                "{} {id} was not handed to this process (it is {now})",
                kind.noun()
            )));
        }
        tracing::info!(job = kind.noun(), %id, state, "adopted a handed-off job");
        Ok(())
    }
}
