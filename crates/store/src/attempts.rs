//! Attempts, their numbered event log, their artifacts and compare groups.
//!
//! A live attempt carries an owner lease (`owner_pid`, `owner_token`, `heartbeat_ms`). Every
//! change goes through [`Store::update_attempt`], a guarded `UPDATE … WHERE id = ? AND
//! state = ? AND owner_token IS ?`: it applies only when the attempt is still in the state the
//! caller saw and the caller still holds (or, for a free attempt, expects no) lease, so two
//! processes on one database can never both advance one attempt. Event numbers are assigned
//! by the inserting statement itself, so they are gap-free per attempt with any number of
//! writers.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use switchyard_core::attempt::AttemptState;

use crate::journal::{self, Journal};
use crate::{Store, StoreError};

/// A new attempt as first recorded (state `queued`, leased by its creator).
#[derive(Debug, Clone, PartialEq)]
pub struct NewAttempt {
    pub id: String,
    pub worker: String,
    pub task: String,
    pub prompt: String,
    pub repo: String,
    pub base: String,
    pub target_branch: Option<String>,
    pub parent: Option<String>,
    pub compare_id: Option<String>,
    pub launcher: String,
    pub worktree_id: String,
    pub request_json: String,
    pub verify_json: String,
    pub created_ms: i64,
    pub owner_pid: u32,
    pub owner_token: String,
}

/// One stored attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRow {
    pub id: String,
    pub state: AttemptState,
    pub worker: String,
    pub worker_version: Option<String>,
    pub task: String,
    pub prompt: String,
    pub repo: String,
    pub base: String,
    pub target_branch: Option<String>,
    pub parent: Option<String>,
    pub compare_id: Option<String>,
    pub launcher: String,
    pub worktree_id: String,
    pub request_json: String,
    pub verify_json: String,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub diff_sha256: Option<String>,
    /// The captured index's tree object (see the `attempt_tree` migration).
    pub diff_tree: Option<String>,
    pub files_changed: Option<u32>,
    pub additions: Option<u32>,
    pub deletions: Option<u32>,
    pub gates_passed: Option<bool>,
    pub gates_json: Option<String>,
    pub verification_json: Option<String>,
    pub usage_json: Option<String>,
    pub cost_usd: Option<f64>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub decision_json: Option<String>,
    pub integration_json: Option<String>,
    pub commit_id: Option<String>,
    pub owner_pid: Option<u32>,
    pub owner_token: Option<String>,
    pub heartbeat_ms: Option<i64>,
    pub worker_pgid: Option<u32>,
    /// When a process other than the owner asked for a cancel (see the `attempt_cancel_request`
    /// migration); `None`: nobody asked.
    pub cancel_requested_ms: Option<i64>,
    /// How the worker was confined (see the `attempt_confinement` migration).
    pub confinement_json: Option<String>,
}

/// One attempt as the worktree sweep weighs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeRow {
    pub id: String,
    pub repo: String,
    pub worktree_id: String,
    pub state: AttemptState,
    /// When it ended (`finished_ms`), else when it last changed (`updated_ms`).
    pub ended_ms: i64,
}

/// What an update expects to find: the state the caller saw and the lease it holds (`None`:
/// the attempt must be free).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard<'a> {
    pub state: AttemptState,
    pub owner: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
enum Value {
    Text(String),
    Int(i64),
    Real(f64),
    Null,
}

/// Columns to set in one guarded update. Only the setters called are written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AttemptChanges {
    sets: Vec<(&'static str, Value)>,
}

fn opt_text(value: Option<String>) -> Value {
    value.map_or(Value::Null, Value::Text)
}

impl AttemptChanges {
    pub fn new() -> Self {
        Self::default()
    }

    fn set(mut self, column: &'static str, value: Value) -> Self {
        self.sets.retain(|(c, _)| *c != column);
        self.sets.push((column, value));
        self
    }

    pub fn state(self, state: AttemptState) -> Self {
        self.set("state", Value::Text(state.as_str().to_owned()))
    }

