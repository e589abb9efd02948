//! Advancing runs and nodes: every change is checked against the pure state machine, applied
//! as a guarded update together with its entry in the run's numbered log (one transaction),
//! and only then broadcast.

use switchyard_core::run::{CallState, NodeState, RunLog, RunReason, RunState};
use switchyard_store::journal::Journal;
use switchyard_store::runs::calls::{CallEnd, NewCall, Reserved};
use switchyard_store::runs::nodes::NodeChanges;
use switchyard_store::runs::{RunChanges, RunGuard, RunRow};

use super::now_ms;
use crate::events::EngineEvent;
use crate::{Engine, EngineError};
use switchyard_store::StoreError;

/// A ledger move as logged.
#[derive(Debug, Clone)]
pub(crate) struct BudgetMove<'a> {
    pub node_id: &'a str,
    pub n: u32,
    pub model: &'a str,
    pub state: CallState,
    pub reserved_usd: f64,
    pub cost_usd: f64,
    pub spent_usd: f64,
    pub run_reserved_usd: f64,
}

fn body_of(entry: &RunLog) -> Result<String, EngineError> {
    serde_json::to_string(entry).map_err(|e| EngineError::Internal(format!("run log entry: {e}")))
}

impl Engine {
    /// The row of run `id`. Errors: `NotFound`.
    pub(crate) async fn run_row(&self, id: &str) -> Result<RunRow, EngineError> {
        self.store()
            .run(id)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("no run {id:?}")))
    }

    /// Appends `entry` to the run's log; returns its number.
    pub(crate) async fn log_run(&self, run_id: &str, entry: &RunLog) -> Result<u32, EngineError> {
        let body = body_of(entry)?;
        Ok(self
            .store()
            .append_event(Journal::Run, run_id, now_ms(), &body)
            .await?)
    }

    /// Moves `row` to `to` (with `reason`, replacing the one before) if it is still in
    /// `row.state` under lease `owner`; logs and then broadcasts it. `false` when someone else
    /// moved it first. Errors: `Internal` for a transition the state machine forbids.
    pub(crate) async fn move_run(
        &self,
        row: &RunRow,
        to: RunState,
        owner: Option<&str>,
        reason: Option<RunReason>,
        changes: RunChanges,
        note: Option<String>,
    ) -> Result<bool, EngineError> {
        let to = row
            .state
            .advance(to)
            .map_err(|e| EngineError::Internal(format!("run {}: {e}", row.id)))?;
        let guard = RunGuard {
            state: row.state,
            owner,
        };
        let changes = changes.state(to).reason(reason);
        let body = body_of(&RunLog::State {
            state: to,
            reason,
            note,
        })?;
        let Some(seq) = self
            .store()
            .update_run_logged(&row.id, guard, now_ms(), &changes, &body)
            .await?
        else {
            return Ok(false);
        };
        self.supervisor.emit(EngineEvent::RunState {
            run_id: row.id.clone(),
            state: to,
            seq,
        });
        Ok(true)
    }

    /// Moves node `node_id` of `run_id` from `from` to `to` under the run's lease `owner`;
    /// logs and then broadcasts it. `false` when the node or the lease moved first.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn move_node(
        &self,
        run_id: &str,
        node_id: &str,
        from: NodeState,
        to: NodeState,
        owner: Option<&str>,
        changes: NodeChanges,
        note: Option<String>,
    ) -> Result<bool, EngineError> {
        let to = from
            .advance(to)
            .map_err(|e| EngineError::Internal(format!("node {node_id} of run {run_id}: {e}")))?;
        self.update_node_logged(run_id, node_id, from, to, owner, changes.state(to), note)
            .await
    }

    /// Applies `changes` to node `node_id` of `run_id` if it is in `from` under `owner`,
    /// logs it as being in `to`, then broadcasts it. `false` when it moved first.
    #[allow(clippy::too_many_arguments)]
    async fn update_node_logged(
        &self,
        run_id: &str,
        node_id: &str,
        from: NodeState,
        to: NodeState,
        owner: Option<&str>,
        changes: NodeChanges,
        note: Option<String>,
    ) -> Result<bool, EngineError> {
        let body = body_of(&RunLog::Node {
            node_id: node_id.to_owned(),
            state: to,
            note,
        })?;
        let Some(seq) = self
            .store()
            .update_node_logged(run_id, node_id, from, owner, &changes, now_ms(), &body)
            .await?
        else {
            return Ok(false);
        };
        self.supervisor.emit(EngineEvent::RunNode {
            run_id: run_id.to_owned(),
            node_id: node_id.to_owned(),
            state: to,
            seq,
        });
        Ok(true)
    }

    /// Points node `node_id` of `run_id` (in review, without an owner) at attempt `attempt`
    /// — the revision of the one it awaited — logged, then broadcast like a move.
    pub(crate) async fn relink_node(
        &self,
        run_id: &str,
        node_id: &str,
        attempt: &str,
    ) -> Result<bool, EngineError> {
        self.update_node_logged(
            run_id,
            node_id,
            NodeState::Review,
            NodeState::Review,
            None,
            NodeChanges::new().attempt(Some(attempt.to_owned())),
            Some(format!("changes requested; the revision is {attempt}")),
        )
        .await
    }

    /// Logs a ledger move (already stored with the call), then broadcasts the new totals.
    pub(crate) async fn log_budget(
        &self,
        run_id: &str,
        moved: BudgetMove<'_>,
    ) -> Result<(), EngineError> {
        let seq = self
            .log_run(
                run_id,
                &RunLog::Call {
                    node_id: moved.node_id.to_owned(),
                    n: moved.n,
                    model: moved.model.to_owned(),
                    state: moved.state,
                    reserved_usd: moved.reserved_usd,
                    cost_usd: moved.cost_usd,
                    spent_usd: moved.spent_usd,
                    run_reserved_usd: moved.run_reserved_usd,
                },
            )
            .await?;
        self.supervisor.emit(EngineEvent::RunBudget {
            run_id: run_id.to_owned(),
            spent_usd: moved.spent_usd,
            reserved_usd: moved.run_reserved_usd,
            seq,
        });
        Ok(())
    }
}

