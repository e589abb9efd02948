//! Runs, their nodes, their calls (the ledger's entries) and their numbered event log.
//!
//! A live run carries an owner lease (`owner_pid`, `owner_token`, `heartbeat_ms`). A run
//! changes only through [`Store::update_run`], a guarded `UPDATE … WHERE id = ? AND state = ?
//! AND owner_token IS ?`; its nodes and calls change only while the caller holds the run's
//! lease (see [`nodes`] and [`calls`]). So two processes on one database never both advance
//! one run. Event numbers are assigned by the inserting statement, gap-free per run.
//! Transactions that write begin `IMMEDIATE` (`Store::begin_immediate`, which is
//! cancel-safe): a deferred one that reads first would fail at once (not wait) when another
//! connection wrote in between.

pub mod calls;
pub mod nodes;
mod sets;

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use switchyard_core::run::{RunMode, RunReason, RunState};

use self::nodes::{insert_nodes, NewNode};
use self::sets::{opt_int, opt_text, parsed, Sets, Value};
use crate::journal::{self, Journal};
use crate::{Store, StoreError};

/// A new run as first recorded (leased by its creator), with its nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    pub id: String,
    pub task: String,
    pub mode: RunMode,
    /// `queued`, or `paused` for a run that stops after planning.
    pub state: RunState,
    pub launcher: String,
    pub request_json: String,
    pub plan_json: Option<String>,
    pub ladder_json: Option<String>,
    pub limits_json: String,
    pub max_usd: f64,
    pub baseline_model: Option<String>,
    pub repo: Option<String>,
    pub base: Option<String>,
    pub created_ms: i64,
    /// `None` for a paused run (nobody executes it until it is resumed).
    pub owner: Option<(u32, String)>,
}

/// One stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub id: String,
    pub task: String,
    pub mode: RunMode,
    pub state: RunState,
    pub reason: Option<RunReason>,
    pub launcher: String,
    pub request_json: String,
    pub plan_json: Option<String>,
    pub ladder_json: Option<String>,
    pub limits_json: String,
    pub max_usd: f64,
    pub spent_usd: f64,
    pub reserved_usd: f64,
    pub baseline_model: Option<String>,
    pub baseline_usd: Option<f64>,
    pub repo: Option<String>,
    pub base: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub owner_pid: Option<u32>,
    pub owner_token: Option<String>,
    pub heartbeat_ms: Option<i64>,
    pub cancel_requested_ms: Option<i64>,
}

/// What an update expects to find: the state the caller saw and the lease it holds (`None`:
/// the run must be free).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunGuard<'a> {
    pub state: RunState,
    pub owner: Option<&'a str>,
}

/// Columns to set in one guarded run update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunChanges {
    sets: Sets,
}

impl RunChanges {
    pub fn new() -> Self {
        Self::default()
    }

    fn with(mut self, column: &'static str, value: Value) -> Self {
        self.sets.set(column, value);
        self
    }

    pub fn state(self, state: RunState) -> Self {
        self.with("state", Value::Text(state.as_str().to_owned()))
    }

    pub fn reason(self, reason: Option<RunReason>) -> Self {
        self.with("reason", opt_text(reason.map(|r| r.as_str().to_owned())))
    }

    pub fn started_ms(self, at: i64) -> Self {
        self.with("started_ms", Value::Int(at))
    }

    pub fn finished_ms(self, at: Option<i64>) -> Self {
        self.with("finished_ms", opt_int(at))
    }

    pub fn error(self, code: &str, message: &str) -> Self {
        self.with("error_code", Value::Text(code.to_owned()))
            .with("error_message", Value::Text(message.to_owned()))
    }

    pub fn clear_error(self) -> Self {
        self.with("error_code", Value::Null)
            .with("error_message", Value::Null)
    }

    pub fn baseline(self, model: Option<String>, usd: Option<f64>) -> Self {
        self.with("baseline_model", opt_text(model))
            .with("baseline_usd", usd.map_or(Value::Null, Value::Real))
    }

    /// Takes (or renews) the lease.
    pub fn owner(self, pid: u32, token: &str, heartbeat_ms: i64) -> Self {
        self.with("owner_pid", Value::Int(i64::from(pid)))
            .with("owner_token", Value::Text(token.to_owned()))
            .with("heartbeat_ms", Value::Int(heartbeat_ms))
    }

    /// Gives the lease up.
    pub fn release(self) -> Self {
        self.with("owner_pid", Value::Null)
            .with("owner_token", Value::Null)
            .with("heartbeat_ms", Value::Null)
    }

    /// Replaces the stored request (a pause point that has been passed is cleared from it).
    pub fn request(self, json: String) -> Self {
        self.with("request_json", Value::Text(json))
    }

    /// Forgets an earlier cancel request (a recovered run starts without one).
    pub fn clear_cancel_request(self) -> Self {
        self.with("cancel_requested_ms", Value::Null)
    }
}

