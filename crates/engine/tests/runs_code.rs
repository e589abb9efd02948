//! Code nodes: runs whose tries are attempts in real git worktrees, through the gates and
//! Switchyard's own verification (`sh test.sh`), with `exec:` workers written as shell
//! scripts. A single run ends in review with its attempt linked; a cascade escalates exactly
//! when verification fails and hands the failure to the next rung; a collective's attempts
//! form one compare group; cancel stops the worker.

mod attempts_support;

use std::time::{Duration, Instant};

use attempts_support::{own_seconds, process_with, Fixture, FIX};
use switchyard_core::attempt::AttemptState;
use switchyard_core::run::{
    CallPurpose, FailureSignal, NodeKind, NodeState, RunMode, RunReason, RunRequest, RunState,
};

/// A wrong fix: `add` now multiplies, so the verification still fails.
const WRONG: &str = "sed -i 's/\\$1 - \\$2/$1 * $2/' calc.sh\necho 'changed add'\n";

fn code_request(fx: &Fixture, mode: RunMode, task: &str) -> RunRequest {
    let mut req = RunRequest::new(task, mode);
    req.repo = Some(fx.repo_str());
    req.allow_write = vec![fx.probe("").display().to_string()];
    req.verify = Some(vec!["sh test.sh".into()]);
    req.launcher = "test".into();
    req
}

async fn wait(engine: &switchyard_engine::Engine, id: &str) -> switchyard_core::run::RunDetail {
    tokio::time::timeout(Duration::from_secs(120), engine.wait_run(id))
        .await
        .expect("the run ended in time")
        .expect("wait")
}

#[tokio::test]
async fn a_single_code_run_ends_in_review_with_its_attempt_linked() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("fix", FIX));
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    assert_eq!(detail.repo.as_deref(), Some(fx.repo_str().as_str()));
    let node = &detail.nodes[0];
    assert_eq!(node.kind, NodeKind::Code);
    assert_eq!(node.state, NodeState::Review);
    let attempt = node.attempts[0].attempt_id.clone().expect("attempt");
    assert_eq!(node.attempts[0].purpose, CallPurpose::Attempt);
    let review = engine.attempt_review(&attempt).await.expect("review");
    assert_eq!(review.summary.state, AttemptState::Review);
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    let sources: Vec<&str> = node.trace.items.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(sources, ["task"], "the worker was given the task");
    // An exec worker reports no cost: it counts at its reservation (the CLI default $0.50).
    assert!((detail.summary.cost_usd - 0.5).abs() < 1e-12);
    assert_eq!(detail.reserved_usd, 0.0);
    engine.close().await;
}

#[tokio::test]
async fn a_code_cascade_escalates_on_failed_verification_with_the_failure_as_context() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Cascade, "make add() add");
    req.ladder = Some(vec![fx.worker("wrong", WRONG), fx.worker("fix", FIX)]);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let node = &detail.nodes[0];
    assert_eq!(node.rung, Some(2));
    assert_eq!(node.attempts.len(), 2);
    assert!(matches!(
        node.attempts[0].signal,
        Some(FailureSignal::VerificationFailed { .. })
    ));
    let first = node.attempts[0].attempt_id.clone().expect("first");
    let second = node.attempts[1].attempt_id.clone().expect("second");
    let first = engine.attempt_review(&first).await.expect("first");
    assert_eq!(
        first.summary.state,
        AttemptState::Rejected,
        "escalated past"
    );
    let second = engine.attempt_review(&second).await.expect("second");
    assert_eq!(second.summary.state, AttemptState::Review);
    assert!(second.can_approve);
    assert!(
        second
            .summary
            .task
            .contains("The verification commands failed"),
        "{}",
        second.summary.task
    );
    engine.close().await;
}

