//! Claude Code: `claude -p --output-format stream-json --verbose`, prompt on stdin.
//!
//! One JSON object per line: `system` (`subtype: init` with `session_id`, `model`, `tools`),
//! `assistant` (`message.content` blocks `text` / `thinking` / `tool_use{id, name, input}`),
//! `user` (`tool_result{tool_use_id, is_error, content}` blocks) and a closing `result`
//! (`subtype`, `is_error`, `num_turns`, `result`, `total_cost_usd`, `usage`). A `result` with
//! `is_error: true` is a failure even when its `subtype` is `success`.

use std::collections::HashMap;

use serde_json::Value;

use super::json::{first_str, message_of, object, raw, str_at, u32_at};
use super::{
    finish_events, Invocation, ToolAction, ToolStatus, TranscriptParser, Usage, WorkerEvent,
    WorkerTask,
};

/// The tools a Claude Code worker may use without asking: reading anywhere it can, editing
/// only under the worktree (`Edit(//abs/**)` is Claude Code's absolute-path rule, and its edit
/// rules cover every file-editing tool). `--permission-mode acceptEdits` approves edits in the
/// working directory only; a bare `Edit` or `Write` here would approve them anywhere.
pub const READ_TOOLS: &str = "Read,Glob,Grep,LS";

/// Tools a worker must not use at all: a shell, the web, sub-agents.
pub const DISALLOWED_TOOLS: &str = "Bash,WebFetch,WebSearch,Agent,Task";

/// What Claude Code is told through its environment: no telemetry, error reports or update
/// checks (under confinement only the provider is reachable, and they are not the user's
/// task), and at most four retries of a failed API call (its default of ten, with backoff,
/// keeps an unreachable provider's attempt alive for minutes).
pub const ENV: &[(&str, &str)] = &[
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("CLAUDE_CODE_MAX_RETRIES", "4"),
];

/// `claude -p --output-format stream-json --verbose --permission-mode acceptEdits
/// --allowedTools Read,Glob,Grep,LS,Edit(//<worktree>/**) --disallowedTools <shell, web,
/// sub-agents> [--model M] [--max-turns N]`, prompt on stdin.
pub fn invocation(task: &WorkerTask) -> Invocation {
    let worktree = task.worktree.to_string_lossy();
    let edit = format!("Edit(/{}/**)", worktree.trim_end_matches('/'));
    let mut args: Vec<String> = [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
    ]
    .map(str::to_owned)
    .into();
    args.extend([
        "--allowedTools".to_owned(),
        format!("{READ_TOOLS},{edit}"),
        "--disallowedTools".to_owned(),
        DISALLOWED_TOOLS.to_owned(),
    ]);
    if let Some(model) = &task.model {
        args.extend(["--model".to_owned(), model.clone()]);
    }
    if let Some(turns) = task.max_turns {
        args.extend(["--max-turns".to_owned(), turns.to_string()]);
    }
    let mut env: Vec<(String, String)> = ENV
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    // Its own settings, sessions and `.claude.json` in the attempt's folder: none of the
    // user's hooks or memory, and nothing it writes lands in the user's home.
    if let Some(dir) = &task.config_dir {
        env.push((
            "CLAUDE_CONFIG_DIR".into(),
            dir.to_string_lossy().into_owned(),
        ));
    }
    Invocation {
        program: "claude".into(),
        args,
        stdin: Some(task.prompt.clone()),
        env,
        key_env: vec!["ANTHROPIC_API_KEY".into()],
        cwd: task.worktree.clone(),
        files: Vec::new(),
    }
}

/// Parses Claude Code's `stream-json` lines.
#[derive(Debug, Default)]
pub struct ClaudeParser {
    /// Tool calls by id, to name the tool when its result arrives.
    tools: HashMap<String, (String, ToolAction)>,
    final_seen: Option<bool>,
    last_text: Option<String>,
}

fn action(name: &str, input: &Value) -> ToolAction {
    let path = || first_str(input, &["file_path", "notebook_path", "path"]).map(str::to_owned);
    match name {
        "Read" | "NotebookRead" => {
            path().map_or(ToolAction::Other, |path| ToolAction::FileRead { path })
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            path().map_or(ToolAction::Other, |path| ToolAction::FileEdit { path })
        }
        "Bash" => ToolAction::Command {
            command: str_at(input, "command").unwrap_or_default().to_owned(),
            exit_code: None,
        },
        "Glob" | "Grep" | "LS" | "WebSearch" | "WebFetch" => ToolAction::Search {
            query: first_str(input, &["pattern", "query", "url", "path"]).map(str::to_owned),
        },
        _ => ToolAction::Other,
    }
}