    pub fn worker_version(self, version: Option<String>) -> Self {
        self.set("worker_version", opt_text(version))
    }

    pub fn started_ms(self, at: i64) -> Self {
        self.set("started_ms", Value::Int(at))
    }

    pub fn finished_ms(self, at: i64) -> Self {
        self.set("finished_ms", Value::Int(at))
    }

    /// The captured diff's hash and totals.
    pub fn diff(self, sha256: String, files: u32, additions: u32, deletions: u32) -> Self {
        self.set("diff_sha256", Value::Text(sha256))
            .set("files_changed", Value::Int(i64::from(files)))
            .set("additions", Value::Int(i64::from(additions)))
            .set("deletions", Value::Int(i64::from(deletions)))
    }

    /// The tree object of the captured change.
    pub fn tree(self, tree: String) -> Self {
        self.set("diff_tree", Value::Text(tree))
    }

    /// Every gate's result (JSON) and whether all passed.
    pub fn gates(self, passed: bool, gates_json: String) -> Self {
        self.set("gates_passed", Value::Int(i64::from(passed)))
            .set("gates_json", Value::Text(gates_json))
    }

    /// The confinement report (JSON).
    pub fn confinement(self, json: String) -> Self {
        self.set("confinement_json", Value::Text(json))
    }

    pub fn verification(self, json: String) -> Self {
        self.set("verification_json", Value::Text(json))
    }

    pub fn usage(self, json: String, cost_usd: Option<f64>) -> Self {
        self.set("usage_json", Value::Text(json))
            .set("cost_usd", cost_usd.map_or(Value::Null, Value::Real))
    }

    pub fn error(self, code: &str, message: &str) -> Self {
        self.set("error_code", Value::Text(code.to_owned()))
            .set("error_message", Value::Text(message.to_owned()))
    }

    pub fn clear_error(self) -> Self {
        self.set("error_code", Value::Null)
            .set("error_message", Value::Null)
    }

    pub fn decision(self, json: String) -> Self {
        self.set("decision_json", Value::Text(json))
    }

    pub fn integration(self, json: String) -> Self {
        self.set("integration_json", Value::Text(json))
    }

    pub fn commit(self, commit: String) -> Self {
        self.set("commit_id", Value::Text(commit))
    }

    /// Takes (or renews) the lease.
    pub fn owner(self, pid: u32, token: &str, heartbeat_ms: i64) -> Self {
        self.set("owner_pid", Value::Int(i64::from(pid)))
            .set("owner_token", Value::Text(token.to_owned()))
            .set("heartbeat_ms", Value::Int(heartbeat_ms))
    }

    /// The running worker's process group (`None`: it has ended).
    pub fn worker_pgid(self, pgid: Option<u32>) -> Self {
        self.set(
            "worker_pgid",
            pgid.map_or(Value::Null, |p| Value::Int(i64::from(p))),
        )
    }

    /// Forgets a cancel another process asked for (a recovered attempt starts afresh).
    pub fn clear_cancel_request(self) -> Self {
        self.set("cancel_requested_ms", Value::Null)
    }

    /// Gives the lease up.
    pub fn release(self) -> Self {
        self.set("owner_pid", Value::Null)
            .set("owner_token", Value::Null)
            .set("heartbeat_ms", Value::Null)
    }
}

/// An artifact file of an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRecord {
    pub attempt_id: String,
    /// `diff.json`, `worker-output.log`, `verification.json`.
    pub name: String,
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub created_ms: i64,
}

/// A compare group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareRow {
    pub id: String,
    pub task: String,
    pub repo: String,
    pub created_ms: i64,
}

pub(crate) const LIVE: &str = "('queued', 'preparing', 'running', 'verifying')";

fn u32_col(row: &SqliteRow, column: &str) -> Result<Option<u32>, StoreError> {
    let value: Option<i64> = row.try_get(column)?;
    Ok(value.and_then(|v| u32::try_from(v).ok()))
}

