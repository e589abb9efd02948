//! Owner leases: which engine instance runs a live attempt, and what happens at open to
//! attempts whose owner is gone.
//!
//! A live attempt's row holds its owner's pid and token, renewed with any cancel another
//! process asked for by [`Engine::keep_lease`] (`crate::owner`, shared with runs).

use std::sync::Mutex;

use switchyard_core::attempt::AttemptState;
use switchyard_runner::process::probe::kill_group_members_in;
use switchyard_store::attempts::{AttemptChanges, AttemptRow};
use switchyard_store::lease::Leased;
use tokio_util::sync::CancellationToken;

use super::record::now_ms;
use super::Running;
use crate::Engine;

/// The attempts this engine runs, and what its review pages reuse.
#[derive(Debug)]
pub(crate) struct AttemptsRuntime {
    pub running: Running,
    /// The last diff artifact parsed for `attempt_file_diff`, so a page loading a large
    /// change file by file parses it once, not once per file.
    pub diff_cache: tokio::sync::Mutex<Option<super::artifacts::CachedDiff>>,
    /// What the sweep at open removed, until [`Engine::prune_worktrees`] reports it (so the
    /// CLI's `worktrees prune`, whose own open already swept, still says what went).
    pub swept_at_open: Mutex<Option<super::retention::Swept>>,
}

impl AttemptsRuntime {
    pub(crate) fn new() -> Self {
        Self {
            running: Running::default(),
            diff_cache: tokio::sync::Mutex::new(None),
            swept_at_open: Mutex::new(None),
        }
    }

    /// Cancels attempt `id` if this engine runs it.
    pub(crate) fn cancel(&self, id: &str) -> bool {
        self.running.cancel(id)
    }
}

/// Whether the owner recorded on `row` is gone.
pub(crate) fn owner_gone(row: &AttemptRow) -> bool {
    crate::owner::owner_gone(row.owner_pid, row.owner_token.as_deref())
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
            let killed = kill_group_members_in(pgid, &worktree);
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

    /// Runs `work` (this engine's work on leased attempt `id`) beside [`Engine::keep_lease`]:
    /// a cancel another process asked for cancels `cancel`.
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
            () = self.keep_lease(Leased::Attempt, id, || {
                if !cancel.is_cancelled() {
                    tracing::info!(attempt = %id, "canceling: another process asked");
                    cancel.cancel();
                }
            }) => {
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
            .filter(|r| r.owner_token.as_deref() == Some(self.owner.token.as_str()))
        {
            if let Err(why) = self.cancel_at_close(row).await {
                tracing::warn!(attempt = %row.id, %why, "could not record the cancel at close");
            }
        }
    }

    /// Records live `row`, owned by this engine, as canceled at close. A guarded write that
    /// finds the row changed since it was read (a write of the stopped pipeline landing late)
    /// reads it again and retries while it is still live and ours, so a closed engine never
    /// leaves its attempt to be found `interrupted` and re-captured half done.
    async fn cancel_at_close(&self, row: &AttemptRow) -> Result<(), String> {
        let mut row = row.clone();
        for _ in 0..3 {
            let moved = self
                .move_attempt(
                    &row,
                    AttemptState::Canceled,
                    Some(&self.owner.token),
                    AttemptChanges::new()
                        .release()
                        .finished_ms(now_ms())
                        .error("canceled", "the engine closed while the attempt was live"),
                    Some("the engine closed".into()),
                )
                .await
                .map_err(|e| e.to_string())?;
            if moved {
                return Ok(());
            }
            row = self.attempt_row(&row.id).await.map_err(|e| e.to_string())?;
            if !row.state.is_live() || row.owner_token.as_deref() != Some(self.owner.token.as_str())
            {
                return Ok(());
            }
        }
        Err(format!(
            "it stayed {} through three tries",
            row.state.as_str()
        ))
    }
}
