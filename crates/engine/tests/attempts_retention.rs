//! The worktree retention applied: at open and on demand, the worktrees and `switchyard/<id>`
//! branches of attempts that ended without integrating go once they are older than the
//! retention; an attempt awaiting review keeps its own whatever its age; a rejected one lost
//! its own at once. Detached-process logs go after the retention, never while their attempt is
//! live.
// The stand-in owner of a live attempt is a real process the test starts directly.
#![allow(clippy::disallowed_methods)]

mod attempts_support;

use attempts_support::{run, settle, Fixture, FIX};
use switchyard_core::attempt::retention::DAY_MS;
use switchyard_core::attempt::{AttemptRequest, AttemptState};
use switchyard_engine::handoff::{detached_log, JobKind};
use switchyard_store::attempts::{AttemptChanges, Guard, NewAttempt};
use switchyard_store::{Store, DATABASE_FILE};

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis(),
    )
    .expect("ms")
}

async fn store(fx: &Fixture) -> Store {
    Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store")
}

/// Makes attempt `id` (in `state`, free) look as if it ended `days` ago.
async fn age(fx: &Fixture, id: &str, state: AttemptState, days: i64) {
    let store = store(fx).await;
    let guard = Guard { state, owner: None };
    let when = now_ms() - days * DAY_MS;
    assert!(store
        .update_attempt(id, guard, when, &AttemptChanges::new().finished_ms(when))
        .await
        .expect("age"));
    store.close().await;
}

#[tokio::test]
async fn the_sweep_removes_worktrees_of_ended_attempts_past_the_retention_only() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let failing = fx.worker("exit3", &format!("{FIX}exit 3\n"));
    let fixing = fx.worker("fix", FIX);
    let old_failure = run(&fx, &engine, &failing).await.summary;
    let new_failure = run(&fx, &engine, &failing).await.summary;
    let in_review = run(&fx, &engine, &fixing).await.summary;
    let rejected = run(&fx, &engine, &fixing).await.summary;
    assert_eq!(old_failure.state, AttemptState::Failed);
    assert_eq!(new_failure.state, AttemptState::Failed);
    assert_eq!(in_review.state, AttemptState::Review);
    engine
        .reject_attempt(&rejected.id, "not this one")
        .await
        .expect("reject");
    assert!(
        !fx.worktree(&rejected.id).exists(),
        "a rejected attempt's worktree goes at once"
    );
    engine.close().await;
    age(&fx, &old_failure.id, AttemptState::Failed, 8).await;
    age(&fx, &new_failure.id, AttemptState::Failed, 6).await;
    // Review waits for the user however long it takes.
    age(&fx, &in_review.id, AttemptState::Review, 400).await;

    // The next open sweeps with the default retention (7 days).
    let engine = fx.engine().await;
    assert!(!fx.worktree(&old_failure.id).exists());
    assert!(fx.worktree(&new_failure.id).exists());
    assert!(fx.worktree(&in_review.id).exists());
    let mut branches = fx.attempt_branches();
    branches.sort();
    let mut expected = vec![
        format!("switchyard/{}", new_failure.id),
        format!("switchyard/{}", in_review.id),
    ];
    expected.sort();
    assert_eq!(branches, expected);
    assert_eq!(
        attempts_support::git(&fx.repo, &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        3,
        "the repository itself and the two kept worktrees"
    );

    // "Remove old worktrees now" with a retention of 0 days: every attempt that ended goes,
    // review stays; what this engine's own open removed is reported too.
    engine.set_worktree_retention_days(0).await.expect("set");
    let pruned = engine.prune_worktrees().await.expect("prune");
    let mut removed = vec![old_failure.id.clone(), new_failure.id.clone()];
    removed.sort();
    assert_eq!(pruned.worktrees, removed, "{pruned:?}");
    assert!(pruned.problems.is_empty(), "{pruned:?}");
    assert_eq!(pruned.usage.worktrees, 1, "{pruned:?}");
    assert_eq!(pruned.usage.retention_days, 0);
    assert!(!fx.worktree(&new_failure.id).exists());
    assert!(fx.worktree(&in_review.id).exists());
    assert_eq!(
        fx.attempt_branches(),
        [format!("switchyard/{}", in_review.id)]
    );
    // Nothing left to do: a second prune removes nothing.
    let again = engine.prune_worktrees().await.expect("prune");
    assert!(again.worktrees.is_empty(), "{again:?}");

    // The attempt in review is still fine to approve.
    let done = engine
        .approve_attempt(&in_review.id, "Fix add()", true)
        .await
        .expect("approve");
    assert_eq!(done.summary.state, AttemptState::Integrated);
    engine.close().await;
}