fn attempt_row(row: &SqliteRow) -> Result<AttemptRow, StoreError> {
    let state: String = row.try_get("state")?;
    let state = AttemptState::parse(&state).ok_or_else(|| StoreError::Corrupt {
        table: "attempts",
        detail: format!("unknown state {state:?}"),
    })?;
    let gates_passed: Option<i64> = row.try_get("gates_passed")?;
    Ok(AttemptRow {
        id: row.try_get("id")?,
        state,
        worker: row.try_get("worker")?,
        worker_version: row.try_get("worker_version")?,
        task: row.try_get("task")?,
        prompt: row.try_get("prompt")?,
        repo: row.try_get("repo")?,
        base: row.try_get("base")?,
        target_branch: row.try_get("target_branch")?,
        parent: row.try_get("parent")?,
        compare_id: row.try_get("compare_id")?,
        launcher: row.try_get("launcher")?,
        worktree_id: row.try_get("worktree_id")?,
        request_json: row.try_get("request_json")?,
        verify_json: row.try_get("verify_json")?,
        created_ms: row.try_get("created_ms")?,
        updated_ms: row.try_get("updated_ms")?,
        started_ms: row.try_get("started_ms")?,
        finished_ms: row.try_get("finished_ms")?,
        diff_sha256: row.try_get("diff_sha256")?,
        diff_tree: row.try_get("diff_tree")?,
        files_changed: u32_col(row, "files_changed")?,
        additions: u32_col(row, "additions")?,
        deletions: u32_col(row, "deletions")?,
        gates_passed: gates_passed.map(|v| v != 0),
        gates_json: row.try_get("gates_json")?,
        verification_json: row.try_get("verification_json")?,
        usage_json: row.try_get("usage_json")?,
        cost_usd: row.try_get("cost_usd")?,
        error_code: row.try_get("error_code")?,
        error_message: row.try_get("error_message")?,
        decision_json: row.try_get("decision_json")?,
        integration_json: row.try_get("integration_json")?,
        commit_id: row.try_get("commit_id")?,
        owner_pid: u32_col(row, "owner_pid")?,
        owner_token: row.try_get("owner_token")?,
        heartbeat_ms: row.try_get("heartbeat_ms")?,
        worker_pgid: u32_col(row, "worker_pgid")?,
        cancel_requested_ms: row.try_get("cancel_requested_ms")?,
        confinement_json: row.try_get("confinement_json")?,
    })
}

impl Store {
    /// Records a new attempt in state `queued`, leased by `attempt.owner_token`.
    pub async fn insert_attempt(&self, attempt: &NewAttempt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO attempts (id, state, worker, task, prompt, repo, base, target_branch,
                 parent, compare_id, launcher, worktree_id, request_json, verify_json,
                 created_ms, updated_ms, owner_pid, owner_token, heartbeat_ms)
             VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&attempt.id)
        .bind(&attempt.worker)
        .bind(&attempt.task)
        .bind(&attempt.prompt)
        .bind(&attempt.repo)
        .bind(&attempt.base)
        .bind(&attempt.target_branch)
        .bind(&attempt.parent)
        .bind(&attempt.compare_id)
        .bind(&attempt.launcher)
        .bind(&attempt.worktree_id)
        .bind(&attempt.request_json)
        .bind(&attempt.verify_json)
        .bind(attempt.created_ms)
        .bind(attempt.created_ms)
        .bind(i64::from(attempt.owner_pid))
        .bind(&attempt.owner_token)
        .bind(attempt.created_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// One attempt.
    pub async fn attempt(&self, id: &str) -> Result<Option<AttemptRow>, StoreError> {
        sqlx::query("SELECT * FROM attempts WHERE id = ?")
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(attempt_row)
            .transpose()
    }

    /// Every attempt, newest first.
    pub async fn attempts(&self) -> Result<Vec<AttemptRow>, StoreError> {
        let rows = sqlx::query("SELECT * FROM attempts ORDER BY created_ms DESC, id DESC")
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(attempt_row).collect()
    }

    /// Attempts that are not a run's node tries (started on their own), newest first.
    pub async fn standalone_attempts(&self) -> Result<Vec<AttemptRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT * FROM attempts WHERE run_id IS NULL ORDER BY created_ms DESC, id DESC",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(attempt_row).collect()
    }

