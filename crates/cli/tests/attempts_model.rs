//! The headline flow through the real binary: a task goes to the built-in model worker
//! (`--worker model:<id>`), whose provider is the providers crate's scripted server on
//! 127.0.0.1 speaking the exact OpenAI chat-completions wire format; Switchyard checks the
//! edit with its own gates and verification, the review JSON shows the diff, gates, usage and
//! estimated cost, and `approve` lands exactly that commit on the branch while the user's
//! uncommitted work stays as it was.
//!
//! Each test has its own SWITCHYARD_HOME whose keychain service is its own; the provider key
//! comes from the provider's environment variable (allowed to go to a loopback origin), and
//! must appear nowhere but in the `authorization` header the server received.
// These tests drive the real `switchyard` binary and git as child processes:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

#[path = "../../providers/tests/support/mod.rs"]
mod http;

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use http::{wire, Reply, TestServer};
use serde_json::{json, Value};
use support::{gate, Run, Workspace};

/// A recognizable key: its bytes may reach the server's header and nothing else.
const KEY: &str = "sk-MODELRUN-7e57c0de-a1b2c3d4";
/// A catalog model with a price (the bundled catalog): OpenAI's own API serves it.
const MODEL: &str = "openai/gpt-oss-20b";
/// Its catalog price, USD per million input / output tokens.
const PRICE: (f64, f64) = (0.03, 0.13);
/// Switchyard's verification: a shell test script in the repository that passes only once
/// greet.txt greets the world.
const VERIFY: &str = "sh check.sh";

/// A home, a repository on `main` with a test script, and a runtime for the server.
struct Fixture {
    ws: Workspace,
    rt: tokio::runtime::Runtime,
}

impl std::ops::Deref for Fixture {
    type Target = Workspace;

    fn deref(&self) -> &Workspace {
        &self.ws
    }
}

impl Fixture {
    fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let ws = Workspace::new(
            "modelrun",
            &[
                ("greet.txt", "hello\n"),
                ("notes.txt", "user notes\n"),
                (
                    "check.sh",
                    "#!/bin/sh\ngrep -qx 'hello, world' greet.txt || { echo 'greet.txt does not greet the world'; exit 1; }\necho '1 passed, 0 failed'\n",
                ),
            ],
        );
        Self { ws, rt }
    }

    /// A server answering `script` in order (a 500 once it runs out).
    fn server(&self, script: Vec<Reply>) -> TestServer {
        self.rt.block_on(TestServer::start(script))
    }

    /// Runs the binary with the provider variables cleared, then `env` set.
    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command
            .args(args)
            .env("SWITCHYARD_HOME", self.home())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "OPENROUTER_API_KEY",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "DEEPSEEK_API_KEY",
        ] {
            command.env_remove(var);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        Run::new(command.output().expect("run switchyard"), args)
    }

    /// Points the built-in `openai` provider at `server`.
    fn point_openai_at(&self, server: &TestServer) {
        let set = self.run(
            &[
                "providers",
                "set",
                "openai",
                "--base-url",
                &server.at("/v1"),
                "--json",
            ],
            &[],
        );
        set.expect_code(0);
    }

    /// `switchyard run … --worker model:<model> --verify <verify> --json` with the key set.
    fn run_model(&self, model: &str, task: &str, verify: &str, extra: &[&str]) -> Run {
        let worker = format!("model:{model}");
        let repo = self.repo_arg();
        let mut args = vec![
            "run", "--repo", &repo, "--task", task, "--worker", &worker, "--verify", verify,
        ];
        args.extend_from_slice(extra);
        args.push("--json");
        self.run(&args, &[("OPENAI_API_KEY", KEY)])
    }

    /// Every byte under the home (database, artifacts, worktrees), for the leak check.
    fn home_bytes(&self) -> Vec<u8> {
        fn walk(dir: &Path, out: &mut Vec<u8>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if let Ok(bytes) = std::fs::read(&path) {
                    out.extend_from_slice(&bytes);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.home(), &mut out);
        out
    }
}

/// The model tests' extra check on a finished command.
trait NoKey {
    /// Neither stdout nor stderr holds the key.
    fn assert_no_key(&self);
}

