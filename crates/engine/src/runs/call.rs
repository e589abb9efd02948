//! One model call of a run, inside the ledger: reserve the worst case (in memory and in the
//! store, both checking the cap) → call through [`Engine::ask`] with the run's cancel token
//! and the node timeout, streaming deltas out → settle with the actual cost.
//!
//! The worst case is [`prompt_token_bound`] (an upper bound on prompt tokens) plus the
//! run's output cap, at the model's catalog prices (local models are free). A model without
//! known prices is refused before the run starts. A call that fails after text arrived is
//! charged an estimate of what it used; one that fails before is charged nothing.

use std::time::{Duration, Instant};

use switchyard_core::catalog::card::Pricing;
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AskRequest, Cost, Usage};
use switchyard_core::run::ledger::{prompt_token_bound, worst_case_usd};
use switchyard_core::run::{CallPurpose, CallState, FailureSignal};
use switchyard_core::text::estimate_tokens;
use switchyard_store::runs::calls::{CallEnd, NewCall, Reserved};

use super::driver::{RunCtx, Stop};
use super::{now_ms, LiveText};
use crate::events::EngineEvent;
use crate::{Engine, EngineError};

/// Streamed text is sent on at least this often…
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// …or once this many bytes wait.
const FLUSH_BYTES: usize = 512;

/// One call to make.
#[derive(Debug, Clone)]
pub(crate) struct CallSpec<'a> {
    pub node_id: &'a str,
    pub purpose: CallPurpose,
    pub model: &'a str,
    pub rung: Option<u32>,
    pub system: Option<String>,
    pub prompt: String,
    /// Where streamed text goes (answers; judges do not stream).
    pub live: Option<LiveText>,
}

/// A call that answered.
#[derive(Debug, Clone)]
pub(crate) struct CallAnswer {
    /// Its number among the node's calls.
    pub n: u32,
    pub text: String,
}

/// A call that did not answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallError {
    /// The provider failed (after its retries), timed out, or refused: a failure signal.
    Failed {
        n: Option<u32>,
        code: ErrorCode,
        message: String,
    },
    /// Its worst case did not fit under the cap; the run stops with `budget_exceeded`.
    Budget(String),
    /// The run stopped (canceled, out of time, lease lost, engine closing).
    Stopped,
}

impl CallError {
    /// The failure signal a cascade escalates on, if this is one.
    pub(crate) fn signal(&self) -> Option<FailureSignal> {
        match self {
            CallError::Failed { code, message, .. } => Some(FailureSignal::ProviderFailed {
                code: *code,
                message: message.clone(),
            }),
            CallError::Budget(_) | CallError::Stopped => None,
        }
    }
}

/// Sends a node's streamed text on in batches (as events, and appended to the node's live
/// file for other processes) and counts what arrived.
struct Streamer<'a> {
    engine: &'a Engine,
    run: &'a str,
    node: &'a str,
    live: Option<LiveText>,
    /// The node's live file (`artifacts::live_path`); `None` when it could not be created,
    /// which only keeps other processes from seeing the text before the node ends.
    file: Option<std::fs::File>,
    pending: String,
    pending_at: u64,
    written: u64,
    chars: u64,
    last: Instant,
}

impl<'a> Streamer<'a> {
    fn new(engine: &'a Engine, run: &'a str, node: &'a str, live: Option<LiveText>) -> Self {
        let mut file = None;
        if let Some(text) = &live {
            text.lock().unwrap_or_else(|p| p.into_inner()).clear();
            file = live_file(&super::artifacts::live_path(engine.home(), run, node));
            engine.supervisor.emit(EngineEvent::RunOutput {
                run_id: run.to_owned(),
                node_id: node.to_owned(),
                offset: 0,
                text: String::new(),
            });
        }
        Self {
            engine,
            run,
            node,
            live,
            file,
            pending: String::new(),
            pending_at: 0,
            written: 0,
            chars: 0,
            last: Instant::now(),
        }
    }