    /// Every launcher that started a run or an attempt of its own (not a run's node), once
    /// each, sorted: who has used this profile (`app`, `cli`, agents' names).
    pub async fn launchers(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar::<_, String>(
            "SELECT launcher FROM runs UNION SELECT launcher FROM attempts WHERE run_id IS NULL \
             ORDER BY 1",
        )
        .fetch_all(self.pool())
        .await?)
    }

    /// The attempts of a compare group, oldest first.
    pub async fn attempts_in_compare(&self, compare: &str) -> Result<Vec<AttemptRow>, StoreError> {
        let rows =
            sqlx::query("SELECT * FROM attempts WHERE compare_id = ? ORDER BY created_ms, id")
                .bind(compare)
                .fetch_all(self.pool())
                .await?;
        rows.iter().map(attempt_row).collect()
    }

    /// Attempts in a live state (queued, preparing, running, verifying).
    pub async fn live_attempts(&self) -> Result<Vec<AttemptRow>, StoreError> {
        let rows = sqlx::query(&format!("SELECT * FROM attempts WHERE state IN {LIVE}"))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(attempt_row).collect()
    }

    /// Every attempt of the repository at `repo` (every repository when `None`) with its
    /// worktree, state and when it ended, by repository: what the worktree sweep weighs.
    pub async fn attempt_worktrees(
        &self,
        repo: Option<&str>,
    ) -> Result<Vec<WorktreeRow>, StoreError> {
        let rows: Vec<(String, String, String, String, Option<i64>, i64)> = sqlx::query_as(
            "SELECT id, repo, worktree_id, state, finished_ms, updated_ms FROM attempts
             WHERE ?1 IS NULL OR repo = ?1 ORDER BY repo, created_ms, id",
        )
        .bind(repo)
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(id, repo, worktree_id, state, finished, updated)| {
                let state = AttemptState::parse(&state).ok_or_else(|| StoreError::Corrupt {
                    table: "attempts",
                    detail: format!("unknown state {state:?}"),
                })?;
                Ok(WorktreeRow {
                    id,
                    repo,
                    worktree_id,
                    state,
                    ended_ms: finished.unwrap_or(updated),
                })
            })
            .collect()
    }

    /// Applies `changes` (and `updated_ms = now_ms`) if the attempt is in `guard.state` with
    /// the lease `guard.owner`. `false` when it was not: someone else moved it first.
    pub async fn update_attempt(
        &self,
        id: &str,
        guard: Guard<'_>,
        now_ms: i64,
        changes: &AttemptChanges,
    ) -> Result<bool, StoreError> {
        update_attempt_on(self.pool(), id, guard, now_ms, changes).await
    }

    /// [`Store::update_attempt`] and, when it applied, the attempt event `body_json` appended
    /// in the same transaction; returns the event's number (`None`: nothing changed).
    pub async fn update_attempt_logged(
        &self,
        id: &str,
        guard: Guard<'_>,
        now_ms: i64,
        changes: &AttemptChanges,
        body_json: &str,
    ) -> Result<Option<u32>, StoreError> {
        let mut tx = self.begin_immediate().await?;
        if !update_attempt_on(&mut *tx, id, guard, now_ms, changes).await? {
            return Ok(None);
        }
        let seq = journal::append_on(&mut *tx, Journal::Attempt, id, now_ms, body_json).await?;
        tx.commit().await?;
        Ok(Some(seq))
    }

    /// Records (or replaces) an artifact.
    pub async fn put_artifact(&self, artifact: &ArtifactRecord) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO artifacts (attempt_id, name, path, sha256, bytes, created_ms)
             VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT(attempt_id, name) DO UPDATE SET path = excluded.path,
                 sha256 = excluded.sha256, bytes = excluded.bytes,
                 created_ms = excluded.created_ms",
        )
        .bind(&artifact.attempt_id)
        .bind(&artifact.name)
        .bind(&artifact.path)
        .bind(&artifact.sha256)
        .bind(i64::try_from(artifact.bytes).unwrap_or(i64::MAX))
        .bind(artifact.created_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The artifacts of an attempt, by name.
    pub async fn artifacts(&self, id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
        let rows: Vec<(String, String, String, String, i64, i64)> = sqlx::query_as(
            "SELECT attempt_id, name, path, sha256, bytes, created_ms FROM artifacts
             WHERE attempt_id = ? ORDER BY name",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(attempt_id, name, path, sha256, bytes, created_ms)| ArtifactRecord {
                    attempt_id,
                    name,
                    path,
                    sha256,
                    bytes: u64::try_from(bytes).unwrap_or(0),
                    created_ms,
                },
            )
            .collect())
    }

    /// Records a compare group.
    pub async fn insert_compare(&self, compare: &CompareRow) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO compares (id, task, repo, created_ms) VALUES (?, ?, ?, ?)")
            .bind(&compare.id)
            .bind(&compare.task)
            .bind(&compare.repo)
            .bind(compare.created_ms)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// One compare group.
    pub async fn compare(&self, id: &str) -> Result<Option<CompareRow>, StoreError> {
        let row: Option<(String, String, String, i64)> =
            sqlx::query_as("SELECT id, task, repo, created_ms FROM compares WHERE id = ?")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.map(|(id, task, repo, created_ms)| CompareRow {
            id,
            task,
            repo,
            created_ms,
        }))
    }
}

