//! Owner leases across engine instances on one database: an attempt whose owner died is
//! interrupted at the next open and recovered through the gates; a second engine opened while
//! an attempt is live (the CLI's `info` next to the app) leaves it alone; closing an engine
//! cancels what it runs.
// The "dead owner" is a real process that has exited; the test starts it directly.
#![allow(clippy::disallowed_methods)]

mod attempts_support;

use std::os::unix::process::CommandExt;
use std::time::Duration;

use attempts_support::{process_with, settle, wait_for_state, write, Fixture, FIX};
use switchyard_core::attempt::{AttemptRequest, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateName;
use switchyard_runner::git::{Git, Repo, Worktree};
use switchyard_store::attempts::{AttemptChanges, Guard, NewAttempt};
use switchyard_store::{Store, DATABASE_FILE};

/// The id of a process that has exited (and been reaped).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = child.id();
    child.wait().expect("reap");
    pid
}

/// Records attempt `id` as another process would have left it: running, owned by a process
/// that has died. Returns the repository.
async fn orphaned_attempt(fx: &Fixture, id: &str) -> Repo {
    let base = fx.head();
    // Another process started an attempt, ran the worker half way and died.
    std::fs::create_dir_all(&fx.home).expect("home");
    let store = Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store");
    let request = AttemptRequest {
        worker: fx.worker("fix", FIX),
        ..fx.request("x")
    };
    let repo = Repo::open(&Git::new(), &fx.repo).await.expect("repo");
    store
        .insert_attempt(&NewAttempt {
            id: id.into(),
            worker: request.worker.clone(),
            task: request.task.clone(),
            prompt: request.task.clone(),
            repo: repo.toplevel().display().to_string(),
            base: base.clone(),
            target_branch: Some("main".into()),
            parent: None,
            compare_id: None,
            launcher: "app".into(),
            worktree_id: id.into(),
            request_json: serde_json::to_string(&request).expect("json"),
            verify_json: "[\"sh test.sh\"]".into(),
            created_ms: 1,
            owner_pid: dead_pid(),
            owner_token: "gone".into(),
        })
        .await
        .expect("insert");
    for (from, to) in [
        (AttemptState::Queued, AttemptState::Preparing),
        (AttemptState::Preparing, AttemptState::Running),
    ] {
        let guard = Guard {
            state: from,
            owner: Some("gone"),
        };
        assert!(store
            .update_attempt(id, guard, 2, &AttemptChanges::new().state(to).started_ms(2))
            .await
            .expect("advance"));
    }
    store.close().await;
    repo
}

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
    let busy = cli
        .cancel_attempt(&started.id)
        .await
        .expect_err("not the owner");
    assert_eq!(busy.code(), ErrorCode::Busy);
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
