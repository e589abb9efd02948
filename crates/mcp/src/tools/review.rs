//! `switchyard_review_status`: where a code attempt stands in review, and what the human
//! decided. A code run's review is that of its code attempts: the run's state, and each code
//! node's current attempt's review.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::attempt::self_review::SelfReview;
use switchyard_core::attempt::{
    AttemptError, AttemptReview, AttemptState, IntegrationRecord, ReviewDecision,
};
use switchyard_core::confinement::ConfinementReport;
use switchyard_core::review::diff::{CapturedDiff, FileStatus};
use switchyard_core::review::gates::GateResult;
use switchyard_core::run::{NodeKind, RunDetail, RunMode, RunReason, RunState};
use switchyard_core::verify::VerificationRecord;
use switchyard_engine::{Engine, EngineError};

use crate::reply;
use crate::server::Server;
use crate::tools::runs::run_next;

/// Files listed per diff; the totals always cover every file.
pub(crate) const MAX_FILES: usize = 200;

/// Names an attempt or a run.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReviewInput {
    /// An attempt id (`run` in `switchyard run --json`, `attemptId` in a run's status).
    #[serde(default)]
    attempt_id: Option<String>,
    /// Or a code run's id (`runId` from switchyard_run_create).
    #[serde(default)]
    run_id: Option<String>,
}

/// What a review tool acts on.
pub(crate) enum Reviewed {
    Attempt(String),
    Run(String),
}

/// The one id given (trimmed), or the error that says to give exactly one.
pub(crate) fn reviewed(
    attempt_id: Option<String>,
    run_id: Option<String>,
) -> Result<Reviewed, CallToolResult> {
    let given = |id: Option<String>| id.map(|i| i.trim().to_owned()).filter(|i| !i.is_empty());
    match (given(attempt_id), given(run_id)) {
        (Some(attempt), None) => Ok(Reviewed::Attempt(attempt)),
        (None, Some(run)) => Ok(Reviewed::Run(run)),
        (Some(_), Some(_)) => Err(reply::invalid("give attemptId or runId, not both")),
        (None, None) => Err(reply::invalid(
            "give attemptId (an attempt) or runId (a code run)",
        )),
    }
}

/// One changed file, without its hunks.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FileStat {
    path: String,
    old_path: Option<String>,
    status: FileStatus,
    additions: u32,
    deletions: u32,
    binary: bool,
}

/// A captured diff's totals and files.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffStats {
    /// SHA-256 of the canonical patch: what approve re-checks.
    sha256: String,
    files_changed: usize,
    additions: u32,
    deletions: u32,
    files: Vec<FileStat>,
    /// More files changed than are listed.
    files_truncated: bool,
}

impl From<&CapturedDiff> for DiffStats {
    fn from(diff: &CapturedDiff) -> Self {
        Self {
            sha256: diff.sha256.clone(),
            files_changed: diff.files.len(),
            additions: diff.additions,
            deletions: diff.deletions,
            files: diff
                .files
                .iter()
                .take(MAX_FILES)
                .map(|f| FileStat {
                    path: f.path.clone(),
                    old_path: f.old_path.clone(),
                    status: f.status,
                    additions: f.additions,
                    deletions: f.deletions,
                    binary: f.is_binary,
                })
                .collect(),
            files_truncated: diff.files.len() > MAX_FILES,
        }
    }
}