    fn push(&mut self, delta: &str) {
        self.chars += delta.chars().count() as u64;
        let Some(live) = &self.live else { return };
        live.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_str(delta);
        self.pending.push_str(delta);
        self.written += delta.len() as u64;
        if self.pending.len() >= FLUSH_BYTES || self.last.elapsed() >= FLUSH_EVERY {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        if let Some(file) = &mut self.file {
            use std::io::Write;
            // A small append to a file of this node alone: cheaper than a store write, and
            // off the database's single writer.
            if let Err(error) = file.write_all(self.pending.as_bytes()) {
                tracing::debug!(run = %self.run, node = %self.node, %error, "live file not written");
                self.file = None;
            }
        }
        self.engine.supervisor.emit(EngineEvent::RunOutput {
            run_id: self.run.to_owned(),
            node_id: self.node.to_owned(),
            offset: self.pending_at,
            text: std::mem::take(&mut self.pending),
        });
        self.pending_at = self.written;
        self.last = Instant::now();
    }
}

/// Creates (or empties) a node's live file for appending.
fn live_file(path: &std::path::Path) -> Option<std::fs::File> {
    let created = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::File::create(path));
    match created {
        Ok(file) => Some(file),
        Err(error) => {
            tracing::debug!(path = %path.display(), %error, "live file not created");
            None
        }
    }
}

/// What a call that failed after `chars` characters arrived may have cost.
fn failed_cost(prompt: &str, chars: u64, pricing: &Pricing) -> (u32, u32, f64) {
    if chars == 0 {
        return (0, 0, 0.0);
    }
    let usage = Usage {
        input_tokens: estimate_tokens(prompt),
        output_tokens: u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX),
        estimated: true,
    };
    let cost = Cost::compute(&usage, pricing).map_or(0.0, |c| c.usd);
    (usage.input_tokens, usage.output_tokens, cost)
}

impl RunCtx {
    /// Makes one call inside the ledger (see the module documentation).
    pub(crate) async fn call(&self, spec: CallSpec<'_>) -> Result<CallAnswer, CallError> {
        let engine = &*self.engine;
        let pricing = self
            .prices
            .get(spec.model)
            .copied()
            .ok_or_else(|| CallError::Failed {
                n: None,
                code: ErrorCode::InvalidInput,
                message: format!(
                    "{} has no known price; it cannot be called under a USD cap",
                    spec.model
                ),
            })?;
        let full_prompt = match &spec.system {
            Some(system) => format!("{system}\n{}", spec.prompt),
            None => spec.prompt.clone(),
        };
        let worst = worst_case_usd(
            prompt_token_bound(&full_prompt),
            self.limits.max_output_tokens,
            &pricing,
        )
        .ok_or_else(|| CallError::Failed {
            n: None,
            code: ErrorCode::InvalidInput,
            message: format!("{} has no known price", spec.model),
        })?;
        let n = self.reserve(&spec, worst).await?;

        let mut streamer = Streamer::new(engine, &self.run_id, spec.node_id, spec.live.clone());
        let request = AskRequest {
            model: spec.model.to_owned(),
            prompt: spec.prompt.clone(),
            system: spec.system.clone(),
            max_tokens: Some(self.limits.max_output_tokens),
            pricing: Some(pricing),
        };
        let cancel = self.control.cancel.child_token();
        let timeout = Duration::from_secs(u64::from(self.limits.node_timeout_s));
        let outcome = {
            let ask = engine.ask(request, Some(cancel.clone()), |d| streamer.push(d));
            tokio::select! {
                biased;
                () = self.control.cancel.cancelled() => None,
                result = tokio::time::timeout(timeout, ask) => Some(result),
            }
        };
        cancel.cancel();
        streamer.flush();
        let stopped = self.control.cancel.is_cancelled();
        let (end, result) = match outcome {
            Some(Ok(Ok(answer))) => {
                let cost = answer
                    .cost
                    .or_else(|| Cost::compute(&answer.usage, &pricing))
                    .map_or(0.0, |c| c.usd);
                if cost > worst + 1e-9 {
                    tracing::warn!(run = %self.run_id, model = %spec.model, cost, worst,
                        "a call cost more than its worst case");
                }
                let end = CallEnd {
                    state: CallState::Settled,
                    cost_usd: cost,
                    tokens_in: answer.usage.input_tokens,
                    tokens_out: answer.usage.output_tokens,
                    finished_ms: now_ms(),
                    error: None,
                    signal_json: None,
                    attempt_id: None,
                };
                (
                    end,
                    Ok(CallAnswer {
                        n,
                        text: answer.text,
                    }),
                )
            }
            other => {
                let (code, message) = match other {
                    Some(Ok(Err(error))) => (error.code(), error.to_string()),
                    Some(Err(_)) => (
                        ErrorCode::Timeout,
                        format!(
                            "{} did not answer within the node timeout of {}s",
                            spec.model, self.limits.node_timeout_s
                        ),
                    ),
                    _ => (
                        ErrorCode::Canceled,
                        "the run stopped during the call".to_owned(),
                    ),
                };
                let failure = if stopped {
                    CallError::Stopped
                } else {
                    CallError::Failed {
                        n: Some(n),
                        code,
                        message: message.clone(),
                    }
                };
                let (tokens_in, tokens_out, cost) =
                    failed_cost(&full_prompt, streamer.chars, &pricing);
                let signal_json = failure
                    .signal()
                    .and_then(|s| serde_json::to_string(&s).ok());
                let end = CallEnd {
                    state: CallState::Failed,
                    cost_usd: cost,
                    tokens_in,
                    tokens_out,
                    finished_ms: now_ms(),
                    error: Some(message),
                    signal_json,
                    attempt_id: None,
                };
                (end, Err(failure))
            }
        };
        drop(streamer);
        self.settle(&spec, n, worst, &end).await;
        result
    }

