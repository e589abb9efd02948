//! Outcomes read from the journal: one record per finished attempt and per finished run node,
//! with the task's features from the local classifier (never the task's text).

use std::collections::HashMap;

use switchyard_core::attempt::{AttemptState, ReviewDecision};
use switchyard_core::outcomes::{OutcomeFilter, OutcomeKind, OutcomeRecord, TaskFeatures};
use switchyard_core::routing::classify;
use switchyard_core::run::{CallPurpose, NodeKind, NodeState};
use switchyard_core::verify::VerificationRecord;
use switchyard_core::worker::Usage;
use switchyard_store::attempts::AttemptRow;
use switchyard_store::runs::calls::CallRow;
use switchyard_store::runs::nodes::NodeRow;
use switchyard_store::runs::{RunQuery, RunRow};

use crate::attempts::json;
use crate::{Engine, EngineError};

/// Every run is read; the list is cut only after filtering.
const ALL_RUNS: u32 = u32::MAX;

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
        let attempts = self.store().attempts().await?;
        let by_id: HashMap<&str, &AttemptRow> =
            attempts.iter().map(|row| (row.id.as_str(), row)).collect();
        let runs = self
            .store()
            .runs(&RunQuery {
                limit: ALL_RUNS,
                ..RunQuery::default()
            })
            .await?;
        let mut records = Vec::new();
        let mut in_runs = std::collections::HashSet::new();
        for run in &runs {
            let nodes = self.store().run_nodes(&run.id).await?;
            let climbed = nodes
                .iter()
                .any(|node| node.rung.is_some_and(|rung| rung > 1));
            let calls = if climbed {
                self.store().run_calls(&run.id).await?
            } else {
                Vec::new()
            };
            for node in nodes {
                if let Some(attempt) = &node.attempt_id {
                    in_runs.insert(attempt.clone());
                }
                for call in rungs_left(&node, &calls) {
                    if let Some(attempt) = &call.attempt_id {
                        in_runs.insert(attempt.clone());
                    }
                    let attempt = call
                        .attempt_id
                        .as_deref()
                        .and_then(|id| by_id.get(id))
                        .copied();
                    if let Some(record) = rung_outcome(run, &node, call, attempt) {
                        records.push(record);
                    }
                }
                let attempt = node
                    .attempt_id
                    .as_deref()
                    .and_then(|id| by_id.get(id))
                    .copied();
                if let Some(record) = node_outcome(run, &node, attempt) {
                    records.push(record);
                }
            }
        }
        records.extend(
            attempts
                .iter()
                .filter(|row| !in_runs.contains(&row.id))
                .filter_map(attempt_outcome),
        );
        records.retain(|record| filter.matches(record));
        records.sort_by(|a, b| b.finished_ms.cmp(&a.finished_ms).then(a.id.cmp(&b.id)));
        records.truncate(limit);
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
