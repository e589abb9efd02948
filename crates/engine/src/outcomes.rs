//! Outcomes derived from the journal: one record per finished attempt and per finished run
//! node (and per rung a cascade climbed past), with the task's features from the local
//! classifier (never the task's text). The records are stored (see the store's `outcomes`)
//! and re-derived for a job only when its rows changed, so routing reads one table.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use switchyard_core::attempt::{AttemptState, ReviewDecision};
use switchyard_core::outcomes::{OutcomeFilter, OutcomeKind, OutcomeRecord, TaskFeatures};
use switchyard_core::routing::classify;
use switchyard_core::run::{CallPurpose, NodeKind, NodeState};
use switchyard_core::verify::VerificationRecord;
use switchyard_core::worker::Usage;
use switchyard_store::attempts::AttemptRow;
use switchyard_store::journal::Journal;
use switchyard_store::runs::calls::CallRow;
use switchyard_store::runs::nodes::NodeRow;
use switchyard_store::runs::RunRow;

use crate::attempts::json;
use crate::{Engine, EngineError};

impl Engine {
    /// Finished attempts and run nodes matching `filter`, newest first, at most `limit`.
    ///
    /// # Errors
    /// [`EngineError::Store`] when the journal cannot be read.
    pub async fn outcomes(
        &self,
        filter: &OutcomeFilter,
        limit: usize,
    ) -> Result<Vec<OutcomeRecord>, EngineError> {
        let mut records = self.outcomes_since(i64::MIN).await?;
        records.retain(|record| filter.matches(record));
        records.truncate(limit);
        Ok(records)
    }

    /// Every stored record that finished at or after `since_ms`, newest first, after bringing
    /// the records of every job that changed since its last derivation up to date.
    pub(crate) async fn outcomes_since(
        &self,
        since_ms: i64,
    ) -> Result<Vec<OutcomeRecord>, EngineError> {
        self.refresh_outcomes().await?;
        Ok(self.store().stored_outcomes(since_ms).await?)
    }

    /// Re-derives the records of every job whose rows changed since they were derived (the
    /// store's triggers mark them in the change's own transaction; a new profile and the
    /// migration's backfill mark every job). Returns how many jobs were brought up to date.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn refresh_outcomes(&self) -> Result<usize, EngineError> {
        let behind = self.store().jobs_behind().await?;
        for job in &behind {
            let records = match job.journal {
                Journal::Attempt => self.attempt_records(&job.id).await?,
                Journal::Run => self.run_records(&job.id).await?,
            };
            self.store().replace_outcomes(job, &records).await?;
        }
        Ok(behind.len())
    }

    /// A standalone attempt's record (an attempt of a run is its run's).
    async fn attempt_records(&self, id: &str) -> Result<Vec<OutcomeRecord>, EngineError> {
        if self.store().run_of_attempt(id).await?.is_some() {
            return Ok(Vec::new());
        }
        Ok(self
            .store()
            .attempt(id)
            .await?
            .and_then(|row| attempt_outcome(&row))
            .into_iter()
            .collect())
    }

    /// A run's records: every finished node, and every rung a node climbed past.
    async fn run_records(&self, id: &str) -> Result<Vec<OutcomeRecord>, EngineError> {
        let Some(run) = self.store().run(id).await? else {
            return Ok(Vec::new());
        };
        let nodes = self.store().run_nodes(id).await?;
        let calls = if nodes.iter().any(|node| node.rung.is_some_and(|r| r > 1)) {
            self.store().run_calls(id).await?
        } else {
            Vec::new()
        };
        let mut attempts: HashMap<String, AttemptRow> = HashMap::new();
        let wanted = nodes
            .iter()
            .filter_map(|node| node.attempt_id.clone())
            .chain(calls.iter().filter_map(|call| call.attempt_id.clone()));
        for attempt in wanted {
            if let Entry::Vacant(slot) = attempts.entry(attempt.clone()) {
                if let Some(row) = self.store().attempt(&attempt).await? {
                    slot.insert(row);
                }
            }
        }
        let mut records = Vec::new();
        for node in &nodes {
            for call in rungs_left(node, &calls) {
                let attempt = call.attempt_id.as_ref().and_then(|a| attempts.get(a));
                records.extend(rung_outcome(&run, node, call, attempt));
            }
            let attempt = node.attempt_id.as_ref().and_then(|a| attempts.get(a));
            records.extend(node_outcome(&run, node, attempt));
        }
        Ok(records)
    }
}

/// What the attempt's checks and the user said: (verified, gates passed, decision).
fn verdict(row: &AttemptRow) -> (Option<bool>, Option<bool>, Option<String>) {
    let verified = json::<VerificationRecord>(row.verification_json.as_deref()).map(|v| v.passed);
    let decision = json::<ReviewDecision>(row.decision_json.as_deref()).map(|d| {
        match d {
            ReviewDecision::Approved { .. } => "approved",
            ReviewDecision::Rejected { .. } => "rejected",
            ReviewDecision::ChangesRequested { .. } => "changes_requested",
        }
        .to_owned()
    });
    (verified, row.gates_passed, decision)
}

