//! Workers: who edits a worktree, how each CLI is invoked, and how its machine-readable output
//! becomes [`WorkerEvent`]s.
//!
//! Everything here is pure. [`invocation`] turns a task into the exact argv, stdin and
//! environment *names* for a CLI (the runner spawns it; the engine fills key values from the
//! keychain). A [`TranscriptParser`] per CLI turns its stdout, one line at a time, into the
//! normalized events; unknown or malformed lines become [`WorkerEvent::Raw`], never an error.
//!
//! Adapters: [`claude`] (Claude Code `stream-json`), [`codex`] (`codex exec --json`),
//! [`gemini`] (Gemini CLI `stream-json`), [`opencode`] (`opencode run --format json`),
//! [`aider`] (plain text), [`exec`] (any command through `sh -c`). [`model`] is the pure half of
//! the built-in model worker (no CLI: the engine calls the model and applies its edits).

pub mod aider;
pub mod claude;
pub mod codex;
mod event;
pub mod exec;
pub mod failure;
pub mod gemini;
mod json;
pub mod model;
pub mod opencode;

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use specta::Type;

pub use event::{OutputText, TokenPrice, ToolAction, ToolStatus, Usage, WorkerEvent};

/// A coding-agent CLI Switchyard drives non-interactively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum WorkerCli {
    Claude,
    Codex,
    Gemini,
    #[serde(rename = "opencode")]
    OpenCode,
    Aider,
}

impl WorkerCli {
    pub const ALL: [WorkerCli; 5] = [
        WorkerCli::Claude,
        WorkerCli::Codex,
        WorkerCli::Gemini,
        WorkerCli::OpenCode,
        WorkerCli::Aider,
    ];

