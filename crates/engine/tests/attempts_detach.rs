//! Detached attempts: the lease handed to another process at start. The starting engine
//! closes (its process "exits") before the new owner adopts; an engine opened meanwhile (a
//! third process) must not take the attempt for an orphan; the adopter runs it to review; a
//! new owner that died before adopting leaves it interrupted at the next open, and recover
//! then runs it from the start.
// The stand-in for the detached child is a real process the test starts directly.
#![allow(clippy::disallowed_methods)]

mod attempts_support;

use std::sync::{Arc, Mutex};

use attempts_support::{settle, Fixture, FIX};
use switchyard_core::attempt::{AttemptRequest, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_engine::handoff::Handoff;
use switchyard_engine::{Engine, EngineConfig};

/// Starts a detached attempt of the honest fix from an engine that closes right after,
/// recording `owner_pid` as the new owner; returns the hand-off.
async fn hand_off(fx: &Fixture, owner_pid: u32) -> Handoff {
    let parent = fx.engine().await;
    let seen: Arc<Mutex<Option<Handoff>>> = Arc::default();
    let keep = seen.clone();
    let request = AttemptRequest {
        worker: fx.worker("fix", FIX),
        ..fx.request("x")
    };
    let summary = parent
        .start_attempt_detached(request, "cli", &mut |handoff: &Handoff| {
            *keep.lock().expect("lock") = Some(handoff.clone());
            Ok(owner_pid)
        })
        .await
        .expect("start detached");
    assert_eq!(summary.state, AttemptState::Queued);
    parent.close().await;
    drop(parent);
    let handoff = seen.lock().expect("lock").clone().expect("launched");
    assert_eq!(handoff.id, summary.id);
    handoff
}

fn config(fx: &Fixture) -> EngineConfig {
    EngineConfig {
        home: Some(fx.home.clone()),
    }
}

#[tokio::test]
async fn a_third_open_before_adoption_leaves_the_attempt_to_its_live_new_owner() {
    let fx = Fixture::new();
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("stand-in child");
    let handoff = hand_off(&fx, child.id()).await;

    // The starting engine is gone; another process opens the database.
    let third = fx.engine().await;
    let review = third.attempt_review(&handoff.id).await.expect("review");
    assert_eq!(review.summary.state, AttemptState::Queued, "{review:?}");
    third.close().await;
    drop(third);

    // The new owner dies before adopting: the next open marks the attempt interrupted.
    child.kill().expect("kill");
    child.wait().expect("reap");
    let next = fx.engine().await;
    let review = next.attempt_review(&handoff.id).await.expect("review");
    assert_eq!(review.summary.state, AttemptState::Interrupted);
    // Too late to adopt it now.
    let late = next
        .adopt_attempt(&handoff.id, &handoff.token)
        .await
        .expect_err("interrupted");
    assert_eq!(late.code(), ErrorCode::Busy);
    // Its worker never ran, so recovering re-queues it and returns at once; the pipeline
    // runs in the engine's task set, from the start, to review.
    let requeued = next.recover_attempt(&handoff.id).await.expect("recover");
    assert!(
        matches!(
            requeued.summary.state,
            AttemptState::Queued | AttemptState::Preparing | AttemptState::Running
        ),
        "recover returns once it is re-queued: {requeued:?}"
    );
    assert!(requeued.diff.is_none(), "nothing ran yet: {requeued:?}");
    let recovered = settle(&next, &handoff.id).await;
    assert_eq!(
        recovered.summary.state,
        AttemptState::Review,
        "{recovered:?}"
    );
    assert_eq!(recovered.summary.gates_passed, Some(true));
    assert!(recovered.diff.is_some_and(|d| d.files.len() == 1));
    next.close().await;
}

#[tokio::test]
async fn the_process_named_as_owner_opens_holding_the_token_and_runs_it_to_review() {
    let fx = Fixture::new();
    // This process plays the child: the row names its pid, and no engine here holds the
    // token once the parent's engine is dropped.
    let handoff = hand_off(&fx, std::process::id()).await;

    let child = Arc::new(
        Engine::open_for_handoff(config(&fx), &handoff.token)
            .await
            .expect("open for hand-off"),
    );
    let review = child.attempt_review(&handoff.id).await.expect("review");
    assert_eq!(
        review.summary.state,
        AttemptState::Queued,
        "its own start-up must not interrupt it"
    );
    let wrong = child
        .adopt_attempt(&handoff.id, "not-the-token")
        .await
        .expect_err("wrong token");
    assert_eq!(wrong.code(), ErrorCode::Busy);
    child
        .adopt_attempt(&handoff.id, &handoff.token)
        .await
        .expect("adopt");
    let again = child
        .adopt_attempt(&handoff.id, &handoff.token)
        .await
        .expect_err("adopted once only");
    assert_eq!(again.code(), ErrorCode::Busy);
    let review = settle(&child, &handoff.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert_eq!(
        review.summary.gates_passed,
        Some(true),
        "{:?}",
        review.gates
    );
    assert!(review.diff.is_some_and(|d| d.files.len() == 1));
    child.close().await;
}

#[tokio::test]
async fn a_launch_that_fails_leaves_the_attempt_failed_with_the_reason() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let error = engine
        .start_attempt_detached(fx.request(&fx.worker("fix", FIX)), "cli", &mut |_| {
            Err("no such program".into())
        })
        .await
        .expect_err("launch failed");
    assert_eq!(error.code(), ErrorCode::Internal);
    let list = engine.list_attempts().await.expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].state, AttemptState::Failed);
    let message = list[0].error.as_ref().map(|e| e.message.clone());
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.contains("no such program")),
        "{message:?}"
    );
    engine.close().await;
}

