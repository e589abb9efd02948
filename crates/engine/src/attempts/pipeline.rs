//! One attempt from `queued` to `review` (or `failed` / `canceled`), run by its owner.

use std::time::Duration;

use switchyard_core::attempt::{AttemptLog, AttemptRequest, AttemptState};
use switchyard_core::confinement::{ConfinementMode, Denial, DenialKind, DenialSource};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::diff::CapturedDiff;
use switchyard_core::review::gates::{
    Finding, GateName, GatePolicy, GateResult, KnownKey, LockedPaths, SizeLimits, MAX_FINDINGS,
};
use switchyard_core::verify::VerificationRecord;
use switchyard_keychain::Secret;
use switchyard_runner::git::{Area, RepoChange, RepoSnapshot, Worktree};
use switchyard_runner::verify::{verify, VerifyOptions};
use switchyard_store::attempts::{AttemptChanges, AttemptRow, Guard};
use tokio_util::sync::CancellationToken;

use super::artifacts::{DIFF_ARTIFACT, PREVIOUS_DIFF_ARTIFACT, VERIFICATION_ARTIFACT};
use super::launch::WorkerEnd;
use super::open_repo;
use super::record::{code_name, now_ms};
use super::start::parse_worker;
use crate::confinement::Jail;
use crate::{Engine, EngineError};

/// A worker's time limit when the request names none.
pub const DEFAULT_WORKER_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Each verification command's time limit.
pub const VERIFY_TIMEOUT: Duration = Duration::from_secs(15 * 60);

fn internal(what: &str) -> impl FnOnce(serde_json::Error) -> EngineError + '_ {
    move |e| EngineError::Internal(format!("{what}: {e}"))
}

/// Switchyard's verification as the last gate.
pub(crate) fn verification_gate(record: &VerificationRecord) -> GateResult {
    if record.commands.is_empty() {
        return GateResult {
            name: GateName::Verification,
            passed: true,
            detail: "no verification commands are configured".to_owned(),
            evidence: Vec::new(),
        };
    }
    let evidence: Vec<Finding> = record
        .commands
        .iter()
        .filter(|c| !c.passed)
        .map(|c| Finding {
            path: String::new(),
            line: None,
            rule: Some(c.command.clone()),
            message: match (&c.error, c.exit_code, c.summary()) {
                (Some(error), _, _) => format!("could not start: {error}"),
                (None, code, Some(summary)) => match code {
                    Some(code) => format!("{summary} (exit {code})"),
                    None => summary,
                },
                (None, Some(code), None) => format!("exited with code {code}"),
                (None, None, None) => format!("{:?}", c.outcome).to_lowercase(),
            },
        })
        .collect();
    let detail = match evidence.first() {
        None => format!(
            "{} verification command(s) passed: {}",
            record.commands.len(),
            record
                .commands
                .iter()
                .map(|c| c.summary().unwrap_or_else(|| c.command.clone()))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Some(first) => format!(
            "blocked: `{}` failed: {}",
            first.rule.as_deref().unwrap_or_default(),
            first.message
        ),
    };
    GateResult {
        name: GateName::Verification,
        passed: record.passed,
        detail,
        evidence,
    }
}

/// The confinement of one attempt while it is checked: its jail, the repository as it was
/// before the worker started, and what had changed outside the worktree after the worker.
pub(crate) struct Confined<'a> {
    pub jail: &'a Jail,
    pub snapshot: &'a RepoSnapshot,
    pub outside: Vec<RepoChange>,
}

fn area_name(area: Area) -> &'static str {
    match area {
        Area::GitDir => "git directory",
        Area::Refs => "refs",
        Area::Gitfile => "worktree's link to the repository",
        Area::Checkout => "your checkout",
        Area::Home => "CLI's own configuration in your home",
    }
}

/// A change outside the worktree blocks when the worker could have made it: in the git
/// directory, the worktree's link to it and the CLI's own configuration under the user's home
/// always (defence in depth: put back either way, and the first two are read-only in the
/// sandbox), in refs and the user's checkout only when the worker
/// ran unconfined (confined, it could not write there, so such a change is the user's own).
fn blocks(change: &RepoChange, confined: bool) -> bool {
    match change.area {
        Area::GitDir | Area::Gitfile | Area::Home => true,
        Area::Refs | Area::Checkout => !confined,
    }
}

