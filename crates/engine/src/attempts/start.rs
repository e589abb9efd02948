//! Starting attempts: validate the request, pin the base, record `queued`, hand the pipeline
//! to the supervisor.

use std::sync::Arc;

use switchyard_core::attempt::{
    new_attempt_id, AttemptLog, AttemptRequest, AttemptState, AttemptSummary,
};
use switchyard_core::review::gates::LockedPaths;
use switchyard_core::roles::ComposeRequest;
use switchyard_core::worker::WorkerSpec;
use switchyard_runner::git::Base;
use switchyard_store::attempts::NewAttempt;

use super::record::{now_ms, summary};
use super::{detect_commands, open_repo};
use crate::events::EngineEvent;
use crate::owner::random_u64;
use crate::{Engine, EngineError};

/// Longest worker timeout accepted (a day).
const MAX_TIMEOUT_SECS: u32 = 24 * 60 * 60;

/// A validated request with its base pinned, ready to become one or more attempts.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub request: AttemptRequest,
    pub toplevel: String,
    pub base: Base,
    /// Role (if a preset was named) then the task.
    pub prompt: String,
    pub verify: Vec<String>,
}

/// Where a new attempt comes from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    pub compare: Option<String>,
    pub parent: Option<String>,
    /// The worktree to continue in (request changes); `None`: a new one.
    pub worktree: Option<String>,
}

/// The worker spec of `text`; `InvalidInput` naming the accepted forms otherwise.
pub(crate) fn parse_worker(text: &str) -> Result<WorkerSpec, EngineError> {
    WorkerSpec::parse(text).map_err(|e| EngineError::InvalidInput(e.to_string()))
}

/// A folder an attempt may also write must exist, be absolute, and lie neither inside the
/// user's repository (its checkout or git directory) nor around it.
fn check_writable(path: &str, repo: &switchyard_runner::git::Repo) -> Result<(), EngineError> {
    let given = std::path::Path::new(path);
    if !given.is_absolute() {
        return Err(EngineError::InvalidInput(format!(
            "--allow-write needs an absolute path, not {path:?}"
        )));
    }
    let canonical = std::fs::canonicalize(given)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            EngineError::InvalidInput(format!("--allow-write {path}: not an existing folder"))
        })?;
    for protected in [repo.toplevel(), repo.common_dir()] {
        if canonical.starts_with(protected) || protected.starts_with(&canonical) {
            return Err(EngineError::InvalidInput(format!(
                "--allow-write {path}: workers may never write your repository ({})",
                protected.display()
            )));
        }
    }
    Ok(())
}

impl Engine {
    /// [`parse_worker`], and for the model worker the route its model takes: a reference no
    /// provider serves, or a provider without a usable key, is refused before an attempt (and
    /// its worktree) exists. Errors: `InvalidInput` (the reference), `NotFound` (an unknown
    /// provider), `MissingCredential` naming the provider(s) that need a key, `Keychain`.
    pub(crate) async fn check_worker(&self, text: &str) -> Result<WorkerSpec, EngineError> {
        let spec = parse_worker(text)?;
        if let WorkerSpec::Model { id } = &spec {
            match self.route_model(id).await {
                Ok(_) => {}
                Err(EngineError::InvalidInput(m)) => {
                    let named = self.catalog_ids_named(id).await;
                    let hint = if named.is_empty() {
                        String::new()
                    } else {
                        let tries: Vec<String> =
                            named.iter().map(|n| format!("model:{n}")).collect();
                        format!("; did you mean {}?", tries.join(" or "))
                    };
                    return Err(EngineError::InvalidInput(format!("{text}: {m}{hint}")));
                }
                Err(EngineError::NotFound(m)) => {
                    return Err(EngineError::NotFound(format!("{text}: {m}")))
                }
                Err(other) => return Err(other),
            }
        }
        Ok(spec)
    }

    /// Catalog ids whose model name is `name` (`gpt-oss-20b` → `openai/gpt-oss-20b`), at
    /// most three: a hint for a reference given without its vendor.
    async fn catalog_ids_named(&self, name: &str) -> Vec<String> {
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || name.contains('/') {
            return Vec::new();
        }
        let Ok(state) = self.catalog_state().await else {
            return Vec::new();
        };
        let suffix = format!("/{name}");
        state
            .catalog
            .models
            .iter()
            .filter(|m| m.id.to_ascii_lowercase().ends_with(&suffix))
            .map(|m| m.id.clone())
            .take(3)
            .collect()
    }

    /// Validates `req` (a git repository with a commit, a worker that parses, a non-empty
    /// task, valid globs and timeout, a known preset), pins the current head as the base,
    /// records the attempt as `queued` and runs its pipeline in the background. Returns at
    /// once; follow it with [`Engine::wait_attempt`] or the `AttemptState` events.
    ///
    /// Takes `self: &Arc<Self>` because the pipeline outlives the call.
    ///
    /// Errors: `InvalidInput`, `NotFound` (preset, provider), `MissingCredential` (the model
    /// worker's provider has no usable key), `Keychain`, `Canceled` (the engine is closing).
    pub async fn start_attempt(
        self: &Arc<Self>,
        req: AttemptRequest,
        launcher: &str,
    ) -> Result<AttemptSummary, EngineError> {
        let prepared = self.prepare_attempt(req).await?;
        let worker = prepared.request.worker.clone();
        self.launch_attempt(&prepared, &worker, launcher, Origin::default())
            .await
    }