#[tokio::test]
async fn recover_hands_an_interrupted_attempt_to_a_detached_owner_that_re_gates_it() {
    let fx = Fixture::new();
    let id = "0000000000fff000001";
    let repo = attempts_support::orphaned_attempt(&fx, id).await;
    let worktree = switchyard_runner::git::Worktree::create(&repo, &fx.head(), &fx.home, id)
        .await
        .expect("worktree");
    attempts_support::write(worktree.path(), "calc.sh", "add() { echo $(($1 + $2)); }\n");

    // The CLI's `recover --detach`: the starting engine hands the recovery over and closes.
    let parent = fx.engine().await;
    assert_eq!(
        parent
            .attempt_review(id)
            .await
            .expect("review")
            .summary
            .state,
        AttemptState::Interrupted
    );
    let seen: Arc<Mutex<Option<Handoff>>> = Arc::default();
    let keep = seen.clone();
    let handed = parent
        .recover_attempt_detached(id, &mut |handoff: &Handoff| {
            *keep.lock().expect("lock") = Some(handoff.clone());
            Ok(std::process::id())
        })
        .await
        .expect("recover detached");
    assert_eq!(
        handed.state,
        AttemptState::Verifying,
        "its worker ran: it is re-gated"
    );
    parent.close().await;
    drop(parent);
    let handoff = seen.lock().expect("lock").clone().expect("launched");
    assert_eq!(handoff.id, id);

    // The detached process adopts it and re-runs the gates and the verification.
    let child = Arc::new(
        Engine::open_for_handoff(config(&fx), &handoff.token)
            .await
            .expect("open for hand-off"),
    );
    child
        .adopt_attempt(id, &handoff.token)
        .await
        .expect("adopt");
    let review = settle(&child, id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    assert!(review.diff.is_some_and(|d| d.files.len() == 1));
    let again = child
        .recover_attempt_detached(id, &mut |_| Ok(1))
        .await
        .expect_err("no longer interrupted");
    assert_eq!(again.code(), ErrorCode::InvalidInput);
    child.close().await;
}