fn repository_denial(change: &RepoChange) -> Denial {
    Denial {
        kind: DenialKind::Repository,
        source: DenialSource::Worker,
        target: change.what.clone(),
        detail: format!(
            "{} {} in the {}{}",
            change.what,
            change.how,
            area_name(change.area),
            if change.restored {
                "; put back as it was"
            } else {
                ""
            }
        ),
    }
}

/// The `repository` gate over what changed outside the worktree.
pub(crate) fn repository_gate(changes: &[RepoChange], confined: bool) -> GateResult {
    let mut evidence: Vec<Finding> = changes
        .iter()
        .map(|change| Finding {
            path: change.what.clone(),
            line: None,
            rule: Some(area_name(change.area).to_owned()),
            message: match (change.restored, blocks(change, confined)) {
                (true, _) => format!("{}; put back as it was", change.how),
                (false, true) => format!("{}; not undone", change.how),
                (false, false) => format!(
                    "{} while the worker ran; not by the worker (its sandbox could not write \
                     there), so it is left as it is",
                    change.how
                ),
            },
        })
        .collect();
    evidence.truncate(MAX_FINDINGS);
    let blocking: Vec<&RepoChange> = changes.iter().filter(|c| blocks(c, confined)).collect();
    let detail = match blocking.first() {
        None if changes.is_empty() => {
            "nothing outside the worktree changed: the repository's config, hooks, info and \
             refs, the worktree's .git file and your checkout are as they were"
                .to_owned()
        }
        None => format!(
            "{} change(s) outside the worktree while the worker ran, none by the worker",
            changes.len()
        ),
        Some(first) => format!(
            "blocked: {} change(s) outside the worktree, first {} {} in the {}{}",
            blocking.len(),
            first.what,
            first.how,
            area_name(first.area),
            if first.restored {
                " (put back as it was)"
            } else {
                ""
            }
        ),
    };
    GateResult {
        name: GateName::Repository,
        passed: blocking.is_empty(),
        detail,
        evidence,
    }
}

/// The verification gate when verifying changed the worktree.
fn changed_by_verification(before: &CapturedDiff, after: &CapturedDiff) -> GateResult {
    let mut changed: Vec<Finding> = after
        .files
        .iter()
        .filter(|file| !before.files.iter().any(|b| b == *file))
        .chain(
            before
                .files
                .iter()
                .filter(|file| !after.files.iter().any(|a| a.path == file.path)),
        )
        .map(|file| Finding {
            path: file.path.clone(),
            line: None,
            rule: None,
            message: "changed by the verification commands".to_owned(),
        })
        .collect();
    changed.truncate(MAX_FINDINGS);
    let first = changed
        .first()
        .map_or_else(String::new, |f| format!(", first {}", f.path));
    GateResult {
        name: GateName::Verification,
        passed: false,
        detail: format!(
            "blocked: the verification commands changed {} file(s) in the worktree{first}; \
             ignore build output in .gitignore so what is verified is what is approved",
            changed.len()
        ),
        evidence: changed,
    }
}

impl Engine {
    /// Runs attempt `id` (queued, leased by this engine) to its end. Never fails: an error
    /// ends the attempt as `failed` with its code (or `canceled`).
    pub(crate) async fn run_pipeline(&self, id: &str, cancel: CancellationToken) {
        let result = self
            .with_heartbeat(id, &cancel, self.pipeline(id, &cancel))
            .await;
        if let Err(error) = result {
            self.end_with_error(id, &error, &cancel).await;
        }
        let scratch = self.home().join("scratch").join(id);
        if scratch.exists() {
            if let Err(error) = std::fs::remove_dir_all(&scratch) {
                tracing::warn!(attempt = %id, %error, "scratch dir not removed");
            }
        }
    }

