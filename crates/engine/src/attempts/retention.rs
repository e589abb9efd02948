//! The sweep of what attempts leave behind: worktrees and `switchyard/<id>` branches nothing
//! keeps (see `switchyard_core::attempt::retention` for what is kept and how long), and the
//! logs of detached attempt processes. It runs at every engine open and on demand
//! ([`Engine::prune_worktrees`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use switchyard_core::attempt::retention::{keeps_log, keeps_worktree, within};
use switchyard_core::attempt::AttemptState;
use switchyard_core::doctor::WorktreePrune;
use switchyard_core::run::RunState;
use switchyard_runner::git::{sweep_keeping, Git, Repo};
use switchyard_store::attempts::WorktreeRow;

use super::record::now_ms;
use crate::{Engine, EngineError};

/// What one sweep removed, and what it could not look at.
#[derive(Debug, Default)]
pub(crate) struct Swept {
    pub worktrees: Vec<String>,
    pub logs: Vec<String>,
    pub problems: Vec<String>,
}

/// The worktree ids of `rows` (one repository's attempts) the sweep keeps at `now_ms`: a
/// worktree is kept while any attempt working in it keeps it.
fn kept_worktrees(rows: &[WorktreeRow], now_ms: i64, retention_days: u32) -> Vec<String> {
    let kept: BTreeSet<&str> = rows
        .iter()
        .filter(|r| keeps_worktree(r.state, r.ended_ms, now_ms, retention_days))
        .map(|r| r.worktree_id.as_str())
        .collect();
    kept.into_iter().map(str::to_owned).collect()
}

/// The run branches (`switchyard/run-<id>`, by the key the sweep sees) kept at `now_ms`: a
/// code run's branch stays while the run is not over, and for the retention after it ended.
fn kept_run_branches(
    runs: &[(String, RunState, i64)],
    now_ms: i64,
    retention_days: u32,
) -> Vec<String> {
    runs.iter()
        .filter(|(_, state, at)| {
            !state.is_final() || within(now_ms.saturating_sub(*at), retention_days)
        })
        .map(|(id, _, _)| crate::runs::run_branch_key(id))
        .collect()
}

