//! Attempts from the command line: `run --repo … --worker …` (without `--mode`), `review`,
//! `approve`, `reject`, `request-changes`, `compare --repo …`, `recover`, `cancel`,
//! `worktrees prune` (runs, and `runs list|log`, are `runs.rs`).
//!
//! The JSON (`review_json`) is a contract scripts and benches depend on. Exit codes: 0 the
//! attempt reached review with every gate passed (or the action succeeded), 3 it reached review
//! with a gate failed (or the action is blocked by a gate), 2 bad input, 1 anything else.
//!
//! The attempt runs inside this process's engine, so commands that start one (`run`,
//! `request-changes`, `compare`, `recover`) wait for it: when the process ends, the engine
//! closes and cancels what it still owns. With `--detach` (`run`, `compare`, `recover`) the
//! attempt is handed to a detached copy of this binary instead (the hidden `attempt-worker`
//! verb, its token on stdin, its log under `<data dir>/logs/attempts/`), which owns it to the
//! end; this process prints it and exits. `cancel` of an attempt another process runs asks
//! that process to stop it and waits for it (up to 10 s).

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::json;
use switchyard_core::attempt::self_review::{SelfReview, SelfReviewState};
use switchyard_core::attempt::{
    file_status_name, AttemptRequest, AttemptReview, AttemptState, LineComment,
};
use switchyard_core::error::ErrorCode;
use switchyard_core::worker::Usage;
use switchyard_engine::Engine;

use crate::output::CliError;
pub(crate) use crate::review_json::{gate_name, pretty, review_json, summary_json};
use crate::signals;

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
    /// Let the worker and the verification reach the network. Without it an `exec:` worker and
    /// verification have none, and a CLI worker reaches only its provider's origin.
    #[arg(long)]
    pub allow_network: bool,
    /// Another folder the worker and the verification may write (repeatable; an absolute
    /// path, e.g. a build cache). Your repository's git directory and checkout are refused.
    #[arg(long = "allow-write", value_name = "DIR")]
    pub allow_write: Vec<String>,
    /// After verification, the worker's model re-reads its change and writes a short
    /// self-review (risks, files touched, tests added), shown beside Switchyard's own
    /// verification — never instead of it. Model workers only.
    #[arg(long)]
    pub self_review: bool,
}

/// `switchyard worktrees …`
#[derive(Args, Debug)]
pub struct WorktreesArgs {
    #[command(subcommand)]
    pub command: WorktreesCommand,
}

#[derive(Subcommand, Debug)]
pub enum WorktreesCommand {
    /// Remove now the worktrees, `switchyard/*` branches and detached logs of attempts that
    /// ended without integrating longer ago than the retention (Settings → Worktrees; also
    /// done at every start). Attempts that are live, in review or approved keep theirs.
    Prune,
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
        allow_network: args.allow_network,
        allow_write: args.allow_write,
        self_review: args.self_review,
    })
}

/// `switchyard run --repo … --worker …` (no `--mode`): start one attempt, wait until review
/// (or failure), print the review. With `detach`, print it queued: a detached Switchyard
/// process runs it to review (`review <id>` shows the outcome; SIGTERM to that process, whose
/// pid `cancel <id>` names, cancels the attempt).
pub async fn run(
    engine: &Arc<Engine>,
    task: TaskArgs,
    worker: String,
    detach: bool,
    json: bool,
) -> Result<ExitCode, Failure> {
    let req = request(task, worker)?;
    if detach {
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
) -> Result<impl FnMut(&switchyard_engine::handoff::Handoff) -> Result<u32, String>, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::internal(format!("cannot find this program's path: {e}")))?;
    Ok(engine.detached_launcher(exe, vec![WORKER_VERB.into()]))
}

/// The hidden verb a detached attempt runs under.
pub const WORKER_VERB: &str = "attempt-worker";

/// Most bytes of hand-off token read from stdin.
const MAX_TOKEN: u64 = 4096;

/// The hand-off token `run --detach` wrote on this process's stdin (one line); `verb` names
/// the hidden verb reading it.
pub fn read_handoff_token(verb: &str) -> Result<String, CliError> {
    use std::io::Read;
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_TOKEN)
        .read_to_string(&mut text)
        .map_err(|e| CliError::invalid(format!("cannot read the hand-off token: {e}")))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(CliError::invalid(format!(
            "{verb} expects its hand-off token on stdin"
        )));
    }
    Ok(token.to_owned())
}

/// `switchyard attempt-worker <id>` (hidden; started by `run --detach`): see
/// [`signals::own`].
pub async fn attempt_worker(
    engine: &Arc<Engine>,
    id: &str,
    token: &str,
) -> Result<ExitCode, Failure> {
    let review = signals::own::<signals::Attempt>(engine, id, token).await?;
    Ok(ExitCode::from(review_exit(&review)))
}

