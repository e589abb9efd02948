//! What `run` and `runs …` take, and the request `run` builds from it.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use switchyard_core::routing::plan::Plan;
use switchyard_core::routing::BudgetTier;
use switchyard_core::run::launch::mode_names;
use switchyard_core::run::{
    launcher_from_env, JudgeSpec, RunMode, RunOption, RunOptions, RunOptionsError, RunRequest,
};

use super::invalid;
use crate::attempts::{Failure, TaskArgs};

/// The judge's threshold when `--judge` is given alone.
const DEFAULT_JUDGE_THRESHOLD: u8 = 7;

pub(super) fn parse_mode(text: &str) -> Result<RunMode, String> {
    RunMode::parse(text).ok_or_else(|| {
        format!("unknown mode {text:?} (single, collective, cascade, plan or swarm)")
    })
}

fn parse_budget(text: &str) -> Result<BudgetTier, String> {
    BudgetTier::parse(text)
        .ok_or_else(|| format!("unknown budget {text:?} (low, medium, high or any)"))
}

/// `switchyard run`
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub task: TaskArgs,
    /// model:<id>, claude, codex, gemini, opencode, aider or exec:<command>. With --repo and
    /// no --mode: one standalone attempt (`run` is its id).
    #[arg(long, value_name = "WORKER")]
    pub worker: Option<String>,
    /// Print the run (or attempt) as soon as it is queued and exit 0: a detached Switchyard
    /// process executes it (`runs show <id>` follows it, `runs cancel <id>` stops it).
    #[arg(long)]
    pub detach: bool,
    /// single, collective, cascade, plan or swarm (default: single). Makes this a run.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub mode: Option<RunMode>,
    /// The price band models are picked from: low, medium (default), high or any.
    #[arg(long, value_name = "B", value_parser = parse_budget)]
    pub budget: Option<BudgetTier>,
    /// The hard USD cap of the run (default: the `runs.max_usd` setting, 5).
    #[arg(long, value_name = "USD")]
    pub max_usd: Option<f64>,
    /// Nodes that may run at once (default 4).
    #[arg(long, value_name = "N")]
    pub max_parallel_nodes: Option<u32>,
    /// Seconds one node may take (text default 180; code default 900).
    #[arg(long, value_name = "S")]
    pub node_timeout: Option<u32>,
    /// Seconds the whole run may take (default 1800).
    #[arg(long, value_name = "S")]
    pub run_timeout: Option<u32>,
    /// The output cap of each model call (what its worst case is reserved at; default 4096).
    #[arg(long, value_name = "N")]
    pub max_output_tokens: Option<u32>,
    /// USD reserved for each attempt of an agent CLI worker (default 0.50).
    #[arg(long, value_name = "USD")]
    pub cli_reservation: Option<f64>,
    /// A model (repeatable): single — the model; collective — the members; plan / swarm —
    /// for steps without one. Default: chosen by routing.
    #[arg(long = "model", value_name = "M")]
    pub models: Vec<String>,
    /// Cascade: a rung's model, cheapest first (repeatable). Default: one per tier.
    #[arg(long = "ladder", value_name = "M")]
    pub ladder: Vec<String>,
    /// Collective: how many members routing recommends (2–6, default 3).
    #[arg(long, value_name = "N")]
    pub members: Option<u32>,
    /// Cascade (text): a model scoring each answer 1–10; below the threshold escalates.
    #[arg(long, value_name = "MODEL")]
    pub judge: Option<String>,
    /// The judge's threshold (1–10, default 7).
    #[arg(long, value_name = "N", requires = "judge")]
    pub judge_threshold: Option<u8>,
    /// Plan / swarm: the plan to run (the JSON `switchyard plan --json` prints, edited).
    /// Default: planned now.
    #[arg(long, value_name = "FILE.json")]
    pub plan: Option<PathBuf>,
    /// Stop after planning: `runs show` shows the nodes, `runs resume` continues.
    #[arg(long)]
    pub pause_after_plan: bool,
    /// Code plans and swarms: stop once the steps are merged on the run branch, before
    /// they are combined for review; `runs resume` continues.
    #[arg(long)]
    pub pause_before_integration: bool,
    /// Text runs: a JSON Schema file the result must match (recovered from fences or prose,
    /// one repair request; a cascade escalates when it still fails).
    #[arg(long, value_name = "FILE.json")]
    pub schema: Option<PathBuf>,
}

impl RunArgs {
    /// Whether this is issue 9's standalone attempt: `--repo` and `--worker`, no `--mode`.
    pub fn is_attempt(&self) -> bool {
        self.mode.is_none() && self.worker.is_some() && self.task.repo.is_some()
    }