#[tokio::test]
async fn a_recovered_code_cascade_goes_on_at_its_rung_with_the_earlier_failure() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Cascade, "make add() add");
    // The second rung waits until the engine that started it is gone.
    let release = fx.probe("release");
    let slow_fix = format!(
        "while [ ! -e {} ]; do sleep 0.1; done\n{FIX}",
        release.display()
    );
    req.ladder = Some(vec![
        fx.worker("wrong", WRONG),
        fx.worker("slow-fix", &slow_fix),
    ]);
    let run = engine.start_run(req).await.expect("start");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let detail = engine.run_detail(&run.id).await.expect("detail");
        if detail.nodes[0].rung == Some(2) && detail.nodes[0].attempts.len() == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never reached rung 2: {detail:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    engine.close().await;
    drop(engine);

    let engine = fx.engine().await;
    std::fs::write(&release, "").expect("release");
    engine.recover_run(&run.id).await.expect("recover");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let node = &detail.nodes[0];
    assert_eq!(node.rung, Some(2), "the failed rung is not tried again");
    let last = node
        .attempts
        .last()
        .and_then(|a| a.attempt_id.clone())
        .expect("the recovered rung's attempt");
    let review = engine.attempt_review(&last).await.expect("review");
    assert_eq!(review.summary.state, AttemptState::Review);
    assert!(
        review
            .summary
            .task
            .contains("The verification commands failed"),
        "the first rung's failure still goes with the task: {}",
        review.summary.task
    );
    engine.close().await;
}

#[tokio::test]
async fn a_code_cascade_whose_every_rung_fails_verification_fails() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Cascade, "make add() add");
    req.ladder = Some(vec![fx.worker("wrong", WRONG), fx.worker("wrong2", WRONG)]);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(detail.summary.state, RunState::Failed);
    assert_eq!(detail.summary.reason, Some(RunReason::AllRungsFailed));
    engine.close().await;
}

#[tokio::test]
async fn a_code_collective_is_one_compare_group_from_the_same_base() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Collective, "make add() add");
    req.models = Some(vec![fx.worker("fix", FIX), fx.worker("wrong", WRONG)]);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    assert_eq!(detail.nodes.len(), 2, "no merge node for code");
    let mut groups = Vec::new();
    for node in &detail.nodes {
        assert_eq!(node.state, NodeState::Review);
        let attempt = node.attempts[0].attempt_id.clone().expect("attempt");
        let review = engine.attempt_review(&attempt).await.expect("review");
        groups.push((review.summary.compare.clone(), review.summary.base.clone()));
        assert_eq!(
            node.trace.items.first().map(|i| i.source.as_str()),
            Some("task"),
            "each member was given the task"
        );
    }
    assert!(groups[0].0.is_some());
    assert_eq!(groups[0], groups[1], "one compare group, one base");
    engine.close().await;
}

