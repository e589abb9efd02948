//! Attempts from the command line: `run`, `review`, `approve`, `reject`, `request-changes`,
//! `compare --repo …`, `runs list`, `recover`, `cancel`.
//!
//! The JSON is a contract scripts and benches depend on, so it is built here field by field in
//! snake_case (the engine's own types are camelCase for the UI). Exit codes: 0 the attempt
//! reached review with every gate passed (or the action succeeded), 3 it reached review with a
//! gate failed (or the action is blocked by a gate), 2 bad input, 1 anything else.
//!
//! The attempt runs inside this process's engine, so commands that start one (`run`,
//! `request-changes`, `compare`, `recover`) wait for it: when the process ends, the engine
//! closes and cancels what it still owns. With `--detach` (`run`, `compare`) the attempt is
//! handed to a detached copy of this binary instead (the hidden `attempt-worker` verb, its
//! token on stdin, its log under `<data dir>/logs/attempts/`), which owns it to the end; this
//! process prints it queued and exits.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};
use switchyard_core::attempt::{
    file_status_name, AttemptRequest, AttemptReview, AttemptState, AttemptSummary, LineComment,
};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::{GateName, GateResult};
use switchyard_core::verify::VerificationRecord;
use switchyard_core::worker::Usage;
use switchyard_engine::Engine;

use crate::output::CliError;

/// Who starts attempts from here (recorded with each attempt).
const LAUNCHER: &str = "cli";

/// What a task is sent to, and how it is checked: shared by `run` and `compare`.
#[derive(Args, Debug, Clone)]
pub struct TaskArgs {
    /// A folder inside a local git repository.
    #[arg(long, value_name = "PATH")]
    pub repo: Option<String>,
    /// What to do, in words.
    #[arg(long, value_name = "TEXT")]
    pub task: Option<String>,
    /// A verification command Switchyard runs in the worktree (repeatable; default: detected
    /// from the repository, e.g. `cargo test`). `--verify ''` alone runs none.
    #[arg(long = "verify", value_name = "CMD")]
    pub verify: Vec<String>,
    /// A glob locked in addition to the defaults (repeatable).
    #[arg(long = "lock", value_name = "GLOB")]
    pub lock: Vec<String>,
    /// Seconds the worker may run.
    #[arg(long, value_name = "S")]
    pub timeout: Option<u32>,
    /// A saved role preset whose composed prompt goes before the task.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
}

/// `switchyard run`
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub task: TaskArgs,
    /// model:<id>, claude, codex, gemini, opencode, aider or exec:<command>.
    #[arg(long, value_name = "WORKER")]
    pub worker: String,
    /// Print the attempt as soon as it is queued and exit 0: a detached Switchyard process
    /// runs it to review (`review <id>` shows the outcome; SIGTERM to that process, whose
    /// pid `cancel <id>` names, cancels the attempt).
    #[arg(long)]
    pub detach: bool,
}

/// `switchyard runs …`
#[derive(Args, Debug)]
pub struct RunsArgs {
    #[command(subcommand)]
    pub command: RunsCommand,
}

#[derive(Subcommand, Debug)]
pub enum RunsCommand {
    /// Every attempt, newest first.
    List,
    /// An attempt's event log (state changes, worker output, gate results).
    Log {
        id: String,
        /// Only entries after this sequence number.
        #[arg(long, default_value_t = 0)]
        after: u32,
    },
}

/// One `--line PATH:N=TEXT` comment.
pub fn parse_line_comment(text: &str) -> Result<LineComment, String> {
    let (location, comment) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected PATH:LINE=TEXT"))?;
    let (path, line) = location
        .rsplit_once(':')
        .ok_or_else(|| format!("{text:?}: expected PATH:LINE=TEXT"))?;
    let line: u32 = line
        .trim()
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{text:?}: the line must be a number from 1"))?;
    if path.trim().is_empty() || comment.trim().is_empty() {
        return Err(format!("{text:?}: expected PATH:LINE=TEXT"));
    }
    Ok(LineComment {
        path: path.trim().to_owned(),
        line,
        text: comment.trim().to_owned(),
    })
}

