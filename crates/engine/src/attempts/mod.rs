//! Attempts: one worker edits its own worktree from a pinned base; Switchyard captures the
//! diff, runs its gates and its own verification, and the user reviews before anything is
//! committed to their branch.
//!
//! Pipeline (`pipeline`): queued → preparing (worktree, worker binary and version) → running
//! (the worker through `runner::process`, its output parsed into normalized events) →
//! verifying (capture, gates, verification) → review. Every transition is a guarded update in
//! the store (the attempt's state as last seen and this engine's lease), stored before it is
//! broadcast as [`crate::EngineEvent::AttemptState`]; worker output is stored as numbered log
//! entries, each broadcast as [`crate::EngineEvent::AttemptLog`] after it is stored.
//!
//! Ownership (`lease`): a live attempt is leased by one engine instance (pid + random token,
//! kept as a run's is: `crate::owner`). At open, live attempts whose owner is gone become
//! `interrupted`; [`Engine::recover_attempt`] re-captures and re-verifies them (`recover`). An
//! engine never advances an attempt it does not own, and opening a second engine never
//! disturbs a live owner. [`Engine::cancel_attempt`] of an attempt another process runs is a
//! request stored on its row, which the owner sees when it renews its lease (every 250 ms).
//!
//! Retention (`retention`): at open and on demand, the worktrees, branches and detached logs
//! nothing keeps any more are removed ([`Engine::prune_worktrees`]).
//!
//! Detached attempts (`detach`): the lease handed to another process at start, so the
//! starting one may exit (the CLI's `run --detach`).
//!
//! Review actions (`review`): approve (re-hash, commit, integrate), reject, request changes
//! (a new attempt on the same worktree), recover. Compare groups (`compare`).

mod artifacts;
mod binary;
mod compare;
mod detach;
mod launch;
mod lease;
mod pipeline;
pub(crate) mod record;
pub(crate) use record::json;
mod recover;
mod retention;
mod review;
mod self_review;
pub(crate) use self_review::SELF_REVIEW_MAX_TOKENS;
mod sink;
mod start;

pub(crate) use record::now_ms;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use switchyard_core::attempt::{
    AttemptLog, AttemptLogEntry, AttemptReview, AttemptState, AttemptSummary, DiffAgainst,
};
pub use switchyard_core::attempt::{CompareSummary, RepoProbe};
use switchyard_core::review::diff::FileChange;
use switchyard_core::verify::default_verification;
use switchyard_runner::git::{Git, Repo};
use tokio_util::sync::CancellationToken;

use crate::events::EngineEvent;
use crate::{Engine, EngineError};

pub(crate) use lease::AttemptsRuntime;

// For runs, whose code nodes are attempts.
pub(crate) use launch::MODEL_MAX_TOKENS;
pub(crate) use start::Origin;

/// Most log entries [`Engine::attempt_log`] returns at once; page with `after_seq`.
pub const MAX_LOG_PAGE: u32 = 10_000;

/// How often [`Engine::wait_attempt`] re-reads an attempt owned by another process.
const WAIT_POLL: Duration = Duration::from_millis(250);

/// How long [`Engine::cancel_attempt`] waits for another process to stop an attempt it runs.
pub const CANCEL_WAIT: Duration = Duration::from_secs(10);

impl Engine {
    /// Every attempt, newest first.
    pub async fn list_attempts(&self) -> Result<Vec<AttemptSummary>, EngineError> {
        let now = record::now_ms();
        Ok(self
            .store()
            .attempts()
            .await?
            .iter()
            .map(|row| record::summary(row, now))
            .collect())
    }

    /// Attempts started on their own (not a run's node tries), newest first.
    pub async fn list_standalone_attempts(&self) -> Result<Vec<AttemptSummary>, EngineError> {
        let now = record::now_ms();
        Ok(self
            .store()
            .standalone_attempts()
            .await?
            .iter()
            .map(|row| record::summary(row, now))
            .collect())
    }

    /// Everything review shows for attempt `id`. Errors: `NotFound`.
    pub async fn attempt_review(&self, id: &str) -> Result<AttemptReview, EngineError> {
        let row = self.attempt_row(id).await?;
        self.review_of(&row).await
    }

    /// The attempt's summary alone (no diff read: cheap even for a huge change).
    /// Errors: `NotFound`.
    pub async fn attempt_summary(&self, id: &str) -> Result<AttemptSummary, EngineError> {
        let row = self.attempt_row(id).await?;
        Ok(record::summary(&row, record::now_ms()))
    }

    /// [`Self::attempt_review`] with the hunks of each diff (against the base, and for a
    /// revision against the previous attempt) kept only for its first files, up to
    /// `line_budget` diff lines; the other files keep their stats and are marked
    /// `hunks_deferred` (fetch each with [`Self::attempt_file_diff`]). For a page that must
    /// show a large change at once. Errors: `NotFound`.
    pub async fn attempt_review_budgeted(
        &self,
        id: &str,
        line_budget: usize,
    ) -> Result<AttemptReview, EngineError> {
        let mut review = self.attempt_review(id).await?;
        review.defer_hunks(line_budget);
        Ok(review)
    }