impl ClaudeParser {
    fn assistant(&mut self, message: &Value) -> Vec<WorkerEvent> {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            return Vec::new();
        };
        let mut events = Vec::new();
        for block in blocks {
            match str_at(block, "type") {
                Some("text") => {
                    let text = str_at(block, "text").unwrap_or_default().to_owned();
                    self.last_text = Some(text.clone());
                    events.push(WorkerEvent::AssistantText { text, delta: false });
                }
                Some("thinking") => events.push(WorkerEvent::Thinking {
                    text: str_at(block, "thinking").unwrap_or_default().to_owned(),
                }),
                Some("tool_use") => {
                    let id = str_at(block, "id").map(str::to_owned);
                    let tool = str_at(block, "name").unwrap_or("unknown").to_owned();
                    let action = action(&tool, block.get("input").unwrap_or(&Value::Null));
                    if let Some(id) = &id {
                        self.tools
                            .insert(id.clone(), (tool.clone(), action.clone()));
                    }
                    events.push(WorkerEvent::ToolUse {
                        id,
                        tool,
                        action,
                        status: ToolStatus::Started,
                    });
                }
                _ => {}
            }
        }
        events
    }

    fn tool_results(&mut self, message: &Value) -> Vec<WorkerEvent> {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|block| str_at(block, "type") == Some("tool_result"))
            .map(|block| {
                let id = str_at(block, "tool_use_id").map(str::to_owned);
                let (tool, action) = id
                    .as_ref()
                    .and_then(|id| self.tools.remove(id))
                    .unwrap_or_else(|| ("unknown".to_owned(), ToolAction::Other));
                let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
                WorkerEvent::ToolUse {
                    id,
                    tool,
                    action,
                    status: if failed {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    },
                }
            })
            .collect()
    }

    fn result(&mut self, value: &Value) -> Vec<WorkerEvent> {
        let mut events = Vec::new();
        if let Some(usage) = value.get("usage") {
            let cache_read = u32_at(usage, "cache_read_input_tokens");
            let input = u32_at(usage, "input_tokens")
                .saturating_add(u32_at(usage, "cache_creation_input_tokens"))
                .saturating_add(cache_read);
            events.push(WorkerEvent::Usage(Usage {
                input,
                output: u32_at(usage, "output_tokens"),
                cached: cache_read,
                cost_usd: value.get("total_cost_usd").and_then(Value::as_f64),
                estimated: false,
            }));
        }
        let subtype = str_at(value, "subtype").unwrap_or("unknown");
        let is_error = value
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let ok = subtype == "success" && !is_error;
        let text = str_at(value, "result").map(str::to_owned);
        if !ok {
            let status = value.get("api_error_status").and_then(Value::as_u64);
            let message = text
                .clone()
                .filter(|t| !t.trim().is_empty())
                .map(|t| match status {
                    Some(status) => format!("{t} (API status {status})"),
                    None => t,
                })
                .or_else(|| {
                    value
                        .get("errors")
                        .and_then(Value::as_array)
                        .and_then(|errors| errors.iter().find_map(message_of))
                })
                .unwrap_or_else(|| format!("Claude Code ended with {subtype}"));
            events.push(WorkerEvent::Error { message });
        }
        events.push(WorkerEvent::Final {
            ok,
            summary: text.or_else(|| Some(subtype.to_owned())),
        });
        self.final_seen = Some(ok);
        events
    }
}

impl TranscriptParser for ClaudeParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        let Some(value) = object(line) else {
            return raw(line);
        };
        match str_at(&value, "type") {
            Some("system") if str_at(&value, "subtype") == Some("init") => {
                vec![WorkerEvent::Started {
                    session_id: str_at(&value, "session_id").map(str::to_owned),
                    model: str_at(&value, "model").map(str::to_owned),
                }]
            }
            // A failed API call Claude Code is about to retry. A refused key is reported at
            // once (the engine stops the worker on it rather than wait out ten retries).
            Some("system") if str_at(&value, "subtype") == Some("api_retry") => {
                let status = value.get("error_status").and_then(Value::as_u64);
                let error = str_at(&value, "error").unwrap_or("unknown error");
                let attempt = value.get("attempt").and_then(Value::as_u64).unwrap_or(0);
                let max = value
                    .get("max_retries")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let status = status.map(|s| format!(" {s}")).unwrap_or_default();
                vec![WorkerEvent::Error {
                    message: format!("API error{status}: {error} (retry {attempt} of {max})"),
                }]
            }
            Some("assistant") => match value.get("message") {
                Some(message) => self.assistant(message),
                None => raw(line),
            },
            Some("user") => match value.get("message") {
                Some(message) => self.tool_results(message),
                None => raw(line),
            },
            Some("result") => self.result(&value),
            _ => raw(line),
        }
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        finish_events(self.final_seen, false, exit_code, self.last_text.take())
    }
}

#[cfg(test)]
mod retry_tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::worker::failure::classify;

    /// Lines as Claude Code 2.1.197 printed them against a server answering 401, then with
    /// retries capped (`CLAUDE_CODE_MAX_RETRIES=0`).
    const RETRY_401: &str = r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":516.4457960758588,"error_status":401,"error":"authentication_failed","session_id":"6f3ea138-7da0-4b9d-a492-3835d52fc505","uuid":"36a23e90-4921-4331-aa91-b6100d49adc5"}"#;
    const RESULT_401: &str = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"duration_ms":233,"duration_api_ms":0,"num_turns":1,"result":"Invalid API key · Fix external API key","stop_reason":"stop_sequence","session_id":"04977895-250a-4267-9e3c-ee2b5507b204","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}"#;

    fn error_of(line: &str) -> String {
        ClaudeParser::default()
            .parse_line(line)
            .into_iter()
            .find_map(|e| match e {
                WorkerEvent::Error { message } => Some(message),
                _ => None,
            })
            .expect("an error event")
    }

    #[test]
    fn a_refused_key_is_an_auth_error_at_its_first_retry_and_in_the_result() {
        let retry = error_of(RETRY_401);
        assert_eq!(
            retry,
            "API error 401: authentication_failed (retry 1 of 10)"
        );
        assert_eq!(classify(&retry, None), ErrorCode::ProviderAuth);
        let result = error_of(RESULT_401);
        assert_eq!(
            result,
            "Invalid API key · Fix external API key (API status 401)"
        );
        assert_eq!(classify(&result, None), ErrorCode::ProviderAuth);
    }
}