/// An error with the exit code the attempt verbs use for it.
pub struct Failure {
    pub error: CliError,
}

impl From<CliError> for Failure {
    fn from(error: CliError) -> Self {
        Self { error }
    }
}

impl From<switchyard_engine::EngineError> for Failure {
    fn from(error: switchyard_engine::EngineError) -> Self {
        Self {
            error: CliError::from(error),
        }
    }
}

/// 2 bad input, 3 blocked by a gate, 1 anything else.
pub fn exit_code_for(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidInput | ErrorCode::NotFound => 2,
        ErrorCode::GateFailed | ErrorCode::LockedPath | ErrorCode::Changed => 3,
        _ => 1,
    }
}

/// Prints the error as the other verbs do (JSON on stdout with `--json`, text on stderr) with
/// the attempt verbs' exit code.
pub fn fail(failure: &Failure, json: bool) -> ExitCode {
    crate::output::fail(&failure.error, json);
    ExitCode::from(exit_code_for(failure.error.code))
}

fn request(args: TaskArgs, worker: String) -> Result<AttemptRequest, Failure> {
    let repo = args
        .repo
        .filter(|r| !r.trim().is_empty())
        .ok_or_else(|| CliError::invalid("--repo PATH is required".into()))?;
    let task = args
        .task
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| CliError::invalid("--task TEXT is required and must not be empty".into()))?;
    let verify = if args.verify.is_empty() {
        None
    } else {
        Some(
            args.verify
                .into_iter()
                .filter(|v| !v.trim().is_empty())
                .collect(),
        )
    };
    if args.timeout == Some(0) {
        return Err(CliError::invalid("--timeout must be at least 1 second".into()).into());
    }
    Ok(AttemptRequest {
        repo,
        task,
        worker,
        verify,
        lock: args.lock,
        timeout_secs: args.timeout,
        preset: args.preset,
    })
}

/// `switchyard run`: start, wait until review (or failure), print the review.
pub async fn run(engine: &Arc<Engine>, args: RunArgs, json: bool) -> Result<ExitCode, Failure> {
    let req = request(args.task, args.worker)?;
    if args.detach {
        let mut launch = worker_launcher(engine)?;
        let started = engine
            .start_attempt_detached(req, LAUNCHER, &mut launch)
            .await?;
        let queued = engine.attempt_review(&started.id).await?;
        print_review(&queued, json);
        return Ok(ExitCode::SUCCESS);
    }
    let started = engine.start_attempt(req, LAUNCHER).await?;
    let review = wait(engine, &started.id).await?;
    Ok(show(&review, json))
}

/// Starts `<this binary> attempt-worker <id>` detached for each handed-off attempt.
fn worker_launcher(
    engine: &Engine,
) -> Result<impl FnMut(&switchyard_engine::attempts::Handoff) -> Result<u32, String>, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::internal(format!("cannot find this program's path: {e}")))?;
    Ok(engine.detached_launcher(exe, vec![WORKER_VERB.into()]))
}

/// The hidden verb a detached attempt runs under.
pub const WORKER_VERB: &str = "attempt-worker";

/// Most bytes of hand-off token read from stdin.
const MAX_TOKEN: u64 = 4096;

/// The hand-off token `run --detach` wrote on this process's stdin (one line).
pub fn read_handoff_token() -> Result<String, CliError> {
    use std::io::Read;
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_TOKEN)
        .read_to_string(&mut text)
        .map_err(|e| CliError::invalid(format!("cannot read the hand-off token: {e}")))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(CliError::invalid(
            "attempt-worker expects its hand-off token on stdin".into(),
        ));
    }
    Ok(token.to_owned())
}

