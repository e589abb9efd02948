//! The runs repository on a real SQLite file.

use switchyard_core::catalog::card::Category;
use switchyard_core::run::{CallPurpose, CallState, Join, NodeKind, NodeRole, NodeState};

use super::calls::{CallEnd, NewCall, Reserved};
use super::nodes::{NewNode, NodeChanges};
use super::*;
use crate::journal::Journal;
use crate::lease::Leased;

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("db")).await.expect("open");
    (dir, store)
}

fn node(id: &str, deps: &[&str]) -> NewNode {
    NewNode {
        node_id: id.into(),
        task: format!("do {id}"),
        kind: NodeKind::Text,
        role: NodeRole::Step,
        model: Some("m".into()),
        worker: None,
        depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
        join: Join::All,
        context_from: deps.iter().map(|d| (*d).to_owned()).collect(),
    }
}

fn new_run(id: &str, token: &str, max_usd: f64) -> NewRun {
    NewRun {
        id: id.into(),
        task: format!("task of {id}"),
        mode: RunMode::Swarm,
        state: RunState::Queued,
        launcher: "cli".into(),
        request_json: "{}".into(),
        plan_json: None,
        ladder_json: None,
        limits_json: "{}".into(),
        max_usd,
        baseline_model: None,
        repo: None,
        base: None,
        created_ms: 10,
        owner: Some((42, token.into())),
    }
}

fn call(run: &str, node: &str, usd: f64) -> NewCall {
    NewCall {
        run_id: run.into(),
        node_id: node.into(),
        purpose: CallPurpose::Answer,
        model: "m".into(),
        worker: None,
        rung: None,
        reserved_usd: usd,
        started_ms: 20,
        attempt_id: None,
    }
}

fn end(state: CallState, cost: f64) -> CallEnd {
    CallEnd {
        state,
        cost_usd: cost,
        tokens_in: 100,
        tokens_out: 50,
        finished_ms: 30,
        error: None,
        signal_json: None,
        attempt_id: None,
    }
}

#[tokio::test]
async fn only_the_lease_holder_advances_a_run_and_its_nodes() {
    let (_dir, store) = store().await;
    store
        .insert_run(
            &new_run("r1", "t1", 5.0),
            &[node("a", &[]), node("b", &["a"])],
        )
        .await
        .expect("insert");
    let nodes = store.run_nodes("r1").await.expect("nodes");
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[1].depends_on, ["a"]);
    assert_eq!(nodes[1].position, 1);
    assert!(nodes.iter().all(|n| n.state == NodeState::Pending));

    let to_running = RunChanges::new().state(RunState::Running).started_ms(11);
    let stranger = RunGuard {
        state: RunState::Queued,
        owner: Some("t2"),
    };
    assert!(!store
        .update_run("r1", stranger, 11, &to_running)
        .await
        .expect("u"));
    let owner = RunGuard {
        state: RunState::Queued,
        owner: Some("t1"),
    };
    assert!(store
        .update_run("r1", owner, 11, &to_running)
        .await
        .expect("u"));
    assert!(
        !store
            .update_run("r1", owner, 12, &to_running)
            .await
            .expect("u"),
        "the run is no longer queued"
    );

    let start = NodeChanges::new().state(NodeState::Running).started_ms(12);
    assert!(!store
        .update_node("r1", "a", NodeState::Pending, Some("t2"), &start)
        .await
        .expect("node"));
    assert!(store
        .update_node("r1", "a", NodeState::Pending, Some("t1"), &start)
        .await
        .expect("node"));
    let done = NodeChanges::new()
        .state(NodeState::Done)
        .output("/x/a.md".into(), "abc".into(), 7);
    assert!(store
        .update_node("r1", "a", NodeState::Running, Some("t1"), &done)
        .await
        .expect("node"));
    let a = store.run_node("r1", "a").await.expect("read").expect("a");
    assert_eq!(a.state, NodeState::Done);
    assert_eq!(a.output_chars, Some(7));

    let released = RunChanges::new()
        .state(RunState::Interrupted)
        .reason(Some(RunReason::Interrupted))
        .release();
    let running = RunGuard {
        state: RunState::Running,
        owner: Some("t1"),
    };
    assert!(store
        .update_run("r1", running, 13, &released)
        .await
        .expect("u"));
    let row = store.run("r1").await.expect("read").expect("row");
    assert_eq!(row.state, RunState::Interrupted);
    assert_eq!(row.reason, Some(RunReason::Interrupted));
    assert_eq!(row.owner_token, None);
    assert_eq!(row.updated_ms, 13);
    assert!(
        !store
            .update_node("r1", "b", NodeState::Pending, Some("t1"), &start)
            .await
            .expect("node"),
        "a released run's nodes are not the old owner's"
    );
}