    async fn end_with_error(&self, id: &str, error: &EngineError, cancel: &CancellationToken) {
        let Ok(row) = self.attempt_row(id).await else {
            return;
        };
        let token = self.owner.token.as_str();
        if !row.state.is_live() || row.owner_token.as_deref() != Some(token) {
            return;
        }
        let (to, code) = if cancel.is_cancelled() {
            (AttemptState::Canceled, ErrorCode::Canceled)
        } else {
            (AttemptState::Failed, error.code())
        };
        tracing::warn!(attempt = %id, error = %error, "attempt ended with an error");
        let changes = AttemptChanges::new()
            .release()
            .finished_ms(now_ms())
            .error(&code_name(code), &error.to_string());
        if let Err(e) = self
            .move_attempt(&row, to, Some(token), changes, Some(error.to_string()))
            .await
        {
            tracing::warn!(attempt = %id, error = %e, "could not record the attempt's end");
        }
    }

    async fn pipeline(&self, id: &str, cancel: &CancellationToken) -> Result<(), EngineError> {
        let row = self.attempt_row(id).await?;
        let request: AttemptRequest =
            serde_json::from_str(&row.request_json).map_err(internal("stored request"))?;
        let spec = parse_worker(&row.worker)?;
        self.advance_owned(id, AttemptState::Preparing, AttemptChanges::new(), None)
            .await?;
        let worktree = self.attempt_worktree(&row, true).await?;
        let (jail, snapshot) = self.confine_attempt(&row, &worktree).await?;
        let started = now_ms();
        let report = serde_json::to_string(&jail.report()).map_err(internal("confinement"))?;
        self.advance_owned(
            id,
            AttemptState::Running,
            AttemptChanges::new()
                .started_ms(started)
                .confinement(report),
            None,
        )
        .await?;
        let timeout = request.timeout_secs.map_or(DEFAULT_WORKER_TIMEOUT, |s| {
            Duration::from_secs(u64::from(s))
        });
        let run = self
            .run_worker(
                id,
                &spec,
                &row.prompt,
                worktree.path(),
                timeout,
                cancel,
                &jail,
            )
            .await;
        // What the worker changed outside its worktree is put back at once, before anything
        // (the verification, the user's own git) can run it.
        let mut outside = snapshot.compare(worktree.repo(), true).await?;
        outside.extend(jail.home_changes(true));
        let guard = Confined {
            jail: &jail,
            snapshot: &snapshot,
            outside,
        };
        let mut changes = AttemptChanges::new().worker_version(run.version.clone());
        let worker_usage = run.usage;
        if let Some(usage) = run.usage {
            let json = serde_json::to_string(&usage).map_err(internal("usage"))?;
            changes = changes.usage(json, usage.cost_usd);
        }
        if run.end == WorkerEnd::Canceled || cancel.is_cancelled() {
            self.advance_owned(
                id,
                AttemptState::Canceled,
                changes
                    .release()
                    .finished_ms(now_ms())
                    .error(&code_name(ErrorCode::Canceled), "canceled"),
                Some("canceled".into()),
            )
            .await?;
            return Ok(());
        }
        let failure = match &run.end {
            WorkerEnd::Succeeded | WorkerEnd::Canceled => None,
            WorkerEnd::TimedOut(message) => Some((ErrorCode::Timeout, message.clone())),
            WorkerEnd::Failed { code, message } => Some((*code, message.clone())),
        };
        let note = failure.as_ref().map(|(_, m)| m.clone());
        let row = self
            .advance_owned(id, AttemptState::Verifying, changes, note)
            .await?;
        // A failed worker's change is still captured and gated so the user sees what it did;
        // verifying it would only spend time.
        self.check_worktree(&row, &worktree, failure.is_none(), cancel, guard)
            .await?;
        if cancel.is_cancelled() {
            self.advance_owned(
                id,
                AttemptState::Canceled,
                AttemptChanges::new()
                    .release()
                    .finished_ms(now_ms())
                    .error(&code_name(ErrorCode::Canceled), "canceled"),
                Some("canceled during verification".into()),
            )
            .await?;
            return Ok(());
        }
        let mut end = AttemptChanges::new();
        if failure.is_none() && request.self_review {
            if let Some(usage) = self
                .write_self_review(id, &spec, &row.task, worker_usage.as_ref(), cancel)
                .await
            {
                let json = serde_json::to_string(&usage).map_err(internal("usage"))?;
                end = end.usage(json, usage.cost_usd);
            }
        }
        let end = end.release().finished_ms(now_ms());
        match failure {
            Some((code, message)) => {
                self.advance_owned(
                    id,
                    AttemptState::Failed,
                    end.error(&code_name(code), &message),
                    Some(message.clone()),
                )
                .await?;
            }
            None => {
                self.advance_owned(id, AttemptState::Review, end, None)
                    .await?;
            }
        }
        Ok(())
    }