    /// The executable's name on `PATH` (and the worker name on the command line).
    pub fn program(self) -> &'static str {
        match self {
            WorkerCli::Claude => "claude",
            WorkerCli::Codex => "codex",
            WorkerCli::Gemini => "gemini",
            WorkerCli::OpenCode => "opencode",
            WorkerCli::Aider => "aider",
        }
    }

    /// The product's name, as people know it (`Claude Code` for `claude`).
    pub fn title(self) -> &'static str {
        match self {
            WorkerCli::Claude => "Claude Code",
            WorkerCli::Codex => "Codex CLI",
            WorkerCli::Gemini => "Gemini CLI",
            WorkerCli::OpenCode => "OpenCode",
            WorkerCli::Aider => "Aider",
        }
    }

    /// Arguments that print the CLI's version (recorded with each attempt).
    pub fn version_args(self) -> &'static [&'static str] {
        &["--version"]
    }

    /// The CLI's own state under the user's home, writable to it inside the sandbox (and the
    /// only part of the home an attempt may change): its login, settings, sessions and caches.
    /// Directories end in `/`; the rest are single files.
    pub fn state_paths(self) -> &'static [&'static str] {
        match self {
            WorkerCli::Claude => &[
                ".claude/",
                ".claude.json",
                ".claude.json.backup",
                ".cache/claude/",
            ],
            WorkerCli::Codex => &[".codex/"],
            WorkerCli::Gemini => &[".gemini/"],
            WorkerCli::OpenCode => &[
                ".config/opencode/",
                ".local/share/opencode/",
                ".local/state/opencode/",
                ".cache/opencode/",
            ],
            WorkerCli::Aider => &[".aider/", ".cache/aider/"],
        }
    }

    /// The part of the CLI's writable state under the user's home that makes it run commands
    /// or follow instructions in the user's own next session (settings with hooks, notify
    /// commands, plugins, extensions, custom commands and agents, memory files): snapshotted
    /// before a worker runs and put back after it.
    pub fn guarded_config(self) -> &'static [&'static str] {
        match self {
            WorkerCli::Claude => &[
                ".claude/settings.json",
                ".claude/settings.local.json",
                ".claude/CLAUDE.md",
                ".claude/hooks",
                ".claude/commands",
                ".claude/agents",
                ".claude/plugins",
            ],
            WorkerCli::Codex => &[".codex/config.toml", ".codex/AGENTS.md", ".codex/prompts"],
            WorkerCli::Gemini => &[
                ".gemini/settings.json",
                ".gemini/.env",
                ".gemini/GEMINI.md",
                ".gemini/extensions",
                ".gemini/commands",
            ],
            WorkerCli::OpenCode => &[".config/opencode"],
            WorkerCli::Aider => &[],
        }
    }

    /// Configuration files under the user's home that name the CLI's provider endpoint; the
    /// origins named there are the CLI's own provider (its own account), reachable through the
    /// egress proxy besides the provider Switchyard routes it to.
    pub fn config_files(self) -> &'static [&'static str] {
        match self {
            WorkerCli::Claude => &[".claude/settings.json", ".claude.json"],
            WorkerCli::Codex => &[".codex/config.toml"],
            WorkerCli::Gemini => &[".gemini/settings.json", ".gemini/.env", ".env"],
            WorkerCli::OpenCode => &[
                ".config/opencode/opencode.json",
                ".config/opencode/opencode.jsonc",
                ".config/opencode/config.json",
            ],
            WorkerCli::Aider => &[".aider.conf.yml", ".env", ".aider.model.settings.yml"],
        }
    }

    /// The provider whose key and endpoint Switchyard passes (the CLI's built-in provider);
    /// `None` when the CLI takes its provider from the model name.
    pub fn builtin_provider(self) -> Option<&'static str> {
        match self {
            WorkerCli::Claude => Some("anthropic"),
            WorkerCli::Codex => Some("openai"),
            WorkerCli::Gemini => Some("gemini"),
            WorkerCli::OpenCode | WorkerCli::Aider => None,
        }
    }

    /// Files under the user's home whose presence means the CLI is logged in on its own
    /// account (a subscription or its own stored key).
    pub fn login_files(self) -> &'static [&'static str] {
        match self {
            WorkerCli::Claude => &[".claude/.credentials.json"],
            WorkerCli::Codex => &[".codex/auth.json"],
            WorkerCli::Gemini => &[".gemini/oauth_creds.json", ".gemini/.env"],
            WorkerCli::OpenCode => &[".local/share/opencode/auth.json"],
            WorkerCli::Aider => &[],
        }
    }

    /// How the user logs the CLI in on its own account.
    pub fn login_hint(self) -> &'static str {
        match self {
            WorkerCli::Claude => "run `claude` once and log in",
            WorkerCli::Codex => "run `codex login`",
            WorkerCli::Gemini => "run `gemini` once and log in with Google",
            WorkerCli::OpenCode => "run `opencode auth login`",
            WorkerCli::Aider => "pass a model whose provider has a key",
        }
    }

    /// Whether the CLI's stderr is its error log (OpenCode, told `--print-logs --log-level
    /// ERROR`): a refused key there stops the worker as one in its events does.
    pub fn stderr_is_log(self) -> bool {
        self == WorkerCli::OpenCode
    }

    /// The error a line of this CLI's stderr log reports, in words (see [`stderr_is_log`]).
    ///
    /// [`stderr_is_log`]: WorkerCli::stderr_is_log
    pub fn log_error(self, line: &str) -> String {
        match self {
            WorkerCli::OpenCode => opencode::log_error(line),
            _ => line.to_owned(),
        }
    }

    /// Whether the CLI's base-URL variable takes only the provider's origin (Gemini CLI adds
    /// the API's path itself) rather than the provider's base URL.
    pub fn base_url_is_origin(self) -> bool {
        self == WorkerCli::Gemini
    }

    /// Whether Switchyard gives this CLI a configuration folder of the attempt's own when it
    /// passes the key (Claude Code's `CLAUDE_CONFIG_DIR`, Codex's `CODEX_HOME`, Gemini CLI's
    /// `GEMINI_CLI_HOME`, OpenCode's `XDG_CONFIG_HOME`).
    pub fn has_config_dir(self) -> bool {
        self != WorkerCli::Aider
    }

    /// The variable through which the CLI takes its provider's base URL, for a provider
    /// pointed elsewhere than its default.
    pub fn base_url_env(self) -> Option<&'static str> {
        match self {
            WorkerCli::Claude => Some("ANTHROPIC_BASE_URL"),
            WorkerCli::Codex => Some("OPENAI_BASE_URL"),
            WorkerCli::Gemini => Some("GOOGLE_GEMINI_BASE_URL"),
            WorkerCli::OpenCode | WorkerCli::Aider => None,
        }
    }

    /// The name this CLI calls the catalog's model `catalog_id` by, when it can call it at
    /// all: the vendor's API name for CLIs with a built-in provider
    /// (`anthropic/claude-sonnet-4.5` → `claude-sonnet-4-5`), the `vendor/model` id itself for
    /// the CLIs that pick the provider from the model name. The inverse of [`catalog_ids`].
    ///
    /// [`catalog_ids`]: WorkerCli::catalog_ids
    pub fn model_name(self, catalog_id: &str) -> Option<String> {
        let (vendor, model) = catalog_id.split_once('/')?;
        let own = match self {
            WorkerCli::Claude => "anthropic",
            WorkerCli::Codex => "openai",
            WorkerCli::Gemini => "google",
            WorkerCli::OpenCode | WorkerCli::Aider => return Some(catalog_id.to_owned()),
        };
        if vendor != own || model.contains(':') {
            return None;
        }
        Some(if self == WorkerCli::Claude {
            model.replace('.', "-")
        } else {
            model.to_owned()
        })
    }

    /// Catalog ids the model `model`, as this CLI names it, may have: the vendor's prefix for
    /// CLIs with a built-in provider (`claude-sonnet-4-5` → `anthropic/claude-sonnet-4.5`),
    /// the `provider/model` as given for the others, without an `openrouter/` hop.
    pub fn catalog_ids(self, model: &str) -> Vec<String> {
        let vendor = match self {
            WorkerCli::Claude => Some("anthropic"),
            WorkerCli::Codex => Some("openai"),
            WorkerCli::Gemini => Some("google"),
            WorkerCli::OpenCode | WorkerCli::Aider => None,
        };
        let mut ids = Vec::new();
        let mut push = |id: String| {
            if !ids.contains(&id) {
                ids.push(id);
            }
        };
        match vendor {
            Some(vendor) => {
                push(format!("{vendor}/{model}"));
                push(format!("{vendor}/{}", dotted_version(model)));
            }
            None => {
                push(model.to_owned());
                if let Some(rest) = model.strip_prefix("openrouter/") {
                    push(rest.to_owned());
                }
                push(dotted_version(model));
            }
        }
        ids
    }

    /// The adapter whose executable is `name` (`claude`, `codex`, …).
    pub fn from_program(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|cli| cli.program() == name)
    }
}

