//! Handing a job's lease to another process, so the one that started the job may exit at
//! once (the CLI's `run --detach` and `runs recover --detach`, an agent's code run over MCP).
//! Attempts and runs are handed over the same way:
//! 1. The job is recorded (or re-queued) under a fresh hand-off token held by this process
//!    (`crate::owner`), so no engine here takes it for an orphan, with this pid.
//! 2. [`Engine::launch_owner`] calls the launcher, which starts the child and gives it the
//!    token (on stdin, never on argv); the child's pid comes back and the caller writes it on
//!    the row. From then on the owner is the child's pid: alive, so no other process
//!    interrupts the job, even after this one has exited.
//! 3. The child opens its engine with [`Engine::open_for_handoff`] (the token counts as held
//!    there before the start-up check runs) and adopts the job (`adopt_attempt`,
//!    `adopt_run`): a guarded update (still queued, still under the hand-off token) moves the
//!    lease to its own engine.
//!
//! A child that adopts before step 2's write lands makes that write match nothing (skipped).
//! A child that dies before adopting leaves its dead pid on the row: the next engine to open
//! marks the job interrupted, and `recover` applies. The launching process reaps the child
//! when it exits (`spawn_detached`), so a long-lived launcher (`switchyard mcp`, the app)
//! collects no zombies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchyard_runner::process::{spawn_detached, DetachedSpec};

use crate::{Engine, EngineConfig, EngineError};

/// The kind of job handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    Attempt,
    Run,
}

impl JobKind {
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

    /// Step 2 for job `id` of `kind`, leased under hand-off `token`: starts its new owner
    /// with `launch`. `Ok(pid)` to record as the owner, or why it could not be started.
    pub(crate) fn launch_owner(
        kind: JobKind,
        id: &str,
        token: &str,
        launch: &mut Launch<'_>,
    ) -> Result<u32, String> {
        launch(&Handoff {
            kind,
            id: id.to_owned(),
            token: token.to_owned(),
        })
    }
}
