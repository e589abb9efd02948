//! Gemini CLI: `gemini -p <prompt> -o stream-json --approval-mode auto_edit --skip-trust
//! [-m M]` (the headless default approval mode denies edits), with the attempt's own
//! `GEMINI_CLI_HOME` and [`SETTINGS`] when Switchyard passes the key.
//!
//! One JSON object per line, each with `type` and `timestamp`: `init{session_id, model}`,
//! `message{role, content, delta}`, `tool_use{tool_name, tool_id, parameters}`,
//! `tool_result{tool_id, status, output | error}`, `error{severity, message}` and a closing
//! `result{status, error?, stats{total_tokens, input_tokens, output_tokens, cached, …}}`.
//! Exit codes: 0, 1 (error), 42 (input error), 53 (turn limit). Gemini reports no cost: the
//! engine estimates it from tokens × catalog price.

use std::collections::HashMap;

use serde_json::Value;

use super::json::{first_str, message_of, object, raw, str_at, u32_at};
use super::{
    argument_safe, finish_events, Invocation, InvocationError, ToolAction, ToolStatus,
    TranscriptParser, Usage, WorkerEvent, WorkerTask, MAX_ARG_BYTES,
};

/// `gemini -p <prompt> -o stream-json --approval-mode auto_edit --skip-trust [-m M]`.
///
/// # Errors
/// [`InvocationError::PromptTooLong`] when the prompt does not fit in one argument.
pub fn invocation(task: &WorkerTask) -> Result<Invocation, InvocationError> {
    let prompt = argument_safe(&task.prompt);
    if prompt.len() > MAX_ARG_BYTES {
        return Err(InvocationError::PromptTooLong {
            cli: "gemini",
            len: prompt.len(),
            limit: MAX_ARG_BYTES,
        });
    }
    let mut args = vec![
        "-p".to_owned(),
        prompt,
        "-o".to_owned(),
        "stream-json".to_owned(),
        "--approval-mode".to_owned(),
        "auto_edit".to_owned(),
        // Headless in a folder it has not been told to trust, it exits 55; this trusts the
        // worktree for this session only.
        "--skip-trust".to_owned(),
    ];
    if let Some(model) = &task.model {
        args.extend(["-m".to_owned(), model.clone()]);
    }
    let mut env = Vec::new();
    let mut files = Vec::new();
    if let Some(dir) = &task.config_dir {
        // `GEMINI_CLI_HOME` moves the whole `.gemini` folder (settings, trust, history).
        env.push((
            "GEMINI_CLI_HOME".to_owned(),
            dir.to_string_lossy().into_owned(),
        ));
        files.push((
            dir.join(".gemini").join("settings.json"),
            SETTINGS.to_owned(),
        ));
    }
    Ok(Invocation {
        program: "gemini".into(),
        args,
        stdin: None,
        env,
        key_env: vec!["GEMINI_API_KEY".into()],
        cwd: task.worktree.clone(),
        files,
    })
}

/// The attempt's Gemini CLI settings: the API key as the auth method (without one selected, a
/// custom base URL exits 41, "Invalid auth method selected"), no telemetry, usage statistics
/// or update checks, at most three tries of a model call, and no shell or web tools.
pub const SETTINGS: &str = r#"{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "maxAttempts": 3},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "tools": {"exclude": ["run_shell_command", "web_fetch", "google_web_search"]}
}
"#;

/// Parses Gemini CLI `stream-json` lines.
#[derive(Debug, Default)]
pub struct GeminiParser {
    tools: HashMap<String, (String, ToolAction)>,
    final_seen: Option<bool>,
    failed: bool,
    text: String,
    /// The model that spent the most tokens, from `result.stats.models`.
    model: Option<String>,
}