#[tokio::test]
async fn canceling_a_code_run_stops_its_worker() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "wait");
    let seconds = own_seconds("987.5");
    req.worker = Some(fx.worker("slow", &format!("sleep {seconds}\n")));
    let run = engine.start_run(req).await.expect("start");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !process_with(&seconds) {
        assert!(Instant::now() < deadline, "the worker never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let begun = Instant::now();
    let canceled = engine.cancel_run(&run.id).await.expect("cancel");
    let took = begun.elapsed();
    assert_eq!(canceled.state, RunState::Canceled);
    assert!(!process_with(&seconds), "the worker is gone");
    assert!(took < Duration::from_secs(3), "cancel took {took:?}");
    let detail = engine.run_detail(&run.id).await.expect("detail");
    let attempt = detail.nodes[0].attempts[0]
        .attempt_id
        .clone()
        .expect("attempt");
    assert_eq!(
        engine
            .attempt_summary(&attempt)
            .await
            .expect("attempt")
            .state,
        AttemptState::Canceled
    );
    eprintln!("code run cancel took {took:?}");
    engine.close().await;
}

#[tokio::test]
async fn a_code_run_interrupted_by_closing_the_engine_recovers_with_a_new_attempt() {
    let fx = Fixture::new();
    let marker = fx.probe("first-try");
    let seconds = own_seconds("976.5");
    let body = format!(
        "if [ -f {m} ]; then {FIX}else touch {m}; sleep {seconds}; fi\n",
        m = marker.display()
    );
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("once", &body));
    let run = engine.start_run(req).await.expect("start");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !process_with(&seconds) {
        assert!(Instant::now() < deadline, "the worker never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    engine.close().await;
    drop(engine);
    assert!(!process_with(&seconds), "closing stopped the worker");

    let engine = fx.engine().await;
    assert_eq!(
        engine.run_summary(&run.id).await.expect("summary").state,
        RunState::Interrupted
    );
    engine.recover_run(&run.id).await.expect("recover");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let tries: Vec<_> = detail.nodes[0]
        .attempts
        .iter()
        .filter_map(|t| t.attempt_id.clone())
        .collect();
    assert_eq!(
        tries.len(),
        1,
        "the canceled try's reservation is counted, not linked: {tries:?}"
    );
    let review = engine.attempt_review(&tries[0]).await.expect("review");
    assert!(
        review.can_approve,
        "{:?}; gates: {:?}",
        review.approve_blocked, review.gates
    );
    engine.close().await;
}

#[tokio::test]
async fn approving_a_code_run_integrates_its_result_and_a_collective_pick_rejects_the_rest() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("fix", FIX));
    let run = engine.start_run(req).await.expect("start");
    wait(&engine, &run.id).await;
    let approved = engine
        .approve_run(&run.id, None, "fix add")
        .await
        .expect("approve");
    assert_eq!(approved.summary.state, RunState::Integrated);
    assert_eq!(approved.nodes[0].state, NodeState::Approved);
    let calc = std::fs::read_to_string(fx.repo.join("calc.sh")).expect("calc");
    assert!(calc.contains("$1 + $2"), "integrated into main: {calc}");

    engine.close().await;

    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Collective, "make add() add");
    req.models = Some(vec![fx.worker("fix", FIX), fx.worker("wrong", WRONG)]);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let unnamed = engine
        .approve_run(&run.id, None, "x")
        .await
        .expect_err("two results");
    assert_eq!(
        unnamed.code(),
        switchyard_core::error::ErrorCode::InvalidInput
    );
    let rejected = engine.reject_run(&run.id, "not now").await.expect("reject");
    assert_eq!(rejected.summary.state, RunState::Failed);
    assert_eq!(rejected.summary.reason, Some(RunReason::Rejected));
    assert!(rejected
        .nodes
        .iter()
        .all(|n| n.state == NodeState::Rejected));
    engine.close().await;
}

/// The first attempt linked to the run's node `index`.
fn attempt_of(detail: &switchyard_core::run::RunDetail, index: usize) -> String {
    detail.nodes[index]
        .attempts
        .iter()
        .find_map(|t| t.attempt_id.clone())
        .expect("an attempt")
}