impl Engine {
    /// Applies the retention now: removes the worktrees and `switchyard/<id>` branches of
    /// attempts that ended without integrating longer ago than the retention (and any that no
    /// attempt keeps), and the logs of detached attempts that ended that long ago. Attempts
    /// that are live, in review or approved keep theirs. Returns what was removed and the disk
    /// usage afterwards (what this engine's own sweep at open removed is included the first
    /// time); a repository that cannot be swept is listed in `problems`.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn prune_worktrees(&self) -> Result<WorktreePrune, EngineError> {
        let retention = self.worktree_retention_days().await?;
        let now = self.sweep_attempts(now_ms(), retention).await?;
        let at_open = self
            .attempts
            .swept_at_open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default();
        let merge = |mut a: Vec<String>, b: Vec<String>| {
            a.extend(b);
            a.sort();
            a.dedup();
            a
        };
        let swept = Swept {
            worktrees: merge(at_open.worktrees, now.worktrees),
            logs: merge(at_open.logs, now.logs),
            problems: now.problems,
        };
        Ok(WorktreePrune {
            worktrees: swept.worktrees,
            logs: swept.logs,
            problems: swept.problems,
            usage: self.worktree_usage().await?,
        })
    }

    /// The sweep at `now_ms` with `retention_days`: every repository with attempts, then the
    /// detached logs.
    pub(crate) async fn sweep_attempts(
        &self,
        now_ms: i64,
        retention_days: u32,
    ) -> Result<Swept, EngineError> {
        let rows = self.store().attempt_worktrees(None).await?;
        let mut swept = Swept::default();
        let repos: BTreeSet<&str> = rows.iter().map(|r| r.repo.as_str()).collect();
        for repo in repos {
            match self.sweep_repo(repo, now_ms, retention_days).await {
                Ok(removed) => swept.worktrees.extend(removed),
                Err(problem) => swept.problems.push(problem),
            }
        }
        let ended: BTreeMap<&str, (AttemptState, i64)> = rows
            .iter()
            .map(|r| (r.id.as_str(), (r.state, r.ended_ms)))
            .collect();
        swept.logs = self.sweep_logs(&ended, now_ms, retention_days).await;
        Ok(swept)
    }

    /// Sweeps one repository; the attempts to keep are read once its lock is held, so an
    /// attempt recorded meanwhile (which creates its worktree under that lock) keeps it.
    async fn sweep_repo(
        &self,
        repo: &str,
        now_ms: i64,
        retention_days: u32,
    ) -> Result<Vec<String>, String> {
        let opened = Repo::open(&Git::new(), Path::new(repo))
            .await
            .map_err(|error| format!("{repo}: {error}; its attempts' worktrees stay"))?;
        let keep = || async {
            let attempts = self.store().attempt_worktrees(Some(repo)).await;
            let runs = self.store().code_run_ages().await;
            match (attempts, runs) {
                (Ok(rows), Ok(runs)) => {
                    let mut kept = kept_worktrees(&rows, now_ms, retention_days);
                    kept.extend(kept_run_branches(&runs, now_ms, retention_days));
                    Some(kept)
                }
                (Err(error), _) | (_, Err(error)) => {
                    tracing::warn!(%repo, %error, "attempts unreadable; nothing swept there");
                    None
                }
            }
        };
        let found = sweep_keeping(self.home(), &opened, keep)
            .await
            .map_err(|error| format!("{repo}: {error}"))?;
        Ok(found.attempts().into_iter().collect())
    }

    /// Removes `<data dir>/logs/attempts/<id>.log` of each attempt `keeps_log` lets go;
    /// `ended` holds what was read before the repositories were swept. A log whose attempt is
    /// not there is looked up again (it may have been recorded since), and without any
    /// attempt at all it goes by its own age. Returns the attempts whose log was removed.
    async fn sweep_logs(
        &self,
        ended: &BTreeMap<&str, (AttemptState, i64)>,
        now_ms: i64,
        retention_days: u32,
    ) -> Vec<String> {
        let dir = crate::handoff::detached_logs_dir(self.home(), crate::handoff::JobKind::Attempt);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut removed = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".log"))
                .map(str::to_owned)
            else {
                continue;
            };
            let known = match ended.get(id.as_str()) {
                Some(known) => Some(*known),
                None => match self.store().attempt(&id).await {
                    Ok(row) => row.map(|r| (r.state, r.finished_ms.unwrap_or(r.updated_ms))),
                    Err(error) => {
                        tracing::warn!(%id, %error, "attempt unreadable; its log stays");
                        continue;
                    }
                },
            };
            let keep = match known {
                Some((state, at)) => keeps_log(state, at, now_ms, retention_days),
                None => {
                    let modified = entry
                        .metadata()
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .and_then(|d| i64::try_from(d.as_millis()).ok());
                    let Some(modified) = modified else { continue };
                    // A log without an attempt is never live: it goes by its own age.
                    keeps_log(AttemptState::Canceled, modified, now_ms, retention_days)
                }
            };
            if keep {
                continue;
            }
            match std::fs::remove_file(&path) {
                Ok(()) => removed.push(id),
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "log not removed");
                }
            }
        }
        removed.sort();
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchyard_core::attempt::retention::DAY_MS;

    fn row(id: &str, worktree: &str, state: AttemptState, ended_ms: i64) -> WorktreeRow {
        WorktreeRow {
            id: id.into(),
            repo: "/r".into(),
            worktree_id: worktree.into(),
            state,
            ended_ms,
        }
    }

    #[test]
    fn a_shared_worktree_stays_while_any_attempt_in_it_keeps_it() {
        let now = 30 * DAY_MS;
        let rows = [
            // A revision chain: the first attempt was superseded, its revision is in review.
            row("a", "a", AttemptState::Superseded, 0),
            row("b", "a", AttemptState::Review, 0),
            // A chain whose revision failed long ago.
            row("c", "c", AttemptState::Superseded, 0),
            row("d", "c", AttemptState::Failed, 0),
            // Recent failure, old cancel, an interrupted one from yesterday.
            row("e", "e", AttemptState::Failed, now - DAY_MS),
            row("f", "f", AttemptState::Canceled, now - 8 * DAY_MS),
            row("g", "g", AttemptState::Interrupted, now - DAY_MS),
            row("h", "h", AttemptState::Rejected, now),
        ];
        assert_eq!(kept_worktrees(&rows, now, 7), ["a", "e", "g"]);
        assert_eq!(kept_worktrees(&rows, now, 0), ["a"]);
    }
}