/// Verified (when a check ran), through the gates (when they ran) and not turned down.
fn succeeded(verified: Option<bool>, gates: Option<bool>, decision: Option<&str>) -> bool {
    verified != Some(false)
        && gates != Some(false)
        && !matches!(decision, Some("rejected" | "changes_requested"))
}

fn features(task: &str) -> TaskFeatures {
    TaskFeatures::of(task, &classify(task))
}

fn attempt_outcome(row: &AttemptRow) -> Option<OutcomeRecord> {
    let finished_ms = row.finished_ms?;
    if row.state.is_live() {
        return None;
    }
    let (verified, gates_passed, decision) = verdict(row);
    let usage = json::<Usage>(row.usage_json.as_deref());
    let ok = !matches!(
        row.state,
        AttemptState::Failed | AttemptState::Canceled | AttemptState::Interrupted
    ) && succeeded(verified, gates_passed, decision.as_deref());
    Some(OutcomeRecord {
        kind: OutcomeKind::Attempt,
        id: row.id.clone(),
        run_id: None,
        node_id: None,
        finished_ms,
        task: features(&row.task),
        model: row.worker.strip_prefix("model:").map(str::to_owned),
        worker: Some(row.worker.clone()),
        state: row.state.as_str().to_owned(),
        verified,
        gates_passed,
        decision,
        succeeded: ok,
        cost_usd: row.cost_usd.unwrap_or(0.0),
        latency_ms: row
            .started_ms
            .map(|start| finished_ms.saturating_sub(start)),
        tokens_in: usage.as_ref().map(|u| u.input),
        tokens_out: usage.as_ref().map(|u| u.output),
        escalated: row.parent.is_some(),
        launcher: row.launcher.clone(),
    })
}

/// The last answer (or attempt) call of every rung the node climbed past (rungs count from 1).
fn rungs_left<'c>(node: &NodeRow, calls: &'c [CallRow]) -> Vec<&'c CallRow> {
    let Some(last) = node.rung else {
        return Vec::new();
    };
    let mut by_rung: Vec<&CallRow> = Vec::new();
    for call in calls.iter().filter(|call| {
        call.node_id == node.node_id
            && call.purpose != CallPurpose::Judge
            && call.rung.is_some_and(|rung| rung < last)
    }) {
        match by_rung.iter_mut().find(|seen| seen.rung == call.rung) {
            Some(seen) if seen.n < call.n => *seen = call,
            Some(_) => {}
            None => by_rung.push(call),
        }
    }
    by_rung
}

fn rung_outcome(
    run: &RunRow,
    node: &NodeRow,
    call: &CallRow,
    attempt: Option<&AttemptRow>,
) -> Option<OutcomeRecord> {
    let finished_ms = call.finished_ms?;
    let (verified, gates_passed, decision) = attempt.map_or((None, None, None), verdict);
    Some(OutcomeRecord {
        kind: OutcomeKind::Rung,
        id: format!("{}/{}#{}", run.id, node.node_id, call.n),
        run_id: Some(run.id.clone()),
        node_id: Some(node.node_id.clone()),
        finished_ms,
        task: features(&node.task),
        worker: call.worker.clone(),
        model: Some(call.model.clone()),
        state: "escalated".to_owned(),
        verified,
        gates_passed,
        decision,
        succeeded: false,
        cost_usd: call.cost_usd,
        latency_ms: Some(finished_ms.saturating_sub(call.started_ms)),
        tokens_in: Some(call.tokens_in),
        tokens_out: Some(call.tokens_out),
        escalated: call.rung.is_some_and(|rung| rung > 1),
        launcher: run.launcher.clone(),
    })
}

fn node_outcome(
    run: &RunRow,
    node: &NodeRow,
    attempt: Option<&AttemptRow>,
) -> Option<OutcomeRecord> {
    let finished_ms = node.finished_ms?;
    if !node.state.is_final() || node.state == NodeState::Canceled && node.started_ms.is_none() {
        return None;
    }
    let (verified, gates_passed, decision) = match (node.kind, attempt) {
        (NodeKind::Code, Some(row)) => verdict(row),
        _ => (None, None, None),
    };
    let decision = decision.or_else(|| match node.state {
        NodeState::Approved => Some("approved".to_owned()),
        NodeState::Rejected => Some("rejected".to_owned()),
        _ => None,
    });
    let ok = matches!(node.state, NodeState::Done | NodeState::Approved)
        && succeeded(verified, gates_passed, decision.as_deref());
    Some(OutcomeRecord {
        kind: OutcomeKind::Node,
        id: format!("{}/{}", run.id, node.node_id),
        run_id: Some(run.id.clone()),
        node_id: Some(node.node_id.clone()),
        finished_ms,
        task: features(&node.task),
        worker: node.worker.clone(),
        model: node.model.clone(),
        state: node.state.as_str().to_owned(),
        verified,
        gates_passed,
        decision,
        succeeded: ok,
        cost_usd: node.cost_usd,
        latency_ms: node
            .started_ms
            .map(|start| finished_ms.saturating_sub(start)),
        tokens_in: Some(node.tokens_in),
        tokens_out: Some(node.tokens_out),
        escalated: node.rung.is_some_and(|rung| rung > 1),
        launcher: run.launcher.clone(),
    })
}
