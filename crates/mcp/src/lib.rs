//! The MCP server: Switchyard's engine offered to coding agents (Claude Code, Codex, Cursor,
//! Claude Desktop, any MCP host) as tools over stdio, with the official Rust SDK (`rmcp`).
//!
//! Thin over [`switchyard_engine::Engine`]: each tool validates its input (a JSON Schema
//! derived from its input type), calls the engine method the CLI verb of the same name calls,
//! and returns a structured result (`structuredContent`, with the same JSON as text). Engine
//! errors become tool results with `isError` and `{"error": {"code", "message"}}`; malformed
//! input is refused the same way, with the deserializer's message. No SQL, no processes, no
//! keys here: nothing this crate returns carries a secret.
//!
//! Approval stays with the human: [`Server`] offers `switchyard_approve` only when the
//! setting [`switchyard_engine::AGENTS_MAY_APPROVE_SETTING`] was on when it started.
//!
//! Entry points: [`serve_stdio`] (what `switchyard mcp` runs), [`Server`], [`GUIDE`]. Tools
//! live one group per file under `tools/`.

mod inputs;
mod reply;
mod server;
mod tools;

use std::sync::Arc;

use rmcp::ServiceExt;
use switchyard_engine::{Engine, EngineError};

pub use server::{RunLauncherFactory, Server, ServerOptions};
pub use tools::{APPROVE_TOOL, TOOL_NAMES};

/// The guide for a main agent: when to delegate, how to write a bounded task with
/// verification, and that it must wait for the human's review. Printed by
/// `switchyard mcp --guide` and sent as the server's instructions.
pub const GUIDE: &str = include_str!("../GUIDE.md");

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The engine could not be read at start (the approve setting).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The MCP session could not start or ended with a transport error.
    #[error("MCP session: {0}")]
    Session(String),
}

/// Serves MCP on this process's stdin and stdout until the client closes stdin (or the
/// session fails). Only protocol messages go to stdout; logs go through `tracing` to wherever
/// the caller sent them (stderr for the CLI).
///
/// # Errors
/// [`ServeError`] when the session cannot start or fails; a client that simply disconnects
/// is a normal end.
pub async fn serve_stdio(engine: Arc<Engine>, options: ServerOptions) -> Result<(), ServeError> {
    let server = Server::start(engine, options).await?;
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    let reason = running
        .waiting()
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    tracing::info!(?reason, "MCP session ended");
    Ok(())
}
