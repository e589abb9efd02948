//! `switchyard mcp` through the official Rust MCP SDK's client, on a temp home and the bundled
//! catalog: the tool list and its schemas, each phase-1 tool's real content, bad input, the
//! caller's name, stdout carrying only protocol, and a clean exit on stdin EOF. The run
//! tools' behaviour is in `mcp_runs.rs`.
// These tests drive the real `switchyard` binary as a child process.
#![allow(clippy::disallowed_methods)]

mod mcp_support;

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use serde_json::{json, Value};

use mcp_support::{call, call_err, call_raw, tool_names, tools, Home};

/// Every tool but approve, sorted.
const TOOLS: [&str; 15] = [
    "switchyard_artifact_get",
    "switchyard_compare",
    "switchyard_compose_role",
    "switchyard_health",
    "switchyard_models",
    "switchyard_pick",
    "switchyard_plan",
    "switchyard_recommend",
    "switchyard_review_status",
    "switchyard_role_blocks",
    "switchyard_run_cancel",
    "switchyard_run_create",
    "switchyard_run_list",
    "switchyard_run_result",
    "switchyard_run_status",
];

fn schema<'a>(tools: &'a [rmcp::model::Tool], name: &str) -> &'a serde_json::Map<String, Value> {
    &tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .input_schema
}