/// Which runs to list (every field set narrows it), newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunQuery {
    pub state: Option<RunState>,
    pub mode: Option<RunMode>,
    pub launcher: Option<String>,
    /// Found in the task, case-insensitively (ASCII).
    pub text: Option<String>,
    pub limit: u32,
}

/// One run's spend for the totals: its cost, its baseline, and its calls' cost per model.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpendRow {
    pub id: String,
    pub mode: RunMode,
    pub created_ms: i64,
    pub spent_usd: f64,
    pub baseline_usd: Option<f64>,
    pub by_model: Vec<(String, f64)>,
}

pub(crate) const LIVE: &str = "('queued', 'planning', 'running')";

async fn update_run_on<'e, E>(
    executor: E,
    id: &str,
    guard: RunGuard<'_>,
    now_ms: i64,
    changes: &RunChanges,
) -> Result<bool, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Sqlite>,
{
    let sql = format!(
        "UPDATE runs SET updated_ms = ?{} WHERE id = ? AND state = ? AND owner_token IS ?",
        changes.sets.sql()
    );
    let query = changes.sets.bind(sqlx::query(&sql).bind(now_ms));
    let result = query
        .bind(id)
        .bind(guard.state.as_str())
        .bind(guard.owner)
        .execute(executor)
        .await?;
    Ok(result.rows_affected() == 1)
}

fn run_row(row: &SqliteRow) -> Result<RunRow, StoreError> {
    let reason: Option<String> = row.try_get("reason")?;
    Ok(RunRow {
        id: row.try_get("id")?,
        task: row.try_get("task")?,
        mode: parsed(row, "mode", "runs", RunMode::parse)?,
        state: parsed(row, "state", "runs", RunState::parse)?,
        reason: reason.as_deref().and_then(RunReason::parse),
        launcher: row.try_get("launcher")?,
        request_json: row.try_get("request_json")?,
        plan_json: row.try_get("plan_json")?,
        ladder_json: row.try_get("ladder_json")?,
        limits_json: row.try_get("limits_json")?,
        max_usd: row.try_get("max_usd")?,
        spent_usd: row.try_get("spent_usd")?,
        reserved_usd: row.try_get("reserved_usd")?,
        baseline_model: row.try_get("baseline_model")?,
        baseline_usd: row.try_get("baseline_usd")?,
        repo: row.try_get("repo")?,
        base: row.try_get("base")?,
        error_code: row.try_get("error_code")?,
        error_message: row.try_get("error_message")?,
        created_ms: row.try_get("created_ms")?,
        updated_ms: row.try_get("updated_ms")?,
        started_ms: row.try_get("started_ms")?,
        finished_ms: row.try_get("finished_ms")?,
        owner_pid: sets::opt_u32_of(row, "owner_pid")?,
        owner_token: row.try_get("owner_token")?,
        heartbeat_ms: row.try_get("heartbeat_ms")?,
        cancel_requested_ms: row.try_get("cancel_requested_ms")?,
    })
}

