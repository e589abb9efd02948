//! The journal migration: a database written before attempts and runs shared one events table
//! opens with every attempt's and run's history readable, numbered and timed as it was, and
//! new events continue each job's numbering.

mod support;

use std::path::Path;

use switchyard_store::journal::Journal;
use switchyard_store::Store;

const JOURNAL_MIGRATION: &str = "20261231090000_journal.sql";

/// A database migrated up to just before the journal, as an older Switchyard left it.
async fn database_before_the_journal(dir: &Path) -> std::path::PathBuf {
    let (path, pool) = support::database_before(dir, JOURNAL_MIGRATION).await;
    for statement in [
        "INSERT INTO attempts (id, state, worker, task, prompt, repo, base, launcher, worktree_id,
             request_json, verify_json, created_ms, updated_ms)
         VALUES ('a1', 'review', 'exec:true', 't', 'p', '/r', 'abc', 'cli', 'a1', '{}', '[]', 1, 2)",
        "INSERT INTO attempt_events (attempt_id, seq, at_ms, body_json) VALUES
             ('a1', 1, 10, '{\"type\":\"state\",\"state\":\"queued\",\"note\":null}'),
             ('a1', 2, 20, '{\"type\":\"state\",\"state\":\"review\",\"note\":null}')",
        "INSERT INTO runs (id, task, mode, state, launcher, request_json, limits_json, max_usd,
             created_ms, updated_ms)
         VALUES ('r1', 't', 'single', 'completed', 'cli', '{}', '{}', 1.0, 1, 2)",
        "INSERT INTO run_events (run_id, seq, at_ms, body_json) VALUES
             ('r1', 1, 11, '{\"run\":1}'), ('r1', 2, 21, '{\"run\":2}'), ('r1', 3, 31, '{\"run\":3}')",
    ] {
        sqlx::query(statement)
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    pool.close().await;
    path
}

#[tokio::test]
async fn every_attempts_and_runs_history_survives_the_move_to_one_journal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = database_before_the_journal(dir.path()).await;

    let store = Store::open(&path).await.expect("open migrates");
    let attempt = store
        .events(Journal::Attempt, "a1", 0, 100)
        .await
        .expect("attempt events");
    assert_eq!(
        attempt.iter().map(|e| (e.seq, e.at_ms)).collect::<Vec<_>>(),
        [(1, 10), (2, 20)]
    );
    assert!(attempt[1].body_json.contains("review"));
    let run = store
        .events(Journal::Run, "r1", 1, 100)
        .await
        .expect("run events");
    assert_eq!(
        run.iter().map(|e| e.body_json.as_str()).collect::<Vec<_>>(),
        ["{\"run\":2}", "{\"run\":3}"]
    );
    // Each job keeps its own numbering; an attempt and a run never share one.
    assert_eq!(store.last_event(Journal::Run, "r1").await.expect("last"), 3);
    assert_eq!(
        store
            .append_event(Journal::Attempt, "a1", 30, "{}")
            .await
            .expect("append"),
        3
    );
    assert_eq!(
        store
            .append_event(Journal::Run, "a1", 30, "{}")
            .await
            .expect("append"),
        1
    );
    store.close().await;
}
