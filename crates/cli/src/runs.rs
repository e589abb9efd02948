//! Runs from the command line: `run --mode …`, `runs list|show|cancel|recover|output|log|
//! spend`, `rate <run> <node> <1-5>`, and run ids accepted by `review`, `approve`, `reject`,
//! `cancel` and `recover`.
//!
//! `run` without `--mode` but with `--repo` and `--worker` is the standalone attempt of
//! issue 9 (see `attempts.rs`), unchanged; anything else is a run. The JSON is a contract
//! (see `runs/json.rs`). Exit codes: 0 the run completed (or reached review with every gate
//! passed, or was queued with `--detach`), 3 it reached review with a gate failed, 2 bad
//! input, 1 anything else (failed — `budget_exceeded` included —, canceled, interrupted).
//!
//! A run executes inside this process's engine, so `run` and `runs recover` wait for it
//! (Ctrl-C cancels it). With `--detach` it is handed to a detached copy of this binary (the
//! hidden `run-worker` verb, its token on stdin, its log under `<data dir>/logs/runs/`),
//! which owns it to the end: other processes see it live and `runs cancel` reaches it.

mod args;
mod json;
mod list;

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Value};
use switchyard_core::attempt::{AttemptReview, AttemptState};
use switchyard_core::run::{NodeKind, NodeView, RunDetail, RunMode, RunState};
use switchyard_engine::{Engine, EngineError};

use crate::attempts::{self, Failure};
use crate::output::CliError;
use crate::signals;
use args::{request, routing_hint};
pub use args::{RunArgs, RunsArgs, RunsCommand};
use json::{describe_run, output_json, run_json};

/// The hidden verb a detached run executes under.
pub const WORKER_VERB: &str = "run-worker";

fn invalid(message: impl Into<String>) -> Failure {
    CliError::invalid(message.into()).into()
}

/// Starts `<this binary> run-worker <id>` detached for a handed-off run.
fn run_launcher(
    engine: &Engine,
) -> Result<impl FnMut(&switchyard_engine::handoff::Handoff) -> Result<u32, String>, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::internal(format!("cannot find this program's path: {e}")))?;
    Ok(engine.detached_launcher(exe, vec![WORKER_VERB.into()]))
}

/// `switchyard run`: the standalone attempt of issue 9, or a run.
pub async fn run(engine: &Arc<Engine>, args: RunArgs, json: bool) -> Result<ExitCode, Failure> {
    if args.is_attempt() {
        let flags = args.run_flags();
        if !flags.is_empty() {
            return Err(invalid(format!(
                "{} applies to runs: add --mode single (or another mode)",
                flags.join(", ")
            )));
        }
        let worker = args.worker.unwrap_or_default();
        return attempts::run(engine, args.task, worker, args.detach, json).await;
    }
    let detach = args.detach;
    let req = request(args)?;
    let hint = routing_hint(&req);
    let started = if detach {
        let mut launch = run_launcher(engine)?;
        engine.start_run_detached(req, &mut launch).await
    } else {
        engine.start_run(req).await
    };
    let started = match (started, hint) {
        // Nothing was named and nothing fits: the command line must name one.
        (Err(EngineError::NotFound(message)), Some(hint)) => {
            return Err(invalid(format!("{message}; {hint}")))
        }
        (started, _) => started?,
    };
    if detach {
        let detail = engine.run_detail(&started.id).await?;
        print_run(engine, &detail, json).await?;
        return Ok(ExitCode::SUCCESS);
    }
    let detail = wait(engine, &started.id).await?;
    show(engine, &detail, json).await
}

/// `switchyard run-worker <id>` (hidden; started by `run --detach` and `runs recover
/// --detach`): see [`signals::own`].
pub async fn run_worker(engine: &Arc<Engine>, id: &str, token: &str) -> Result<ExitCode, Failure> {
    let detail = signals::own::<signals::Run>(engine, id, token).await?;
    let result = code_result(engine, &detail).await?;
    Ok(ExitCode::from(exit_for(&detail, &result)))
}

/// Waits for the run; a termination signal cancels it (see [`signals::wait`]).
async fn wait(engine: &Arc<Engine>, id: &str) -> Result<RunDetail, Failure> {
    signals::wait::<signals::Run>(engine, id).await
}