    /// Reserves `worst` for `spec`: in memory first, then in the store (which re-checks the
    /// cap and the lease). Returns the call's number.
    async fn reserve(&self, spec: &CallSpec<'_>, worst: f64) -> Result<u32, CallError> {
        let mut ledger = self.ledger.lock().await;
        if let Err(refused) = ledger.try_reserve(worst) {
            self.control.stop(Stop::Budget);
            return Err(CallError::Budget(refused.to_string()));
        }
        let call = NewCall {
            run_id: self.run_id.clone(),
            node_id: spec.node_id.to_owned(),
            purpose: spec.purpose,
            model: spec.model.to_owned(),
            worker: None,
            rung: spec.rung,
            reserved_usd: worst,
            started_ms: now_ms(),
            attempt_id: None,
        };
        let stored = self.engine.reserve_logged(self.token(), &call).await;
        match stored {
            Ok(Reserved::Yes { n, .. }) => Ok(n),
            Ok(Reserved::OverCap {
                spent_usd,
                reserved_usd,
            }) => {
                ledger.release(worst);
                self.control.stop(Stop::Budget);
                Err(CallError::Budget(format!(
                    "the call's worst case of ${worst:.4} does not fit: ${spent_usd:.4} spent and \
                     ${reserved_usd:.4} reserved of the ${:.2} cap",
                    ledger.cap_usd
                )))
            }
            Ok(Reserved::LeaseLost) => {
                ledger.release(worst);
                self.control.stop(Stop::LeaseLost);
                Err(CallError::Stopped)
            }
            Err(error) => {
                ledger.release(worst);
                Err(CallError::Failed {
                    n: None,
                    code: ErrorCode::Database,
                    message: EngineError::from(error).to_string(),
                })
            }
        }
    }

    /// Settles call `n` (reserved `worst`) with `end`.
    async fn settle(&self, spec: &CallSpec<'_>, n: u32, worst: f64, end: &CallEnd) {
        let stored = {
            let mut ledger = self.ledger.lock().await;
            ledger.settle(worst, end.cost_usd);
            self.engine
                .finish_logged(
                    &self.run_id,
                    spec.node_id,
                    n,
                    self.token(),
                    spec.model,
                    worst,
                    end,
                )
                .await
        };
        match stored {
            Ok(Some(_)) => {}
            Ok(None) => self.control.stop(Stop::LeaseLost),
            Err(error) => {
                tracing::warn!(run = %self.run_id, %error, "a call's cost was not stored");
            }
        }
    }
}
