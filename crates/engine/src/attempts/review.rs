//! The user's decisions: approve (re-hash, commit, integrate), reject, request changes.
//!
//! Each action takes the attempt's lease for its duration (a guarded update from "free" to
//! this engine), so two processes cannot approve or reject one attempt at once, and releases
//! it when done, whatever the outcome.

use std::future::Future;
use std::sync::Arc;

use switchyard_core::attempt::{
    AttemptRequest, AttemptReview, AttemptState, AttemptSummary, IntegrationRecord, LineComment,
    ReviewDecision,
};
use switchyard_core::review::gates::GateName;
use switchyard_runner::git::{integrate, GitError, Identity, IntegrationKind};
use switchyard_store::attempts::{AttemptChanges, AttemptRow, Guard};

use super::open_repo;
use super::record::{approve_blocked, now_ms};
use super::start::{Origin, Prepared};
use crate::{Engine, EngineError};

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, EngineError> {
    serde_json::to_string(value).map_err(|e| EngineError::Internal(format!("json: {e}")))
}

/// The prompt of a revision: the previous prompt, then the reviewer's comments.
fn revision_prompt(previous: &str, comment: &str, lines: &[LineComment]) -> String {
    let mut prompt = format!("{previous}\n\n## Review comments on your previous attempt\n");
    if !comment.trim().is_empty() {
        prompt.push_str(comment.trim());
        prompt.push('\n');
    }
    for line in lines {
        prompt.push_str(&format!(
            "- {}:{}: {}\n",
            line.path,
            line.line,
            line.text.trim()
        ));
    }
    prompt.push_str(
        "\nThe worktree still holds your previous change; revise it to address the comments.",
    );
    prompt
}

impl Engine {
    /// Takes the lease of `row` (which must be free, in `row.state`), runs `action`, and
    /// releases the lease in whatever state the action left the attempt.
    async fn with_lease<T, F, Fut>(&self, row: &AttemptRow, action: F) -> Result<T, EngineError>
    where
        F: FnOnce(AttemptRow) -> Fut,
        Fut: Future<Output = Result<T, EngineError>>,
    {
        let token = self.owner.token.clone();
        let taken = self
            .store()
            .update_attempt(
                &row.id,
                Guard {
                    state: row.state,
                    owner: None,
                },
                now_ms(),
                &AttemptChanges::new().owner(self.owner.pid, &token, now_ms()),
            )
            .await?;
        if !taken {
            return Err(EngineError::Busy(format!(
                "attempt {} is being changed by another action or process; look again",
                row.id
            )));
        }
        let leased = self.attempt_row(&row.id).await?;
        let result = action(leased).await;
        let now = self.attempt_row(&row.id).await?;
        if now.owner_token.as_deref() == Some(token.as_str()) {
            self.store()
                .update_attempt(
                    &row.id,
                    Guard {
                        state: now.state,
                        owner: Some(&token),
                    },
                    now_ms(),
                    &AttemptChanges::new().release(),
                )
                .await?;
        }
        result
    }

    /// Approves attempt `id`: it must be in `review` (or `approved`, to retry an integration
    /// that conflicted) with every gate passed. Re-captures the worktree and refuses
    /// (`Changed`) if its hash differs from the verified one; commits exactly the verified
    /// tree on `switchyard/<id>`; with `integrate`, puts that one commit on the target branch
    /// (fast-forward or clean merge) and removes the worktree.
    ///
    /// Errors: `NotFound`; `InvalidInput` (wrong state, detached base); `GateFailed`;
    /// `Changed`; `Conflict` (names the files; the target branch and the user's working tree
    /// are untouched and the attempt stays `approved`); `Busy`.
    pub async fn approve_attempt(
        &self,
        id: &str,
        message: &str,
        integrate_now: bool,
    ) -> Result<AttemptReview, EngineError> {
        let row = self.attempt_row(id).await?;
        if !matches!(row.state, AttemptState::Review | AttemptState::Approved) {
            return Err(EngineError::InvalidInput(format!(
                "attempt {id} is {}; only an attempt in review can be approved",
                row.state.as_str()
            )));
        }
        let review = self.review_of(&row).await?;
        if let Some(blocked) = approve_blocked(&row, &review.gates) {
            let message = format!("attempt {id} cannot be approved: {blocked}");
            let locked = review
                .gates
                .iter()
                .find(|g| !g.passed)
                .is_some_and(|g| g.name == GateName::LockedPaths);
            return Err(if locked {
                EngineError::LockedPath(message)
            } else {
                EngineError::GateFailed(message)
            });
        }
        let approved = self
            .with_lease(&row, |leased| {
                self.approve_leased(leased, message, integrate_now)
            })
            .await;
        // Also after a conflict: the attempt stays approved, and so does its run.
        self.sync_run_of(id).await;
        approved?;
        self.attempt_review(id).await
    }

