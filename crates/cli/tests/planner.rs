//! `switchyard plan … --planner model [--planner-model ID]` through the real binary, with its
//! own SWITCHYARD_HOME (keys under a keychain service of its own) and a scripted
//! OpenAI-compatible server on 127.0.0.1 registered as a keyless custom provider.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

#[path = "../../providers/tests/support/mod.rs"]
mod http;

use std::path::Path;
use std::process::{Command, Output};

use http::{wire, Reply, TestServer};
use serde_json::{json, Value};
use switchyard_store::{Store, DATABASE_FILE};

const TASK: &str = "Design the schema, then build the API, then write the docs";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A fresh home whose keys go to a keychain service of its own.
fn home(runtime: &tokio::runtime::Runtime) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let service = format!("dev.switchyard.test.cli.planner.{}", std::process::id());
    runtime.block_on(async {
        let store = Store::open(&dir.path().join(DATABASE_FILE))
            .await
            .expect("open store");
        store
            .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
            .await
            .expect("keychain service setting");
        store.close().await;
    });
    dir
}

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_HOME", home)
        .args(args)
        .output()
        .expect("run switchyard")
}

fn stdout_json(out: &Output, what: &str) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} must print JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Starts the scripted server and registers it as the keyless provider `fake`.
fn serve(runtime: &tokio::runtime::Runtime, home: &Path, replies: Vec<Reply>) -> TestServer {
    let server = runtime.block_on(TestServer::start(replies));
    let url = server.at("/v1");
    let out = run(
        home,
        &[
            "providers",
            "add",
            "fake",
            "--kind",
            "openai",
            "--base-url",
            &url,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server
}

fn answer(plan: &Value) -> Reply {
    Reply::json(
        200,
        wire::openai_completion("tiny", &plan.to_string(), Some((200, 80))),
    )
}

fn model_plan() -> Value {
    json!({"mode": "swarm", "steps": [
        {"id": "db", "task": "Design the schema", "category": "reasoning", "budget": "medium",
         "dependsOn": []},
        {"id": "api", "task": "Build the API", "category": "coding", "budget": "medium",
         "dependsOn": ["db"]},
        {"id": "docs", "task": "Write the docs", "category": "creative", "budget": "low",
         "dependsOn": ["db"]}
    ]})
}

#[test]
fn model_planner_plans_when_its_answer_is_valid() {
    let runtime = runtime();
    let home = home(&runtime);
    let server = serve(&runtime, home.path(), vec![answer(&model_plan())]);
    let args = [
        "plan",
        TASK,
        "--mode",
        "swarm",
        "--planner",
        "model",
        "--planner-model",
        "fake:tiny",
        "--json",
    ];
    let out = run(home.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = stdout_json(&out, "plan");
    assert_eq!(plan["origin"], "model");
    let ids: Vec<&str> = plan["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    assert_eq!(ids, ["db", "api", "docs"]);
    assert_eq!(
        plan["warnings"][0],
        "planned by the model planner (fake:tiny)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn invalid_answer_falls_back_with_a_warning() {
    let runtime = runtime();
    let home = home(&runtime);
    let mut bad = model_plan();
    bad["steps"][0]["category"] = json!("databases");
    let _server = serve(&runtime, home.path(), vec![answer(&bad), answer(&bad)]);
    let args = [
        "plan",
        TASK,
        "--planner",
        "model",
        "--planner-model",
        "fake:tiny",
        "--json",
    ];
    let out = run(home.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = stdout_json(&out, "plan");
    assert_eq!(plan["origin"], "deterministic");
    let warning = plan["warnings"][0].as_str().expect("a warning");
    assert!(
        warning.contains("$.steps[0].category") && warning.contains("deterministic planner"),
        "{warning}"
    );
}

#[test]
fn planner_flags_are_checked() {
    let runtime = runtime();
    let home = home(&runtime);
    let out = run(
        home.path(),
        &["plan", TASK, "--planner-model", "fake:tiny", "--json"],
    );
    assert!(!out.status.success());
    let error = stdout_json(&out, "plan");
    assert_eq!(error["error"]["code"], "invalidInput", "{error}");
    // The engine's one plan check, worded as the desktop gets it for the same request.
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the model planner was not asked for")),
        "{error}"
    );
    let out = run(
        home.path(),
        &["plan", TASK, "--planner", "oracle", "--json"],
    );
    assert!(!out.status.success());
    let error = stdout_json(&out, "plan");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("oracle")),
        "{error}"
    );
}