    /// One file's change, with every hunk, from the stored diff of attempt `id` against
    /// `against` (the base, or for a revision the previous attempt). `path` is the file's
    /// (new) path as listed in that diff. Errors: `NotFound` (no such attempt, no such diff
    /// captured, or no such file in it).
    pub async fn attempt_file_diff(
        &self,
        id: &str,
        path: &str,
        against: DiffAgainst,
    ) -> Result<FileChange, EngineError> {
        self.attempt_row(id).await?;
        let diff = self.cached_diff(id, against).await.ok_or_else(|| {
            EngineError::NotFound(match against {
                DiffAgainst::Base => format!("attempt {id} has no captured diff"),
                DiffAgainst::Previous => {
                    format!("attempt {id} has no diff against a previous attempt")
                }
            })
        })?;
        diff.files
            .iter()
            .find(|f| f.path == path)
            .cloned()
            .ok_or_else(|| {
                EngineError::NotFound(format!("attempt {id} did not change the file {path}"))
            })
    }

    /// The attempt's log entries after `after_seq` (0: from the start), in order, at most
    /// [`MAX_LOG_PAGE`]. Errors: `NotFound`.
    pub async fn attempt_log(
        &self,
        id: &str,
        after_seq: u32,
    ) -> Result<Vec<AttemptLogEntry>, EngineError> {
        self.attempt_row(id).await?;
        let rows = self
            .store()
            .events(
                switchyard_store::journal::Journal::Attempt,
                id,
                after_seq,
                MAX_LOG_PAGE,
            )
            .await?;
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            let entry: AttemptLog = serde_json::from_str(&row.body_json).map_err(|e| {
                EngineError::Internal(format!("log entry {} of {id} is unreadable: {e}", row.seq))
            })?;
            entries.push(AttemptLogEntry {
                seq: row.seq,
                at_ms: row.at_ms,
                entry,
            });
        }
        Ok(entries)
    }

    /// Waits until attempt `id` is no longer live (review, failed, canceled, interrupted, …)
    /// and returns its review. Works for attempts owned by another process too (it re-reads
    /// the store). Errors: `NotFound`; `Canceled` when the engine closes meanwhile.
    pub async fn wait_attempt(&self, id: &str) -> Result<AttemptReview, EngineError> {
        let mut events = self.subscribe();
        let closing = self.supervisor.cancellation();
        loop {
            let row = self.attempt_row(id).await?;
            if !row.state.is_live() {
                return self.review_of(&row).await;
            }
            // An owner that died (the app killed mid-attempt) never finishes it: say so now
            // rather than wait forever.
            if self.interrupt_if_orphaned(&row).await? {
                continue;
            }
            let changed = async {
                loop {
                    match events.recv().await {
                        Ok(EngineEvent::AttemptState { attempt_id, .. }) if attempt_id == id => {
                            return
                        }
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            std::future::pending::<()>().await;
                        }
                    }
                }
            };
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep(WAIT_POLL) => {}
                () = closing.cancelled() => {
                    return Err(EngineError::Canceled("the engine is closing".into()));
                }
            }
        }
    }

    /// Cancels attempt `id`: stops its worker or verification (INT → TERM → KILL to the
    /// group) and returns it once it is no longer live (`canceled`, or where it got to first).
    /// An interrupted attempt is canceled at once. An attempt another Switchyard process runs
    /// is asked to stop through the store; its owner notices within a quarter of a second, and
    /// this waits up to [`CANCEL_WAIT`] for it.
    ///
    /// Errors: `NotFound`; `Busy` when another process runs it and has not stopped it within
    /// [`CANCEL_WAIT`] (the request stays: it stops when that process next looks); `InvalidInput`
    /// when it is no longer live (review, approved, final).
    pub async fn cancel_attempt(&self, id: &str) -> Result<AttemptSummary, EngineError> {
        let row = self.attempt_row(id).await?;
        // Checked first: a pipeline that just ended may still be listed as ours for a moment.
        if !row.state.is_live() && row.state != AttemptState::Interrupted {
            return Err(not_live(&row));
        }
        if self.attempts.cancel(id) {
            let review = self.wait_attempt(id).await?;
            return Ok(review.summary);
        }
        if row.state == AttemptState::Interrupted {
            return self.cancel_interrupted(&row).await;
        }
        self.cancel_elsewhere(&row).await
    }

    /// Cancels interrupted `row` (nobody runs it).
    async fn cancel_interrupted(
        &self,
        row: &switchyard_store::attempts::AttemptRow,
    ) -> Result<AttemptSummary, EngineError> {
        let moved = self
            .move_attempt(
                row,
                AttemptState::Canceled,
                None,
                switchyard_store::attempts::AttemptChanges::new()
                    .finished_ms(record::now_ms())
                    .clear_cancel_request(),
                Some("canceled while interrupted".into()),
            )
            .await?;
        if !moved {
            return Err(EngineError::Busy(format!(
                "attempt {} changed meanwhile; look again",
                row.id
            )));
        }
        Ok(record::summary(
            &self.attempt_row(&row.id).await?,
            record::now_ms(),
        ))
    }

    /// Asks the process that runs live `row` to cancel it and waits (bounded) until it is no
    /// longer live. An owner that dies meanwhile leaves it interrupted: that is canceled here.
    async fn cancel_elsewhere(
        &self,
        row: &switchyard_store::attempts::AttemptRow,
    ) -> Result<AttemptSummary, EngineError> {
        let id = row.id.as_str();
        if !self
            .store()
            .request_cancel(
                switchyard_store::lease::Leased::Attempt,
                id,
                record::now_ms(),
            )
            .await?
        {
            // It stopped being live between the read and the request.
            let now = self.attempt_row(id).await?;
            if now.state == AttemptState::Interrupted {
                return self.cancel_interrupted(&now).await;
            }
            return Ok(record::summary(&now, record::now_ms()));
        }
        let owner = row.owner_pid.unwrap_or_default();
        tracing::info!(attempt = %id, owner, "asked the owning process to cancel");
        let Ok(review) = tokio::time::timeout(CANCEL_WAIT, self.wait_attempt(id)).await else {
            return Err(EngineError::Busy(format!(
                "asked the Switchyard process that runs attempt {id} (pid {owner}) to cancel \
                 it, but it has not stopped within {} s; it will when that process next \
                 checks, or stop that process",
                CANCEL_WAIT.as_secs()
            )));
        };
        review?;
        let ended = self.attempt_row(id).await?;
        if ended.state == AttemptState::Interrupted {
            return self.cancel_interrupted(&ended).await;
        }
        Ok(record::summary(&ended, record::now_ms()))
    }

    /// The repository containing `repo` as the New task form shows it: top level, branch,
    /// head, dirty paths and the detected verification commands.
    ///
    /// Errors: `InvalidInput` when it is not a git repository with a commit.
    pub async fn detect_verification(&self, repo: &str) -> Result<RepoProbe, EngineError> {
        let opened = open_repo(repo).await?;
        let base = opened.resolve_base().await.map_err(invalid_repo(repo))?;
        Ok(RepoProbe {
            toplevel: opened.toplevel().display().to_string(),
            branch: base.branch,
            head: base.commit,
            dirty: base.dirty_files,
            verify: detect_commands(opened.toplevel()),
        })
    }
}

