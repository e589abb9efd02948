//! Reviewing a code run: approving the run is approving its result through the attempts
//! engine (re-hash, commit, integrate): the attempt of its node in review for a single or
//! cascade run, or the member picked from a collective's compare group (the others are
//! rejected). Rejecting the run rejects every attempt still in review.

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
        let approved = if chosen.role == NodeRole::Member {
            let compare = self
                .attempt_summary(&winner)
                .await?
                .compare
                .ok_or_else(|| EngineError::Internal(format!("{winner} has no compare group")))?;
            self.pick_attempt(&compare, &winner, message).await
        } else {
            self.approve_attempt(&winner, message, true).await
        };
        let state = self.attempt_summary(&winner).await?.state;
        let node_state = match state {
            AttemptState::Approved | AttemptState::Integrated => NodeState::Approved,
            _ => return approved.and_then(|_| Err(EngineError::Internal("not approved".into()))),
        };
        self.move_node(
            id,
            &chosen.node_id,
            NodeState::Review,
            node_state,
            None,
            NodeChanges::new(),
            None,
        )
        .await?;
        for other in in_review.iter().filter(|n| n.node_id != chosen.node_id) {
            self.move_node(
                id,
                &other.node_id,
                NodeState::Review,
                NodeState::Rejected,
                None,
                NodeChanges::new(),
                Some("another result was picked".into()),
            )
            .await?;
        }
        self.move_run(
            &row,
            RunState::Approved,
            None,
            None,
            RunChanges::new(),
            None,
        )
        .await?;
        if state == AttemptState::Integrated {
            let row = self.run_row(id).await?;
            let changes = RunChanges::new().finished_ms(Some(now_ms()));
            self.move_run(&row, RunState::Integrated, None, None, changes, None)
                .await?;
        }
        approved?;
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
        for node in self.store().run_nodes(id).await? {
            if node.state != NodeState::Review {
                continue;
            }
            if let Some(attempt) = &node.attempt_id {
                if self.attempt_summary(attempt).await?.state == AttemptState::Review {
                    self.reject_attempt(attempt, reason).await?;
                }
            }
            self.move_node(
                id,
                &node.node_id,
                NodeState::Review,
                NodeState::Rejected,
                None,
                NodeChanges::new(),
                Some(reason.to_owned()),
            )
            .await?;
        }
        let changes = RunChanges::new().finished_ms(Some(now_ms()));
        self.move_run(
            &row,
            RunState::Failed,
            None,
            Some(RunReason::Rejected),
            changes,
            Some(reason.to_owned()),
        )
        .await?;
        self.run_detail(id).await
    }
}
