//! Codex CLI: `codex exec --json --sandbox <mode> --skip-git-repo-check -C <worktree>
//! [-m M] -`, prompt on stdin (`--full-auto` is deprecated). The mode is `workspace-write`
//! when Switchyard runs it unconfined, and `danger-full-access` inside Switchyard's sandbox:
//! Codex's own sandbox cannot set itself up inside bubblewrap (its writes are all denied),
//! and Switchyard's already keeps it to the worktree and its provider.
//!
//! One JSON object per line: `thread.started{thread_id}`, `turn.started`,
//! `item.started|item.updated|item.completed{item}` where `item.type` (older releases:
//! `item_type`) is `agent_message` (older: `assistant_message`), `reasoning`,
//! `command_execution{command, aggregated_output, exit_code, status}`,
//! `file_change{changes[{path, kind}], status}`, `mcp_tool_call`, `web_search`, `todo_list` or
//! `error`; `turn.completed{usage{input_tokens, cached_input_tokens, output_tokens}}`,
//! `turn.failed{error{message}}` and a top-level `error{message}`. Codex reports no cost: the
//! engine estimates it from tokens × catalog price.

use serde_json::Value;

use super::json::{i32_at, message_of, object, raw, str_at, u32_at};
use super::{
    finish_events, Invocation, ToolAction, ToolStatus, TranscriptParser, Usage, WorkerEvent,
    WorkerTask,
};

/// `codex exec --json --sandbox <mode> --skip-git-repo-check -C <worktree> [-m M] -`.
pub fn invocation(task: &WorkerTask) -> Invocation {
    let sandbox = if task.confined {
        "danger-full-access"
    } else {
        "workspace-write"
    };
    let mut args: Vec<String> = [
        "exec",
        "--json",
        "--sandbox",
        sandbox,
        "--skip-git-repo-check",
        "-C",
    ]
    .map(str::to_owned)
    .into();
    args.push(task.worktree.to_string_lossy().into_owned());
    if let Some(model) = &task.model {
        args.extend(["-m".to_owned(), model.clone()]);
    }
    args.push("-".to_owned());
    let mut env = Vec::new();
    let mut files = Vec::new();
    if let (Some(dir), Some(base_url)) = (&task.config_dir, &task.base_url) {
        env.push(("CODEX_HOME".to_owned(), dir.to_string_lossy().into_owned()));
        files.push((dir.join("config.toml"), config(base_url)));
    }
    Invocation {
        program: "codex".into(),
        args,
        stdin: Some(task.prompt.clone()),
        env,
        key_env: vec!["CODEX_API_KEY".into(), "OPENAI_API_KEY".into()],
        cwd: task.worktree.clone(),
        files,
    }
}

/// The attempt's Codex `config.toml`: the provider Switchyard routes it to (Codex 0.171
/// ignores `OPENAI_BASE_URL`; without this it calls its default host and, unreachable, waits
/// for the network forever), its key from `OPENAI_API_KEY`, two retries per request and
/// stream, no update check or analytics, and no plugins or apps (at start it syncs a plugin
/// list from GitHub otherwise: only the provider is reachable).
pub fn config(base_url: &str) -> String {
    let base_url = toml_string(base_url);
    format!(
        "model_provider = \"switchyard\"\n\
         check_for_update_on_startup = false\n\
         \n\
         [model_providers.switchyard]\n\
         name = \"Switchyard\"\n\
         base_url = {base_url}\n\
         env_key = \"OPENAI_API_KEY\"\n\
         wire_api = \"responses\"\n\
         request_max_retries = 2\n\
         stream_max_retries = 2\n\
         \n\
         [analytics]\n\
         enabled = false\n\
         \n\
         [features]\n\
         plugins = false\n\
         remote_plugin = false\n\
         apps = false\n"
    )
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parses `codex exec --json` lines.
#[derive(Debug, Default)]
pub struct CodexParser {
    usage: Usage,
    /// The last turn completed (`Some(true)`) or failed (`Some(false)`).
    last_turn: Option<bool>,
    final_seen: Option<bool>,
    last_text: Option<String>,
}

fn item_status(item: &Value) -> ToolStatus {
    match str_at(item, "status") {
        Some("completed") => ToolStatus::Completed,
        Some("failed") | Some("declined") => ToolStatus::Failed,
        _ => ToolStatus::Started,
    }
}

impl CodexParser {
    fn item(&mut self, phase: &str, item: &Value, line: &str) -> Vec<WorkerEvent> {
        let kind = str_at(item, "type").or_else(|| str_at(item, "item_type"));
        let id = str_at(item, "id").map(str::to_owned);
        let completed = phase == "item.completed";
        match kind {
            Some("agent_message") | Some("assistant_message") => {
                if !completed {
                    return Vec::new();
                }
                let text = str_at(item, "text").unwrap_or_default().to_owned();
                self.last_text = Some(text.clone());
                vec![WorkerEvent::AssistantText { text, delta: false }]
            }
            Some("reasoning") => {
                if !completed {
                    return Vec::new();
                }
                vec![WorkerEvent::Thinking {
                    text: str_at(item, "text").unwrap_or_default().to_owned(),
                }]
            }
            Some("command_execution") => {
                if phase == "item.updated" {
                    return Vec::new();
                }
                let exit_code = i32_at(item, "exit_code");
                let status = match item_status(item) {
                    ToolStatus::Completed if exit_code.is_some_and(|c| c != 0) => {
                        ToolStatus::Failed
                    }
                    ToolStatus::Started if completed => ToolStatus::Completed,
                    status => status,
                };
                vec![WorkerEvent::ToolUse {
                    id,
                    tool: "shell".into(),
                    action: ToolAction::Command {
                        command: str_at(item, "command").unwrap_or_default().to_owned(),
                        exit_code,
                    },
                    status,
                }]
            }
            Some("file_change") => {
                if !completed {
                    return Vec::new();
                }
                let status = match item_status(item) {
                    ToolStatus::Started => ToolStatus::Completed,
                    status => status,
                };
                item.get("changes")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|change| str_at(change, "path"))
                    .map(|path| WorkerEvent::ToolUse {
                        id: id.clone(),
                        tool: "apply_patch".into(),
                        action: ToolAction::FileEdit {
                            path: path.to_owned(),
                        },
                        status,
                    })
                    .collect()
            }
            Some("mcp_tool_call") => {
                if phase == "item.updated" {
                    return Vec::new();
                }
                let tool = match (str_at(item, "server"), str_at(item, "tool")) {
                    (Some(server), Some(tool)) => format!("{server}.{tool}"),
                    (None, Some(tool)) => tool.to_owned(),
                    _ => "mcp".to_owned(),
                };
                vec![WorkerEvent::ToolUse {
                    id,
                    tool,
                    action: ToolAction::Other,
                    status: item_status(item),
                }]
            }
            Some("web_search") => {
                if phase == "item.updated" {
                    return Vec::new();
                }
                vec![WorkerEvent::ToolUse {
                    id,
                    tool: "web_search".into(),
                    action: ToolAction::Search {
                        query: str_at(item, "query").map(str::to_owned),
                    },
                    status: if completed {
                        ToolStatus::Completed
                    } else {
                        ToolStatus::Started
                    },
                }]
            }
            // The plan list changes often and carries no edits; the raw transcript keeps it.
            Some("todo_list") => Vec::new(),
            // A non-fatal notice (e.g. a transport fallback); only turn failures end the run.
            Some("error") => vec![WorkerEvent::Error {
                message: message_of(item).unwrap_or_else(|| "error".to_owned()),
            }],
            _ => raw(line),
        }
    }
}

