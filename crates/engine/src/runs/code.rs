//! Code nodes: a node's tries are attempts of the attempts engine — each in its own
//! worktree, through Switchyard's gates and verification, to review — linked to the run by
//! `run_id` / `node_id`. Each attempt reserves its worst case first: a model worker's whole
//! token budget at its model's price, or the run's per-attempt CLI reservation; it settles
//! with the attempt's cost (the reservation when a CLI reported none).
//!
//! A cascade escalates when a rung's verification or a gate failed, or its worker failed;
//! the next rung's task carries the failure. A collective's members are one compare group,
//! launched together. A node whose attempt already exists (a collective member, or a node
//! being recovered) follows that attempt, recovering it first if it was interrupted.

use switchyard_core::attempt::{AttemptRequest, AttemptReview, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateName;
use switchyard_core::run::cascade::Rung;
use switchyard_core::run::context::{ContextBuilder, DEFAULT_CONTEXT_CHARS};
use switchyard_core::run::{
    CallPurpose, CallState, FailureSignal, NodeRole, NodeState, RungOutcome,
};
use switchyard_core::worker::WorkerSpec;
use switchyard_store::runs::calls::CallEnd;
use switchyard_store::runs::nodes::{NodeChanges, NodeRow};

use super::cascade::Tried;
use super::code_ledger::{attempt_worst, finish, released, reserve, settle};
use super::driver::RunCtx;
use super::now_ms;
use crate::attempts::Origin;
use crate::EngineError;

/// What a code run's nodes share.
#[derive(Debug, Clone)]
pub(crate) struct CodeSetup {
    pub repo: String,
    /// The repository's head when the run was recorded: a plan's or swarm's run branch
    /// starts there.
    pub base: Option<String>,
    pub verify: Option<Vec<String>>,
    pub preset: Option<String>,
    pub launcher: String,
    pub allow_network: bool,
    pub allow_write: Vec<String>,
    /// Each attempt writes a self-review after verification.
    pub self_review: bool,
}

/// The worker a code node runs for `entry`: a worker spec as given (`claude`, `exec:…`,
/// `model:…`), or the model worker for a model reference.
pub(crate) fn worker_for(entry: &str) -> String {
    let entry = entry.trim();
    match WorkerSpec::parse(entry) {
        Ok(_) => entry.to_owned(),
        Err(_) => format!("model:{entry}"),
    }
}

/// The model a worker calls when it is the model worker.
pub(crate) fn worker_model(worker: &str) -> Option<String> {
    match WorkerSpec::parse(worker) {
        Ok(WorkerSpec::Model { id }) => Some(id),
        _ => None,
    }
}

/// How a node's attempt did not get to review.
pub(super) enum NoReview {
    Failed(ErrorCode, String, Option<FailureSignal>),
    Budget(String),
    Stopped,
}

impl From<EngineError> for NoReview {
    fn from(error: EngineError) -> Self {
        NoReview::Failed(error.code(), error.to_string(), None)
    }
}

/// A launched (or found) attempt and its reserved call, if this engine reserved one.
pub(super) struct Launched {
    pub attempt: String,
    pub call: Option<(u32, f64)>,
}

/// Runs code node `node` (chosen by the driver, still `pending`); returns the state it ended
/// in.
pub(crate) async fn run_code_node(ctx: &RunCtx, node: &NodeRow) -> NodeState {
    if !ctx.begin_node(&node.node_id, None).await {
        return NodeState::Pending;
    }
    let Some(setup) = ctx.code.clone() else {
        return ctx
            .fail_node(
                &node.node_id,
                NodeState::Running,
                ErrorCode::Internal,
                "not a code run",
            )
            .await;
    };
    let ended = match node.role {
        NodeRole::Cascade => cascade(ctx, &setup, node).await,
        NodeRole::Step => return super::combine::run_step(ctx, &setup, node).await,
        NodeRole::Merge => super::combine::combined(ctx, &setup, node).await,
        _ => single(ctx, &setup, node).await,
    };
    match ended {
        Ok(attempt) => {
            let changes = NodeChanges::new()
                .attempt(Some(attempt))
                .finished_ms(Some(now_ms()));
            if ctx
                .move_node(
                    &node.node_id,
                    NodeState::Running,
                    NodeState::Review,
                    changes,
                    None,
                )
                .await
            {
                NodeState::Review
            } else {
                NodeState::Running
            }
        }
        Err(why) => why.end(ctx, &node.node_id, NodeState::Running).await,
    }
}

impl NoReview {
    /// Ends node `node_id` (now in `from`) the way this says: failed (over budget, or its
    /// attempt canceled outside the run), or stopped with the run.
    pub(super) async fn end(self, ctx: &RunCtx, node_id: &str, from: NodeState) -> NodeState {
        match self {
            NoReview::Failed(code, message, _) => {
                ctx.fail_node(node_id, from, code, &message).await
            }
            NoReview::Budget(message) => {
                let message = format!("budget_exceeded: {message}");
                ctx.fail_node(node_id, from, ErrorCode::InvalidInput, &message)
                    .await
            }
            NoReview::Stopped if !ctx.control.halted() => {
                // Canceled from the review page (or by an engine closing), not by this run.
                let message = "its attempt was canceled outside the run";
                ctx.fail_node(node_id, from, ErrorCode::Canceled, message)
                    .await
            }
            NoReview::Stopped => ctx.stop_node(node_id, from).await,
        }
    }
}

/// One attempt (or the one already linked); review whatever its gates said.
async fn single(ctx: &RunCtx, setup: &CodeSetup, node: &NodeRow) -> Result<String, NoReview> {
    let worker = node.worker.clone().ok_or_else(|| {
        NoReview::Failed(
            ErrorCode::InvalidInput,
            "the node has no worker".into(),
            None,
        )
    })?;
    let launched = match reusable(ctx, node.attempt_id.as_deref()).await {
        Some(id) => found(ctx, node, &id).await?,
        None => {
            record_task_trace(ctx, node).await;
            launch(ctx, setup, node, &worker, &node.task, None, None).await?
        }
    };
    let review = follow(ctx, &launched.attempt).await?;
    settle(ctx, node, &worker, &launched, &review).await;
    match outcome(&review) {
        Outcome::Review(_) => Ok(launched.attempt),
        Outcome::NoReview(why) => Err(why),
    }
}

/// Records that the worker's prompt is the node's task (a cascade's later rungs record their
/// own, with the failures before them), so the run page says what the worker was given.
async fn record_task_trace(ctx: &RunCtx, node: &NodeRow) {
    if let Some(trace) = task_trace(node) {
        ctx.move_node_in_place(&node.node_id, NodeChanges::new().trace(trace))
            .await;
    }
}

/// The trace of a prompt that is the node's task alone, as stored.
fn task_trace(node: &NodeRow) -> Option<String> {
    let context = ContextBuilder::new()
        .task(&node.task)
        .build(DEFAULT_CONTEXT_CHARS);
    serde_json::to_string(&context.trace).ok()
}

async fn cascade(ctx: &RunCtx, setup: &CodeSetup, node: &NodeRow) -> Result<String, NoReview> {
    let Some(ladder) = ctx.ladder.clone() else {
        return Err(NoReview::Failed(
            ErrorCode::Internal,
            "the cascade has no ladder".into(),
            None,
        ));
    };
    let mut rungs = CodeRungs {
        ctx,
        setup,
        node,
        resume: current_rungs_attempt(ctx, node).await,
        last: None,
    };
    super::cascade::climb(ctx, node, &ladder, &mut rungs).await
}

/// The attempt a recovered cascade node takes up: the one linked to it, unless that belongs
/// to an earlier rung (the owner died after reserving the current rung's call, before its
/// attempt was linked): that rung was decided already.
async fn current_rungs_attempt(ctx: &RunCtx, node: &NodeRow) -> Option<String> {
    let attempt = reusable(ctx, node.attempt_id.as_deref()).await?;
    let calls = ctx.engine.store().run_calls(&ctx.run_id).await.ok()?;
    let earlier = calls.iter().any(|c| {
        c.node_id == node.node_id
            && c.attempt_id.as_deref() == Some(attempt.as_str())
            && c.rung != node.rung
    });
    (!earlier).then_some(attempt)
}

/// A code cascade's rungs: an attempt each, through verification and the gates to review.
struct CodeRungs<'a> {
    ctx: &'a RunCtx,
    setup: &'a CodeSetup,
    node: &'a NodeRow,
    /// The attempt a recovered node was following, taken up by the first rung tried.
    resume: Option<String>,
    /// The rung tried last: its attempt, whether that reached review, and its call.
    last: Option<(String, bool, Option<u32>)>,
}

