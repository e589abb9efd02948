//! Reading runs: summaries, lists, details with every try and trace, the event log, node
//! outputs (stored artifacts, checked against their SHA-256, or the live text of a running
//! node), waiting for a run, rating a node's output, and spend totals.

use std::time::Duration;

use switchyard_core::error::ErrorCode;
use switchyard_core::routing::classify;
use switchyard_core::run::dag::{DagNode, Join};
use switchyard_core::run::savings::{baseline_cost, spend_report, SpendEntry, SpendReport};
use switchyard_core::run::{
    ContextTrace, FailureSignal, Ladder, NodeKind, NodeOutput, NodeRole, NodeTry, NodeView,
    RunDetail, RunError, RunFilter, RunLimits, RunLog, RunLogEntry, RunMode, RunOutput, RunSummary,
};
use switchyard_store::journal::Journal;
use switchyard_store::runs::calls::CallRow;
use switchyard_store::runs::nodes::NodeRow;
use switchyard_store::runs::{RunQuery, RunRow};

use super::artifacts::read_output;
use crate::catalog::{find_model, now};
use crate::events::EngineEvent;
use crate::learning::StaticPicks;
use crate::{Engine, EngineError};

/// Most runs one list returns.
pub const RUN_LIST_LIMIT: u32 = 500;
/// Most log entries one read returns; page with `after_seq`.
const LOG_PAGE: u32 = 10_000;
/// How often waiting re-reads a run executed by another process.
const WAIT_POLL: Duration = Duration::from_millis(250);

/// The stable name of an error code (its serde form), for the store.
pub(crate) fn code_name(code: ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "internal".to_owned(),
    }
}

fn parse_code(name: &str) -> ErrorCode {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .unwrap_or(ErrorCode::Internal)
}

fn error_of(code: Option<&str>, message: Option<&String>) -> Option<RunError> {
    code.map(|code| RunError {
        code: parse_code(code),
        message: message.cloned().unwrap_or_default(),
    })
}

fn summary(row: &RunRow, counts: (u32, u32)) -> RunSummary {
    RunSummary {
        id: row.id.clone(),
        task: row.task.clone(),
        mode: row.mode,
        state: row.state,
        live: row.state.is_live(),
        reason: row.reason,
        reason_text: row.reason.map(|r| r.sentence().to_owned()),
        launcher: row.launcher.clone(),
        cost_usd: row.spent_usd,
        max_usd: row.max_usd,
        savings_usd: row.baseline_usd.map(|b| b - row.spent_usd),
        created_ms: row.created_ms,
        finished_ms: row.finished_ms,
        nodes: counts.0,
        nodes_done: counts.1,
    }
}

fn node_try(call: &CallRow) -> NodeTry {
    let signal = call
        .signal_json
        .as_deref()
        .and_then(|s| serde_json::from_str::<FailureSignal>(s).ok());
    NodeTry {
        id: format!("{}#{}", call.node_id, call.n),
        n: call.n,
        purpose: call.purpose,
        model: call.model.clone(),
        worker: call.worker.clone(),
        state: call.state,
        rung: call.rung,
        reserved_usd: call.reserved_usd,
        cost_usd: call.cost_usd,
        tokens_in: call.tokens_in,
        tokens_out: call.tokens_out,
        tokens: call.tokens_in.saturating_add(call.tokens_out),
        started_ms: call.started_ms,
        finished_ms: call.finished_ms,
        error: call.error.clone(),
        signal_text: signal.as_ref().map(FailureSignal::describe),
        signal,
        attempt_id: call.attempt_id.clone(),
    }
}

/// The graph column of every node of a run (`dag::columns`).
fn columns(nodes: &[NodeRow]) -> std::collections::HashMap<String, u32> {
    let dag: Vec<DagNode> = nodes
        .iter()
        .map(|n| DagNode {
            id: n.node_id.clone(),
            depends_on: n.depends_on.clone(),
            state: n.state,
            join: Join::default(),
        })
        .collect();
    switchyard_core::run::dag::columns(&dag)
}

