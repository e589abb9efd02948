//! Owner leases across engine instances on one database: an attempt whose owner died is
//! interrupted at the next open and recovered through the gates; a second engine opened while
//! an attempt is live (the CLI's `info` next to the app) leaves it alone, and its cancel is a
//! request the owner carries out; closing an engine cancels what it runs.
// The "dead owner" is a real process that has exited; the test starts it directly.
#![allow(clippy::disallowed_methods)]

mod attempts_support;

use std::os::unix::process::CommandExt;
use std::time::Duration;

use attempts_support::{
    attempt_owned_by, orphaned_attempt, process_with, settle, wait_for_state, write, Fixture, FIX,
};
use switchyard_core::attempt::AttemptState;
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateName;
use switchyard_runner::git::Worktree;
use switchyard_store::attempts::{AttemptChanges, Guard};
use switchyard_store::{Store, DATABASE_FILE};

#[tokio::test]
async fn an_attempt_whose_owner_died_is_interrupted_at_open_and_recovered() {
    let fx = Fixture::new();
    let base = fx.head();
    let id = "0000000000aaa000001";
    let repo = orphaned_attempt(&fx, id).await;
    let worktree = Worktree::create(&repo, &base, &fx.home, id)
        .await
        .expect("worktree");
    write(worktree.path(), "calc.sh", "add() { echo $(($1 + $2)); }\n");
    // Its worker's process group is still running in the worktree.
    let mut left = std::process::Command::new("sh")
        .args(["-c", "sleep 975.5 & sleep 975.25; wait"])
        .current_dir(worktree.path())
        .process_group(0)
        .spawn()
        .expect("worker left behind");
    let store = Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store");
    let guard = Guard {
        state: AttemptState::Running,
        owner: Some("gone"),
    };
    assert!(store
        .update_attempt(
            id,
            guard,
            3,
            &AttemptChanges::new().worker_pgid(Some(left.id()))
        )
        .await
        .expect("pgid"));
    store.close().await;
    for _ in 0..100 {
        if process_with("975.5") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(process_with("975.5"));

    let engine = fx.engine().await;
    let interrupted = engine.attempt_review(id).await.expect("review");
    assert_eq!(interrupted.summary.state, AttemptState::Interrupted);
    left.wait().expect("reap");
    assert!(
        attempts_support::all_gone("975.5").await && attempts_support::all_gone("975.25").await,
        "the dead owner's worker group was stopped"
    );
    assert!(
        fx.worktree(id).exists(),
        "the sweep keeps an interrupted attempt's worktree"
    );
    let approve = engine
        .approve_attempt(id, "x", true)
        .await
        .expect_err("not yet");
    assert_eq!(approve.code(), ErrorCode::InvalidInput);

    let recovered = engine.recover_attempt(id).await.expect("recover");
    assert_eq!(
        recovered.summary.state,
        AttemptState::Review,
        "{recovered:?}"
    );
    assert!(recovered.can_approve, "{:?}", recovered.approve_blocked);
    assert!(recovered
        .gates
        .iter()
        .any(|g| g.name == GateName::Verification && g.passed));
    assert_eq!(recovered.diff.as_ref().map(|d| d.files.len()), Some(1));
    let again = engine.recover_attempt(id).await.expect_err("only once");
    assert_eq!(again.code(), ErrorCode::InvalidInput);

    let done = engine
        .approve_attempt(id, "Fix add()", true)
        .await
        .expect("approve");
    assert_eq!(done.summary.state, AttemptState::Integrated);
    assert_eq!(
        attempts_support::git(&fx.repo, &["rev-parse", "HEAD^"]),
        base
    );
    assert!(!fx.worktree(id).exists());
    engine.close().await;
}

#[tokio::test]
async fn a_second_engine_on_the_same_database_leaves_a_live_attempt_running() {
    let fx = Fixture::new();
    let app = fx.engine().await;
    let worker = fx.worker("slow", &format!("sleep 3.25\n{FIX}"));
    let started = app
        .start_attempt(fx.request(&worker), "app")
        .await
        .expect("start");
    wait_for_state(&app, &started.id, AttemptState::Running).await;

    // The CLI opens the same home (its own engine instance) and asks for info.
    let cli = fx.engine().await;
    cli.app_info().await.expect("info");
    let seen = cli.attempt_review(&started.id).await.expect("review");
    assert_eq!(seen.summary.state, AttemptState::Running);
    cli.close().await;

    // The app's attempt carries on to review, and the CLI's engine sees it get there.
    let cli = fx.engine().await;
    let review = settle(&cli, &started.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.can_approve);
    cli.close().await;
    app.close().await;
}

#[tokio::test]
async fn closing_the_engine_cancels_its_live_attempts_and_their_processes() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let started = engine
        .start_attempt(fx.request(&fx.worker("slow", "sleep 974.5\n")), "app")
        .await
        .expect("start");
    wait_for_state(&engine, &started.id, AttemptState::Running).await;
    for _ in 0..100 {
        if process_with("974.5") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    engine.close().await;
    assert!(
        attempts_support::all_gone("974.5").await,
        "the worker outlived the engine"
    );
    let reopened = fx.engine().await;
    let review = reopened.attempt_review(&started.id).await.expect("review");
    assert_eq!(review.summary.state, AttemptState::Canceled);
    reopened.close().await;
}

#[tokio::test]
async fn two_engines_approving_one_attempt_at_once_integrate_it_once() {
    let fx = Fixture::new();
    let base = fx.head();
    let app = fx.engine().await;
    let started = app
        .start_attempt(fx.request(&fx.worker("fix", FIX)), "app")
        .await
        .expect("start");
    let review = settle(&app, &started.id).await;
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    let cli = fx.engine().await;
    let (a, b) = tokio::join!(
        app.approve_attempt(&started.id, "Fix add()", true),
        cli.approve_attempt(&started.id, "Fix add()", true),
    );
    let outcomes = [a, b];
    let wins = outcomes.iter().filter(|o| o.is_ok()).count();
    assert_eq!(wins, 1, "{outcomes:?}");
    for lost in outcomes.iter().filter_map(|o| o.as_ref().err()) {
        assert!(
            matches!(lost.code(), ErrorCode::Busy | ErrorCode::InvalidInput),
            "{lost}"
        );
    }
    assert_eq!(
        attempts_support::git(&fx.repo, &["rev-parse", "HEAD^"]),
        base
    );
    assert_eq!(
        attempts_support::git(&fx.repo, &["rev-list", "--count", &format!("{base}..HEAD")]),
        "1"
    );
    let done = app.attempt_review(&started.id).await.expect("review");
    assert_eq!(done.summary.state, AttemptState::Integrated);
    cli.close().await;
    app.close().await;
}

#[tokio::test]
async fn an_interrupted_attempt_can_be_canceled_and_one_without_a_worktree_fails_to_recover() {
    let fx = Fixture::new();
    orphaned_attempt(&fx, "0000000000bbb000001").await;
    orphaned_attempt(&fx, "0000000000bbb000002").await;
    let engine = fx.engine().await;
    let canceled = engine
        .cancel_attempt("0000000000bbb000001")
        .await
        .expect("cancel");
    assert_eq!(canceled.state, AttemptState::Canceled);
    let error = engine
        .recover_attempt("0000000000bbb000002")
        .await
        .expect_err("no worktree to recover");
    assert_eq!(error.code(), ErrorCode::NotFound, "{error}");
    let failed = engine
        .attempt_review("0000000000bbb000002")
        .await
        .expect("review");
    assert_eq!(failed.summary.state, AttemptState::Failed);
    assert_eq!(
        failed.summary.error.as_ref().map(|e| e.code),
        Some(ErrorCode::NotFound)
    );
    let missing = engine.attempt_log("nope", 0).await.expect_err("unknown id");
    assert_eq!(missing.code(), ErrorCode::NotFound);
    engine.close().await;
}

#[tokio::test]
async fn a_cancel_from_another_engine_is_carried_out_by_the_owner() {
    let fx = Fixture::new();
    let app = fx.engine().await;
    let seconds = attempts_support::own_seconds("971.5");
    let started = app
        .start_attempt(
            fx.request(&fx.worker("slow", &format!("sleep {seconds}\n"))),
            "app",
        )
        .await
        .expect("start");
    wait_for_state(&app, &started.id, AttemptState::Running).await;
    for _ in 0..100 {
        if process_with(&seconds) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(process_with(&seconds), "the worker runs");

    // The CLI's engine on the same database: not the owner, so it asks and waits.
    let cli = fx.engine().await;
    let asked = std::time::Instant::now();
    let canceled = cli.cancel_attempt(&started.id).await.expect("cancel");
    assert_eq!(canceled.state, AttemptState::Canceled, "{canceled:?}");
    assert!(
        asked.elapsed() < switchyard_engine::attempts::CANCEL_WAIT,
        "{:?}",
        asked.elapsed()
    );
    assert!(
        attempts_support::all_gone(&seconds).await,
        "the owner stopped its worker's group"
    );
    let seen = app.attempt_review(&started.id).await.expect("review");
    assert_eq!(seen.summary.state, AttemptState::Canceled);
    assert_eq!(
        seen.summary.error.map(|e| e.code),
        Some(ErrorCode::Canceled)
    );
    let again = cli.cancel_attempt(&started.id).await.expect_err("ended");
    assert_eq!(again.code(), ErrorCode::InvalidInput);
    cli.close().await;
    app.close().await;
}

#[tokio::test]
async fn a_cancel_its_owner_never_acts_on_is_busy_and_recover_later_forgets_it() {
    let fx = Fixture::new();
    let id = "0000000000ccc000001";
    // A live process that holds the lease but is no Switchyard engine: it never looks.
    let mut owner = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("stand-in owner");
    attempt_owned_by(&fx, id, owner.id(), false).await;
    let engine = fx.engine().await;
    assert_eq!(
        engine
            .attempt_review(id)
            .await
            .expect("review")
            .summary
            .state,
        AttemptState::Running,
        "a live owner is not interrupted"
    );
    let asked = std::time::Instant::now();
    let busy = engine
        .cancel_attempt(id)
        .await
        .expect_err("nobody acts on it");
    assert_eq!(busy.code(), ErrorCode::Busy, "{busy}");
    assert!(busy.to_string().contains(&owner.id().to_string()), "{busy}");
    assert!(
        asked.elapsed() >= switchyard_engine::attempts::CANCEL_WAIT,
        "{:?}",
        asked.elapsed()
    );
    engine.close().await;
    let store = Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store");
    let row = store.attempt(id).await.expect("read").expect("row");
    assert_eq!(row.state, AttemptState::Running);
    assert!(row.cancel_requested_ms.is_some(), "the request stays");
    store.close().await;

    // The owner dies before acting on it: interrupted at the next open. Its worker never
    // ran, so recover re-queues it (returning at once) and the pipeline runs here; the old
    // request must not cancel that new run.
    owner.kill().expect("kill");
    owner.wait().expect("reap");
    let engine = fx.engine().await;
    let requeued = engine.recover_attempt(id).await.expect("recover");
    assert!(
        matches!(
            requeued.summary.state,
            AttemptState::Queued | AttemptState::Preparing | AttemptState::Running
        ),
        "{requeued:?}"
    );
    let review = settle(&engine, id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    engine.close().await;
}

#[tokio::test]
async fn a_cancel_whose_owner_dies_meanwhile_cancels_the_interrupted_attempt() {
    let fx = Fixture::new();
    let id = "0000000000ddd000001";
    let mut owner = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("stand-in owner");
    attempt_owned_by(&fx, id, owner.id(), true).await;
    let engine = fx.engine().await;
    let pid = owner.id();
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        owner.kill().expect("kill");
        owner.wait().expect("reap");
        pid
    });
    let canceled = engine.cancel_attempt(id).await.expect("cancel");
    assert_eq!(killer.await.expect("killer"), pid);
    assert_eq!(canceled.state, AttemptState::Canceled, "{canceled:?}");
    engine.close().await;
}