/// `switchyard attempt-worker <id>` (hidden; started by `run --detach`): adopts the attempt
/// handed to this process and runs it to its end. SIGINT and SIGTERM cancel it (its worker's
/// group is stopped); a hang-up is ignored, so closing the terminal it came from does not end
/// it. Writes only to its log (stderr).
pub async fn attempt_worker(
    engine: &Arc<Engine>,
    id: &str,
    token: &str,
) -> Result<ExitCode, Failure> {
    use tokio::signal::unix::{signal, SignalKind};
    let signal_error =
        |e: std::io::Error| CliError::internal(format!("cannot watch for signals: {e}"));
    let mut terminate = signal(SignalKind::terminate()).map_err(signal_error)?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(signal_error)?;
    // Held, never polled: a SIGHUP is then delivered to this stream instead of ending us.
    let _hangup = signal(SignalKind::hangup()).map_err(signal_error)?;
    engine.adopt_attempt(id, token).await?;
    eprintln!("attempt {id}: adopted by pid {}", std::process::id());
    let review = tokio::select! {
        review = engine.wait_attempt(id) => review?,
        _ = terminate.recv() => stop(engine, id).await?,
        _ = interrupt.recv() => stop(engine, id).await?,
    };
    eprintln!("attempt {id}: ended {}", review.summary.state.as_str());
    Ok(ExitCode::from(review_exit(&review)))
}

async fn stop(engine: &Arc<Engine>, id: &str) -> Result<AttemptReview, Failure> {
    eprintln!("attempt {id}: canceling on a signal");
    engine.cancel_attempt(id).await?;
    Ok(engine.wait_attempt(id).await?)
}

/// Waits for the attempt; Ctrl-C cancels it (the process would otherwise leave it
/// interrupted) and still prints where it ended.
async fn wait(engine: &Arc<Engine>, id: &str) -> Result<AttemptReview, Failure> {
    tokio::select! {
        review = engine.wait_attempt(id) => Ok(review?),
        _ = tokio::signal::ctrl_c() => {
            engine.cancel_attempt(id).await?;
            Ok(engine.wait_attempt(id).await?)
        }
    }
}

/// `switchyard review <id>`
pub async fn review(engine: &Arc<Engine>, id: &str, json: bool) -> Result<ExitCode, Failure> {
    let review = engine.attempt_review(id).await?;
    Ok(show(&review, json))
}

/// `switchyard approve <id> --message M [--no-integrate]`. An attempt from a compare is
/// picked: approved and integrated, the others of its group rejected.
pub async fn approve(
    engine: &Arc<Engine>,
    id: &str,
    message: &str,
    integrate: bool,
    json: bool,
) -> Result<ExitCode, Failure> {
    if message.trim().is_empty() {
        return Err(CliError::invalid("--message must not be empty".into()).into());
    }
    let current = engine.attempt_review(id).await?;
    let review = match (&current.summary.compare, integrate) {
        (Some(group), true) => engine.pick_attempt(group, id, message).await?,
        _ => engine.approve_attempt(id, message, integrate).await?,
    };
    print_review(&review, json);
    Ok(ExitCode::SUCCESS)
}

/// `switchyard reject <id> --reason R`
pub async fn reject(
    engine: &Arc<Engine>,
    id: &str,
    reason: &str,
    json: bool,
) -> Result<ExitCode, Failure> {
    if reason.trim().is_empty() {
        return Err(CliError::invalid("--reason must not be empty".into()).into());
    }
    let review = engine.reject_attempt(id, reason).await?;
    print_review(&review, json);
    Ok(ExitCode::SUCCESS)
}

/// `switchyard request-changes <id> --comment TEXT [--line PATH:N=TEXT]…`: the revision runs
/// on the same worktree; waits for it like `run` and prints its review.
pub async fn request_changes(
    engine: &Arc<Engine>,
    id: &str,
    comment: &str,
    lines: Vec<LineComment>,
    json: bool,
) -> Result<ExitCode, Failure> {
    if comment.trim().is_empty() && lines.is_empty() {
        return Err(CliError::invalid("give --comment TEXT or --line PATH:N=TEXT".into()).into());
    }
    let next = engine.request_changes(id, comment, lines).await?;
    let review = wait(engine, &next.id).await?;
    Ok(show(&review, json))
}

