//! What crosses the IPC boundary and the CLI for runs: the launch request, the preview the
//! launch form edits, summaries and details, outputs, the stored event log, list filters.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::error::ErrorCode;
use crate::routing::plan::Plan;
use crate::routing::BudgetTier;

use super::cascade::{FailureSignal, JudgeSpec, Ladder};
use super::context::ContextTrace;
use super::dag::Join;
use super::limits::{RunLimits, RunLimitsOverride};
use super::state::{NodeState, RunReason, RunState};
use super::{NodeKind, NodeRole, RunMode};

/// Launch a run (the Runs page form, the Route page's Launch, `switchyard run`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    /// What to do, in the user's words.
    pub task: String,
    pub mode: RunMode,
    /// The price band models are picked from (default: medium).
    #[serde(default)]
    pub budget: Option<BudgetTier>,
    /// The hard USD cap of this run (default: the `runs.max_usd` setting).
    #[serde(default)]
    pub max_usd: Option<f64>,
    /// Other limits for this run only.
    #[serde(default)]
    pub limits: Option<RunLimitsOverride>,
    /// A saved role preset: its composed prompt becomes every node's system prompt.
    #[serde(default)]
    pub preset: Option<String>,
    /// A repository folder: the run's nodes are code nodes working in worktrees of it.
    #[serde(default)]
    pub repo: Option<String>,
    /// Verification commands for code nodes (`None`: detected from the repository).
    #[serde(default)]
    pub verify: Option<Vec<String>>,
    /// Lets code nodes' workers and verification reach the network (see
    /// [`crate::attempt::AttemptRequest::allow_network`]).
    #[serde(default)]
    pub allow_network: bool,
    /// More folders code nodes' workers and verification may write (see
    /// [`crate::attempt::AttemptRequest::allow_write`]).
    #[serde(default)]
    pub allow_write: Vec<String>,
    /// Code nodes' attempts write a self-review (see
    /// [`crate::attempt::AttemptRequest::self_review`]).
    #[serde(default)]
    pub self_review: bool,
    /// The worker of code nodes (`model:<id>`, `claude`, `codex`, …); `None`: the model
    /// worker with the node's model.
    #[serde(default)]
    pub worker: Option<String>,
    /// Single: the model. Collective: the members. Plan / swarm: the model for steps that
    /// have none. `None`: chosen by routing.
    #[serde(default)]
    pub models: Option<Vec<String>>,
    /// Cascade: the models of the ladder, cheapest first. `None`: one per tier from routing.
    #[serde(default)]
    pub ladder: Option<Vec<String>>,
    /// Plan / swarm: the (edited) plan or DAG from the preview. `None`: planned at launch.
    #[serde(default)]
    pub plan: Option<Plan>,
    /// Cascade (text): a judge whose score below the threshold escalates.
    #[serde(default)]
    pub judge: Option<JudgeSpec>,
    /// Collective: how many members routing recommends (default 3, 2–6).
    #[serde(default)]
    pub members: Option<u32>,
    /// Stop after planning, before any node runs; `resume_run` continues.
    #[serde(default)]
    pub pause_after_plan: bool,
    /// Code plans and swarms: stop once the steps are merged on the run branch, before they
    /// are combined for review; `resume_run` continues.
    #[serde(default)]
    pub pause_before_integration: bool,
    /// Text runs: a JSON Schema (the document, as text) the result must match. Single nodes,
    /// each cascade rung and a collective's merge are checked (after recovering the JSON
    /// from fences or prose, and one repair request); a cascade escalates when it fails.
    #[serde(default)]
    pub schema: Option<String>,
    /// Who launched it (`app`, `cli`, or the calling agent's name: its MCP client's or its
    /// `PARENT_AGENT`).
    #[serde(default)]
    pub launcher: String,
}