    /// The confinement of attempt `row` working in `worktree`, and the repository as it is
    /// before its worker (or, on recovery, its verification) runs.
    pub(crate) async fn confine_attempt(
        &self,
        row: &AttemptRow,
        worktree: &Worktree,
    ) -> Result<(Jail, RepoSnapshot), EngineError> {
        let request: AttemptRequest =
            serde_json::from_str(&row.request_json).map_err(internal("stored request"))?;
        let spec = parse_worker(&row.worker)?;
        let scratch = self.home().join("scratch").join(&row.id);
        let jail = self
            .jail(
                &spec,
                request.allow_network,
                &request.allow_write,
                &scratch,
                worktree,
            )
            .await?;
        let snapshot = RepoSnapshot::take(worktree.repo(), Some(worktree)).await?;
        Ok((jail, snapshot))
    }

    /// The worktree of `row`: created at its base for a first attempt (when `create`),
    /// otherwise the existing one it continues in.
    pub(crate) async fn attempt_worktree(
        &self,
        row: &AttemptRow,
        create: bool,
    ) -> Result<Worktree, EngineError> {
        let repo = open_repo(&row.repo).await?;
        if create && row.worktree_id == row.id {
            Ok(Worktree::create(&repo, &row.base, self.home(), &row.id).await?)
        } else {
            Ok(Worktree::open(
                &repo,
                &row.base,
                self.home(),
                &row.worktree_id,
            )?)
        }
    }

    /// Captures the worktree, runs the gates and (when `run_verification`) Switchyard's own
    /// verification, and records all of it on `row` (which must be `verifying`, leased by
    /// this engine).
    pub(crate) async fn check_worktree(
        &self,
        row: &AttemptRow,
        worktree: &Worktree,
        run_verification: bool,
        cancel: &CancellationToken,
        confined: Confined<'_>,
    ) -> Result<(), EngineError> {
        let Confined {
            jail,
            snapshot,
            mut outside,
        } = confined;
        let request: AttemptRequest =
            serde_json::from_str(&row.request_json).map_err(internal("stored request"))?;
        let commands: Vec<String> =
            serde_json::from_str(&row.verify_json).map_err(internal("stored commands"))?;
        let capture = worktree.capture().await?;
        let diff_json = serde_json::to_vec(&capture.diff).map_err(internal("diff"))?;
        self.write_artifact(&row.id, DIFF_ARTIFACT, &diff_json)
            .await?;
        self.record_previous_diff(row, worktree, &capture.tree)
            .await?;
        let policy = GatePolicy {
            locked: LockedPaths::new(&request.lock)
                .map_err(|e| EngineError::InvalidInput(e.to_string()))?,
            size: SizeLimits::default(),
        };
        let held = self.held_keys().await;
        let known: Vec<KnownKey<'_>> = held
            .iter()
            .map(|(label, secret)| KnownKey {
                label,
                value: secret.expose(),
            })
            .collect();
        let mut gates = worktree.run_gates(&capture, &policy, &known).await?;
        let confined_fs = jail.mode != ConfinementMode::None;
        for change in &outside {
            jail.deny(repository_denial(change));
        }
        gates.push(repository_gate(&outside, confined_fs));
        for gate in &gates {
            self.log_attempt(
                &row.id,
                AttemptLog::Gate {
                    result: gate.clone(),
                },
            )
            .await?;
        }
        let mut changes = AttemptChanges::new();
        if run_verification {
            let options = VerifyOptions {
                timeout: VERIFY_TIMEOUT,
                env: vec![("CI".to_owned(), "true".to_owned())],
                cancel: Some(cancel.clone()),
                sandbox: jail.verify_sandbox(),
                ..VerifyOptions::default()
            };
            let record = verify(worktree.path(), &commands, &options).await;
            for command in &record.commands {
                jail.refused_writes(DenialSource::Verification, &command.refused_writes);
            }
            for change in snapshot.compare(worktree.repo(), true).await? {
                if !outside.iter().any(|c| c.what == change.what) {
                    outside.push(change);
                }
            }
            let json = serde_json::to_string(&record).map_err(internal("verification"))?;
            self.write_artifact(&row.id, VERIFICATION_ARTIFACT, json.as_bytes())
                .await?;
            let mut gate = verification_gate(&record);
            // What is approved must be what was verified and gated: a verification that
            // leaves files behind (build output not ignored by .gitignore) would change the
            // hash under the reviewer, so it blocks here, naming the files.
            let after = worktree.capture().await?;
            if after.diff.sha256 != capture.diff.sha256 {
                gate = changed_by_verification(&capture.diff, &after.diff);
            }
            self.log_attempt(
                &row.id,
                AttemptLog::Gate {
                    result: gate.clone(),
                },
            )
            .await?;
            gates.push(gate);
            changes = changes.verification(json);
        }
        self.log_denials(&row.id, jail).await;
        let report = serde_json::to_string(&jail.report()).map_err(internal("confinement"))?;
        changes = changes.confinement(report);
        let passed = run_verification && gates.iter().all(|g| g.passed);
        let gates_json = serde_json::to_string(&gates).map_err(internal("gates"))?;
        let diff = &capture.diff;
        let files = u32::try_from(diff.files.len()).unwrap_or(u32::MAX);
        changes = changes
            .diff(diff.sha256.clone(), files, diff.additions, diff.deletions)
            .tree(capture.tree.clone())
            .gates(passed, gates_json);
        let guard = Guard {
            state: AttemptState::Verifying,
            owner: Some(&self.owner.token),
        };
        if !self
            .store()
            .update_attempt(&row.id, guard, now_ms(), &changes)
            .await?
        {
            return Err(EngineError::Canceled(format!(
                "attempt {} is no longer owned by this engine",
                row.id
            )));
        }
        Ok(())
    }

