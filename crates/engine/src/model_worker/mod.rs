//! The built-in model worker: edits a worktree through a model's structured answers.
//!
//! The model is routed like every other model call ([`Engine::route_model`]: the catalog,
//! the providers, the origin-bound key) and asked through the client's structured-output
//! path for one JSON answer per turn ([`answer_schema`]): files to read, edits to apply (whole
//! file, search/replace, delete), whether it is done, and a summary. The first turn carries
//! the task and the worktree's file tree; each later turn carries how every edit went and the
//! files it asked for, all bounded ([`ContextLimits`]); earlier turns are replayed in brief
//! once they no longer fit the history budget. It has no shell.
//!
//! How a run ends: `Ok` with `ok: true` when the model says it is done (after a turn whose
//! edits all applied); `Ok` with `ok: false` and a summary saying why when it runs out of
//! turns, tokens or time, or when the provider fails or never answers in the schema (edits of
//! earlier turns stay in the worktree: the diff shows them). `Err` only when nothing was
//! asked (bad job, unknown model, no key) or when the job's token cancels the run
//! ([`EngineError::Canceled`]). Either way a `Final` event is the last one emitted once the
//! run has started.

mod context;
mod edits;
mod turns;

use std::path::PathBuf;
use std::time::Duration;

use switchyard_core::catalog::card::Pricing;
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::ProviderKind;
use switchyard_core::worker::model::{
    answer_brief, answer_schema, first_prompt, history, parse_answer, render_tree, token_price,
    ContextLimits, Speaker, TurnRecord, ANSWER_SCHEMA_NAME, INSTRUCTIONS,
};
use switchyard_core::worker::{TokenPrice, Usage, WorkerEvent};
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, Message, ModelClient, OutputSchema, RetryPolicy,
    Timeouts,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::keys::RoutedModel;
use crate::{Engine, EngineError};
use context::Worktree;

/// Longest answer asked for in one turn (whole files can be long); less when the token
/// budget has less left.
const TURN_MAX_TOKENS: u32 = 16_384;

/// One model-worker run.
#[derive(Debug, Clone)]
pub struct ModelWorkerJob {
    /// A catalog model id (`provider:model` or the catalog's id).
    pub model_id: String,
    /// The full prompt: role (if any), then the task (and review comments on a revision).
    pub prompt: String,
    /// The attempt's worktree; every edit stays inside it.
    pub worktree: PathBuf,
    pub limits: ModelWorkerLimits,
    pub cancel: CancellationToken,
}

/// Bounds on one run.
#[derive(Debug, Clone, Copy)]
pub struct ModelWorkerLimits {
    /// Model calls (turns); at least 1.
    pub max_turns: u32,
    /// Input plus output tokens over the whole run, as the provider reports them; 0 = no cap.
    pub max_total_tokens: u32,
    /// Wall time of the whole run.
    pub timeout: Duration,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct ModelWorkerOutcome {
    /// Totals over every turn (cost estimated from the catalog price when known).
    pub usage: Usage,
    /// The model said it was done and its last edits applied.
    pub ok: bool,
    /// The model's last summary, or why the run stopped.
    pub summary: Option<String>,
    /// Why the run stopped before the model was done; `None` when `ok`.
    pub stopped: Option<StopReason>,
}

/// Why a run stopped before the model said it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    TurnLimit,
    TokenBudget,
    TimeLimit,
    /// The provider failed (refused, unreachable, errored), or the run could not go on.
    Failed,
    /// The model never answered in the schema, even after a repair request.
    BadAnswer,
}

impl StopReason {
    /// The code the attempt's failure carries.
    pub fn code(self) -> ErrorCode {
        match self {
            StopReason::TimeLimit => ErrorCode::Timeout,
            _ => ErrorCode::WorkerFailed,
        }
    }
}

/// Running usage totals.
#[derive(Debug, Clone, Copy)]
struct Totals {
    usage: Usage,
    price: Option<TokenPrice>,
}

impl Totals {
    fn add(&mut self, input: u32, output: u32) {
        self.usage.input = self.usage.input.saturating_add(input);
        self.usage.output = self.usage.output.saturating_add(output);
        if let Some(price) = self.price {
            // The client prices from the same catalog figures: the cost is ours, not reported.
            self.usage = self.usage.with_estimated_cost(price);
        }
    }