impl RunRequest {
    /// A request for `task` in `mode` with every option at its default.
    pub fn new(task: &str, mode: RunMode) -> RunRequest {
        RunRequest {
            task: task.to_owned(),
            mode,
            budget: None,
            max_usd: None,
            limits: None,
            preset: None,
            repo: None,
            verify: None,
            allow_network: false,
            allow_write: Vec::new(),
            self_review: false,
            worker: None,
            models: None,
            ladder: None,
            plan: None,
            judge: None,
            members: None,
            pause_after_plan: false,
            pause_before_integration: false,
            schema: None,
            launcher: String::new(),
        }
    }
}

/// One node as planned (what the preview shows and the engine records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    /// Unique in the run: `n1`, `m1`…, `merge`, `c1`, or the plan's step ids.
    pub id: String,
    /// The node's own task (the run's task for single, member and cascade nodes).
    pub task: String,
    pub kind: NodeKind,
    pub role: NodeRole,
    /// The model reference (text nodes; the first rung for a cascade).
    pub model: Option<String>,
    /// The worker (code nodes).
    pub worker: Option<String>,
    pub depends_on: Vec<String>,
    pub join: Join,
    /// The nodes whose outputs go into this node's context (its dependencies, or every
    /// earlier step of a plan).
    pub context_from: Vec<String>,
}

/// What a launch would do, for the launch form to show and edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunPreview {
    pub mode: RunMode,
    pub task: String,
    pub nodes: Vec<NodeSpec>,
    /// The graph column of each node, in `nodes`' order (`dag::columns`).
    pub columns: Vec<u32>,
    /// Cascade: the ladder.
    pub ladder: Option<Ladder>,
    /// Plan / swarm: the plan the nodes came from (edit it and send it back in the request).
    pub plan: Option<Plan>,
    /// What the user should know (unpriced models, planner fallbacks, …).
    pub warnings: Vec<String>,
    /// The most the run could cost if every call used its whole output cap (cascades: every
    /// rung); `None` when a model's price is unknown.
    pub worst_case_usd: Option<f64>,
    pub limits: RunLimits,
    /// The model savings are measured against.
    pub baseline_model: Option<String>,
}

/// A run as lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub id: String,
    pub task: String,
    pub mode: RunMode,
    pub state: RunState,
    /// Whether the run can still change (queued, planning, running).
    pub live: bool,
    pub reason: Option<RunReason>,
    /// [`RunReason::sentence`] of `reason`.
    pub reason_text: Option<String>,
    pub launcher: String,
    /// Spent so far (settled calls, plus reservations of calls lost in a crash).
    pub cost_usd: f64,
    pub max_usd: f64,
    /// Baseline cost of the same tokens minus the cost; `None` without a priced baseline.
    pub savings_usd: Option<f64>,
    #[specta(type = f64)]
    pub created_ms: i64,
    #[specta(type = Option<f64>)]
    pub finished_ms: Option<i64>,
    pub nodes: u32,
    pub nodes_done: u32,
}

/// How one call (a text node's try) stands in the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum CallState {
    /// Its worst case is reserved; it is in flight (or its owner died in flight).
    Reserved,
    /// It ended; its actual cost is spent.
    Settled,
    /// It failed; what it may have cost is spent.
    Failed,
    /// It was never made; its reservation was given back.
    Released,
}

impl CallState {
    /// The stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallState::Reserved => "reserved",
            CallState::Settled => "settled",
            CallState::Failed => "failed",
            CallState::Released => "released",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        [
            CallState::Reserved,
            CallState::Settled,
            CallState::Failed,
            CallState::Released,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// What a call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum CallPurpose {
    /// The node's answer.
    Answer,
    /// A judge scoring a cascade rung's answer.
    Judge,
    /// A code node's attempt (its cost is the attempt's).
    Attempt,
}

impl CallPurpose {
    /// The stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallPurpose::Answer => "answer",
            CallPurpose::Judge => "judge",
            CallPurpose::Attempt => "attempt",
        }
    }

    /// The purpose named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        [
            CallPurpose::Answer,
            CallPurpose::Judge,
            CallPurpose::Attempt,
        ]
        .into_iter()
        .find(|p| p.as_str() == name)
    }
}

/// An error as a run or node records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub code: ErrorCode,
    pub message: String,
}

