//! One turn's side effects: apply the answer's edits, then read the files it asked for (so
//! it sees its own edits), within the per-turn limits. Blocking file IO; the caller runs it
//! off the async threads.

use std::collections::HashSet;

use switchyard_core::worker::model::{
    feedback_brief, feedback_prompt, Answer, ContextLimits, EditReport, FileBody, FileView,
};
use switchyard_core::worker::{ToolAction, ToolStatus, WorkerEvent};

use super::context::Worktree;
use super::edits;

/// What a turn did.
#[derive(Debug)]
pub(super) struct TurnResult {
    /// Tool-use (and error) events, in the order things happened.
    pub events: Vec<WorkerEvent>,
    /// Every edit applied.
    pub all_applied: bool,
    /// The next user message.
    pub feedback: String,
    /// The same, as replayed once it is old (file contents left out).
    pub feedback_brief: String,
}

/// Applies `answer` to `worktree`; `turn` numbers the events' ids.
pub(super) fn run_turn(
    worktree: &Worktree,
    answer: &Answer,
    limits: &ContextLimits,
    turn: u32,
    turns_left: u32,
) -> TurnResult {
    let mut events = Vec::new();
    let mut reports = Vec::new();
    for (index, edit) in answer.edits.iter().enumerate() {
        let result = edits::apply(worktree, edit);
        let status = if result.is_ok() {
            ToolStatus::Completed
        } else {
            ToolStatus::Failed
        };
        events.push(WorkerEvent::ToolUse {
            id: Some(format!("t{turn}-edit{}", index + 1)),
            tool: format!("{}_file", edit.kind()),
            action: ToolAction::FileEdit {
                path: edit.path().to_owned(),
            },
            status,
        });
        if let Err(why) = &result {
            events.push(WorkerEvent::Error {
                message: format!("{} {} not applied: {why}", edit.kind(), edit.path()),
            });
        }
        reports.push(EditReport {
            path: edit.path().to_owned(),
            kind: edit.kind(),
            result,
        });
    }
    let all_applied = reports.iter().all(|r| r.result.is_ok());

    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = HashSet::new();
    let mut bytes = 0usize;
    for (index, path) in answer.read.iter().enumerate() {
        if !seen.insert(path.as_str()) {
            continue;
        }
        let room = limits.turn_bytes.saturating_sub(bytes);
        if files.len() >= limits.reads_per_turn || room == 0 {
            skipped.push(path.clone());
            continue;
        }
        let view: FileView = worktree.read(path, limits.file_bytes.min(room));
        let ok = match &view.body {
            FileBody::Text { content, .. } => {
                bytes += content.len();
                true
            }
            FileBody::Unavailable(_) => false,
        };
        events.push(WorkerEvent::ToolUse {
            id: Some(format!("t{turn}-read{}", index + 1)),
            tool: "read_file".into(),
            action: ToolAction::FileRead { path: path.clone() },
            status: if ok {
                ToolStatus::Completed
            } else {
                ToolStatus::Failed
            },
        });
        files.push(view);
    }
    TurnResult {
        events,
        all_applied,
        feedback: feedback_prompt(&reports, &files, &skipped, turns_left),
        feedback_brief: feedback_brief(&reports, &files, &skipped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchyard_core::worker::model::Edit;

    #[test]
    fn edits_apply_before_reads_and_limits_skip_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
        std::fs::write(dir.path().join("b.txt"), "two\n").expect("write");
        let worktree = Worktree::open(dir.path()).expect("open");
        let answer = Answer {
            read: vec!["a.txt".into(), "a.txt".into(), "b.txt".into()],
            edits: vec![
                Edit::Replace {
                    path: "a.txt".into(),
                    search: "one".into(),
                    replace: "ONE".into(),
                },
                Edit::Replace {
                    path: "b.txt".into(),
                    search: "zzz".into(),
                    replace: "x".into(),
                },
            ],
            done: false,
            summary: String::new(),
        };
        let limits = ContextLimits {
            reads_per_turn: 1,
            ..ContextLimits::default()
        };
        let result = run_turn(&worktree, &answer, &limits, 3, 2);
        assert!(!result.all_applied);
        assert!(result.feedback.contains("- replace a.txt: applied"));
        assert!(result.feedback.contains("- replace b.txt: NOT applied"));
        assert!(
            result.feedback.contains("BEGIN FILE a.txt =====\nONE\n"),
            "{}",
            result.feedback
        );
        assert!(result.feedback.contains("limit reached; ask again): b.txt"));
        let statuses: Vec<(String, ToolStatus)> = result
            .events
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::ToolUse { id, status, .. } => Some((id.clone()?, *status)),
                _ => None,
            })
            .collect();
        assert_eq!(
            statuses,
            [
                ("t3-edit1".to_owned(), ToolStatus::Completed),
                ("t3-edit2".to_owned(), ToolStatus::Failed),
                ("t3-read1".to_owned(), ToolStatus::Completed),
            ]
        );
        assert!(result.events.iter().any(
            |e| matches!(e, WorkerEvent::Error { message } if message.contains("b.txt not applied"))
        ));
    }
}
