//! The scheduler every mode runs on: the run's nodes form a DAG (a single node, members and a
//! merge, one cascade node, a chain of steps, a swarm). A node starts as soon as its own
//! dependencies are done and one of the run's `max_parallel_nodes` slots is free; a node
//! whose dependency failed is skipped. When the run stops (canceled, out of time, out of
//! budget), no new node starts; in-flight calls end (canceled ones at once) and the run's
//! final state is decided from its nodes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use switchyard_core::catalog::card::Pricing;
use switchyard_core::error::ErrorCode;
use switchyard_core::run::dag::{self, DagNode};
use switchyard_core::run::savings::baseline_cost;
use switchyard_core::run::{
    JudgeSpec, Ladder, Ledger, NodeKind, NodeRole, NodeState, RunLimits, RunMode, RunReason,
    RunState,
};
use switchyard_store::runs::nodes::{NodeChanges, NodeRow};
use switchyard_store::runs::RunChanges;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::code::CodeSetup;
use super::now_ms;
use crate::{Engine, EngineError};

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The user canceled it (here or from another process).
    Canceled,
    /// Its run timeout passed.
    RunTimeout,
    /// A call's worst case did not fit under the cap (in-flight calls finish).
    Budget,
    /// Another engine took the run over.
    LeaseLost,
    /// Its steps are done and the user asked to look before they are combined
    /// (`pauseBeforeIntegration`); nothing is in flight.
    Pause,
}

/// How a running run is stopped: its cancel token (a child of the engine's, so closing the
/// engine stops it too) and the first reason given.
#[derive(Debug)]
pub(crate) struct Control {
    pub cancel: CancellationToken,
    stop: Mutex<Option<Stop>>,
    /// Set when the run's task has returned (its final state is stored by then).
    ended: std::sync::atomic::AtomicBool,
    ended_notify: tokio::sync::Notify,
}

impl Control {
    pub(crate) fn new(parent: &CancellationToken) -> Self {
        Self {
            cancel: parent.child_token(),
            stop: Mutex::new(None),
            ended: std::sync::atomic::AtomicBool::new(false),
            ended_notify: tokio::sync::Notify::new(),
        }
    }

    /// Records that the run's task has returned.
    pub(crate) fn mark_ended(&self) {
        self.ended.store(true, std::sync::atomic::Ordering::SeqCst);
        self.ended_notify.notify_waiters();
    }

    /// Whether the run's task has returned.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Returns once the run's task has returned.
    pub(crate) async fn ended(&self) {
        loop {
            let notified = self.ended_notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.has_ended() {
                return;
            }
            notified.await;
        }
    }

    /// Stops the run for `why` (the first reason wins). Every reason but the budget and a
    /// pause cancels in-flight work; over budget, calls already reserved may finish (a pause
    /// comes when nothing is in flight).
    pub(crate) fn stop(&self, why: Stop) {
        {
            let mut stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
            if stop.is_none() {
                *stop = Some(why);
            }
        }
        if !matches!(why, Stop::Budget | Stop::Pause) {
            self.cancel.cancel();
        }
    }

    /// The reason the run stopped, if it did.
    pub(crate) fn stopped(&self) -> Option<Stop> {
        *self.stop.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether no new work may start.
    pub(crate) fn halted(&self) -> bool {
        self.stopped().is_some() || self.cancel.is_cancelled()
    }
}

/// Everything a run's node tasks share.
#[derive(Debug)]
pub(crate) struct RunCtx {
    pub engine: Arc<Engine>,
    pub run_id: String,
    pub mode: RunMode,
    pub task: String,
    /// The plan's outline (plan and swarm runs).
    pub outline: String,
    /// The composed role, if a preset was named.
    pub system: Option<String>,
    pub limits: RunLimits,
    pub ladder: Option<Ladder>,
    pub judge: Option<JudgeSpec>,
    /// Prices of every model the run may call.
    pub prices: HashMap<String, Pricing>,
    pub ledger: tokio::sync::Mutex<Ledger>,
    pub control: Arc<Control>,
    pub baseline: Option<(String, Pricing)>,
    pub code: Option<CodeSetup>,
    /// Pause before the combined node of a code plan or swarm starts.
    pub pause_before_integration: bool,
    /// The JSON Schema the text result must match.
    pub schema: Option<Arc<switchyard_core::run::schema::OutputSchema>>,
}

impl RunCtx {
    /// This engine's lease token.
    pub(crate) fn token(&self) -> &str {
        &self.engine.owner.token
    }

