//! The built-in model worker through the engine, against the scripted OpenAI-compatible server
//! of the providers crate on 127.0.0.1, editing a real git worktree built by test code.
//!
//! Each test scripts the model's answers (exact chat-completions wire format), runs the
//! worker, and checks what the server received (model, schema, the file contents sent back),
//! the events emitted, and the files on disk (`git status` of the worktree, nothing outside).

#[path = "../../providers/tests/support/mod.rs"]
mod http;
#[path = "../../runner/tests/support/mod.rs"]
mod repo;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{wire, Reply, TestServer};
use serde_json::{json, Value};
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AddProviderRequest, ProviderKind};
use switchyard_core::worker::{ToolAction, ToolStatus, WorkerEvent};
use switchyard_engine::model_worker::{
    ModelWorkerJob, ModelWorkerLimits, ModelWorkerOutcome, StopReason,
};
use switchyard_engine::{CancellationToken, Engine, EngineConfig, EngineError};
use switchyard_runner::git::Worktree;
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

const MODEL: &str = "wtest:tiny";

/// A repository with `files` committed, a worktree of it on its own branch, an engine on a
/// fresh home with the keyless provider `wtest` at `server`.
struct Setup {
    fixture: repo::Fixture,
    worktree: PathBuf,
    engine: Engine,
    _home: tempfile::TempDir,
}

async fn setup(files: &[(&str, &str)], server: &TestServer) -> Setup {
    let fixture = repo::Fixture::new(files);
    let git_repo = fixture.open().await;
    let head = fixture.head("HEAD");
    let worktree = Worktree::create(&git_repo, &head, &fixture.data, "mw1")
        .await
        .expect("worktree")
        .path()
        .to_path_buf();
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path()).await;
    engine
        .add_provider(AddProviderRequest {
            id: "wtest".into(),
            name: None,
            kind: ProviderKind::OpenaiCompatible,
            base_url: server.at("/v1"),
        })
        .await
        .expect("add provider");
    Setup {
        fixture,
        worktree,
        engine,
        _home: home,
    }
}

