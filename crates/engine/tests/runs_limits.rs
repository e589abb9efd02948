//! Limits under concurrency, against the model server on 127.0.0.1 (which counts requests in
//! flight): max parallel nodes and runs, the hard USD cap with four concurrent nodes whose
//! worst cases would exceed it, node and run timeouts, and cancel within a second — here and
//! from another engine on the same database.

mod runs_support;

use std::time::{Duration, Instant};

use runs_support::*;
use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::routing::plan::{Plan, PlanOrigin, PlanStep};
use switchyard_core::routing::{Budget, Needs};
use switchyard_core::run::{
    NodeState, RunLimitsOverride, RunMode, RunReason, RunRequest, RunState,
};
use switchyard_engine::EngineEvent;

fn independent(n: usize, model: &str) -> Plan {
    Plan::Swarm {
        task: "Many things".into(),
        nodes: (1..=n)
            .map(|i| PlanStep {
                id: format!("n{i}"),
                task: format!("Thing number {i}"),
                category: Category::General,
                budget: Budget::default(),
                model: Some(model.into()),
                depends_on: Vec::new(),
                wave: None,
                phase: None,
                artifacts: Vec::new(),
                needs: Needs::default(),
                notes: Vec::new(),
            })
            .collect(),
        edges: Vec::new(),
        warnings: Vec::new(),
        origin: PlanOrigin::Deterministic,
    }
}

fn swarm_request(n: usize, model: &str, limits: RunLimitsOverride) -> RunRequest {
    let mut req = request(RunMode::Swarm, "Many things", &[]);
    req.plan = Some(independent(n, model));
    req.limits = Some(limits);
    req
}

#[tokio::test]
async fn never_more_requests_in_flight_than_max_parallel_nodes() {
    // Long enough that the three nodes' calls overlap even when a loaded machine takes a
    // while between starting one node and the next (150 ms once left them one at a time).
    let server = model_server(|_| Behavior::after("ok", Duration::from_millis(1000))).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(swarm_request(
            8,
            MINI,
            RunLimitsOverride {
                max_parallel_nodes: Some(3),
                ..RunLimitsOverride::default()
            },
        ))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(30)).await;
    assert_state(&detail, RunState::Completed);
    assert_eq!(server.requests().len(), 8);
    assert_eq!(
        server.max_in_flight(),
        3,
        "the limit is used, never exceeded"
    );
    engine.close().await;
}

#[tokio::test]
async fn never_more_runs_executing_than_max_parallel_runs() {
    // Long enough that two runs' calls overlap even when a loaded machine takes a while
    // between starting one run and the next (300 ms once left them one at a time).
    let server = model_server(|_| Behavior::after("ok", Duration::from_millis(1000))).await;
    let home = tempfile::tempdir().expect("home");
    set_setting(home.path(), "runs.max_parallel_runs", "2").await;
    let engine = engine(home.path(), &server).await;
    let mut ids = Vec::new();
    for i in 0..4 {
        let run = engine
            .start_run(request(RunMode::Single, &format!("Question {i}"), &[MINI]))
            .await
            .expect("start");
        ids.push(run.id);
    }
    for id in &ids {
        let detail = wait(&engine, id, Duration::from_secs(30)).await;
        assert_state(&detail, RunState::Completed);
    }
    assert_eq!(server.requests().len(), 4);
    assert_eq!(server.max_in_flight(), 2);
    engine.close().await;
}

