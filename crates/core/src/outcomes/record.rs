//! One outcome per finished attempt or run node: what the task looked like (its features,
//! never its text), who did it, what Switchyard's checks and the user said, and what it cost.
//! Everything is derived from what the journal already holds; the stored record is a copy
//! kept up to date with the job's rows.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;
use crate::routing::{detect_lang, Classification};

/// Where an outcome comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Attempt,
    Node,
    /// A cascade rung that failed and was escalated from: the failure of its own model, which
    /// the node's record (the last rung's) does not show.
    Rung,
}

/// One finished piece of work (the CLI's `outcomes --json` prints a list of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct OutcomeRecord {
    pub kind: OutcomeKind,
    /// The attempt id, or `<run>/<node>`.
    pub id: String,
    pub run_id: Option<String>,
    pub node_id: Option<String>,
    pub finished_ms: i64,
    /// Task features from the local classifier (flattened into the record's fields).
    #[serde(flatten)]
    pub task: TaskFeatures,
    /// The worker (`model:<id>`, `claude`, …) and the model, when known.
    pub worker: Option<String>,
    pub model: Option<String>,
    /// The final state (`approved`, `failed`, `done`, …).
    pub state: String,
    /// Switchyard's own verification: `None` when none ran.
    pub verified: Option<bool>,
    pub gates_passed: Option<bool>,
    /// The user's decision: `approved`, `rejected` or `changes_requested`.
    pub decision: Option<String>,
    /// Verified work the user did not turn down.
    pub succeeded: bool,
    pub cost_usd: f64,
    pub latency_ms: Option<i64>,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
    /// A cascade rung above the first, or a revision after a change request.
    pub escalated: bool,
    /// `cli`, `desktop` or an MCP client's name.
    pub launcher: String,
}

/// Task features of an outcome, from the classifier's reading of its task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct TaskFeatures {
    pub category: Category,
    pub lang: String,
    pub task_tokens: u32,
    pub stack: Vec<String>,
    pub needs: Vec<String>,
}

impl TaskFeatures {
    /// A task known only by its category (English, short, no stack words or needs).
    pub fn bare(category: Category) -> TaskFeatures {
        TaskFeatures {
            category,
            lang: "en".to_owned(),
            task_tokens: 0,
            stack: Vec::new(),
            needs: Vec::new(),
        }
    }

    pub fn of(task: &str, classification: &Classification) -> TaskFeatures {
        let needs = &classification.signals.needs;
        let flags = [
            ("vision", needs.vision),
            ("long_context", needs.long_context.is_some()),
            ("tools", needs.tools),
            ("structured_output", needs.structured_output),
        ];
        TaskFeatures {
            category: classification.category,
            lang: detect_lang(task).to_owned(),
            task_tokens: crate::text::estimate_tokens(task),
            stack: classification.signals.stack.clone(),
            needs: flags
                .into_iter()
                .filter(|(_, on)| *on)
                .map(|(name, _)| name.to_owned())
                .collect(),
        }
    }
}

/// Which outcomes to list; every field that is set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutcomeFilter {
    pub category: Option<Category>,
    /// A model id or a worker name.
    pub model: Option<String>,
    pub launcher: Option<String>,
}

impl OutcomeFilter {
    pub fn matches(&self, record: &OutcomeRecord) -> bool {
        self.category.is_none_or(|c| c == record.task.category)
            && self.model.as_deref().is_none_or(|wanted| {
                record.model.as_deref() == Some(wanted) || record.worker.as_deref() == Some(wanted)
            })
            && self
                .launcher
                .as_deref()
                .is_none_or(|wanted| record.launcher == wanted)
    }
}

const CSV_HEADER: [&str; 22] = [
    "kind",
    "id",
    "run_id",
    "node_id",
    "finished_ms",
    "category",
    "lang",
    "task_tokens",
    "stack",
    "needs",
    "worker",
    "model",
    "state",
    "verified",
    "gates_passed",
    "decision",
    "succeeded",
    "cost_usd",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "escalated",
];

