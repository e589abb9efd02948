//! Code plans and swarms. The run has an integration branch, `switchyard/run-<id>`, created
//! at the run's base. Each step is an attempt in its own worktree started from that branch's
//! tip when the step starts, so it sees what its dependencies merged. A step whose gates all
//! pass is committed and merged into the run branch by Switchyard (the attempts engine's
//! commit and clean-merge integration, with the diff's hash re-checked) and is `approved`;
//! dependents start from the branch after that. A step whose change does not merge cleanly
//! (another step changed the same lines) fails with the conflicting files, its attempt is
//! rejected, and its dependents are skipped; the other branches of the DAG go on.
//!
//! The combined node comes last: its attempt starts at the run's base and applies the run
//! branch's tree (`git read-tree -m -u`), so Switchyard runs every gate and the verification
//! again on the combined change, and the human reviews that one diff — each step's own diff
//! stays on its attempt. Approving it integrates the combined change into the user's branch
//! like any attempt; nothing reaches the user's branch before that.

use switchyard_core::attempt::AttemptState;
use switchyard_core::error::ErrorCode;
use switchyard_core::run::context::{ContextBuilder, DEFAULT_CONTEXT_CHARS};
use switchyard_core::run::{FailureSignal, NodeState};
use switchyard_runner::git::BRANCH_PREFIX;
use switchyard_store::runs::nodes::{NodeChanges, NodeRow};

use super::code::{
    follow, found, launch, outcome, reusable, CodeSetup, Launched, NoReview, Outcome, StartAt,
};
use super::code_ledger::settle;
use super::driver::RunCtx;
use super::now_ms;
use super::text::first_line;
use crate::attempts::open_repo;
use crate::EngineError;

/// The run branch of run `run_id`.
pub(crate) fn run_branch(run_id: &str) -> String {
    format!("{BRANCH_PREFIX}{}", run_branch_key(run_id))
}

/// What follows `switchyard/` in the run branch's name: the attempts sweep keeps it like an
/// attempt id.
pub(crate) fn run_branch_key(run_id: &str) -> String {
    format!("run-{run_id}")
}

/// The run branch's tip, creating the branch at the run's base first if it does not exist.
async fn run_branch_tip(ctx: &RunCtx, setup: &CodeSetup) -> Result<String, EngineError> {
    let repo = open_repo(&setup.repo).await?;
    let base = setup
        .base
        .clone()
        .ok_or_else(|| EngineError::Internal("the code run has no base".into()))?;
    Ok(repo.ensure_branch(&run_branch(&ctx.run_id), &base).await?)
}

/// What a step's worker is told: the run's task, the plan, its own step, and what the steps
/// it depends on changed (already in its worktree).
async fn step_prompt(ctx: &RunCtx, node: &NodeRow) -> (String, Option<String>) {
    let mut builder = ContextBuilder::new()
        .task(&ctx.task)
        .plan(&ctx.outline)
        .step(&node.node_id, &node.task);
    let nodes = ctx
        .engine
        .store()
        .run_nodes(&ctx.run_id)
        .await
        .unwrap_or_default();
    for dep in nodes
        .iter()
        .filter(|n| node.depends_on.contains(&n.node_id))
    {
        let files = match &dep.attempt_id {
            Some(attempt) => match ctx.engine.attempt_review(attempt).await {
                Ok(review) => review
                    .diff
                    .map(|d| d.files.into_iter().map(|f| f.path).collect::<Vec<_>>())
                    .unwrap_or_default(),
                Err(_) => Vec::new(),
            },
            None => Vec::new(),
        };
        let text = format!(
            "Its change is merged into {} and is already in your worktree. Files it changed: {}",
            run_branch(&ctx.run_id),
            if files.is_empty() {
                "(none listed)".to_owned()
            } else {
                files.join(", ")
            }
        );
        builder = builder.input(
            &dep.node_id,
            &format!("Step {} ({})", dep.node_id, first_line(&dep.task)),
            &text,
        );
    }
    let context = builder.build(DEFAULT_CONTEXT_CHARS);
    (context.prompt, serde_json::to_string(&context.trace).ok())
}