#[tokio::test]
async fn the_usd_cap_holds_with_four_concurrent_nodes_whose_worst_cases_exceed_it() {
    // Each call's worst case is about 4096 × $10/M ≈ $0.041 plus its prompt: two fit under
    // $0.10, the third does not. The latency keeps the two calls overlapping even when a
    // loaded machine starts the second node late.
    let server = model_server(|_| Behavior::Answer {
        text: "done".into(),
        latency: Duration::from_millis(1500),
        usage: (500, 100),
        finish: "stop",
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut events = engine.subscribe();
    let mut req = swarm_request(4, GPT4O, RunLimitsOverride::default());
    req.max_usd = Some(0.10);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(30)).await;
    assert_state(&detail, RunState::Failed);
    assert_eq!(detail.summary.reason, Some(RunReason::BudgetExceeded));
    let done = detail
        .nodes
        .iter()
        .filter(|n| n.state == NodeState::Done)
        .count();
    let refused: Vec<_> = detail
        .nodes
        .iter()
        .filter(|n| n.state == NodeState::Failed)
        .collect();
    assert_eq!(done, 2, "partial results are kept");
    assert_eq!(refused.len(), 2);
    for node in &refused {
        let error = node.error.as_ref().expect("error");
        assert_eq!(error.code, ErrorCode::InvalidInput);
        assert!(
            error.message.starts_with("budget_exceeded"),
            "{}",
            error.message
        );
        assert!(node.attempts.is_empty(), "no call was made for it");
    }
    assert_eq!(
        server.requests().len(),
        2,
        "a call that does not fit is not made"
    );
    assert_eq!(server.max_in_flight(), 2);
    let expected = 2.0 * (500.0 * 2.5 + 100.0 * 10.0) / 1e6;
    assert!((detail.summary.cost_usd - expected).abs() < 1e-12);
    assert_eq!(detail.reserved_usd, 0.0);
    // Every ledger state the run went through stayed within the cap.
    let mut moves = 0;
    while let Ok(event) = events.try_recv() {
        if let EngineEvent::RunBudget {
            run_id,
            spent_usd,
            reserved_usd,
            ..
        } = event
        {
            if run_id == run.id {
                moves += 1;
                assert!(
                    spent_usd + reserved_usd <= 0.10 + 1e-12,
                    "{spent_usd} + {reserved_usd}"
                );
            }
        }
    }
    assert_eq!(moves, 4, "two reservations, two settlements");
    let output = engine.run_output(&run.id, None).await.expect("output");
    assert_eq!(output.nodes.iter().filter(|n| n.complete).count(), 2);
    engine.close().await;
}

#[tokio::test]
async fn a_node_timeout_fails_the_node_and_hangs_up_on_the_provider() {
    let server = model_server(|_| Behavior::Hang).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = request(RunMode::Single, "Slow question", &[MINI]);
    req.limits = Some(RunLimitsOverride {
        node_timeout_s: Some(1),
        ..RunLimitsOverride::default()
    });
    let begun = Instant::now();
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(10)).await;
    let took = begun.elapsed();
    assert_state(&detail, RunState::Failed);
    assert_eq!(detail.summary.reason, Some(RunReason::NodeFailed));
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(4),
        "{took:?}"
    );
    let error = detail.nodes[0].error.as_ref().expect("error");
    assert_eq!(error.code, ErrorCode::Timeout);
    until(Duration::from_secs(2), || server.in_flight() == 0).await;
    engine.close().await;
}

#[tokio::test]
async fn the_run_timeout_stops_every_node_and_fails_the_run() {
    let server = model_server(|_| Behavior::Hang).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let begun = Instant::now();
    let run = engine
        .start_run(swarm_request(
            3,
            MINI,
            RunLimitsOverride {
                run_timeout_s: Some(1),
                max_parallel_nodes: Some(2),
                ..RunLimitsOverride::default()
            },
        ))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(10)).await;
    let took = begun.elapsed();
    assert_state(&detail, RunState::Failed);
    assert_eq!(detail.summary.reason, Some(RunReason::RunTimeout));
    assert!(took < Duration::from_secs(3), "{took:?}");
    let states: Vec<NodeState> = detail.nodes.iter().map(|n| n.state).collect();
    assert_eq!(
        states,
        [NodeState::Failed, NodeState::Failed, NodeState::Skipped]
    );
    assert_eq!(
        detail.nodes[0].error.as_ref().map(|e| e.code),
        Some(ErrorCode::Timeout)
    );
    until(Duration::from_secs(2), || server.in_flight() == 0).await;
    assert_eq!(server.requests().len(), 2);
    engine.close().await;
}

#[tokio::test]
async fn cancel_stops_every_call_within_a_second_and_nothing_is_left_running() {
    let server = model_server(|_| Behavior::Hang).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(swarm_request(5, MINI, RunLimitsOverride::default()))
        .await
        .expect("start");
    until(Duration::from_secs(10), || server.in_flight() == 4).await;
    let begun = Instant::now();
    let canceled = engine.cancel_run(&run.id).await.expect("cancel");
    let took = begun.elapsed();
    assert_eq!(canceled.state, RunState::Canceled);
    assert!(took < Duration::from_secs(1), "cancel took {took:?}");
    until(Duration::from_secs(1), || server.in_flight() == 0).await;
    let detail = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(detail.summary.reason, Some(RunReason::Canceled));
    assert!(detail.nodes.iter().all(|n| n.state == NodeState::Canceled));
    assert_eq!(detail.reserved_usd, 0.0, "nothing left reserved");
    assert_eq!(server.requests().len(), 4, "the fifth node never started");
    engine.close().await;
}

#[tokio::test]
async fn another_engine_on_the_same_database_cancels_a_run_it_does_not_own() {
    let server = model_server(|_| Behavior::Hang).await;
    let home = tempfile::tempdir().expect("home");
    let owner = engine(home.path(), &server).await;
    let run = owner
        .start_run(request(RunMode::Single, "Wait forever", &[MINI]))
        .await
        .expect("start");
    until(Duration::from_secs(10), || server.in_flight() == 1).await;
    let other = reopen(home.path()).await;
    assert_eq!(
        other.run_summary(&run.id).await.expect("summary").state,
        RunState::Running,
        "opening a second engine leaves a live owner's run alone"
    );
    let begun = Instant::now();
    let canceled = other.cancel_run(&run.id).await.expect("cancel");
    assert_eq!(canceled.state, RunState::Canceled);
    assert!(
        begun.elapsed() < Duration::from_secs(2),
        "{:?}",
        begun.elapsed()
    );
    until(Duration::from_secs(1), || server.in_flight() == 0).await;
    other.close().await;
    owner.close().await;
}
