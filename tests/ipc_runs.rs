//! Run commands through Tauri's mock runtime against a real engine on a temp SQLite file and a
//! model server on 127.0.0.1 speaking the exact OpenAI streaming format (the engine's runs
//! test support): launch, list, detail, spend and defaults as the UI sends them; and the
//! watch feed behind `watch_run`, which replays the stored log and then streams a node's text
//! as it is written.

#[path = "../crates/engine/tests/runs_support/mod.rs"]
mod runs_support;
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use runs_support::{model_server, Behavior, GPT4O, MINI};
use serde_json::{json, Value};
use support::Harness;
use switchyard_core::feed::RunFeedItem;
use switchyard_core::run::{RunLog, RunState};
use switchyard_engine::Engine;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tauri::async_runtime::block_on(future)
}

/// A cheap first rung the provider refuses, and a premium one that answers after `latency`.
fn failing_then_answering(latency: Duration) -> impl Fn(&runs_support::Asked) -> Behavior {
    move |asked| match asked.model.as_str() {
        "openai/gpt-4o-mini" => Behavior::fail(400, "the cheap model refused"),
        _ => Behavior::after("the premium answer, streamed in two pieces", latency),
    }
}

fn harness_with(server: &runs_support::http::TestServer) -> (Harness, Arc<Engine>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = block_on(runs_support::engine(dir.path(), server));
    (Harness::with_engine(dir, engine.clone()), engine)
}

/// The cascade request exactly as the Runs page sends it (optional fields left out).
fn cascade_request() -> Value {
    json!({
        "task": "Explain monads to a Rust programmer",
        "mode": "cascade",
        "ladder": [MINI, GPT4O],
        "maxUsd": 0.5,
        "launcher": "cli",
    })
}

fn wait_ended(engine: &Engine, id: &str) {
    block_on(async {
        tokio::time::timeout(Duration::from_secs(20), engine.wait_run(id))
            .await
            .expect("the run ended in time")
            .expect("wait");
    });
}

#[test]
fn a_run_launched_from_the_app_is_listed_detailed_and_counted_in_spend() {
    let server = block_on(model_server(failing_then_answering(Duration::ZERO)));
    let (app, engine) = harness_with(&server);

    let preview = app.ok("preview_run", json!({ "options": cascade_request() }));
    assert_eq!(preview["mode"], "cascade");
    let rungs: Vec<&str> = preview["ladder"]["rungs"]
        .as_array()
        .expect("rungs")
        .iter()
        .map(|r| r["model"].as_str().expect("model"))
        .collect();
    assert_eq!(rungs, [MINI, GPT4O]);
    assert!(preview["worstCaseUsd"].as_f64().is_some_and(|w| w > 0.0));
    assert!(server.requests().is_empty(), "a preview calls no model");

    let started = app.ok("start_run", json!({ "options": cascade_request() }));
    let id = started["id"].as_str().expect("id").to_owned();
    assert_eq!(
        started["launcher"], "app",
        "the app records itself, whatever the page says"
    );
    wait_ended(&engine, &id);

    let detail = app.ok("run_detail", json!({ "id": id }));
    assert_eq!(detail["summary"]["state"], "completed");

    // The palette finds the run by its task, in the engine's words.
    let entries = app.ok("palette_entries", json!({}));
    let entry = entries
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["id"] == id.as_str())
        .expect("the run is in the palette");
    assert_eq!(entry["kind"], "run");
    assert_eq!(entry["title"], "Explain monads to a Rust programmer");
    assert_eq!(entry["detail"], "cascade run · completed");
    let node = &detail["nodes"][0];
    assert_eq!(node["rung"], 2, "the second rung succeeded");
    let tries = node["attempts"].as_array().expect("tries");
    assert_eq!(tries.len(), 2);
    assert_eq!(tries[0]["signal"]["kind"], "providerFailed");
    assert!(tries[1]["costUsd"].as_f64().is_some_and(|c| c > 0.0));
    assert!(detail["summary"]["savingsUsd"].is_number(), "{detail}");

    let apps = app.ok("list_runs", json!({ "filter": { "launcher": "app" } }));
    assert_eq!(apps.as_array().map(Vec::len), Some(1));
    let none = app.ok("list_runs", json!({ "filter": { "launcher": "cli" } }));
    assert_eq!(none.as_array().map(Vec::len), Some(0));
    let words = app.ok(
        "list_runs",
        json!({ "filter": { "text": "MONADS", "mode": "cascade", "state": "completed" } }),
    );
    assert_eq!(words.as_array().map(Vec::len), Some(1));

    let output = app.ok("run_output", json!({ "id": id, "node": null }));
    assert_eq!(output["text"], "the premium answer, streamed in two pieces");

    let spend = app.ok("runs_spend", json!({ "sinceMs": null }));
    assert_eq!(spend["runs"], 1);
    assert_eq!(spend["byMode"][0]["key"], "cascade");
    let later = app.ok("runs_spend", json!({ "sinceMs": 4.0e12 }));
    assert_eq!(later["runs"], 0, "runs before the cut-off are not counted");

    let rated = app.ok(
        "rate_run_node",
        json!({ "run": id, "node": "c1", "rating": 4 }),
    );
    assert_eq!(rated["rating"], 4);
    let bad = app.err(
        "rate_run_node",
        json!({ "run": id, "node": "c1", "rating": 9 }),
    );
    assert_eq!(bad["code"], "invalidInput");
    block_on(engine.close());
}