/// Runs step `node` (already `running`) to `approved` (merged into the run branch) or
/// `failed`; returns the state it ended in.
pub(crate) async fn run_step(ctx: &RunCtx, setup: &CodeSetup, node: &NodeRow) -> NodeState {
    match step(ctx, setup, node).await {
        Ok(Merged { attempt }) => {
            let changes = NodeChanges::new()
                .attempt(Some(attempt))
                .finished_ms(Some(now_ms()));
            let note = format!("merged into {}", run_branch(&ctx.run_id));
            if ctx
                .move_node(
                    &node.node_id,
                    NodeState::Verifying,
                    NodeState::Approved,
                    changes,
                    Some(note),
                )
                .await
            {
                NodeState::Approved
            } else {
                NodeState::Verifying
            }
        }
        Err((from, why)) => why.end(ctx, &node.node_id, from).await,
    }
}

struct Merged {
    attempt: String,
}

/// A step's attempt (the one already linked after a restart, else a new one from the run
/// branch's tip), then the merge. The error carries the node state it left the node in.
async fn step(
    ctx: &RunCtx,
    setup: &CodeSetup,
    node: &NodeRow,
) -> Result<Merged, (NodeState, NoReview)> {
    let running = |why: NoReview| (NodeState::Running, why);
    let worker = node.worker.clone().ok_or_else(|| {
        running(NoReview::Failed(
            ErrorCode::InvalidInput,
            "the step has no worker".into(),
            None,
        ))
    })?;
    let launched = match reusable(ctx, node.attempt_id.as_deref()).await {
        Some(id) => found(ctx, node, &id).await.map_err(running)?,
        None => {
            let tip = run_branch_tip(ctx, setup)
                .await
                .map_err(|e| running(e.into()))?;
            let (prompt, trace) = step_prompt(ctx, node).await;
            if let Some(trace) = trace {
                ctx.move_node_in_place(&node.node_id, NodeChanges::new().trace(trace))
                    .await;
            }
            let start = StartAt {
                commit: tip,
                branch: Some(run_branch(&ctx.run_id)),
                reservation: None,
            };
            launch(ctx, setup, node, &worker, &prompt, None, Some(&start))
                .await
                .map_err(running)?
        }
    };
    let summary = ctx
        .engine
        .attempt_summary(&launched.attempt)
        .await
        .map_err(|e| running(e.into()))?;
    let review = if matches!(
        summary.state,
        AttemptState::Approved | AttemptState::Integrated
    ) {
        // Merged (or committed) before a restart: nothing to wait for.
        ctx.engine
            .attempt_review(&launched.attempt)
            .await
            .map_err(|e| running(e.into()))?
    } else {
        let review = follow(ctx, &launched.attempt).await.map_err(running)?;
        settle(ctx, node, &worker, &launched, &review).await;
        review
    };
    match review.summary.state {
        AttemptState::Integrated => {
            verifying(ctx, node).await;
            return Ok(Merged {
                attempt: launched.attempt,
            });
        }
        AttemptState::Approved => {}
        _ => match outcome(&review) {
            Outcome::Review(None) => {}
            Outcome::Review(Some(signal)) => {
                return Err(running(gate_failed(ctx, &launched, signal).await));
            }
            Outcome::NoReview(why) => return Err(running(why)),
        },
    }
    merge(ctx, node, &launched).await
}

/// Moves running step `node` to `verifying` while its change is merged.
async fn verifying(ctx: &RunCtx, node: &NodeRow) -> bool {
    let note = format!("merging into {}", run_branch(&ctx.run_id));
    ctx.move_node(
        &node.node_id,
        NodeState::Running,
        NodeState::Verifying,
        NodeChanges::new(),
        Some(note),
    )
    .await
}

/// A step whose gate or verification failed is not merged: its attempt is rejected (its
/// diff and gates stay on record for the user), and the step fails with the gate's detail.
async fn gate_failed(ctx: &RunCtx, launched: &Launched, signal: FailureSignal) -> NoReview {
    let reason = format!(
        "not merged into {}: {}",
        run_branch(&ctx.run_id),
        signal.describe()
    );
    if let Err(error) = ctx.engine.reject_attempt(&launched.attempt, &reason).await {
        tracing::info!(run = %ctx.run_id, attempt = %launched.attempt, %error, "step attempt not rejected");
    }
    NoReview::Failed(ErrorCode::GateFailed, reason, Some(signal))
}

