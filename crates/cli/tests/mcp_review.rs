//! `switchyard_review_status` and `switchyard_approve` over MCP against real attempts: a
//! fixture repository, `exec:` workers started by the human with `switchyard run`, and the
//! human's decisions through the CLI. The agent sees what the human decided; it can approve
//! only when Settings allow it and every gate passed.
// These tests drive the real `switchyard` binary and git as child processes.
#![allow(clippy::disallowed_methods)]

mod mcp_support;

use std::path::Path;
use std::process::Command;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

use mcp_support::{call, call_err, git, repo, Home};

const FIX: &str = "exec:printf 'hello, world\\n' > greet.txt";
const VERIFY: &str = "grep -qx 'hello, world' greet.txt";

/// Runs the CLI as the human would; its JSON output.
fn human(home: &Home, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(args)
        .arg("--json")
        .env("SWITCHYARD_HOME", home.path())
        .env_remove("OPENROUTER_API_KEY")
        .output()
        .expect("switchyard");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "switchyard {args:?} printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Starts an attempt with the CLI and waits for it to reach review; its id.
fn attempt(home: &Home, repo: &Path, worker: &str, verify: &str) -> String {
    let run = human(
        home,
        &[
            "run",
            "--repo",
            &repo.to_string_lossy(),
            "--task",
            "Make greet.txt greet the world.",
            "--worker",
            worker,
            "--verify",
            verify,
        ],
    );
    assert_eq!(run["status"], "review", "{run}");
    run["run"].as_str().expect("attempt id").to_owned()
}

fn gate_names(status: &Value) -> Vec<&str> {
    status["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .map(|g| g["name"].as_str().expect("name"))
        .collect()
}

#[tokio::test]
async fn the_agent_waits_for_the_human_and_reads_back_the_approval() {
    let home = Home::new().await;
    let repo = repo(&home);
    let base = git(&repo, &["rev-parse", "main"]);
    let id = attempt(&home, &repo, FIX, VERIFY);
    let client = home.connect("claude-code").await;

    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": id }),
    )
    .await;
    assert_eq!(status["attempt"], id.as_str());
    assert_eq!(status["state"], "review");
    assert_eq!(status["awaitingReview"], true);
    assert_eq!(status["decision"], Value::Null);
    assert_eq!(status["launcher"], "cli");
    assert_eq!(status["targetBranch"], "main");
    assert_eq!(status["diff"]["filesChanged"], 1);
    assert_eq!(status["diff"]["additions"], 1);
    assert_eq!(status["diff"]["deletions"], 1);
    assert_eq!(status["diff"]["files"][0]["path"], "greet.txt");
    assert_eq!(status["diff"]["files"][0]["status"], "modified");
    assert_eq!(status["diff"]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(
        gate_names(&status),
        [
            "lockedPaths",
            "escape",
            "secrets",
            "size",
            "repository",
            "verification"
        ]
    );
    assert_eq!(status["gatesPassed"], true);
    assert_eq!(status["verification"]["passed"], true);
    assert_eq!(status["verification"]["commands"][0]["command"], VERIFY);
    assert_eq!(status["canApprove"], true);
    let next = status["next"].as_str().expect("next");
    assert!(
        next.contains("human's review") && next.contains("cannot approve"),
        "{next}"
    );
    // The agent cannot approve: there is no such tool.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("switchyard_approve").with_arguments(
                json!({ "attemptId": id, "message": "ship it" })
                    .as_object()
                    .cloned()
                    .expect("object"),
            ),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(git(&repo, &["rev-parse", "main"]), base, "nothing landed");

    // The human approves with the CLI; the agent reads it back.
    let approved = human(&home, &["approve", &id, "--message", "Greet the world"]);
    assert_eq!(approved["status"], "integrated", "{approved}");
    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": id }),
    )
    .await;
    assert_eq!(status["state"], "integrated");
    assert_eq!(status["awaitingReview"], false);
    assert_eq!(status["decision"]["kind"], "approved");
    assert_eq!(status["decision"]["message"], "Greet the world");
    assert_eq!(status["integration"]["branch"], "main");
    let head = git(&repo, &["rev-parse", "main"]);
    assert_eq!(status["integration"]["new"], head.as_str());
    assert_ne!(head, base);
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("Approved by the human")));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn changes_requested_and_rejection_reach_the_agent_with_the_humans_words() {
    let home = Home::new().await;
    let repo = repo(&home);
    let id = attempt(&home, &repo, FIX, VERIFY);
    let revision = human(
        &home,
        &[
            "request-changes",
            &id,
            "--comment",
            "Also keep the greeting lowercase.",
            "--line",
            "greet.txt:1=not shouting",
        ],
    );
    let next_id = revision["run"].as_str().expect("the revision").to_owned();
    assert_ne!(next_id, id);
    let client = home.connect("codex").await;
    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": id }),
    )
    .await;
    assert_eq!(status["state"], "superseded");
    assert_eq!(status["awaitingReview"], false);
    let decision = &status["decision"];
    assert_eq!(decision["kind"], "changesRequested");
    assert_eq!(decision["comment"], "Also keep the greeting lowercase.");
    assert_eq!(decision["lines"][0]["path"], "greet.txt");
    assert_eq!(decision["lines"][0]["text"], "not shouting");
    assert_eq!(decision["nextAttempt"], next_id.as_str());
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains(&next_id)));

    human(
        &home,
        &["reject", &next_id, "--reason", "Not needed after all."],
    );
    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": next_id }),
    )
    .await;
    assert_eq!(status["state"], "rejected");
    assert_eq!(status["decision"]["reason"], "Not needed after all.");
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("Not needed after all.")));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn with_the_setting_on_an_agent_approves_only_work_whose_gates_all_passed() {
    let home = Home::new().await;
    home.set_setting("mcp.agents_may_approve", "true").await;
    let repo = repo(&home);
    let base = git(&repo, &["rev-parse", "main"]);
    // Verification fails: the greeting is wrong.
    let failing = attempt(
        &home,
        &repo,
        "exec:printf 'hello, moon\\n' > greet.txt",
        VERIFY,
    );
    let client = home.connect("claude-code").await;
    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": failing }),
    )
    .await;
    assert_eq!(status["gatesPassed"], false);
    assert_eq!(status["canApprove"], false);
    let refused = call_err(
        &client,
        "switchyard_approve",
        json!({ "attemptId": failing, "message": "ship it" }),
    )
    .await;
    assert_eq!(refused["error"]["code"], "gateFailed", "{refused}");
    assert_eq!(git(&repo, &["rev-parse", "main"]), base);
    human(&home, &["reject", &failing, "--reason", "wrong greeting"]);

    let passing = attempt(&home, &repo, FIX, VERIFY);
    let status = call(
        &client,
        "switchyard_review_status",
        json!({ "attemptId": passing }),
    )
    .await;
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("switchyard_approve")));
    let empty = call_err(
        &client,
        "switchyard_approve",
        json!({ "attemptId": passing, "message": " " }),
    )
    .await;
    assert_eq!(empty["error"]["code"], "invalidInput");
    let approved = call(
        &client,
        "switchyard_approve",
        json!({ "attemptId": passing, "message": "Greet the world" }),
    )
    .await;
    assert_eq!(approved["state"], "integrated", "{approved}");
    assert_eq!(approved["decision"]["kind"], "approved");
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s", "main"]),
        "Greet the world"
    );
    assert_eq!(git(&repo, &["rev-parse", "main~1"]), base);
    assert_eq!(
        std::fs::read_to_string(repo.join("greet.txt")).expect("read"),
        "hello, world\n"
    );
    client.cancel().await.expect("close");
}
