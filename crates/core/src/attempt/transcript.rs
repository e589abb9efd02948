//! An attempt's log as a reader wants it: streamed text pieces joined, a tool call's start
//! and end shown as one item, the latest usage kept aside. Folded entry by entry, so a feed
//! can say what each new entry changed ([`TranscriptUpdate`]) and a page only applies it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::{AttemptLog, AttemptLogEntry, AttemptState};
use crate::confinement::Denial;
use crate::review::gates::GateResult;
use crate::worker::{ToolAction, ToolStatus, Usage, WorkerEvent};

/// One item of a transcript; `seq` is the log entry it started at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum TranscriptItem {
    State {
        seq: u32,
        state: AttemptState,
        note: Option<String>,
    },
    Text {
        seq: u32,
        text: String,
    },
    Thinking {
        seq: u32,
        text: String,
    },
    Tool {
        seq: u32,
        id: Option<String>,
        tool: String,
        action: ToolAction,
        status: ToolStatus,
        /// What it touched, for people ([`ToolAction::describe`]).
        what: String,
    },
    Error {
        seq: u32,
        message: String,
    },
    Final {
        seq: u32,
        ok: bool,
        summary: Option<String>,
    },
    Started {
        seq: u32,
        model: Option<String>,
    },
    Gate {
        seq: u32,
        result: GateResult,
        /// What pages call the gate ([`crate::review::gates::GateName::title`]).
        title: String,
    },
    Denied {
        seq: u32,
        denial: Denial,
    },
    Raw {
        seq: u32,
        line: String,
    },
}

/// What one log entry changed in a transcript: item `index` is new (the transcript's length
/// before) or replaces the one there; `usage` is the latest usage when the entry reported one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptUpdate {
    pub index: Option<u32>,
    pub item: Option<TranscriptItem>,
    pub usage: Option<Usage>,
}

/// A transcript folded so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    items: Vec<TranscriptItem>,
    usage: Option<Usage>,
    last_seq: u32,
    /// A tool call's id → its item, so its end updates its start.
    tools: HashMap<String, usize>,
}

impl Transcript {
    pub fn items(&self) -> &[TranscriptItem] {
        &self.items
    }

    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// Folds in `entry`; `None` when it changes nothing (usage aside, an entry already
    /// folded: its `seq` is not past the last one).
    pub fn push(&mut self, entry: &AttemptLogEntry) -> Option<TranscriptUpdate> {
        if entry.seq <= self.last_seq && self.last_seq > 0 {
            return None;
        }
        self.last_seq = entry.seq;
        let seq = entry.seq;
        let item = match &entry.entry {
            AttemptLog::State { state, note } => TranscriptItem::State {
                seq,
                state: *state,
                note: note.clone(),
            },
            AttemptLog::Gate { result } => TranscriptItem::Gate {
                seq,
                result: result.clone(),
                title: result.name.title().to_owned(),
            },
            AttemptLog::Denied { denial } => TranscriptItem::Denied {
                seq,
                denial: denial.clone(),
            },
            AttemptLog::Worker { event } => return self.worker(seq, event),
        };
        Some(self.add(item))
    }

    fn worker(&mut self, seq: u32, event: &WorkerEvent) -> Option<TranscriptUpdate> {
        let item = match event {
            WorkerEvent::AssistantText { text, delta } => {
                if let (true, Some(TranscriptItem::Text { text: last, .. })) =
                    (*delta, self.items.last_mut())
                {
                    last.push_str(text);
                    let index = self.items.len() - 1;
                    return Some(self.changed(index));
                }
                TranscriptItem::Text {
                    seq,
                    text: text.clone(),
                }
            }
            WorkerEvent::Thinking { text } => TranscriptItem::Thinking {
                seq,
                text: text.clone(),
            },
            WorkerEvent::ToolUse {
                id,
                tool,
                action,
                status,
            } => {
                let earlier = id.as_ref().and_then(|id| self.tools.get(id).copied());
                if let Some(index) = earlier {
                    if let Some(TranscriptItem::Tool {
                        action: a,
                        status: s,
                        what,
                        ..
                    }) = self.items.get_mut(index)
                    {
                        *a = action.clone();
                        *s = *status;
                        *what = action.describe();
                        return Some(self.changed(index));
                    }
                }
                if let Some(id) = id {
                    self.tools.insert(id.clone(), self.items.len());
                }
                TranscriptItem::Tool {
                    seq,
                    id: id.clone(),
                    tool: tool.clone(),
                    action: action.clone(),
                    status: *status,
                    what: action.describe(),
                }
            }
            WorkerEvent::Usage(usage) => {
                self.usage = Some(*usage);
                return Some(TranscriptUpdate {
                    index: None,
                    item: None,
                    usage: Some(*usage),
                });
            }
            WorkerEvent::Error { message } => TranscriptItem::Error {
                seq,
                message: message.clone(),
            },
            WorkerEvent::Final { ok, summary } => TranscriptItem::Final {
                seq,
                ok: *ok,
                summary: summary.clone(),
            },
            WorkerEvent::Started { model, .. } => TranscriptItem::Started {
                seq,
                model: model.clone(),
            },
            WorkerEvent::Raw { line } => TranscriptItem::Raw {
                seq,
                line: line.clone(),
            },
        };
        Some(self.add(item))
    }