impl super::cascade::Rungs for CodeRungs<'_> {
    type Success = String;
    type Stop = NoReview;

    async fn try_rung(
        &mut self,
        number: u32,
        rung: &Rung,
        failures: &[(u32, FailureSignal)],
    ) -> Result<Tried<String>, NoReview> {
        let (ctx, node) = (self.ctx, self.node);
        let worker = worker_for(&rung.model);
        let mut builder = ContextBuilder::new().step(&node.node_id, &node.task);
        for (at, signal) in failures {
            builder = builder.failure(*at, &signal.describe());
        }
        let context = builder.build(DEFAULT_CONTEXT_CHARS);
        if let Ok(json) = serde_json::to_string(&context.trace) {
            ctx.move_node_in_place(
                &node.node_id,
                NodeChanges::new()
                    .trace(json)
                    .rung(Some(number))
                    .worker(Some(worker.clone()))
                    .model(worker_model(&worker)),
            )
            .await;
        }
        let task = if failures.is_empty() {
            node.task.clone()
        } else {
            context.prompt
        };
        let launched = match self.resume.take() {
            Some(id) => found(ctx, node, &id).await?,
            None => launch(ctx, self.setup, node, &worker, &task, Some(number), None).await?,
        };
        let review = follow(ctx, &launched.attempt).await?;
        settle(ctx, node, &worker, &launched, &review).await;
        let in_review = review.summary.state == AttemptState::Review;
        self.last = Some((
            launched.attempt.clone(),
            in_review,
            launched.call.map(|(n, _)| n),
        ));
        let outcome = match outcome(&review) {
            Outcome::Review(None) => RungOutcome::Succeeded,
            Outcome::Review(Some(signal)) => RungOutcome::Failed(signal),
            Outcome::NoReview(NoReview::Failed(code, message, signal)) => RungOutcome::Failed(
                signal.unwrap_or(FailureSignal::ProviderFailed { code, message }),
            ),
            Outcome::NoReview(other) => return Err(other),
        };
        Ok(Tried {
            outcome,
            success: Some(launched.attempt),
        })
    }

    async fn escalated(&mut self, _number: u32, signal: &FailureSignal) {
        let ctx = self.ctx;
        let Some((attempt, in_review, call)) = self.last.take() else {
            return;
        };
        if in_review {
            // Out of the user's way: the next rung carries the task now.
            let _ = ctx
                .engine
                .reject_attempt(&attempt, "the cascade escalated to the next rung")
                .await;
        }
        // On record for a resume (a worker that failed settled its call without a signal).
        if let (Some(n), Ok(json)) = (call, serde_json::to_string(signal)) {
            let _ = ctx
                .engine
                .store()
                .set_call_signal(&ctx.run_id, &self.node.node_id, n, ctx.token(), &json)
                .await;
        }
    }

    fn stopped(&self) -> NoReview {
        NoReview::Stopped
    }

    fn lost(&self) -> NoReview {
        NoReview::Failed(ErrorCode::Internal, "no attempt".into(), None)
    }

    fn exhausted(&self, last: String) -> NoReview {
        NoReview::Failed(
            ErrorCode::GateFailed,
            format!("every rung of the cascade failed; the last: {last}"),
            None,
        )
    }
}