impl NoKey for Run {
    #[track_caller]
    fn assert_no_key(&self) {
        assert!(
            !self.stdout.contains(KEY) && !self.stderr.contains(KEY),
            "the key was printed: {}{}",
            self.stdout,
            self.stderr
        );
    }
}

/// One model turn: a completion whose text is the answer JSON, usage 300 in / 120 out.
fn turn(read: &[&str], edits: Value, done: bool, summary: &str) -> Reply {
    let answer = json!({"read": read, "edits": edits, "done": done, "summary": summary});
    Reply::json(
        200,
        wire::openai_completion("gpt-oss-20b", &answer.to_string(), Some((300, 120))),
    )
}

/// The text of every message of request `index` the server received, joined.
fn sent_text(server: &TestServer, index: usize) -> String {
    server.requests()[index].json()["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

const TASK: &str = "Make greet.txt greet the world.";

#[test]
fn a_model_worker_fix_is_verified_reviewed_and_approved_into_exactly_one_commit() {
    let fx = Fixture::new();
    let base = fx.head("main");
    // The user's own uncommitted change must survive everything below.
    fx.write("notes.txt", "user notes\nwork in progress\n");
    let server = fx.server(vec![
        turn(&["greet.txt"], json!([]), false, "Reading greet.txt first."),
        turn(
            &[],
            json!([{"path": "greet.txt", "search": "hello\n", "replace": "hello, world\n"}]),
            true,
            "greet.txt now greets the world.",
        ),
    ]);
    fx.point_openai_at(&server);

    let run = fx.run_model(MODEL, TASK, VERIFY, &[]);
    run.assert_no_key();
    let review = run.expect_code(0);
    assert_eq!(review["status"], "review");
    assert_eq!(review["worker"], format!("model:{MODEL}"));
    let files = review["diff"]["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{review}");
    assert_eq!(files[0]["path"], "greet.txt");
    assert_eq!(files[0]["status"], "modified");
    assert_eq!(files[0]["additions"], 1);
    assert_eq!(files[0]["deletions"], 1);
    let sha = review["diff"]["sha256"]
        .as_str()
        .expect("sha256")
        .to_owned();
    assert_eq!(sha.len(), 64);
    for name in [
        "locked_paths",
        "escape",
        "secrets",
        "size",
        "repository",
        "verification",
    ] {
        assert_eq!(gate(review, name)["passed"], true, "{name}: {review}");
    }
    let verification = &review["verification"];
    assert_eq!(verification["passed"], true);
    assert_eq!(verification["exit_code"], 0);
    assert!(
        verification["summary"]
            .as_str()
            .is_some_and(|s| s.contains("1 passed, 0 failed")),
        "Switchyard parsed the script's own summary line: {verification}"
    );
    // Two turns of 300 in / 120 out, priced from the catalog: an estimate, not a bill.
    let usage = &review["usage"];
    assert_eq!(usage["input"], 600, "{usage}");
    assert_eq!(usage["output"], 240, "{usage}");
    assert_eq!(usage["estimated"], true, "{usage}");
    let expected = (600.0 * PRICE.0 + 240.0 * PRICE.1) / 1_000_000.0;
    let cost = review["cost_usd"].as_f64().expect("cost_usd");
    assert!((cost - expected).abs() < 1e-9, "cost {cost} vs {expected}");
    assert_eq!(usage["cost_usd"].as_f64(), Some(cost));

    // What the provider received: the vendor's own model name, the key in the header only,
    // the task and the file tree first, then the file the model asked to read.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].json()["model"], "gpt-oss-20b");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let first = sent_text(&server, 0);
    assert!(
        first.contains(TASK) && first.contains("check.sh"),
        "{first}"
    );
    assert!(sent_text(&server, 1).contains("hello\n"));
    for request in &requests {
        assert!(!request.body.contains(KEY));
    }
    // Nothing reached the user's branch or working tree yet.
    assert_eq!(fx.head("main"), base);
    assert_eq!(fx.read("greet.txt"), "hello\n");

    let id = run.id();
    let approved = fx.run(
        &["approve", &id, "--message", "Greet the world", "--json"],
        &[],
    );
    let approved = approved.expect_code(0);
    assert_eq!(approved["status"], "integrated");
    assert_eq!(approved["diff"]["sha256"], sha.as_str());
    // Exactly one new commit on main, on top of the base, with exactly that change.
    assert_eq!(fx.head("main~1"), base);
    assert_eq!(
        fx.git(&["log", "-1", "--format=%s", "main"]).trim(),
        "Greet the world"
    );
    assert_eq!(
        fx.git(&["diff", "--name-only", &base, "main"]).trim(),
        "greet.txt"
    );
    assert_eq!(fx.git(&["show", "main:greet.txt"]), "hello, world\n");
    assert_eq!(approved["integration"]["new"], fx.head("main").as_str());
    // The user's uncommitted work is untouched; nothing was pushed anywhere.
    assert_eq!(fx.read("notes.txt"), "user notes\nwork in progress\n");
    assert_eq!(
        fx.git(&["status", "--porcelain", "--untracked-files=all"]),
        " M notes.txt\n"
    );
    assert!(fx.git(&["remote"]).trim().is_empty());
    // Routing learned from it: one verified, approved success of this model in the task's
    // category, lifting its estimate above its benchmark prior.
    let learning = fx.run(&["outcomes", "learning", "--json"], &[]);
    let learning = learning.expect_code(0);
    let estimates = learning["estimates"].as_array().expect("estimates");
    let learned = estimates
        .iter()
        .find(|e| e["model"] == MODEL)
        .unwrap_or_else(|| panic!("{MODEL} learned: {learning}"));
    let evidence = &learned["evidence"];
    assert_eq!(evidence["successes"], 1, "{learned}");
    assert_eq!(evidence["failures"], 0, "{learned}");
    assert!(evidence["since"].is_string(), "{learned}");
    assert!(
        evidence["estimate"].as_f64() > evidence["prior"].as_f64(),
        "{learned}"
    );
    assert_eq!(learning["outcomes"], 1);
    // Its cost against the same tokens on the static pick and on the premium baseline.
    let savings = &learning["savings"];
    assert_eq!(savings["outcomes"], 1, "{savings}");
    assert!((savings["costUsd"].as_f64().expect("cost") - cost).abs() < 1e-9);
    assert!(
        savings["premiumUsd"].as_f64().expect("premium") > cost,
        "a premium model costs more for the same tokens: {savings}"
    );
    assert!(savings["staticUsd"].as_f64().is_some(), "{savings}");
    // The key is in no file Switchyard wrote.
    let bytes = fx.home_bytes();
    assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
}

#[test]
fn an_edit_to_a_locked_path_reaches_review_blocked_and_cannot_be_approved() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let server = fx.server(vec![turn(
        &[],
        json!([{"path": ".github/workflows/x.yml", "content": "on: push\n"}]),
        true,
        "Added a workflow.",
    )]);
    fx.point_openai_at(&server);
    let run = fx.run_model(MODEL, "Add CI.", "true", &[]);
    run.assert_no_key();
    let review = run.expect_code(3);
    assert_eq!(review["status"], "review");
    let locked = gate(review, "locked_paths");
    assert_eq!(locked["passed"], false, "{review}");
    assert!(
        locked.to_string().contains(".github/workflows/x.yml"),
        "names the path: {locked}"
    );
    let approve = fx.run(&["approve", &run.id(), "--message", "CI", "--json"], &[]);
    assert_eq!(approve.code, 3, "{}", approve.stdout);
    assert!(
        approve.json["error"]["code"].is_string(),
        "{}",
        approve.json
    );
    assert_eq!(fx.head("main"), base);
}

#[test]
fn a_provider_failure_fails_the_attempt_with_the_providers_error_and_no_key() {
    let fx = Fixture::new();
    let failure = Reply::json(
        500,
        wire::openai_error(
            "The server had an error while processing your request.",
            "server_error",
            "server_error",
        ),
    );
    let server = fx.server(vec![failure.clone(), failure.clone(), failure]);
    fx.point_openai_at(&server);
    let run = fx.run_model(MODEL, TASK, VERIFY, &[]);
    run.assert_no_key();
    let review = run.expect_code(1);
    assert_eq!(review["status"], "failed");
    assert_eq!(review["error"]["code"], "workerFailed", "{review}");
    let message = review["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("500") && message.contains("The server had an error"),
        "says what the provider said: {message}"
    );
    assert!(review["diff"]["files"]
        .as_array()
        .is_some_and(|files| files.is_empty()));
    assert_eq!(fx.read("greet.txt"), "hello\n");
}

#[test]
fn a_preset_puts_the_composed_role_before_the_task() {
    let fx = Fixture::new();
    let roles = fx.outside("roles.json");
    let file = json!({
        "version": 1,
        "blocks": [{
            "id": "custom:greetings",
            "kind": "guardrail",
            "title": "Greetings",
            "description": "House style for greetings.",
            "prompt": "Greetings always end with a comma-free world."
        }],
        "presets": [{"name": "Greeter", "persona": "backend-engineer", "guardrails": ["custom:greetings"]}]
    });
    std::fs::write(&roles, file.to_string()).expect("roles file");
    fx.run(
        &["roles", "import", roles.to_str().expect("utf-8"), "--json"],
        &[],
    )
    .expect_code(0);
    let server = fx.server(vec![turn(
        &[],
        json!([{"path": "greet.txt", "content": "hello, world\n"}]),
        true,
        "Done.",
    )]);
    fx.point_openai_at(&server);
    let run = fx.run_model(MODEL, TASK, VERIFY, &["--preset", "Greeter"]);
    run.expect_code(0);
    let first = sent_text(&server, 0);
    let role = first
        .find("Greetings always end with a comma-free world.")
        .unwrap_or_else(|| panic!("the role is in the request: {first}"));
    let task = first.find(TASK).expect("the task is in the request");
    assert!(role < task, "the role comes before the task: {first}");

    let unknown = fx.run_model(MODEL, TASK, VERIFY, &["--preset", "Nobody"]);
    let error = unknown.expect_code(2);
    assert_eq!(error["error"]["code"], "notFound", "{error}");
    assert_eq!(server.requests().len(), 1, "no model call for a bad preset");
}

#[test]
fn a_local_endpoint_serves_the_model_worker_without_a_key_and_costs_nothing() {
    let fx = Fixture::new();
    // `providers set` asks the local server which models it has (Ollama's `/api/tags`).
    let tags = Reply::json(
        200,
        json!({"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]}),
    );
    let server = fx.server(vec![
        tags,
        turn(
            &[],
            json!([{"path": "greet.txt", "content": "hello, world\n"}]),
            true,
            "Done.",
        ),
    ]);
    fx.run(
        &[
            "providers",
            "set",
            "ollama",
            "--base-url",
            &server.at("/v1"),
            "--json",
        ],
        &[],
    )
    .expect_code(0);
    let run = fx.run_model("local/ollama/qwen3:8b", TASK, VERIFY, &[]);
    let review = run.expect_code(0);
    assert_eq!(review["usage"]["input"], 300);
    assert_eq!(review["cost_usd"], 0.0, "{review}");
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/api/tags", "/v1/chat/completions"]);
    assert_eq!(requests[1].json()["model"], "qwen3:8b");
    assert_eq!(requests[1].header("authorization"), None);
}

#[test]
fn without_a_key_the_attempt_says_which_provider_needs_one() {
    if cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        assert!(
            std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
            "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
        );
        eprintln!("note: no D-Bus session bus; skipping (run it under with_session)");
        return;
    }
    let fx = Fixture::new();
    let server = fx.server(Vec::new());
    fx.point_openai_at(&server);
    let worker = format!("model:{MODEL}");
    let run = fx.run(
        &[
            "run",
            "--repo",
            &fx.repo_arg(),
            "--task",
            TASK,
            "--worker",
            &worker,
            "--verify",
            VERIFY,
            "--json",
        ],
        &[],
    );
    let out = run.expect_code(1);
    assert_eq!(out["error"]["code"], "missingCredential", "{out}");
    let message = out["error"]["message"].as_str().expect("message");
    assert!(message.contains("openai"), "names the provider: {message}");
    assert!(server.requests().is_empty());
    // Refused before anything exists: no attempt, no worktree.
    let list = fx.run(&["runs", "list", "--json"], &[]);
    assert_eq!(list.expect_code(0), &json!([]));
}

#[test]
fn a_model_reference_no_provider_serves_is_bad_input_before_any_attempt() {
    let fx = Fixture::new();
    for (model, code) in [
        ("gpt-oss-20b", "invalidInput"),
        ("nosuch:tiny", "invalidInput"),
        ("local/nosuch/tiny", "notFound"),
    ] {
        let run = fx.run_model(model, TASK, VERIFY, &[]);
        let out = run.expect_code(2);
        assert_eq!(out["error"]["code"], code, "{model}: {out}");
        let message = out["error"]["message"].as_str().expect("message");
        assert!(message.contains(model), "names the worker: {message}");
        if model == "gpt-oss-20b" {
            assert!(
                message.contains("did you mean model:openai/gpt-oss-20b"),
                "points at the catalog id: {message}"
            );
        }
    }
    // In a compare, every worker is checked before any attempt starts.
    let compare = fx.run(
        &[
            "compare",
            "--repo",
            &fx.repo_arg(),
            "--task",
            TASK,
            "--worker",
            "exec:true",
            "--worker",
            "model:gpt-oss-20b",
            "--verify",
            VERIFY,
            "--json",
        ],
        &[],
    );
    assert_eq!(compare.expect_code(2)["error"]["code"], "invalidInput");
    let list = fx.run(&["runs", "list", "--json"], &[]);
    assert_eq!(list.expect_code(0), &json!([]));
    assert_eq!(
        fx.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}

#[test]
fn a_provider_prefixed_name_is_priced_from_the_vendors_catalog_entry() {
    let fx = Fixture::new();
    let server = fx.server(vec![turn(
        &[],
        json!([{"path": "greet.txt", "content": "hello, world\n"}]),
        true,
        "Done.",
    )]);
    fx.point_openai_at(&server);
    let run = fx.run_model("openai:gpt-oss-20b", TASK, VERIFY, &[]);
    let review = run.expect_code(0);
    let expected = (300.0 * PRICE.0 + 120.0 * PRICE.1) / 1_000_000.0;
    let cost = review["cost_usd"].as_f64().expect("cost_usd");
    assert!((cost - expected).abs() < 1e-9, "cost {cost} vs {expected}");
    assert_eq!(review["usage"]["estimated"], true);
    assert_eq!(server.requests()[0].json()["model"], "gpt-oss-20b");
}

#[test]
fn request_changes_sends_the_comments_to_the_model_on_the_same_worktree() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let server = fx.server(vec![
        turn(
            &[],
            json!([{"path": "greet.txt", "content": "hello, world\n"}]),
            true,
            "Greeted the world.",
        ),
        turn(
            &[],
            json!([{"path": "NOTES.md", "content": "# Greetings\n"}]),
            true,
            "Added the note.",
        ),
    ]);
    fx.point_openai_at(&server);
    let first = fx.run_model(MODEL, TASK, VERIFY, &[]);
    first.expect_code(0);
    let revision = fx.run(
        &[
            "request-changes",
            &first.id(),
            "--comment",
            "Also add NOTES.md with a heading.",
            "--line",
            "greet.txt:1=keep this line as it is",
            "--json",
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    revision.assert_no_key();
    let review = revision.expect_code(0);
    assert_eq!(review["status"], "review");
    assert_eq!(review["parent"], first.id().as_str());
    // The revision continues the first attempt's worktree: its diff against the base holds both.
    let mut paths: Vec<&str> = review["diff"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["NOTES.md", "greet.txt"]);
    let sent = sent_text(&server, 1);
    assert!(
        sent.contains("Also add NOTES.md with a heading.")
            && sent.contains("keep this line as it is")
            && sent.contains(TASK),
        "the task and the comments go to the model: {sent}"
    );
    let old = fx.run(&["review", &first.id(), "--json"], &[]);
    assert_eq!(old.expect_code(0)["status"], "superseded");

    let approved = fx.run(
        &[
            "approve",
            review["run"].as_str().expect("id"),
            "--message",
            "Greet",
            "--json",
        ],
        &[],
    );
    assert_eq!(approved.expect_code(0)["status"], "integrated");
    assert_eq!(fx.head("main~1"), base);
    assert_eq!(fx.git(&["show", "main:NOTES.md"]), "# Greetings\n");
}

#[test]
fn a_self_review_is_written_by_the_same_model_after_verification_and_counted_in_the_cost() {
    let fx = Fixture::new();
    let review_answer = json!({
        "risks": ["greet.txt loses its old greeting for anyone who read it"],
        "filesTouched": ["greet.txt: now greets the world"],
        "testsAdded": [],
    })
    .to_string();
    let server = fx.server(vec![
        turn(
            &[],
            json!([{"path": "greet.txt", "search": "hello\n", "replace": "hello, world\n"}]),
            true,
            "greet.txt now greets the world.",
        ),
        Reply::sse(wire::openai_stream(
            "gpt-oss-20b",
            &["Here is my review:\n```json\n", &review_answer, "\n```"],
            Some((500, 80)),
        )),
    ]);
    fx.point_openai_at(&server);

    let run = fx.run_model(MODEL, TASK, VERIFY, &["--self-review"]);
    run.assert_no_key();
    let review = run.expect_code(0);
    assert_eq!(review["status"], "review");
    // Verification decided, and the self-review sits beside it.
    assert_eq!(review["verification"]["passed"], true);
    let own = &review["self_review"];
    assert_eq!(own["state"], "written", "{own}");
    assert_eq!(own["model"], MODEL);
    assert_eq!(
        own["risks"],
        json!(["greet.txt loses its old greeting for anyone who read it"])
    );
    assert_eq!(
        own["filesTouched"],
        json!(["greet.txt: now greets the world"])
    );
    assert_eq!(own["testsAdded"], json!([]));

    // The same model re-read the captured change: the second request carries the diff.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].json()["model"], "gpt-oss-20b");
    let sent = sent_text(&server, 1);
    assert!(sent.contains("+hello, world"), "{sent}");
    assert!(sent.contains(TASK), "{sent}");

    // Its tokens and cost are the attempt's: 300 + 500 in, 120 + 80 out.
    let usage = &review["usage"];
    assert_eq!(usage["input"], 800, "{usage}");
    assert_eq!(usage["output"], 200, "{usage}");
    let expected = (800.0 * PRICE.0 + 200.0 * PRICE.1) / 1_000_000.0;
    let cost = review["cost_usd"].as_f64().expect("cost_usd");
    assert!((cost - expected).abs() < 1e-9, "cost {cost} vs {expected}");

    // The text review says whose reading it is.
    let shown = fx.run(&["review", &run.id()], &[]);
    assert!(
        shown
            .stdout
            .contains("self-review by openai/gpt-oss-20b (the worker's own reading, not a check)")
            && shown
                .stdout
                .contains("risk: greet.txt loses its old greeting"),
        "{}",
        shown.stdout
    );
}

#[test]
fn a_failed_self_review_keeps_the_providers_reason_and_never_blocks_review() {
    let fx = Fixture::new();
    let server = fx.server(vec![
        turn(
            &[],
            json!([{"path": "greet.txt", "search": "hello\n", "replace": "hello, world\n"}]),
            true,
            "done",
        ),
        Reply::json(
            400,
            wire::openai_error(
                "This model's maximum context length is 8192 tokens",
                "invalid_request_error",
                "context_length_exceeded",
            ),
        ),
    ]);
    fx.point_openai_at(&server);

    let run = fx.run_model(MODEL, TASK, VERIFY, &["--self-review"]);
    run.assert_no_key();
    let review = run.expect_code(0);
    assert_eq!(review["status"], "review");
    assert_eq!(gate(review, "verification")["passed"], true);
    let own = &review["self_review"];
    assert_eq!(own["state"], "failed", "{own}");
    let message = own["message"].as_str().expect("message");
    assert!(message.contains("maximum context length"), "{message}");
    assert!(!message.contains(KEY));
    // Without a review answer the cost is the worker's alone.
    assert_eq!(review["usage"]["input"], 300);
}

#[test]
fn without_self_review_no_second_call_is_made() {
    let fx = Fixture::new();
    let server = fx.server(vec![turn(
        &[],
        json!([{"path": "greet.txt", "search": "hello\n", "replace": "hello, world\n"}]),
        true,
        "done",
    )]);
    fx.point_openai_at(&server);
    let run = fx.run_model(MODEL, TASK, VERIFY, &[]);
    let review = run.expect_code(0);
    assert_eq!(review["self_review"], Value::Null);
    assert_eq!(server.requests().len(), 1);
}
