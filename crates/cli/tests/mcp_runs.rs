//! The run tools over MCP, through the real `switchyard mcp` and the official SDK's client,
//! against the scripted model server of `runs_cli_support` (the keyless custom provider
//! `wtest`, as the CLI's runs tests register it): text runs created, polled, read back and
//! checked against what the model server sent; a code run that waits for the human, who
//! approves it with the CLI; cancel; bad input; a run that outlives its killed client and
//! is listed by another CLI process under the agent's name; a run whose owner died seen as
//! interrupted.
// The binary, git and `kill` run as child processes: a `Command` outside crates/runner.
#![allow(clippy::disallowed_methods)]

mod mcp_support;
mod runs_cli_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use mcp_support::{call, call_err, git, repo, Client, Home};
use runs_cli_support::{close, processes_with, step_of, Behavior, TestServer, MINI, MINI_CALL};

/// Longest a run may take to reach where a test waits for it (a loaded two-core machine).
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// Longest anything else waited on may take (a process to exit, a request to arrive).
const SHORT_LIMIT: Duration = Duration::from_secs(30);

const FIX: &str = "exec:printf 'hello, world\\n' > greet.txt";
const VERIFY: &str = "grep -qx 'hello, world' greet.txt";

/// Runs the CLI on `home` as the human would: exit code and its `--json` output.
async fn cli(home: &Home, args: &[&str]) -> (i32, Value) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .args(args)
        .arg("--json")
        .env("SWITCHYARD_HOME", home.path())
        .env_remove("PARENT_AGENT")
        .env_remove("OPENROUTER_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .kill_on_drop(true);
    let out = tokio::time::timeout(SHORT_LIMIT * 2, command.output())
        .await
        .unwrap_or_else(|_| panic!("switchyard {args:?} hung"))
        .expect("switchyard");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "switchyard {args:?} printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// A model server answering as `choose` says, registered in `home` as `wtest`.
async fn model_server(
    home: &Home,
    choose: impl Fn(&runs_cli_support::Asked) -> Behavior + Send + Sync + 'static,
) -> TestServer {
    let server = runs_cli_support::model_server(choose).await;
    let url = server.at("/v1");
    let (code, added) = cli(
        home,
        &[
            "providers",
            "add",
            "wtest",
            "--kind",
            "openai",
            "--base-url",
            &url,
        ],
    )
    .await;
    assert_eq!(code, 0, "{added}");
    server
}

/// Waits until `done` holds, checking every 200 ms.
async fn until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Polls `switchyard_run_status` until the run's state is `state`; its last status.
async fn status_until(client: &Client, id: &str, state: &str) -> Value {
    let deadline = Instant::now() + RUN_LIMIT;
    loop {
        let status = call(client, "switchyard_run_status", json!({ "runId": id })).await;
        if status["state"] == state {
            return status;
        }
        let live = ["queued", "planning", "running", "review"];
        assert!(
            live.iter().any(|s| status["state"] == *s),
            "the run ended elsewhere: {status:#}"
        );
        assert!(Instant::now() < deadline, "not {state} in time: {status:#}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn node<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["id"] == id))
        .unwrap_or_else(|| panic!("no node {id} in {status:#}"))
}

fn f(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

/// The run `id` as `switchyard runs list --json` (another process) lists it.
async fn listed(home: &Home, id: &str) -> Value {
    let (code, rows) = cli(home, &["runs", "list"]).await;
    assert_eq!(code, 0, "{rows}");
    rows.as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("run {id} not listed: {rows:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_text_run_is_created_at_once_polled_and_read_back() {
    let home = Home::new().await;
    // Slow enough that a create which waited for the run would return it completed.
    let server = model_server(&home, |_| {
        Behavior::after("Hello from the model.", Duration::from_secs(4))
    })
    .await;
    let client = home.connect("claude-code").await;

    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": "Say hello", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();
    assert_ne!(created["status"], "completed", "create waited: {created}");
    assert_eq!(created["mode"], "single");
    assert_eq!(created["launcher"], "claude-code");
    assert_eq!(f(&created["maxUsd"]), 5.0);
    assert!(created["next"]
        .as_str()
        .is_some_and(|n| n.contains("switchyard_run_status")));

    let status = status_until(&client, &id, "completed").await;
    assert_eq!(status["runId"], id.as_str());
    assert_eq!(status["reason"], Value::Null);
    assert_eq!(status["launcher"], "claude-code");
    assert!(close(f(&status["costUsd"]), MINI_CALL), "{status:#}");
    assert_eq!(f(&status["maxUsd"]), 5.0);
    assert_eq!(status["nodesDone"], 1);
    let n1 = node(&status, "n1");
    assert_eq!(n1["status"], "done");
    assert_eq!(n1["model"], MINI);
    assert_eq!(n1["task"], "Say hello");
    assert_eq!(n1["dependsOn"], json!([]));
    assert!(close(f(&n1["costUsd"]), MINI_CALL));
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("switchyard_run_result")));
    assert_eq!(server.requests().len(), 1);

    let result = call(
        &client,
        "switchyard_run_result",
        json!({ "runId": id, "nodes": true }),
    )
    .await;
    assert_eq!(result["kind"], "text");
    assert_eq!(result["complete"], true);
    assert_eq!(result["text"], "Hello from the model.");
    assert_eq!(result["truncated"], false);
    assert_eq!(result["bytes"], "Hello from the model.".len());
    assert_eq!(result["nodes"][0]["id"], "n1");
    assert_eq!(result["nodes"][0]["text"], "Hello from the model.");
    let sha = result["nodes"][0]["sha256"].as_str().expect("sha256");

    // The artifact, whole and in pieces, with the hash the CLI reads too.
    let artifact = call(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": id, "nodeId": "n1" }),
    )
    .await;
    assert_eq!(artifact["text"], "Hello from the model.");
    assert_eq!(artifact["complete"], true);
    assert_eq!(artifact["truncated"], false);
    assert_eq!(artifact["bytes"], 21);
    assert_eq!(artifact["sha256"], sha);
    let (_, output) = cli(&home, &["runs", "output", &id, "n1"]).await;
    assert_eq!(output["nodes"][0]["sha256"], sha);
    let piece = call(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": id, "nodeId": "n1", "offset": 6, "maxBytes": 4 }),
    )
    .await;
    assert_eq!(piece["text"], "from");
    assert_eq!(piece["offset"], 6);
    assert_eq!(piece["truncated"], true);
    assert_eq!(piece["bytes"], 21);

    // Listed here and, under the agent's name, by another process.
    let runs = call(
        &client,
        "switchyard_run_list",
        json!({ "launcher": "claude-code", "status": "completed" }),
    )
    .await;
    assert_eq!(runs["runs"][0]["id"], id.as_str());
    assert_eq!(runs["truncated"], false);
    let none = call(&client, "switchyard_run_list", json!({ "launcher": "cli" })).await;
    assert_eq!(none["runs"], json!([]));
    let row = listed(&home, &id).await;
    assert_eq!(row["launcher"], "claude-code");
    assert_eq!(row["status"], "completed");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_run_from_switchyard_plan_runs_each_step_and_its_result_is_the_last() {
    let home = Home::new().await;
    let _server = model_server(&home, |asked| {
        Behavior::answer(&format!("OUT-{}", step_of(&asked.prompt)))
    })
    .await;
    let client = home.connect("codex").await;
    let task = "1. Outline the topic 2. Write it up";
    let mut plan = call(&client, "switchyard_plan", json!({ "task": task })).await;
    let template = plan["steps"][0].clone();
    let steps: Vec<Value> = ["s1", "s2"]
        .iter()
        .map(|id| {
            let mut step = template.clone();
            step["id"] = json!(id);
            step["task"] = json!(format!("Step {id}"));
            step["model"] = json!(MINI);
            step["dependsOn"] = json!([]);
            step
        })
        .collect();
    plan["steps"] = Value::Array(steps);
    plan["edges"] = json!([]);

    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": task, "mode": "plan", "plan": plan, "maxUsd": 0.5 }),
    )
    .await;
    assert_eq!(created["mode"], "plan");
    assert_eq!(created["nodes"], 2);
    assert_eq!(f(&created["maxUsd"]), 0.5);
    assert_eq!(created["launcher"], "codex");
    let id = created["runId"].as_str().expect("runId").to_owned();

    let status = status_until(&client, &id, "completed").await;
    assert_eq!(status["mode"], "plan");
    assert_eq!(node(&status, "s1")["status"], "done");
    assert_eq!(node(&status, "s2")["dependsOn"], json!(["s1"]));
    assert!(close(f(&status["costUsd"]), 2.0 * MINI_CALL), "{status:#}");

    let result = call(
        &client,
        "switchyard_run_result",
        json!({ "runId": id, "nodes": true }),
    )
    .await;
    assert_eq!(result["text"], "OUT-s2", "a plan's result is its last step");
    let texts: Vec<&str> = result["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, ["OUT-s1", "OUT-s2"]);
    // Without `nodes`, only the result.
    let plain = call(&client, "switchyard_run_result", json!({ "runId": id })).await;
    assert_eq!(plain["nodes"], Value::Null);
    let artifact = call(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": id, "nodeId": "s1" }),
    )
    .await;
    assert_eq!(artifact["text"], "OUT-s1");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_run_waits_for_the_human_who_approves_it_with_the_cli() {
    let home = Home::new().await;
    let repo = repo(&home);
    let base = git(&repo, &["rev-parse", "main"]);
    let client = home.connect("claude-code").await;
    let created = call(
        &client,
        "switchyard_run_create",
        json!({
            "task": "Make greet.txt greet the world.",
            "repo": repo.to_string_lossy(),
            "worker": FIX,
            "verify": VERIFY,
        }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();

    let status = status_until(&client, &id, "review").await;
    let next = status["next"].as_str().expect("next");
    assert!(
        next.contains("human's review") && next.contains("cannot approve"),
        "{next}"
    );
    let n1 = node(&status, "n1");
    assert_eq!(n1["kind"], "code");
    assert_eq!(n1["worker"], FIX);
    let attempt = n1["attemptId"].as_str().expect("attempt").to_owned();

    // No text to read: the result points at the review.
    let result = call(&client, "switchyard_run_result", json!({ "runId": id })).await;
    assert_eq!(result["kind"], "code");
    assert_eq!(result["text"], Value::Null);
    assert_eq!(result["review"][0]["nodeId"], "n1");
    assert_eq!(result["review"][0]["attemptId"], attempt.as_str());
    let no_text = call_err(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": id, "nodeId": "n1" }),
    )
    .await;
    assert_eq!(no_text["error"]["code"], "invalidInput", "{no_text}");

    let review = call(&client, "switchyard_review_status", json!({ "runId": id })).await;
    assert_eq!(review["run"], id.as_str());
    assert_eq!(review["state"], "review");
    assert_eq!(review["awaitingReview"], true);
    assert_eq!(review["launcher"], "claude-code");
    assert_eq!(review["canApprove"], true);
    let one = &review["attempts"][0];
    assert_eq!(one["nodeId"], "n1");
    assert_eq!(one["attempt"], attempt.as_str());
    assert_eq!(one["gatesPassed"], true);
    assert_eq!(one["verification"]["commands"][0]["command"], VERIFY);
    assert_eq!(one["diff"]["files"][0]["path"], "greet.txt");
    assert_eq!(one["decision"], Value::Null);
    assert_eq!(git(&repo, &["rev-parse", "main"]), base, "nothing landed");

    // The human approves the run with the CLI; the agent reads it back by run id.
    let (code, approved) = cli(&home, &["approve", &id, "--message", "Greet the world"]).await;
    assert_eq!(code, 0, "{approved}");
    assert_eq!(approved["status"], "integrated", "{approved}");
    let review = call(&client, "switchyard_review_status", json!({ "runId": id })).await;
    assert_eq!(review["state"], "integrated", "{review:#}");
    assert_eq!(review["awaitingReview"], false);
    assert_eq!(review["canApprove"], false);
    assert_eq!(review["attempts"][0]["decision"]["kind"], "approved");
    assert_eq!(
        review["attempts"][0]["decision"]["message"],
        "Greet the world"
    );
    assert!(review["next"]
        .as_str()
        .is_some_and(|n| n.contains("Approved by the human")));
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s", "main"]),
        "Greet the world"
    );
    let status = call(&client, "switchyard_run_status", json!({ "runId": id })).await;
    assert_eq!(status["state"], "integrated");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_setting_on_an_agent_approves_a_run_whose_gates_passed_by_its_id() {
    let home = Home::new().await;
    home.set_setting("mcp.agents_may_approve", "true").await;
    let repo = repo(&home);
    let client = home.connect("claude-code").await;
    let create = |worker: &str| {
        json!({
            "task": "Make greet.txt greet the world.",
            "repo": repo.to_string_lossy(),
            "worker": worker,
            "verify": [VERIFY],
        })
    };
    // Verification fails: approving is refused.
    let wrong = call(
        &client,
        "switchyard_run_create",
        create("exec:printf 'hello, moon\\n' > greet.txt"),
    )
    .await;
    let wrong = wrong["runId"].as_str().expect("runId").to_owned();
    status_until(&client, &wrong, "review").await;
    let refused = call_err(
        &client,
        "switchyard_approve",
        json!({ "runId": wrong, "message": "ship it" }),
    )
    .await;
    assert_eq!(refused["error"]["code"], "gateFailed", "{refused}");
    let (code, _) = cli(&home, &["reject", &wrong, "--reason", "wrong greeting"]).await;
    assert_eq!(code, 0);

    let right = call(&client, "switchyard_run_create", create(FIX)).await;
    let right = right["runId"].as_str().expect("runId").to_owned();
    let status = status_until(&client, &right, "review").await;
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("switchyard_approve")));
    let approved = call(
        &client,
        "switchyard_approve",
        json!({ "runId": right, "message": "Greet the world" }),
    )
    .await;
    assert_eq!(approved["run"], right.as_str());
    assert_eq!(approved["state"], "integrated", "{approved:#}");
    assert_eq!(approved["attempts"][0]["decision"]["kind"], "approved");
    assert_eq!(
        std::fs::read_to_string(repo.join("greet.txt")).expect("read"),
        "hello, world\n"
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_running_run_and_leaves_no_process() {
    let home = Home::new().await;
    let server = model_server(&home, |_| Behavior::Hang).await;
    let client = home.connect("claude-code").await;
    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": "Think forever", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();
    status_until(&client, &id, "running").await;
    until(SHORT_LIMIT, "the request arrives", || {
        server.in_flight() == 1
    })
    .await;
    assert_eq!(processes_with(&format!("run-worker {id}")).len(), 1);

    let canceled = call(&client, "switchyard_run_cancel", json!({ "runId": id })).await;
    assert_eq!(canceled["id"], id.as_str());
    assert_eq!(canceled["state"], "canceled", "{canceled:#}");
    assert_eq!(canceled["reason"], "canceled");
    until(SHORT_LIMIT, "the call is closed", || {
        server.in_flight() == 0
    })
    .await;
    until(SHORT_LIMIT, "the owner exits", || {
        processes_with(&id).is_empty()
    })
    .await;
    let status = call(&client, "switchyard_run_status", json!({ "runId": id })).await;
    assert_eq!(status["state"], "canceled");
    assert_eq!(node(&status, "n1")["status"], "canceled");
    // Canceling again is refused by the engine, said as such.
    let again = call_err(&client, "switchyard_run_cancel", json!({ "runId": id })).await;
    assert_eq!(again["error"]["code"], "invalidInput", "{again}");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_with_a_code_and_nothing_starts() {
    let home = Home::new().await;
    let server = model_server(&home, |_| Behavior::answer("unused")).await;
    let client = home.connect("claude-code").await;
    let refused = |error: &Value, code: &str, word: &str| {
        assert_eq!(error["error"]["code"], code, "{error}");
        let message = error["error"]["message"].as_str().expect("message");
        assert!(message.contains(word), "{word}: {message}");
    };
    let create = |args: Value| call_err(&client, "switchyard_run_create", args);
    refused(
        &create(json!({ "task": "t", "mode": "wave" })).await,
        "invalidInput",
        "wave",
    );
    refused(
        &create(json!({ "mode": "single" })).await,
        "invalidInput",
        "task",
    );
    refused(
        &create(json!({ "task": "t", "colour": "red" })).await,
        "invalidInput",
        "colour",
    );
    refused(
        &create(json!({ "task": "  " })).await,
        "invalidInput",
        "task",
    );
    refused(
        &create(json!({ "task": "t", "worker": "claude" })).await,
        "invalidInput",
        "repo",
    );
    refused(
        &create(json!({ "task": "t", "ladder": [MINI] })).await,
        "invalidInput",
        "cascade",
    );
    refused(
        &create(json!({ "task": "t", "mode": "plan", "plan": { "steps": 3 } })).await,
        "invalidInput",
        "plan",
    );
    refused(
        &create(json!({ "task": "t", "models": [MINI], "maxUsd": -1 })).await,
        "invalidInput",
        "USD",
    );
    for tool in [
        "switchyard_run_status",
        "switchyard_run_result",
        "switchyard_run_cancel",
    ] {
        let unknown = call_err(&client, tool, json!({ "runId": "no-such-run" })).await;
        assert_eq!(unknown["error"]["code"], "notFound", "{tool}: {unknown}");
    }
    let unknown = call_err(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": "no-such-run", "nodeId": "n1" }),
    )
    .await;
    assert_eq!(unknown["error"]["code"], "notFound", "{unknown}");
    let unknown = call_err(
        &client,
        "switchyard_review_status",
        json!({ "runId": "no-such-run" }),
    )
    .await;
    assert_eq!(unknown["error"]["code"], "notFound", "{unknown}");
    refused(
        &call_err(&client, "switchyard_run_list", json!({ "limit": 0 })).await,
        "invalidInput",
        "limit",
    );
    // A real run, then a node it does not have and a text run's review.
    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": "Say it", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();
    status_until(&client, &id, "completed").await;
    let node = call_err(
        &client,
        "switchyard_artifact_get",
        json!({ "runId": id, "nodeId": "n9" }),
    )
    .await;
    refused(&node, "notFound", "n9");
    let text = call_err(&client, "switchyard_review_status", json!({ "runId": id })).await;
    refused(&text, "invalidInput", "text run");
    refused(
        &call_err(
            &client,
            "switchyard_artifact_get",
            json!({ "runId": id, "nodeId": "n1", "maxBytes": 0 }),
        )
        .await,
        "invalidInput",
        "maxBytes",
    );
    assert_eq!(
        server.requests().len(),
        1,
        "only the real run called the model"
    );
    let runs = call(&client, "switchyard_run_list", json!({})).await;
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_on_when_its_client_is_killed_and_is_listed_under_the_agents_name() {
    let home = Home::new().await;
    let server = model_server(&home, |_| {
        Behavior::after("Still here.", Duration::from_secs(5))
    })
    .await;
    let recorded = home.connect_recorded(home.command(), "claude-code").await;
    let created = call(
        &recorded.client,
        "switchyard_run_create",
        json!({ "task": "Outlive the session", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();
    until(SHORT_LIMIT, "the request arrives", || {
        server.in_flight() == 1
    })
    .await;

    // The agent's host dies: its server is killed, not closed.
    let mut child = recorded.child;
    child.kill().await.expect("kill the server");
    let status = tokio::time::timeout(SHORT_LIMIT, child.wait())
        .await
        .expect("the server dies")
        .expect("wait");
    assert!(!status.success());
    drop(recorded.client);

    let deadline = Instant::now() + RUN_LIMIT;
    let shown = loop {
        let (_, shown) = cli(&home, &["runs", "show", &id]).await;
        if shown["status"] == "completed" {
            break shown;
        }
        assert_ne!(shown["status"], "interrupted", "{shown:#}");
        assert!(
            Instant::now() < deadline,
            "not completed in time: {shown:#}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert_eq!(shown["launcher"], "claude-code");
    let row = listed(&home, &id).await;
    assert_eq!(row["launcher"], "claude-code");
    assert_eq!(row["status"], "completed");
    let (_, filtered) = cli(&home, &["runs", "list", "--launcher", "claude-code"]).await;
    assert_eq!(filtered.as_array().map(Vec::len), Some(1), "{filtered}");
    let (_, output) = cli(&home, &["runs", "output", &id]).await;
    assert_eq!(output["text"], "Still here.");
    until(SHORT_LIMIT, "the run's owner exits", || {
        processes_with(&id).is_empty()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_owner_died_is_reported_interrupted_not_running_forever() {
    let home = Home::new().await;
    let released = Arc::new(AtomicBool::new(false));
    let hang = released.clone();
    let server = model_server(&home, move |_| {
        if hang.load(Ordering::SeqCst) {
            Behavior::answer("late")
        } else {
            Behavior::Hang
        }
    })
    .await;
    let client = home.connect("claude-code").await;
    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": "Crash", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();
    status_until(&client, &id, "running").await;
    until(SHORT_LIMIT, "the request arrives", || {
        server.in_flight() == 1
    })
    .await;
    let owners = processes_with(&format!("run-worker {id}"));
    assert_eq!(owners.len(), 1, "{owners:?}");
    let killed = std::process::Command::new("kill")
        .args(["-9", &owners[0].to_string()])
        .status()
        .expect("kill -9");
    assert!(killed.success());
    until(SHORT_LIMIT, "the owner is gone", || {
        processes_with(&id).is_empty()
    })
    .await;
    released.store(true, Ordering::SeqCst);

    // This server's engine opened before the owner died; it still notices.
    let status = call(&client, "switchyard_run_status", json!({ "runId": id })).await;
    assert_eq!(status["state"], "interrupted", "{status:#}");
    assert_eq!(node(&status, "n1")["status"], "interrupted");
    assert!(status["next"]
        .as_str()
        .is_some_and(|n| n.contains("recover")));
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_status_with_wait_seconds_answers_when_the_run_moves_not_before() {
    let home = Home::new().await;
    let server = model_server(&home, |_| {
        Behavior::after("Hello from the model.", Duration::from_secs(3))
    })
    .await;
    let client = home.connect("claude-code").await;
    let created = call(
        &client,
        "switchyard_run_create",
        json!({ "task": "Say hello", "models": [MINI] }),
    )
    .await;
    let id = created["runId"].as_str().expect("runId").to_owned();

    // Waiting answers as the run moves, and a live run's next move comes within seconds:
    // followed to its end in a few calls, none returning before something happened.
    let started = Instant::now();
    let mut calls = 0;
    let mut seen = Vec::new();
    let status = loop {
        let status = call(
            &client,
            "switchyard_run_status",
            json!({ "runId": id, "waitSeconds": 30 }),
        )
        .await;
        calls += 1;
        seen.push(status["state"].clone());
        if status["state"] == "completed" {
            break status;
        }
        assert!(calls < 10, "never completed: {seen:?}");
    };
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "answered when the run moved, not at the wait's end: {took:?}"
    );
    assert!(
        took >= Duration::from_secs(2),
        "it waited for the model: {took:?}"
    );
    assert_eq!(node(&status, "n1")["status"], "done");
    assert_eq!(server.requests().len(), 1);

    // An ended run answers at once, whatever the wait.
    let at_once = Instant::now();
    let again = call(
        &client,
        "switchyard_run_status",
        json!({ "runId": id, "waitSeconds": 30 }),
    )
    .await;
    assert_eq!(again["state"], "completed");
    assert!(
        at_once.elapsed() < Duration::from_secs(5),
        "{:?}",
        at_once.elapsed()
    );
    // An unknown run is still an error, not a wait.
    let missing = call_err(
        &client,
        "switchyard_run_status",
        json!({ "runId": "nope", "waitSeconds": 30 }),
    )
    .await;
    assert_eq!(missing["error"]["code"], "notFound", "{missing}");
}
