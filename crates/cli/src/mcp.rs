//! `switchyard mcp`: the MCP server over stdio (for a coding agent to start), its guide, and
//! the configuration snippet each MCP host takes.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use switchyard_core::agent_connect::{AgentClient, AgentConfig};
use switchyard_engine::handoff::{Handoff, Launch};
use switchyard_engine::Engine;
use switchyard_mcp::RunLauncherFactory;

use crate::output::{print, CliError};
use crate::runs::WORKER_VERB;

/// `switchyard mcp [--guide | --config CLIENT]`.
#[derive(Args)]
pub struct McpArgs {
    /// Print the guide for a main agent (when to delegate, how to write a bounded task, why
    /// it waits for your review) and exit.
    #[arg(long, conflicts_with = "config")]
    pub guide: bool,
    /// Print the configuration for one MCP host and exit: claude-code, codex,
    /// claude-desktop, cursor, generic, or all.
    #[arg(long, value_name = "CLIENT")]
    pub config: Option<String>,
}

/// The guide, without opening the engine.
pub fn guide() -> ExitCode {
    print!("{}", switchyard_mcp::GUIDE);
    ExitCode::SUCCESS
}

/// Serves MCP on stdin/stdout until the client closes stdin. Errors go to stderr only:
/// stdout belongs to the protocol.
pub async fn serve(engine: Arc<Engine>) -> ExitCode {
    let mut options = switchyard_mcp::ServerOptions::from_env();
    options.run_launcher = Some(detached_runs());
    match switchyard_mcp::serve_stdio(engine, options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchyard mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Each run an agent creates is handed to a detached `<this binary> run-worker <id>`, as
/// `run --detach` does, so it goes on when the agent's session (and this server) ends.
fn detached_runs() -> Arc<RunLauncherFactory> {
    match std::env::current_exe() {
        Ok(exe) => Arc::new(move |engine: &Engine| {
            let launch = engine.detached_launcher(exe.clone(), vec![WORKER_VERB.into()]);
            Box::new(launch) as Box<Launch<'static>>
        }),
        // Not executed here instead: such a run would die with the session. The engine
        // records the run as failed with this reason.
        Err(error) => {
            let reason = format!("cannot find this program's path: {error}");
            Arc::new(move |_: &Engine| {
                let reason = reason.clone();
                Box::new(move |_: &Handoff| Err(reason.clone())) as Box<Launch<'static>>
            })
        }
    }
}

/// `--config CLIENT`: the snippet for the binary that runs this command.
pub async fn config(engine: &Engine, client: &str, json: bool) -> Result<ExitCode, CliError> {
    let wanted: Vec<AgentClient> = if client.trim().eq_ignore_ascii_case("all") {
        AgentClient::ALL.to_vec()
    } else {
        let one = AgentClient::parse(client).ok_or_else(|| {
            let names: Vec<&str> = AgentClient::ALL.iter().map(|c| c.id()).collect();
            CliError::invalid(format!(
                "unknown MCP host {client:?}; one of: {}, all",
                names.join(", ")
            ))
        })?;
        vec![one]
    };
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(std::path::Path::to_path_buf));
    let connect = engine.agent_connect(beside.as_deref()).await?;
    if let Some(problem) = &connect.problem {
        eprintln!("warning: {problem}");
    }
    let configs: Vec<AgentConfig> = connect
        .configs
        .into_iter()
        .filter(|c| wanted.contains(&c.client))
        .collect();
    print(&configs, json, |configs| {
        configs
            .iter()
            .map(|c| {
                if wanted.len() == 1 {
                    c.snippet.trim_end().to_owned()
                } else {
                    format!("# {} — {}\n{}", c.title, c.target, c.snippet.trim_end())
                }
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    })
}