/// `InvalidInput`: `row` is not live, so there is nothing to cancel.
fn not_live(row: &switchyard_store::attempts::AttemptRow) -> EngineError {
    EngineError::InvalidInput(format!(
        "attempt {} is {}; only a live attempt can be canceled",
        row.id,
        row.state.as_str()
    ))
}

/// Opens the repository containing `path`; not a repository → `InvalidInput`.
pub(crate) async fn open_repo(path: &str) -> Result<Repo, EngineError> {
    if path.trim().is_empty() {
        return Err(EngineError::InvalidInput(
            "choose a repository folder".into(),
        ));
    }
    Repo::open(&Git::new(), Path::new(path.trim()))
        .await
        .map_err(invalid_repo(path))
}

fn invalid_repo(path: &str) -> impl FnOnce(switchyard_runner::git::GitError) -> EngineError + '_ {
    move |error| match error {
        // Its message names the path already.
        switchyard_runner::git::GitError::NotARepo { .. } => {
            EngineError::InvalidInput(error.to_string())
        }
        switchyard_runner::git::GitError::BaseMissing { .. } => {
            EngineError::InvalidInput(format!("{path}: {error}"))
        }
        other => EngineError::Git(other),
    }
}

/// The default verification commands for the repository at `toplevel`, from the names at its
/// root (an unreadable root suggests nothing; the user types the commands).
pub(crate) fn detect_commands(toplevel: &Path) -> Vec<String> {
    let names: Vec<String> = std::fs::read_dir(toplevel)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let package_json = std::fs::read_to_string(toplevel.join("package.json")).ok();
    default_verification(&names, package_json.as_deref())
}

/// Cancellation tokens of the attempts this engine is running, by id.
#[derive(Debug, Default)]
pub(crate) struct Running {
    tokens: Mutex<HashMap<String, CancellationToken>>,
}

impl Running {
    pub(crate) fn insert(&self, id: &str, token: CancellationToken) {
        self.lock().insert(id.to_owned(), token);
    }

    pub(crate) fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Cancels `id` if this engine runs it.
    pub(crate) fn cancel(&self, id: &str) -> bool {
        match self.lock().get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.tokens.lock().unwrap_or_else(|p| p.into_inner())
    }
}