#[test]
fn run_defaults_round_trip_and_bad_values_are_refused_with_a_code() {
    let server = block_on(model_server(|_| Behavior::answer("ok")));
    let (app, engine) = harness_with(&server);
    let defaults = app.ok("run_defaults", json!({}));
    assert_eq!(defaults["maxParallelRuns"], 2);
    assert_eq!(defaults["limits"]["maxParallelNodes"], 4);
    assert_eq!(defaults["limits"]["maxUsd"], 5.0);
    assert_eq!(defaults["baselineModel"], Value::Null);
    assert!(
        defaults["defaultBaseline"].is_string(),
        "the bundled catalog has a top general model: {defaults}"
    );

    let mut changed = defaults.clone();
    changed["maxParallelRuns"] = json!(3);
    changed["limits"]["maxUsd"] = json!(1.25);
    changed["limits"]["runTimeoutS"] = json!(600);
    changed["baselineModel"] = json!("openai/gpt-4o");
    let stored = app.ok("set_run_defaults", json!({ "defaults": changed }));
    assert_eq!(stored["maxParallelRuns"], 3);
    assert_eq!(stored["limits"]["maxUsd"], 1.25);
    assert_eq!(stored["baselineModel"], "openai/gpt-4o");
    assert_eq!(app.ok("run_defaults", json!({})), stored);
    let preview = app.ok(
        "preview_run",
        json!({ "options": { "task": "Say hi", "mode": "single", "models": [MINI] } }),
    );
    assert_eq!(
        preview["limits"]["maxUsd"], 1.25,
        "new runs read the defaults"
    );
    assert_eq!(preview["baselineModel"], "openai/gpt-4o");

    let mut zero = stored.clone();
    zero["limits"]["maxParallelNodes"] = json!(0);
    let error = app.err("set_run_defaults", json!({ "defaults": zero }));
    assert_eq!(error["code"], "invalidInput");
    assert!(error["message"]
        .as_str()
        .unwrap_or_default()
        .contains("parallel nodes"));
    let mut unpriced = stored.clone();
    unpriced["baselineModel"] = json!("nobody/nothing-7b");
    let error = app.err("set_run_defaults", json!({ "defaults": unpriced }));
    assert_eq!(error["code"], "invalidInput");
    assert_eq!(
        app.ok("run_defaults", json!({})),
        stored,
        "nothing was stored"
    );
    block_on(engine.close());
}

/// What a page holds after applying the feed's items.
#[derive(Default)]
struct Page {
    seqs: Vec<u32>,
    text: std::collections::HashMap<String, String>,
    outputs: usize,
    end: Option<RunState>,
    states: Vec<RunState>,
}