/// An engine with a keychain service of its own (nothing is stored in it).
async fn engine(home: &Path) -> Engine {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!(
        "dev.switchyard.test.modelworker.{}.{}",
        std::process::id(),
        ENGINES.fetch_add(1, Ordering::Relaxed)
    );
    store
        .set_setting("keychain.service", &service, "2026-12-02T00:00:00Z")
        .await
        .expect("setting");
    store.close().await;
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn limits(max_turns: u32) -> ModelWorkerLimits {
    ModelWorkerLimits {
        max_turns,
        max_total_tokens: 0,
        timeout: Duration::from_secs(60),
    }
}

fn job(setup: &Setup, task: &str, limits: ModelWorkerLimits) -> ModelWorkerJob {
    ModelWorkerJob {
        model_id: MODEL.into(),
        prompt: task.into(),
        worktree: setup.worktree.clone(),
        limits,
        cancel: CancellationToken::new(),
    }
}

/// Runs `job`, collecting every event.
async fn run(
    engine: &Engine,
    job: ModelWorkerJob,
) -> (Result<ModelWorkerOutcome, EngineError>, Vec<WorkerEvent>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let on_event = move |event: WorkerEvent| sink.lock().expect("events").push(event);
    let outcome = engine.run_model_worker(job, &on_event).await;
    let events = events.lock().expect("events").clone();
    (outcome, events)
}

/// A completion whose text is `answer` as JSON, with usage 300 in / 120 out.
fn answer(answer: Value) -> Reply {
    Reply::json(
        200,
        wire::openai_completion("tiny", &answer.to_string(), Some((300, 120))),
    )
}

fn turn(read: &[&str], edits: Value, done: bool, summary: &str) -> Reply {
    answer(json!({"read": read, "edits": edits, "done": done, "summary": summary}))
}

/// `git status --porcelain` of the worktree (untracked files listed one by one).
fn status(worktree: &Path) -> String {
    repo::git(
        worktree,
        &["status", "--porcelain", "--untracked-files=all"],
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

/// The text of every message of request `index` the server received.
fn messages(server: &TestServer, index: usize) -> Vec<(String, String)> {
    server.requests()[index].json()["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn tool_uses(events: &[WorkerEvent]) -> Vec<(ToolAction, ToolStatus)> {
    events
        .iter()
        .filter_map(|e| match e {
            WorkerEvent::ToolUse { action, status, .. } => Some((action.clone(), *status)),
            _ => None,
        })
        .collect()
}

fn edit(path: &str, status: ToolStatus) -> (ToolAction, ToolStatus) {
    (ToolAction::FileEdit { path: path.into() }, status)
}

fn file_read(path: &str, status: ToolStatus) -> (ToolAction, ToolStatus) {
    (ToolAction::FileRead { path: path.into() }, status)
}

fn last_final(events: &[WorkerEvent]) -> (bool, Option<String>) {
    match events.last() {
        Some(WorkerEvent::Final { ok, summary }) => (*ok, summary.clone()),
        other => panic!("the last event is not final: {other:?}"),
    }
}

#[tokio::test]
async fn one_turn_writes_whole_files_in_the_worktree() {
    let server = TestServer::start(vec![turn(
        &[],
        json!([
            {"path": "src/greet.txt", "content": "hello, world\n"},
            {"path": "notes/new.md", "content": "# New\n"}
        ]),
        true,
        "Greeting updated and a note added",
    )])
    .await;
    let setup = setup(
        &[("src/greet.txt", "hello\n"), ("README.md", "# R\n")],
        &server,
    )
    .await;

    let (outcome, events) = run(
        &setup.engine,
        job(&setup, "Make the greeting say hello, world", limits(4)),
    )
    .await;
    let outcome = outcome.expect("outcome");

    assert!(outcome.ok);
    assert_eq!(
        outcome.summary.as_deref(),
        Some("Greeting updated and a note added")
    );
    assert_eq!(outcome.stopped, None);
    assert_eq!((outcome.usage.input, outcome.usage.output), (300, 120));
    assert_eq!(
        read(&setup.worktree.join("src/greet.txt")),
        "hello, world\n"
    );
    assert_eq!(read(&setup.worktree.join("notes/new.md")), "# New\n");
    assert_eq!(status(&setup.worktree), "M src/greet.txt\n?? notes/new.md");
    // The user's checkout is not touched.
    assert_eq!(read(&setup.fixture.repo.join("src/greet.txt")), "hello\n");
    assert_eq!(
        repo::git(&setup.fixture.repo, &["status", "--porcelain"]),
        ""
    );

    assert_eq!(
        events.first(),
        Some(&WorkerEvent::Started {
            session_id: None,
            model: Some(MODEL.into())
        })
    );
    assert!(events.iter().any(|e| matches!(
        e,
        WorkerEvent::Usage(u) if u.input == 300 && u.output == 120
    )));
    assert!(events.contains(&WorkerEvent::AssistantText {
        text: "Greeting updated and a note added".into(),
        delta: false
    }));
    assert_eq!(
        tool_uses(&events),
        [
            edit("src/greet.txt", ToolStatus::Completed),
            edit("notes/new.md", ToolStatus::Completed)
        ]
    );
    assert_eq!(
        last_final(&events),
        (true, Some("Greeting updated and a note added".into()))
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let body = requests[0].json();
    assert_eq!(body["model"], "tiny");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "worker_turn"
    );
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["title"],
        "SwitchyardWorkerTurn"
    );
    assert!(body["max_tokens"].as_u64().is_some_and(|n| n > 0), "{body}");
    let sent = messages(&server, 0);
    assert_eq!(sent[0].0, "system");
    assert!(sent[0].1.contains("cannot run commands"), "{}", sent[0].1);
    assert_eq!(sent[1].0, "user");
    assert!(sent[1].1.contains("Make the greeting say hello, world"));
    // The file tree: tracked files, not .git.
    assert!(
        sent[1].1.contains("README.md\nsrc/greet.txt\n"),
        "{}",
        sent[1].1
    );
    assert!(!sent[1].1.contains(".git"), "{}", sent[1].1);
}

#[tokio::test]
async fn a_file_read_in_one_turn_is_sent_and_edited_in_the_next() {
    let server = TestServer::start(vec![
        turn(&["src/lib.rs"], json!([]), false, "Reading lib.rs first"),
        turn(
            &[],
            json!([{"path": "src/lib.rs", "search": "a - b", "replace": "a + b"}]),
            true,
            "Fixed add",
        ),
    ])
    .await;
    let lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n";
    let setup = setup(&[("src/lib.rs", lib)], &server).await;

    let (outcome, events) = run(&setup.engine, job(&setup, "Fix add", limits(4))).await;
    let outcome = outcome.expect("outcome");

    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(
        read(&setup.worktree.join("src/lib.rs")),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    );
    assert_eq!(status(&setup.worktree), "M src/lib.rs");
    assert_eq!((outcome.usage.input, outcome.usage.output), (600, 240));
    assert_eq!(
        tool_uses(&events),
        [
            file_read("src/lib.rs", ToolStatus::Completed),
            edit("src/lib.rs", ToolStatus::Completed)
        ]
    );
    // Usage reports are running totals.
    let usages: Vec<(u32, u32)> = events
        .iter()
        .filter_map(|e| match e {
            WorkerEvent::Usage(u) => Some((u.input, u.output)),
            _ => None,
        })
        .collect();
    assert_eq!(usages, [(300, 120), (600, 240)]);

    assert_eq!(server.requests().len(), 2);
    let second = messages(&server, 1);
    let roles: Vec<&str> = second.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert!(
        second[2].1.contains("Reading lib.rs first"),
        "the first answer is replayed"
    );
    assert!(
        second[3].1.contains(&format!(
            "===== BEGIN FILE src/lib.rs =====\n{lib}===== END FILE src/lib.rs ====="
        )),
        "the file's content is sent: {}",
        second[3].1
    );
}

#[tokio::test]
async fn a_search_that_misses_goes_back_to_the_model_and_is_fixed_next_turn() {
    let server = TestServer::start(vec![
        // Claims to be done, but its edit does not apply: done is not accepted.
        turn(
            &[],
            json!([{"path": "app.py", "search": "print('helo')", "replace": "print('hello')"}]),
            true,
            "Fixed the typo",
        ),
        turn(
            &[],
            json!([{"path": "app.py", "search": "print('hallo')", "replace": "print('hello')"}]),
            true,
            "Fixed the typo, for real",
        ),
    ])
    .await;
    let setup = setup(&[("app.py", "print('hallo')\n")], &server).await;

    let (outcome, events) = run(&setup.engine, job(&setup, "Fix the typo", limits(3))).await;
    let outcome = outcome.expect("outcome");

    assert!(outcome.ok);
    assert_eq!(outcome.summary.as_deref(), Some("Fixed the typo, for real"));
    assert_eq!(read(&setup.worktree.join("app.py")), "print('hello')\n");
    assert_eq!(
        tool_uses(&events),
        [
            edit("app.py", ToolStatus::Failed),
            edit("app.py", ToolStatus::Completed)
        ]
    );
    assert!(events.iter().any(|e| matches!(
        e,
        WorkerEvent::Error { message } if message.contains("app.py not applied") && message.contains("not found")
    )));
    assert_eq!(server.requests().len(), 2);
    let feedback = &messages(&server, 1)[3].1;
    assert!(
        feedback.contains("- replace app.py: NOT applied: the search text was not found"),
        "{feedback}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn paths_leaving_the_worktree_are_refused_and_nothing_is_written_outside() {
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET-4711").expect("write");
    let absolute = outside.path().join("abs.txt");
    let server = TestServer::start(vec![
        turn(
            &["../secret.txt", "link/secret.txt", "ok.txt"],
            json!([
                {"path": "../escape.txt", "content": "x"},
                {"path": absolute.to_str().expect("utf-8"), "content": "x"},
                {"path": "link/owned.txt", "content": "x"},
                {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"},
                {"path": "ok.txt", "content": "fine\n"}
            ]),
            false,
            "Trying paths",
        ),
        turn(&[], json!([]), true, "Done"),
    ])
    .await;
    let setup = setup(&[("keep.txt", "keep\n")], &server).await;
    repo::symlink(
        outside.path().to_str().expect("utf-8"),
        &setup.worktree.join("link"),
    );
    let before_outside = repo::snapshot(outside.path());
    let git_file = read(&setup.worktree.join(".git"));

    let (outcome, events) = run(&setup.engine, job(&setup, "Try to escape", limits(3))).await;
    let outcome = outcome.expect("outcome");

    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(repo::snapshot(outside.path()), before_outside);
    let parent = setup.worktree.parent().expect("parent");
    assert!(!parent.join("escape.txt").exists());
    assert_eq!(read(&setup.worktree.join(".git")), git_file);
    assert_eq!(read(&setup.worktree.join("ok.txt")), "fine\n");
    assert_eq!(status(&setup.worktree), "?? link\n?? ok.txt");

    let uses = tool_uses(&events);
    let failed_edits: Vec<&ToolAction> = uses
        .iter()
        .filter(|(a, s)| matches!(a, ToolAction::FileEdit { .. }) && *s == ToolStatus::Failed)
        .map(|(a, _)| a)
        .collect();
    assert_eq!(failed_edits.len(), 4, "{uses:?}");
    assert!(uses.contains(&edit("ok.txt", ToolStatus::Completed)));
    assert!(uses.contains(&file_read("../secret.txt", ToolStatus::Failed)));
    assert!(uses.contains(&file_read("link/secret.txt", ToolStatus::Failed)));

    let feedback = &messages(&server, 1)[3].1;
    assert!(!feedback.contains("TOPSECRET"), "{feedback}");
    assert!(
        feedback.contains("write ../escape.txt: NOT applied"),
        "{feedback}"
    );
    assert!(
        feedback.contains("absolute paths are refused"),
        "{feedback}"
    );
    assert!(
        feedback.contains("leads outside the repository"),
        "{feedback}"
    );
    assert!(feedback.contains(".git is off limits"), "{feedback}");
    assert!(feedback.contains("- write ok.txt: applied"), "{feedback}");
}

#[tokio::test]
async fn the_turn_limit_ends_the_run_not_ok_with_a_clear_summary() {
    let server = TestServer::start(vec![
        turn(&["a.txt"], json!([]), false, "Looking"),
        turn(&["a.txt"], json!([]), false, "Still looking"),
        turn(&[], json!([]), true, "never asked"),
    ])
    .await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;

    let (outcome, events) = run(&setup.engine, job(&setup, "Ponder", limits(2))).await;
    let outcome = outcome.expect("outcome");

    assert!(!outcome.ok);
    let summary = outcome.summary.expect("summary");
    assert!(summary.contains("turn limit (2)"), "{summary}");
    assert_eq!(outcome.stopped, Some(StopReason::TurnLimit));
    assert_eq!(StopReason::TurnLimit.code(), ErrorCode::WorkerFailed);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(server.unused_replies(), 1);
    assert_eq!(last_final(&events), (false, Some(summary.clone())));
    assert!(events.contains(&WorkerEvent::Error { message: summary }));
    assert_eq!(status(&setup.worktree), "");
}

#[tokio::test]
async fn a_provider_error_stops_the_run_keeping_earlier_edits_only() {
    let failure = Reply::json(
        500,
        wire::openai_error("The server had an error", "server_error", "internal"),
    );
    let server = TestServer::start(vec![
        turn(
            &[],
            json!([{"path": "a.txt", "content": "edited\n"}]),
            false,
            "Step one",
        ),
        failure.clone(),
        failure.clone(),
        failure,
    ])
    .await;
    let setup = setup(&[("a.txt", "a\n"), ("b.txt", "b\n")], &server).await;

    let (outcome, events) = run(&setup.engine, job(&setup, "Two steps", limits(5))).await;
    let outcome = outcome.expect("outcome");

    assert!(!outcome.ok);
    let summary = outcome.summary.expect("summary");
    assert!(summary.starts_with("turn 2: wtest:"), "{summary}");
    assert_eq!(outcome.stopped, Some(StopReason::Failed));
    assert!(
        summary.contains("500") || summary.contains("server had an error"),
        "{summary}"
    );
    assert_eq!((outcome.usage.input, outcome.usage.output), (300, 120));
    assert_eq!(read(&setup.worktree.join("a.txt")), "edited\n");
    assert_eq!(status(&setup.worktree), "M a.txt");
    assert_eq!(last_final(&events), (false, Some(summary)));
}

#[tokio::test]
async fn an_answer_that_is_not_json_stops_the_run_after_one_repair_request() {
    let garbage = Reply::json(
        200,
        wire::openai_completion("tiny", "Sure! I will edit the file now.", Some((10, 5))),
    );
    let server = TestServer::start(vec![garbage.clone(), garbage]).await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;

    let (outcome, events) = run(&setup.engine, job(&setup, "Edit a", limits(3))).await;
    let outcome = outcome.expect("outcome");

    assert!(!outcome.ok);
    let summary = outcome.summary.expect("summary");
    assert!(
        summary.contains("no answer in the edit schema"),
        "{summary}"
    );
    assert_eq!(outcome.stopped, Some(StopReason::BadAnswer));
    assert!(summary.contains("no JSON value"), "{summary}");
    assert_eq!(
        server.requests().len(),
        2,
        "the answer and one repair request"
    );
    assert_eq!(status(&setup.worktree), "");
    assert!(tool_uses(&events).is_empty());
    assert!(!last_final(&events).0);
}

#[tokio::test]
async fn cancel_ends_a_waiting_call_with_canceled() {
    let server = TestServer::start(vec![Reply::Hang]).await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;
    let job = job(&setup, "Edit a", limits(3));
    let cancel = job.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });

    let started = std::time::Instant::now();
    let (outcome, events) = run(&setup.engine, job).await;

    let error = outcome.expect_err("canceled");
    assert_eq!(error.code(), ErrorCode::Canceled);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!last_final(&events).0);
}

#[tokio::test]
async fn the_token_budget_stops_the_run() {
    let server = TestServer::start(vec![
        turn(&["a.txt"], json!([]), false, "Looking"),
        turn(&[], json!([]), true, "never asked"),
    ])
    .await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;
    let limits = ModelWorkerLimits {
        max_total_tokens: 400,
        ..limits(5)
    };

    let (outcome, _) = run(&setup.engine, job(&setup, "Edit a", limits)).await;
    let outcome = outcome.expect("outcome");

    assert!(!outcome.ok);
    let summary = outcome.summary.expect("summary");
    assert!(summary.contains("token budget (400)"), "{summary}");
    assert_eq!(outcome.stopped, Some(StopReason::TokenBudget));
    assert_eq!(server.requests().len(), 1);
    let body = server.requests()[0].json();
    assert_eq!(
        body["max_tokens"], 400,
        "the answer cap never exceeds the budget"
    );
}

#[tokio::test]
async fn an_unknown_model_fails_before_anything_is_sent() {
    let server = TestServer::start(vec![]).await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;
    let mut job = job(&setup, "Edit a", limits(3));
    job.model_id = "nosuchprovider:model".into();

    let (outcome, events) = run(&setup.engine, job).await;

    assert!(outcome.is_err());
    assert!(events.is_empty());
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn old_file_contents_are_left_out_once_the_history_is_over_budget() {
    let server = TestServer::start(vec![
        turn(
            &["f1.txt", "f2.txt", "f3.txt"],
            json!([]),
            false,
            "Reading three",
        ),
        turn(&["f4.txt", "f5.txt"], json!([]), false, "Reading two more"),
        turn(&[], json!([]), true, "Read them all"),
    ])
    .await;
    // Five files of 60 KB: 180 KB in turn 1 and 120 KB in turn 2 are more than the history
    // budget (256 KB) together.
    let bodies: Vec<(String, String)> = (1..=5)
        .map(|n| (format!("f{n}.txt"), format!("{n}").repeat(60 * 1024)))
        .collect();
    let files: Vec<(&str, &str)> = bodies
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_str()))
        .collect();
    let setup = setup(&files, &server).await;

    let (outcome, _) = run(&setup.engine, job(&setup, "Read everything", limits(4))).await;
    assert!(outcome.expect("outcome").ok);

    assert_eq!(server.requests().len(), 3);
    // Second request: the first turn still fits, in full.
    let second = messages(&server, 1);
    assert!(second[3].1.contains(&bodies[0].1), "turn 1 in full");
    // Third request: turn 1 in brief, turn 2 (the newest) in full.
    let third = messages(&server, 2);
    assert_eq!(third.len(), 6);
    let brief = &third[3].1;
    assert!(
        !brief.contains(&bodies[0].1[..1024]),
        "turn 1's files left out: {}",
        &brief[..brief.len().min(400)]
    );
    assert!(
        third[3]
            .1
            .contains("f1.txt: shown then (61440 bytes), left out now"),
        "{}",
        &third[3].1
    );
    assert!(third[5].1.contains(&bodies[3].1), "turn 2 in full");
    assert!(third[5].1.contains(&bodies[4].1), "turn 2 in full");
    assert!(server.requests()[2].body.len() < 150 * 1024);
}

#[tokio::test]
async fn the_time_limit_ends_a_hanging_call_not_ok() {
    let server = TestServer::start(vec![
        turn(
            &[],
            json!([{"path": "a.txt", "content": "first\n"}]),
            false,
            "One",
        ),
        Reply::Hang,
    ])
    .await;
    let setup = setup(&[("a.txt", "a\n")], &server).await;
    let limits = ModelWorkerLimits {
        timeout: Duration::from_secs(2),
        ..limits(5)
    };

    let started = std::time::Instant::now();
    let (outcome, events) = run(&setup.engine, job(&setup, "Edit a", limits)).await;
    let outcome = outcome.expect("outcome");

    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(!outcome.ok);
    assert_eq!(outcome.stopped, Some(StopReason::TimeLimit));
    assert_eq!(StopReason::TimeLimit.code(), ErrorCode::Timeout);
    let summary = outcome.summary.expect("summary");
    assert!(summary.contains("time limit (2 s)"), "{summary}");
    assert_eq!(last_final(&events), (false, Some(summary)));
    assert_eq!(read(&setup.worktree.join("a.txt")), "first\n");
}

#[tokio::test]
async fn an_anthropic_provider_answers_through_the_forced_tool_over_two_turns() {
    let tool = |input: Value| {
        Reply::json(
            200,
            wire::anthropic_tool_message("claude-tiny", "worker_turn", input, (200, 80)),
        )
    };
    let server = TestServer::start(vec![
        tool(json!({"read": ["a.txt"], "edits": [], "done": false, "summary": "Reading"})),
        tool(json!({
            "read": [],
            "edits": [{"path": "a.txt", "search": "old", "replace": "new"}],
            "done": true,
            "summary": "Replaced"
        })),
    ])
    .await;
    let setup = setup(&[("a.txt", "old line\n")], &server).await;
    setup
        .engine
        .add_provider(AddProviderRequest {
            id: "atest".into(),
            name: None,
            kind: ProviderKind::Anthropic,
            base_url: server.at("/anthropic"),
        })
        .await
        .expect("add provider");
    let mut job = job(&setup, "Replace old with new", limits(3));
    job.model_id = "atest:claude-tiny".into();

    let (outcome, events) = run(&setup.engine, job).await;
    let outcome = outcome.expect("outcome");

    assert!(outcome.ok, "{outcome:?}");
    assert_eq!((outcome.usage.input, outcome.usage.output), (400, 160));
    assert_eq!(read(&setup.worktree.join("a.txt")), "new line\n");
    assert_eq!(
        tool_uses(&events),
        [
            file_read("a.txt", ToolStatus::Completed),
            edit("a.txt", ToolStatus::Completed)
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[0].path.ends_with("/messages"),
        "{}",
        requests[0].path
    );
    let body = requests[1].json();
    assert_eq!(body["model"], "claude-tiny");
    assert_eq!(body["tool_choice"]["name"], "worker_turn");
    assert_eq!(
        body["tools"][0]["input_schema"]["title"],
        "SwitchyardWorkerTurn"
    );
    assert!(body["system"].to_string().contains("cannot run commands"));
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert!(
        body["messages"][2].to_string().contains("old line"),
        "{body}"
    );
}