/// Where an attempt starts when not at the repository's head: a commit, and the branch its
/// approval integrates into (`None`: the branch checked out in the repository now).
#[derive(Debug, Clone)]
pub(super) struct StartAt {
    pub commit: String,
    pub branch: Option<String>,
    /// What the attempt reserves instead of its worker's worst case (applying a branch calls
    /// no model: nothing).
    pub reservation: Option<f64>,
}

/// Reserves and starts one attempt of `node` by `worker` on `task`, at the repository's head
/// or at `start`.
pub(super) async fn launch(
    ctx: &RunCtx,
    setup: &CodeSetup,
    node: &NodeRow,
    worker: &str,
    task: &str,
    rung: Option<u32>,
    start: Option<&StartAt>,
) -> Result<Launched, NoReview> {
    let worst = match start.and_then(|s| s.reservation) {
        Some(usd) => usd,
        None => attempt_worst(ctx, worker)?,
    };
    let n = reserve(ctx, node, worker, rung, worst).await?;
    let request = AttemptRequest {
        repo: setup.repo.clone(),
        task: task.to_owned(),
        worker: worker.to_owned(),
        verify: setup.verify.clone(),
        lock: Vec::new(),
        timeout_secs: Some(ctx.limits.code_node_timeout_s),
        preset: setup.preset.clone(),
        allow_network: setup.allow_network,
        allow_write: setup.allow_write.clone(),
        self_review: setup.self_review,
    };
    let started = async {
        let mut prepared = ctx.engine.prepare_attempt(request).await?;
        if let Some(start) = start {
            prepared.base.commit = start.commit.clone();
            if start.branch.is_some() {
                prepared.base.branch = start.branch.clone();
            }
            // The repository's uncommitted changes are not what this attempt starts from.
            prepared.base.dirty = false;
            prepared.base.dirty_count = 0;
            prepared.base.dirty_files.clear();
        }
        ctx.engine
            .launch_attempt(&prepared, worker, &setup.launcher, Origin::default())
            .await
    }
    .await;
    let attempt = match started {
        Ok(summary) => summary.id,
        Err(error) => {
            let end = CallEnd {
                state: CallState::Released,
                cost_usd: 0.0,
                tokens_in: 0,
                tokens_out: 0,
                finished_ms: now_ms(),
                error: Some(error.to_string()),
                signal_json: None,
                attempt_id: None,
            };
            finish(ctx, node, worker, n, worst, &end).await;
            return Err(error.into());
        }
    };
    link(ctx, node, &attempt).await;
    Ok(Launched {
        attempt,
        call: Some((n, worst)),
    })
}