fn node_view(node: &NodeRow, calls: &[CallRow], column: u32) -> NodeView {
    NodeView {
        id: node.node_id.clone(),
        task: node.task.clone(),
        kind: node.kind,
        role: node.role,
        state: node.state,
        model: node.model.clone(),
        worker: node.worker.clone(),
        depends_on: node.depends_on.clone(),
        column,
        cost_usd: node.cost_usd,
        tokens_in: node.tokens_in,
        tokens_out: node.tokens_out,
        started_ms: node.started_ms,
        finished_ms: node.finished_ms,
        rung: node.rung,
        attempts: calls
            .iter()
            .filter(|c| c.node_id == node.node_id)
            .map(node_try)
            .collect(),
        trace: node
            .trace_json
            .as_deref()
            .and_then(|t| serde_json::from_str::<ContextTrace>(t).ok())
            .map(ContextTrace::with_headings)
            .unwrap_or_default(),
        output_chars: node.output_chars.unwrap_or(0),
        rating: node.rating,
        rateable: node.state.can_be_rated() && node.model.is_some(),
        error: error_of(node.error_code.as_deref(), node.error_message.as_ref()),
        used_inputs: node
            .used_inputs_json
            .as_deref()
            .and_then(|u| serde_json::from_str(u).ok()),
        attempt_id: node.attempt_id.clone(),
    }
}

impl Engine {
    /// Run `id` as lists show it. Errors: `NotFound`.
    pub async fn run_summary(&self, id: &str) -> Result<RunSummary, EngineError> {
        let row = self.run_row(id).await?;
        let nodes = self.store().run_nodes(id).await?;
        let done = nodes
            .iter()
            .filter(|n| n.state.satisfies_dependents())
            .count();
        Ok(summary(
            &row,
            (
                u32::try_from(nodes.len()).unwrap_or(u32::MAX),
                u32::try_from(done).unwrap_or(u32::MAX),
            ),
        ))
    }

