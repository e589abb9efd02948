//! `switchyard`: the headless face of the engine. Every verb prints JSON with `--json`
//! (a human summary otherwise) and exits non-zero with `{"error":{"code","message"}}` on
//! failure. Logic lives in the engine; these modules only parse arguments and print.

mod app;
mod ask;
mod catalog;
mod keys;
mod output;
mod roles;
mod routing;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
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
    /// List models with filters and a sort.
    Models(catalog::ModelsArgs),
    /// One model in full: prices, scores with their inputs, benchmarks, matches.
    Model {
        /// Catalog id, e.g. anthropic/claude-opus-4.5 (variant ids work too).
        id: String,
    },
    /// Two to five models side by side.
    Compare {
        #[arg(num_args = 2..=5, required = true)]
        ids: Vec<String>,
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
    /// Rate a model 1–5 in a category; ratings move later picks.
    Rate {
        /// Catalog id, e.g. openai/gpt-4o-mini.
        model: String,
        /// coding, reasoning, math, creative, vision, research, fast-cheap or general.
        category: String,
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
        .init();
    let cli = Cli::parse();
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
    let engine = match Engine::open(EngineConfig::default()).await {
        Ok(engine) => engine,
        Err(e) => return fail(&CliError::from(e), json),
    };
    let result = match cli.command {
        Command::Doctor => app::doctor(&engine, json).await,
        Command::Info => app::info(&engine, json).await,
        Command::Models(args) => catalog::models(&engine, args, json).await,
        Command::Model { id } => catalog::model(&engine, &id, json).await,
        Command::Compare { ids } => catalog::compare(&engine, ids, json).await,
        Command::Catalog { command } => catalog::catalog(&engine, command, json).await,
        Command::Roles(args) => roles::run(&engine, args, json).await,
        Command::Keys(args) => keys::keys(&engine, args, json).await,
        Command::Providers(args) => keys::providers(&engine, args, json).await,
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
            model,
            category,
            rating,
        } => routing::rate(&engine, &model, &category, rating, json).await,
    };
    engine.close().await;
    match result {
        Ok(code) => code,
        Err(e) => fail(&e, json),
    }
}
