//! The normalized worker event: one shape for every adapter, typed to the UI.

use serde::{Deserialize, Serialize};
use specta::Type;

/// What a tool call did, as far as the worker's own report says. Shown, never trusted: the
/// diff is always computed from the worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToolAction {
    FileRead {
        path: String,
    },
    FileEdit {
        path: String,
    },
    Command {
        command: String,
        /// Known once the command finished, when the CLI reports it.
        exit_code: Option<i32>,
    },
    /// A search over files or the web (glob, grep, list, web search / fetch).
    Search {
        query: Option<String>,
    },
    Other,
}

/// Where a tool call stands. A call is usually reported twice: `started`, then `completed` or
/// `failed` with the same `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ToolStatus {
    Started,
    Completed,
    Failed,
}

/// Token usage and cost **so far** for the attempt: each report replaces the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens, including those served from cache.
    pub input: u32,
    pub output: u32,
    /// Of `input`, read from a prompt cache.
    pub cached: u32,
    /// Cost in USD, when the CLI reported it or it was estimated.
    pub cost_usd: Option<f64>,
    /// `cost_usd` was computed by Switchyard from tokens × catalog price, not reported.
    pub estimated: bool,
}

/// Price per million tokens, for estimating a cost the CLI does not report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TokenPrice {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Price of a cached input token; `None` charges cached input at the input price.
    pub cached_input_per_mtok: Option<f64>,
}

impl Usage {
    /// This usage with `cost_usd` computed from `price` and flagged as estimated, unless the CLI
    /// reported a cost (a reported cost is never overwritten).
    pub fn with_estimated_cost(self, price: TokenPrice) -> Self {
        if self.cost_usd.is_some() && !self.estimated {
            return self;
        }
        let cached = f64::from(self.cached.min(self.input));
        let uncached = f64::from(self.input) - cached;
        let cached_price = price.cached_input_per_mtok.unwrap_or(price.input_per_mtok);
        let cost = (uncached * price.input_per_mtok
            + cached * cached_price
            + f64::from(self.output) * price.output_per_mtok)
            / 1_000_000.0;
        Self {
            cost_usd: Some(cost),
            estimated: true,
            ..self
        }
    }
}

/// One thing a worker did or said, normalized from its CLI's own output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum WorkerEvent {
    /// The session started (its id and model, when the CLI says).
    Started {
        session_id: Option<String>,
        model: Option<String>,
    },
    /// Text the assistant wrote. `delta` pieces continue the previous text (Gemini streams
    /// them); otherwise each event is a whole message.
    AssistantText {
        text: String,
        delta: bool,
    },
    /// Reasoning the CLI chose to show.
    Thinking {
        text: String,
    },
    ToolUse {
        /// The CLI's id for the call, to pair `started` with its result.
        id: Option<String>,
        /// The CLI's own tool name (`Edit`, `run_shell_command`, `bash`, …).
        tool: String,
        action: ToolAction,
        status: ToolStatus,
    },
    Usage(Usage),
    /// Something went wrong (it may or may not end the attempt; `final` says).
    Error {
        message: String,
    },
    /// The worker stopped. `ok` is the CLI's own verdict (plus its exit code); Switchyard's
    /// gates still decide whether the result is trusted.
    Final {
        ok: bool,
        summary: Option<String>,
    },
    /// A line no adapter rule recognised, kept as it was.
    Raw {
        line: String,
    },
}

impl ToolAction {
    /// What the call touched, for people: `edited src/lib.rs`, `ran cargo test (exit 1)`.
    pub fn describe(&self) -> String {
        match self {
            Self::FileRead { path } => format!("read {path}"),
            Self::FileEdit { path } => format!("edited {path}"),
            Self::Command {
                command,
                exit_code: Some(code),
            } => format!("ran {command} (exit {code})"),
            Self::Command { command, .. } => format!("ran {command}"),
            Self::Search { query: Some(query) } => format!("searched {query}"),
            Self::Search { query: None } => "searched".into(),
            Self::Other => String::new(),
        }
    }
}

/// A worker's output read as plain text (a code node's pane on the run page, `runs log
/// --follow`), built event by event: streamed text continues the text before it, every other
/// event is a line of its own; usage adds nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputText {
    text: String,
    /// Whether the last thing added was the assistant's text, which a delta continues.
    in_text: bool,
}