    /// Moves one of this run's nodes under the lease; `false` (and the run stops) when the
    /// lease is gone.
    pub(crate) async fn move_node(
        &self,
        node_id: &str,
        from: NodeState,
        to: NodeState,
        changes: NodeChanges,
        note: Option<String>,
    ) -> bool {
        match self
            .engine
            .move_node(
                &self.run_id,
                node_id,
                from,
                to,
                Some(self.token()),
                changes,
                note,
            )
            .await
        {
            Ok(true) => true,
            Ok(false) => {
                self.control.stop(Stop::LeaseLost);
                false
            }
            Err(error) => {
                tracing::warn!(run = %self.run_id, node = %node_id, %error, "node not moved");
                false
            }
        }
    }

    /// Starts pending node `node_id` (the driver chose it): `running`, with the context it
    /// received when it is known now. `false` when the lease is gone.
    pub(crate) async fn begin_node(&self, node_id: &str, trace_json: Option<String>) -> bool {
        let mut changes = NodeChanges::new()
            .started_ms(now_ms())
            .finished_ms(None)
            .clear_error();
        if let Some(json) = trace_json {
            changes = changes.trace(json);
        }
        self.move_node(
            node_id,
            NodeState::Pending,
            NodeState::Running,
            changes,
            None,
        )
        .await
    }

    /// Changes fields of running node `node_id` (its trace, rung, model) without moving it.
    pub(crate) async fn move_node_in_place(&self, node_id: &str, changes: NodeChanges) {
        let result = self
            .engine
            .store()
            .update_node(
                &self.run_id,
                node_id,
                NodeState::Running,
                Some(self.token()),
                &changes,
            )
            .await;
        if let Err(error) = result {
            tracing::warn!(run = %self.run_id, node = %node_id, %error, "node not updated");
        }
    }

    /// Ends running node `node_id` as failed with `code` and `message`.
    pub(crate) async fn fail_node(
        &self,
        node_id: &str,
        from: NodeState,
        code: ErrorCode,
        message: &str,
    ) -> NodeState {
        let changes = NodeChanges::new()
            .finished_ms(Some(now_ms()))
            .error(&crate::runs::view::code_name(code), message);
        self.move_node(
            node_id,
            from,
            NodeState::Failed,
            changes,
            Some(message.to_owned()),
        )
        .await;
        NodeState::Failed
    }

