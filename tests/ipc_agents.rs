//! Settings → "Connect an agent" through Tauri's mock runtime: the snippets for every MCP
//! host and the approve toggle, off by default and stored.

mod support;

use serde_json::{json, Value};
use support::Harness;

fn clients(connect: &Value) -> Vec<&str> {
    connect["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["client"].as_str().expect("client"))
        .collect()
}

#[test]
fn every_host_gets_a_snippet_for_the_binary_found_or_a_reason() {
    let h = Harness::new();
    let connect = h.ok("agent_connect_configs", json!({}));
    assert_eq!(
        clients(&connect),
        ["claudeCode", "codex", "claudeDesktop", "cursor", "generic"]
    );
    let command = match connect["binary"].as_str() {
        Some(path) => {
            assert!(path.starts_with('/'), "{path}");
            assert_eq!(connect["problem"], Value::Null);
            path.to_owned()
        }
        None => {
            assert!(connect["problem"]
                .as_str()
                .is_some_and(|p| p.contains("PATH")));
            "switchyard".to_owned()
        }
    };
    let claude = &connect["configs"][0];
    assert_eq!(claude["format"], "shell");
    assert_eq!(
        claude["snippet"],
        format!("claude mcp add switchyard -- {command} mcp")
    );
    let codex = &connect["configs"][1];
    assert_eq!(codex["format"], "toml");
    assert_eq!(codex["target"], "~/.codex/config.toml");
    assert!(codex["snippet"]
        .as_str()
        .is_some_and(|s| s.starts_with("[mcp_servers.switchyard]")));
    for config in &connect["configs"].as_array().expect("configs")[2..] {
        let parsed: Value =
            serde_json::from_str(config["snippet"].as_str().expect("snippet")).expect("JSON");
        assert_eq!(
            parsed["mcpServers"]["switchyard"]["command"],
            command.as_str()
        );
    }
}

#[test]
fn agents_may_approve_is_off_by_default_and_the_toggle_is_stored() {
    let h = Harness::new();
    assert_eq!(
        h.ok("agent_connect_configs", json!({}))["agentsMayApprove"],
        false
    );
    let on = h.ok("set_agents_may_approve", json!({ "allowed": true }));
    assert_eq!(on["agentsMayApprove"], true);
    assert_eq!(
        h.ok("agent_connect_configs", json!({}))["agentsMayApprove"],
        true
    );
    let off = h.ok("set_agents_may_approve", json!({ "allowed": false }));
    assert_eq!(off["agentsMayApprove"], false);
    let error = h.err("set_agents_may_approve", json!({ "allowed": "yes" }));
    assert!(error.to_string().contains("allowed"), "{error}");
}