/// `claude-sonnet-4-5` → `claude-sonnet-4.5`: vendors write a version's dot as a dash in
/// their API names; the catalog keeps the dot.
fn dotted_version(model: &str) -> String {
    let bytes = model.as_bytes();
    let mut out = String::with_capacity(model.len());
    for (i, c) in model.char_indices() {
        let digit_around =
            |j: Option<usize>| j.and_then(|j| bytes.get(j)).is_some_and(u8::is_ascii_digit);
        // Only a single-digit minor version after a digit: a date suffix (`-20250929`) stays.
        let minor_single = digit_around(Some(i + 1)) && !digit_around(Some(i + 2));
        if c == '-' && digit_around(i.checked_sub(1)) && minor_single {
            out.push('.');
        } else {
            out.push(c);
        }
    }
    out
}

/// Who does an attempt: `model:<id>` (the built-in model worker), a CLI by name with the
/// model Switchyard routes it to (`claude:sonnet`, `opencode:deepseek/deepseek-chat`) or
/// without one (the CLI's own default), or `exec:<command>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum WorkerSpec {
    Model {
        id: String,
    },
    Cli {
        cli: WorkerCli,
        /// The model the CLI is told to use, in the CLI's own naming; `None`: its default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    Exec {
        command: String,
    },
}

