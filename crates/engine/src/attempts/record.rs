//! Reading and advancing attempt rows: every state change is checked against the pure state
//! machine, applied as a guarded update together with its log entry (one transaction), and
//! only then broadcast.

use switchyard_core::attempt::{
    AttemptError, AttemptLog, AttemptLogEntry, AttemptReview, AttemptState, AttemptSummary,
    IntegrationRecord, ReviewDecision,
};
use switchyard_core::confinement::ConfinementReport;
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateResult;
use switchyard_core::verify::VerificationRecord;
use switchyard_core::worker::Usage;
use switchyard_store::attempts::{AttemptChanges, AttemptRow, Guard};
use switchyard_store::journal::Journal;

use super::artifacts::{DIFF_ARTIFACT, PREVIOUS_DIFF_ARTIFACT, SELF_REVIEW_ARTIFACT};
use crate::events::EngineEvent;
use crate::{Engine, EngineError};

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

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

pub(crate) fn json<T: serde::de::DeserializeOwned>(text: Option<&str>) -> Option<T> {
    text.and_then(|t| serde_json::from_str(t).ok())
}

/// The summary lists show.
pub(crate) fn summary(row: &AttemptRow, now: i64) -> AttemptSummary {
    let elapsed_ms = row
        .started_ms
        .map(|start| row.finished_ms.unwrap_or(now).saturating_sub(start).max(0));
    AttemptSummary {
        id: row.id.clone(),
        state: row.state,
        live: row.state.is_live(),
        worker: row.worker.clone(),
        worker_version: row.worker_version.clone(),
        task: row.task.clone(),
        repo: row.repo.clone(),
        base: row.base.clone(),
        target_branch: row.target_branch.clone(),
        parent: row.parent.clone(),
        compare: row.compare_id.clone(),
        launcher: row.launcher.clone(),
        created_ms: row.created_ms,
        updated_ms: row.updated_ms,
        elapsed_ms: if row.state == AttemptState::Queued {
            None
        } else {
            elapsed_ms
        },
        files_changed: row.files_changed,
        additions: row.additions,
        deletions: row.deletions,
        gates_passed: row.gates_passed,
        cost_usd: row.cost_usd,
        error: row.error_code.as_deref().map(|code| AttemptError {
            code: parse_code(code),
            message: row.error_message.clone().unwrap_or_default(),
        }),
        confinement: json::<ConfinementReport>(row.confinement_json.as_deref()).map(|c| c.mode),
    }
}

/// Why approve is not possible for `row`, or `None` when it is.
pub(crate) fn approve_blocked(row: &AttemptRow, gates: &[GateResult]) -> Option<String> {
    match row.state {
        AttemptState::Review | AttemptState::Approved => {}
        state => return Some(format!("the attempt is {}", state.as_str())),
    }
    let failed: Vec<&GateResult> = gates.iter().filter(|g| !g.passed).collect();
    if let Some(first) = failed.first() {
        let names: Vec<String> = failed.iter().map(|g| format!("{:?}", g.name)).collect();
        return Some(format!(
            "gate{} {} failed: {}",
            if failed.len() > 1 { "s" } else { "" },
            names.join(", "),
            first.detail
        ));
    }
    if row.gates_passed != Some(true) {
        return Some("the gates have not run".to_owned());
    }
    if row.files_changed == Some(0) {
        return Some("the worker changed nothing".to_owned());
    }
    None
}