#[tokio::test]
async fn events_are_numbered_per_run_without_gaps() {
    let (_dir, store) = store().await;
    for id in ["r1", "r2"] {
        store
            .insert_run(&new_run(id, "t", 1.0), &[node("a", &[])])
            .await
            .expect("insert");
    }
    let mut seqs = Vec::new();
    for at in 0..3 {
        seqs.push(
            store
                .append_event(Journal::Run, "r1", at, "{}")
                .await
                .expect("append"),
        );
    }
    assert_eq!(seqs, [1, 2, 3]);
    assert_eq!(
        store
            .append_event(Journal::Run, "r2", 0, "{}")
            .await
            .expect("a"),
        1
    );
    let after = store.events(Journal::Run, "r1", 1, 10).await.expect("read");
    assert_eq!(after.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(store.last_event(Journal::Run, "r1").await.expect("last"), 3);
    assert_eq!(
        store.last_event(Journal::Run, "nope").await.expect("last"),
        0
    );
}

#[tokio::test]
async fn the_cap_is_checked_when_reserving_and_the_ledger_moves_with_each_call() {
    let (_dir, store) = store().await;
    store
        .insert_run(&new_run("r1", "t1", 1.0), &[node("a", &[]), node("b", &[])])
        .await
        .expect("insert");
    let first = store
        .reserve_call("t1", &call("r1", "a", 0.4))
        .await
        .expect("r");
    assert!(matches!(first, Reserved::Yes { n: 1, .. }), "{first:?}");
    let second = store
        .reserve_call("t1", &call("r1", "b", 0.4))
        .await
        .expect("r");
    assert!(
        matches!(second, Reserved::Yes { n: 1, reserved_usd, .. } if (reserved_usd - 0.8).abs() < 1e-9)
    );
    let third = store
        .reserve_call("t1", &call("r1", "a", 0.4))
        .await
        .expect("r");
    assert!(matches!(third, Reserved::OverCap { .. }), "{third:?}");
    assert_eq!(
        store
            .reserve_call("t2", &call("r1", "a", 0.01))
            .await
            .expect("r"),
        Reserved::LeaseLost
    );

    let nan = store
        .reserve_call("t1", &call("r1", "a", f64::NAN))
        .await
        .expect("r");
    assert!(matches!(nan, Reserved::OverCap { .. }), "{nan:?}");
    assert_eq!(
        store
            .finish_call("r1", "a", 1, "t2", &end(CallState::Settled, 0.1))
            .await
            .expect("finish"),
        None,
        "only the lease holder finishes a call"
    );

    let after = store
        .finish_call("r1", "a", 1, "t1", &end(CallState::Settled, 0.1))
        .await
        .expect("finish")
        .expect("reserved");
    assert!(
        (after.0 - 0.1).abs() < 1e-9 && (after.1 - 0.4).abs() < 1e-9,
        "{after:?}"
    );
    assert_eq!(
        store
            .finish_call("r1", "a", 1, "t1", &end(CallState::Settled, 0.1))
            .await
            .expect("finish"),
        None,
        "a call is finished once"
    );
    let a = store.run_node("r1", "a").await.expect("read").expect("a");
    assert!((a.cost_usd - 0.1).abs() < 1e-9);
    assert_eq!((a.tokens_in, a.tokens_out), (100, 50));
    // Room again: 1.0 - 0.1 spent - 0.4 reserved.
    let again = store
        .reserve_call("t1", &call("r1", "a", 0.5))
        .await
        .expect("r");
    assert!(matches!(again, Reserved::Yes { n: 2, .. }), "{again:?}");

    // The owner dies; the next one counts b#1 and a#2 as spent at their reservations.
    let lost = store.settle_lost_calls("r1", "t1", 40).await.expect("lost");
    assert_eq!(lost.len(), 2);
    let row = store.run("r1").await.expect("read").expect("row");
    assert!((row.spent_usd - 1.0).abs() < 1e-9, "{}", row.spent_usd);
    assert!(row.reserved_usd.abs() < 1e-9);
    let calls = store.run_calls("r1").await.expect("calls");
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| c.state != CallState::Reserved));
    assert!(matches!(
        store
            .reserve_call("t1", &call("r1", "a", 0.001))
            .await
            .expect("r"),
        Reserved::OverCap { .. }
    ));
}

