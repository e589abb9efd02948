//! `switchyard_approve`: offered only when the human turned on "agents may approve runs
//! whose gates all passed" before this server started. Approve itself refuses anything whose
//! gates did not all pass, and re-checks the diff's hash (the engine's rules, not ours). A
//! code run is approved through its result's attempt (`Engine::approve_run`).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;
use switchyard_core::error::ErrorCode;

use crate::reply;
use crate::server::Server;
use crate::tools::review::{reviewed, ReviewStatus, Reviewed, RunReview};

/// `switchyard_approve`'s input: an attempt or a run, and the commit message.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ApproveInput {
    /// The attempt id.
    #[serde(default)]
    attempt_id: Option<String>,
    /// Or a code run's id: its one result in review is approved.
    #[serde(default)]
    run_id: Option<String>,
    /// The commit message for the verified change.
    message: String,
}

#[tool_router(router = approve_tools, vis = "pub(crate)")]
impl Server {
    /// Approves an attempt whose gates all passed.
    #[tool(
        name = "switchyard_approve",
        description = "Approve a code attempt (attemptId) or code run (runId) in review whose \
                       every gate passed: commit exactly the verified change and integrate it \
                       into the target branch (fast-forward or clean merge; nothing is pushed). \
                       Refused when a gate failed or the worktree changed since verification.",
        annotations(
            title = "Approve",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn approve(
        &self,
        Parameters(input): Parameters<ApproveInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if !self.agents_may_approve() {
            return reply::fail(
                ErrorCode::InvalidInput,
                "agents may not approve: the human approves in the Switchyard app",
            );
        }
        if input.message.trim().is_empty() {
            return reply::invalid("the commit message is empty");
        }
        let engine = self.engine();
        let by = self.launcher(&context);
        match reviewed(input.attempt_id, input.run_id) {
            Err(refused) => refused,
            Ok(Reviewed::Attempt(id)) => {
                tracing::info!(attempt = %id, %by, "an agent approves");
                match engine.approve_attempt(&id, &input.message, true).await {
                    Ok(review) => reply::ok(&ReviewStatus::of(review, true)),
                    Err(error) => reply::engine_error(&error),
                }
            }
            Ok(Reviewed::Run(id)) => {
                tracing::info!(run = %id, %by, "an agent approves");
                let review = match engine.approve_run(&id, None, &input.message).await {
                    Ok(detail) => RunReview::of(engine, detail, true).await,
                    Err(error) => Err(error),
                };
                reply::reply(review)
            }
        }
    }
}
