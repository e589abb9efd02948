//! The server: the engine, the tool list fixed at start, who the caller is, and how the runs
//! it creates are handed to an owner process.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler};
use switchyard_core::agent_connect::mcp_launcher;
use switchyard_engine::handoff::Launch;
use switchyard_engine::{Engine, EngineError, VERSION};

use crate::{reply, tools};

/// Makes, for the engine of a server, the launcher that starts the process owning a run the
/// server creates (the CLI's detached `switchyard run-worker <id>`).
pub type RunLauncherFactory = dyn Fn(&Engine) -> Box<Launch<'static>> + Send + Sync;

/// How the server was started.
#[derive(Clone, Default)]
pub struct ServerOptions {
    /// The `PARENT_AGENT` environment variable of the process: the caller's name when its
    /// MCP client sends no `clientInfo` name.
    pub parent_agent: Option<String>,
    /// Starts the detached owner of each run `switchyard_run_create` creates, so the run
    /// outlives this server (an agent's session ends, the run goes on under its lease).
    /// `None`: runs execute in this server's engine and are canceled when it closes (for
    /// tests without a `switchyard` binary).
    pub run_launcher: Option<Arc<RunLauncherFactory>>,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("parent_agent", &self.parent_agent)
            .field("detached_runs", &self.run_launcher.is_some())
            .finish()
    }
}

impl ServerOptions {
    /// Options from this process's environment (runs execute in-process until a
    /// [`ServerOptions::run_launcher`] is set).
    pub fn from_env() -> Self {
        Self {
            parent_agent: std::env::var("PARENT_AGENT").ok(),
            run_launcher: None,
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

    /// The engine as shared, for the calls that start background work.
    pub(crate) fn shared_engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// A launcher for the owner process of a new run, if runs are handed off.
    pub(crate) fn run_launch(&self) -> Option<Box<Launch<'static>>> {
        self.options
            .run_launcher
            .as_ref()
            .map(|factory| factory(&self.engine))
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
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = ToolCallContext::new(self, request, context);
        Ok(reply::coded(self.tools.call(call).await?))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("switchyard", VERSION))
            .with_instructions(crate::GUIDE.to_owned())
    }
}