impl Engine {
    /// Reserves `call` (see `Store::reserve_call`) with its log entry in the same
    /// transaction, then broadcasts the ledger after it.
    pub(crate) async fn reserve_logged(
        &self,
        owner: &str,
        call: &NewCall,
    ) -> Result<Reserved, StoreError> {
        let body = |n: u32, spent_usd: f64, run_reserved_usd: f64| {
            body_of(&RunLog::Call {
                node_id: call.node_id.clone(),
                n,
                model: call.model.clone(),
                state: CallState::Reserved,
                reserved_usd: call.reserved_usd,
                cost_usd: 0.0,
                spent_usd,
                run_reserved_usd,
            })
            .unwrap_or_default()
        };
        let (reserved, seq) = self
            .store()
            .reserve_call_logged(owner, call, now_ms(), body)
            .await?;
        if let (
            Reserved::Yes {
                spent_usd,
                reserved_usd,
                ..
            },
            Some(seq),
        ) = (reserved, seq)
        {
            self.supervisor.emit(EngineEvent::RunBudget {
                run_id: call.run_id.clone(),
                spent_usd,
                reserved_usd,
                seq,
            });
        }
        Ok(reserved)
    }

    /// Finishes call `n` (see `Store::finish_call`) with its log entry in the same
    /// transaction, then broadcasts the ledger after it. `None` as the store's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn finish_logged(
        &self,
        run_id: &str,
        node_id: &str,
        n: u32,
        owner: &str,
        model: &str,
        reserved_usd: f64,
        end: &CallEnd,
    ) -> Result<Option<(f64, f64)>, StoreError> {
        let body = |spent_usd: f64, run_reserved_usd: f64| {
            body_of(&RunLog::Call {
                node_id: node_id.to_owned(),
                n,
                model: model.to_owned(),
                state: end.state,
                reserved_usd,
                cost_usd: end.cost_usd,
                spent_usd,
                run_reserved_usd,
            })
            .unwrap_or_default()
        };
        let finished = self
            .store()
            .finish_call_logged(run_id, node_id, n, owner, end, now_ms(), body)
            .await?;
        Ok(finished.map(|((spent_usd, reserved_usd), seq)| {
            self.supervisor.emit(EngineEvent::RunBudget {
                run_id: run_id.to_owned(),
                spent_usd,
                reserved_usd,
                seq,
            });
            (spent_usd, reserved_usd)
        }))
    }
}