impl OutputText {
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn push(&mut self, event: &WorkerEvent) {
        let line = match event {
            WorkerEvent::AssistantText { text, delta: true } if self.in_text => {
                self.text.push_str(text);
                return;
            }
            WorkerEvent::AssistantText { text, .. } => text.clone(),
            WorkerEvent::Thinking { text } => format!("(thinking) {text}"),
            WorkerEvent::ToolUse {
                tool,
                action,
                status,
                ..
            } => {
                let status = match status {
                    ToolStatus::Started => "…",
                    ToolStatus::Completed => "done",
                    ToolStatus::Failed => "failed",
                };
                let what = action.describe();
                if what.is_empty() {
                    format!("▸ {tool} {status}")
                } else {
                    format!("▸ {tool}: {what} {status}")
                }
            }
            WorkerEvent::Error { message } => format!("error: {message}"),
            WorkerEvent::Final { ok, summary } => {
                let verdict = if *ok { "finished" } else { "finished, failed" };
                match summary {
                    Some(summary) => format!("{verdict}: {summary}"),
                    None => verdict.to_owned(),
                }
            }
            WorkerEvent::Started { model, .. } => match model {
                Some(model) => format!("started ({model})"),
                None => "started".to_owned(),
            },
            WorkerEvent::Raw { line } => line.clone(),
            WorkerEvent::Usage(_) => return,
        };
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(&line);
        self.in_text = matches!(event, WorkerEvent::AssistantText { .. });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_camel_case_with_a_kind_tag() {
        let event = WorkerEvent::ToolUse {
            id: Some("t1".into()),
            tool: "Bash".into(),
            action: ToolAction::Command {
                command: "cargo test".into(),
                exit_code: Some(0),
            },
            status: ToolStatus::Completed,
        };
        let json = serde_json::to_value(&event).expect("serialize");
        assert_eq!(
            json,
            serde_json::json!({
                "kind": "toolUse", "id": "t1", "tool": "Bash",
                "action": {"type": "command", "command": "cargo test", "exitCode": 0},
                "status": "completed"
            })
        );
        let usage = WorkerEvent::Usage(Usage {
            input: 10,
            output: 2,
            cached: 4,
            cost_usd: Some(0.5),
            estimated: false,
        });
        assert_eq!(
            serde_json::to_value(&usage).expect("serialize"),
            serde_json::json!({"kind": "usage", "input": 10, "output": 2, "cached": 4, "costUsd": 0.5, "estimated": false})
        );
        let back: WorkerEvent = serde_json::from_value(json).expect("deserialize");
        assert_eq!(back, event);
    }

    #[test]
    fn estimated_cost_uses_the_cached_price_and_never_overrides_a_reported_cost() {
        let price = TokenPrice {
            input_per_mtok: 2.0,
            output_per_mtok: 10.0,
            cached_input_per_mtok: Some(0.5),
        };
        let usage = Usage {
            input: 1_000_000,
            output: 100_000,
            cached: 400_000,
            cost_usd: None,
            estimated: false,
        };
        let estimated = usage.with_estimated_cost(price);
        assert!(estimated.estimated);
        let cost = estimated.cost_usd.expect("cost");
        assert!(
            (cost - (0.6 * 2.0 + 0.4 * 0.5 + 0.1 * 10.0)).abs() < 1e-9,
            "{cost}"
        );
        let reported = Usage {
            cost_usd: Some(0.01),
            ..usage
        };
        assert_eq!(reported.with_estimated_cost(price), reported);
    }

    #[test]
    fn worker_output_reads_as_lines_with_streamed_text_joined() {
        let events = [
            WorkerEvent::Started {
                session_id: None,
                model: Some("m1".into()),
            },
            WorkerEvent::AssistantText {
                text: "Fixing ".into(),
                delta: true,
            },
            WorkerEvent::AssistantText {
                text: "add().".into(),
                delta: true,
            },
            WorkerEvent::ToolUse {
                id: Some("t1".into()),
                tool: "Edit".into(),
                action: ToolAction::FileEdit {
                    path: "calc.sh".into(),
                },
                status: ToolStatus::Completed,
            },
            WorkerEvent::Usage(Usage::default()),
            WorkerEvent::ToolUse {
                id: None,
                tool: "bash".into(),
                action: ToolAction::Command {
                    command: "sh test.sh".into(),
                    exit_code: Some(1),
                },
                status: ToolStatus::Failed,
            },
            WorkerEvent::Raw {
                line: "plain line".into(),
            },
            WorkerEvent::AssistantText {
                text: "a delta after a line starts its own".into(),
                delta: true,
            },
            WorkerEvent::Final {
                ok: true,
                summary: Some("done it".into()),
            },
        ];
        let mut out = OutputText::default();
        for event in &events {
            out.push(event);
        }
        assert_eq!(
            out.as_str(),
            "started (m1)\nFixing add().\n▸ Edit: edited calc.sh done\n\
             ▸ bash: ran sh test.sh (exit 1) failed\nplain line\n\
             a delta after a line starts its own\nfinished: done it"
        );
    }
}
