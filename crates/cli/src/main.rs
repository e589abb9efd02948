//! `switchyard`: the headless face of the engine. Every verb prints JSON with `--json`
//! (a human summary otherwise) and exits non-zero with `{"error":{"code","message"}}` on
//! failure. Logic lives in the engine; these modules only parse arguments and print.

mod app;
mod ask;
mod attempts;
mod catalog;
mod keys;
mod mcp;
mod outcomes;
mod output;
mod review_json;
mod roles;
mod routing;
mod runs;
mod signals;
mod workers;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use switchyard_engine::handoff::JobKind;
use switchyard_engine::{Engine, EngineConfig};

use output::{fail, CliError};

#[derive(Parser)]
#[command(
    name = "switchyard",
    version,
    about = "Local agent routing: catalog, routing, roles, runs"
)]
struct Cli {
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the data dir, database, keychain, git, worker CLIs and local model servers.
    Doctor,
    /// Show the version, data directory, database and schema version.
    Info,
    /// What a new profile still needs before Switchyard can work (the app's first-run
    /// checklist): keychain, a provider key or local server, agent CLIs, a recent catalog, a
    /// connected agent — each with its fix.
    Setup,
    /// List models with filters and a sort.
    Models(catalog::ModelsArgs),
    /// One model in full: prices, scores with their inputs, benchmarks, matches.
    Model {
        /// Catalog id, e.g. anthropic/claude-opus-4.5 (variant ids work too).
        id: String,
    },
    /// Two to five models side by side; with --repo, one coding task sent to two to five
    /// workers at once (one attempt each, same base), waiting for every review.
    Compare {
        /// Catalog ids (without --repo).
        #[arg(num_args = 0..=5, required_unless_present = "repo", conflicts_with = "repo")]
        ids: Vec<String>,
        #[command(flatten)]
        task: attempts::TaskArgs,
        /// A worker for the task (repeat 2–5 times): model:<id>, claude, codex, gemini,
        /// opencode, aider or exec:<command>.
        #[arg(long = "worker", value_name = "WORKER", requires = "repo")]
        workers: Vec<String>,
        /// With --repo: print the attempts as soon as they are queued and exit 0; detached
        /// Switchyard processes run them to review.
        #[arg(long, requires = "repo")]
        detach: bool,
    },
    /// Catalog sources: status, refresh, match corrections.
    Catalog {
        #[command(subcommand)]
        command: catalog::CatalogCommand,
    },
    /// Roles composer: blocks, compose, presets, export and import.
    Roles(roles::RolesArgs),
    /// Provider keys in the OS keychain: set (from stdin), list, delete, test.
    Keys(keys::KeysArgs),
    /// Providers: list with key status, base URLs, custom OpenAI-compatible/Anthropic endpoints.
    Providers(keys::ProvidersArgs),
    /// Agent CLIs: list (found where, version, whose account, ready or the fix), choose a
    /// CLI's own account or Switchyard's key, set an executable's path.
    Workers(workers::WorkersArgs),
    /// Stream one answer from a model; usage and cost follow on stderr (--json: JSON Lines).
    Ask(ask::AskArgs),
    /// How a task reads: category, confidence, needs, stack words and the deciding features;
    /// with --eval FILE.tsv, the classifier measured on a labeled set.
    Classify {
        /// The task, in words.
        #[arg(required_unless_present = "eval", conflicts_with = "eval")]
        task: Option<String>,
        /// A tab-separated file with `task` and `category` columns (and optionally `lang`):
        /// prints accuracy overall, per category and per language, and the confusion matrix.
        #[arg(long, value_name = "FILE.tsv")]
        eval: Option<std::path::PathBuf>,
    },
    /// Recorded outcomes of finished attempts and run nodes (newest first, with filters, or
    /// as CSV); `outcomes eval FILE.csv` measures the failure predictor on an outcome table.
    Outcomes(outcomes::OutcomesArgs),
    /// The best usable model for a task, with its reason and the runner-ups.
    Pick(routing::RouteArgs),
    /// The best N models for a task, one per provider first.
    Recommend {
        #[command(flatten)]
        route: routing::RouteArgs,
        /// How many (1–10).
        #[arg(long, default_value_t = 3)]
        count: u32,
    },
    /// Split a task into sequential steps (--mode plan) or a DAG (--mode swarm), a model each.
    Plan(routing::PlanArgs),
    /// A run: one task across one or many models (--mode single, collective, cascade, plan
    /// or swarm) under limits and a hard USD cap, waited for until it ends or needs review.
    /// With --repo and --worker but no --mode: one coding task sent to a worker in its own
    /// git worktree, Switchyard's gates and verification deciding. Exit 0 completed (or in
    /// review with all gates passed), 3 a gate failed, 2 bad input, 1 failed or canceled.
    Run(runs::RunArgs),
    /// An attempt's diff, gates, verification, usage and cost (a code run's id: its attempt).
    Review {
        /// The attempt id (`run` in the attempt JSON), or a single or cascade code run's id.
        id: String,
    },
    /// Approve an attempt in review: commit the verified tree and integrate it into the
    /// target branch (fast-forward or clean merge; nothing is pushed).
    Approve {
        id: String,
        /// The commit message.
        #[arg(long, value_name = "M")]
        message: String,
        /// Commit on the attempt's branch only; leave the target branch alone.
        #[arg(long)]
        no_integrate: bool,
    },
    /// Reject an attempt; its worktree is removed.
    Reject {
        id: String,
        #[arg(long, value_name = "R")]
        reason: String,
    },
    /// Ask the same worker for changes on the same worktree; waits for the new attempt.
    RequestChanges {
        id: String,
        /// A general comment.
        #[arg(long, value_name = "TEXT", default_value = "")]
        comment: String,
        /// A comment on one line of the new file: PATH:N=TEXT (repeatable).
        #[arg(long = "line", value_name = "PATH:N=TEXT", value_parser = attempts::parse_line_comment)]
        lines: Vec<switchyard_core::attempt::LineComment>,
    },
    /// Runs and attempts: list, show, cancel, recover, output, log, spend.
    Runs(runs::RunsArgs),
    /// Resume an interrupted run (finished nodes kept) or attempt (worktree re-captured,
    /// gates re-run; one whose worker never ran starts over), and wait for it.
    Recover {
        id: String,
        /// Print it at once and exit 0: a detached Switchyard process recovers it.
        #[arg(long)]
        detach: bool,
    },
    /// Cancel a live run (every call and worker stops) or attempt (its worker's whole
    /// process group is stopped); one another Switchyard process runs is asked to stop, and
    /// waited for up to 10 s.
    Cancel { id: String },
    /// Attempt worktrees: prune the old ones now.
    Worktrees(attempts::WorktreesArgs),
    /// Read or change a setting (`settings get`, `settings set workers.allow_unconfined true`).
    Settings(app::SettingsArgs),
    /// The MCP server over stdio, for a coding agent (Claude Code, Codex, Cursor, Claude
    /// Desktop) to delegate to Switchyard; `--guide` and `--config CLIENT` print and exit.
    Mcp(mcp::McpArgs),
    /// Runs an attempt handed over by `run --detach` (its token on stdin) to its end.
    #[command(name = "attempt-worker", hide = true)]
    AttemptWorker { id: String },
    /// Executes a run handed over by `run --detach` (its token on stdin) to its end.
    #[command(name = "run-worker", hide = true)]
    RunWorker { id: String },
    /// Rate a model 1–5 in a category (`rate <model> <category> <1-5>`), or a run's node
    /// output (`rate <run> <node> <1-5>`); ratings move later picks.
    Rate {
        /// A run id, or a catalog id, e.g. openai/gpt-4o-mini.
        target: String,
        /// With a run: the node id (n1, m1, merge, c1, a step's id). With a model: coding,
        /// reasoning, math, creative, vision, research, fast-cheap or general.
        what: String,
        /// 1 (bad) to 5 (excellent).
        rating: u8,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHYARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // No colour codes in a log file (a detached attempt's stderr is one).
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return fail(
                &CliError::internal(format!("cannot start runtime: {e}")),
                cli.json,
            )
        }
    };
    runtime.block_on(run(cli))
}