/// `text` with LIKE's wildcards escaped (`\` is the escape character).
fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Store {
    /// Records a new run and its nodes (all `pending`) in one transaction.
    pub async fn insert_run(&self, run: &NewRun, nodes: &[NewNode]) -> Result<(), StoreError> {
        let mut tx = self.begin_immediate().await?;
        let (pid, token) = match &run.owner {
            Some((pid, token)) => (Some(i64::from(*pid)), Some(token.clone())),
            None => (None, None),
        };
        sqlx::query(
            "INSERT INTO runs (id, task, mode, state, launcher, request_json, plan_json,
                 ladder_json, limits_json, max_usd, baseline_model, repo, base, created_ms,
                 updated_ms, owner_pid, owner_token, heartbeat_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&run.id)
        .bind(&run.task)
        .bind(run.mode.as_str())
        .bind(run.state.as_str())
        .bind(&run.launcher)
        .bind(&run.request_json)
        .bind(&run.plan_json)
        .bind(&run.ladder_json)
        .bind(&run.limits_json)
        .bind(run.max_usd)
        .bind(&run.baseline_model)
        .bind(&run.repo)
        .bind(&run.base)
        .bind(run.created_ms)
        .bind(run.created_ms)
        .bind(pid)
        .bind(token)
        .bind(pid.map(|_| run.created_ms))
        .execute(&mut *tx)
        .await?;
        insert_nodes(&mut tx, &run.id, nodes).await?;
        tx.commit().await?;
        Ok(())
    }

    /// One run.
    pub async fn run(&self, id: &str) -> Result<Option<RunRow>, StoreError> {
        sqlx::query("SELECT * FROM runs WHERE id = ?")
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(run_row)
            .transpose()
    }

    /// Runs matching `query`, newest first, at most `query.limit`.
    pub async fn runs(&self, query: &RunQuery) -> Result<Vec<RunRow>, StoreError> {
        let mut sql = String::from("SELECT * FROM runs WHERE 1 = 1");
        if query.state.is_some() {
            sql.push_str(" AND state = ?");
        }
        if query.mode.is_some() {
            sql.push_str(" AND mode = ?");
        }
        if query.launcher.is_some() {
            sql.push_str(" AND launcher = ?");
        }
        if query.text.is_some() {
            sql.push_str(" AND task LIKE ? ESCAPE '\\'");
        }
        sql.push_str(" ORDER BY created_ms DESC, id DESC LIMIT ?");
        let mut q = sqlx::query(&sql);
        if let Some(state) = query.state {
            q = q.bind(state.as_str());
        }
        if let Some(mode) = query.mode {
            q = q.bind(mode.as_str());
        }
        if let Some(launcher) = &query.launcher {
            q = q.bind(launcher.clone());
        }
        if let Some(text) = &query.text {
            q = q.bind(format!("%{}%", like_escaped(text)));
        }
        let rows = q
            .bind(i64::from(query.limit))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(run_row).collect()
    }

    /// Every code run's id, state and when it last changed (its end once final): what the
    /// attempts sweep needs to keep run branches.
    pub async fn code_run_ages(&self) -> Result<Vec<(String, RunState, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, state, COALESCE(finished_ms, updated_ms) AS at_ms FROM runs
             WHERE repo IS NOT NULL",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get("id")?,
                    parsed(row, "state", "runs", RunState::parse)?,
                    row.try_get("at_ms")?,
                ))
            })
            .collect()
    }

    /// Runs in a live state (queued, planning, running).
    pub async fn live_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT * FROM runs WHERE state IN {LIVE} ORDER BY created_ms, id"
        ))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(run_row).collect()
    }

    /// Applies `changes` (and `updated_ms = now_ms`) if the run is in `guard.state` with the
    /// lease `guard.owner`. `false` when it was not: someone else moved it first.
    pub async fn update_run(
        &self,
        id: &str,
        guard: RunGuard<'_>,
        now_ms: i64,
        changes: &RunChanges,
    ) -> Result<bool, StoreError> {
        update_run_on(self.pool(), id, guard, now_ms, changes).await
    }

    /// [`Store::update_run`] and, when it applied, the run event `body_json` appended in the
    /// same transaction; returns the event's number (`None`: nothing changed).
    pub async fn update_run_logged(
        &self,
        id: &str,
        guard: RunGuard<'_>,
        now_ms: i64,
        changes: &RunChanges,
        body_json: &str,
    ) -> Result<Option<u32>, StoreError> {
        let mut tx = self.begin_immediate().await?;
        if !update_run_on(&mut *tx, id, guard, now_ms, changes).await? {
            return Ok(None);
        }
        let seq = journal::append_on(&mut *tx, Journal::Run, id, now_ms, body_json).await?;
        tx.commit().await?;
        Ok(Some(seq))
    }

    /// Every run's spend since `since_ms` (inclusive), oldest first.
    pub async fn run_spend(&self, since_ms: i64) -> Result<Vec<RunSpendRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT r.id, r.mode, r.created_ms, r.spent_usd, r.baseline_usd, c.model,
                    SUM(c.cost_usd) AS model_cost
             FROM runs r LEFT JOIN run_calls c ON c.run_id = r.id
             WHERE r.created_ms >= ?
             GROUP BY r.id, c.model
             ORDER BY r.created_ms, r.id, c.model",
        )
        .bind(since_ms)
        .fetch_all(self.pool())
        .await?;
        let mut out: Vec<RunSpendRow> = Vec::new();
        for row in &rows {
            let id: String = row.try_get("id")?;
            if out.last().is_none_or(|last| last.id != id) {
                out.push(RunSpendRow {
                    id: id.clone(),
                    mode: parsed(row, "mode", "runs", RunMode::parse)?,
                    created_ms: row.try_get("created_ms")?,
                    spent_usd: row.try_get("spent_usd")?,
                    baseline_usd: row.try_get("baseline_usd")?,
                    by_model: Vec::new(),
                });
            }
            let model: Option<String> = row.try_get("model")?;
            let cost: Option<f64> = row.try_get("model_cost")?;
            if let (Some(model), Some(cost), Some(last)) = (model, cost, out.last_mut()) {
                last.by_model.push((model, cost));
            }
        }
        Ok(out)
    }
}

impl Store {
    /// Marks attempt `attempt_id` as a try of node `node_id` of run `run_id`.
    pub async fn link_attempt_to_run(
        &self,
        attempt_id: &str,
        run_id: &str,
        node_id: &str,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query("UPDATE attempts SET run_id = ?, node_id = ? WHERE id = ?")
            .bind(run_id)
            .bind(node_id)
            .bind(attempt_id)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() == 1)
    }

    /// The run attempt `attempt_id` is a try of, if any.
    pub async fn run_of_attempt(&self, attempt_id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT run_id FROM attempts WHERE id = ?")
                .bind(attempt_id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.and_then(|(run,)| run))
    }

    /// The attempts of a run as `(attempt id, node id)`, oldest first.
    pub async fn run_attempts(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, node_id FROM attempts WHERE run_id = ? ORDER BY created_ms, id",
        )
        .bind(run_id)
        .fetch_all(self.pool())
        .await?)
    }
}

#[cfg(test)]
mod tests;