async fn update_attempt_on<'e, E>(
    executor: E,
    id: &str,
    guard: Guard<'_>,
    now_ms: i64,
    changes: &AttemptChanges,
) -> Result<bool, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Sqlite>,
{
    let mut sql = String::from("UPDATE attempts SET updated_ms = ?");
    for (column, _) in &changes.sets {
        sql.push_str(", ");
        sql.push_str(column);
        sql.push_str(" = ?");
    }
    sql.push_str(" WHERE id = ? AND state = ? AND owner_token IS ?");
    let mut query = sqlx::query(&sql).bind(now_ms);
    for (_, value) in &changes.sets {
        query = match value {
            Value::Text(text) => query.bind(text.clone()),
            Value::Int(int) => query.bind(*int),
            Value::Real(real) => query.bind(*real),
            Value::Null => query.bind(None::<String>),
        };
    }
    let result = query
        .bind(id)
        .bind(guard.state.as_str())
        .bind(guard.owner)
        .execute(executor)
        .await?;
    Ok(result.rows_affected() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_attempt(id: &str, token: &str) -> NewAttempt {
        NewAttempt {
            id: id.into(),
            worker: "exec:true".into(),
            task: "fix".into(),
            prompt: "fix".into(),
            repo: "/r".into(),
            base: "abc".into(),
            target_branch: Some("main".into()),
            parent: None,
            compare_id: None,
            launcher: "cli".into(),
            worktree_id: id.into(),
            request_json: "{}".into(),
            verify_json: "[]".into(),
            created_ms: 1,
            owner_pid: 42,
            owner_token: token.into(),
        }
    }

    #[tokio::test]
    async fn only_the_lease_holder_in_the_expected_state_advances() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db")).await.expect("open");
        store
            .insert_attempt(&new_attempt("a1", "t1"))
            .await
            .expect("insert");
        let to_preparing = AttemptChanges::new().state(AttemptState::Preparing);
        let stranger = Guard {
            state: AttemptState::Queued,
            owner: Some("t2"),
        };
        assert!(!store
            .update_attempt("a1", stranger, 2, &to_preparing)
            .await
            .expect("update"));
        let owner = Guard {
            state: AttemptState::Queued,
            owner: Some("t1"),
        };
        assert!(store
            .update_attempt("a1", owner, 2, &to_preparing)
            .await
            .expect("update"));
        // The same change again: the state is no longer queued.
        assert!(!store
            .update_attempt("a1", owner, 3, &to_preparing)
            .await
            .expect("update"));
        let released = AttemptChanges::new()
            .state(AttemptState::Failed)
            .error("workerFailed", "boom")
            .release();
        let guard = Guard {
            state: AttemptState::Preparing,
            owner: Some("t1"),
        };
        assert!(store
            .update_attempt("a1", guard, 4, &released)
            .await
            .expect("update"));
        let row = store.attempt("a1").await.expect("read").expect("row");
        assert_eq!(row.state, AttemptState::Failed);
        assert_eq!(row.owner_token, None);
        assert_eq!(row.error_code.as_deref(), Some("workerFailed"));
        assert_eq!(row.updated_ms, 4);
        let free = Guard {
            state: AttemptState::Failed,
            owner: None,
        };
        assert!(store
            .update_attempt("a1", free, 5, &AttemptChanges::new())
            .await
            .expect("free guard matches a released lease"));
    }

    #[tokio::test]
    async fn events_are_numbered_per_attempt_without_gaps() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db")).await.expect("open");
        for id in ["a1", "a2"] {
            store
                .insert_attempt(&new_attempt(id, "t"))
                .await
                .expect("insert");
        }
        let mut seqs = Vec::new();
        for n in 0..3 {
            seqs.push(
                store
                    .append_event(Journal::Attempt, "a1", n, "{}")
                    .await
                    .expect("append"),
            );
        }
        assert_eq!(seqs, [1, 2, 3]);
        assert_eq!(
            store
                .append_event(Journal::Attempt, "a2", 0, "{}")
                .await
                .expect("append"),
            1
        );
        let after = store
            .events(Journal::Attempt, "a1", 1, 10)
            .await
            .expect("read");
        assert_eq!(after.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
        let rows = store.attempt_worktrees(Some("/r")).await.expect("rows");
        assert_eq!(
            rows.iter()
                .map(|r| r.worktree_id.as_str())
                .collect::<Vec<_>>(),
            ["a1", "a2"]
        );
        assert!(rows
            .iter()
            .all(|r| r.state == AttemptState::Queued && r.ended_ms == 1));
        assert!(store
            .attempt_worktrees(Some("/elsewhere"))
            .await
            .expect("rows")
            .is_empty());
    }

    #[tokio::test]
    async fn a_cancel_request_reaches_only_a_live_attempt_and_its_owner_sees_it() {
        use crate::lease::Leased;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db")).await.expect("open");
        store
            .insert_attempt(&new_attempt("a1", "t1"))
            .await
            .expect("insert");
        assert_eq!(
            store
                .renew_lease(Leased::Attempt, "a1", "t1", 5)
                .await
                .expect("poll"),
            Some(None)
        );
        assert_eq!(
            store
                .renew_lease(Leased::Attempt, "a1", "t2", 5)
                .await
                .expect("poll"),
            None,
            "not this token's lease"
        );
        assert!(store
            .request_cancel(Leased::Attempt, "a1", 10)
            .await
            .expect("ask"));
        assert!(store
            .request_cancel(Leased::Attempt, "a1", 20)
            .await
            .expect("ask"));
        assert_eq!(
            store
                .renew_lease(Leased::Attempt, "a1", "t1", 5)
                .await
                .expect("poll"),
            Some(Some(10)),
            "the first request's time is kept"
        );
        let ended = AttemptChanges::new()
            .state(AttemptState::Canceled)
            .release()
            .clear_cancel_request();
        let guard = Guard {
            state: AttemptState::Queued,
            owner: Some("t1"),
        };
        assert!(store
            .update_attempt("a1", guard, 30, &ended)
            .await
            .expect("end"));
        let row = store.attempt("a1").await.expect("read").expect("row");
        assert_eq!(row.cancel_requested_ms, None);
        assert!(
            !store
                .request_cancel(Leased::Attempt, "a1", 40)
                .await
                .expect("ask"),
            "an attempt that ended is not asked"
        );
        assert_eq!(
            store
                .renew_lease(Leased::Attempt, "a1", "t1", 5)
                .await
                .expect("poll"),
            None
        );
    }
}