/// `[API Error: {"error":{"code":401,"message":"…","status":"UNAUTHENTICATED"}}]` (the
/// provider's JSON body, as Gemini CLI passes it on) as `API error 401 UNAUTHENTICATED: …`;
/// any other message as it is.
fn readable_api_error(message: &str) -> String {
    let body = message
        .trim()
        .strip_prefix("[API Error: ")
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|json| serde_json::from_str::<Value>(json).ok());
    let Some(error) = body.as_ref().and_then(|b| b.get("error")) else {
        return message.to_owned();
    };
    let code = error.get("code").and_then(Value::as_u64);
    let status = str_at(error, "status").or_else(|| str_at(error, "type"));
    let text = str_at(error, "message").unwrap_or_default();
    let mut out = "API error".to_owned();
    if let Some(code) = code {
        out.push_str(&format!(" {code}"));
    }
    if let Some(status) = status {
        out.push_str(&format!(" {status}"));
    }
    if !text.is_empty() {
        out.push_str(&format!(": {text}"));
    }
    out
}

/// Tokens a `stats.models` entry spent, whichever way this version counts them.
fn model_tokens(entry: &Value) -> u64 {
    let tokens = entry.get("tokens").unwrap_or(entry);
    ["total", "total_tokens", "totalTokens"]
        .iter()
        .find_map(|k| tokens.get(*k).and_then(Value::as_u64))
        .unwrap_or_else(|| {
            [
                "input_tokens",
                "output_tokens",
                "prompt",
                "candidates",
                "input",
                "output",
            ]
            .iter()
            .filter_map(|k| tokens.get(*k).and_then(Value::as_u64))
            .sum()
        })
}

/// The model in `stats.models` (an object keyed by model, or a list of entries naming it)
/// that spent the most tokens.
fn dominant_model(models: &Value) -> Option<String> {
    let entries: Vec<(String, u64)> = match models {
        Value::Object(map) => map
            .iter()
            .map(|(name, entry)| (name.clone(), model_tokens(entry)))
            .collect(),
        Value::Array(list) => list
            .iter()
            .filter_map(|entry| {
                first_str(entry, &["model", "name"]).map(|n| (n.to_owned(), model_tokens(entry)))
            })
            .collect(),
        _ => Vec::new(),
    };
    entries
        .into_iter()
        .filter(|(name, _)| !name.is_empty())
        .max_by_key(|(_, tokens)| *tokens)
        .map(|(name, _)| name)
}