/// Why a worker name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkerSpecError {
    #[error("unknown worker {0:?}: use model:<id>, claude[:<model>], codex[:<model>], gemini[:<model>], opencode[:<provider/model>], aider[:<model>] or exec:<command>")]
    Unknown(String),
    #[error("{0} needs a value after the colon")]
    Empty(&'static str),
    #[error("{0:?}: the model after the CLI's name must be one word, without spaces")]
    BadModel(String),
}

impl WorkerSpec {
    /// Parses `model:ID`, `claude`, `codex`, `gemini`, `opencode`, `aider` (each optionally
    /// followed by `:<model>`) or `exec:CMD`.
    ///
    /// # Errors
    /// [`WorkerSpecError`] for anything else, or an empty id / command.
    pub fn parse(text: &str) -> Result<Self, WorkerSpecError> {
        let text = text.trim();
        if let Some(id) = text.strip_prefix("model:") {
            let id = id.trim();
            if id.is_empty() {
                return Err(WorkerSpecError::Empty("model:"));
            }
            return Ok(WorkerSpec::Model { id: id.to_owned() });
        }
        if let Some(command) = text.strip_prefix("exec:") {
            if command.trim().is_empty() {
                return Err(WorkerSpecError::Empty("exec:"));
            }
            return Ok(WorkerSpec::Exec {
                command: command.to_owned(),
            });
        }
        let (name, model) = match text.split_once(':') {
            Some((name, model)) => (name, Some(model.trim())),
            None => (text, None),
        };
        let cli = WorkerCli::from_program(name)
            .ok_or_else(|| WorkerSpecError::Unknown(text.to_owned()))?;
        if model.is_some_and(|m| m.is_empty() || m.contains(char::is_whitespace)) {
            return Err(WorkerSpecError::BadModel(text.to_owned()));
        }
        Ok(WorkerSpec::Cli {
            cli,
            model: model.map(str::to_owned),
        })
    }

    /// The CLI this spec runs, if it is a CLI worker.
    pub fn cli(&self) -> Option<WorkerCli> {
        match self {
            WorkerSpec::Cli { cli, .. } => Some(*cli),
            _ => None,
        }
    }

    /// The Switchyard provider a CLI that picks its provider from the model name (OpenCode,
    /// Aider) is routed to: the routed model's `<provider>/` prefix (`google` is Switchyard's
    /// `gemini`). Its key and origin are the ones the worker gets.
    pub fn model_provider(&self) -> Option<&str> {
        match self {
            WorkerSpec::Cli {
                cli: WorkerCli::OpenCode | WorkerCli::Aider,
                model: Some(model),
            } => {
                let (provider, _) = model.split_once('/')?;
                Some(if provider == "google" {
                    "gemini"
                } else {
                    provider
                })
            }
            _ => None,
        }
    }

    /// The model this worker calls as far as Switchyard chose it: the model worker's id or
    /// the model a CLI was routed to.
    pub fn routed_model(&self) -> Option<&str> {
        match self {
            WorkerSpec::Model { id } => Some(id),
            WorkerSpec::Cli { model, .. } => model.as_deref(),
            WorkerSpec::Exec { .. } => None,
        }
    }
}

impl fmt::Display for WorkerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerSpec::Model { id } => write!(f, "model:{id}"),
            WorkerSpec::Cli { cli, model: None } => f.write_str(cli.program()),
            WorkerSpec::Cli {
                cli,
                model: Some(model),
            } => write!(f, "{}:{model}", cli.program()),
            WorkerSpec::Exec { command } => write!(f, "exec:{command}"),
        }
    }
}