#[tokio::test]
async fn a_code_runs_attempt_decided_on_the_review_page_moves_the_run() {
    // Approved as an attempt (the review page, `switchyard approve <attempt>`): the run is
    // integrated with it.
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("fix", FIX));
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(detail.summary.state, RunState::Review);
    engine
        .approve_attempt(&attempt_of(&detail, 0), "fix add", true)
        .await
        .expect("approve");
    let after = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(after.summary.state, RunState::Integrated);
    assert_eq!(after.nodes[0].state, NodeState::Approved);
    let again = engine
        .approve_run(&run.id, None, "again")
        .await
        .expect_err("already integrated");
    assert_eq!(
        again.code(),
        switchyard_core::error::ErrorCode::InvalidInput
    );
    engine.close().await;

    // A collective: rejecting one member leaves the run in review; picking the other in the
    // compare view approves the run with it.
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Collective, "make add() add");
    req.models = Some(vec![fx.worker("fix", FIX), fx.worker("wrong", WRONG)]);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let members: Vec<(String, String)> = detail
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.state == NodeState::Review)
        .map(|(i, n)| (n.id.clone(), attempt_of(&detail, i)))
        .collect();
    assert_eq!(members.len(), 2, "{:#?}", detail.nodes);
    let mut fixed = None;
    for (node, attempt) in &members {
        let review = engine.attempt_review(attempt).await.expect("review");
        if review.can_approve {
            fixed = Some((
                node.clone(),
                attempt.clone(),
                review.summary.compare.clone(),
            ));
        } else {
            engine
                .reject_attempt(attempt, "multiplies")
                .await
                .expect("reject");
        }
    }
    let (winner_node, winner, compare) = fixed.expect("one member passed verification");
    let mid = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(
        mid.summary.state,
        RunState::Review,
        "one result is still open"
    );
    engine
        .pick_attempt(&compare.expect("compare group"), &winner, "fix add")
        .await
        .expect("pick");
    let after = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(after.summary.state, RunState::Integrated);
    for node in after
        .nodes
        .iter()
        .filter(|n| members.iter().any(|(id, _)| *id == n.id))
    {
        let expected = if node.id == winner_node {
            NodeState::Approved
        } else {
            NodeState::Rejected
        };
        assert_eq!(node.state, expected, "{}", node.id);
    }
    engine.close().await;

    // Rejected as an attempt: the run fails, rejected.
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("fix", FIX));
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    engine
        .reject_attempt(&attempt_of(&detail, 0), "not this way")
        .await
        .expect("reject");
    let after = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(after.summary.state, RunState::Failed);
    assert_eq!(after.summary.reason, Some(RunReason::Rejected));
    assert_eq!(after.nodes[0].state, NodeState::Rejected);
    engine.close().await;
}

#[tokio::test]
async fn a_code_runs_node_follows_the_revision_after_changes_are_requested() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Single, "make add() add");
    req.worker = Some(fx.worker("fix", FIX));
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(detail.summary.state, RunState::Review);
    let first = attempt_of(&detail, 0);
    let revision = engine
        .request_changes(&first, "also keep the old comment", Vec::new())
        .await
        .expect("request changes");
    let reviewed =
        tokio::time::timeout(Duration::from_secs(120), engine.wait_attempt(&revision.id))
            .await
            .expect("the revision ended in time")
            .expect("wait");
    assert_eq!(reviewed.summary.state, AttemptState::Review);
    // The run's node now points at the revision: review by run id (CLI, MCP, the run page's
    // link) opens it, not the superseded first attempt.
    let revised = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(
        revised.nodes[0].current_attempt(),
        Some(revision.id.as_str())
    );
    assert_ne!(first, revision.id);
    // Approving the revision (as the review page does) settles the run it continues.
    engine
        .approve_attempt(&revision.id, "fix add", true)
        .await
        .expect("approve the revision");
    let after = engine.run_detail(&run.id).await.expect("detail");
    assert_eq!(
        after.summary.state,
        RunState::Integrated,
        "{:#?}",
        after.nodes
    );
    assert_eq!(after.nodes[0].state, NodeState::Approved);
    let log = engine.run_log(&run.id, 0).await.expect("log");
    assert!(
        log.iter().any(|e| format!("{e:?}").contains(&revision.id)),
        "the node's move to the revision is logged"
    );
    engine.close().await;
}

#[tokio::test]
async fn a_code_collective_wider_than_the_parallel_node_limit_is_refused_before_anything_runs() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = code_request(&fx, RunMode::Collective, "make add() add");
    req.models = Some(vec![
        fx.worker("fix", FIX),
        fx.worker("wrong", WRONG),
        fx.worker("fix2", FIX),
    ]);
    req.limits = Some(switchyard_core::run::RunLimitsOverride {
        max_parallel_nodes: Some(2),
        ..Default::default()
    });
    let refused = engine.start_run(req.clone()).await.expect_err("too wide");
    assert_eq!(
        refused.code(),
        switchyard_core::error::ErrorCode::InvalidInput
    );
    assert!(refused.to_string().contains("parallel nodes"), "{refused}");
    assert!(fx.attempt_branches().is_empty(), "no attempt was started");
    req.limits = Some(switchyard_core::run::RunLimitsOverride {
        max_parallel_nodes: Some(3),
        ..Default::default()
    });
    let run = engine.start_run(req).await.expect("within the limit");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    engine.close().await;
}