fn action(name: &str, params: &Value) -> ToolAction {
    let path = || {
        first_str(params, &["file_path", "absolute_path", "path"])
            .map(str::to_owned)
            .or_else(|| {
                params.get("paths").and_then(Value::as_array).map(|paths| {
                    paths
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
            })
    };
    match name {
        "read_file" | "read_many_files" => {
            path().map_or(ToolAction::Other, |path| ToolAction::FileRead { path })
        }
        "write_file" | "replace" | "edit" => {
            path().map_or(ToolAction::Other, |path| ToolAction::FileEdit { path })
        }
        "run_shell_command" => ToolAction::Command {
            command: str_at(params, "command").unwrap_or_default().to_owned(),
            exit_code: None,
        },
        "glob"
        | "search_file_content"
        | "grep"
        | "grep_search"
        | "list_directory"
        | "google_web_search"
        | "web_fetch" => ToolAction::Search {
            query: first_str(
                params,
                &["pattern", "query", "url", "prompt", "dir_path", "path"],
            )
            .map(str::to_owned),
        },
        _ => ToolAction::Other,
    }
}

impl TranscriptParser for GeminiParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        let Some(value) = object(line) else {
            return raw(line);
        };
        match str_at(&value, "type") {
            Some("init") => vec![WorkerEvent::Started {
                session_id: str_at(&value, "session_id").map(str::to_owned),
                model: str_at(&value, "model").map(str::to_owned),
            }],
            // The user message is the prompt echoed back.
            Some("message") if str_at(&value, "role") == Some("user") => Vec::new(),
            Some("message") => {
                let text = str_at(&value, "content").unwrap_or_default().to_owned();
                let delta = value.get("delta").and_then(Value::as_bool) == Some(true);
                if !delta {
                    self.text.clear();
                }
                self.text.push_str(&text);
                vec![WorkerEvent::AssistantText { text, delta }]
            }
            Some("tool_use") => {
                // The summary is what the assistant said after its last tool call.
                self.text.clear();
                let id = str_at(&value, "tool_id").map(str::to_owned);
                let tool = str_at(&value, "tool_name").unwrap_or("unknown").to_owned();
                let action = action(&tool, value.get("parameters").unwrap_or(&Value::Null));
                if let Some(id) = &id {
                    self.tools
                        .insert(id.clone(), (tool.clone(), action.clone()));
                }
                vec![WorkerEvent::ToolUse {
                    id,
                    tool,
                    action,
                    status: ToolStatus::Started,
                }]
            }
            Some("tool_result") => {
                let id = str_at(&value, "tool_id").map(str::to_owned);
                let (tool, action) = id
                    .as_ref()
                    .and_then(|id| self.tools.remove(id))
                    .unwrap_or_else(|| ("unknown".to_owned(), ToolAction::Other));
                let status = if str_at(&value, "status") == Some("success") {
                    ToolStatus::Completed
                } else {
                    ToolStatus::Failed
                };
                vec![WorkerEvent::ToolUse {
                    id,
                    tool,
                    action,
                    status,
                }]
            }
            Some("error") => {
                if str_at(&value, "severity") != Some("warning") {
                    self.failed = true;
                }
                vec![WorkerEvent::Error {
                    message: message_of(&value).unwrap_or_else(|| "error".to_owned()),
                }]
            }
            Some("result") => {
                let mut events = Vec::new();
                if let Some(models) = value.get("stats").and_then(|s| s.get("models")) {
                    self.model = dominant_model(models);
                }
                if let Some(stats) = value.get("stats") {
                    events.push(WorkerEvent::Usage(Usage {
                        input: u32_at(stats, "input_tokens"),
                        output: u32_at(stats, "output_tokens"),
                        cached: u32_at(stats, "cached"),
                        cost_usd: None,
                        estimated: false,
                    }));
                }
                let ok = str_at(&value, "status") == Some("success") && !self.failed;
                let error = value
                    .get("error")
                    .and_then(message_of)
                    .map(|m| readable_api_error(&m));
                if let Some(message) = &error {
                    events.push(WorkerEvent::Error {
                        message: message.clone(),
                    });
                }
                let summary = match error {
                    Some(message) if !ok => Some(message),
                    _ => Some(self.text.trim().to_owned()).filter(|t| !t.is_empty()),
                };
                events.push(WorkerEvent::Final { ok, summary });
                self.final_seen = Some(ok);
                events
            }
            _ => raw(line),
        }
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        let mut events = match exit_code {
            Some(42) => vec![WorkerEvent::Error {
                message: "Gemini CLI rejected its input (exit code 42)".into(),
            }],
            Some(53) => vec![WorkerEvent::Error {
                message: "Gemini CLI reached its turn limit (exit code 53)".into(),
            }],
            _ => Vec::new(),
        };
        let text = std::mem::take(&mut self.text);
        let summary = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        events.extend(finish_events(
            self.final_seen,
            self.failed,
            exit_code,
            summary,
        ));
        events
    }

    fn model(&self) -> Option<String> {
        self.model.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_model_that_spent_the_most_tokens_prices_the_run() {
        let mut parser = GeminiParser::default();
        parser.parse_line(r#"{"type":"init","session_id":"s","model":"auto"}"#);
        let result = json!({"type": "result", "status": "success", "stats": {
            "input_tokens": 120, "output_tokens": 30,
            "models": {
                "gemini-2.5-flash-lite": {"total_tokens": 20, "input_tokens": 15, "output_tokens": 5},
                "gemini-2.5-flash": {"total_tokens": 130, "input_tokens": 105, "output_tokens": 25}
            }
        }});
        parser.parse_line(&result.to_string());
        assert_eq!(parser.model().as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(
            dominant_model(
                &json!([{"model": "a", "tokens": {"total": 3}}, {"model": "b", "tokens": {"total": 9}}])
            ),
            Some("b".to_owned())
        );
        assert_eq!(dominant_model(&json!({})), None);
    }

    #[test]
    fn a_providers_error_body_becomes_a_readable_line() {
        assert_eq!(
            readable_api_error(
                r#"[API Error: {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}]"#
            ),
            "API error 401 UNAUTHENTICATED: Request had invalid authentication credentials."
        );
        assert_eq!(readable_api_error("fetch failed"), "fetch failed");
    }
}