async fn run(cli: Cli) -> ExitCode {
    let json = cli.json;
    if let Command::AttemptWorker { id } = &cli.command {
        return job_worker(JobKind::Attempt, id, json).await;
    }
    if let Command::Mcp(args) = &cli.command {
        if args.guide {
            return mcp::guide();
        }
        if args.config.is_none() {
            return serve_mcp().await;
        }
    }
    if let Command::Outcomes(outcomes::OutcomesArgs {
        command:
            Some(outcomes::OutcomesCommand::Eval {
                file,
                seed,
                train_fraction,
            }),
        ..
    }) = &cli.command
    {
        return outcomes::eval(file, *seed, *train_fraction, json)
            .unwrap_or_else(|error| fail(&error, json));
    }
    if let Command::RunWorker { id } = &cli.command {
        return job_worker(JobKind::Run, id, json).await;
    }
    let engine = match Engine::open(EngineConfig::default()).await {
        Ok(engine) => std::sync::Arc::new(engine),
        Err(e) => return fail(&CliError::from(e), json),
    };
    let result = match cli.command {
        Command::Doctor => app::doctor(&engine, json).await,
        Command::Info => app::info(&engine, json).await,
        Command::Setup => app::setup(&engine, json).await,
        Command::Models(args) => catalog::models(&engine, args, json).await,
        Command::Model { id } => catalog::model(&engine, &id, json).await,
        Command::Compare {
            ids,
            task,
            workers,
            detach,
        } => {
            if task.repo.is_some() {
                return finish(
                    &engine,
                    attempts::compare(&engine, task, workers, detach, json).await,
                    json,
                )
                .await;
            }
            let size = switchyard_core::compare::COMPARE_MODELS;
            if !size.admits(ids.len()) {
                // A usage error, like the argument parser's own: exit code 2.
                let error = CliError::invalid(format!(
                    "compare takes {} to {} catalog ids (or --repo with --worker), not {}",
                    size.min,
                    size.max,
                    ids.len()
                ));
                engine.close().await;
                fail(&error, json);
                return ExitCode::from(2);
            } else {
                catalog::compare(&engine, ids, json).await
            }
        }
        Command::Run(args) => {
            return finish(&engine, runs::run(&engine, args, json).await, json).await
        }
        Command::Review { id } => {
            let result = match runs::attempt_of(&engine, &id).await {
                Ok(id) => attempts::review(&engine, &id, json).await,
                Err(failure) => Err(failure),
            };
            return finish(&engine, result, json).await;
        }
        Command::Approve {
            id,
            message,
            no_integrate,
        } => {
            let result = match runs::attempt_of(&engine, &id).await {
                Ok(id) => attempts::approve(&engine, &id, &message, !no_integrate, json).await,
                Err(failure) => Err(failure),
            };
            return finish(&engine, result, json).await;
        }
        Command::Reject { id, reason } => {
            let result = match runs::attempt_of(&engine, &id).await {
                Ok(id) => attempts::reject(&engine, &id, &reason, json).await,
                Err(failure) => Err(failure),
            };
            return finish(&engine, result, json).await;
        }
        Command::RequestChanges { id, comment, lines } => {
            let result = attempts::request_changes(&engine, &id, &comment, lines, json).await;
            return finish(&engine, result, json).await;
        }
        Command::Runs(args) => {
            return finish(&engine, runs::runs(&engine, args, json).await, json).await
        }
        Command::Recover { id, detach } => {
            let result = runs::recover(&engine, &id, detach, json).await;
            return finish(&engine, result, json).await;
        }
        Command::Worktrees(args) => {
            return finish(
                &engine,
                attempts::worktrees(&engine, args, json).await,
                json,
            )
            .await
        }
        Command::Cancel { id } => {
            return finish(&engine, runs::cancel(&engine, &id, json).await, json).await
        }
        // Handled before the engine opens.
        Command::AttemptWorker { .. } | Command::RunWorker { .. } => Ok(ExitCode::from(2)),
        Command::Mcp(args) => match args.config {
            Some(client) => mcp::config(&engine, &client, json).await,
            None => Ok(ExitCode::from(2)),
        },
        Command::Catalog { command } => catalog::catalog(&engine, command, json).await,
        Command::Roles(args) => roles::run(&engine, args, json).await,
        Command::Keys(args) => keys::keys(&engine, args, json).await,
        Command::Providers(args) => keys::providers(&engine, args, json).await,
        Command::Workers(args) => workers::workers(&engine, args, json).await,
        Command::Ask(args) => ask::ask(&engine, args, json).await,
        Command::Classify { task, eval } => match (task, eval) {
            (_, Some(path)) => routing::evaluate(&engine, &path, json).await,
            (Some(task), None) => routing::classify(&engine, &task, json).await,
            (None, None) => Err(CliError::invalid("give a task or --eval FILE.tsv".into())),
        },
        Command::Pick(args) => routing::pick(&engine, args, json).await,
        Command::Recommend { route, count } => {
            routing::recommend(&engine, route, count, json).await
        }
        Command::Plan(args) => routing::plan(&engine, args, json).await,
        Command::Rate {
            target,
            what,
            rating,
        } => runs::rate(&engine, &target, &what, rating, json).await,
        Command::Settings(args) => app::settings(&engine, args, json).await,
        Command::Outcomes(outcomes::OutcomesArgs {
            command: Some(outcomes::OutcomesCommand::Learning { skip_below }),
            ..
        }) => outcomes::learning(&engine, skip_below, json).await,
        Command::Outcomes(outcomes::OutcomesArgs {
            command: Some(outcomes::OutcomesCommand::Reset),
            ..
        }) => outcomes::reset(&engine, json).await,
        Command::Outcomes(outcomes::OutcomesArgs {
            command:
                Some(outcomes::OutcomesCommand::Agents {
                    agent,
                    start_model,
                    clear,
                }),
            ..
        }) => outcomes::agents(&engine, agent, start_model, clear, json).await,
        Command::Outcomes(args) => outcomes::list(&engine, args.filter, json).await,
    };
    engine.close().await;
    match result {
        Ok(code) => code,
        Err(e) => fail(&e, json),
    }
}

