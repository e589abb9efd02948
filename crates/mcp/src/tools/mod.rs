//! The tools, one group per file. Each file's `#[tool_router]` block builds that group's
//! router; [`router`] adds them up. A new group is one more file and one more term in
//! [`router`].

mod approve;
mod catalog;
mod health;
mod review;
mod roles;
mod routing;
mod runs;

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::Server;

/// Every tool's name, the approve tool last (it is offered only when agents may approve).
pub const TOOL_NAMES: [&str; 16] = [
    "switchyard_health",
    "switchyard_models",
    "switchyard_compare",
    "switchyard_pick",
    "switchyard_recommend",
    "switchyard_plan",
    "switchyard_compose_role",
    "switchyard_role_blocks",
    "switchyard_run_create",
    "switchyard_run_status",
    "switchyard_run_result",
    "switchyard_run_list",
    "switchyard_run_cancel",
    "switchyard_artifact_get",
    "switchyard_review_status",
    APPROVE_TOOL,
];

/// The one tool that changes what the human decides, offered only when they allow it.
pub const APPROVE_TOOL: &str = "switchyard_approve";

/// The tool list of a server; `agents_may_approve` adds [`APPROVE_TOOL`].
pub(crate) fn router(agents_may_approve: bool) -> ToolRouter<Server> {
    let mut router = Server::health_tools()
        + Server::catalog_tools()
        + Server::routing_tools()
        + Server::roles_tools()
        + Server::runs_tools()
        + Server::review_tools();
    if agents_may_approve {
        router += Server::approve_tools();
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(router: &ToolRouter<Server>) -> Vec<String> {
        let mut names: Vec<String> = router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        names
    }

    fn expected(with_approve: bool) -> Vec<String> {
        let mut names: Vec<String> = TOOL_NAMES
            .iter()
            .filter(|n| with_approve || **n != APPROVE_TOOL)
            .map(|n| (*n).to_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn approve_is_listed_only_when_agents_may_approve() {
        assert_eq!(names(&router(false)), expected(false));
        assert_eq!(names(&router(true)), expected(true));
    }

    #[test]
    fn every_tool_has_a_description_and_an_object_schema() {
        for tool in router(true).list_all() {
            assert!(
                tool.description.as_deref().is_some_and(|d| d.len() > 40),
                "{}",
                tool.name
            );
            assert_eq!(
                tool.input_schema.get("type").and_then(|t| t.as_str()),
                Some("object"),
                "{}",
                tool.name
            );
        }
    }
}