#[tokio::test]
async fn a_revision_keeps_the_shared_worktree_until_the_chain_has_ended_long_enough() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let first = run(&fx, &engine, &fx.worker("fix", FIX)).await.summary;
    let revision = engine
        .request_changes(&first.id, "fail this time", Vec::new())
        .await
        .expect("request changes");
    let revised = settle(&engine, &revision.id).await.summary;
    engine.close().await;
    // The first attempt is superseded (final); its revision, in review, works in its worktree.
    assert_eq!(revised.state, AttemptState::Review, "{revised:?}");
    age(&fx, &first.id, AttemptState::Superseded, 30).await;
    let engine = fx.engine().await;
    assert!(
        fx.worktree(&first.id).exists(),
        "the revision still needs it"
    );
    engine
        .reject_attempt(&revised.id, "no")
        .await
        .expect("reject");
    assert!(
        !fx.worktree(&first.id).exists(),
        "rejected: removed at once"
    );
    engine.close().await;
}

#[tokio::test]
async fn detached_logs_go_after_the_retention_but_never_while_their_attempt_is_live() {
    let fx = Fixture::new();
    std::fs::create_dir_all(&fx.home).expect("home");
    // A live attempt whose owner is alive (a stand-in process) and whose row last changed
    // long ago, and an attempt that ended long ago: both with a log.
    let mut owner = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("stand-in owner");
    let store = store(&fx).await;
    let request = AttemptRequest {
        worker: fx.worker("fix", FIX),
        ..fx.request("x")
    };
    let long_ago = now_ms() - 30 * DAY_MS;
    for (id, pid) in [
        ("0000000000eee000001", owner.id()),
        ("0000000000eee000002", 1),
    ] {
        store
            .insert_attempt(&NewAttempt {
                id: id.into(),
                worker: request.worker.clone(),
                task: request.task.clone(),
                prompt: request.task.clone(),
                repo: fx.repo_str(),
                base: fx.head(),
                target_branch: Some("main".into()),
                parent: None,
                compare_id: None,
                launcher: "cli".into(),
                worktree_id: id.into(),
                request_json: serde_json::to_string(&request).expect("json"),
                verify_json: "[]".into(),
                created_ms: long_ago,
                owner_pid: pid,
                owner_token: "elsewhere".into(),
            })
            .await
            .expect("insert");
    }
    let live = "0000000000eee000001";
    let ended = "0000000000eee000002";
    let running = Guard {
        state: AttemptState::Queued,
        owner: Some("elsewhere"),
    };
    assert!(store
        .update_attempt(
            live,
            running,
            long_ago,
            &AttemptChanges::new().state(AttemptState::Running)
        )
        .await
        .expect("running"));
    assert!(store
        .update_attempt(
            ended,
            running,
            long_ago,
            &AttemptChanges::new()
                .state(AttemptState::Canceled)
                .release()
                .finished_ms(long_ago)
        )
        .await
        .expect("canceled"));
    store.close().await;
    let log_of = |id: &str| detached_log(&fx.home, JobKind::Attempt, id);
    std::fs::create_dir_all(log_of(live).parent().expect("dir")).expect("logs dir");
    for id in [live, ended, "0000000000eee000003", "0000000000eee000004"] {
        std::fs::write(log_of(id), format!("attempt {id}\n")).expect("log");
    }
    // Logs of attempts this database does not know go by their own age.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(8 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(log_of("0000000000eee000003"))
        .expect("open")
        .set_modified(old)
        .expect("age the file");

    let engine = fx.engine().await;
    assert_eq!(
        engine
            .attempt_review(live)
            .await
            .expect("review")
            .summary
            .state,
        AttemptState::Running,
        "its owner is alive"
    );
    assert!(log_of(live).exists(), "a live attempt's log stays");
    assert!(!log_of(ended).exists(), "ended 30 days ago");
    assert!(!log_of("0000000000eee000003").exists(), "8 days old");
    assert!(log_of("0000000000eee000004").exists(), "written just now");

    // Even with no retention at all, the live one's log stays.
    engine.set_worktree_retention_days(0).await.expect("set");
    let pruned = engine.prune_worktrees().await.expect("prune");
    assert!(log_of(live).exists());
    assert!(!log_of("0000000000eee000004").exists());
    assert_eq!(
        pruned.logs,
        [
            ended.to_owned(),
            "0000000000eee000003".to_owned(),
            "0000000000eee000004".to_owned()
        ],
        "{pruned:?}"
    );
    engine.close().await;
    owner.kill().expect("kill");
    owner.wait().expect("reap");
}