/// What `switchyard_review_status` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewStatus {
    attempt: String,
    state: AttemptState,
    task: String,
    worker: String,
    /// Who started it (`app`, `cli`, an agent's name such as `claude-code`).
    launcher: String,
    repo: String,
    target_branch: Option<String>,
    /// The attempt waits for the human's decision.
    awaiting_review: bool,
    /// What the human decided, with their message, reason or comments.
    decision: Option<ReviewDecision>,
    /// Where an approved attempt landed.
    integration: Option<IntegrationRecord>,
    diff: Option<DiffStats>,
    /// Every gate passed (verification included); `null` before the gates ran.
    gates_passed: Option<bool>,
    gates: Vec<GateResult>,
    verification: Option<VerificationRecord>,
    /// The worker's own re-reading of its change, when one was asked for: its risks, files
    /// touched and tests added. Never a gate: `gates` and `verification` decide.
    self_review: Option<SelfReview>,
    /// Approve is possible now (in review, every gate passed).
    pub(crate) can_approve: bool,
    approve_blocked: Option<String>,
    cost_usd: Option<f64>,
    error: Option<AttemptError>,
    /// How the worker and verification were confined, and what the sandbox refused.
    confinement: Option<ConfinementReport>,
    /// What the agent should do next, in words.
    pub(crate) next: String,
}

impl ReviewStatus {
    /// The status of `review`; `agent_may_approve` says whether `switchyard_approve` exists.
    pub(crate) fn of(review: AttemptReview, agent_may_approve: bool) -> Self {
        let summary = review.summary;
        let next = next_step(
            summary.state,
            review.decision.as_ref(),
            review.integration.as_ref(),
            review.can_approve && agent_may_approve,
        );
        Self {
            attempt: summary.id,
            state: summary.state,
            task: summary.task,
            worker: summary.worker,
            launcher: summary.launcher,
            repo: summary.repo,
            target_branch: summary.target_branch,
            awaiting_review: summary.state == AttemptState::Review && review.decision.is_none(),
            decision: review.decision,
            integration: review.integration,
            diff: review.diff.as_ref().map(DiffStats::from),
            gates_passed: summary.gates_passed,
            gates: review.gates,
            verification: review.verification,
            self_review: review.self_review,
            can_approve: review.can_approve,
            approve_blocked: review.approve_blocked,
            cost_usd: summary.cost_usd,
            error: summary.error,
            confinement: review.confinement,
            next,
        }
    }
}

/// One code node's current attempt and its review.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeReview {
    node_id: String,
    #[serde(flatten)]
    review: ReviewStatus,
}

/// What `switchyard_review_status` (and `switchyard_approve`) return for a run.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunReview {
    run: String,
    mode: RunMode,
    state: RunState,
    reason: Option<RunReason>,
    launcher: String,
    /// The run's result waits for the human's decision.
    awaiting_review: bool,
    /// Each code node's current attempt (a cascade's: the rung that succeeded).
    attempts: Vec<NodeReview>,
    /// Approving the run is possible now: in review, one result, every gate passed.
    can_approve: bool,
    cost_usd: f64,
    next: String,
}

impl RunReview {
    /// The review of code run `detail`. Errors: `InvalidInput` for a text run.
    pub(crate) async fn of(
        engine: &Engine,
        detail: RunDetail,
        agent_may_approve: bool,
    ) -> Result<Self, EngineError> {
        let s = detail.summary.clone();
        if !detail.nodes.iter().any(|n| n.kind == NodeKind::Code) {
            return Err(EngineError::InvalidInput(format!(
                "run {} is a text run ({}); it has no review: read it with \
                 switchyard_run_result",
                s.id,
                s.mode.as_str()
            )));
        }
        let mut attempts = Vec::new();
        for node in &detail.nodes {
            if let Some(attempt) = node.current_attempt() {
                let review = engine.attempt_review(attempt).await?;
                attempts.push(NodeReview {
                    node_id: node.id.clone(),
                    review: ReviewStatus::of(review, agent_may_approve),
                });
            }
        }
        let in_review = s.state == RunState::Review;
        let can_approve = in_review && attempts.len() == 1 && attempts[0].review.can_approve;
        let next = match attempts.as_slice() {
            [one] if in_review => one.review.next.clone(),
            [_, _, ..] if in_review => format!(
                "Its {} results await the human, who picks one in the Switchyard app. Poll \
                 switchyard_review_status with this runId every 10-30 seconds until it is \
                 decided, and tell the user what you are waiting for.",
                attempts.len()
            ),
            _ => run_next(&detail, agent_may_approve),
        };
        Ok(Self {
            run: s.id,
            mode: s.mode,
            state: s.state,
            reason: s.reason,
            launcher: s.launcher,
            awaiting_review: in_review,
            attempts,
            can_approve,
            cost_usd: s.cost_usd,
            next,
        })
    }
}