impl Engine {
    /// The row of attempt `id`. Errors: `NotFound`.
    pub(crate) async fn attempt_row(&self, id: &str) -> Result<AttemptRow, EngineError> {
        self.store()
            .attempt(id)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("no attempt {id:?}")))
    }

    /// Moves `row` to `to` with `changes`, if it is still in `row.state` with lease `owner`.
    /// Stores the change and its state entry in one transaction, then broadcasts both. `false`
    /// when someone else moved it first (nothing is logged then).
    ///
    /// Errors: `Internal` for a transition the state machine forbids (a bug); store errors.
    pub(crate) async fn move_attempt(
        &self,
        row: &AttemptRow,
        to: AttemptState,
        owner: Option<&str>,
        changes: AttemptChanges,
        note: Option<String>,
    ) -> Result<bool, EngineError> {
        let to = row
            .state
            .advance(to)
            .map_err(|e| EngineError::Internal(format!("attempt {}: {e}", row.id)))?;
        let guard = Guard {
            state: row.state,
            owner,
        };
        let entry = AttemptLog::State { state: to, note };
        let body = serde_json::to_string(&entry)
            .map_err(|e| EngineError::Internal(format!("log entry: {e}")))?;
        let at_ms = now_ms();
        // The change and its event in one transaction: a crash leaves both or neither.
        let Some(seq) = self
            .store()
            .update_attempt_logged(&row.id, guard, at_ms, &changes.state(to), &body)
            .await?
        else {
            return Ok(false);
        };
        self.supervisor.emit(EngineEvent::AttemptLog {
            attempt_id: row.id.clone(),
            entry: AttemptLogEntry { seq, at_ms, entry },
        });
        self.supervisor.emit(EngineEvent::AttemptState {
            attempt_id: row.id.clone(),
            state: to,
        });
        Ok(true)
    }

    /// Like [`Engine::move_attempt`] for the owner of a live attempt, re-reading the row
    /// first; `Canceled` when the lease was lost.
    pub(crate) async fn advance_owned(
        &self,
        id: &str,
        to: AttemptState,
        changes: AttemptChanges,
        note: Option<String>,
    ) -> Result<AttemptRow, EngineError> {
        let row = self.attempt_row(id).await?;
        let token = self.owner.token.clone();
        if row.owner_token.as_deref() != Some(token.as_str())
            || !self
                .move_attempt(&row, to, Some(&token), changes, note)
                .await?
        {
            return Err(EngineError::Canceled(format!(
                "attempt {id} is no longer owned by this engine (it is {})",
                row.state.as_str()
            )));
        }
        self.attempt_row(id).await
    }

    /// Appends `entry` to the attempt's log, then broadcasts it with its number.
    pub(crate) async fn log_attempt(
        &self,
        id: &str,
        entry: AttemptLog,
    ) -> Result<u32, EngineError> {
        let body = serde_json::to_string(&entry)
            .map_err(|e| EngineError::Internal(format!("log entry: {e}")))?;
        let at_ms = now_ms();
        let seq = self
            .store()
            .append_event(Journal::Attempt, id, at_ms, &body)
            .await?;
        self.supervisor.emit(EngineEvent::AttemptLog {
            attempt_id: id.to_owned(),
            entry: AttemptLogEntry { seq, at_ms, entry },
        });
        Ok(seq)
    }

    /// Everything review shows for `row`.
    pub(crate) async fn review_of(&self, row: &AttemptRow) -> Result<AttemptReview, EngineError> {
        let gates: Vec<GateResult> = json(row.gates_json.as_deref()).unwrap_or_default();
        let diff = self.read_artifact_json(&row.id, DIFF_ARTIFACT).await;
        let previous = match row.parent {
            Some(_) => {
                self.read_artifact_json(&row.id, PREVIOUS_DIFF_ARTIFACT)
                    .await
            }
            None => None,
        };
        let blocked = approve_blocked(row, &gates);
        Ok(AttemptReview {
            summary: summary(row, now_ms()),
            diff,
            previous,
            verification: json::<VerificationRecord>(row.verification_json.as_deref()),
            self_review: self.read_artifact_json(&row.id, SELF_REVIEW_ARTIFACT).await,
            usage: json::<Usage>(row.usage_json.as_deref()),
            decision: json::<ReviewDecision>(row.decision_json.as_deref()),
            integration: json::<IntegrationRecord>(row.integration_json.as_deref()),
            can_approve: row.state == AttemptState::Review && blocked.is_none(),
            approve_blocked: blocked,
            verify_commands: serde_json::from_str(&row.verify_json).unwrap_or_default(),
            confinement: json::<ConfinementReport>(row.confinement_json.as_deref()),
            gates_not_run: switchyard_core::review::gates::not_run(&gates),
            gate_titles: switchyard_core::review::gates::GateName::titles(),
            gates,
        })
    }
}
