//! Connecting a coding agent to Switchyard over MCP: the configuration snippet each MCP host
//! takes to start `switchyard mcp`, for the binary at a given absolute path, and the setting
//! that decides whether agents may approve.
//!
//! Pure: the engine finds the binary and reads the setting; Settings → "Connect an agent" and
//! `switchyard mcp --config` show what is built here.

use serde::{Deserialize, Serialize};
use specta::Type;

/// The name the server is registered under in every host's configuration.
pub const SERVER_NAME: &str = "switchyard";

/// The arguments that start the MCP server.
pub const SERVER_ARGS: [&str; 1] = ["mcp"];

/// An MCP host Switchyard has a snippet for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum AgentClient {
    /// Claude Code: `claude mcp add`.
    ClaudeCode,
    /// Codex: `~/.codex/config.toml`.
    Codex,
    /// Claude Desktop: `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json`.
    Cursor,
    /// Any other host that starts stdio servers from a command and arguments.
    Generic,
}

impl AgentClient {
    /// Every host, in the order Settings lists them.
    pub const ALL: [AgentClient; 5] = [
        AgentClient::ClaudeCode,
        AgentClient::Codex,
        AgentClient::ClaudeDesktop,
        AgentClient::Cursor,
        AgentClient::Generic,
    ];

    /// The id `switchyard mcp --config` takes (`claude-code`, `codex`, …).
    pub fn id(self) -> &'static str {
        match self {
            AgentClient::ClaudeCode => "claude-code",
            AgentClient::Codex => "codex",
            AgentClient::ClaudeDesktop => "claude-desktop",
            AgentClient::Cursor => "cursor",
            AgentClient::Generic => "generic",
        }
    }

    /// Parses an id as [`AgentClient::id`] prints it (case-insensitive; `_` for `-` too).
    pub fn parse(text: &str) -> Option<AgentClient> {
        let wanted = text.trim().to_ascii_lowercase().replace('_', "-");
        AgentClient::ALL.into_iter().find(|c| c.id() == wanted)
    }

    /// The host's name for people.
    pub fn title(self) -> &'static str {
        match self {
            AgentClient::ClaudeCode => "Claude Code",
            AgentClient::Codex => "Codex",
            AgentClient::ClaudeDesktop => "Claude Desktop",
            AgentClient::Cursor => "Cursor",
            AgentClient::Generic => "Other MCP hosts (stdio)",
        }
    }
}

/// How a snippet is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SnippetFormat {
    /// A command to run in a terminal.
    Shell,
    /// A TOML table to add to a file.
    Toml,
    /// A JSON object to merge into a file.
    Json,
}

/// One host's configuration for the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentConfig {
    pub client: AgentClient,
    /// The host's name for people.
    pub title: String,
    /// Where the snippet goes, for people ("run in a terminal", a file path).
    pub target: String,
    pub format: SnippetFormat,
    /// The text to copy, exact.
    pub snippet: String,
}

/// What Settings → "Connect an agent" shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentConnect {
    /// Absolute path of the `switchyard` binary the snippets start, when one was found.
    pub binary: Option<String>,
    /// Why no binary was found (the snippets then name plain `switchyard`, which works only
    /// if the host's PATH has it).
    pub problem: Option<String>,
    /// One snippet per host, in [`AgentClient::ALL`] order.
    pub configs: Vec<AgentConfig>,
    /// Whether agents may approve attempts and runs whose gates all passed (off by default).
    pub agents_may_approve: bool,
}

/// Longest agent name kept in a launcher.
pub const MAX_AGENT_NAME: usize = 64;

/// The launcher recorded for work an MCP client starts: the agent's bare name (`claude-code`,
/// `codex`), so work an agent delegates over MCP and work it starts with the CLI under
/// `PARENT_AGENT` are listed, filtered and totalled under one name. The name comes from the
/// client's `clientInfo` when it gave one, else from the `PARENT_AGENT` environment variable;
/// plain `mcp` when neither names anyone. Names are trimmed, control characters and
/// whitespace runs become one space, and they are cut at [`MAX_AGENT_NAME`] characters.
pub fn mcp_launcher(client_name: Option<&str>, parent_agent: Option<&str>) -> String {
    let clean = |name: &str| -> Option<String> {
        let words: Vec<&str> = name
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|w| !w.is_empty())
            .collect();
        let joined: String = words.join(" ").chars().take(MAX_AGENT_NAME).collect();
        (!joined.is_empty()).then_some(joined)
    };
    client_name
        .and_then(clean)
        .or_else(|| parent_agent.and_then(clean))
        .unwrap_or_else(|| "mcp".to_owned())
}

/// The snippet for `client` starting the server at `binary` (an absolute path, or the bare
/// name `switchyard` when none was found).
pub fn agent_config(client: AgentClient, binary: &str) -> AgentConfig {
    let (target, format, snippet) = match client {
        AgentClient::ClaudeCode => (
            "Run in a terminal (add --scope user to use it in every project)".to_owned(),
            SnippetFormat::Shell,
            format!(
                "claude mcp add {SERVER_NAME} -- {} {}",
                shell_quote(binary),
                SERVER_ARGS.join(" ")
            ),
        ),
        AgentClient::Codex => (
            "~/.codex/config.toml".to_owned(),
            SnippetFormat::Toml,
            format!(
                "[mcp_servers.{SERVER_NAME}]\ncommand = {}\nargs = {}\n",
                toml_string(binary),
                toml_array(&SERVER_ARGS)
            ),
        ),
        AgentClient::ClaudeDesktop => (
            "claude_desktop_config.json (Settings → Developer → Edit Config)".to_owned(),
            SnippetFormat::Json,
            servers_json(binary, false),
        ),
        AgentClient::Cursor => (
            "~/.cursor/mcp.json (or .cursor/mcp.json in a project)".to_owned(),
            SnippetFormat::Json,
            servers_json(binary, false),
        ),
        AgentClient::Generic => (
            "Your host's MCP server list: a stdio server started with this command".to_owned(),
            SnippetFormat::Json,
            servers_json(binary, true),
        ),
    };
    AgentConfig {
        client,
        title: client.title().to_owned(),
        target,
        format,
        snippet,
    }
}