/// What the catalog says of the routed model, for a CLI that otherwise fetches it from the
/// internet at start (Aider's model metadata).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFacts {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    pub context: Option<u32>,
}

/// What a CLI worker is asked to do, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerTask {
    /// The full prompt: the composed role (if any), then the task.
    pub prompt: String,
    /// The model to ask the CLI for; `None` leaves the CLI's default.
    pub model: Option<String>,
    /// A turn limit, for CLIs that take one (Claude Code).
    pub max_turns: Option<u32>,
    /// The attempt's worktree; the CLI runs there.
    pub worktree: PathBuf,
    /// A directory **outside** the worktree for files the CLI reads its task from (Aider's
    /// message file), so they never show up in the diff. Read-only to the worker; its `tmp`
    /// folder is the worker's private temp, which it may write.
    pub scratch_dir: PathBuf,
    /// The attempt's own CLI configuration folder (writable to the worker, outside the
    /// worktree and the user's home), for CLIs Switchyard configures to call the provider it
    /// routes to with the key it passes. `None`: the CLI runs on its own account and settings.
    pub config_dir: Option<PathBuf>,
    /// The base URL of the provider Switchyard routes the CLI to (with `config_dir`), for
    /// CLIs that take it from their configuration file rather than the environment (Codex).
    pub base_url: Option<String>,
    /// Whether Switchyard's own sandbox confines the worker. A CLI that sandboxes its own
    /// commands (Codex) leaves that to Switchyard then: a sandbox inside bubblewrap cannot
    /// set itself up and denies every write.
    pub confined: bool,
    /// The routed model's catalog price and context, when the catalog has them.
    pub model_facts: Option<ModelFacts>,
}

/// Exactly how to start a CLI worker. The runner spawns it with the environment allowlist plus
/// `env` plus the values of `key_env` (the worker's own provider key, from the keychain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub program: String,
    pub args: Vec<String>,
    /// Written to stdin, which is then closed.
    pub stdin: Option<String>,
    /// Non-secret variables to set.
    pub env: Vec<(String, String)>,
    /// Names of variables through which this CLI reads its provider key; the engine sets the
    /// worker's own key under them and nothing else.
    pub key_env: Vec<String>,
    pub cwd: PathBuf,
    /// Files to write before spawning (path, contents).
    pub files: Vec<(PathBuf, String)>,
}

/// Why a worker cannot be invoked as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvocationError {
    #[error("the task is empty")]
    EmptyPrompt,
    #[error("the task is {len} bytes; {cli} takes it as one argument, at most {limit} bytes")]
    PromptTooLong {
        cli: &'static str,
        len: usize,
        limit: usize,
    },
    #[error("the model worker is not a command; it runs inside Switchyard")]
    NotACommand,
}

/// Longest single argument or environment string Linux accepts (`MAX_ARG_STRLEN`, 32 pages,
/// including the terminating NUL).
pub const MAX_ARG_BYTES: usize = 32 * 4096 - 1;

/// The invocation for `spec` on `task`.
///
/// # Errors
/// [`InvocationError::NotACommand`] for the model worker, [`InvocationError::EmptyPrompt`],
/// and [`InvocationError::PromptTooLong`] where the prompt must travel as one argument.
pub fn invocation(spec: &WorkerSpec, task: &WorkerTask) -> Result<Invocation, InvocationError> {
    if task.prompt.trim().is_empty() {
        return Err(InvocationError::EmptyPrompt);
    }
    match spec {
        WorkerSpec::Model { .. } => Err(InvocationError::NotACommand),
        WorkerSpec::Cli { cli, .. } => match cli {
            WorkerCli::Claude => Ok(claude::invocation(task)),
            WorkerCli::Codex => Ok(codex::invocation(task)),
            WorkerCli::Gemini => gemini::invocation(task),
            WorkerCli::OpenCode => opencode::invocation(task),
            WorkerCli::Aider => Ok(aider::invocation(task)),
        },
        WorkerSpec::Exec { command } => exec::invocation(command, task),
    }
}