    async fn approve_leased(
        &self,
        row: AttemptRow,
        message: &str,
        integrate_now: bool,
    ) -> Result<(), EngineError> {
        let token = self.owner.token.clone();
        let message = if message.trim().is_empty() {
            row.task.lines().next().unwrap_or_default().to_owned()
        } else {
            message.trim().to_owned()
        };
        let worktree = self.attempt_worktree(&row, false).await?;
        let identity = user_identity(&row.repo).await;
        let mut row = row;
        if row.state == AttemptState::Review {
            let verified = row.diff_sha256.clone().ok_or_else(|| {
                EngineError::GateFailed("the attempt has no verified diff".into())
            })?;
            let full = with_trailers(&message, &row.id, &row.worker, &verified);
            let commit = match worktree.commit(&full, &identity, Some(&verified)).await {
                Ok(commit) => commit,
                Err(GitError::Changed { expected, actual }) => {
                    return Err(EngineError::Changed(format!(
                        "the worktree of attempt {} changed since verification (diff {} is \
                         now {}); nothing was committed — reject it or request changes",
                        row.id,
                        &expected[..expected.len().min(12)],
                        &actual[..actual.len().min(12)]
                    )))
                }
                Err(other) => return Err(other.into()),
            };
            let decision = ReviewDecision::Approved {
                message: message.clone(),
                commit: Some(commit.clone()),
            };
            if !self
                .move_attempt(
                    &row,
                    AttemptState::Approved,
                    Some(&token),
                    AttemptChanges::new()
                        .commit(commit)
                        .decision(to_json(&decision)?),
                    None,
                )
                .await?
            {
                return Err(EngineError::Busy(format!(
                    "attempt {} moved meanwhile",
                    row.id
                )));
            }
            row = self.attempt_row(&row.id).await?;
        }
        if !integrate_now {
            return Ok(());
        }
        let target = row.target_branch.clone().ok_or_else(|| {
            EngineError::InvalidInput(format!(
                "attempt {} was started on a detached HEAD: there is no branch to integrate \
                 into (its commit is on {})",
                row.id,
                worktree.branch()
            ))
        })?;
        let commit = row
            .commit_id
            .clone()
            .ok_or_else(|| EngineError::Internal("an approved attempt has no commit".into()))?;
        let repo = open_repo(&row.repo).await?;
        let integration = match integrate(&repo, self.home(), &target, &commit, &identity).await {
            Ok(integration) => integration,
            Err(error @ (GitError::Conflict { .. } | GitError::Dirty { .. })) => {
                return Err(EngineError::Conflict(format!(
                    "{error}. The branch and your working tree are unchanged; attempt {} \
                         stays approved",
                    row.id
                )))
            }
            Err(other) => return Err(other.into()),
        };
        let record = IntegrationRecord {
            branch: integration.branch,
            old: integration.old,
            new: integration.new,
            fast_forward: matches!(
                integration.kind,
                IntegrationKind::FastForward | IntegrationKind::AlreadyIntegrated
            ),
        };
        if !self
            .move_attempt(
                &row,
                AttemptState::Integrated,
                Some(&token),
                AttemptChanges::new().integration(to_json(&record)?),
                None,
            )
            .await?
        {
            return Err(EngineError::Busy(format!(
                "attempt {} moved meanwhile",
                row.id
            )));
        }
        self.remove_worktree(&row).await;
        Ok(())
    }

    /// Removes `row`'s worktree and branch unless a later attempt still works in it.
    async fn remove_worktree(&self, row: &AttemptRow) {
        let in_use = match self.store().attempts().await {
            Ok(rows) => rows.iter().any(|other| {
                other.id != row.id
                    && other.worktree_id == row.worktree_id
                    && other.state.keeps_worktree()
            }),
            Err(_) => true,
        };
        if in_use {
            return;
        }
        match self.attempt_worktree(row, false).await {
            Ok(worktree) => {
                if let Err(error) = worktree.remove().await {
                    tracing::warn!(attempt = %row.id, %error, "worktree not removed; the sweep will");
                }
            }
            Err(error) => tracing::info!(attempt = %row.id, %error, "no worktree to remove"),
        }
    }