/// One try of a node: a model call, or a code node's attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct NodeTry {
    /// `<node>#<n>`: unique in the run.
    pub id: String,
    /// 1, 2, … per node.
    pub n: u32,
    pub purpose: CallPurpose,
    pub model: String,
    pub worker: Option<String>,
    pub state: CallState,
    /// The cascade rung (1-based) it tried.
    pub rung: Option<u32>,
    pub reserved_usd: f64,
    pub cost_usd: f64,
    pub tokens_in: u32,
    pub tokens_out: u32,
    /// `tokens_in + tokens_out`.
    pub tokens: u32,
    #[specta(type = f64)]
    pub started_ms: i64,
    #[specta(type = Option<f64>)]
    pub finished_ms: Option<i64>,
    pub error: Option<String>,
    /// Why this try counted as failed (cascade escalation).
    pub signal: Option<FailureSignal>,
    /// The failure signal in words (`FailureSignal::describe`), for pages to show as is.
    pub signal_text: Option<String>,
    /// A code node's attempt (open it on the review page).
    pub attempt_id: Option<String>,
}

/// One node with its tries, its context trace and its output's size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct NodeView {
    pub id: String,
    pub task: String,
    pub kind: NodeKind,
    pub role: NodeRole,
    pub state: NodeState,
    /// The model that produced (or is producing) its result.
    pub model: Option<String>,
    pub worker: Option<String>,
    pub depends_on: Vec<String>,
    /// The column a graph draws it in: 0 without dependencies, else one past its deepest
    /// dependency (`dag::columns`).
    pub column: u32,
    pub cost_usd: f64,
    pub tokens_in: u32,
    pub tokens_out: u32,
    #[specta(type = Option<f64>)]
    pub started_ms: Option<i64>,
    #[specta(type = Option<f64>)]
    pub finished_ms: Option<i64>,
    /// Cascade: the rung (1-based) being tried, or the one that succeeded.
    pub rung: Option<u32>,
    pub attempts: Vec<NodeTry>,
    pub trace: ContextTrace,
    pub output_chars: u32,
    /// The user's rating (1–5) of its output.
    pub rating: Option<u8>,
    /// It can be rated now: it ended with an output (or was rejected) and names its model.
    pub rateable: bool,
    pub error: Option<RunError>,
    /// Merge nodes: the member answers (1-based) the merge says it used.
    pub used_inputs: Option<Vec<u32>>,
    /// A code node's current attempt as the engine recorded it: the rung working or the one
    /// that succeeded, and after "request changes" the revision (which is not a try of its
    /// own: no model call is reserved for it).
    pub attempt_id: Option<String>,
}

impl NodeView {
    /// A code node's current attempt: the one the engine recorded, else (rows written before
    /// it was recorded) its newest try without a failure signal, else its newest. `None` for
    /// a text node and before the first attempt starts.
    pub fn current_attempt(&self) -> Option<&str> {
        if let Some(recorded) = self.attempt_id.as_deref() {
            return Some(recorded);
        }
        let tries = || {
            self.attempts
                .iter()
                .rev()
                .filter(|t| t.attempt_id.is_some())
        };
        tries()
            .find(|t| t.signal.is_none())
            .or_else(|| tries().next())
            .and_then(|t| t.attempt_id.as_deref())
    }
}

/// Everything the run detail page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunDetail {
    pub summary: RunSummary,
    pub nodes: Vec<NodeView>,
    pub ladder: Option<Ladder>,
    pub baseline_model: Option<String>,
    pub baseline_usd: Option<f64>,
    /// The same tokens on each finished step's static pick (its category's best-scored model
    /// of the default budget on benchmarks alone: routing before it learned). `None` before a
    /// step used tokens, or when a price is unknown.
    pub static_usd: Option<f64>,
    pub limits: RunLimits,
    /// Reserved by calls in flight.
    pub reserved_usd: f64,
    pub repo: Option<String>,
    #[specta(type = Option<f64>)]
    pub started_ms: Option<i64>,
    pub error: Option<RunError>,
    /// The newest event number (a page loads this snapshot, then follows later events).
    pub seq: u32,
}

