//! `switchyard workers …`: the agent CLIs as Settings → Agent CLIs shows them — found where,
//! which version, whose account, ready or the fix — and their two settings: the executable's
//! path and "CLI's own account".

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use switchyard_core::worker::WorkerCli;
use switchyard_engine::Engine;

use crate::app::agent_cli_lines;
use crate::output::{print, CliError};

/// `switchyard workers …`
#[derive(Args)]
pub struct WorkersArgs {
    #[command(subcommand)]
    command: Option<WorkersCommand>,
}

#[derive(Subcommand)]
enum WorkersCommand {
    /// Every agent CLI: found where, version, whose account, ready or the one-line fix (the
    /// default).
    List,
    /// Whose account a CLI calls its provider with: `own` (its own login or settings;
    /// Switchyard passes it no key and writes no configuration for it) or `switchyard`
    /// (Switchyard's key for its provider when it holds one, the default).
    Account {
        /// claude, codex, gemini, opencode or aider.
        #[arg(value_parser = parse_cli)]
        cli: WorkerCli,
        account: Account,
    },
    /// Set the executable used for a CLI (an absolute path), or with --clear go back to
    /// looking on PATH and the login shell's PATH.
    Path {
        #[arg(value_parser = parse_cli)]
        cli: WorkerCli,
        /// Absolute path of the executable.
        #[arg(required_unless_present = "clear")]
        path: Option<String>,
        #[arg(long, conflicts_with = "path")]
        clear: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Account {
    Own,
    Switchyard,
}

fn parse_cli(text: &str) -> Result<WorkerCli, String> {
    WorkerCli::from_program(text).ok_or_else(|| {
        format!("unknown agent CLI `{text}`: one of claude, codex, gemini, opencode, aider")
    })
}

pub async fn workers(engine: &Engine, args: WorkersArgs, json: bool) -> Result<ExitCode, CliError> {
    let status = match args.command.unwrap_or(WorkersCommand::List) {
        WorkersCommand::List => {
            let clis = engine.worker_clis().await?;
            print(&clis, json, |clis| agent_cli_lines(clis).join("\n"))?;
            return Ok(ExitCode::SUCCESS);
        }
        WorkersCommand::Account { cli, account } => {
            engine
                .set_worker_own_account(cli, matches!(account, Account::Own))
                .await?
        }
        WorkersCommand::Path { cli, path, clear } => {
            let path = path.filter(|_| !clear);
            engine.set_worker_path(cli, path.as_deref()).await?
        }
    };
    print(&status, json, |status| {
        agent_cli_lines(std::slice::from_ref(status)).join("\n")
    })?;
    Ok(ExitCode::SUCCESS)
}
