//! Worker processes are owned: a hung worker is stopped with its whole group at the timeout,
//! a flood of output stays bounded in memory and in the store, a non-zero exit fails the
//! attempt but keeps its diff, cancel stops the group, and the worker sees only the
//! allowlisted environment.

mod attempts_support;

use std::time::{Duration, Instant};

use attempts_support::{
    all_gone, own_seconds, process_with, run, run_request, settle, wait_for_state, Fixture, FIX,
};
use switchyard_core::attempt::{AttemptLog, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateName;
use switchyard_core::worker::WorkerEvent;

#[tokio::test]
async fn a_hung_worker_is_stopped_with_its_whole_group_at_the_timeout() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // A background child that ignores INT and a foreground sleep: both must go.
    let (child, foreground) = (own_seconds("971.25"), own_seconds("971.5"));
    let worker = fx.worker(
        "hang",
        &format!(
            "echo partial > partial.txt\n(trap '' INT; exec sleep {child}) &\nsleep {foreground}\n"
        ),
    );
    let mut request = fx.request(&worker);
    request.timeout_secs = Some(2);
    let started = Instant::now();
    let review = run_request(&engine, request).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.as_ref().expect("error");
    assert_eq!(error.code, ErrorCode::Timeout, "{error:?}");
    assert!(
        !process_with(&child) && !process_with(&foreground),
        "a worker process survived"
    );
    // What it did before hanging is still captured and gated.
    let diff = review.diff.as_ref().expect("diff");
    assert_eq!(diff.files[0].path, "partial.txt");
    assert!(review
        .gates
        .iter()
        .all(|g| g.name != GateName::Verification));
    assert_eq!(review.summary.gates_passed, Some(false));
    engine.close().await;
}

#[tokio::test]
async fn a_flood_of_output_is_capped_in_the_store_and_kept_whole_as_an_artifact() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // 30,000 short lines, then 3 MB without a newline.
    let worker = fx.worker(
        "flood",
        &format!("{FIX}seq 1 30000\nhead -c 3000000 /dev/zero | tr '\\0' a\n"),
    );
    let review = run(&fx, &engine, &worker).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    let worker_events: Vec<&WorkerEvent> = log
        .iter()
        .filter_map(|e| match &e.entry {
            AttemptLog::Worker { event } => Some(event),
            _ => None,
        })
        .collect();
    assert!(worker_events.len() <= 5_001, "{}", worker_events.len());
    assert!(worker_events.len() >= 5_000, "{}", worker_events.len());
    assert!(
        matches!(worker_events.last(), Some(WorkerEvent::Raw { line }) if line.contains("not stored"))
    );
    let output = fx
        .home
        .join("artifacts")
        .join(&review.summary.id)
        .join("worker-output.log");
    let bytes = std::fs::metadata(&output).expect("raw output").len();
    // "fixed add\n" + the numbers + 3 MB.
    assert!(bytes > 3_000_000 + 30_000 * 2, "{bytes}");
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    engine.close().await;
}

#[tokio::test]
async fn a_worker_that_exits_non_zero_fails_but_its_diff_is_kept() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let review = run(&fx, &engine, &fx.worker("exit3", &format!("{FIX}exit 3\n"))).await;
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.as_ref().expect("error");
    assert_eq!(error.code, ErrorCode::WorkerFailed);
    assert!(error.message.contains("code 3"), "{}", error.message);
    assert_eq!(review.summary.files_changed, Some(1));
    assert!(!review.can_approve);
    let approve = engine
        .approve_attempt(&review.summary.id, "x", true)
        .await
        .expect_err("failed attempts are not approved");
    assert_eq!(approve.code(), ErrorCode::InvalidInput);
    assert!(fx.worktree(&review.summary.id).exists());
    engine.close().await;
    // The next open keeps the failed attempt's worktree and branch for the retention (see
    // attempts_retention for when they go).
    let reopened = fx.engine().await;
    assert!(fx.worktree(&review.summary.id).exists());
    assert_eq!(
        fx.attempt_branches(),
        [format!("switchyard/{}", review.summary.id)]
    );
    reopened.close().await;
}

#[tokio::test]
async fn cancel_stops_the_worker_group_and_records_canceled() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let seconds = own_seconds("972.5");
    let started = engine
        .start_attempt(
            fx.request(&fx.worker("slow", &format!("sleep {seconds}\n"))),
            "app",
        )
        .await
        .expect("start");
    wait_for_state(&engine, &started.id, AttemptState::Running).await;
    for _ in 0..100 {
        if process_with(&seconds) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(process_with(&seconds), "the worker runs");
    let canceled = engine.cancel_attempt(&started.id).await.expect("cancel");
    assert_eq!(canceled.state, AttemptState::Canceled);
    assert!(all_gone(&seconds).await);
    let again = engine.cancel_attempt(&started.id).await.expect_err("final");
    assert_eq!(again.code(), ErrorCode::InvalidInput);
    engine.close().await;
}

#[tokio::test]
async fn a_worker_sees_only_the_allowlisted_environment_and_its_task() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let dump = fx.probe("env.txt");
    let worker = fx.worker("env", &format!("{FIX}env > {}\n", dump.display()));
    let review = run(&fx, &engine, &worker).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let env = std::fs::read_to_string(&dump).expect("env dump");
    let allowed = [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "TERM",
        "TMPDIR",
        "TZ",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "_",
        "SWITCHYARD_TASK",
    ];
    for line in env.lines().filter(|l| l.contains('=')) {
        let name = line.split('=').next().unwrap_or_default();
        if name.starts_with(' ') || name.is_empty() {
            continue;
        }
        assert!(
            allowed.contains(&name) || name.starts_with("LC_"),
            "the worker got {name}"
        );
    }
    assert!(env.contains("SWITCHYARD_TASK=make add() add"), "{env}");
    engine.close().await;
}

#[tokio::test]
async fn a_cli_worker_that_cannot_be_found_fails_with_a_clear_message() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let store = switchyard_store::Store::open(&fx.home.join(switchyard_store::DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            "workers.path.claude",
            "/nonexistent/claude",
            "2026-12-02T00:00:00Z",
        )
        .await
        .expect("setting");
    store.close().await;
    let started = engine
        .start_attempt(fx.request("claude"), "cli")
        .await
        .expect("start");
    let review = settle(&engine, &started.id).await;
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.as_ref().expect("error");
    assert_eq!(error.code, ErrorCode::WorkerFailed);
    assert!(
        error.message.contains("/nonexistent/claude"),
        "{}",
        error.message
    );
    engine.close().await;
}