/// `switchyard recover <id>`: re-captures and re-runs the gates of an interrupted attempt.
pub async fn recover(engine: &Arc<Engine>, id: &str, json: bool) -> Result<ExitCode, Failure> {
    let review = engine.recover_attempt(id).await?;
    let review = if review.summary.state.is_live() {
        wait(engine, id).await?
    } else {
        review
    };
    Ok(show(&review, json))
}

/// `switchyard cancel <id>`
pub async fn cancel(engine: &Arc<Engine>, id: &str, json: bool) -> Result<ExitCode, Failure> {
    let summary = engine.cancel_attempt(id).await?;
    let review = engine.attempt_review(&summary.id).await?;
    print_review(&review, json);
    Ok(ExitCode::SUCCESS)
}

/// `switchyard compare --repo … --task … --worker W1 --worker W2 …`: one attempt per worker from
/// the same base; waits for all and prints each review. Exit 0 when at least one reached
/// review with every gate passed, 3 when some reached review but none passed, 1 otherwise.
pub async fn compare(
    engine: &Arc<Engine>,
    args: TaskArgs,
    workers: Vec<String>,
    detach: bool,
    json: bool,
) -> Result<ExitCode, Failure> {
    if !(2..=5).contains(&workers.len()) {
        return Err(CliError::invalid(format!(
            "compare takes 2 to 5 --worker values, not {}",
            workers.len()
        ))
        .into());
    }
    let req = request(args, workers[0].clone())?;
    let mut reviews = Vec::with_capacity(workers.len());
    let group = if detach {
        let mut launch = worker_launcher(engine)?;
        let group = engine
            .start_compare_detached(req, workers, LAUNCHER, &mut launch)
            .await?;
        for attempt in &group.attempts {
            reviews.push(engine.attempt_review(&attempt.id).await?);
        }
        group
    } else {
        let group = engine.start_compare(req, workers, LAUNCHER).await?;
        for attempt in &group.attempts {
            reviews.push(wait(engine, &attempt.id).await?);
        }
        group
    };
    let codes: Vec<u8> = reviews.iter().map(review_exit).collect();
    // Detached: every attempt is queued, which is success for this call.
    let code = if detach || codes.contains(&0) {
        0
    } else if codes.contains(&3) {
        3
    } else {
        1
    };
    let value = json!({
        "compare": group.id,
        "id": group.id,
        "attempts": reviews.iter().map(review_json).collect::<Vec<_>>(),
    });
    if json {
        println!("{}", pretty(&value));
    } else {
        for review in &reviews {
            println!("{}", describe(review));
        }
        println!("compare {}", group.id);
    }
    Ok(ExitCode::from(code))
}