/// What a code run produced for review.
enum CodeResult {
    /// A text run, or a code run with no attempt yet.
    None,
    /// Single and cascade: the succeeded (else the latest) attempt.
    One(Box<AttemptReview>),
    /// A collective: each member's attempt.
    Many(Vec<switchyard_core::attempt::AttemptSummary>),
}

fn is_code(detail: &RunDetail) -> bool {
    detail.nodes.iter().any(|n| n.kind == NodeKind::Code)
}

async fn code_result(engine: &Engine, detail: &RunDetail) -> Result<CodeResult, Failure> {
    if !is_code(detail) {
        return Ok(CodeResult::None);
    }
    let ids: Vec<&str> = detail
        .nodes
        .iter()
        .filter_map(NodeView::current_attempt)
        .collect();
    match (detail.summary.mode, ids.as_slice()) {
        (_, []) => Ok(CodeResult::None),
        (RunMode::Single | RunMode::Cascade, [.., last]) => Ok(CodeResult::One(Box::new(
            engine.attempt_review(last).await?,
        ))),
        _ => {
            let mut summaries = Vec::with_capacity(ids.len());
            for id in ids {
                summaries.push(engine.attempt_summary(id).await?);
            }
            Ok(CodeResult::Many(summaries))
        }
    }
}

/// 0 completed (or in review with every gate passed, or still queued / paused), 3 in review
/// with a gate failed, 1 failed, canceled or interrupted.
fn exit_for(detail: &RunDetail, result: &CodeResult) -> u8 {
    match detail.summary.state {
        RunState::Failed | RunState::Canceled | RunState::Interrupted => 1,
        RunState::Review => match result {
            CodeResult::One(review) => match attempts::review_exit(review) {
                0 => 0,
                _ => 3,
            },
            CodeResult::Many(summaries) => {
                if summaries.iter().any(|s| {
                    s.gates_passed == Some(true) && !matches!(s.state, AttemptState::Failed)
                }) {
                    0
                } else {
                    3
                }
            }
            CodeResult::None => 0,
        },
        _ => 0,
    }
}

async fn print_run(engine: &Engine, detail: &RunDetail, json: bool) -> Result<u8, Failure> {
    let result = code_result(engine, detail).await?;
    let attempt = match &result {
        CodeResult::One(review) => Some(review.as_ref()),
        _ => None,
    };
    if json {
        println!("{}", pretty(&run_json(detail, attempt)));
    } else {
        println!("{}", describe_run(detail, attempt));
    }
    Ok(exit_for(detail, &result))
}

/// Prints the run and returns the exit code its outcome calls for.
async fn show(engine: &Engine, detail: &RunDetail, json: bool) -> Result<ExitCode, Failure> {
    Ok(ExitCode::from(print_run(engine, detail, json).await?))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Run `id`'s detail, or `None` when no run has that id (it may be an attempt's).
