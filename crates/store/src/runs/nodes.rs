//! A run's nodes. A node changes only through [`Store::update_node`], guarded by the node's
//! state and the run's lease, so only the run's owner advances its nodes.

use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite, Transaction};
use switchyard_core::catalog::card::Category;
use switchyard_core::run::{Join, NodeKind, NodeRole, NodeState};

use super::sets::{opt_int, opt_text, opt_u32_of, parsed, u32_of, Sets, Value};
use crate::journal::{self, Journal};
use crate::routing::RatingSource;
use crate::{Store, StoreError};

/// A node as first recorded (`pending`).
#[derive(Debug, Clone, PartialEq)]
pub struct NewNode {
    pub node_id: String,
    pub task: String,
    pub kind: NodeKind,
    pub role: NodeRole,
    pub model: Option<String>,
    pub worker: Option<String>,
    pub depends_on: Vec<String>,
    pub join: Join,
    pub context_from: Vec<String>,
}

/// One stored node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRow {
    pub run_id: String,
    pub node_id: String,
    pub position: u32,
    pub task: String,
    pub kind: NodeKind,
    pub role: NodeRole,
    pub state: NodeState,
    pub model: Option<String>,
    pub worker: Option<String>,
    pub depends_on: Vec<String>,
    pub join: Join,
    pub context_from: Vec<String>,
    pub rung: Option<u32>,
    pub trace_json: Option<String>,
    pub output_path: Option<String>,
    pub output_sha256: Option<String>,
    pub output_chars: Option<u32>,
    pub used_inputs_json: Option<String>,
    pub attempt_id: Option<String>,
    pub cost_usd: f64,
    pub tokens_in: u32,
    pub tokens_out: u32,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub rating: Option<u8>,
}

/// Columns to set in one guarded node update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeChanges {
    sets: Sets,
}

impl NodeChanges {
    pub fn new() -> Self {
        Self::default()
    }

    fn with(mut self, column: &'static str, value: Value) -> Self {
        self.sets.set(column, value);
        self
    }

    pub fn state(self, state: NodeState) -> Self {
        self.with("state", Value::Text(state.as_str().to_owned()))
    }

    pub fn model(self, model: Option<String>) -> Self {
        self.with("model", opt_text(model))
    }

    pub fn worker(self, worker: Option<String>) -> Self {
        self.with("worker", opt_text(worker))
    }

    pub fn rung(self, rung: Option<u32>) -> Self {
        self.with("rung", opt_int(rung.map(i64::from)))
    }

    pub fn trace(self, json: String) -> Self {
        self.with("trace_json", Value::Text(json))
    }

    /// The stored output file, its SHA-256 and its length in characters.
    pub fn output(self, path: String, sha256: String, chars: u32) -> Self {
        self.with("output_path", Value::Text(path))
            .with("output_sha256", Value::Text(sha256))
            .with("output_chars", Value::Int(i64::from(chars)))
    }

    /// Forgets a stored output (recover found it missing or changed).
    pub fn clear_output(self) -> Self {
        self.with("output_path", Value::Null)
            .with("output_sha256", Value::Null)
            .with("output_chars", Value::Null)
    }

    pub fn used_inputs(self, json: Option<String>) -> Self {
        self.with("used_inputs_json", opt_text(json))
    }

    pub fn attempt(self, id: Option<String>) -> Self {
        self.with("attempt_id", opt_text(id))
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
}

fn json_list(text: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        table: "run_nodes",
        detail: format!("list {text:?}: {e}"),
    })
}

fn join_name(join: Join) -> &'static str {
    match join {
        Join::All => "all",
        Join::Any => "any",
    }
}

fn parse_join(text: &str) -> Option<Join> {
    match text {
        "all" => Some(Join::All),
        "any" => Some(Join::Any),
        _ => None,
    }
}