    /// Rejects attempt `id` (in review, or approved but not integrated) with `reason` and
    /// removes its worktree and branch. Errors: `NotFound`, `InvalidInput` (state), `Busy`.
    pub async fn reject_attempt(
        &self,
        id: &str,
        reason: &str,
    ) -> Result<AttemptReview, EngineError> {
        let row = self.attempt_row(id).await?;
        if !row.state.can_move_to(AttemptState::Rejected) {
            return Err(EngineError::InvalidInput(format!(
                "attempt {id} is {}; only an attempt in review or approved can be rejected",
                row.state.as_str()
            )));
        }
        let decision = ReviewDecision::Rejected {
            reason: reason.trim().to_owned(),
        };
        let token = self.owner.token.clone();
        self.with_lease(&row, |leased| async move {
            if !self
                .move_attempt(
                    &leased,
                    AttemptState::Rejected,
                    Some(&token),
                    AttemptChanges::new().decision(to_json(&decision)?),
                    Some(reason.trim().to_owned()).filter(|r| !r.is_empty()),
                )
                .await?
            {
                return Err(EngineError::Busy(format!("attempt {id} moved meanwhile")));
            }
            self.remove_worktree(&leased).await;
            Ok(())
        })
        .await?;
        self.sync_run_of(id).await;
        self.attempt_review(id).await
    }

    /// Requests changes on attempt `id` (in review): a new attempt of the same worker
    /// continues in the same worktree and branch with the comments in its prompt; `id`
    /// becomes `superseded`. Returns the new attempt.
    ///
    /// Takes `self: &Arc<Self>` because the new attempt's pipeline outlives the call.
    /// Errors: `NotFound`, `InvalidInput` (state, no comment), `Busy`.
    pub async fn request_changes(
        self: &Arc<Self>,
        id: &str,
        comment: &str,
        lines: Vec<LineComment>,
    ) -> Result<AttemptSummary, EngineError> {
        let row = self.attempt_row(id).await?;
        if row.state != AttemptState::Review {
            return Err(EngineError::InvalidInput(format!(
                "attempt {id} is {}; changes can be requested only in review",
                row.state.as_str()
            )));
        }
        if comment.trim().is_empty() && lines.iter().all(|l| l.text.trim().is_empty()) {
            return Err(EngineError::InvalidInput("write a comment first".into()));
        }
        let request: AttemptRequest = serde_json::from_str(&row.request_json)
            .map_err(|e| EngineError::Internal(format!("stored request: {e}")))?;
        let verify: Vec<String> = serde_json::from_str(&row.verify_json).unwrap_or_default();
        let repo = open_repo(&row.repo).await?;
        let mut base = repo.resolve_base().await?;
        base.commit.clone_from(&row.base);
        base.branch.clone_from(&row.target_branch);
        let prepared = Prepared {
            request,
            toplevel: row.repo.clone(),
            base,
            prompt: revision_prompt(&row.prompt, comment, &lines),
            verify,
        };
        let token = self.owner.token.clone();
        let engine = self.clone();
        let next = self
            .with_lease(&row, |leased| async move {
                let next = engine
                    .launch_attempt(
                        &prepared,
                        &leased.worker,
                        &leased.launcher,
                        Origin {
                            compare: None,
                            parent: Some(leased.id.clone()),
                            worktree: Some(leased.worktree_id.clone()),
                        },
                    )
                    .await?;
                let decision = ReviewDecision::ChangesRequested {
                    comment: comment.trim().to_owned(),
                    lines,
                    next_attempt: next.id.clone(),
                };
                engine
                    .move_attempt(
                        &leased,
                        AttemptState::Superseded,
                        Some(&token),
                        AttemptChanges::new().decision(to_json(&decision)?),
                        Some(format!("changes requested; continued by {}", next.id)),
                    )
                    .await?;
                Ok(next)
            })
            .await?;
        self.sync_run_to_revision(id, &next.id).await;
        Ok(next)
    }
}

/// The user's git identity for `repo` (see `Repo::user_identity`), else Switchyard's own.
async fn user_identity(repo: &str) -> Identity {
    match open_repo(repo).await {
        Ok(repo) => match repo.user_identity().await {
            Ok(Some(identity)) => identity,
            Ok(None) => Identity::default(),
            Err(error) => {
                tracing::info!(%error, "git identity unreadable; committing as Switchyard");
                Identity::default()
            }
        },
        Err(_) => Identity::default(),
    }
}

/// `message` with git trailers naming where the change came from: the attempt, its worker
/// (with the model it was routed to) and the SHA-256 of the diff Switchyard verified.
fn with_trailers(message: &str, attempt: &str, worker: &str, diff_sha256: &str) -> String {
    let worker = worker.replace(['\n', '\r'], " ");
    let mut trailers = format!("Switchyard-Attempt: {attempt}\nSwitchyard-Worker: {worker}\n");
    if let Some(model) = switchyard_core::worker::WorkerSpec::parse(&worker)
        .ok()
        .and_then(|spec| spec.routed_model().map(str::to_owned))
    {
        trailers.push_str(&format!("Switchyard-Model: {model}\n"));
    }
    trailers.push_str(&format!("Switchyard-Diff-SHA256: {diff_sha256}\n"));
    format!("{}\n\n{trailers}", message.trim_end())
}
