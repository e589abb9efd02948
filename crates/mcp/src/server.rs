//! The server: the engine, the tool list fixed at start, and who the caller is.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, RoleServer, ServerHandler};
use switchyard_core::agent_connect::mcp_launcher;
use switchyard_engine::{Engine, EngineError, VERSION};

use crate::tools;

/// How the server was started.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// The `PARENT_AGENT` environment variable of the process: the caller's name when its
    /// MCP client sends no `clientInfo` name.
    pub parent_agent: Option<String>,
}

impl ServerOptions {
    /// Options from this process's environment.
    pub fn from_env() -> Self {
        Self {
            parent_agent: std::env::var("PARENT_AGENT").ok(),
        }
    }
}

/// Switchyard's MCP server over one engine. Its tool list is fixed when it starts: the
/// approve tool is in it only if agents may approve at that moment.
#[derive(Debug, Clone)]
pub struct Server {
    engine: Arc<Engine>,
    tools: ToolRouter<Server>,
    options: ServerOptions,
    agents_may_approve: bool,
}

impl Server {
    /// Reads the approve setting and builds the tool list.
    ///
    /// # Errors
    /// [`EngineError::Store`] when the setting cannot be read.
    pub async fn start(engine: Arc<Engine>, options: ServerOptions) -> Result<Self, EngineError> {
        let agents_may_approve = engine.agents_may_approve().await?;
        Ok(Self {
            engine,
            tools: tools::router(agents_may_approve),
            options,
            agents_may_approve,
        })
    }

    /// The engine every tool calls.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether the approve tool is offered.
    pub(crate) fn agents_may_approve(&self) -> bool {
        self.agents_may_approve
    }

    /// The launcher recorded for what this request starts: the `clientInfo` name, else
    /// `PARENT_AGENT`, else `mcp` (see [`mcp_launcher`]). The name is read per request: clients of the
    /// stateless protocol send it with each one.
    pub(crate) fn launcher(&self, context: &RequestContext<RoleServer>) -> String {
        let client = context.client_info().map(|info| info.name);
        mcp_launcher(client.as_deref(), self.options.parent_agent.as_deref())
    }
}

#[tool_handler(router = self.tools)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("switchyard", VERSION))
            .with_instructions(crate::GUIDE.to_owned())
    }
}