fn node_row(row: &SqliteRow) -> Result<NodeRow, StoreError> {
    let depends: String = row.try_get("depends_on_json")?;
    let context: String = row.try_get("context_from_json")?;
    let rating: Option<i64> = row.try_get("rating")?;
    Ok(NodeRow {
        run_id: row.try_get("run_id")?,
        node_id: row.try_get("node_id")?,
        position: u32_of(row, "position")?,
        task: row.try_get("task")?,
        kind: parsed(row, "kind", "run_nodes", NodeKind::parse)?,
        role: parsed(row, "role", "run_nodes", NodeRole::parse)?,
        state: parsed(row, "state", "run_nodes", NodeState::parse)?,
        model: row.try_get("model")?,
        worker: row.try_get("worker")?,
        depends_on: json_list(&depends)?,
        join: parsed(row, "join_rule", "run_nodes", parse_join)?,
        context_from: json_list(&context)?,
        rung: opt_u32_of(row, "rung")?,
        trace_json: row.try_get("trace_json")?,
        output_path: row.try_get("output_path")?,
        output_sha256: row.try_get("output_sha256")?,
        output_chars: opt_u32_of(row, "output_chars")?,
        used_inputs_json: row.try_get("used_inputs_json")?,
        attempt_id: row.try_get("attempt_id")?,
        cost_usd: row.try_get("cost_usd")?,
        tokens_in: u32_of(row, "tokens_in")?,
        tokens_out: u32_of(row, "tokens_out")?,
        started_ms: row.try_get("started_ms")?,
        finished_ms: row.try_get("finished_ms")?,
        error_code: row.try_get("error_code")?,
        error_message: row.try_get("error_message")?,
        rating: rating.and_then(|r| u8::try_from(r).ok()),
    })
}

async fn update_node_on<'e, E>(
    executor: E,
    run_id: &str,
    node_id: &str,
    state: NodeState,
    owner: Option<&str>,
    changes: &NodeChanges,
) -> Result<bool, StoreError>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    if changes.sets.sets.is_empty() {
        return Ok(false);
    }
    let assignments = changes.sets.sql();
    let sql = format!(
        "UPDATE run_nodes SET {} WHERE run_id = ? AND node_id = ? AND state = ?
           AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner_token IS ?)",
        assignments.trim_start_matches(", ")
    );
    let result = changes
        .sets
        .bind(sqlx::query(&sql))
        .bind(run_id)
        .bind(node_id)
        .bind(state.as_str())
        .bind(run_id)
        .bind(owner)
        .execute(executor)
        .await?;
    Ok(result.rows_affected() == 1)
}

/// Nodes inserted per statement: one statement per chunk rather than per node (a swarm's
/// nodes in one round trip), well under SQLite's limit of bound values.
const NODES_PER_INSERT: usize = 200;

/// Inserts `nodes` of run `run_id` as `pending`, in order.
pub(super) async fn insert_nodes(
    tx: &mut Transaction<'_, Sqlite>,
    run_id: &str,
    nodes: &[NewNode],
) -> Result<(), StoreError> {
    let json = |value: &[String]| {
        serde_json::to_string(value).map_err(|e| StoreError::Corrupt {
            table: "run_nodes",
            detail: e.to_string(),
        })
    };
    let mut rows = Vec::with_capacity(nodes.len());
    for (position, node) in nodes.iter().enumerate() {
        let position = i64::try_from(position).unwrap_or(i64::MAX);
        rows.push((
            position,
            node,
            json(&node.depends_on)?,
            json(&node.context_from)?,
        ));
    }
    for chunk in rows.chunks(NODES_PER_INSERT) {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO run_nodes (run_id, node_id, position, task, kind, role, state, model,
                 worker, depends_on_json, join_rule, context_from_json) ",
        );
        insert.push_values(chunk, |mut row, (position, node, depends, context)| {
            row.push_bind(run_id)
                .push_bind(&node.node_id)
                .push_bind(*position)
                .push_bind(&node.task)
                .push_bind(node.kind.as_str())
                .push_bind(node.role.as_str())
                .push_bind("pending")
                .push_bind(&node.model)
                .push_bind(&node.worker)
                .push_bind(depends)
                .push_bind(join_name(node.join))
                .push_bind(context);
        });
        insert.build().execute(&mut **tx).await?;
    }
    Ok(())
}

impl Store {
    /// The nodes of a run, in plan order.
    pub async fn run_nodes(&self, run_id: &str) -> Result<Vec<NodeRow>, StoreError> {
        let rows = sqlx::query("SELECT * FROM run_nodes WHERE run_id = ? ORDER BY position")
            .bind(run_id)
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(node_row).collect()
    }