/// The records as CSV (one header row; lists joined by `;`; empty cells for unknowns),
/// with the launcher last.
pub fn outcomes_csv(records: &[OutcomeRecord]) -> Result<String, String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = CSV_HEADER.to_vec();
    header.push("launcher");
    writer.write_record(&header).map_err(|e| e.to_string())?;
    let text = |value: Option<String>| value.unwrap_or_default();
    for r in records {
        let kind = match r.kind {
            OutcomeKind::Attempt => "attempt",
            OutcomeKind::Node => "node",
            OutcomeKind::Rung => "rung",
        };
        writer
            .write_record([
                kind.to_owned(),
                r.id.clone(),
                text(r.run_id.clone()),
                text(r.node_id.clone()),
                r.finished_ms.to_string(),
                r.task.category.id().to_owned(),
                r.task.lang.clone(),
                r.task.task_tokens.to_string(),
                r.task.stack.join(";"),
                r.task.needs.join(";"),
                text(r.worker.clone()),
                text(r.model.clone()),
                r.state.clone(),
                text(r.verified.map(|v| v.to_string())),
                text(r.gates_passed.map(|v| v.to_string())),
                text(r.decision.clone()),
                r.succeeded.to_string(),
                r.cost_usd.to_string(),
                text(r.latency_ms.map(|v| v.to_string())),
                text(r.tokens_in.map(|v| v.to_string())),
                text(r.tokens_out.map(|v| v.to_string())),
                r.escalated.to_string(),
                r.launcher.clone(),
            ])
            .map_err(|e| e.to_string())?;
    }
    let bytes = writer.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::classify;

    fn record(model: &str, launcher: &str) -> OutcomeRecord {
        let task = "Fix the failing Rust unit test in the parser";
        OutcomeRecord {
            kind: OutcomeKind::Attempt,
            id: "a1".into(),
            run_id: None,
            node_id: None,
            finished_ms: 1,
            task: TaskFeatures::of(task, &classify(task)),
            worker: Some("claude".into()),
            model: Some(model.into()),
            state: "approved".into(),
            verified: Some(true),
            gates_passed: Some(true),
            decision: Some("approved".into()),
            succeeded: true,
            cost_usd: 0.25,
            latency_ms: Some(1200),
            tokens_in: None,
            tokens_out: None,
            escalated: false,
            launcher: launcher.into(),
        }
    }

    #[test]
    fn features_come_from_the_classifier_and_never_carry_the_task() {
        let r = record("anthropic/claude-opus-4.5", "cli");
        assert_eq!(r.task.category, Category::Coding);
        assert_eq!(r.task.lang, "en");
        assert!(
            r.task.stack.contains(&"rust".to_owned()),
            "{:?}",
            r.task.stack
        );
        let json = serde_json::to_string(&r).expect("serializes");
        assert!(!json.contains("parser"), "{json}");
    }

    #[test]
    fn filters_combine() {
        let r = record("m/1", "claude-code");
        assert!(OutcomeFilter::default().matches(&r));
        let by_worker = OutcomeFilter {
            model: Some("claude".into()),
            ..Default::default()
        };
        assert!(by_worker.matches(&r));
        let other = OutcomeFilter {
            category: Some(Category::Coding),
            launcher: Some("cli".into()),
            ..Default::default()
        };
        assert!(!other.matches(&r));
    }

    #[test]
    fn csv_has_a_header_and_one_row_per_record() {
        let text = outcomes_csv(&[record("m/1", "cli")]).expect("csv");
        let mut lines = text.lines();
        assert!(lines
            .next()
            .is_some_and(|h| h.starts_with("kind,id,") && h.ends_with(",launcher")));
        let row = lines.next().expect("a row");
        assert!(row.starts_with("attempt,a1,,,1,coding,en,"), "{row}");
        assert_eq!(lines.next(), None);
    }
}
