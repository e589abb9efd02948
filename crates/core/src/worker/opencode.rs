//! OpenCode: `opencode run --format json --print-logs --log-level ERROR [-m provider/model]
//! <message>`.
//!
//! One JSON object per line: `{type, timestamp, sessionID, part}` with `type` one of
//! `step_start`, `text` (`part.text`), `reasoning` (`part.text`), `tool_use` (`part{tool,
//! callID, state{status, input, output | error, metadata}}`), `step_finish` (`part{reason,
//! cost, tokens{input, output, reasoning, cache{read, write}}}`) and `error{error{name,
//! data{message}}}`. The final `step_finish` is sometimes missing, so the end of the run is the
//! process exit, not a line.

use serde_json::Value;

use super::json::{first_str, i32_at, message_of, object, raw, str_at, u32_at};
use super::{
    argument_safe, finish_events, provider_key_env, Invocation, InvocationError, ToolAction,
    ToolStatus, TranscriptParser, Usage, WorkerEvent, WorkerTask, MAX_ARG_BYTES,
};

/// The permissions OpenCode runs a worker with (`OPENCODE_CONFIG_CONTENT`).
pub const PERMISSIONS: &str = r#"{"permission":{"bash":"deny","webfetch":"deny"}}"#;

/// OpenCode 1.18's switches for what a worker must not do besides its task: update itself,
/// share the session, download language servers, fetch the model list (under confinement only
/// the provider is reachable; they would fail slowly).
pub const QUIET: &[&str] = &[
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_SHARE",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    // Its bundled model list instead of fetching one at start.
    "OPENCODE_DISABLE_MODELS_FETCH",
];

/// At start OpenCode installs its plugin package into each config folder from the npm
/// registry; offline, it skips that (only the provider is reachable).
pub const NPM_OFFLINE: (&str, &str) = ("npm_config_offline", "true");

/// `opencode run --format json --print-logs --log-level ERROR [-m provider/model] <message>`
/// with [`PERMISSIONS`] (and the routed provider's base URL when Switchyard's is moved) as
/// `OPENCODE_CONFIG_CONTENT`, and [`QUIET`].
///
/// # Errors
/// [`InvocationError::PromptTooLong`] when the prompt does not fit in one argument.
pub fn invocation(task: &WorkerTask) -> Result<Invocation, InvocationError> {
    let message = argument_safe(&task.prompt);
    if message.len() > MAX_ARG_BYTES {
        return Err(InvocationError::PromptTooLong {
            cli: "opencode",
            len: message.len(),
            limit: MAX_ARG_BYTES,
        });
    }
    let mut args: Vec<String> = [
        "run",
        "--format",
        "json",
        // Its JSON error events say only "Unexpected server error" for a model it does not
        // know; the real cause is in its log, which this puts on stderr.
        "--print-logs",
        "--log-level",
        "ERROR",
    ]
    .map(str::to_owned)
    .into();
    let mut key_env = Vec::new();
    let mut config = serde_json::from_str::<Value>(PERMISSIONS).unwrap_or_default();
    if let Some(model) = &task.model {
        args.extend(["-m".to_owned(), model.clone()]);
        let provider = model.split_once('/').map(|(p, _)| p);
        if let Some(var) = provider.and_then(provider_key_env) {
            key_env.push(var.to_owned());
        }
        // The routed provider pointed elsewhere in Switchyard: OpenCode calls it there.
        if let (Some(provider), Some(base_url)) = (provider, &task.base_url) {
            config["provider"] = serde_json::json!({provider: {"options": {"baseURL": base_url}}});
        }
    }
    args.push(message);
    // OpenCode's highest-precedence config source: no shell and no web fetch for a worker
    // (edits stay allowed; the sandbox keeps them inside the worktree).
    let mut env: Vec<(String, String)> =
        std::iter::once(("OPENCODE_CONFIG_CONTENT".to_owned(), config.to_string()))
            .chain(
                QUIET
                    .iter()
                    .map(|name| ((*name).to_owned(), "1".to_owned())),
            )
            .chain(std::iter::once((
                NPM_OFFLINE.0.to_owned(),
                NPM_OFFLINE.1.to_owned(),
            )))
            .collect();
    // With Switchyard's key, a configuration folder of the attempt's own: at start OpenCode
    // writes into its global one (`~/.config/opencode/.gitignore`, plugin manifests), which is
    // the user's and stays read-only to workers.
    if let Some(dir) = &task.config_dir {
        env.push((
            "XDG_CONFIG_HOME".to_owned(),
            dir.to_string_lossy().into_owned(),
        ));
    }
    Ok(Invocation {
        program: "opencode".into(),
        args,
        stdin: None,
        env,
        key_env,
        cwd: task.worktree.clone(),
        files: Vec::new(),
    })
}

/// The error an OpenCode log line (`--print-logs`) reports, from its `error.error="…"` or
/// `error="…"` field (`AI_APICallError: ` dropped); the line as it is when it has none.
pub fn log_error(line: &str) -> String {
    for key in ["error.error=\"", " error=\""] {
        let Some(at) = line.find(key) else {
            continue;
        };
        let rest = &line[at + key.len()..];
        let mut value = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => value.extend(chars.next()),
                '"' => break,
                c => value.push(c),
            }
        }
        let value = value.trim_start_matches("AI_APICallError: ").trim();
        if !value.is_empty() {
            return value.to_owned();
        }
    }
    line.to_owned()
}