/// Every host's snippet for `binary`, in [`AgentClient::ALL`] order.
pub fn agent_configs(binary: &str) -> Vec<AgentConfig> {
    AgentClient::ALL
        .into_iter()
        .map(|client| agent_config(client, binary))
        .collect()
}

/// `{"mcpServers": {"switchyard": {…}}}`, pretty-printed; `typed` adds `"type": "stdio"`.
fn servers_json(binary: &str, typed: bool) -> String {
    let mut server = serde_json::Map::new();
    if typed {
        server.insert("type".into(), "stdio".into());
    }
    server.insert("command".into(), binary.into());
    server.insert("args".into(), SERVER_ARGS.to_vec().into());
    let value = serde_json::json!({ "mcpServers": { SERVER_NAME: server } });
    // A map of strings always serializes; the fallback is never reached.
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// A TOML basic string. JSON's escapes (`\"`, `\\`, `\n`, `\uXXXX`, …) are all valid in
/// TOML basic strings, so a JSON string literal is one.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn toml_array(items: &[&str]) -> String {
    let items: Vec<String> = items.iter().map(|i| toml_string(i)).collect();
    format!("[{}]", items.join(", "))
}

/// `text` as one POSIX shell word: as is when it has only safe characters, else in single
/// quotes (a `'` inside written as `'\''`).
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%=,".contains(c));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_snippet_is_the_add_command_with_the_path_quoted_when_needed() {
        let plain = agent_config(AgentClient::ClaudeCode, "/usr/local/bin/switchyard");
        assert_eq!(
            plain.snippet,
            "claude mcp add switchyard -- /usr/local/bin/switchyard mcp"
        );
        assert_eq!(plain.format, SnippetFormat::Shell);
        let spaced = agent_config(AgentClient::ClaudeCode, "/Users/Jo's Mac/bin/switchyard");
        assert_eq!(
            spaced.snippet,
            r"claude mcp add switchyard -- '/Users/Jo'\''s Mac/bin/switchyard' mcp"
        );
    }

    #[test]
    fn codex_snippet_parses_as_toml_with_the_exact_path() {
        let path = "C:\\Program Files\\Switchyard \"beta\"\\switchyard.exe";
        let config = agent_config(AgentClient::Codex, path);
        let parsed: toml::Table = toml::from_str(&config.snippet).expect("valid TOML");
        let server = &parsed["mcp_servers"]["switchyard"];
        assert_eq!(server["command"].as_str(), Some(path));
        assert_eq!(
            server["args"].as_array().map(|a| a.len()),
            Some(1),
            "{server:?}"
        );
        assert_eq!(server["args"][0].as_str(), Some("mcp"));
    }

    #[test]
    fn json_snippets_name_the_command_and_args_under_mcp_servers() {
        for client in [
            AgentClient::ClaudeDesktop,
            AgentClient::Cursor,
            AgentClient::Generic,
        ] {
            let config = agent_config(client, "/opt/switch yard/switchyard");
            let value: serde_json::Value =
                serde_json::from_str(&config.snippet).expect("valid JSON");
            let server = &value["mcpServers"]["switchyard"];
            assert_eq!(server["command"], "/opt/switch yard/switchyard");
            assert_eq!(server["args"], serde_json::json!(["mcp"]));
            assert_eq!(
                server.get("type").is_some(),
                client == AgentClient::Generic,
                "{client:?}"
            );
        }
    }

    #[test]
    fn launcher_prefers_client_info_then_parent_agent_and_is_cleaned() {
        assert_eq!(
            mcp_launcher(Some("claude-code"), Some("codex")),
            "claude-code"
        );
        assert_eq!(mcp_launcher(Some("  "), Some("codex")), "codex");
        assert_eq!(mcp_launcher(None, Some(" \t")), "mcp");
        assert_eq!(mcp_launcher(None, None), "mcp");
        assert_eq!(mcp_launcher(Some("a\nb\t c"), None), "a b c");
        let long = "x".repeat(200);
        assert_eq!(mcp_launcher(Some(&long), None).len(), MAX_AGENT_NAME);
    }

    #[test]
    fn every_client_parses_from_its_id_and_configs_come_in_order() {
        for client in AgentClient::ALL {
            assert_eq!(AgentClient::parse(client.id()), Some(client));
        }
        assert_eq!(
            AgentClient::parse("Claude_Code"),
            Some(AgentClient::ClaudeCode)
        );
        assert_eq!(AgentClient::parse("vim"), None);
        let clients: Vec<AgentClient> = agent_configs("switchyard")
            .iter()
            .map(|c| c.client)
            .collect();
        assert_eq!(clients, AgentClient::ALL);
    }
}