/// `attempt-worker <id>` and `run-worker <id>`: the engine opens holding the hand-off token
/// from stdin, so its own start-up check does not take the handed-over job (whose row names
/// this pid) for an orphan; then it adopts the job and runs it to its end.
async fn job_worker(kind: JobKind, id: &str, json: bool) -> ExitCode {
    let verb = match kind {
        JobKind::Attempt => attempts::WORKER_VERB,
        JobKind::Run => runs::WORKER_VERB,
    };
    let token = match attempts::read_handoff_token(verb) {
        Ok(token) => token,
        Err(e) => return attempts::fail(&e.into(), json),
    };
    let engine = match Engine::open_for_handoff(EngineConfig::default(), &token).await {
        Ok(engine) => std::sync::Arc::new(engine),
        Err(e) => return fail(&CliError::from(e), json),
    };
    let result = match kind {
        JobKind::Attempt => attempts::attempt_worker(&engine, id, &token).await,
        JobKind::Run => runs::run_worker(&engine, id, &token).await,
    };
    finish(&engine, result, json).await
}

/// `switchyard mcp`: stdout carries only protocol messages, so even a start-up failure is
/// reported on stderr.
async fn serve_mcp() -> ExitCode {
    let engine = match Engine::open(EngineConfig::default()).await {
        Ok(engine) => std::sync::Arc::new(engine),
        Err(e) => {
            eprintln!("switchyard mcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = mcp::serve(engine.clone()).await;
    engine.close().await;
    code
}

/// Closes the engine, then reports an attempt verb's result with its own exit codes.
async fn finish(
    engine: &std::sync::Arc<Engine>,
    result: Result<ExitCode, attempts::Failure>,
    json: bool,
) -> ExitCode {
    engine.close().await;
    match result {
        Ok(code) => code,
        Err(failure) => attempts::fail(&failure, json),
    }
}

/// A command line clap could not read: exit 2, and with `--json` the usual error object on
/// stdout (help and version print as clap prints them).
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    if std::env::args_os().any(|a| a == "--json") {
        let error = CliError::invalid(first_error_line(&error.to_string()));
        println!("{}", serde_json::json!({ "error": error }));
        return ExitCode::from(2);
    }
    let _ = error.print();
    ExitCode::from(2)
}

/// clap's message on one line, without its `error: ` prefix, usage block and hints.
fn first_error_line(text: &str) -> String {
    let message: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let message = message.join(" ");
    message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_owned()
}