/// The one sentence that tells a waiting agent where things stand.
fn next_step(
    state: AttemptState,
    decision: Option<&ReviewDecision>,
    integration: Option<&IntegrationRecord>,
    agent_can_approve: bool,
) -> String {
    match (state, decision) {
        (_, Some(ReviewDecision::ChangesRequested { next_attempt, .. })) => format!(
            "The human requested changes (see decision.comment and decision.lines); the \
             revision is attempt {next_attempt}: follow it with switchyard_review_status."
        ),
        (_, Some(ReviewDecision::Rejected { reason })) => {
            format!("The human rejected it: {reason}")
        }
        (AttemptState::Integrated, _) => match integration {
            Some(i) => format!(
                "Approved by the human and integrated into {} (now at {}).",
                i.branch, i.new
            ),
            None => "Approved by the human and integrated.".to_owned(),
        },
        (AttemptState::Approved, _) => "Approved and committed on its branch; not integrated \
             yet (integrating is retried from the app)."
            .to_owned(),
        (AttemptState::Review, _) if agent_can_approve => "Every gate passed. It awaits review: \
             the human may decide in the Switchyard app, or you may approve it with \
             switchyard_approve (Settings allow agents to approve work whose gates all passed)."
            .to_owned(),
        (AttemptState::Review, _) => "It awaits the human's review in the Switchyard app (the \
             app notified them). You cannot approve it: poll switchyard_review_status every \
             10-30 seconds until decision is set, and tell the user what you are waiting for."
            .to_owned(),
        (AttemptState::Queued | AttemptState::Preparing | AttemptState::Running, _) => {
            "The worker is still working; poll again.".to_owned()
        }
        (AttemptState::Verifying, _) => {
            "Switchyard is running the gates and the verification; poll again.".to_owned()
        }
        (AttemptState::Interrupted, _) => "It was interrupted (its owner process went away); \
             the human can recover it from the app or with `switchyard recover`."
            .to_owned(),
        (AttemptState::Failed, _) => "It failed; see error.".to_owned(),
        (AttemptState::Canceled, _) => "It was canceled.".to_owned(),
        (AttemptState::Rejected | AttemptState::Superseded, _) => {
            format!("It ended as {}.", state.as_str())
        }
    }
}

#[tool_router(router = review_tools, vis = "pub(crate)")]
impl Server {
    /// Where a code attempt, or a code run, stands in review.
    #[tool(
        name = "switchyard_review_status",
        description = "For a code attempt (attemptId) or a code run (runId): its state, diff \
                       stats (files, additions, deletions, hash), each gate's verdict, \
                       Switchyard's own verification, and whether the human approved, rejected \
                       or requested changes (with the comments). A run reports its state and \
                       each code attempt's review. `next` says what to do now.",
        annotations(
            title = "Review status",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn review_status(&self, Parameters(input): Parameters<ReviewInput>) -> CallToolResult {
        let engine = self.engine();
        let may_approve = self.agents_may_approve();
        match reviewed(input.attempt_id, input.run_id) {
            Err(refused) => refused,
            Ok(Reviewed::Attempt(id)) => match engine.attempt_review(&id).await {
                Ok(review) => reply::ok(&ReviewStatus::of(review, may_approve)),
                Err(error) => reply::engine_error(&error),
            },
            Ok(Reviewed::Run(id)) => {
                let review = match engine.poll_run(&id).await {
                    Ok(detail) => RunReview::of(engine, detail, may_approve).await,
                    Err(error) => Err(error),
                };
                reply::reply(review)
            }
        }
    }
}
