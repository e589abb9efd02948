//! What the run tools return: a run's progress, its text bounded for an agent's context,
//! and the one sentence that says what to do next.

use serde::Serialize;
use switchyard_core::run::{
    NodeKind, NodeState, NodeView, RunDetail, RunError, RunMode, RunReason, RunState,
};

/// The most bytes of a run's result text one call returns.
pub(crate) const MAX_RESULT_BYTES: usize = 64 * 1024;
/// The most bytes of each node's text `switchyard_run_result` returns with `nodes`.
pub(crate) const MAX_NODE_BYTES: usize = 16 * 1024;
/// The most characters of a node's task shown in a status.
const MAX_TASK_CHARS: usize = 300;

/// `text` cut to at most `max` bytes (at a character boundary), and whether it was cut.
pub(crate) fn prefix(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    (&text[..cut], true)
}

/// `text` bounded to `max` bytes, with a marker saying where it was cut and how to read
/// the rest; and whether it was cut.
pub(crate) fn bounded(text: &str, max: usize) -> (String, bool) {
    match prefix(text, max) {
        (whole, false) => (whole.to_owned(), false),
        (head, true) => (
            format!(
                "{head}\n\n[truncated: {} of {} bytes shown; read each node's whole output \
                 with switchyard_artifact_get]",
                head.len(),
                text.len()
            ),
            true,
        ),
    }
}

fn short(text: &str) -> String {
    if text.chars().count() <= MAX_TASK_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(MAX_TASK_CHARS).collect();
    format!("{head}…")
}

/// Whether any node of the run is a code node (its result is reviewed, not read).
pub(crate) fn is_code(detail: &RunDetail) -> bool {
    detail.nodes.iter().any(|n| n.kind == NodeKind::Code)
}

/// One node's progress.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodeProgress {
    id: String,
    /// The node's task (the run's, for single, member and cascade nodes), cut at 300
    /// characters.
    task: String,
    kind: NodeKind,
    status: NodeState,
    model: Option<String>,
    worker: Option<String>,
    depends_on: Vec<String>,
    cost_usd: f64,
    /// Cascade: the rung being tried, or the one that succeeded.
    rung: Option<u32>,
    /// Code nodes: the current attempt (see `switchyard_review_status`).
    attempt_id: Option<String>,
    /// Text nodes: the output's size so far.
    output_chars: u32,
    error: Option<RunError>,
}

impl From<&NodeView> for NodeProgress {
    fn from(node: &NodeView) -> Self {
        Self {
            id: node.id.clone(),
            task: short(&node.task),
            kind: node.kind,
            status: node.state,
            model: node.model.clone(),
            worker: node.worker.clone(),
            depends_on: node.depends_on.clone(),
            cost_usd: node.cost_usd,
            rung: node.rung,
            attempt_id: node.current_attempt().map(str::to_owned),
            output_chars: node.output_chars,
            error: node.error.clone(),
        }
    }
}

/// What `switchyard_run_status` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunStatus {
    run_id: String,
    mode: RunMode,
    state: RunState,
    reason: Option<RunReason>,
    launcher: String,
    /// Spent so far.
    cost_usd: f64,
    /// Reserved by calls in flight (spent plus reserved never exceeds the cap).
    reserved_usd: f64,
    /// The run's hard USD cap.
    max_usd: f64,
    nodes_done: u32,
    nodes: Vec<NodeProgress>,
    error: Option<RunError>,
    /// What the agent should do next, in words.
    next: String,
}

impl RunStatus {
    pub(crate) fn of(detail: &RunDetail, agent_may_approve: bool) -> Self {
        let s = &detail.summary;
        Self {
            run_id: s.id.clone(),
            mode: s.mode,
            state: s.state,
            reason: s.reason,
            launcher: s.launcher.clone(),
            cost_usd: s.cost_usd,
            reserved_usd: detail.reserved_usd,
            max_usd: s.max_usd,
            nodes_done: s.nodes_done,
            nodes: detail.nodes.iter().map(NodeProgress::from).collect(),
            error: detail.error.clone(),
            next: run_next(detail, agent_may_approve),
        }
    }
}