/// The attempt linked to a node that is worth following: not one canceled under it (an
/// engine closing mid-run cancels its attempts; the recovered node starts a new one).
pub(super) async fn reusable(ctx: &RunCtx, attempt: Option<&str>) -> Option<String> {
    let attempt = attempt?;
    match ctx.engine.attempt_summary(attempt).await {
        Ok(summary) if summary.state != AttemptState::Canceled => Some(attempt.to_owned()),
        _ => None,
    }
}

/// An attempt linked to `node` already: launched with the collective's compare group, or
/// left by a dead owner (recovered first when interrupted).
pub(super) async fn found(
    ctx: &RunCtx,
    node: &NodeRow,
    attempt: &str,
) -> Result<Launched, NoReview> {
    let summary = ctx.engine.attempt_summary(attempt).await?;
    let mut reserved = ctx
        .engine
        .store()
        .run_calls(&ctx.run_id)
        .await
        .map_err(EngineError::from)?
        .into_iter()
        .find(|c| {
            c.node_id == node.node_id
                && c.purpose == CallPurpose::Attempt
                && c.state == CallState::Reserved
        })
        .map(|c| (c.n, c.reserved_usd));
    if summary.state == AttemptState::Interrupted {
        // Its reservation was settled as lost when its owner died; the worker runs again, so
        // it reserves again (and its try is linked to the node when it settles).
        if reserved.is_none() {
            let worker = node
                .worker
                .clone()
                .unwrap_or_else(|| summary.worker.clone());
            let worst = attempt_worst(ctx, &worker)?;
            let n = reserve(ctx, node, &worker, node.rung, worst).await?;
            reserved = Some((n, worst));
        }
        if let Err(error) = ctx.engine.recover_attempt(attempt).await {
            if let Some((n, worst)) = reserved {
                let worker = node
                    .worker
                    .clone()
                    .unwrap_or_else(|| summary.worker.clone());
                finish(ctx, node, &worker, n, worst, &released(&error.to_string())).await;
            }
            return Err(error.into());
        }
    }
    Ok(Launched {
        attempt: attempt.to_owned(),
        call: reserved,
    })
}

/// Links `attempt` to `node` (both ways).
async fn link(ctx: &RunCtx, node: &NodeRow, attempt: &str) {
    if let Err(error) = ctx
        .engine
        .store()
        .link_attempt_to_run(attempt, &ctx.run_id, &node.node_id)
        .await
    {
        tracing::warn!(run = %ctx.run_id, %attempt, %error, "attempt not linked to its run");
    }
    ctx.move_node_in_place(
        &node.node_id,
        NodeChanges::new().attempt(Some(attempt.to_owned())),
    )
    .await;
}

/// Waits for `attempt` to leave its live states; cancels it (and returns it canceled) when
/// the run stops.
pub(super) async fn follow(ctx: &RunCtx, attempt: &str) -> Result<AttemptReview, NoReview> {
    tokio::select! {
        biased;
        () = ctx.control.cancel.cancelled() => {
            if let Err(error) = ctx.engine.cancel_attempt(attempt).await {
                tracing::info!(run = %ctx.run_id, %attempt, %error, "attempt not canceled");
            }
            // Its review (canceled) settles its reservation; the outcome is `Stopped`.
            Ok(ctx.engine.attempt_review(attempt).await?)
        }
        review = ctx.engine.wait_attempt(attempt) => Ok(review?),
    }
}