async fn find_run(engine: &Engine, id: &str) -> Result<Option<RunDetail>, Failure> {
    if !switchyard_core::run::valid_id(id) {
        return Ok(None);
    }
    match engine.run_detail(id).await {
        Ok(detail) => Ok(Some(detail)),
        Err(EngineError::NotFound(_)) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// The attempt `review`, `approve` and `reject` act on for `id`: the id itself, or, for a
/// single or cascade code run, its current attempt.
pub async fn attempt_of(engine: &Engine, id: &str) -> Result<String, Failure> {
    let Some(detail) = find_run(engine, id).await? else {
        return Ok(id.to_owned());
    };
    let s = &detail.summary;
    if !is_code(&detail) {
        return Err(invalid(format!(
            "run {id} is a text run ({}); it has no attempt to review: see `switchyard runs \
             show {id}` and `switchyard runs output {id}`",
            s.mode.as_str()
        )));
    }
    let ids: Vec<&str> = detail
        .nodes
        .iter()
        .filter_map(NodeView::current_attempt)
        .collect();
    match (s.mode, ids.as_slice()) {
        (_, []) => Err(invalid(format!(
            "run {id} has no attempt to review yet (it is {})",
            s.state.as_str()
        ))),
        (RunMode::Single | RunMode::Cascade, [.., last]) => Ok((*last).to_owned()),
        _ => Err(invalid(format!(
            "run {id} is a {} of {} attempts ({}); review, approve or reject one of them by \
             its id",
            s.mode.as_str(),
            ids.len(),
            ids.join(", ")
        ))),
    }
}

/// `switchyard cancel <id>` / `runs cancel <id>`: a run or an attempt.
pub async fn cancel(engine: &Arc<Engine>, id: &str, json: bool) -> Result<ExitCode, Failure> {
    if find_run(engine, id).await?.is_none() {
        return attempts::cancel(engine, id, json).await;
    }
    engine.cancel_run(id).await?;
    let detail = engine.run_detail(id).await?;
    print_run(engine, &detail, json).await?;
    Ok(ExitCode::SUCCESS)
}

/// `switchyard recover <id>` / `runs recover <id> [--detach]`: a run or an attempt; waits
/// for it unless detached.
pub async fn recover(
    engine: &Arc<Engine>,
    id: &str,
    detach: bool,
    json: bool,
) -> Result<ExitCode, Failure> {
    if find_run(engine, id).await?.is_none() {
        return attempts::recover(engine, id, detach, json).await;
    }
    if detach {
        let mut launch = run_launcher(engine)?;
        engine.recover_run_detached(id, &mut launch).await?;
        let detail = engine.run_detail(id).await?;
        print_run(engine, &detail, json).await?;
        return Ok(ExitCode::SUCCESS);
    }
    engine.recover_run(id).await?;
    let detail = wait(engine, id).await?;
    show(engine, &detail, json).await
}

/// `switchyard runs …`
pub async fn runs(engine: &Arc<Engine>, args: RunsArgs, json: bool) -> Result<ExitCode, Failure> {
    match args.command {
        RunsCommand::List {
            status,
            mode,
            launcher,
            text,
            kind,
        } => list::list(engine, status, mode, launcher, text, kind, json).await,
        RunsCommand::Show { id } => match find_run(engine, &id).await? {
            Some(detail) => show(engine, &detail, json).await,
            None => attempts::review(engine, &id, json).await,
        },
        RunsCommand::Cancel { id } => cancel(engine, &id, json).await,
        RunsCommand::Recover { id, detach } => recover(engine, &id, detach, json).await,
        RunsCommand::Resume { id } => {
            engine.resume_run(&id).await?;
            let detail = wait(engine, &id).await?;
            show(engine, &detail, json).await
        }
        RunsCommand::Output { run, node } => {
            let output = engine.run_output(&run, node.as_deref()).await?;
            if json {
                println!("{}", pretty(&output_json(&output, node.as_deref())));
            } else {
                println!("{}", output.text.trim_end());
            }
            Ok(ExitCode::SUCCESS)
        }
        RunsCommand::Log { id, after, follow } => {
            if follow {
                list::follow(engine, &id, after, json).await
            } else {
                list::log(engine, &id, after, json).await
            }
        }
        RunsCommand::Spend { since } => list::spend(engine, since.as_deref(), json).await,
    }
}

/// `switchyard rate <run> <node> <1-5>` (a run's node) or `rate <model> <category> <1-5>`:
/// the first argument names a run, or it is a model.
pub async fn rate(
    engine: &Engine,
    target: &str,
    second: &str,
    rating: u8,
    json: bool,
) -> Result<ExitCode, CliError> {
    let is_run = switchyard_core::run::valid_id(target)
        && match engine.run_summary(target).await {
            Ok(_) => true,
            Err(EngineError::NotFound(_)) => false,
            Err(error) => return Err(error.into()),
        };
    if !is_run {
        return crate::routing::rate(engine, target, second, rating, json).await;
    }
    let node = engine.rate_run_node(target, second, rating).await?;
    let value = json!({
        "run": target,
        "node": node.id,
        "model": node.model,
        "rating": node.rating,
    });
    if json {
        println!("{}", pretty(&value));
    } else {
        println!(
            "rated node {} of run {target} ({}) {}/5",
            node.id,
            node.model.as_deref().unwrap_or("-"),
            rating
        );
    }
    Ok(ExitCode::SUCCESS)
}
