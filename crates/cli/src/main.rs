//! `switchyard`: the headless face of the engine. Every verb prints JSON with `--json`
//! (a human summary otherwise) and exits non-zero with `{"error":{"code","message"}}` on
//! failure. Logic lives in the engine; this file only parses arguments and prints.

mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use switchyard_engine::{Engine, EngineConfig};

use output::{fail, print_doctor, CliError};

#[derive(Parser)]
#[command(name = "switchyard", version, about = "Local agent routing: catalog, routing, roles, runs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the data dir, database, keychain, git, worker CLIs and local model servers.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the version, data directory, database and schema version.
    Info {
        #[arg(long)]
        json: bool,
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
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&CliError::internal(format!("cannot start runtime: {e}")), false),
    };
    runtime.block_on(run(cli))
}

async fn run(cli: Cli) -> ExitCode {
    let json = match &cli.command {
        Command::Doctor { json } | Command::Info { json } => *json,
    };
    let engine = match Engine::open(EngineConfig::default()).await {
        Ok(engine) => engine,
        Err(e) => return fail(&CliError::from(e), json),
    };
    let result = match cli.command {
        Command::Doctor { json } => {
            let report = engine.doctor().await;
            print_doctor(&report, json)
        }
        Command::Info { json } => match engine.app_info().await {
            Ok(info) => output::print(&info, json, |i| {
                format!(
                    "Switchyard {}\ndata dir: {}\ndatabase: {} (schema {}, {} migrations)",
                    i.version, i.data_dir, i.database_path, i.schema_version, i.migrations_applied
                )
            }),
            Err(e) => Err(CliError::from(e)),
        },
    };
    engine.close().await;
    match result {
        Ok(code) => code,
        Err(e) => fail(&e, json),
    }
}
