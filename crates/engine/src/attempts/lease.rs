//! Owner leases: which engine instance runs a live attempt, and what happens at open to
//! attempts whose owner is gone.
//!
//! An engine instance has a random token and its process id. A live attempt's row holds its
//! owner's pid and token and a heartbeat renewed every [`HEARTBEAT`]. Every [`LEASE_POLL`] the
//! owner also reads its row for a cancel another process asked for (`cancel_requested_ms`) and
//! cancels its own work when it finds one. The owner is gone when
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
use switchyard_store::attempts::{AttemptChanges, AttemptRow};
use tokio_util::sync::CancellationToken;

use super::record::now_ms;
use super::Running;
use crate::Engine;

/// How often an owner renews its lease.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(2);

/// How often an owner reads its row for a cancel asked by another process (one indexed
/// single-row read, so a cancel from the CLI lands within a quarter of a second).
pub(crate) const LEASE_POLL: Duration = Duration::from_millis(250);

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
    /// What the sweep at open removed, until [`Engine::prune_worktrees`] reports it (so the
    /// CLI's `worktrees prune`, whose own open already swept, still says what went).
    pub swept_at_open: Mutex<Option<super::retention::Swept>>,
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
            swept_at_open: Mutex::new(None),
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
    /// At open: marks live attempts whose owner is gone as interrupted, then sweeps the
    /// worktrees, `switchyard/*` branches and detached logs nothing keeps any more (see
    /// `retention`). Failures are logged: opening must not fail because a repository moved.
    pub(crate) async fn attempts_startup(&self) {
        if let Err(error) = self.interrupt_orphaned().await {
            tracing::warn!(%error, "could not check live attempts for lost owners");
        }
        let retention = match self.worktree_retention_days().await {
            Ok(days) => days,
            Err(error) => {
                tracing::warn!(%error, "could not read the worktree retention; nothing swept");
                return;
            }
        };
        match self.sweep_attempts(now_ms(), retention).await {
            Ok(swept) => {
                if !swept.worktrees.is_empty() || !swept.logs.is_empty() {
                    tracing::info!(worktrees = ?swept.worktrees, logs = ?swept.logs, "swept old worktrees and logs");
                }
                for problem in &swept.problems {
                    tracing::info!(%problem, "not swept");
                }
                *self
                    .attempts
                    .swept_at_open
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(swept);
            }
            Err(error) => tracing::warn!(%error, "orphan sweep failed"),
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

    /// Renews this engine's lease on `id` every [`HEARTBEAT`] and, every [`LEASE_POLL`],
    /// cancels `cancel` when another process asked for a cancel. Returns when the lease is no
    /// longer held (the attempt ended and released it, or another engine took it over), never
    /// otherwise.
    pub(crate) async fn heartbeat(&self, id: &str, cancel: &CancellationToken) {
        let token = self.attempts.token.as_str();
        let mut renewed = tokio::time::Instant::now();
        loop {
            tokio::time::sleep(LEASE_POLL).await;
            if renewed.elapsed() >= HEARTBEAT {
                renewed = tokio::time::Instant::now();
                match self.store().heartbeat_attempt(id, token, now_ms()).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(error) => tracing::warn!(attempt = %id, %error, "heartbeat failed"),
                }
            }
            match self.store().attempt_cancel_request(id, token).await {
                Ok(None) => return,
                Ok(Some(Some(_))) if !cancel.is_cancelled() => {
                    tracing::info!(attempt = %id, "canceling: another process asked");
                    cancel.cancel();
                }
                Ok(Some(_)) => {}
                Err(error) => tracing::warn!(attempt = %id, %error, "lease check failed"),
            }
        }
    }

    /// Runs `work` (this engine's work on leased attempt `id`) beside its [`Engine::heartbeat`].
    /// A lost lease cancels `cancel` and lets `work` wind down (its guarded updates no longer
    /// apply) rather than dropping it half way through a store write.
    pub(crate) async fn with_heartbeat<T>(
        &self,
        id: &str,
        cancel: &CancellationToken,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        tokio::pin!(work);
        tokio::select! {
            result = &mut work => result,
            () = self.heartbeat(id, cancel) => {
                cancel.cancel();
                let result = work.await;
                tracing::debug!(attempt = %id, "the lease ended before the work did");
                result
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
