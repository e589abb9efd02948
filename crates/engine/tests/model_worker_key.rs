//! The model worker with a real provider key: routed to a catalog model of a built-in provider
//! (DeepSeek, pointed at a scripted server on 127.0.0.1), the key from its environment
//! variable goes in the `authorization` header only — never in a request body, an event or a
//! summary, even when the provider echoes it back — and the cost is estimated from the
//! catalog's prices.
//!
//! This file holds exactly one test because it sets a process environment variable, which it
//! does before any runtime or other thread exists.

#[path = "../../providers/tests/support/mod.rs"]
mod http;
#[path = "../../runner/tests/support/mod.rs"]
mod repo;
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{wire, Reply, TestServer};
use serde_json::json;
use switchyard_core::worker::WorkerEvent;
use switchyard_engine::model_worker::{ModelWorkerJob, ModelWorkerLimits};
use switchyard_engine::CancellationToken;
use switchyard_runner::git::Worktree;

const KEY: &str = "sk-WORKERLEAK-1b2c3d4e-feed99aa";
const MODEL: &str = "deepseek/deepseek-chat";

#[test]
fn the_key_goes_in_the_header_only_and_the_cost_comes_from_the_catalog() {
    support::with_env_var("DEEPSEEK_API_KEY", KEY, run);
}

async fn run() {
    let home = tempfile::tempdir().expect("home");
    let engine = support::engine_with_own_keychain(home.path(), "modelworkerkey").await;

    let echo = wire::key_echo_error(KEY);
    let edit = json!({
        "read": [],
        "edits": [{"path": "main.txt", "content": "changed\n"}],
        "done": true,
        "summary": "Changed main.txt"
    });
    let server = TestServer::start(vec![
        Reply::json(
            200,
            wire::openai_completion("deepseek-chat", &edit.to_string(), Some((300, 120))),
        ),
        Reply::json(401, echo),
    ])
    .await;
    engine
        .set_provider_base_url("deepseek", Some(&server.url))
        .await
        .expect("url");

    let fixture = repo::Fixture::new(&[("main.txt", "original\n")]);
    let head = fixture.head("HEAD");
    let worktree = Worktree::create(&fixture.open().await, &head, &fixture.data, "mwkey")
        .await
        .expect("worktree")
        .path()
        .to_path_buf();

    let events = Arc::new(Mutex::new(Vec::<WorkerEvent>::new()));
    let sink = events.clone();
    let on_event = move |event: WorkerEvent| sink.lock().expect("events").push(event);
    let job = || ModelWorkerJob {
        model_id: MODEL.into(),
        prompt: "Change main.txt".into(),
        worktree: worktree.clone(),
        limits: ModelWorkerLimits {
            max_turns: 3,
            max_total_tokens: 0,
            timeout: Duration::from_secs(60),
        },
        cancel: CancellationToken::new(),
    };

    let outcome = engine
        .run_model_worker(job(), &on_event)
        .await
        .expect("outcome");
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(worktree.join("main.txt")).expect("read"),
        "changed\n"
    );
    let prices = engine.model(MODEL).await.expect("in the catalog").pricing;
    let expected = (300.0 * prices.prompt_per_m.expect("input price")
        + 120.0 * prices.completion_per_m.expect("output price"))
        / 1e6;
    let cost = outcome.usage.cost_usd.expect("a cost");
    assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    assert!(
        outcome.usage.estimated,
        "computed by Switchyard, not reported"
    );

    // The provider refuses the key and echoes it: the summary names the refusal, not the key.
    let failed = engine
        .run_model_worker(job(), &on_event)
        .await
        .expect("outcome");
    assert!(!failed.ok);
    let summary = failed.summary.clone().expect("summary");
    assert!(summary.contains("Authentication Fails"), "{summary}");

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "a 401 is not retried");
    for request in &requests {
        assert!(
            request.path.ends_with("/chat/completions"),
            "{}",
            request.path
        );
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert!(!request.body.contains(KEY), "the key in a request body");
        assert_eq!(request.json()["model"], "deepseek-chat");
    }
    let outputs = format!(
        "{:?} {summary} {:?}",
        events.lock().expect("events"),
        failed
    );
    assert!(!outputs.contains(KEY), "the key in events or the outcome");
    engine.close().await;
}