    /// Checks `req` and pins its base (see [`Engine::start_attempt`]).
    pub(crate) async fn prepare_attempt(
        &self,
        req: AttemptRequest,
    ) -> Result<Prepared, EngineError> {
        if req.task.trim().is_empty() {
            return Err(EngineError::InvalidInput("the task is empty".into()));
        }
        parse_worker(&req.worker)?;
        LockedPaths::new(&req.lock).map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        if let Some(secs) = req.timeout_secs {
            if secs == 0 || secs > MAX_TIMEOUT_SECS {
                return Err(EngineError::InvalidInput(format!(
                    "the timeout must be 1–{MAX_TIMEOUT_SECS} seconds, not {secs}"
                )));
            }
        }
        if let Some(commands) = &req.verify {
            if commands.iter().any(|c| c.trim().is_empty()) {
                return Err(EngineError::InvalidInput(
                    "a verification command is empty".into(),
                ));
            }
        }
        // Refused before anything starts when no sandbox can confine the worker here.
        self.confinement_mode().await?;
        let repo = open_repo(&req.repo).await?;
        let home = std::fs::canonicalize(self.home()).unwrap_or_else(|_| self.home().to_owned());
        for path in &req.allow_write {
            check_writable(path, &repo)?;
        }
        if home.starts_with(repo.toplevel()) {
            return Err(EngineError::InvalidInput(format!(
                "Switchyard's data folder {} is inside the repository {}; worktrees must live \
                 outside it (set SWITCHYARD_HOME elsewhere)",
                home.display(),
                repo.toplevel().display()
            )));
        }
        let base = repo
            .resolve_base()
            .await
            .map_err(|e| EngineError::InvalidInput(format!("{}: {e}", req.repo)))?;
        self.check_worker(&req.worker).await?;
        let prompt = match req.preset.as_deref().map(str::trim) {
            Some(preset) if !preset.is_empty() => {
                let composed = self
                    .compose_role(ComposeRequest {
                        task: req.task.clone(),
                        persona: None,
                        stack: Vec::new(),
                        domain: None,
                        format: None,
                        guardrails: Vec::new(),
                        preset: Some(preset.to_owned()),
                    })
                    .await?;
                composed.full_prompt
            }
            _ => req.task.trim().to_owned(),
        };
        let verify = match &req.verify {
            Some(commands) => commands.clone(),
            None => detect_commands(repo.toplevel()),
        };
        Ok(Prepared {
            toplevel: repo.toplevel().display().to_string(),
            request: req,
            base,
            prompt,
            verify,
        })
    }

    /// Records one attempt of `prepared` by `worker` and starts its pipeline.
    pub(crate) async fn launch_attempt(
        self: &Arc<Self>,
        prepared: &Prepared,
        worker: &str,
        launcher: &str,
        origin: Origin,
    ) -> Result<AttemptSummary, EngineError> {
        let token = self.owner.token.clone();
        let id = self
            .record_attempt(prepared, worker, launcher, origin, &token)
            .await?;
        self.spawn_pipeline(&id).await?;
        Ok(summary(&self.attempt_row(&id).await?, now_ms()))
    }

    /// Records one attempt of `prepared` by `worker` as `queued`, leased by this process
    /// under `owner_token`, logs and broadcasts it; returns its id.
    pub(crate) async fn record_attempt(
        &self,
        prepared: &Prepared,
        worker: &str,
        launcher: &str,
        origin: Origin,
        owner_token: &str,
    ) -> Result<String, EngineError> {
        if self.supervisor.is_closing() {
            return Err(EngineError::Canceled("the engine is closing".into()));
        }
        let now = now_ms();
        let id = new_attempt_id(u64::try_from(now).unwrap_or(0), random_u64() as u32);
        let mut request = prepared.request.clone();
        request.worker = worker.to_owned();
        let request_json = serde_json::to_string(&request)
            .map_err(|e| EngineError::Internal(format!("request: {e}")))?;
        let verify_json = serde_json::to_string(&prepared.verify)
            .map_err(|e| EngineError::Internal(format!("verify: {e}")))?;
        let launcher = if launcher.trim().is_empty() {
            "app"
        } else {
            launcher.trim()
        };
        self.store()
            .insert_attempt(&NewAttempt {
                id: id.clone(),
                worker: worker.to_owned(),
                task: request.task.trim().to_owned(),
                prompt: prepared.prompt.clone(),
                repo: prepared.toplevel.clone(),
                base: prepared.base.commit.clone(),
                target_branch: prepared.base.branch.clone(),
                parent: origin.parent,
                compare_id: origin.compare,
                launcher: launcher.to_owned(),
                worktree_id: origin.worktree.unwrap_or_else(|| id.clone()),
                request_json,
                verify_json,
                created_ms: now,
                owner_pid: self.owner.pid,
                owner_token: owner_token.to_owned(),
            })
            .await?;
        let note = prepared.base.dirty.then(|| {
            format!(
                "{} uncommitted path(s) in the repository are not part of the base",
                prepared.base.dirty_count
            )
        });
        self.log_attempt(
            &id,
            AttemptLog::State {
                state: AttemptState::Queued,
                note,
            },
        )
        .await?;
        self.supervisor.emit(EngineEvent::AttemptState {
            attempt_id: id.clone(),
            state: AttemptState::Queued,
        });
        Ok(id)
    }

    /// Runs the pipeline of queued attempt `id` in the supervisor.
    pub(crate) async fn spawn_pipeline(self: &Arc<Self>, id: &str) -> Result<(), EngineError> {
        let cancel = self.supervisor.cancellation();
        self.attempts.running.insert(id, cancel.clone());
        let engine = self.clone();
        let task_id = id.to_owned();
        let started = self.supervisor.spawn("attempt", async move {
            engine.run_pipeline(&task_id, cancel).await;
            engine.attempts.running.remove(&task_id);
        });
        if !started {
            self.attempts.running.remove(id);
            return Err(EngineError::Canceled("the engine is closing".into()));
        }
        Ok(())
    }
}