#[tokio::test]
async fn tools_have_input_schemas_and_no_approve_tool_by_default() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    let listed = tools(&client).await;
    assert_eq!(tool_names(&listed), TOOLS);
    for tool in &listed {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 40),
            "{} has no real description",
            tool.name
        );
    }
    let pick = schema(&listed, "switchyard_pick");
    assert_eq!(pick["required"], json!(["task"]));
    assert_eq!(pick["additionalProperties"], false);
    assert_eq!(
        pick["$defs"]["Budget"]["enum"],
        json!(["low", "medium", "high", "any"])
    );
    // An attempt or a run: neither is required by the schema, exactly one by the tool.
    let review = schema(&listed, "switchyard_review_status");
    assert!(review.get("required").is_none(), "{review:?}");
    assert!(review["properties"]["attemptId"].is_object());
    assert!(review["properties"]["runId"].is_object());
    let create = schema(&listed, "switchyard_run_create");
    assert_eq!(create["required"], json!(["task"]));
    assert_eq!(create["additionalProperties"], false);
    assert_eq!(
        create["$defs"]["RunModeInput"]["enum"],
        json!(["single", "collective", "cascade", "plan", "swarm"])
    );
    for tool in [
        "switchyard_run_status",
        "switchyard_run_result",
        "switchyard_run_cancel",
    ] {
        assert_eq!(
            schema(&listed, tool)["required"],
            json!(["runId"]),
            "{tool}"
        );
    }
    assert_eq!(
        schema(&listed, "switchyard_artifact_get")["required"],
        json!(["runId", "nodeId"])
    );
    let compare = schema(&listed, "switchyard_compare");
    assert_eq!(compare["properties"]["ids"]["minItems"], 2);
    assert_eq!(compare["properties"]["ids"]["maxItems"], 5);

    // Not listed means not callable either.
    let refused = client
        .call_tool(CallToolRequestParams::new("switchyard_approve"))
        .await;
    assert!(refused.is_err(), "approve must not exist: {refused:?}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_approve_tool_is_listed_once_agents_may_approve() {
    let home = Home::new().await;
    home.set_setting("mcp.agents_may_approve", "true").await;
    let client = home.connect("codex").await;
    let listed = tools(&client).await;
    let mut expected: Vec<&str> = TOOLS.to_vec();
    expected.push("switchyard_approve");
    expected.sort();
    assert_eq!(tool_names(&listed), expected);
    let approve = schema(&listed, "switchyard_approve");
    assert_eq!(approve["required"], json!(["message"]));
    assert!(approve["properties"]["runId"].is_object());
    let health = call(&client, "switchyard_health", json!({})).await;
    assert_eq!(health["agentsMayApprove"], true);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn health_reports_doctor_catalog_key_presence_and_the_callers_name_never_a_key() {
    let home = Home::new().await;
    // Limits as the human set them in Settings.
    home.set_setting("runs.max_usd", "2.5").await;
    home.set_setting("runs.max_parallel_nodes", "3").await;
    let mut command = home.command();
    // A key the server may learn exists, but must never echo (not even its last four).
    command.env("OPENROUTER_API_KEY", "sk-or-v1-testkeyzqxjwvkb");
    let client = home
        .connect_with(command, "claude-code", ProtocolVersion::LATEST)
        .await;
    let result = call_raw(&client, "switchyard_health", json!({})).await;
    let text = mcp_support::text(&result);
    assert!(
        !text.contains("zqxjwvkb") && !text.contains("wvkb"),
        "{text}"
    );
    let health = mcp_support::structured(&result);
    assert_eq!(health["launcher"], "claude-code");
    assert_eq!(health["agentsMayApprove"], false);
    let limits = &health["limits"];
    assert_eq!(limits["maxUsd"], 2.5, "{limits}");
    assert_eq!(limits["maxParallelNodes"], 3);
    assert_eq!(limits["maxParallelRuns"], 2);
    assert_eq!(limits["nodeTimeoutS"], 180);
    assert_eq!(limits["codeNodeTimeoutS"], 900);
    assert_eq!(limits["runTimeoutS"], 1800);
    assert!(health["catalog"]["modelCount"].as_u64().expect("count") > 50);
    let date = health["catalog"]["snapshotDate"].as_str().expect("date");
    assert_eq!(date.len(), 10, "{date}");
    let providers = health["providers"].as_array().expect("providers");
    let openrouter = providers
        .iter()
        .find(|p| p["id"] == "openrouter")
        .expect("openrouter");
    assert_eq!(openrouter["key"], "environment", "{openrouter}");
    assert_eq!(openrouter["usable"], true);
    let anthropic = providers
        .iter()
        .find(|p| p["id"] == "anthropic")
        .expect("anthropic");
    assert_eq!(anthropic["key"], "missing");
    assert_eq!(anthropic["usable"], false);
    let checks: Vec<&str> = health["doctor"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    for id in ["dataDir", "database", "keychain", "git", "workers"] {
        assert!(checks.contains(&id), "{id} missing from {checks:?}");
    }
    let database = &health["doctor"]["checks"][1];
    assert_eq!(database["id"], "database");
    assert_eq!(database["status"], "ok", "{database}");
    assert!(health["doctor"]["workerClis"]
        .as_array()
        .is_some_and(|w| w.len() == 5));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_callers_name_comes_from_client_info_in_either_protocol_else_parent_agent() {
    let home = Home::new().await;
    // The handshake of today's hosts (initialize), and the per-request metadata of the newest.
    for version in [
        ProtocolVersion::LATEST_WITH_INITIALIZE,
        ProtocolVersion::LATEST,
    ] {
        let mut command = home.command();
        command.env("PARENT_AGENT", "cursor");
        let client = home
            .connect_with(command, "claude-code", version.clone())
            .await;
        let health = call(&client, "switchyard_health", json!({})).await;
        assert_eq!(health["launcher"], "claude-code", "{version}");
        client.cancel().await.expect("close");
    }
    let mut command = home.command();
    command.env("PARENT_AGENT", "cursor");
    let client = home
        .connect_with(command, " ", ProtocolVersion::LATEST_WITH_INITIALIZE)
        .await;
    let health = call(&client, "switchyard_health", json!({})).await;
    assert_eq!(health["launcher"], "cursor");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn pick_returns_a_catalog_model_with_its_reason_the_same_as_the_cli() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    let task = "fix the failing rust test in the parser";
    let pick = call(
        &client,
        "switchyard_pick",
        json!({ "task": task, "budget": "low", "anyProvider": true }),
    )
    .await;
    let id = pick["id"].as_str().expect("model id");
    assert!(id.contains('/'), "{id}");
    assert_eq!(pick["classification"]["category"], "coding");
    assert_eq!(pick["category"], "coding");
    let reason = pick["reason"]["text"].as_str().expect("reason");
    assert!(reason.len() > 20, "{reason}");
    assert!(pick["pickId"].as_u64().is_some());
    assert!(!pick["alternatives"]
        .as_array()
        .expect("alternatives")
        .is_empty());
    // The same engine as the CLI: the pick matches `switchyard pick --json`.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["pick", task, "--budget", "low", "--any-provider", "--json"])
        .env("SWITCHYARD_HOME", home.path())
        .env_remove("OPENROUTER_API_KEY")
        .output()
        .expect("switchyard pick");
    let cli: Value = serde_json::from_slice(&out.stdout).expect("pick JSON");
    assert_eq!(cli["id"], pick["id"]);
    // The model is in the catalog, and costs at most the low band's $1/M input.
    let compared = call(
        &client,
        "switchyard_compare",
        json!({ "ids": [id, pick["alternatives"][0]["id"]] }),
    )
    .await;
    let card = &compared["models"][0];
    assert_eq!(card["id"], id);
    let price = card["pricing"]["promptPerM"].as_f64().expect("price");
    assert!(price <= 1.0, "{price}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn models_are_filtered_sorted_capped_and_say_when_truncated() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    let page = call(
        &client,
        "switchyard_models",
        json!({ "category": "coding", "limit": 5 }),
    )
    .await;
    let models = page["models"].as_array().expect("models");
    assert_eq!(models.len(), 5);
    assert!(page["total"].as_u64().expect("total") > 5);
    assert_eq!(page["truncated"], true);
    let scores: Vec<f64> = models
        .iter()
        .map(|m| m["categories"]["coding"]["score"].as_f64().expect("score"))
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    let cheap = call(
        &client,
        "switchyard_models",
        json!({ "maxPrice": 0.5, "sort": "price", "tags": ["tools"], "limit": 100 }),
    )
    .await;
    for model in cheap["models"].as_array().expect("models") {
        assert!(
            model["blendedPerM"].as_f64().expect("price") <= 0.5,
            "{model}"
        );
        assert!(model["tags"]
            .as_array()
            .expect("tags")
            .contains(&json!("tools")));
    }
    let error = call_err(&client, "switchyard_models", json!({ "limit": 0 })).await;
    assert_eq!(error["error"]["code"], "invalidInput");
    assert!(error["error"]["message"]
        .as_str()
        .expect("message")
        .contains("limit"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn recommend_and_plan_route_each_step_to_a_model() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    let recommended = call(
        &client,
        "switchyard_recommend",
        json!({ "task": "write a sonnet about autumn", "count": 3, "anyProvider": true }),
    )
    .await;
    let models = recommended["models"].as_array().expect("models");
    assert_eq!(models.len(), 3);
    let ranks: Vec<u64> = models
        .iter()
        .map(|m| m["reason"]["rank"].as_u64().expect("rank"))
        .collect();
    assert_eq!(ranks, [1, 2, 3]);

    let plan = call(
        &client,
        "switchyard_plan",
        json!({
            "task": "1. write the date parser\n2. write unit tests for the parser\n3. document the parser in the README",
            "mode": "swarm",
            "anyProvider": true
        }),
    )
    .await;
    assert_eq!(plan["mode"], "swarm", "{plan}");
    let nodes = plan["nodes"].as_array().expect("a swarm has nodes");
    assert_eq!(nodes.len(), 3, "{plan}");
    for node in nodes {
        assert!(
            node["model"].as_str().is_some_and(|m| m.contains('/')),
            "{node}"
        );
    }
    assert_eq!(
        nodes[1]["dependsOn"],
        json!(["n1"]),
        "tests wait for the parser"
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn compose_role_returns_has_role_the_full_prompt_and_warnings() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    let role = call(
        &client,
        "switchyard_compose_role",
        json!({
            "task": "Add pagination to GET /orders",
            "persona": "backend-engineer",
            "stack": ["rust", "pg"],
            "guardrails": ["security", "minimal-dif"]
        }),
    )
    .await;
    assert_eq!(role["hasRole"], true);
    let prompt = role["fullPrompt"].as_str().expect("prompt");
    assert!(
        prompt.trim_end().ends_with("Add pagination to GET /orders"),
        "{prompt}"
    );
    let blocks: Vec<&str> = role["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| b["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        blocks,
        ["backend-engineer", "rust", "postgresql", "security"]
    );
    assert_eq!(role["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(role["warnings"][0]["suggestion"], "minimal-diff");

    let personas = call(
        &client,
        "switchyard_role_blocks",
        json!({ "kind": "persona" }),
    )
    .await;
    let list = personas["blocks"].as_array().expect("blocks");
    assert!(list.iter().all(|b| b["kind"] == "persona"));
    assert!(list.iter().any(|b| b["id"] == "backend-engineer"));
    assert!(list.iter().all(|b| b.get("prompt").is_none()));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn bad_input_is_an_error_result_and_the_server_keeps_serving() {
    let home = Home::new().await;
    let client = home.connect("claude-code").await;
    // Input the schema refuses carries the same code as every other bad input.
    let refused = |error: &Value, word: &str| {
        assert_eq!(error["error"]["code"], "invalidInput", "{error}");
        let message = error["error"]["message"].as_str().expect("message");
        assert!(message.contains(word), "{word}: {message}");
    };
    let missing = call_err(&client, "switchyard_pick", json!({ "budget": "low" })).await;
    refused(&missing, "task");
    let wrong = call_err(
        &client,
        "switchyard_pick",
        json!({ "task": "x", "budget": "cheap" }),
    )
    .await;
    refused(&wrong, "cheap");
    let extra = call_err(
        &client,
        "switchyard_models",
        json!({ "limit": 3, "colour": "red" }),
    )
    .await;
    refused(&extra, "colour");
    let typed = call_err(&client, "switchyard_models", json!({ "limit": "many" })).await;
    refused(&typed, "many");
    let empty = call_err(&client, "switchyard_compose_role", json!({ "task": "  " })).await;
    assert_eq!(empty["error"]["code"], "invalidInput", "{empty}");
    let unknown = call_err(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": "no-such-attempt" }),
    )
    .await;
    assert_eq!(unknown["error"]["code"], "notFound", "{unknown}");
    for both_or_neither in [json!({}), json!({ "attemptId": "a", "runId": "r" })] {
        let error = call_err(&client, "switchyard_review_status", both_or_neither).await;
        assert_eq!(error["error"]["code"], "invalidInput", "{error}");
    }
    let few = call_err(&client, "switchyard_compare", json!({ "ids": ["a/b"] })).await;
    assert_eq!(few["error"]["code"], "invalidInput");
    // An unknown tool is a protocol error, and the session survives it too.
    assert!(client
        .call_tool(CallToolRequestParams::new("switchyard_nope"))
        .await
        .is_err());
    let health = call(&client, "switchyard_health", json!({})).await;
    assert_eq!(health["launcher"], "claude-code");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn stdout_carries_only_protocol_and_the_server_exits_cleanly_on_stdin_eof() {
    let home = Home::new().await;
    let mut command = home.command();
    // Chatty logs must all go to stderr.
    command.env("SWITCHYARD_LOG", "debug");
    let recorded = home.connect_recorded(command, "claude-code").await;
    call(&recorded.client, "switchyard_health", json!({})).await;
    call(
        &recorded.client,
        "switchyard_pick",
        json!({ "task": "summarize this article", "anyProvider": true }),
    )
    .await;
    call_err(&recorded.client, "switchyard_pick", json!({})).await;
    // Closing the client closes the server's stdin.
    recorded.client.cancel().await.expect("close");
    let mut child = recorded.child;
    let status = tokio::time::timeout(Duration::from_secs(15), child.wait())
        .await
        .expect("the server exits after stdin EOF")
        .expect("wait");
    assert!(status.success(), "{status:?}");
    let lines = recorded.stdout_lines.lock().expect("lines").clone();
    assert!(lines.len() >= 4, "{lines:?}");
    for line in &lines {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let stderr = recorded.stderr.await.expect("stderr");
    assert!(
        stderr.contains("DEBUG") || stderr.contains("INFO"),
        "{stderr}"
    );
}

#[test]
fn guide_and_config_print_without_starting_a_server() {
    let home = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .args(args)
            .env("SWITCHYARD_HOME", home.path())
            .output()
            .expect("switchyard");
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    assert_eq!(run(&["mcp", "--guide"]), switchyard_mcp::GUIDE);
    // The snippet names this very binary, found beside itself.
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_switchyard"));
    assert_eq!(
        run(&["mcp", "--config", "claude-code"]).trim_end(),
        format!("claude mcp add switchyard -- {} mcp", binary.display())
    );
    let all: Value =
        serde_json::from_str(&run(&["mcp", "--config", "all", "--json"])).expect("JSON");
    let clients: Vec<&str> = all
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["client"].as_str().expect("client"))
        .collect();
    assert_eq!(
        clients,
        ["claudeCode", "codex", "claudeDesktop", "cursor", "generic"]
    );
    let cursor: Value = serde_json::from_str(all[3]["snippet"].as_str().expect("snippet"))
        .expect("Cursor's snippet is JSON");
    assert_eq!(
        cursor["mcpServers"]["switchyard"]["command"],
        binary.display().to_string()
    );
}