pub(super) enum Outcome {
    /// In review; with the failure signal when a gate or the verification failed.
    Review(Option<FailureSignal>),
    NoReview(NoReview),
}

pub(super) fn outcome(review: &AttemptReview) -> Outcome {
    match review.summary.state {
        AttemptState::Review => Outcome::Review(review.gates.iter().find(|g| !g.passed).map(|g| {
            match g.name {
                GateName::Verification => FailureSignal::VerificationFailed {
                    detail: g.detail.clone(),
                },
                other => FailureSignal::GateFailed {
                    gate: serde_json::to_value(other)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_else(|| format!("{other:?}")),
                    detail: g.detail.clone(),
                },
            }
        })),
        AttemptState::Canceled | AttemptState::Interrupted => Outcome::NoReview(NoReview::Stopped),
        state => {
            let (code, message) = review.summary.error.as_ref().map_or_else(
                || {
                    (
                        ErrorCode::WorkerFailed,
                        format!("the attempt is {}", state.as_str()),
                    )
                },
                |e| (e.code, e.message.clone()),
            );
            Outcome::NoReview(NoReview::Failed(code, message, None))
        }
    }
}

/// For a collective code run: reserves every member's attempt and launches them together as
/// one compare group from the same base, each linked to its node. Members already linked
/// (a recovered run) are left alone. A reservation that does not fit stops the run.
pub(crate) async fn launch_compare(ctx: &RunCtx, setup: &CodeSetup) -> Result<(), EngineError> {
    let nodes = ctx.engine.store().run_nodes(&ctx.run_id).await?;
    let members: Vec<&NodeRow> = nodes
        .iter()
        .filter(|n| {
            n.role == NodeRole::Member && n.attempt_id.is_none() && n.state == NodeState::Pending
        })
        .collect();
    if members.is_empty() {
        return Ok(());
    }
    let mut reserved = Vec::new();
    for member in &members {
        let worker = member.worker.clone().unwrap_or_default();
        let worst = match attempt_worst(ctx, &worker) {
            Ok(worst) => worst,
            Err(_) => {
                return Err(EngineError::InvalidInput(format!(
                    "{worker} cannot be priced"
                )))
            }
        };
        match reserve(ctx, member, &worker, None, worst).await {
            Ok(n) => reserved.push((*member, worker, n, worst)),
            Err(_) => {
                for (node, worker, n, worst) in &reserved {
                    let end = released("the collective did not fit under the cap");
                    finish(ctx, node, worker, *n, *worst, &end).await;
                }
                return Ok(());
            }
        }
    }
    let workers: Vec<String> = reserved.iter().map(|(_, w, _, _)| w.clone()).collect();
    let request = AttemptRequest {
        repo: setup.repo.clone(),
        task: ctx.task.clone(),
        worker: workers.first().cloned().unwrap_or_default(),
        verify: setup.verify.clone(),
        lock: Vec::new(),
        timeout_secs: Some(ctx.limits.code_node_timeout_s),
        preset: setup.preset.clone(),
        allow_network: setup.allow_network,
        allow_write: setup.allow_write.clone(),
        self_review: setup.self_review,
    };
    let compare = match ctx
        .engine
        .start_compare(request, workers, &setup.launcher)
        .await
    {
        Ok(compare) => compare,
        Err(error) => {
            for (node, worker, n, worst) in &reserved {
                finish(ctx, node, worker, *n, *worst, &released(&error.to_string())).await;
            }
            return Err(error);
        }
    };
    for ((node, _, _, _), attempt) in reserved.iter().zip(&compare.attempts) {
        if let Err(error) = ctx
            .engine
            .store()
            .link_attempt_to_run(&attempt.id, &ctx.run_id, &node.node_id)
            .await
        {
            tracing::warn!(run = %ctx.run_id, %error, "attempt not linked to its run");
        }
        let mut changes = NodeChanges::new().attempt(Some(attempt.id.clone()));
        if let Some(trace) = task_trace(node) {
            changes = changes.trace(trace);
        }
        let _ = ctx
            .engine
            .store()
            .update_node(
                &ctx.run_id,
                &node.node_id,
                NodeState::Pending,
                Some(ctx.token()),
                &changes,
            )
            .await;
    }
    Ok(())
}
