//! Coding agents that delegate to Switchyard over MCP: where the `switchyard` binary is (for
//! the configuration snippets of Settings → "Connect an agent" and `switchyard mcp --config`),
//! and whether agents may approve what they started.
//!
//! Approval stays with the human unless [`AGENTS_MAY_APPROVE_SETTING`] is on (default off);
//! the MCP server reads it once when it starts and offers its approve tool only then.

use std::path::{Path, PathBuf};

use switchyard_core::agent_connect::{agent_configs, AgentConnect};
use switchyard_runner::tools::check_executable;

use crate::catalog::now;
use crate::{Engine, EngineError};

/// Settings key: `"true"` lets agents approve attempts and runs whose gates all passed.
pub const AGENTS_MAY_APPROVE_SETTING: &str = "mcp.agents_may_approve";

/// The CLI binary's file name.
#[cfg(windows)]
pub const CLI_BINARY: &str = "switchyard.exe";
/// The CLI binary's file name.
#[cfg(not(windows))]
pub const CLI_BINARY: &str = "switchyard";

impl Engine {
    /// Whether agents may approve attempts and runs whose gates all passed. Off unless the
    /// setting says `true`; an unreadable value counts as off and is logged.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn agents_may_approve(&self) -> Result<bool, EngineError> {
        let stored = self.store().setting(AGENTS_MAY_APPROVE_SETTING).await?;
        Ok(match stored.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                tracing::warn!(
                    value = other,
                    "ignoring an invalid agents-may-approve setting"
                );
                false
            }
        })
    }

    /// Sets whether agents may approve; returns the value stored. A running MCP server keeps
    /// the tool list it started with: the change applies to servers started afterwards.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_agents_may_approve(&self, allowed: bool) -> Result<bool, EngineError> {
        self.store()
            .set_setting(AGENTS_MAY_APPROVE_SETTING, &allowed.to_string(), &now())
            .await?;
        Ok(allowed)
    }

    /// The snippets that connect each MCP host to `switchyard mcp`, for the binary found
    /// `beside` a directory (the app's or the CLI's own), else on `PATH` or the login shell's
    /// `PATH`; with none found they name plain `switchyard` and say so.
    ///
    /// # Errors
    /// [`EngineError::Store`] (reading the approve setting).
    pub async fn agent_connect(&self, beside: Option<&Path>) -> Result<AgentConnect, EngineError> {
        let found = self.locate_cli(beside).await;
        let (binary, problem) = match &found {
            Some(path) => (Some(path.display().to_string()), None),
            None => (
                None,
                Some(format!(
                    "the {CLI_BINARY} command was not found next to the app or on PATH; \
                     install it, or replace {CLI_BINARY} below with its absolute path"
                )),
            ),
        };
        let command = binary.clone().unwrap_or_else(|| CLI_BINARY.to_owned());
        Ok(AgentConnect {
            configs: agent_configs(&command),
            binary,
            problem,
            agents_may_approve: self.agents_may_approve().await?,
        })
    }

    /// `beside/switchyard` when it is executable, else the first on the search paths.
    async fn locate_cli(&self, beside: Option<&Path>) -> Option<PathBuf> {
        if let Some(dir) = beside {
            let candidate = dir.join(CLI_BINARY);
            if check_executable(&candidate).is_ok() {
                return Some(candidate);
            }
        }
        self.tools.locate(CLI_BINARY).await.map(|found| found.path)
    }
}