    fn add(&mut self, item: TranscriptItem) -> TranscriptUpdate {
        self.items.push(item);
        self.changed(self.items.len() - 1)
    }

    fn changed(&self, index: usize) -> TranscriptUpdate {
        TranscriptUpdate {
            index: u32::try_from(index).ok(),
            item: self.items.get(index).cloned(),
            usage: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u32, entry: AttemptLog) -> AttemptLogEntry {
        AttemptLogEntry {
            seq,
            at_ms: 0,
            entry,
        }
    }

    fn worker(seq: u32, event: WorkerEvent) -> AttemptLogEntry {
        entry(seq, AttemptLog::Worker { event })
    }

    fn tool(seq: u32, exit: Option<i32>, status: ToolStatus) -> AttemptLogEntry {
        worker(
            seq,
            WorkerEvent::ToolUse {
                id: Some("t1".into()),
                tool: "Bash".into(),
                action: ToolAction::Command {
                    command: "cargo test".into(),
                    exit_code: exit,
                },
                status,
            },
        )
    }

    #[test]
    fn streamed_text_joins_a_tool_calls_end_updates_its_start_and_usage_is_kept_aside() {
        let usage = Usage {
            input: 50,
            output: 9,
            cached: 5,
            cost_usd: Some(0.01),
            estimated: false,
        };
        let entries = [
            entry(
                1,
                AttemptLog::State {
                    state: AttemptState::Running,
                    note: None,
                },
            ),
            worker(
                2,
                WorkerEvent::AssistantText {
                    text: "Looking".into(),
                    delta: true,
                },
            ),
            worker(
                3,
                WorkerEvent::AssistantText {
                    text: " at it".into(),
                    delta: true,
                },
            ),
            tool(4, None, ToolStatus::Started),
            worker(5, WorkerEvent::Usage(Usage::default())),
            tool(6, Some(1), ToolStatus::Failed),
            worker(7, WorkerEvent::Usage(usage)),
        ];
        let mut transcript = Transcript::default();
        let updates: Vec<TranscriptUpdate> = entries
            .iter()
            .map(|e| transcript.push(e).expect("each entry changes something"))
            .collect();
        // A replayed entry changes nothing.
        assert_eq!(transcript.push(&entries[2]), None);

        let indexes: Vec<Option<u32>> = updates.iter().map(|u| u.index).collect();
        assert_eq!(
            indexes,
            [Some(0), Some(1), Some(1), Some(2), None, Some(2), None],
            "the second text piece and the tool's end replace items; usage adds none"
        );
        let kinds: Vec<&str> = transcript
            .items()
            .iter()
            .map(|i| match i {
                TranscriptItem::State { .. } => "state",
                TranscriptItem::Text { .. } => "text",
                TranscriptItem::Tool { .. } => "tool",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["state", "text", "tool"]);
        assert!(matches!(
            &transcript.items()[1],
            TranscriptItem::Text { text, seq: 2 } if text == "Looking at it"
        ));
        assert!(matches!(
            &transcript.items()[2],
            TranscriptItem::Tool { status: ToolStatus::Failed, what, seq: 4, .. }
                if what == "ran cargo test (exit 1)"
        ));
        // What a reader holds after applying each update equals the fold.
        let mut applied: Vec<TranscriptItem> = Vec::new();
        for update in &updates {
            if let (Some(index), Some(item)) = (update.index, &update.item) {
                let index = index as usize;
                if index == applied.len() {
                    applied.push(item.clone());
                } else {
                    applied[index] = item.clone();
                }
            }
        }
        assert_eq!(applied, transcript.items());
        assert_eq!(transcript.usage(), Some(usage));
        assert_eq!(updates[6].usage, Some(usage));
    }

    #[test]
    fn text_after_another_item_starts_a_new_one_and_a_tool_without_id_stands_alone() {
        let mut transcript = Transcript::default();
        transcript.push(&worker(
            1,
            WorkerEvent::Raw {
                line: "plain".into(),
            },
        ));
        transcript.push(&worker(
            2,
            WorkerEvent::AssistantText {
                text: "piece".into(),
                delta: true,
            },
        ));
        for seq in [3, 4] {
            transcript.push(&worker(
                seq,
                WorkerEvent::ToolUse {
                    id: None,
                    tool: "read".into(),
                    action: ToolAction::FileRead {
                        path: "a.rs".into(),
                    },
                    status: ToolStatus::Completed,
                },
            ));
        }
        assert_eq!(transcript.items().len(), 4);
        assert!(
            matches!(&transcript.items()[1], TranscriptItem::Text { text, .. } if text == "piece")
        );
    }
}