    /// The run-only flags given (refused for a standalone attempt rather than ignored).
    pub(super) fn run_flags(&self) -> Vec<&'static str> {
        let given = [
            (self.budget.is_some(), "--budget"),
            (self.max_usd.is_some(), "--max-usd"),
            (self.max_parallel_nodes.is_some(), "--max-parallel-nodes"),
            (self.node_timeout.is_some(), "--node-timeout"),
            (self.run_timeout.is_some(), "--run-timeout"),
            (self.max_output_tokens.is_some(), "--max-output-tokens"),
            (self.cli_reservation.is_some(), "--cli-reservation"),
            (!self.models.is_empty(), "--model"),
            (!self.ladder.is_empty(), "--ladder"),
            (self.members.is_some(), "--members"),
            (self.judge.is_some(), "--judge"),
            (self.plan.is_some(), "--plan"),
            (self.pause_after_plan, "--pause-after-plan"),
            (self.pause_before_integration, "--pause-before-integration"),
            (self.schema.is_some(), "--schema"),
        ];
        given
            .into_iter()
            .filter_map(|(set, flag)| set.then_some(flag))
            .collect()
    }
}

/// `switchyard runs …`
#[derive(Args, Debug)]
pub struct RunsArgs {
    #[command(subcommand)]
    pub command: RunsCommand,
}

#[derive(Subcommand, Debug)]
pub enum RunsCommand {
    /// Runs and standalone attempts, newest first.
    List {
        /// Only this status (a run's or an attempt's: running, review, completed, failed…).
        #[arg(long, value_name = "S")]
        status: Option<String>,
        /// Only this mode (standalone attempts are `single`).
        #[arg(long, value_name = "M", value_parser = parse_mode)]
        mode: Option<RunMode>,
        /// Only what this launcher started (cli, app, codex, claude-code, …).
        #[arg(long, value_name = "L")]
        launcher: Option<String>,
        /// Only tasks containing these words (case-insensitive).
        #[arg(long, value_name = "T")]
        text: Option<String>,
        /// Only runs (`run`) or only standalone attempts (`attempt`).
        #[arg(long, value_name = "K", value_parser = ["run", "attempt"])]
        kind: Option<String>,
    },
    /// A run: its nodes, their tries, costs and savings (an attempt id shows its review).
    Show { id: String },
    /// Cancel a live, paused or interrupted run (also one another process executes).
    Cancel { id: String },
    /// Resume an interrupted run: finished nodes are kept and never called again.
    Recover {
        id: String,
        /// Hand the recovered run to a detached process and exit at once.
        #[arg(long)]
        detach: bool,
    },
    /// Continue a run paused after planning (`run --pause-after-plan`), and wait for it.
    Resume { id: String },
    /// A run's text: its result, or one node's output.
    Output { run: String, node: Option<String> },
    /// A run's or an attempt's event log.
    Log {
        id: String,
        /// Only entries after this sequence number.
        #[arg(long, default_value_t = 0)]
        after: u32,
        /// Keep printing entries (and a run's streamed node text) as they are stored, also
        /// for a job another process runs; exit when it ends (--json: one item per line).
        #[arg(long)]
        follow: bool,
    },
    /// Spend and savings of runs, in total, per model, per mode and per day.
    Spend {
        /// Only runs created since: a date (2026-12-01), a span back from now (7d, 24h,
        /// 30m) or milliseconds since the epoch.
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
    },
}

/// The launcher recorded for runs started here: the calling agent's `PARENT_AGENT`, or `cli`.
fn launcher() -> String {
    launcher_from_env(std::env::var("PARENT_AGENT").ok().as_deref(), "cli")
}

fn read_plan(path: &std::path::Path) -> Result<Plan, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| invalid(format!("cannot read the plan {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        invalid(format!(
            "{} is not a plan (the JSON `switchyard plan --json` prints): {e}",
            path.display()
        ))
    })
}

/// The CLI's words for an option `RunOptions` refused.
fn flag(option: RunOption) -> &'static str {
    match option {
        RunOption::Worker => "--worker",
        RunOption::Verify => "--verify",
        RunOption::Ladder => "--ladder",
        RunOption::Judge => "--judge",
        RunOption::Members => "--members",
        RunOption::Plan => "--plan",
    }
}

fn refused(error: RunOptionsError) -> Failure {
    match error {
        RunOptionsError::EmptyTask => invalid("--task TEXT is required and must not be empty"),
        RunOptionsError::NeedsRepo(RunOption::Worker) => {
            invalid("--worker runs code in a repository: give --repo PATH too")
        }
        RunOptionsError::NeedsRepo(RunOption::Verify) => {
            invalid("--verify checks code: give --repo PATH too")
        }
        RunOptionsError::NeedsRepo(option) => invalid(format!(
            "{} applies to code: give --repo PATH too",
            flag(option)
        )),
        RunOptionsError::NotInMode { option, modes } => invalid(format!(
            "{} applies to --mode {}",
            flag(option),
            mode_names(modes)
        )),
    }
}