/// Which runs a list shows; every field set narrows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunFilter {
    #[serde(default)]
    pub state: Option<RunState>,
    #[serde(default)]
    pub mode: Option<RunMode>,
    #[serde(default)]
    pub launcher: Option<String>,
    /// Words found in the task (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// At most this many, newest first (default and cap: 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One node's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct NodeOutput {
    pub node_id: String,
    pub state: NodeState,
    /// The text so far (a running node's streamed text, or the stored artifact).
    pub text: String,
    /// `true` once the artifact is stored (its SHA-256 checked when read).
    pub complete: bool,
    pub sha256: Option<String>,
}

/// A run's text: its result and each node's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
    pub run_id: String,
    /// The result: the single or cascade answer, the merge, the last step, or a swarm's
    /// final nodes one after another.
    pub text: String,
    pub nodes: Vec<NodeOutput>,
}

/// One entry of a run's event log, numbered per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunLogEntry {
    pub seq: u32,
    #[specta(type = f64)]
    pub at_ms: i64,
    pub entry: RunLog,
}

/// What happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RunLog {
    /// The run moved to `state`.
    State {
        state: RunState,
        reason: Option<RunReason>,
        note: Option<String>,
    },
    /// A node moved to `state`.
    Node {
        node_id: String,
        state: NodeState,
        note: Option<String>,
    },
    /// A call was reserved, settled, failed or released; the ledger after it.
    Call {
        node_id: String,
        n: u32,
        model: String,
        state: CallState,
        reserved_usd: f64,
        cost_usd: f64,
        spent_usd: f64,
        run_reserved_usd: f64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt_try(n: u32, attempt: Option<&str>, failed: bool) -> NodeTry {
        NodeTry {
            id: format!("c1#{n}"),
            n,
            purpose: CallPurpose::Attempt,
            model: "m".into(),
            worker: Some("claude".into()),
            state: CallState::Settled,
            rung: Some(n),
            reserved_usd: 0.0,
            cost_usd: 0.0,
            tokens_in: 0,
            tokens_out: 0,
            tokens: 0,
            started_ms: 0,
            finished_ms: None,
            error: None,
            signal: failed.then(|| FailureSignal::VerificationFailed {
                detail: "1 failed".into(),
            }),
            signal_text: None,
            attempt_id: attempt.map(str::to_owned),
        }
    }

    fn node(attempts: Vec<NodeTry>) -> NodeView {
        NodeView {
            id: "c1".into(),
            task: "t".into(),
            kind: NodeKind::Code,
            role: NodeRole::Cascade,
            state: NodeState::Review,
            model: None,
            worker: None,
            depends_on: vec![],
            column: 0,
            cost_usd: 0.0,
            tokens_in: 0,
            tokens_out: 0,
            started_ms: None,
            finished_ms: None,
            rung: None,
            attempts,
            trace: ContextTrace::default(),
            output_chars: 0,
            rating: None,
            rateable: false,
            error: None,
            used_inputs: None,
            attempt_id: None,
        }
    }

    #[test]
    fn the_current_attempt_is_the_newest_that_did_not_fail_else_the_newest() {
        let climbed = node(vec![
            attempt_try(1, Some("a1"), true),
            attempt_try(2, Some("a2"), false),
            attempt_try(3, None, false),
        ]);
        assert_eq!(climbed.current_attempt(), Some("a2"));
        let all_failed = node(vec![
            attempt_try(1, Some("a1"), true),
            attempt_try(2, Some("a2"), true),
        ]);
        assert_eq!(all_failed.current_attempt(), Some("a2"));
        assert_eq!(node(vec![]).current_attempt(), None);
    }

    #[test]
    fn the_recorded_attempt_wins_over_the_tries_after_changes_were_requested() {
        let mut revised = node(vec![attempt_try(1, Some("a1"), false)]);
        revised.attempt_id = Some("a1-revision".into());
        assert_eq!(revised.current_attempt(), Some("a1-revision"));
    }
}