/// `switchyard runs …`
pub async fn runs(engine: &Arc<Engine>, args: RunsArgs, json: bool) -> Result<ExitCode, Failure> {
    match args.command {
        RunsCommand::List => {
            let list = engine.list_attempts().await?;
            if json {
                let rows: Vec<Value> = list.iter().map(summary_json).collect();
                println!("{}", pretty(&Value::Array(rows)));
            } else if list.is_empty() {
                println!("no attempts yet");
            } else {
                for s in &list {
                    println!(
                        "{}  {:<11} {:<16} {}",
                        s.id,
                        s.state.as_str(),
                        s.worker,
                        first_line(&s.task)
                    );
                }
            }
        }
        RunsCommand::Log { id, after } => {
            let entries = engine.attempt_log(&id, after).await?;
            if json {
                let text = serde_json::to_string_pretty(&entries)
                    .map_err(|e| CliError::internal(format!("cannot serialize output: {e}")))?;
                println!("{text}");
            } else {
                for entry in &entries {
                    let line = serde_json::to_string(&entry.entry).unwrap_or_default();
                    println!("{:>5} {line}", entry.seq);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// 1 when the attempt failed, was canceled or interrupted; 3 when a gate failed; 0 otherwise.
fn review_exit(review: &AttemptReview) -> u8 {
    let state = review.summary.state;
    if matches!(
        state,
        AttemptState::Failed | AttemptState::Canceled | AttemptState::Interrupted
    ) {
        return 1;
    }
    let gate_failed =
        review.summary.gates_passed == Some(false) || review.gates.iter().any(|g| !g.passed);
    if gate_failed {
        3
    } else {
        0
    }
}

/// Prints the review and returns the exit code its outcome calls for.
fn show(review: &AttemptReview, json: bool) -> ExitCode {
    print_review(review, json);
    ExitCode::from(review_exit(review))
}

fn print_review(review: &AttemptReview, json: bool) {
    if json {
        println!("{}", pretty(&review_json(review)));
    } else {
        println!("{}", describe(review));
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The gate's name as the CLI prints it.
pub fn gate_name(name: GateName) -> &'static str {
    match name {
        GateName::LockedPaths => "locked_paths",
        GateName::Escape => "escape",
        GateName::Secrets => "secrets",
        GateName::Size => "size",
        GateName::Verification => "verification",
    }
}

fn gate_json(gate: &GateResult) -> Value {
    json!({
        "name": gate_name(gate.name),
        "passed": gate.passed,
        "detail": gate.detail,
        "evidence": gate.evidence.iter().map(|f| json!({
            "path": f.path,
            "line": f.line,
            "rule": f.rule,
            "message": f.message,
        })).collect::<Vec<_>>(),
    })
}

fn usage_json(usage: &Usage) -> Value {
    json!({
        "input": usage.input,
        "output": usage.output,
        "cached": usage.cached,
        "cost_usd": usage.cost_usd,
        "estimated": usage.estimated,
    })
}

/// Switchyard's verification in one object: the first failing command decides the exit code
/// and the log tail (the last command when all passed).
fn verification_json(record: &VerificationRecord) -> Value {
    let deciding = record.first_failure().or(record.commands.last());
    let summary = if record.commands.is_empty() {
        "no verification commands".to_owned()
    } else {
        let counts: Vec<String> = record.commands.iter().filter_map(|c| c.summary()).collect();
        if !counts.is_empty() {
            counts.join("; ")
        } else {
            let passed = record.commands.iter().filter(|c| c.passed).count();
            format!("{passed} of {} commands passed", record.commands.len())
        }
    };
    json!({
        "passed": record.passed,
        "exit_code": deciding.and_then(|c| c.exit_code),
        "duration_ms": record.duration_ms,
        "summary": summary,
        "log_tail": deciding.map(|c| c.log_tail.as_str()).unwrap_or(""),
        "commands": record.commands.iter().map(|c| json!({
            "command": c.command,
            "passed": c.passed,
            "exit_code": c.exit_code,
            "signal": c.signal,
            "duration_ms": c.duration_ms,
            "summary": c.summary(),
            "log_sha256": c.log_sha256,
            "log_bytes": c.log_bytes,
            "error": c.error,
        })).collect::<Vec<_>>(),
    })
}

fn error_json(summary: &AttemptSummary) -> Value {
    summary.error.as_ref().map_or(Value::Null, |e| {
        json!({
            "code": serde_json::to_value(e.code).unwrap_or(Value::Null),
            "message": e.message,
        })
    })
}

/// One attempt as `runs list` prints it.
fn summary_json(s: &AttemptSummary) -> Value {
    json!({
        "run": s.id,
        "status": s.state.as_str(),
        "worker": s.worker,
        "worker_version": s.worker_version,
        "task": s.task,
        "repo": s.repo,
        "base": s.base,
        "target_branch": s.target_branch,
        "parent": s.parent,
        "compare": s.compare,
        "launcher": s.launcher,
        "created_ms": s.created_ms,
        "updated_ms": s.updated_ms,
        "elapsed_ms": s.elapsed_ms,
        "files_changed": s.files_changed,
        "additions": s.additions,
        "deletions": s.deletions,
        "gates_passed": s.gates_passed,
        "cost_usd": s.cost_usd,
        "error": error_json(s),
    })
}

/// The review JSON `run`, `review` and the other verbs print.
pub fn review_json(review: &AttemptReview) -> Value {
    let s = &review.summary;
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    put("run", json!(s.id));
    put("status", json!(s.state.as_str()));
    put("worker", json!(s.worker));
    put(
        "diff",
        review.diff.as_ref().map_or(Value::Null, |d| {
            json!({
                "files": d.files.iter().map(|f| json!({
                    "path": f.path,
                    "status": file_status_name(f.status),
                    "additions": f.additions,
                    "deletions": f.deletions,
                    "old_path": f.old_path,
                    "binary": f.is_binary,
                    "symlink": f.is_symlink,
                    "content_omitted": f.content_omitted,
                })).collect::<Vec<_>>(),
                "additions": d.additions,
                "deletions": d.deletions,
                "sha256": d.sha256,
                "base": d.base,
                "patch_bytes": d.patch_bytes,
            })
        }),
    );
    put(
        "gates",
        Value::Array(review.gates.iter().map(gate_json).collect()),
    );
    put(
        "verification",
        review
            .verification
            .as_ref()
            .map_or(Value::Null, verification_json),
    );
    put(
        "usage",
        review.usage.as_ref().map_or(Value::Null, usage_json),
    );
    put(
        "cost_usd",
        json!(s.cost_usd.or(review.usage.and_then(|u| u.cost_usd))),
    );
    put("error", error_json(s));
    put("worker_version", json!(s.worker_version));
    put("task", json!(s.task));
    put("repo", json!(s.repo));
    put("base", json!(s.base));
    put("target_branch", json!(s.target_branch));
    put("parent", json!(s.parent));
    put("compare", json!(s.compare));
    put("created_ms", json!(s.created_ms));
    put("elapsed_ms", json!(s.elapsed_ms));
    put("can_approve", json!(review.can_approve));
    put("approve_blocked", json!(review.approve_blocked));
    put("verify_commands", json!(review.verify_commands));
    put(
        "decision",
        review.decision.as_ref().map_or(Value::Null, decision_json),
    );
    put(
        "integration",
        review.integration.as_ref().map_or(Value::Null, |i| {
            json!({
                "branch": i.branch,
                "old": i.old,
                "new": i.new,
                "fast_forward": i.fast_forward,
            })
        }),
    );
    Value::Object(out)
}

fn decision_json(decision: &switchyard_core::attempt::ReviewDecision) -> Value {
    use switchyard_core::attempt::ReviewDecision;
    match decision {
        ReviewDecision::Approved { message, commit } => {
            json!({"kind": "approved", "message": message, "commit": commit})
        }
        ReviewDecision::Rejected { reason } => json!({"kind": "rejected", "reason": reason}),
        ReviewDecision::ChangesRequested {
            comment,
            lines,
            next_attempt,
        } => json!({
            "kind": "changes_requested",
            "comment": comment,
            "lines": lines.iter().map(|l| json!({"path": l.path, "line": l.line, "text": l.text}))
                .collect::<Vec<_>>(),
            "next_attempt": next_attempt,
        }),
    }
}

/// Tokens and cost in one line: `usage: 600 in, 240 out; $0.000049 (estimated)`.
fn usage_line(usage: &Usage, cost: Option<f64>) -> String {
    let mut line = format!("usage: {} in, {} out", usage.input, usage.output);
    if usage.cached > 0 {
        line.push_str(&format!(", {} cached", usage.cached));
    }
    match cost.or(usage.cost_usd) {
        Some(cost) if usage.estimated => line.push_str(&format!("; {} (estimated)", dollars(cost))),
        Some(cost) => line.push_str(&format!("; {}", dollars(cost))),
        None => line.push_str("; cost unknown"),
    }
    line
}

/// Dollars with enough digits that a cheap model's cost does not print as $0.0000.
fn dollars(cost: f64) -> String {
    if cost == 0.0 || cost >= 0.01 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.6}")
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The review for people.
fn describe(review: &AttemptReview) -> String {
    let s = &review.summary;
    let mut out = format!("attempt {} — {} ({})\n", s.id, s.state.as_str(), s.worker);
    out.push_str(&format!("task: {}\n", first_line(&s.task)));
    if let Some(diff) = &review.diff {
        out.push_str(&format!(
            "diff: {} files, +{} −{}  sha256 {}\n",
            diff.files.len(),
            diff.additions,
            diff.deletions,
            diff.sha256
        ));
        for f in &diff.files {
            out.push_str(&format!(
                "  {:<9} {} (+{} −{})\n",
                file_status_name(f.status),
                f.path,
                f.additions,
                f.deletions
            ));
        }
    }
    for gate in &review.gates {
        out.push_str(&format!(
            "gate {:<13} {}  {}\n",
            gate_name(gate.name),
            if gate.passed { "passed" } else { "FAILED" },
            gate.detail
        ));
    }
    if let Some(usage) = &review.usage {
        out.push_str(&format!("{}\n", usage_line(usage, s.cost_usd)));
    } else if let Some(cost) = s.cost_usd {
        out.push_str(&format!("cost: {}\n", dollars(cost)));
    }
    if let Some(error) = &s.error {
        out.push_str(&format!("error: {}\n", error.message));
    }
    if let Some(blocked) = &review.approve_blocked {
        out.push_str(&format!("approve blocked: {blocked}\n"));
    }
    if let Some(i) = &review.integration {
        out.push_str(&format!(
            "integrated into {}: {} → {}\n",
            i.branch, i.old, i.new
        ));
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_comments_parse_path_line_and_text() {
        assert_eq!(
            parse_line_comment("src/lib.rs:12=use a constant here"),
            Ok(LineComment {
                path: "src/lib.rs".into(),
                line: 12,
                text: "use a constant here".into()
            })
        );
        // Only the first `=` separates: the comment may contain more.
        assert_eq!(
            parse_line_comment("a.rs:3=x = y").map(|c| c.text),
            Ok("x = y".to_owned())
        );
        for bad in [
            "src/lib.rs=12",
            "src/lib.rs:0=x",
            "src/lib.rs:a=x",
            ":3=x",
            "a:3=",
        ] {
            assert!(parse_line_comment(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn usage_lines_show_tokens_and_a_readable_cost() {
        let usage = Usage {
            input: 600,
            output: 240,
            cached: 0,
            cost_usd: Some(0.000_049_2),
            estimated: true,
        };
        assert_eq!(
            usage_line(&usage, usage.cost_usd),
            "usage: 600 in, 240 out; $0.000049 (estimated)"
        );
        let reported = Usage {
            cached: 100,
            estimated: false,
            ..usage
        };
        assert_eq!(
            usage_line(&reported, Some(1.5)),
            "usage: 600 in, 240 out, 100 cached; $1.5000"
        );
        let unknown = Usage {
            cost_usd: None,
            ..usage
        };
        assert_eq!(
            usage_line(&unknown, None),
            "usage: 600 in, 240 out; cost unknown"
        );
    }

    #[test]
    fn exit_codes_follow_the_contract() {
        assert_eq!(exit_code_for(ErrorCode::InvalidInput), 2);
        assert_eq!(exit_code_for(ErrorCode::NotFound), 2);
        assert_eq!(exit_code_for(ErrorCode::GateFailed), 3);
        assert_eq!(exit_code_for(ErrorCode::Conflict), 1);
        assert_eq!(exit_code_for(ErrorCode::WorkerFailed), 1);
    }
}
