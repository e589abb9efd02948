//! Reviewing a code run: approving the run is approving its result through the attempts
//! engine (re-hash, commit, integrate): the attempt of its node in review for a single or
//! cascade run, or the member picked from a collective's compare group (the others are
//! rejected). Rejecting the run rejects every attempt still in review.
//!
//! The run follows its attempts' decisions wherever they are made — the run page, the review
//! page, the CLI's `approve`/`reject` of an attempt id, an agent — because the attempts
//! engine calls [`Engine::sync_run_of`] after each approve and reject.

use switchyard_core::attempt::AttemptState;
use switchyard_core::run::{NodeRole, NodeState, RunDetail, RunReason, RunState};
use switchyard_store::runs::nodes::{NodeChanges, NodeRow};
use switchyard_store::runs::RunChanges;

use super::now_ms;
use crate::{Engine, EngineError};

impl Engine {
    /// Approves code run `id` in review: its result's attempt is approved and integrated
    /// into the target branch (see [`Engine::approve_attempt`]); for a collective, `attempt`
    /// names the member picked (the others are rejected). The run becomes `integrated` (or
    /// `approved` when integrating failed; the error is returned then).
    ///
    /// Errors: `NotFound`; `InvalidInput` when the run is not in review or `attempt` is
    /// missing or not one of its attempts; those of `approve_attempt` (`GateFailed`,
    /// `Changed`, `Conflict`, …).
    pub async fn approve_run(
        &self,
        id: &str,
        attempt: Option<&str>,
        message: &str,
    ) -> Result<RunDetail, EngineError> {
        let row = self.run_row(id).await?;
        if row.state != RunState::Review {
            return Err(EngineError::InvalidInput(format!(
                "run {id} is {}; only a run in review can be approved",
                row.state.as_str()
            )));
        }
        let nodes = self.store().run_nodes(id).await?;
        let in_review: Vec<&NodeRow> = nodes
            .iter()
            .filter(|n| n.state == NodeState::Review && n.attempt_id.is_some())
            .collect();
        let chosen = match attempt {
            Some(wanted) => in_review
                .iter()
                .find(|n| n.attempt_id.as_deref() == Some(wanted))
                .copied()
                .ok_or_else(|| {
                    EngineError::InvalidInput(format!(
                        "attempt {wanted} is not a result of run {id} awaiting review"
                    ))
                })?,
            None if in_review.len() == 1 => in_review[0],
            None => {
                return Err(EngineError::InvalidInput(format!(
                    "run {id} has {} results in review; name the attempt to approve",
                    in_review.len()
                )))
            }
        };
        let winner = chosen.attempt_id.clone().unwrap_or_default();
        // The attempts engine syncs the run (see `sync_run_of`) whether integrating worked or
        // the attempt stayed approved; its error is the caller's either way.
        if chosen.role == NodeRole::Member {
            let compare = self
                .attempt_summary(&winner)
                .await?
                .compare
                .ok_or_else(|| EngineError::Internal(format!("{winner} has no compare group")))?;
            self.pick_attempt(&compare, &winner, message).await?;
        } else {
            self.approve_attempt(&winner, message, true).await?;
        }
        self.run_detail(id).await
    }

    /// Rejects code run `id` in review: every attempt of it still in review is rejected with
    /// `reason`; the run fails with reason `rejected`. Errors: `NotFound`; `InvalidInput`
    /// when the run is not in review.
    pub async fn reject_run(&self, id: &str, reason: &str) -> Result<RunDetail, EngineError> {
        let row = self.run_row(id).await?;
        if row.state != RunState::Review {
            return Err(EngineError::InvalidInput(format!(
                "run {id} is {}; only a run in review can be rejected",
                row.state.as_str()
            )));
        }
        let nodes = self.store().run_nodes(id).await?;
        // The run and its nodes first, so they carry the user's reason (rejecting the
        // attempts one by one would settle the run with a generic note).
        self.settle_run_review(id, Some(reason)).await?;
        for node in nodes.iter().filter(|n| n.state == NodeState::Review) {
            if let Some(attempt) = &node.attempt_id {
                if self.attempt_summary(attempt).await?.state == AttemptState::Review {
                    self.reject_attempt(attempt, reason).await?;
                }
            }
        }
        self.run_detail(id).await
    }