/// Parses `opencode run --format json` lines.
#[derive(Debug, Default)]
pub struct OpenCodeParser {
    started: bool,
    usage: Usage,
    cost: f64,
    failed: bool,
    last_text: Option<String>,
}

fn action(tool: &str, state: &Value) -> ToolAction {
    let input = state.get("input").unwrap_or(&Value::Null);
    let path = || first_str(input, &["filePath", "path"]).map(str::to_owned);
    match tool {
        "read" => path().map_or(ToolAction::Other, |path| ToolAction::FileRead { path }),
        "edit" | "write" | "patch" | "multiedit" => {
            path().map_or(ToolAction::Other, |path| ToolAction::FileEdit { path })
        }
        "bash" => ToolAction::Command {
            command: str_at(input, "command").unwrap_or_default().to_owned(),
            exit_code: state
                .get("metadata")
                .and_then(|m| i32_at(m, "exit").or_else(|| i32_at(m, "exitCode"))),
        },
        "grep" | "glob" | "list" | "codesearch" | "websearch" | "webfetch" => ToolAction::Search {
            query: first_str(input, &["pattern", "query", "url", "path"]).map(str::to_owned),
        },
        _ => ToolAction::Other,
    }
}

impl TranscriptParser for OpenCodeParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        let Some(value) = object(line) else {
            return raw(line);
        };
        let part = value.get("part").unwrap_or(&Value::Null);
        match str_at(&value, "type") {
            Some("step_start") => {
                if self.started {
                    return Vec::new();
                }
                self.started = true;
                vec![WorkerEvent::Started {
                    session_id: str_at(&value, "sessionID").map(str::to_owned),
                    model: None,
                }]
            }
            Some("text") => {
                let text = str_at(part, "text").unwrap_or_default().to_owned();
                self.last_text = Some(text.clone());
                vec![WorkerEvent::AssistantText { text, delta: false }]
            }
            Some("reasoning") => vec![WorkerEvent::Thinking {
                text: str_at(part, "text").unwrap_or_default().to_owned(),
            }],
            Some("tool_use") => {
                let tool = str_at(part, "tool").unwrap_or("unknown").to_owned();
                let state = part.get("state").unwrap_or(&Value::Null);
                let action = action(&tool, state);
                let status = match str_at(state, "status") {
                    Some("completed") => match action {
                        ToolAction::Command {
                            exit_code: Some(code),
                            ..
                        } if code != 0 => ToolStatus::Failed,
                        _ => ToolStatus::Completed,
                    },
                    Some("error") => ToolStatus::Failed,
                    _ => ToolStatus::Started,
                };
                vec![WorkerEvent::ToolUse {
                    id: first_str(part, &["callID", "id"]).map(str::to_owned),
                    action,
                    tool,
                    status,
                }]
            }
            Some("step_finish") => {
                let tokens = part.get("tokens").unwrap_or(&Value::Null);
                let cache = tokens.get("cache").unwrap_or(&Value::Null);
                let cache_read = u32_at(cache, "read");
                let input = u32_at(tokens, "input")
                    .saturating_add(cache_read)
                    .saturating_add(u32_at(cache, "write"));
                self.usage.input = self.usage.input.saturating_add(input);
                self.usage.cached = self.usage.cached.saturating_add(cache_read);
                self.usage.output = self.usage.output.saturating_add(
                    u32_at(tokens, "output").saturating_add(u32_at(tokens, "reasoning")),
                );
                if let Some(cost) = part.get("cost").and_then(Value::as_f64) {
                    self.cost += cost;
                }
                // OpenCode reports exactly 0 for a model it has no price for: tokens spent
                // at no cost is "unknown" (Switchyard estimates it from the catalog), not free.
                let spent = self.usage.input > 0 || self.usage.output > 0;
                self.usage.cost_usd = (self.cost > 0.0 || !spent).then_some(self.cost);
                vec![WorkerEvent::Usage(self.usage)]
            }
            Some("error") => {
                self.failed = true;
                let error = value.get("error");
                let message = error
                    .and_then(message_of)
                    .unwrap_or_else(|| "error".to_owned());
                let status = error
                    .and_then(|e| e.get("data"))
                    .and_then(|d| d.get("statusCode"))
                    .and_then(Value::as_u64);
                vec![WorkerEvent::Error {
                    message: match status {
                        Some(status) => format!("{message} (API status {status})"),
                        None => message,
                    },
                }]
            }
            _ => raw(line),
        }
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        finish_events(None, self.failed, exit_code, self.last_text.take())
    }
}

#[cfg(test)]
mod log_tests {
    use super::*;

    #[test]
    fn a_log_lines_error_field_is_the_message() {
        let line = r#"timestamp=2026-12-06T12:16:24.352Z level=ERROR run=30938efe message="stream error" providerID=deepseek modelID=deepseek-flash small=true agent=title mode=primary error.error="AI_APICallError: Incorrect API key provided: sk-real***ghij.""#;
        assert_eq!(
            log_error(line),
            "Incorrect API key provided: sk-real***ghij."
        );
        assert_eq!(log_error("plain words"), "plain words");
    }
}