impl TranscriptParser for CodexParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        let Some(value) = object(line) else {
            return raw(line);
        };
        match str_at(&value, "type") {
            Some("thread.started") => vec![WorkerEvent::Started {
                session_id: str_at(&value, "thread_id").map(str::to_owned),
                model: None,
            }],
            Some("turn.started") => Vec::new(),
            Some(phase @ ("item.started" | "item.updated" | "item.completed")) => {
                match value.get("item") {
                    Some(item) => self.item(phase, item, line),
                    None => raw(line),
                }
            }
            Some("turn.completed") => {
                self.last_turn = Some(true);
                let Some(usage) = value.get("usage") else {
                    return Vec::new();
                };
                self.usage.input = self
                    .usage
                    .input
                    .saturating_add(u32_at(usage, "input_tokens"));
                self.usage.cached = self
                    .usage
                    .cached
                    .saturating_add(u32_at(usage, "cached_input_tokens"));
                self.usage.output = self
                    .usage
                    .output
                    .saturating_add(u32_at(usage, "output_tokens"));
                vec![WorkerEvent::Usage(self.usage)]
            }
            Some("turn.failed") => {
                self.last_turn = Some(false);
                self.final_seen = Some(false);
                let message = value
                    .get("error")
                    .and_then(message_of)
                    .unwrap_or_else(|| "the turn failed".to_owned());
                vec![
                    WorkerEvent::Error {
                        message: message.clone(),
                    },
                    WorkerEvent::Final {
                        ok: false,
                        summary: Some(message),
                    },
                ]
            }
            Some("error") => vec![WorkerEvent::Error {
                message: message_of(&value).unwrap_or_else(|| "error".to_owned()),
            }],
            _ => raw(line),
        }
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        // Success needs a completed last turn: an exec that exits 0 without one did nothing.
        let failed = self.last_turn != Some(true);
        finish_events(self.final_seen, failed, exit_code, self.last_text.take())
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;

    #[test]
    fn the_attempts_config_routes_codex_to_the_provider_and_parses_as_toml() {
        let text = config("http://127.0.0.1:8080/v1\"quoted\\");
        let parsed: toml::Table = toml::from_str(&text).expect("valid TOML");
        assert_eq!(parsed["model_provider"].as_str(), Some("switchyard"));
        let provider = &parsed["model_providers"]["switchyard"];
        assert_eq!(
            provider["base_url"].as_str(),
            Some("http://127.0.0.1:8080/v1\"quoted\\")
        );
        assert_eq!(provider["env_key"].as_str(), Some("OPENAI_API_KEY"));
        assert_eq!(provider["wire_api"].as_str(), Some("responses"));
        assert_eq!(parsed["analytics"]["enabled"].as_bool(), Some(false));
    }
}