    /// After attempt `attempt` was approved, integrated or rejected (from the run page, the
    /// review page, the CLI or an agent): the run it belongs to, when in review, follows —
    /// see [`Engine::settle_run_review`]. Never fails the caller's review action: a run
    /// that could not follow is logged and catches up at the next action.
    pub(crate) async fn sync_run_of(&self, attempt: &str) {
        let run = match self.store().run_of_attempt(attempt).await {
            Ok(Some(run)) => run,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(%attempt, %error, "could not look up the attempt's run");
                return;
            }
        };
        if let Err(error) = self.settle_run_review(&run, None).await {
            tracing::warn!(%run, %attempt, %error, "the run did not follow its attempt's review");
        }
    }

    /// After changes were requested on attempt `old` (continued by `new`): the run's node
    /// that awaited `old` awaits `new` — so approving the revision, wherever it is done,
    /// settles the run. Never fails the caller; a node that could not follow is logged.
    pub(crate) async fn sync_run_to_revision(&self, old: &str, new: &str) {
        let run = match self.store().run_of_attempt(old).await {
            Ok(Some(run)) => run,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(attempt = %old, %error, "could not look up the attempt's run");
                return;
            }
        };
        let nodes = match self.store().run_nodes(&run).await {
            Ok(nodes) => nodes,
            Err(error) => {
                tracing::warn!(%run, %error, "the run's nodes are unreadable");
                return;
            }
        };
        let Some(node) = nodes
            .iter()
            .find(|n| n.attempt_id.as_deref() == Some(old) && n.state == NodeState::Review)
        else {
            return;
        };
        let linked = async {
            self.store()
                .link_attempt_to_run(new, &run, &node.node_id)
                .await?;
            self.relink_node(&run, &node.node_id, new).await
        }
        .await;
        if let Err(error) = linked {
            tracing::warn!(%run, attempt = %new, %error, "the run's node did not follow the revision");
        }
    }

    /// Moves run `id` (when in review) and its nodes in review after their attempts'
    /// decisions: a node whose attempt is approved or integrated is approved and every other
    /// node in review is rejected (another result was picked); the run becomes `approved`,
    /// or `integrated` once its result is. A node whose attempt was rejected is rejected
    /// (`reject_reason` for nodes without such an attempt, when the whole run is rejected);
    /// when no node is left in review and none was approved, the run fails `rejected`.
    /// Guarded updates make it idempotent: whoever acts second changes nothing.
    pub(crate) async fn settle_run_review(
        &self,
        id: &str,
        reject_reason: Option<&str>,
    ) -> Result<(), EngineError> {
        let row = self.run_row(id).await?;
        if row.state != RunState::Review {
            return Ok(());
        }
        let nodes = self.store().run_nodes(id).await?;
        let mut decided = Vec::new();
        for node in nodes.iter().filter(|n| n.state == NodeState::Review) {
            let state = match &node.attempt_id {
                Some(attempt) => Some(self.attempt_summary(attempt).await?.state),
                None => None,
            };
            decided.push((node, state));
        }
        let winner = decided
            .iter()
            .find(|(_, s)| matches!(s, Some(AttemptState::Approved | AttemptState::Integrated)));
        if let Some((chosen, state)) = winner {
            let integrated = *state == Some(AttemptState::Integrated);
            for (node, _) in &decided {
                let (to, note) = if node.node_id == chosen.node_id {
                    (NodeState::Approved, None)
                } else {
                    (
                        NodeState::Rejected,
                        Some("another result was picked".to_owned()),
                    )
                };
                self.move_node(
                    id,
                    &node.node_id,
                    NodeState::Review,
                    to,
                    None,
                    NodeChanges::new(),
                    note,
                )
                .await?;
            }
            if !self
                .move_run(
                    &row,
                    RunState::Approved,
                    None,
                    None,
                    RunChanges::new(),
                    None,
                )
                .await?
            {
                return Ok(());
            }
            if integrated {
                let row = self.run_row(id).await?;
                let changes = RunChanges::new().finished_ms(Some(now_ms()));
                self.move_run(&row, RunState::Integrated, None, None, changes, None)
                    .await?;
            }
            return Ok(());
        }
        let mut open = 0;
        for (node, state) in &decided {
            let rejected = *state == Some(AttemptState::Rejected);
            if !rejected && reject_reason.is_none() {
                open += 1;
                continue;
            }
            let note = reject_reason.map(str::to_owned);
            self.move_node(
                id,
                &node.node_id,
                NodeState::Review,
                NodeState::Rejected,
                None,
                NodeChanges::new(),
                note,
            )
            .await?;
        }
        if open == 0 {
            let changes = RunChanges::new().finished_ms(Some(now_ms()));
            self.move_run(
                &row,
                RunState::Failed,
                None,
                Some(RunReason::Rejected),
                changes,
                Some(
                    reject_reason
                        .unwrap_or("every result was rejected")
                        .to_owned(),
                ),
            )
            .await?;
        }
        Ok(())
    }
}