    /// Ends live node `node_id` the way the run's stop says (canceled, or failed for the
    /// run timeout); `from` when the run was taken over (nothing is written then).
    pub(crate) async fn stop_node(&self, node_id: &str, from: NodeState) -> NodeState {
        match self.control.stopped() {
            Some(Stop::RunTimeout) => {
                self.fail_node(node_id, from, ErrorCode::Timeout, "the run's time ran out")
                    .await
            }
            Some(Stop::Canceled) => {
                let changes = NodeChanges::new().finished_ms(Some(now_ms()));
                self.move_node(node_id, from, NodeState::Canceled, changes, None)
                    .await;
                NodeState::Canceled
            }
            // Closing (the task is dropped at its next await) or taken over: not ours to end.
            _ => from,
        }
    }
}

fn dag_of(nodes: &[NodeRow]) -> Vec<DagNode> {
    nodes
        .iter()
        .map(|n| DagNode {
            id: n.node_id.clone(),
            depends_on: n.depends_on.clone(),
            state: n.state,
            join: n.join,
        })
        .collect()
}

/// Whether `id` is the combined node of a code plan or swarm.
fn is_combined(nodes: &[NodeRow], id: &str) -> bool {
    nodes
        .iter()
        .any(|n| n.node_id == id && n.kind == NodeKind::Code && n.role == NodeRole::Merge)
}

fn set_state(nodes: &mut [NodeRow], id: &str, state: NodeState) {
    if let Some(node) = nodes.iter_mut().find(|n| n.node_id == id) {
        node.state = state;
    }
}

/// Runs the run's nodes to the end (see the module documentation).
pub(crate) async fn drive(ctx: Arc<RunCtx>) -> Result<(), EngineError> {
    let mut nodes = ctx.engine.store().run_nodes(&ctx.run_id).await?;
    let mut tasks: JoinSet<(String, NodeState)> = JoinSet::new();
    let mut ids: HashMap<tokio::task::Id, String> = HashMap::new();
    let slots = ctx.limits.max_parallel_nodes.max(1) as usize;
    loop {
        if !ctx.control.halted() {
            loop {
                let blocked = dag::blocked(&dag_of(&nodes));
                if blocked.is_empty() {
                    break;
                }
                for id in blocked {
                    let note = "a node it needs did not finish".to_owned();
                    let changes = NodeChanges::new().finished_ms(Some(now_ms()));
                    ctx.move_node(
                        &id,
                        NodeState::Pending,
                        NodeState::Skipped,
                        changes,
                        Some(note),
                    )
                    .await;
                    set_state(&mut nodes, &id, NodeState::Skipped);
                }
            }
            for id in dag::ready(&dag_of(&nodes)) {
                if tasks.len() >= slots || ctx.control.halted() {
                    break;
                }
                if ctx.pause_before_integration && is_combined(&nodes, &id) {
                    // It waits for every step, so nothing else is in flight now.
                    ctx.control.stop(Stop::Pause);
                    break;
                }
                // The node's task stores the move (with the context it received).
                set_state(&mut nodes, &id, NodeState::Running);
                let Some(node) = nodes.iter().find(|n| n.node_id == id).cloned() else {
                    continue;
                };
                let task_ctx = ctx.clone();
                let handle = tasks.spawn(async move {
                    let state = match node.kind {
                        NodeKind::Text => super::text::run_text_node(&task_ctx, &node).await,
                        NodeKind::Code => super::code::run_code_node(&task_ctx, &node).await,
                    };
                    (node.node_id, state)
                });
                ids.insert(handle.id(), id);
            }
        }
        let Some(joined) = tasks.join_next_with_id().await else {
            break;
        };
        match joined {
            Ok((task, (id, state))) => {
                ids.remove(&task);
                set_state(&mut nodes, &id, state);
            }
            Err(error) => {
                let Some(id) = ids.remove(&error.id()) else {
                    continue;
                };
                tracing::error!(run = %ctx.run_id, node = %id, %error, "a node task crashed");
                // It crashed before or after storing its start.
                let from = match ctx.engine.store().run_node(&ctx.run_id, &id).await {
                    Ok(Some(row)) if row.state == NodeState::Pending => NodeState::Pending,
                    _ => NodeState::Running,
                };
                let state = ctx
                    .fail_node(&id, from, ErrorCode::Internal, "the node crashed")
                    .await;
                set_state(&mut nodes, &id, state);
            }
        }
    }
    Ok(())
}

/// Decides and records the run's final state from its nodes and its stop reason, releasing
/// the lease (review and final states have no owner).
pub(crate) async fn finish(ctx: &RunCtx) -> Result<(), EngineError> {
    let stop = ctx.control.stopped();
    if stop == Some(Stop::LeaseLost) || (stop.is_none() && ctx.control.cancel.is_cancelled()) {
        // Taken over, or the engine is closing (which interrupts the run itself).
        return Ok(());
    }
    let engine = &*ctx.engine;
    if stop == Some(Stop::Pause) {
        return pause(ctx).await;
    }
    let nodes = engine.store().run_nodes(&ctx.run_id).await?;
    let (state, reason, pending) = match stop {
        Some(Stop::Canceled) => (
            RunState::Canceled,
            Some(RunReason::Canceled),
            NodeState::Canceled,
        ),
        Some(Stop::RunTimeout) => (
            RunState::Failed,
            Some(RunReason::RunTimeout),
            NodeState::Skipped,
        ),
        Some(Stop::Budget) => (
            RunState::Failed,
            Some(RunReason::BudgetExceeded),
            NodeState::Skipped,
        ),
        _ => outcome(ctx.mode, &nodes),
    };
    for node in nodes.iter().filter(|n| n.state == NodeState::Pending) {
        ctx.move_node(
            &node.node_id,
            NodeState::Pending,
            pending,
            NodeChanges::new().finished_ms(Some(now_ms())),
            Some(format!("the run ended {}", state.as_str())),
        )
        .await;
    }
    let (tokens_in, tokens_out) = nodes.iter().fold((0u64, 0u64), |(i, o), n| {
        (i + u64::from(n.tokens_in), o + u64::from(n.tokens_out))
    });
    let baseline = ctx
        .baseline
        .as_ref()
        .and_then(|(_, pricing)| baseline_cost(tokens_in, tokens_out, pricing));
    let row = engine.run_row(&ctx.run_id).await?;
    if row.state != RunState::Running {
        return Ok(());
    }
    let note = match (state, reason) {
        (RunState::Failed, Some(RunReason::BudgetExceeded)) => Some(
            "a call's worst case did not fit under the USD cap; partial results are kept".into(),
        ),
        _ => None,
    };
    let changes = RunChanges::new()
        .finished_ms(if state.is_final() {
            Some(now_ms())
        } else {
            None
        })
        .baseline(ctx.baseline.as_ref().map(|(m, _)| m.clone()), baseline)
        .release();
    engine
        .move_run(&row, state, Some(ctx.token()), reason, changes, note)
        .await?;
    Ok(())
}

/// Pauses the run before its combined node: `paused`, the lease released, and the pause
/// point cleared from the stored request, so `resume_run` goes on to combine the steps.
async fn pause(ctx: &RunCtx) -> Result<(), EngineError> {
    let engine = &*ctx.engine;
    let row = engine.run_row(&ctx.run_id).await?;
    if row.state != RunState::Running {
        return Ok(());
    }
    let mut request: switchyard_core::run::RunRequest = serde_json::from_str(&row.request_json)
        .map_err(|e| EngineError::Internal(format!("stored request: {e}")))?;
    request.pause_before_integration = false;
    let json = serde_json::to_string(&request)
        .map_err(|e| EngineError::Internal(format!("request: {e}")))?;
    let changes = RunChanges::new().request(json).release();
    engine
        .move_run(
            &row,
            RunState::Paused,
            Some(ctx.token()),
            None,
            changes,
            Some("paused before integration: the steps are merged on the run branch; resume to combine them for review".into()),
        )
        .await?;
    Ok(())
}

/// The state a run that was not stopped ends in: text runs are completed when every final
/// node (one nothing depends on) is done; code runs go to review when a node awaits it.
fn outcome(mode: RunMode, nodes: &[NodeRow]) -> (RunState, Option<RunReason>, NodeState) {
    let code = nodes.iter().any(|n| n.kind == NodeKind::Code);
    let sinks = dag::sinks(&dag_of(nodes));
    let state_of = |id: &str| {
        nodes
            .iter()
            .find(|n| n.node_id == id)
            .map_or(NodeState::Failed, |n| n.state)
    };
    if code {
        // A plan's or swarm's steps are approved once merged into the run branch: only the
        // combined node brings the run to review.
        if nodes.iter().any(|n| {
            n.state == NodeState::Review
                || (n.state == NodeState::Approved && n.role != NodeRole::Step)
        }) {
            return (RunState::Review, None, NodeState::Skipped);
        }
    } else if sinks.iter().all(|id| state_of(id).satisfies_dependents()) {
        return (RunState::Completed, None, NodeState::Skipped);
    }
    let reason = if mode == RunMode::Cascade {
        RunReason::AllRungsFailed
    } else {
        RunReason::NodeFailed
    };
    (RunState::Failed, Some(reason), NodeState::Skipped)
}