/// The request `run` sends, checked for flags that do not fit together (the checks the MCP
/// server makes too, in `RunOptions`, and the CLI's own: `--lock`, `--timeout`).
pub(super) fn request(args: RunArgs) -> Result<RunRequest, Failure> {
    if !args.task.lock.is_empty() {
        return Err(invalid(
            "--lock applies to a standalone attempt (`run --repo … --worker …` without --mode)",
        ));
    }
    if args.task.timeout.is_some() && args.node_timeout.is_some() {
        return Err(invalid("give --node-timeout or --timeout, not both"));
    }
    let schema = args
        .schema
        .as_deref()
        .map(|path| {
            std::fs::read_to_string(path)
                .map_err(|e| invalid(format!("cannot read the schema {}: {e}", path.display())))
        })
        .transpose()?;
    let verify = args.task.verify;
    let options = RunOptions {
        task: args.task.task.unwrap_or_default(),
        mode: args.mode,
        budget: args.budget,
        max_usd: args.max_usd,
        max_parallel_nodes: args.max_parallel_nodes,
        node_timeout_s: args.node_timeout.or(args.task.timeout),
        run_timeout_s: args.run_timeout,
        max_output_tokens: args.max_output_tokens,
        cli_reservation_usd: args.cli_reservation,
        preset: args.task.preset,
        repo: args.task.repo,
        // `--verify ''` alone: no verification commands; no `--verify`: detected.
        verify: (!verify.is_empty()).then_some(verify),
        worker: args.worker,
        models: args.models,
        ladder: args.ladder,
        members: args.members,
        judge: args.judge.map(|model| JudgeSpec {
            model,
            threshold: args.judge_threshold.unwrap_or(DEFAULT_JUDGE_THRESHOLD),
        }),
        plan: args.plan.as_deref().map(read_plan).transpose()?,
        pause_after_plan: args.pause_after_plan,
        pause_before_integration: args.pause_before_integration,
        allow_network: args.task.allow_network,
        allow_write: args.task.allow_write.clone(),
        self_review: args.task.self_review,
        schema,
        launcher: launcher(),
    };
    options.request().map_err(refused)
}

/// What to name when routing finds no model for a run that named none.
pub(super) fn routing_hint(req: &RunRequest) -> Option<&'static str> {
    let named =
        req.models.is_some() || req.worker.is_some() || req.ladder.is_some() || req.plan.is_some();
    match (named, req.repo.is_some()) {
        (true, _) => None,
        (false, true) => Some("name a worker with --worker W (or a model with --model M)"),
        (false, false) => Some("name a model with --model M"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standalone_attempt_needs_repo_and_worker_without_a_mode() {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            run: RunArgs,
        }
        let parse = |args: &[&str]| {
            Wrap::try_parse_from(std::iter::once("run").chain(args.iter().copied()))
                .expect("parses")
                .run
        };
        assert!(parse(&["--repo", "r", "--task", "t", "--worker", "claude"]).is_attempt());
        assert!(!parse(&["--repo", "r", "--task", "t"]).is_attempt());
        assert!(!parse(&["--task", "t", "--worker", "claude"]).is_attempt());
        assert!(
            !parse(&["--repo", "r", "--task", "t", "--worker", "claude", "--mode", "single"])
                .is_attempt()
        );
        let flags = parse(&[
            "--repo",
            "r",
            "--task",
            "t",
            "--worker",
            "claude",
            "--max-usd",
            "1",
        ]);
        assert_eq!(flags.run_flags(), vec!["--max-usd"]);
    }

    #[test]
    fn requests_carry_limits_models_and_the_launcher() {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            run: RunArgs,
        }
        let args = Wrap::try_parse_from([
            "run",
            "--mode",
            "cascade",
            "--task",
            "Explain",
            "--ladder",
            "a",
            "--ladder",
            "b",
            "--max-usd",
            "0.5",
            "--node-timeout",
            "30",
            "--judge",
            "j",
        ])
        .expect("parses")
        .run;
        let req = request(args).ok().expect("request");
        assert_eq!(req.mode, RunMode::Cascade);
        assert_eq!(req.ladder, Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(req.max_usd, Some(0.5));
        let limits = req.limits.expect("limits");
        assert_eq!(limits.node_timeout_s, Some(30));
        assert_eq!(limits.code_node_timeout_s, None);
        assert_eq!(
            req.judge,
            Some(JudgeSpec {
                model: "j".into(),
                threshold: DEFAULT_JUDGE_THRESHOLD
            })
        );
        assert!(!req.launcher.is_empty());

        let bad = Wrap::try_parse_from(["run", "--task", "t", "--ladder", "a"])
            .expect("parses")
            .run;
        assert!(request(bad).is_err(), "--ladder outside a cascade");
        let bad = Wrap::try_parse_from(["run", "--task", "t", "--worker", "claude"])
            .expect("parses")
            .run;
        assert!(request(bad).is_err(), "--worker without --repo");
    }
}
