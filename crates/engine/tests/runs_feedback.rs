//! After a run: rating a node feeds the routing feedback store (re-rating replaces), spend
//! and savings add up per model and mode; and the pause point after planning holds a run
//! until it is resumed (or canceled) without calling any model.

mod runs_support;

use std::time::Duration;

use runs_support::*;
use switchyard_core::error::ErrorCode;
use switchyard_core::run::{NodeState, RunLog, RunMode, RunState};
use switchyard_store::{Store, DATABASE_FILE};

#[tokio::test]
async fn rating_a_node_feeds_routing_once_per_node_and_spend_adds_up() {
    let server = model_server(|_| Behavior::Answer {
        text: "An answer".into(),
        latency: Duration::ZERO,
        usage: (2000, 1000),
        finish: "stop",
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(request(RunMode::Single, "Summarize the report", &[GPT4O]))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    assert!(
        detail.nodes.iter().all(|n| n.rateable),
        "a done node naming its model can be rated: {:#?}",
        detail.nodes
    );

    let bad = engine.rate_run_node(&run.id, "n1", 6).await.expect_err("6");
    assert_eq!(bad.code(), ErrorCode::InvalidInput);
    let missing = engine
        .rate_run_node(&run.id, "zz", 3)
        .await
        .expect_err("no node");
    assert_eq!(missing.code(), ErrorCode::NotFound);
    engine.rate_run_node(&run.id, "n1", 2).await.expect("rate");
    let rated = engine.rate_run_node(&run.id, "n1", 5).await.expect("rate");
    assert_eq!(rated.rating, Some(5));

    let store = Store::open(&home.path().join(DATABASE_FILE))
        .await
        .expect("store");
    let ratings: Vec<_> = store
        .rating_aggregates()
        .await
        .expect("ratings")
        .into_iter()
        .filter(|a| a.model_id == "openai/gpt-4o")
        .collect();
    assert_eq!(ratings.len(), 1, "rated as the catalog model");
    assert_eq!(
        ratings[0].summary.count, 1,
        "the second rating replaced the first"
    );
    assert!((ratings[0].summary.mean - 5.0).abs() < 1e-9);
    store.close().await;

    let spend = engine.runs_spend(None).await.expect("spend");
    let cost = (2000.0 * 2.5 + 1000.0 * 10.0) / 1e6;
    assert_eq!(spend.runs, 1);
    assert!((spend.cost_usd - cost).abs() < 1e-12);
    assert_eq!(spend.by_model[0].key, GPT4O);
    assert_eq!(spend.by_mode[0].key, "single");
    let savings = detail.summary.savings_usd.expect("savings");
    assert!((spend.savings_usd - savings).abs() < 1e-12);
    assert_eq!(detail.baseline_usd.map(|b| b - cost), Some(savings));
    // The run page's static reference is the learning savings' own: the same tokens on the
    // task category's static pick, read once from the run's nodes and once from its outcome.
    let static_usd = detail
        .static_usd
        .expect("a static reference for a priced catalog");
    assert!(static_usd > 0.0, "{static_usd}");
    let learned = engine.learning_settings().await.expect("learning");
    assert_eq!(learned.savings.outcomes, 1);
    let repriced = learned.savings.static_usd.expect("static savings");
    assert!(
        (repriced - static_usd).abs() < 1e-12,
        "{repriced} vs {static_usd}"
    );
    engine.close().await;
}

#[tokio::test]
async fn a_run_paused_after_planning_calls_nothing_until_resumed() {
    let server = model_server(|_| Behavior::answer("resumed answer")).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = request(RunMode::Single, "Wait for me", &[MINI]);
    req.pause_after_plan = true;
    let run = engine.start_run(req.clone()).await.expect("start");
    assert_eq!(run.state, RunState::Paused);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(server.requests().is_empty());
    let detail = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(detail.summary.state, RunState::Paused);
    assert_eq!(detail.nodes[0].state, NodeState::Pending);

    let resumed = engine.resume_run(&run.id).await.expect("resume");
    assert_eq!(resumed.state, RunState::Queued);
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    assert_eq!(server.requests().len(), 1);
    let again = engine.resume_run(&run.id).await.expect_err("not paused");
    assert_eq!(again.code(), ErrorCode::InvalidInput);
    let log = engine.run_log(&run.id, 0).await.expect("log");
    let states: Vec<RunState> = log
        .iter()
        .filter_map(|e| match &e.entry {
            RunLog::State { state, .. } => Some(*state),
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        [
            RunState::Paused,
            RunState::Queued,
            RunState::Running,
            RunState::Completed
        ]
    );
    assert!(log.windows(2).all(|w| w[1].seq == w[0].seq + 1), "gap-free");

    let paused = engine.start_run(req).await.expect("start");
    let canceled = engine.cancel_run(&paused.id).await.expect("cancel");
    assert_eq!(canceled.state, RunState::Canceled);
    let detail = engine.run_detail(&paused.id).await.expect("detail");
    assert_eq!(detail.nodes[0].state, NodeState::Canceled);
    let done = engine.cancel_run(&paused.id).await.expect_err("final");
    assert_eq!(done.code(), ErrorCode::InvalidInput);
    engine.close().await;
}