    /// The nodes of `run_id` named in `ids` (those that exist), in the run's order.
    pub async fn run_nodes_named(
        &self,
        run_id: &str,
        ids: &[String],
    ) -> Result<Vec<NodeRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids = serde_json::to_string(ids).map_err(|e| StoreError::Corrupt {
            table: "run_nodes",
            detail: e.to_string(),
        })?;
        let rows = sqlx::query(
            "SELECT * FROM run_nodes WHERE run_id = ?
             AND node_id IN (SELECT value FROM json_each(?)) ORDER BY position",
        )
        .bind(run_id)
        .bind(ids)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(node_row).collect()
    }

    /// One node.
    pub async fn run_node(
        &self,
        run_id: &str,
        node_id: &str,
    ) -> Result<Option<NodeRow>, StoreError> {
        sqlx::query("SELECT * FROM run_nodes WHERE run_id = ? AND node_id = ?")
            .bind(run_id)
            .bind(node_id)
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(node_row)
            .transpose()
    }

    /// Per run: `(nodes, nodes done or approved)`.
    pub async fn run_node_counts(
        &self,
    ) -> Result<std::collections::HashMap<String, (u32, u32)>, StoreError> {
        let rows: Vec<(String, i64, i64)> = sqlx::query_as(
            "SELECT run_id, COUNT(*), SUM(state IN ('done', 'approved')) FROM run_nodes
             GROUP BY run_id",
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, total, done)| {
                (
                    id,
                    (
                        u32::try_from(total).unwrap_or(0),
                        u32::try_from(done).unwrap_or(0),
                    ),
                )
            })
            .collect())
    }

    /// Applies `changes` to the node if it is in `state` and the run's lease is `owner`
    /// (`None`: the run must be free). `false` when it was not.
    pub async fn update_node(
        &self,
        run_id: &str,
        node_id: &str,
        state: NodeState,
        owner: Option<&str>,
        changes: &NodeChanges,
    ) -> Result<bool, StoreError> {
        update_node_on(self.pool(), run_id, node_id, state, owner, changes).await
    }

    /// [`Store::update_node`] and, when it applied, the run event `body_json` appended in the
    /// same transaction; returns the event's number (`None`: nothing changed).
    #[allow(clippy::too_many_arguments)]
    pub async fn update_node_logged(
        &self,
        run_id: &str,
        node_id: &str,
        state: NodeState,
        owner: Option<&str>,
        changes: &NodeChanges,
        at_ms: i64,
        body_json: &str,
    ) -> Result<Option<u32>, StoreError> {
        let mut tx = self.begin_immediate().await?;
        if !update_node_on(&mut *tx, run_id, node_id, state, owner, changes).await? {
            return Ok(None);
        }
        let seq = journal::append_on(&mut *tx, Journal::Run, run_id, at_ms, body_json).await?;
        tx.commit().await?;
        Ok(Some(seq))
    }

    /// Rates a node's output (1–5): stores it on the node and as a `run` rating of `model`
    /// in `category`, replacing an earlier rating of the same node. `false` (nothing
    /// changed) when there is no such node.
    pub async fn rate_run_node(
        &self,
        run_id: &str,
        node_id: &str,
        model: &str,
        category: Category,
        rating: u8,
        now: &str,
    ) -> Result<bool, StoreError> {
        let key = format!("{run_id}/{node_id}");
        let mut tx = self.begin_immediate().await?;
        let updated =
            sqlx::query("UPDATE run_nodes SET rating = ? WHERE run_id = ? AND node_id = ?")
                .bind(i64::from(rating))
                .bind(run_id)
                .bind(node_id)
                .execute(&mut *tx)
                .await?;
        if updated.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM ratings WHERE run_node = ?")
            .bind(&key)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO ratings (model_id, category, rating, source, pick_id, created_at, run_node)
             VALUES (?, ?, ?, ?, NULL, ?, ?)",
        )
        .bind(model)
        .bind(category.id())
        .bind(i64::from(rating))
        .bind(RatingSource::Run.id())
        .bind(now)
        .bind(&key)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}
