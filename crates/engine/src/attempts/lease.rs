//! Owner leases: which engine instance runs a live attempt, and what happens at open to
//! attempts whose owner is gone.
//!
//! An engine instance has a random token and its process id. A live attempt's row holds its
//! owner's pid and token and a heartbeat renewed every [`HEARTBEAT`]. The owner is gone when
//! its process is not alive, or when it is this very process but no open engine here holds the
//! token (an engine dropped without closing). A process that is alive is trusted whatever its
//! heartbeat says: a laptop waking from sleep must not find its app's attempts interrupted by a
//! CLI command run a second earlier.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use switchyard_core::attempt::AttemptState;
use switchyard_runner::git::{sweep, Git, Repo};
use switchyard_store::attempts::{AttemptChanges, AttemptRow};

use super::record::now_ms;
use super::Running;
use crate::Engine;

/// How often an owner renews its lease.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(2);

/// Tokens of the engines open in this process.
fn open_tokens() -> &'static Mutex<HashSet<String>> {
    static TOKENS: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    TOKENS.get_or_init(|| Mutex::new(HashSet::new()))
}

/// A random-enough number without a dependency: the standard library seeds each `RandomState`
/// from the OS, mixed with the time and a counter.
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_i64(now_ms());
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// This engine instance's identity as a lease owner, and the attempts it runs.
#[derive(Debug)]
pub(crate) struct AttemptsRuntime {
    pub token: String,
    pub pid: u32,
    pub running: Running,
    /// Hand-off tokens this engine holds besides its own (see `detach`): registered as open
    /// in this process, so an engine here never takes their attempts for orphans.
    held: Mutex<Vec<String>>,
    /// The last diff artifact parsed for `attempt_file_diff`, so a page loading a large
    /// change file by file parses it once, not once per file.
    pub diff_cache: tokio::sync::Mutex<Option<super::artifacts::CachedDiff>>,
}

impl AttemptsRuntime {
    /// A new owner identity, registered as open in this process until dropped.
    pub(crate) fn new() -> Self {
        let token = format!("{:016x}{:016x}", random_u64(), random_u64());
        open_tokens()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.clone());
        Self {
            token,
            pid: std::process::id(),
            running: Running::default(),
            held: Mutex::new(Vec::new()),
            diff_cache: tokio::sync::Mutex::new(None),
        }
    }

    /// A fresh hand-off token, held by this engine until [`AttemptsRuntime::release`].
    pub(crate) fn new_handoff(&self) -> String {
        let token = format!("h{:016x}{:016x}", random_u64(), random_u64());
        self.hold(&token);
        token
    }

    /// Holds `token` as this process's (until released or this engine is dropped).
    pub(crate) fn hold(&self, token: &str) {
        open_tokens()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.to_owned());
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(token.to_owned());
    }

    /// Stops holding `token`.
    pub(crate) fn release(&self, token: &str) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = held.iter().position(|t| t == token) {
            held.remove(at);
            open_tokens()
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(token);
        }
    }

    /// Cancels attempt `id` if this engine runs it.
    pub(crate) fn cancel(&self, id: &str) -> bool {
        self.running.cancel(id)
    }
}

impl Drop for AttemptsRuntime {
    fn drop(&mut self) {
        let held = std::mem::take(&mut *self.held.lock().unwrap_or_else(|p| p.into_inner()));
        let mut open = open_tokens().lock().unwrap_or_else(|p| p.into_inner());
        open.remove(&self.token);
        for token in held {
            open.remove(&token);
        }
    }
}

/// Whether a process with this id exists and has not exited (signal 0 checks without
/// sending anything). A zombie has exited and can advance nothing: a detached owner killed
/// after its parent is gone stays one until init reaps it, which some containers' init never
/// does (Linux `/proc`; elsewhere a zombie counts as alive until reaped).
pub(crate) fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    let exists = match nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None) {
        Ok(()) => true,
        // It exists but belongs to another user.
        Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    };
    exists && !is_zombie(pid)
}

/// Whether `/proc` shows `pid` as a zombie (`pid (comm) Z …`).
fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Whether the owner recorded on `row` is gone.
pub(crate) fn owner_gone(row: &AttemptRow) -> bool {
    let (Some(pid), Some(token)) = (row.owner_pid, row.owner_token.as_deref()) else {
        return true;
    };
    if pid == std::process::id() {
        return !open_tokens()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(token);
    }
    !pid_alive(pid)
}