/// Commits the step's verified change and merges it into the run branch.
async fn merge(
    ctx: &RunCtx,
    node: &NodeRow,
    launched: &Launched,
) -> Result<Merged, (NodeState, NoReview)> {
    if !verifying(ctx, node).await {
        return Err((NodeState::Running, NoReview::Stopped));
    }
    let failed = |why: NoReview| (NodeState::Verifying, why);
    let branch = run_branch(&ctx.run_id);
    let message = format!(
        "{} ({}: {})",
        first_line(&node.task),
        ctx.run_id,
        node.node_id
    );
    match ctx
        .engine
        .approve_attempt(&launched.attempt, &message, true)
        .await
    {
        Ok(review) if review.summary.state == AttemptState::Integrated => Ok(Merged {
            attempt: launched.attempt.clone(),
        }),
        Ok(review) => Err(failed(NoReview::Failed(
            ErrorCode::Internal,
            format!(
                "the step's attempt is {} after merging",
                review.summary.state.as_str()
            ),
            None,
        ))),
        Err(EngineError::Conflict(detail)) => {
            // The attempts engine's message ends with advice for a user's own branch.
            let detail = detail
                .split(". The branch and your working tree")
                .next()
                .unwrap_or_default()
                .to_owned();
            let reason = format!(
                "its change conflicts with what other steps merged into {branch}: {detail}"
            );
            if let Err(error) = ctx.engine.reject_attempt(&launched.attempt, &reason).await {
                tracing::info!(run = %ctx.run_id, attempt = %launched.attempt, %error, "conflicting attempt not rejected");
            }
            Err(failed(NoReview::Failed(ErrorCode::Conflict, reason, None)))
        }
        Err(error) => Err(failed(error.into())),
    }
}

/// The combined node: an attempt at the run's base that applies the run branch, through
/// every gate and the verification, to review. Returns its attempt id for the code node's
/// move to `review`.
pub(super) async fn combined(
    ctx: &RunCtx,
    setup: &CodeSetup,
    node: &NodeRow,
) -> Result<String, NoReview> {
    let steps: Vec<NodeRow> = ctx
        .engine
        .store()
        .run_nodes(&ctx.run_id)
        .await
        .map_err(EngineError::from)?
        .into_iter()
        .filter(|n| node.depends_on.contains(&n.node_id) && n.state == NodeState::Approved)
        .collect();
    let merged = steps.len();
    let base = setup
        .base
        .clone()
        .ok_or_else(|| NoReview::Failed(ErrorCode::Internal, "the run has no base".into(), None))?;
    let (launched, worker) = match reusable(ctx, node.attempt_id.as_deref()).await {
        Some(id) => (
            found(ctx, node, &id).await?,
            node.worker.clone().unwrap_or_default(),
        ),
        None => {
            let tip = run_branch_tip(ctx, setup).await?;
            if merged == 0 || tip == base {
                return Err(NoReview::Failed(
                    ErrorCode::NotFound,
                    "no step's change was merged into the run branch; nothing to review".into(),
                    None,
                ));
            }
            let worker = format!("exec:git read-tree -m -u HEAD {tip}");
            // Its context: the run's task and the steps whose changes it brings together.
            let mut builder = ContextBuilder::new().task(&ctx.task);
            for step in &steps {
                builder = builder.input(
                    &step.node_id,
                    &format!("Step {} ({})", step.node_id, first_line(&step.task)),
                    &format!("merged into {}", run_branch(&ctx.run_id)),
                );
            }
            let mut changes = NodeChanges::new().worker(Some(worker.clone()));
            if let Ok(trace) = serde_json::to_string(&builder.build(DEFAULT_CONTEXT_CHARS).trace) {
                changes = changes.trace(trace);
            }
            ctx.move_node_in_place(&node.node_id, changes).await;
            let task = format!(
                "{}\n\nThe combined change of {merged} step(s), merged on {}.",
                ctx.task,
                run_branch(&ctx.run_id)
            );
            let start = StartAt {
                commit: base,
                branch: None,
                reservation: Some(0.0),
            };
            let launched = launch(ctx, setup, node, &worker, &task, None, Some(&start)).await?;
            (launched, worker)
        }
    };
    let review = follow(ctx, &launched.attempt).await?;
    settle(ctx, node, &worker, &launched, &review).await;
    match outcome(&review) {
        Outcome::Review(_) => Ok(launched.attempt),
        Outcome::NoReview(why) => Err(why),
    }
}