/// Waits for the attempt; a termination signal cancels it (see [`signals::wait`]).
async fn wait(engine: &Arc<Engine>, id: &str) -> Result<AttemptReview, Failure> {
    signals::wait::<signals::Attempt>(engine, id).await
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

/// `switchyard recover <id> [--detach]`: re-captures and re-runs the gates of an interrupted
/// attempt (or, if its worker never ran, runs it from the start) and waits like `run`; with
/// `detach`, a detached Switchyard process does it and this prints the attempt at once.
pub async fn recover(
    engine: &Arc<Engine>,
    id: &str,
    detach: bool,
    json: bool,
) -> Result<ExitCode, Failure> {
    if detach {
        let mut launch = worker_launcher(engine)?;
        let handed = engine.recover_attempt_detached(id, &mut launch).await?;
        print_review(&engine.attempt_review(&handed.id).await?, json);
        return Ok(ExitCode::SUCCESS);
    }
    let review = engine.recover_attempt(id).await?;
    let review = if review.summary.state.is_live() {
        wait(engine, id).await?
    } else {
        review
    };
    Ok(show(&review, json))
}

/// `switchyard cancel <id>`: stops the attempt here or asks the process that runs it.
pub async fn cancel(engine: &Arc<Engine>, id: &str, json: bool) -> Result<ExitCode, Failure> {
    let summary = engine.cancel_attempt(id).await?;
    let review = engine.attempt_review(&summary.id).await?;
    print_review(&review, json);
    Ok(ExitCode::SUCCESS)
}

/// `switchyard worktrees prune`: applies the worktree retention now.
pub async fn worktrees(
    engine: &Arc<Engine>,
    args: WorktreesArgs,
    json: bool,
) -> Result<ExitCode, Failure> {
    match args.command {
        WorktreesCommand::Prune => {
            let pruned = engine.prune_worktrees().await?;
            if json {
                let value = json!({
                    "removed_worktrees": pruned.worktrees,
                    "removed_logs": pruned.logs,
                    "problems": pruned.problems,
                    "retention_days": pruned.usage.retention_days,
                    "worktrees": pruned.usage.worktrees,
                    "bytes": pruned.usage.bytes,
                    "path": pruned.usage.path,
                });
                println!("{}", pretty(&value));
            } else {
                println!(
                    "removed {} worktree(s) and {} log(s) older than {} day(s); {} worktree(s) \
                     left in {}",
                    pruned.worktrees.len(),
                    pruned.logs.len(),
                    pruned.usage.retention_days,
                    pruned.usage.worktrees,
                    pruned.usage.path
                );
                for problem in &pruned.problems {
                    println!("not swept: {problem}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
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
    let size = switchyard_core::compare::COMPARE_WORKERS;
    if !size.admits(workers.len()) {
        return Err(CliError::invalid(format!(
            "compare takes {} to {} --worker values, not {}",
            size.min,
            size.max,
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

/// 1 when the attempt failed, was canceled or interrupted; 3 when a gate failed; 0 otherwise.
pub(crate) fn review_exit(review: &AttemptReview) -> u8 {
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
pub(crate) fn dollars(cost: f64) -> String {
    if cost == 0.0 || cost >= 0.01 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.6}")
    }
}

pub(crate) fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The worker's self-review for people: labelled as the worker's, never as a check.
fn describe_self_review(review: &SelfReview) -> String {
    let by = review.model.as_deref().unwrap_or("the worker");
    match review.state {
        SelfReviewState::Written => {
            let mut out = format!("self-review by {by} (the worker's own reading, not a check):\n");
            for (label, items) in [
                ("risk", &review.risks),
                ("file", &review.files_touched),
                ("test", &review.tests_added),
            ] {
                for item in items {
                    out.push_str(&format!("  {label}: {item}\n"));
                }
            }
            if review.truncated > 0 {
                out.push_str(&format!("  ({} more lines cut)\n", review.truncated));
            }
            out
        }
        SelfReviewState::Failed | SelfReviewState::Unavailable => format!(
            "self-review: none ({})\n",
            review.message.as_deref().unwrap_or("no reason given")
        ),
    }
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
    if let Some(self_review) = &review.self_review {
        out.push_str(&describe_self_review(self_review));
    }
    if let Some(usage) = &review.usage {
        out.push_str(&format!("{}\n", usage_line(usage, s.cost_usd)));
    } else if let Some(cost) = s.cost_usd {
        out.push_str(&format!("cost: {}\n", dollars(cost)));
    }
    if let Some(error) = &s.error {
        out.push_str(&format!("error: {}\n", error.message));
    }
    // Once integrated there is nothing left to approve: the reason would only contradict the
    // integration line below.
    if let Some(blocked) = review
        .approve_blocked
        .as_ref()
        .filter(|_| review.integration.is_none())
    {
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
