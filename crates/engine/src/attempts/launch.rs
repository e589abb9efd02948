//! Running a worker: the CLI (or `exec:` command) through `runner::process` with the env
//! allowlist plus only its own provider key, its output parsed line by line into normalized
//! events; or the built-in model worker. Events go through the bounded sink (`sink`), are
//! stored and broadcast; the raw output is kept as an artifact with its SHA-256.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchyard_core::catalog::card::Pricing;
use switchyard_core::error::ErrorCode;
use switchyard_core::worker::{
    invocation, parser, provider_key_env, ModelFacts, TokenPrice, Usage, WorkerCli, WorkerEvent,
    WorkerSpec, WorkerTask,
};
use switchyard_keychain::Secret;
use switchyard_runner::process::lines::LineAssembler;
use switchyard_runner::process::{self, EndedBy, ProcessSpec};
use tokio_util::sync::CancellationToken;

use super::artifacts::{RawOutput, OUTPUT_ARTIFACT};
use super::binary::cli_version;
use super::record::now_ms;
use super::sink::{EventSink, TapState};
use crate::confinement::Jail;
use crate::model_worker::{ModelWorkerJob, ModelWorkerLimits};
use crate::Engine;
use switchyard_core::attempt::AttemptState;
use switchyard_core::confinement::{ConfinementMode, DenialSource};
use switchyard_store::attempts::{AttemptChanges, Guard};

/// Longest output line parsed as one line (CLIs print whole JSON objects per line).
const MAX_LINE: usize = 1024 * 1024;
/// Output retained in the runner's buffer (the tap sees everything).
const OUTPUT_CAP: usize = 256 * 1024;
/// Turns and tokens the built-in model worker may use.
const MODEL_MAX_TURNS: u32 = 20;
pub(crate) const MODEL_MAX_TOKENS: u32 = 400_000;

/// How the worker ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WorkerEnd {
    Succeeded,
    Failed { code: ErrorCode, message: String },
    TimedOut(String),
    Canceled,
}

/// The worker's end and its last usage report.
#[derive(Debug, Clone)]
pub(crate) struct WorkerRun {
    pub end: WorkerEnd,
    pub usage: Option<Usage>,
    pub version: Option<String>,
}

pub(super) fn failed(message: impl Into<String>) -> WorkerEnd {
    WorkerEnd::Failed {
        code: ErrorCode::WorkerFailed,
        message: message.into(),
    }
}

/// A CLI or command ready to spawn.
struct Launch {
    program: OsString,
    args: Vec<String>,
    stdin: Option<String>,
    env: Vec<(String, String)>,
    keys: Vec<(String, Secret)>,
    cwd: PathBuf,
    path_env: Option<String>,
    version: Option<String>,
}

/// The provider whose key travels in environment variable `name`.
fn provider_for_env(name: &str) -> Option<&'static str> {
    match name {
        "CODEX_API_KEY" => return Some("openai"),
        "GOOGLE_API_KEY" => return Some("gemini"),
        _ => {}
    }
    [
        "anthropic",
        "openai",
        "openrouter",
        "gemini",
        "deepseek",
        "groq",
        "mistral",
        "xai",
    ]
    .into_iter()
    .find(|provider| provider_key_env(provider) == Some(name))
}

/// A failed CLI worker's end with the CLI's own cause as its message and the cause's domain
/// code (`providerAuth`, `providerUnreachable`, `workerMisconfigured`), the exit kept after
/// it; an end that already carries a specific code or cause is kept.
fn explained(end: WorkerEnd, cause: Option<(ErrorCode, String)>) -> WorkerEnd {
    match (end, cause) {
        (
            WorkerEnd::Failed {
                code: ErrorCode::WorkerFailed,
                message,
            },
            Some((code, cause)),
        ) => {
            let message = if message.contains(&cause) {
                message
            } else if is_exit_report(&message) {
                format!("{cause} ({})", message.trim_start_matches("the "))
            } else {
                cause
            };
            WorkerEnd::Failed { code, message }
        }
        (end, _) => end,
    }
}

/// Whether `message` is only Switchyard's report of how the process ended.
fn is_exit_report(message: &str) -> bool {
    message.starts_with("the worker exited with code")
        || message == "the worker was killed by a signal"
}