impl Engine {
    /// At open: marks live attempts whose owner is gone as interrupted, then sweeps orphaned
    /// worktrees and `switchyard/*` branches of every repository that has attempts. Failures
    /// are logged: opening must not fail because a repository moved.
    ///
    /// Known gap: the list of worktrees to keep is read before `sweep` takes the repository
    /// lock, so an attempt another process records and creates in those few milliseconds
    /// could lose its new worktree (its pipeline then fails with `notFound`). Closing it needs
    /// a sweep that re-reads the keep list under the lock (a runner change).
    pub(crate) async fn attempts_startup(&self) {
        if let Err(error) = self.interrupt_orphaned().await {
            tracing::warn!(%error, "could not check live attempts for lost owners");
        }
        let repos = match self.store().attempt_repos().await {
            Ok(repos) => repos,
            Err(error) => {
                tracing::warn!(%error, "could not list repositories for the orphan sweep");
                return;
            }
        };
        for (repo, keep) in repos {
            let Ok(opened) = Repo::open(&Git::new(), std::path::Path::new(&repo)).await else {
                tracing::info!(%repo, "repository of past attempts is gone; nothing to sweep");
                continue;
            };
            let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
            match sweep(self.home(), &opened, &keep).await {
                Ok(found) if !found.is_empty() => {
                    tracing::info!(%repo, removed = ?found.attempts(), "swept orphaned worktrees");
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%repo, %error, "orphan sweep failed"),
            }
        }
    }

    async fn interrupt_orphaned(&self) -> Result<(), crate::EngineError> {
        for row in self.store().live_attempts().await? {
            self.interrupt_if_orphaned(&row).await?;
        }
        Ok(())
    }

    /// Marks live `row` interrupted if its owner is gone; `true` when it did.
    pub(crate) async fn interrupt_if_orphaned(
        &self,
        row: &AttemptRow,
    ) -> Result<bool, crate::EngineError> {
        if !row.state.is_live() || !owner_gone(row) {
            return Ok(false);
        }
        let note = format!(
            "its owner (pid {}) is gone; recover it to re-run the gates",
            row.owner_pid.unwrap_or_default()
        );
        if let Some(pgid) = row.worker_pgid {
            let worktree = std::fs::canonicalize(self.home())
                .unwrap_or_else(|_| self.home().to_owned())
                .join("worktrees")
                .join(&row.worktree_id);
            let killed = kill_left_behind(pgid, &worktree);
            if killed > 0 {
                tracing::info!(attempt = %row.id, killed, "stopped a dead owner's worker processes");
            }
        }
        let moved = self
            .move_attempt(
                row,
                AttemptState::Interrupted,
                row.owner_token.as_deref(),
                AttemptChanges::new().release().worker_pgid(None),
                Some(note),
            )
            .await?;
        if moved {
            tracing::info!(attempt = %row.id, "attempt interrupted: its owner is gone");
        }
        Ok(moved)
    }

    /// Renews this engine's lease on `id` every [`HEARTBEAT`]; returns when the lease is lost
    /// (another engine took the attempt over), never otherwise.
    pub(crate) async fn heartbeat(&self, id: &str) {
        loop {
            tokio::time::sleep(HEARTBEAT).await;
            match self
                .store()
                .heartbeat_attempt(id, &self.attempts.token, now_ms())
                .await
            {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(attempt = %id, "lease lost; stopping");
                    return;
                }
                Err(error) => tracing::warn!(attempt = %id, %error, "heartbeat failed"),
            }
        }
    }

    /// At close: attempts this engine still runs end as canceled (their worker groups are
    /// already stopped by the supervisor's shutdown).
    pub(crate) async fn attempts_close(&self) {
        let rows = match self.store().live_attempts().await {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "could not read live attempts at close");
                return;
            }
        };
        for row in rows
            .iter()
            .filter(|r| r.owner_token.as_deref() == Some(self.attempts.token.as_str()))
        {
            let result = self
                .move_attempt(
                    row,
                    AttemptState::Canceled,
                    Some(&self.attempts.token),
                    AttemptChanges::new()
                        .release()
                        .finished_ms(now_ms())
                        .error("canceled", "the engine closed while the attempt was live"),
                    Some("the engine closed".into()),
                )
                .await;
            if let Err(error) = result {
                tracing::warn!(attempt = %row.id, %error, "could not record the cancel at close");
            }
        }
    }
}

/// SIGKILLs the processes a dead owner's worker left running: members of process group
/// `pgid` whose working directory is inside `worktree` (so a reused group id belonging to
/// someone else is never touched). Returns how many were signalled. Linux only (`/proc`);
/// elsewhere nothing is done.
pub(crate) fn kill_left_behind(pgid: u32, worktree: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
        let group = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split(' ').nth(2))
            .and_then(|g| g.parse::<u32>().ok());
        if group != Some(pgid) {
            continue;
        }
        let inside =
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(worktree));
        if inside
            && nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            )
            .is_ok()
        {
            killed += 1;
        }
    }
    killed
}