/// Turns one CLI's output into [`WorkerEvent`]s, line by line. Deterministic and without IO;
/// it keeps only what pairing needs (tool ids, running usage totals).
pub trait TranscriptParser: Send {
    /// One line of the CLI's stdout (without the newline). Never fails: what it cannot read
    /// becomes [`WorkerEvent::Raw`].
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent>;

    /// The process ended with `exit_code` (`None`: killed by a signal). Emits the
    /// [`WorkerEvent::Final`] if the output did not carry one, and flags an exit code that
    /// contradicts a reported success.
    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent>;

    /// The model that did the work when the output names it only at the end (Gemini's
    /// `result.stats.models`, after an `init` that said `auto`); it prices the tokens.
    fn model(&self) -> Option<String> {
        None
    }
}

/// The parser for `spec`'s output; `None` for the model worker (it emits events directly).
pub fn parser(spec: &WorkerSpec) -> Option<Box<dyn TranscriptParser>> {
    match spec {
        WorkerSpec::Model { .. } => None,
        WorkerSpec::Cli { cli, .. } => Some(match cli {
            WorkerCli::Claude => Box::new(claude::ClaudeParser::default()),
            WorkerCli::Codex => Box::new(codex::CodexParser::default()),
            WorkerCli::Gemini => Box::new(gemini::GeminiParser::default()),
            WorkerCli::OpenCode => Box::new(opencode::OpenCodeParser::default()),
            WorkerCli::Aider => Box::new(aider::AiderParser::default()),
        }),
        WorkerSpec::Exec { .. } => Some(Box::new(exec::ExecParser)),
    }
}

/// The environment variable a provider's key travels in, for CLIs that pick the provider from
/// the model name (OpenCode's `provider/model`, Aider's `provider/model`).
pub fn provider_key_env(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "anthropic" => "ANTHROPIC_API_KEY",
        "openai" => "OPENAI_API_KEY",
        "openrouter" => "OPENROUTER_API_KEY",
        "gemini" => "GEMINI_API_KEY",
        "google" => "GOOGLE_GENERATIVE_AI_API_KEY",
        "deepseek" => "DEEPSEEK_API_KEY",
        "groq" => "GROQ_API_KEY",
        "mistral" => "MISTRAL_API_KEY",
        "xai" => "XAI_API_KEY",
        _ => return None,
    })
}

/// The common end of a transcript: a `Final` when the output carried none, and an error when
/// the exit code contradicts a reported success.
fn finish_events(
    final_seen: Option<bool>,
    failed: bool,
    exit_code: Option<i32>,
    summary: Option<String>,
) -> Vec<WorkerEvent> {
    match final_seen {
        None => vec![WorkerEvent::Final {
            ok: exit_code == Some(0) && !failed,
            summary: summary.or_else(|| exit_summary(exit_code)),
        }],
        Some(true) if exit_code != Some(0) => vec![WorkerEvent::Error {
            message: format!(
                "the worker reported success but {}",
                exit_summary(exit_code).unwrap_or_default()
            ),
        }],
        Some(_) => Vec::new(),
    }
}

fn exit_summary(exit_code: Option<i32>) -> Option<String> {
    match exit_code {
        Some(0) => None,
        Some(code) => Some(format!("exited with code {code}")),
        None => Some("was killed by a signal".to_owned()),
    }
}