    /// For a revision, writes its change against the parent attempt's captured tree. A parent
    /// without a recorded tree (captured before trees were kept) or whose tree git no longer
    /// has leaves no artifact: the review then offers only the diff against the base.
    async fn record_previous_diff(
        &self,
        row: &AttemptRow,
        worktree: &Worktree,
        tree: &str,
    ) -> Result<(), EngineError> {
        let Some(parent) = row.parent.as_deref() else {
            return Ok(());
        };
        let Some(parent_tree) = self.attempt_row(parent).await?.diff_tree else {
            return Ok(());
        };
        match worktree.diff_trees(&parent_tree, tree).await {
            Ok(diff) => {
                let json = serde_json::to_vec(&diff).map_err(internal("previous diff"))?;
                self.write_artifact(&row.id, PREVIOUS_DIFF_ARTIFACT, &json)
                    .await
            }
            Err(error) => {
                tracing::warn!(attempt = %row.id, %parent, %error, "diff against the previous attempt unavailable");
                Ok(())
            }
        }
    }

    /// Every key Switchyard holds in the keychain (label = provider id), for the secrets
    /// gate. A keychain that cannot be read is logged and leaves the list empty.
    async fn held_keys(&self) -> Vec<(String, Secret)> {
        let bindings = match self.store().key_bindings().await {
            Ok(bindings) if !bindings.is_empty() => bindings,
            Ok(_) => return Vec::new(),
            Err(error) => {
                tracing::warn!(%error, "key bindings unreadable; secrets gate without held keys");
                return Vec::new();
            }
        };
        let keys = match self.keys().await {
            Ok(keys) => keys,
            Err(error) => {
                tracing::warn!(%error, "keychain unavailable; secrets gate without held keys");
                return Vec::new();
            }
        };
        let looked_up = tokio::task::spawn_blocking(move || {
            bindings
                .into_iter()
                .filter_map(|binding| {
                    let origin = switchyard_core::origin::Origin::of_url(&binding.origin).ok()?;
                    match keys.get(&binding.provider, &origin) {
                        Ok(Some(secret)) => Some((binding.provider, secret)),
                        Ok(None) => None,
                        Err(error) => {
                            tracing::warn!(provider = %binding.provider, %error, "key unreadable");
                            None
                        }
                    }
                })
                .collect::<Vec<_>>()
        })
        .await;
        looked_up.unwrap_or_default()
    }
}