    fn tokens(&self) -> u32 {
        self.usage.input.saturating_add(self.usage.output)
    }
}

/// How a started run stopped early.
enum Stop {
    Failed(StopReason, String),
    Canceled,
}

fn failed(why: String) -> Stop {
    Stop::Failed(StopReason::Failed, why)
}

/// Retries are few (each costs a turn's wait). The client's own total timeout falls just
/// after the run's deadline, so the deadline ends a slow call and says so.
fn client_config(remaining: Duration) -> ClientConfig {
    let defaults = Timeouts::default();
    ClientConfig {
        timeouts: Timeouts {
            total: defaults.total.min(remaining + Duration::from_secs(1)),
            ..defaults
        },
        retry: RetryPolicy {
            max_retries: 2,
            ..RetryPolicy::default()
        },
        ..ClientConfig::default()
    }
}

impl Engine {
    /// Runs the model worker on `job`, reporting each step through `on_event` (see the module
    /// documentation for how it ends).
    pub async fn run_model_worker(
        &self,
        job: ModelWorkerJob,
        on_event: &(dyn Fn(WorkerEvent) + Send + Sync),
    ) -> Result<ModelWorkerOutcome, EngineError> {
        let deadline = Instant::now() + job.limits.timeout;
        if job.limits.max_turns == 0 {
            return Err(EngineError::InvalidInput(
                "the model worker needs at least one turn".into(),
            ));
        }
        if job.prompt.trim().is_empty() {
            return Err(EngineError::InvalidInput("the task is empty".into()));
        }
        let worktree = Worktree::open(&job.worktree).map_err(EngineError::InvalidInput)?;
        let routed = self.route_model(&job.model_id).await?;
        let pricing = match routed.provider.kind {
            ProviderKind::Local => Some(Pricing {
                prompt_per_m: Some(0.0),
                completion_per_m: Some(0.0),
            }),
            _ => self.catalog_pricing(&job.model_id).await,
        };
        let mut totals = Totals {
            usage: Usage::default(),
            price: pricing.as_ref().and_then(token_price),
        };
        on_event(WorkerEvent::Started {
            session_id: None,
            model: Some(job.model_id.clone()),
        });
        let stop = self
            .turns(
                &job,
                &worktree,
                &routed,
                pricing,
                deadline,
                &mut totals,
                on_event,
            )
            .await;
        let (stopped, summary) = match stop {
            Ok(summary) => (None, summary),
            Err(Stop::Failed(reason, why)) => {
                on_event(WorkerEvent::Error {
                    message: why.clone(),
                });
                (Some(reason), why)
            }
            Err(Stop::Canceled) => {
                on_event(WorkerEvent::Final {
                    ok: false,
                    summary: Some("canceled".into()),
                });
                return Err(EngineError::Canceled(
                    "the model worker was canceled".into(),
                ));
            }
        };
        let ok = stopped.is_none();
        on_event(WorkerEvent::Final {
            ok,
            summary: Some(summary.clone()),
        });
        Ok(ModelWorkerOutcome {
            usage: totals.usage,
            ok,
            summary: Some(summary),
            stopped,
        })
    }