/// The one sentence that tells an agent following run `detail` where it stands.
pub(crate) fn run_next(detail: &RunDetail, agent_may_approve: bool) -> String {
    let s = &detail.summary;
    let id = &s.id;
    match s.state {
        RunState::Queued => "Queued: it starts when a run slot is free. Poll \
             switchyard_run_status again in 5-15 seconds."
            .to_owned(),
        RunState::Planning => {
            "Switchyard is planning it; poll switchyard_run_status again in 5-15 seconds."
                .to_owned()
        }
        RunState::Running => format!(
            "Running: {} of {} nodes done. Poll switchyard_run_status again in 5-15 seconds.",
            s.nodes_done, s.nodes
        ),
        RunState::Paused => format!(
            "Paused after planning; nothing runs until the human resumes it in the Switchyard \
             app (or with `switchyard runs resume {id}`)."
        ),
        RunState::Completed => "Completed: read the result with switchyard_run_result.".to_owned(),
        RunState::Review if agent_may_approve => "Its code is in review. See each attempt's \
             gates with switchyard_review_status (this runId); the human decides in the \
             Switchyard app, or you may approve it with switchyard_approve if every gate \
             passed."
            .to_owned(),
        RunState::Review => "Its code awaits the human's review in the Switchyard app (the app \
             notified them). You cannot approve it: poll switchyard_review_status with this \
             runId every 10-30 seconds until it is decided, and tell the user what you are \
             waiting for."
            .to_owned(),
        RunState::Approved => "Approved by the human and committed; not integrated yet \
             (integrating is retried from the app)."
            .to_owned(),
        RunState::Integrated => "Approved by the human and integrated; \
             switchyard_review_status with this runId says where it landed."
            .to_owned(),
        RunState::Failed => match s.reason {
            Some(RunReason::BudgetExceeded) => "It stopped at its USD cap (budget_exceeded); \
                 what finished is kept: read it with switchyard_run_result."
                .to_owned(),
            Some(RunReason::Rejected) => "The human rejected it; switchyard_review_status \
                 with this runId shows their reason."
                .to_owned(),
            reason => format!(
                "It failed ({}); see error and the nodes' errors. What finished is kept: \
                 switchyard_run_result reads it.",
                reason.map_or("unknown reason", RunReason::as_str)
            ),
        },
        RunState::Canceled => "It was canceled; what finished is kept.".to_owned(),
        RunState::Interrupted => format!(
            "Its owner process went away; the human can recover it from the app or with \
             `switchyard runs recover {id}` (finished nodes are kept)."
        ),
    }
}

/// One node's text.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodeText {
    pub(crate) id: String,
    pub(crate) status: NodeState,
    /// The output is stored (else: the text streamed so far).
    pub(crate) complete: bool,
    pub(crate) text: String,
    /// The whole output's size.
    pub(crate) bytes: usize,
    pub(crate) truncated: bool,
    pub(crate) sha256: Option<String>,
}

/// Where a code run's results are reviewed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewPointer {
    pub(crate) node_id: String,
    pub(crate) status: NodeState,
    /// Open it with switchyard_review_status (or pass the runId).
    pub(crate) attempt_id: Option<String>,
}

/// What `switchyard_run_result` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunResult {
    pub(crate) run_id: String,
    pub(crate) mode: RunMode,
    pub(crate) state: RunState,
    /// `text` (read `text`) or `code` (its results are attempts in review).
    pub(crate) kind: NodeKind,
    /// The run completed: `text` is its final result (else what finished so far).
    pub(crate) complete: bool,
    /// Text runs: the result — the answer, the merge, the last step, or a swarm's final
    /// nodes one after another.
    pub(crate) text: Option<String>,
    /// The whole result's size.
    pub(crate) bytes: usize,
    pub(crate) truncated: bool,
    /// Each node's text, when asked for.
    pub(crate) nodes: Option<Vec<NodeText>>,
    /// Code runs: each code node's attempt.
    pub(crate) review: Option<Vec<ReviewPointer>>,
    pub(crate) next: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_text_is_cut_at_a_character_with_a_marker() {
        assert_eq!(bounded("short", 10), ("short".to_owned(), false));
        let (text, cut) = bounded("héllo world", 2);
        assert!(cut);
        assert!(text.starts_with("h\n\n[truncated: 1 of 12 bytes"), "{text}");
        assert_eq!(prefix("héllo", 3), ("hé", true));
        assert_eq!(prefix("héllo", 2), ("h", true));
    }
}