/// The catalog ids `model`, as worker `spec` names it, may have: the name itself, then (for
/// a CLI) its vendor's catalog ids.
fn catalog_candidates(spec: &WorkerSpec, model: &str) -> Vec<String> {
    let mut ids = vec![model.to_owned()];
    if let Some(cli) = spec.cli() {
        ids.extend(cli.catalog_ids(model));
    }
    ids
}

fn price_of(pricing: Pricing) -> Option<TokenPrice> {
    Some(TokenPrice {
        input_per_mtok: pricing.prompt_per_m?,
        output_per_mtok: pricing.completion_per_m?,
        cached_input_per_mtok: None,
    })
}

impl Engine {
    /// Runs the worker `spec` on `prompt` in `worktree` until it stops, times out or is
    /// canceled. Never fails: a worker that cannot start is a failed run.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn run_worker(
        &self,
        id: &str,
        spec: &WorkerSpec,
        prompt: &str,
        worktree: &Path,
        timeout: Duration,
        cancel: &CancellationToken,
        jail: &Jail,
    ) -> WorkerRun {
        let sink = Arc::new(EventSink::default());
        let (end, version) = match spec {
            WorkerSpec::Model { id: model } => {
                let end = self
                    .run_model(id, model, prompt, worktree, timeout, cancel, &sink)
                    .await;
                (end, None)
            }
            WorkerSpec::Cli { .. } | WorkerSpec::Exec { .. } => {
                let scratch = self.home().join("scratch").join(id);
                let confined = jail.mode != ConfinementMode::None;
                match self
                    .prepare_launch(spec, prompt, worktree, &scratch, confined)
                    .await
                {
                    Err(end) => (end, None),
                    Ok(launch) => {
                        let version = launch.version.clone();
                        (
                            self.run_process(id, spec, launch, timeout, cancel, &sink, jail)
                                .await,
                            version,
                        )
                    }
                }
            }
        };
        let (usage, final_ok, final_summary, model, cause) = {
            let state = sink.lock();
            (
                state.last_usage,
                state.final_ok,
                state.final_summary.clone(),
                state.model.clone(),
                state.failure_cause(),
            )
        };
        // The model the CLI's events name, else the one Switchyard routed it to (Codex's
        // events name none; Gemini's `init` says `auto`).
        let model = model
            .filter(|m| m != "auto")
            .or_else(|| spec.routed_model().map(str::to_owned));
        let usage = match (usage, model) {
            (Some(usage), Some(model)) if usage.cost_usd.is_none() => {
                match self.worker_price(spec, &model).await {
                    Some(price) => Some(usage.with_estimated_cost(price)),
                    None => Some(usage),
                }
            }
            (usage, _) => usage,
        };
        // The CLI's own verdict can only make a clean exit a failure, never the reverse.
        let end = match end {
            WorkerEnd::Succeeded if final_ok == Some(false) => {
                failed(final_summary.unwrap_or_else(|| "the worker reported a failure".to_owned()))
            }
            other => other,
        };
        let end = explained(end, cause);
        WorkerRun {
            end,
            usage,
            version,
        }
    }

    /// The attempt's own configuration folder for a CLI Switchyard passes its provider's key
    /// to (inside the attempt's private temp, which its sandbox may write), with the base URL
    /// to write there: the built-in provider's (Codex takes it only from its configuration),
    /// or for OpenCode the routed model's provider's when it is moved. `None` when the CLI
    /// runs on its own account (no key for its provider in Switchyard) or configures itself
    /// from flags alone.
    async fn cli_config_dir(
        &self,
        spec: &WorkerSpec,
        scratch: &Path,
    ) -> Option<(PathBuf, Option<String>)> {
        let cli = spec.cli()?;
        if !cli.has_config_dir() {
            return None;
        }
        let dir = scratch
            .join("tmp")
            .join(format!("{}-config", cli.program()));
        if cli == WorkerCli::OpenCode {
            self.worker_key(spec.model_provider()?).await?;
            return Some((dir, self.moved_model_provider(spec).await));
        }
        let provider = cli.builtin_provider()?;
        self.worker_key(provider).await?;
        let base_url = self.provider(provider).await.ok()?.base_url;
        Some((dir, Some(base_url)))
    }

    /// For OpenCode or Aider routed to `<provider>/<model>`: that provider's base URL when it is
    /// pointed elsewhere in Switchyard than its default (a proxy, a local server), so the CLI
    /// calls where the key is bound and the sandbox lets it.
    async fn moved_model_provider(&self, spec: &WorkerSpec) -> Option<String> {
        let provider = self.provider(spec.model_provider()?).await.ok()?;
        provider.moved().then_some(provider.base_url)
    }

    /// The catalog's price of `model` as `spec` names it (a CLI's own model names are looked
    /// up under its vendor's catalog ids).
    async fn worker_price(&self, spec: &WorkerSpec, model: &str) -> Option<TokenPrice> {
        for id in catalog_candidates(spec, model) {
            if let Some(price) = self.catalog_pricing(&id).await.and_then(price_of) {
                return Some(price);
            }
        }
        None
    }

    /// The catalog's price and context of the model `spec` is routed to, looked up as
    /// [`Engine::worker_price`] does; `None` unless both prices are known.
    async fn worker_model_facts(&self, spec: &WorkerSpec) -> Option<ModelFacts> {
        let model = spec.routed_model()?;
        for id in catalog_candidates(spec, model) {
            if let Ok(card) = self.model(&id).await {
                return Some(ModelFacts {
                    input_per_mtok: card.pricing.prompt_per_m?,
                    output_per_mtok: card.pricing.completion_per_m?,
                    context: card.context_length,
                });
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_model(
        &self,
        id: &str,
        model: &str,
        prompt: &str,
        worktree: &Path,
        timeout: Duration,
        cancel: &CancellationToken,
        sink: &Arc<EventSink>,
    ) -> WorkerEnd {
        let job = ModelWorkerJob {
            model_id: model.to_owned(),
            prompt: prompt.to_owned(),
            worktree: worktree.to_path_buf(),
            limits: ModelWorkerLimits {
                max_turns: MODEL_MAX_TURNS,
                max_total_tokens: MODEL_MAX_TOKENS,
                timeout,
            },
            cancel: cancel.clone(),
        };
        let feed = sink.clone();
        let on_event = move |event: WorkerEvent| {
            let size = match &event {
                WorkerEvent::AssistantText { text, .. } | WorkerEvent::Thinking { text } => {
                    text.len()
                }
                _ => 64,
            };
            feed.push(event, size);
        };
        let producer = async {
            let result = tokio::select! {
                result = self.run_model_worker(job, &on_event) => Some(result),
                () = tokio::time::sleep(timeout) => None,
            };
            sink.close();
            result
        };
        let (result, ()) = tokio::join!(producer, self.store_events(id, sink));
        match result {
            None => WorkerEnd::TimedOut(format!(
                "the model worker did not finish within {}s",
                timeout.as_secs()
            )),
            Some(_) if cancel.is_cancelled() => WorkerEnd::Canceled,
            Some(Ok(outcome)) => {
                sink.lock().last_usage = Some(outcome.usage);
                let summary = outcome
                    .summary
                    .unwrap_or_else(|| "the model worker did not finish the task".to_owned());
                match outcome.stopped {
                    _ if outcome.ok => WorkerEnd::Succeeded,
                    Some(reason) if reason.code() == ErrorCode::Timeout => {
                        WorkerEnd::TimedOut(summary)
                    }
                    Some(reason) => WorkerEnd::Failed {
                        code: reason.code(),
                        message: summary,
                    },
                    None => failed(summary),
                }
            }
            Some(Err(error)) if error.code() == ErrorCode::Timeout => {
                WorkerEnd::TimedOut(error.to_string())
            }
            Some(Err(error)) => WorkerEnd::Failed {
                code: error.code(),
                message: error.to_string(),
            },
        }
    }

    /// The invocation, binary, version and key of a CLI or command worker.
    async fn prepare_launch(
        &self,
        spec: &WorkerSpec,
        prompt: &str,
        worktree: &Path,
        scratch: &Path,
        confined: bool,
    ) -> Result<Launch, WorkerEnd> {
        std::fs::create_dir_all(scratch)
            .map_err(|e| failed(format!("creating {}: {e}", scratch.display())))?;
        let task = WorkerTask {
            prompt: prompt.to_owned(),
            model: spec.routed_model().map(str::to_owned),
            max_turns: None,
            worktree: worktree.to_path_buf(),
            scratch_dir: scratch.to_path_buf(),
            config_dir: None,
            base_url: None,
            confined,
            model_facts: self.worker_model_facts(spec).await,
        };
        // "CLI's own account" chosen in Settings: no key, no configuration, no provider moved
        // by Switchyard; only what keeps its state out of the repository stays.
        let own_account = match spec.cli() {
            Some(cli) => self.worker_own_account(cli).await.unwrap_or(false),
            None => false,
        };
        let config = if own_account {
            None
        } else {
            self.cli_config_dir(spec, scratch).await
        };
        let task = match config {
            _ if own_account => task,
            Some((dir, base_url)) => WorkerTask {
                config_dir: Some(dir),
                base_url,
                ..task
            },
            None => WorkerTask {
                base_url: self.moved_model_provider(spec).await,
                ..task
            },
        };
        let inv = invocation(spec, &task).map_err(|e| failed(e.to_string()))?;
        let (program, path_env, version) = match spec {
            WorkerSpec::Cli { cli, .. } => {
                let (binary, path_env) = self.resolve_cli(*cli).await?;
                let version = cli_version(*cli, &binary, path_env.as_deref()).await;
                (binary.into_os_string(), path_env, version)
            }
            _ => (OsString::from(&inv.program), None, None),
        };
        for (path, contents) in &inv.files {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| failed(format!("creating {}: {e}", parent.display())))?;
            }
            std::fs::write(path, contents)
                .map_err(|e| failed(format!("writing {}: {e}", path.display())))?;
        }
        let mut env = inv.env;
        // A CLI's built-in provider pointed elsewhere in Switchyard (a proxy, a local server)
        // is passed on, so the CLI calls where its key is bound and the sandbox lets it.
        if let (WorkerSpec::Cli { cli, .. }, false) = (spec, own_account) {
            if let (Some(provider), Some(var)) = (cli.builtin_provider(), cli.base_url_env()) {
                if let Ok(provider) = self.provider(provider).await {
                    let moved = provider.moved();
                    match provider.origin() {
                        // Gemini CLI takes the API's root and adds `/v1beta/models/…` itself;
                        // Switchyard's Gemini provider is its OpenAI-compatible path.
                        Ok(origin) if moved && cli.base_url_is_origin() => {
                            env.push((var.to_owned(), origin.to_string()));
                        }
                        Ok(_) if moved => env.push((var.to_owned(), provider.base_url.clone())),
                        _ => {}
                    }
                }
            }
        }
        let mut keys = Vec::new();
        for name in inv.key_env.iter().filter(|_| !own_account) {
            let Some(provider) = provider_for_env(name) else {
                continue;
            };
            if let Some(secret) = self.worker_key(provider).await {
                keys.push((name.clone(), secret));
            }
        }
        Ok(Launch {
            program,
            args: inv.args,
            stdin: inv.stdin,
            env,
            keys,
            cwd: inv.cwd,
            path_env,
            version,
        })
    }

    /// The worker's own provider key for the provider's origin as configured (where the CLI
    /// sends it: its default, or the base URL passed to it), if one may go there; never any
    /// other key.
    pub(crate) async fn worker_key(&self, provider: &str) -> Option<Secret> {
        let provider = self.provider(provider).await.ok()?;
        if !provider.takes_key() {
            return None;
        }
        let target = provider
            .origin()
            .ok()
            .or_else(|| provider.default_origin())?;
        let found = self.find_key(&provider, Some(target)).await.ok()?;
        match crate::keys::binding::key_use(&provider, found) {
            Ok(key_use) => key_use.key.map(|k| k.secret),
            Err(error) => {
                tracing::info!(provider = %provider.id, %error, "no key passed to the worker");
                None
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_process(
        &self,
        id: &str,
        spec: &WorkerSpec,
        launch: Launch,
        timeout: Duration,
        cancel: &CancellationToken,
        sink: &Arc<EventSink>,
        jail: &Jail,
    ) -> WorkerEnd {
        let Some(parser) = parser(spec) else {
            return failed("this worker has no output parser");
        };
        // Stops the worker on cancel or on its first fatal error (see `sink`).
        let stop = cancel.child_token();
        let raw_path = self.artifact_dir(id).join(OUTPUT_ARTIFACT);
        let tap = Arc::new(Mutex::new(TapState {
            raw: RawOutput::create(&raw_path),
            stdout: LineAssembler::new(MAX_LINE),
            stderr: LineAssembler::new(MAX_LINE),
            parser,
            sink: sink.clone(),
            secrets: launch
                .keys
                .iter()
                .map(|(_, secret)| secret.expose().to_owned())
                .collect(),
            refused: Vec::new(),
            stop: stop.clone(),
            log_of: spec.cli().filter(|cli| cli.stderr_is_log()),
        }));
        let feed = tap.clone();
        let mut process = ProcessSpec::new(&launch.program)
            .args(&launch.args)
            .current_dir(&launch.cwd)
            .timeout(timeout)
            .output_cap(OUTPUT_CAP)
            .cancel_on(&stop)
            .tap(move |stream, bytes| {
                feed.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .feed(stream, bytes);
            });
        if let Some(stdin) = &launch.stdin {
            process = process.stdin(stdin.clone().into_bytes());
        }
        for (name, value) in &launch.env {
            process = process.env(name, value);
        }
        for (name, secret) in &launch.keys {
            process = process.env(name, secret.expose());
        }
        if let Some(path) = &launch.path_env {
            process = process.env("PATH", path);
        }
        for (name, value) in jail.worker_env() {
            process = process.env(name, value);
        }
        if let Some(sandbox) = jail.worker_sandbox() {
            process = process.confine(sandbox);
        }
        let child = match process::spawn(process) {
            Ok(child) => child,
            Err(error) => {
                sink.close();
                self.store_events(id, sink).await;
                return failed(format!("the worker could not start: {error}"));
            }
        };
        self.set_worker_pgid(id, Some(child.pid())).await;
        let producer = async {
            let exit = child.wait().await;
            let code = exit.as_ref().ok().and_then(|e| e.code);
            tap.lock().unwrap_or_else(|p| p.into_inner()).finish(code);
            sink.close();
            exit
        };
        let (exit, ()) = tokio::join!(producer, self.store_events(id, sink));
        self.set_worker_pgid(id, None).await;
        let refused = std::mem::take(&mut tap.lock().unwrap_or_else(|p| p.into_inner()).refused);
        jail.refused_writes(DenialSource::Worker, &refused);
        let (sha256, written, seen) = tap.lock().unwrap_or_else(|p| p.into_inner()).raw.finish();
        if let Err(error) = self
            .record_artifact(id, OUTPUT_ARTIFACT, sha256, written)
            .await
        {
            tracing::warn!(attempt = %id, %error, "raw output not recorded");
        }
        if seen > written {
            tracing::info!(attempt = %id, seen, written, "raw worker output was capped");
        }
        match exit {
            Err(error) => failed(error.to_string()),
            Ok(exit) => match exit.ended_by {
                EndedBy::TimedOut => WorkerEnd::TimedOut(format!(
                    "the worker did not finish within {}s; its process group was stopped",
                    timeout.as_secs()
                )),
                EndedBy::Canceled | EndedBy::Dropped if !cancel.is_cancelled() => {
                    let state = sink.lock();
                    match state.fatal.clone() {
                        // The CLI gave its verdict before it was stopped: its cause alone.
                        Some((code, message)) if !state.stopped_on_fatal => {
                            WorkerEnd::Failed { code, message }
                        }
                        Some((code, message)) => WorkerEnd::Failed {
                            code,
                            message: format!(
                                "{message} (Switchyard stopped the worker on this error)"
                            ),
                        },
                        None => WorkerEnd::Canceled,
                    }
                }
                EndedBy::Canceled | EndedBy::Dropped => WorkerEnd::Canceled,
                EndedBy::Exited if exit.code == Some(0) => WorkerEnd::Succeeded,
                EndedBy::Exited => failed(match exit.code {
                    Some(code) => format!("the worker exited with code {code}"),
                    None => "the worker was killed by a signal".to_owned(),
                }),
            },
        }
    }

    /// Records the running worker's process group (for the clean-up after a dead owner).
    async fn set_worker_pgid(&self, id: &str, pgid: Option<u32>) {
        let guard = Guard {
            state: AttemptState::Running,
            owner: Some(&self.owner.token),
        };
        let changes = AttemptChanges::new().worker_pgid(pgid);
        if let Err(error) = self
            .store()
            .update_attempt(id, guard, now_ms(), &changes)
            .await
        {
            tracing::warn!(attempt = %id, %error, "worker process group not recorded");
        }
    }
}