#[tokio::test]
async fn lists_filter_by_state_mode_launcher_and_text() {
    let (_dir, store) = store().await;
    let mut a = new_run("r1", "t", 1.0);
    a.task = "Write 100% of the docs".into();
    a.launcher = "claude-code".into();
    let mut b = new_run("r2", "t", 1.0);
    b.mode = RunMode::Single;
    b.created_ms = 20;
    b.task = "fix the parser".into();
    store.insert_run(&a, &[node("a", &[])]).await.expect("a");
    store.insert_run(&b, &[node("a", &[])]).await.expect("b");
    let all = store
        .runs(&RunQuery {
            limit: 10,
            ..RunQuery::default()
        })
        .await
        .expect("all");
    assert_eq!(
        all.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r2", "r1"]
    );
    let query = |q: RunQuery| {
        let store = store.clone();
        async move {
            store
                .runs(&RunQuery { limit: 10, ..q })
                .await
                .expect("runs")
                .into_iter()
                .map(|r| r.id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        query(RunQuery {
            mode: Some(RunMode::Single),
            ..RunQuery::default()
        })
        .await,
        ["r2"]
    );
    assert_eq!(
        query(RunQuery {
            launcher: Some("claude-code".into()),
            ..RunQuery::default()
        })
        .await,
        ["r1"]
    );
    assert_eq!(
        query(RunQuery {
            text: Some("100%".into()),
            ..RunQuery::default()
        })
        .await,
        ["r1"]
    );
    assert!(
        query(RunQuery {
            text: Some("1_0".into()),
            ..RunQuery::default()
        })
        .await
        .is_empty(),
        "wildcards are literal"
    );
    assert!(query(RunQuery {
        state: Some(RunState::Completed),
        ..RunQuery::default()
    })
    .await
    .is_empty());
    assert_eq!(store.live_runs().await.expect("live").len(), 2);
}

#[tokio::test]
async fn heartbeats_carry_cancel_requests_and_ratings_replace_each_other() {
    let (_dir, store) = store().await;
    store
        .insert_run(&new_run("r1", "t1", 1.0), &[node("a", &[])])
        .await
        .expect("insert");
    assert_eq!(
        store
            .renew_lease(Leased::Run, "r1", "t1", 5)
            .await
            .expect("hb"),
        Some(None)
    );
    assert_eq!(
        store
            .renew_lease(Leased::Run, "r1", "t2", 5)
            .await
            .expect("hb"),
        None
    );
    assert!(store
        .request_cancel(Leased::Run, "r1", 7)
        .await
        .expect("cancel"));
    assert!(store
        .request_cancel(Leased::Run, "r1", 9)
        .await
        .expect("cancel"));
    assert_eq!(
        store
            .renew_lease(Leased::Run, "r1", "t1", 10)
            .await
            .expect("hb"),
        Some(Some(7))
    );
    assert!(!store
        .request_cancel(Leased::Run, "nope", 7)
        .await
        .expect("cancel"));

    for rating in [2, 5] {
        assert!(store
            .rate_run_node(
                "r1",
                "a",
                "m",
                Category::Coding,
                rating,
                "2026-12-20T00:00:00Z"
            )
            .await
            .expect("rate"));
    }
    assert!(!store
        .rate_run_node("r1", "zz", "m", Category::Coding, 3, "2026-12-20T00:00:00Z")
        .await
        .expect("rate"));
    let summary = store
        .rating_summary("m", Category::Coding)
        .await
        .expect("summary");
    assert_eq!(summary.count, 1, "the second rating replaced the first");
    let a = store.run_node("r1", "a").await.expect("read").expect("a");
    assert_eq!(a.rating, Some(5));
}

#[tokio::test]
async fn spend_rows_carry_cost_per_model() {
    let (_dir, store) = store().await;
    store
        .insert_run(&new_run("r1", "t1", 1.0), &[node("a", &[]), node("b", &[])])
        .await
        .expect("insert");
    let mut other = call("r1", "b", 0.2);
    other.model = "z".into();
    for c in [call("r1", "a", 0.2), other] {
        store.reserve_call("t1", &c).await.expect("reserve");
    }
    store
        .finish_call("r1", "a", 1, "t1", &end(CallState::Settled, 0.05))
        .await
        .expect("finish");
    store
        .finish_call("r1", "b", 1, "t1", &end(CallState::Settled, 0.15))
        .await
        .expect("finish");
    let rows = store.run_spend(0).await.expect("spend");
    assert_eq!(rows.len(), 1);
    assert!((rows[0].spent_usd - 0.2).abs() < 1e-9);
    assert_eq!(rows[0].by_model.len(), 2);
    assert_eq!(rows[0].by_model[1].0, "z");
    assert!(store.run_spend(11).await.expect("spend").is_empty());
}

#[tokio::test]
async fn a_large_swarm_is_stored_in_order_and_nodes_are_read_by_name() {
    let (_dir, store) = store().await;
    // More nodes than one insert statement takes.
    let nodes: Vec<NewNode> = (0..450)
        .map(|i| {
            if i == 0 {
                node("n0", &[])
            } else {
                node(&format!("n{i}"), &[&format!("n{}", i - 1)])
            }
        })
        .collect();
    store
        .insert_run(&new_run("r1", "t1", 1.0), &nodes)
        .await
        .expect("insert");
    let stored = store.run_nodes("r1").await.expect("nodes");
    let ids: Vec<&str> = stored.iter().map(|n| n.node_id.as_str()).collect();
    let expected: Vec<String> = (0..450).map(|i| format!("n{i}")).collect();
    assert_eq!(ids, expected);
    assert_eq!(stored[449].depends_on, vec!["n448".to_owned()]);
    assert_eq!(stored[449].context_from, vec!["n448".to_owned()]);
    assert!(stored.iter().all(|n| n.state == NodeState::Pending));

    let named = store
        .run_nodes_named("r1", &["n300".into(), "n2".into(), "missing".into()])
        .await
        .expect("named");
    let ids: Vec<&str> = named.iter().map(|n| n.node_id.as_str()).collect();
    assert_eq!(
        ids,
        ["n2", "n300"],
        "the run's order; unknown names are left out"
    );
    assert!(store
        .run_nodes_named("r1", &[])
        .await
        .expect("none")
        .is_empty());
}