    /// Runs matching `filter`, newest first (at most [`RUN_LIST_LIMIT`]).
    pub async fn list_runs(&self, filter: RunFilter) -> Result<Vec<RunSummary>, EngineError> {
        let query = RunQuery {
            state: filter.state,
            mode: filter.mode,
            launcher: filter
                .launcher
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty()),
            text: filter
                .text
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty()),
            limit: filter
                .limit
                .unwrap_or(RUN_LIST_LIMIT)
                .clamp(1, RUN_LIST_LIMIT),
        };
        let rows = self.store().runs(&query).await?;
        let counts = self.store().run_node_counts().await?;
        Ok(rows
            .iter()
            .map(|row| summary(row, counts.get(&row.id).copied().unwrap_or((0, 0))))
            .collect())
    }

    /// The tokens of every node that used any, repriced on its category's static pick (see
    /// [`RunDetail::static_usd`]).
    async fn static_cost(&self, nodes: &[NodeRow]) -> Option<f64> {
        let used: Vec<&NodeRow> = nodes
            .iter()
            .filter(|n| n.tokens_in > 0 || n.tokens_out > 0)
            .collect();
        if used.is_empty() {
            return None;
        }
        let state = self.catalog_state().await.ok()?;
        let mut picks = StaticPicks::new(Some(&state.catalog));
        used.iter().try_fold(0.0, |sum, node| {
            let pricing = picks.pricing(classify(&node.task).category)?;
            Some(
                sum + baseline_cost(
                    u64::from(node.tokens_in),
                    u64::from(node.tokens_out),
                    pricing,
                )?,
            )
        })
    }

    /// Everything the run page shows for run `id`. Errors: `NotFound`.
    pub async fn run_detail(&self, id: &str) -> Result<RunDetail, EngineError> {
        let row = self.run_row(id).await?;
        let seq = self.store().last_event(Journal::Run, id).await?;
        let nodes = self.store().run_nodes(id).await?;
        let calls = self.store().run_calls(id).await?;
        let done = nodes
            .iter()
            .filter(|n| n.state.satisfies_dependents())
            .count();
        let counts = (
            u32::try_from(nodes.len()).unwrap_or(u32::MAX),
            u32::try_from(done).unwrap_or(u32::MAX),
        );
        Ok(RunDetail {
            summary: summary(&row, counts),
            nodes: {
                let columns = columns(&nodes);
                nodes
                    .iter()
                    .map(|n| node_view(n, &calls, columns.get(&n.node_id).copied().unwrap_or(0)))
                    .collect()
            },
            ladder: row
                .ladder_json
                .as_deref()
                .and_then(|l| serde_json::from_str::<Ladder>(l).ok()),
            baseline_model: row.baseline_model.clone(),
            baseline_usd: row.baseline_usd,
            static_usd: self.static_cost(&nodes).await,
            limits: serde_json::from_str::<RunLimits>(&row.limits_json).unwrap_or_default(),
            reserved_usd: row.reserved_usd,
            repo: row.repo.clone(),
            started_ms: row.started_ms,
            error: error_of(row.error_code.as_deref(), row.error_message.as_ref()),
            seq,
        })
    }

    /// The run's log entries after `after_seq` (0: from the start), in order.
    /// Errors: `NotFound`.
    pub async fn run_log(&self, id: &str, after_seq: u32) -> Result<Vec<RunLogEntry>, EngineError> {
        self.run_row(id).await?;
        let rows = self
            .store()
            .events(Journal::Run, id, after_seq, LOG_PAGE)
            .await?;
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            let entry: RunLog = serde_json::from_str(&row.body_json).map_err(|e| {
                EngineError::Internal(format!(
                    "log entry {} of run {id} is unreadable: {e}",
                    row.seq
                ))
            })?;
            entries.push(RunLogEntry {
                seq: row.seq,
                at_ms: row.at_ms,
                entry,
            });
        }
        Ok(entries)
    }

    /// What running node `node` of run `id` streamed so far: from memory when this engine
    /// executes the run, else from the node's live file.
    async fn live_output(&self, id: &str, node: &NodeRow) -> String {
        if let Some(text) = self.runs.live_snapshot(id, &node.node_id) {
            return text;
        }
        if !node.state.is_live() {
            return String::new();
        }
        let path = super::artifacts::live_path(self.home(), id, &node.node_id);
        super::artifacts::read_live(&path).await.unwrap_or_default()
    }

    /// The text streamed so far by the running text nodes among `nodes` of run `id`, which
    /// another process executes (empty when this engine executes it: its feed has the text as
    /// it streams).
    pub(crate) async fn remote_live_outputs(
        &self,
        id: &str,
        nodes: &[NodeRow],
    ) -> Vec<(String, String)> {
        if self.runs.control(id).is_some() {
            return Vec::new();
        }
        let mut live = Vec::new();
        for node in nodes {
            // A code node's output is its attempt's worker events (see `feed`), not a file.
            if node.kind == NodeKind::Text && node.state.is_live() && node.output_sha256.is_none() {
                live.push((node.node_id.clone(), self.live_output(id, node).await));
            }
        }
        live
    }

    /// The text of run `id`: its result and every node's output (or only `node`'s). A
    /// running node shows the text streamed so far (`complete: false`).
    ///
    /// Errors: `NotFound` (run or node).
    pub async fn run_output(&self, id: &str, node: Option<&str>) -> Result<RunOutput, EngineError> {
        let row = self.run_row(id).await?;
        let nodes = self.store().run_nodes(id).await?;
        if let Some(wanted) = node {
            if !nodes.iter().any(|n| n.node_id == wanted) {
                return Err(EngineError::NotFound(format!(
                    "run {id} has no node {wanted:?}"
                )));
            }
        }
        let mut outputs = Vec::new();
        for n in nodes.iter().filter(|n| node.is_none_or(|w| w == n.node_id)) {
            let stored = match (&n.output_path, &n.output_sha256) {
                (Some(path), Some(sha)) if n.state.satisfies_dependents() => {
                    read_output(path, sha).await
                }
                _ => None,
            };
            let (text, complete) = match stored {
                Some(text) => (text, true),
                None => (self.live_output(id, n).await, false),
            };
            outputs.push(NodeOutput {
                node_id: n.node_id.clone(),
                state: n.state,
                text,
                complete,
                sha256: n.output_sha256.clone().filter(|_| complete),
            });
        }
        let text = match node {
            Some(_) => outputs.first().map(|o| o.text.clone()).unwrap_or_default(),
            None => result_text(row.mode, &nodes, &outputs),
        };
        Ok(RunOutput {
            run_id: id.to_owned(),
            text,
            nodes: outputs,
        })
    }

    /// Waits until run `id` is no longer live (completed, review, failed, canceled,
    /// interrupted, paused) and returns its detail. Follows runs of other processes too, and
    /// marks one whose owner died as interrupted. Errors: `NotFound`; `Canceled` when the
    /// engine closes meanwhile.
    pub async fn wait_run(&self, id: &str) -> Result<RunDetail, EngineError> {
        let mut events = self.subscribe();
        let closing = self.supervisor.cancellation();
        loop {
            let row = self.run_row(id).await?;
            let control = self.runs.control(id);
            if !row.state.is_live() && control.as_ref().is_none_or(|c| c.has_ended()) {
                return self.run_detail(id).await;
            }
            if control.is_none() && self.interrupt_run_if_orphaned(&row).await? {
                continue;
            }
            let ended = async {
                match &control {
                    Some(control) => control.ended().await,
                    None => std::future::pending().await,
                }
            };
            let changed = async {
                loop {
                    match events.recv().await {
                        Ok(EngineEvent::RunState { run_id, .. }) if run_id == id => return,
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            std::future::pending::<()>().await;
                        }
                    }
                }
            };
            tokio::select! {
                () = changed => {}
                () = ended => {}
                () = tokio::time::sleep(WAIT_POLL) => {}
                () = closing.cancelled() => {
                    return Err(EngineError::Canceled("the engine is closing".into()));
                }
            }
        }
    }

    /// Run `id`'s detail, after marking it `interrupted` if it is live and its owner is gone
    /// (as [`Engine::wait_run`] does): a caller polling from a long-lived process (an agent
    /// over MCP) whose engine opened before the owner died would otherwise see it `running`
    /// forever. Errors: `NotFound`.
    pub async fn poll_run(&self, id: &str) -> Result<RunDetail, EngineError> {
        let row = self.run_row(id).await?;
        self.interrupt_run_if_orphaned(&row).await?;
        self.run_detail(id).await
    }

    /// Rates node `node` of run `run` (1–5): stored on the node and fed to routing as a
    /// rating of the node's model in the category of the node's task (replacing an earlier
    /// rating of the same node).
    ///
    /// Errors: `InvalidInput` for a rating outside 1–5 or a node without a finished
    /// output; `NotFound`.
    pub async fn rate_run_node(
        &self,
        run: &str,
        node: &str,
        rating: u8,
    ) -> Result<NodeView, EngineError> {
        let rating = switchyard_core::routing::check_rating(rating)
            .map_err(|e| EngineError::InvalidInput(e.to_string()))?;
        self.run_row(run).await?;
        let row = self
            .store()
            .run_node(run, node)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("run {run} has no node {node:?}")))?;
        if !row.state.can_be_rated() {
            return Err(EngineError::InvalidInput(format!(
                "node {node} is {}; only a finished node can be rated",
                row.state.as_str()
            )));
        }
        let reference = row.model.clone().ok_or_else(|| {
            EngineError::InvalidInput(format!("node {node} has no model to rate"))
        })?;
        let model = match self.catalog_state().await {
            Ok(state) => {
                let bare = reference
                    .split_once(':')
                    .map(|(_, rest)| rest)
                    .unwrap_or(&reference);
                find_model(&state.catalog, &reference)
                    .or_else(|| find_model(&state.catalog, bare))
                    .map_or_else(|| reference.clone(), |card| card.id.clone())
            }
            Err(_) => reference.clone(),
        };
        let category = self.classify_assisted(&row.task).await.category;
        self.store()
            .rate_run_node(run, node, &model, category, rating, &now())
            .await?;
        let updated = self
            .store()
            .run_node(run, node)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("run {run} has no node {node:?}")))?;
        let calls = self.store().run_calls(run).await?;
        let column = columns(&self.store().run_nodes(run).await?)
            .get(node)
            .copied()
            .unwrap_or(0);
        Ok(node_view(&updated, &calls, column))
    }

    /// Spend and savings of runs created since `since_ms` (all when `None`): totals, per
    /// model, per mode and per day.
    pub async fn runs_spend(&self, since_ms: Option<i64>) -> Result<SpendReport, EngineError> {
        let rows = self.store().run_spend(since_ms.unwrap_or(0)).await?;
        let entries: Vec<SpendEntry> = rows
            .into_iter()
            .map(|row| SpendEntry {
                mode: row.mode,
                day: chrono::DateTime::from_timestamp_millis(row.created_ms)
                    .map(|t| t.format("%Y-%m-%d").to_string())
                    .unwrap_or_default(),
                cost_usd: row.spent_usd,
                savings_usd: row.baseline_usd.map(|b| b - row.spent_usd),
                by_model: row.by_model,
            })
            .collect();
        Ok(spend_report(&entries))
    }
}

/// A run's result: the single or cascade answer, the merge, the last step, or a swarm's
/// final nodes one after another.
fn result_text(mode: RunMode, nodes: &[NodeRow], outputs: &[NodeOutput]) -> String {
    let text_of = |id: &str| {
        outputs
            .iter()
            .find(|o| o.node_id == id)
            .map(|o| o.text.clone())
            .unwrap_or_default()
    };
    match mode {
        RunMode::Single | RunMode::Cascade | RunMode::Plan => nodes
            .last()
            .map(|n| text_of(&n.node_id))
            .unwrap_or_default(),
        RunMode::Collective => nodes
            .iter()
            .find(|n| n.role == NodeRole::Merge)
            .map(|n| text_of(&n.node_id))
            .unwrap_or_default(),
        RunMode::Swarm => {
            let needed: std::collections::HashSet<&str> = nodes
                .iter()
                .flat_map(|n| n.depends_on.iter().map(String::as_str))
                .collect();
            nodes
                .iter()
                .filter(|n| !needed.contains(n.node_id.as_str()))
                .map(|n| format!("## {}\n\n{}", n.node_id, text_of(&n.node_id)))
                .collect::<Vec<_>>()
                .join("\n\n")
        }
    }
}