/// A prompt that begins with `-` would be read as an option where it travels as an argument.
fn argument_safe(prompt: &str) -> String {
    if prompt.starts_with('-') {
        format!(" {prompt}")
    } else {
        prompt.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_specs_round_trip() {
        for text in [
            "model:openrouter:qwen/qwen3-coder",
            "claude",
            "opencode",
            "opencode:deepseek/deepseek-chat",
            "claude:sonnet",
            "aider:openrouter/qwen/qwen3-coder",
            "exec:make fix",
        ] {
            let spec = WorkerSpec::parse(text).expect(text);
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            WorkerSpec::parse("codex"),
            Ok(WorkerSpec::Cli {
                cli: WorkerCli::Codex,
                model: None
            })
        );
        assert_eq!(
            WorkerSpec::parse("codex:gpt-5-mini").map(|s| s.routed_model().map(str::to_owned)),
            Ok(Some("gpt-5-mini".to_owned()))
        );
        assert!(matches!(
            WorkerSpec::parse("claude:"),
            Err(WorkerSpecError::BadModel(_))
        ));
        assert!(matches!(
            WorkerSpec::parse("cursor:gpt-5"),
            Err(WorkerSpecError::Unknown(_))
        ));
        assert!(matches!(
            WorkerSpec::parse("cursor"),
            Err(WorkerSpecError::Unknown(_))
        ));
        assert_eq!(
            WorkerSpec::parse("exec:  "),
            Err(WorkerSpecError::Empty("exec:"))
        );
        assert_eq!(
            WorkerSpec::parse("model:"),
            Err(WorkerSpecError::Empty("model:"))
        );
    }

    #[test]
    fn cli_models_name_their_catalog_ids() {
        assert_eq!(
            WorkerCli::Claude.catalog_ids("claude-sonnet-4-5"),
            vec!["anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"]
        );
        assert_eq!(
            WorkerCli::Claude.catalog_ids("claude-haiku-4-5-20251001"),
            vec![
                "anthropic/claude-haiku-4-5-20251001",
                "anthropic/claude-haiku-4.5-20251001"
            ]
        );
        assert_eq!(
            WorkerCli::Codex.catalog_ids("gpt-5-mini"),
            vec!["openai/gpt-5-mini"]
        );
        assert_eq!(
            WorkerCli::Claude
                .model_name("anthropic/claude-sonnet-4.5")
                .as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(WorkerCli::Claude.model_name("openai/gpt-5"), None);
        assert_eq!(
            WorkerCli::Gemini
                .model_name("google/gemini-2.5-flash")
                .as_deref(),
            Some("gemini-2.5-flash")
        );
        assert_eq!(
            WorkerCli::OpenCode
                .model_name("deepseek/deepseek-chat")
                .as_deref(),
            Some("deepseek/deepseek-chat")
        );
        // The round trip lands on the catalog id.
        for id in [
            "anthropic/claude-sonnet-4.5",
            "openai/gpt-5-mini",
            "google/gemini-2.5-pro",
        ] {
            for cli in [WorkerCli::Claude, WorkerCli::Codex, WorkerCli::Gemini] {
                if let Some(name) = cli.model_name(id) {
                    assert!(
                        cli.catalog_ids(&name).contains(&id.to_owned()),
                        "{cli:?} {id}"
                    );
                }
            }
        }
        assert_eq!(
            WorkerCli::OpenCode.catalog_ids("openrouter/qwen/qwen3-coder"),
            vec!["openrouter/qwen/qwen3-coder", "qwen/qwen3-coder"]
        );
    }

    #[test]
    fn the_model_worker_and_an_empty_task_have_no_invocation() {
        let task = WorkerTask {
            prompt: "  ".into(),
            model: None,
            max_turns: None,
            worktree: "/w".into(),
            scratch_dir: "/s".into(),
            config_dir: None,
            base_url: None,
            confined: false,
            model_facts: None,
        };
        let claude = WorkerSpec::Cli {
            cli: WorkerCli::Claude,
            model: None,
        };
        assert_eq!(
            invocation(&claude, &task),
            Err(InvocationError::EmptyPrompt)
        );
        let task = WorkerTask {
            prompt: "fix it".into(),
            ..task
        };
        assert_eq!(
            invocation(&WorkerSpec::Model { id: "x".into() }, &task),
            Err(InvocationError::NotACommand)
        );
        assert!(parser(&WorkerSpec::Model { id: "x".into() }).is_none());
    }
}
