//! Stored outcome records: the migration marks every existing job for derivation (the
//! backfill), a change a record depends on marks its job behind in the change's own
//! transaction, a heartbeat does not, a change made while a job is derived keeps it behind,
//! and a deleted job takes its records with it.

mod support;

use std::path::Path;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use switchyard_core::catalog::card::Category;
use switchyard_core::outcomes::{OutcomeKind, OutcomeRecord, TaskFeatures};
use switchyard_store::journal::Journal;
use switchyard_store::outcomes::JobBehind;
use switchyard_store::{Store, DATABASE_FILE};

const OUTCOMES_MIGRATION: &str = "20270107090000_outcomes.sql";

async fn raw(path: &Path) -> SqlitePool {
    SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(SqliteConnectOptions::new().filename(path))
        .await
        .expect("pool")
}

async fn exec(pool: &SqlitePool, statement: &str) {
    sqlx::query(statement)
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

const ATTEMPT: &str = "INSERT INTO attempts (id, state, worker, task, prompt, repo, base,
    launcher, worktree_id, request_json, verify_json, created_ms, updated_ms, finished_ms)
    VALUES ('a1', 'review', 'model:x/y', 't', 'p', '/r', 'abc', 'cli', 'a1', '{}', '[]', 1, 2, 5)";
const RUN: &str = "INSERT INTO runs (id, task, mode, state, launcher, request_json, limits_json,
    max_usd, created_ms, updated_ms) VALUES ('r1', 't', 'single', 'completed', 'cli', '{}', '{}',
    1.0, 1, 2)";

fn record(id: &str) -> OutcomeRecord {
    OutcomeRecord {
        kind: OutcomeKind::Attempt,
        id: id.to_owned(),
        run_id: None,
        node_id: None,
        finished_ms: 5,
        task: TaskFeatures {
            category: Category::Coding,
            lang: "en".to_owned(),
            task_tokens: 3,
            stack: vec!["rust".to_owned()],
            needs: Vec::new(),
        },
        worker: Some("model:x/y".to_owned()),
        model: Some("x/y".to_owned()),
        state: "approved".to_owned(),
        verified: Some(true),
        gates_passed: None,
        decision: Some("approved".to_owned()),
        succeeded: true,
        cost_usd: 0.25,
        latency_ms: Some(3),
        tokens_in: Some(10),
        tokens_out: Some(20),
        escalated: false,
        launcher: "cli".to_owned(),
    }
}

fn ids(behind: &[JobBehind]) -> Vec<(Journal, &str)> {
    behind.iter().map(|j| (j.journal, j.id.as_str())).collect()
}

#[tokio::test]
async fn jobs_written_before_the_outcomes_table_are_marked_for_derivation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, pool) = support::database_before(dir.path(), OUTCOMES_MIGRATION).await;
    exec(&pool, ATTEMPT).await;
    exec(&pool, RUN).await;
    pool.close().await;

    let store = Store::open(&path).await.expect("open migrates");
    assert_eq!(
        ids(&store.jobs_behind().await.expect("behind")),
        [(Journal::Attempt, "a1"), (Journal::Run, "r1")]
    );
    store.close().await;
}

#[tokio::test]
async fn a_change_marks_its_job_behind_and_a_derivation_brings_it_up_to_date() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    let pool = raw(&path).await;
    assert!(store.jobs_behind().await.expect("behind").is_empty());

    exec(&pool, ATTEMPT).await;
    let behind = store.jobs_behind().await.expect("behind");
    assert_eq!(ids(&behind), [(Journal::Attempt, "a1")]);
    store
        .replace_outcomes(&behind[0], &[record("a1")])
        .await
        .expect("replace");
    assert!(store.jobs_behind().await.expect("behind").is_empty());
    assert_eq!(
        store.stored_outcomes(i64::MIN).await.expect("read"),
        [record("a1")]
    );

    // A heartbeat is not something a record reads.
    exec(
        &pool,
        "UPDATE attempts SET heartbeat_ms = 99, owner_pid = 7 WHERE id = 'a1'",
    )
    .await;
    assert!(store.jobs_behind().await.expect("behind").is_empty());

    // The user's decision is.
    exec(
        &pool,
        "UPDATE attempts SET decision_json = '{}', state = 'approved' WHERE id = 'a1'",
    )
    .await;
    let read = store.jobs_behind().await.expect("behind");
    assert_eq!(ids(&read), [(Journal::Attempt, "a1")]);
    // A change made while the job is being derived keeps it behind.
    exec(&pool, "UPDATE attempts SET cost_usd = 1.5 WHERE id = 'a1'").await;
    store
        .replace_outcomes(&read[0], &[record("a1")])
        .await
        .expect("replace");
    assert_eq!(
        ids(&store.jobs_behind().await.expect("behind")),
        [(Journal::Attempt, "a1")]
    );

    // An attempt linked to a run marks the run too: its records are derived with the run's.
    exec(&pool, RUN).await;
    exec(
        &pool,
        "UPDATE attempts SET run_id = 'r1', node_id = 'n1' WHERE id = 'a1'",
    )
    .await;
    assert_eq!(
        ids(&store.jobs_behind().await.expect("behind")),
        [(Journal::Attempt, "a1"), (Journal::Run, "r1")]
    );

    // Records before `since` are left out.
    assert!(store.stored_outcomes(6).await.expect("read").is_empty());

    // A deleted job takes its records with it.
    exec(&pool, "DELETE FROM attempts WHERE id = 'a1'").await;
    assert!(store
        .stored_outcomes(i64::MIN)
        .await
        .expect("read")
        .is_empty());
    assert_eq!(
        ids(&store.jobs_behind().await.expect("behind")),
        [(Journal::Run, "r1")]
    );
    pool.close().await;
    store.close().await;
}

#[tokio::test]
async fn a_record_that_does_not_decode_is_a_corrupt_value_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    let pool = raw(&path).await;
    exec(
        &pool,
        "INSERT INTO outcomes (id, job_kind, job_id, finished_ms, category, launcher, succeeded,
             record_json) VALUES ('x', 'attempt', 'x', 1, 'coding', 'cli', 1, '{\"kind\":7}')",
    )
    .await;
    let error = store
        .stored_outcomes(i64::MIN)
        .await
        .expect_err("corrupt record");
    assert!(error.to_string().contains("outcomes"), "{error}");
    pool.close().await;
    store.close().await;
}