impl Page {
    fn apply(&mut self, item: RunFeedItem) {
        assert!(self.end.is_none(), "nothing comes after the end: {item:?}");
        match item {
            RunFeedItem::Log { entry, .. } => {
                self.seqs.push(entry.seq);
                if let RunLog::State { state, .. } = entry.entry {
                    self.states.push(state);
                }
            }
            RunFeedItem::Output {
                node_id,
                reset,
                text,
            } => {
                self.outputs += 1;
                let held = self.text.entry(node_id).or_default();
                if reset {
                    held.clear();
                }
                held.push_str(&text);
            }
            RunFeedItem::State { state, live } => assert_eq!(live, state.is_live()),
            RunFeedItem::End { state } => self.end = Some(state),
        }
    }
}

fn watch(engine: &Arc<Engine>, id: &str, after_seq: u32) -> Arc<Mutex<Page>> {
    let page = Arc::new(Mutex::new(Page::default()));
    let sink_page = page.clone();
    let mut feed = block_on(engine.follow_run(id, after_seq)).expect("watch");
    tauri::async_runtime::spawn(async move {
        while let Some(item) = feed.next().await {
            sink_page.lock().expect("page").apply(item);
        }
    });
    page
}

fn wait_for_end(page: &Mutex<Page>) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while page.lock().expect("page").end.is_none() {
        assert!(std::time::Instant::now() < deadline, "the feed never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_watch_feed_streams_a_running_cascade_and_replays_a_finished_one() {
    let server = block_on(model_server(failing_then_answering(Duration::from_millis(
        600,
    ))));
    let (app, engine) = harness_with(&server);
    let started = app.ok("start_run", json!({ "options": cascade_request() }));
    let id = started["id"].as_str().expect("id").to_owned();

    let live = watch(&engine, &id, 0);
    wait_for_end(&live);
    let live = live.lock().expect("page");
    assert_eq!(live.end, Some(RunState::Completed));
    let last = block_on(engine.run_detail(&id)).expect("detail").seq;
    assert_eq!(
        live.seqs,
        (1..=last).collect::<Vec<_>>(),
        "every stored entry once, in order, none missing"
    );
    assert_eq!(
        live.states.last(),
        Some(&RunState::Completed),
        "the final state is in the log before the end"
    );
    assert!(live.outputs > 0, "the second rung's text streamed live");
    assert_eq!(
        live.text.get("c1").map(String::as_str),
        Some("the premium answer, streamed in two pieces"),
        "appends and resets add up to the stored output"
    );

    // A page opened later, having seen the first three entries.
    let late = watch(&engine, &id, 3);
    wait_for_end(&late);
    let late = late.lock().expect("page");
    assert_eq!(late.seqs, (4..=last).collect::<Vec<_>>());
    assert_eq!(
        late.outputs, 0,
        "a finished node's text is read from its artifact"
    );
    assert_eq!(late.end, Some(RunState::Completed));
    drop((live, late));
    block_on(engine.close());
}

#[test]
fn watching_an_unknown_run_is_not_found() {
    let server = block_on(model_server(|_| Behavior::answer("ok")));
    let (_app, engine) = harness_with(&server);
    let result = block_on(engine.follow_run("nope", 0));
    let error = result.expect_err("unknown run");
    assert_eq!(error.code(), switchyard_core::error::ErrorCode::NotFound);
    block_on(engine.close());
}

#[test]
fn the_launch_form_s_options_are_checked_and_turned_into_a_request_the_way_the_cli_s_are() {
    let server = block_on(model_server(failing_then_answering(Duration::ZERO)));
    let (app, _engine) = harness_with(&server);

    // A text run's node timeout limits its model calls.
    let preview = app.ok(
        "preview_run",
        json!({ "options": { "task": "Say hi", "mode": "single", "models": [MINI], "nodeTimeoutS": 42 } }),
    );
    assert_eq!(preview["limits"]["nodeTimeoutS"], 42);
    assert_ne!(preview["limits"]["codeNodeTimeoutS"], 42);

    // A worker needs a repository, and a ladder a cascade: refused before anything runs.
    let error = app.err(
        "preview_run",
        json!({ "options": { "task": "Fix it", "worker": "claude" } }),
    );
    assert_eq!(error["code"], "invalidInput");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("repo")),
        "{error}"
    );
    let error = app.err(
        "start_run",
        json!({ "options": { "task": "Say hi", "mode": "single", "ladder": [MINI] } }),
    );
    assert_eq!(error["code"], "invalidInput");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("cascade")),
        "{error}"
    );
    assert!(server.requests().is_empty(), "nothing was called");
}