    /// The turn loop: the model's final summary when it says it is done.
    #[allow(clippy::too_many_arguments)]
    async fn turns(
        &self,
        job: &ModelWorkerJob,
        worktree: &Worktree,
        routed: &RoutedModel,
        pricing: Option<Pricing>,
        deadline: Instant,
        totals: &mut Totals,
        on_event: &(dyn Fn(WorkerEvent) + Send + Sync),
    ) -> Result<String, Stop> {
        let limits = ContextLimits::default();
        let schema = OutputSchema::new(ANSWER_SCHEMA_NAME, answer_schema());
        let max_turns = job.limits.max_turns;
        let max_tokens = job.limits.max_total_tokens;
        let tree = {
            let worktree = worktree.clone();
            let (paths, more) = tokio::task::spawn_blocking(move || worktree.tree(&limits))
                .await
                .map_err(|e| failed(format!("listing the worktree failed: {e}")))?;
            render_tree(&paths, more, &limits)
        };
        let first = first_prompt(&job.prompt, &tree, max_turns);
        let mut records: Vec<TurnRecord> = Vec::new();
        for turn in 1..=max_turns {
            if max_tokens > 0 && totals.tokens() >= max_tokens {
                return Err(Stop::Failed(
                    StopReason::TokenBudget,
                    format!(
                        "stopped: the token budget ({max_tokens}) was used up after {} turn(s)",
                        turn - 1
                    ),
                ));
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(timed_out(job.limits.timeout));
            }
            let client = ModelClient::new(client_config(remaining))
                .map_err(|e| failed(format!("the model client could not start: {e}")))?;
            let answer_cap = match max_tokens {
                0 => TURN_MAX_TOKENS,
                cap => TURN_MAX_TOKENS.min(cap - totals.tokens()),
            };
            let request = ChatRequest {
                model: routed.model.clone(),
                system: Some(INSTRUCTIONS.to_owned()),
                messages: history(&first, &records, limits.history_bytes)
                    .into_iter()
                    .map(|(speaker, text)| match speaker {
                        Speaker::User => Message::user(text),
                        Speaker::Assistant => Message::assistant(text),
                    })
                    .collect(),
                max_tokens: Some(answer_cap),
                pricing,
                cancel: Some(job.cancel.clone()),
                ..ChatRequest::default()
            };
            let call = client.structured(&routed.target, routed.key.secret(), &request, &schema);
            let answer = tokio::select! {
                biased;
                () = job.cancel.cancelled() => return Err(Stop::Canceled),
                answer = tokio::time::timeout_at(deadline, call) => answer,
            };
            let answer = match answer {
                Err(_) => return Err(timed_out(job.limits.timeout)),
                Ok(Err(ClientError::Canceled)) => return Err(Stop::Canceled),
                Ok(Err(ClientError::Schema { error, .. })) => {
                    return Err(Stop::Failed(
                        StopReason::BadAnswer,
                        format!(
                        "turn {turn}: {} gave no answer in the edit schema, even after a repair \
                         request: {error}",
                        job.model_id
                    ),
                    ))
                }
                Ok(Err(error)) => {
                    let error = routed.key.failure(&routed.provider.id, error);
                    return Err(failed(format!("turn {turn}: {error}")));
                }
                Ok(Ok(answer)) => answer,
            };
            totals.add(
                answer.answer.usage.input_tokens,
                answer.answer.usage.output_tokens,
            );
            on_event(WorkerEvent::Usage(totals.usage));
            let parsed = parse_answer(&answer.value).map_err(|e| {
                Stop::Failed(
                    StopReason::BadAnswer,
                    format!("turn {turn}: the answer is unusable: {e}"),
                )
            })?;
            if !parsed.summary.trim().is_empty() {
                on_event(WorkerEvent::AssistantText {
                    text: parsed.summary.clone(),
                    delta: false,
                });
            }
            let result = {
                let worktree = worktree.clone();
                let parsed = parsed.clone();
                let left = max_turns - turn;
                tokio::task::spawn_blocking(move || {
                    turns::run_turn(&worktree, &parsed, &limits, turn, left)
                })
                .await
                .map_err(|e| failed(format!("turn {turn}: applying edits failed: {e}")))?
            };
            for event in result.events {
                on_event(event);
            }
            // Done counts only when the model saw nothing fail: a failed edit goes back to it.
            if parsed.done && result.all_applied {
                let summary = parsed.summary.trim();
                return Ok(if summary.is_empty() {
                    format!("done after {turn} turn(s)")
                } else {
                    summary.to_owned()
                });
            }
            records.push(TurnRecord {
                answer: answer.value.to_string(),
                answer_brief: answer_brief(&answer.value),
                feedback: result.feedback,
                feedback_brief: result.feedback_brief,
            });
        }
        Err(Stop::Failed(
            StopReason::TurnLimit,
            format!(
            "stopped: the turn limit ({max_turns}) was reached before the model said it was done"
        ),
        ))
    }
}

fn timed_out(timeout: Duration) -> Stop {
    Stop::Failed(
        StopReason::TimeLimit,
        format!(
            "stopped: the time limit ({} s) was reached",
            timeout.as_secs()
        ),
    )
}
