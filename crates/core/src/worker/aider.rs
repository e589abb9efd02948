//! Aider: `aider --message-file F --yes-always --no-auto-commits --no-stream --no-pretty
//! --no-check-update --analytics-disable [--model M]`.
//!
//! Plain text. Two line shapes carry meaning: `Applied edit to <path>` and the usage report
//! `Tokens: 2.5k sent, 1.2k cache write, 3.4k cache hit, 250 received. Cost: $0.0012 message,
//! $0.0045 session.` (the cache parts and the cost appear only when known; older releases wrote
//! `1,234 sent` and `request` for `message`). Token counts are per message and summed here; the
//! session cost is already a running total. Everything else is kept raw.

use super::json::raw;
use super::{
    finish_events, provider_key_env, Invocation, ModelFacts, ToolAction, ToolStatus,
    TranscriptParser, Usage, WorkerEvent, WorkerTask,
};

/// The message file's name inside the task's scratch directory.
pub const MESSAGE_FILE: &str = "aider-message.txt";
/// Aider's input and chat histories, kept in the worker's private temp inside the scratch
/// directory (by default they are written into the repository and would be captured with the
/// change; the scratch directory itself is read-only to the worker).
pub const INPUT_HISTORY: &str = "tmp/aider.input.history";
pub const CHAT_HISTORY: &str = "tmp/aider.chat.history.md";
/// The routed model's metadata from the catalog, in the scratch directory: with it Aider does
/// not fetch LiteLLM's price list from GitHub at start (only the provider is reachable).
pub const MODEL_METADATA: &str = "aider-model-metadata.json";

/// Aider's environment: a wide console (without a terminal it wraps at 80 columns and splits
/// `Applied edit to <long path>` and the cost report across lines) and LiteLLM's bundled
/// model prices instead of fetching them at start (only the provider is reachable).
pub const ENV: &[(&str, &str)] = &[
    ("COLUMNS", "1000"),
    ("LITELLM_LOCAL_MODEL_COST_MAP", "True"),
];

/// The provider-key variable Aider reads for `model`.
fn key_env(model: &str) -> Option<&'static str> {
    if let Some(var) = model.split_once('/').and_then(|(p, _)| provider_key_env(p)) {
        return Some(var);
    }
    let bare = model.rsplit('/').next().unwrap_or(model);
    if bare.starts_with("claude") || bare == "sonnet" || bare == "opus" || bare == "haiku" {
        Some("ANTHROPIC_API_KEY")
    } else if bare.starts_with("gpt")
        || bare.starts_with("o1")
        || bare.starts_with("o3")
        || bare.starts_with("o4")
    {
        Some("OPENAI_API_KEY")
    } else if bare.starts_with("gemini") {
        Some("GEMINI_API_KEY")
    } else if bare.starts_with("deepseek") {
        Some("DEEPSEEK_API_KEY")
    } else {
        None
    }
}

/// `aider --message-file <scratch>/aider-message.txt --yes-always --no-auto-commits
/// --no-stream --no-pretty --no-check-update --analytics-disable --no-suggest-shell-commands
/// --no-detect-urls --no-gitignore --no-show-release-notes --input-history-file <scratch>/…
/// --chat-history-file <scratch>/… [--model M]`; the message file (outside the worktree) is
/// among the files to write first.
pub fn invocation(task: &WorkerTask) -> Invocation {
    let message_file = task.scratch_dir.join(MESSAGE_FILE);
    let mut args = vec![
        "--message-file".to_owned(),
        message_file.to_string_lossy().into_owned(),
    ];
    args.extend(
        [
            "--yes-always",
            "--no-auto-commits",
            "--no-stream",
            "--no-pretty",
            "--no-check-update",
            "--analytics-disable",
            // No shell commands offered (and auto-approved by --yes-always), no URLs fetched.
            "--no-suggest-shell-commands",
            "--no-detect-urls",
            // `--yes-always` would otherwise add `.aider*` to the repository's .gitignore.
            "--no-gitignore",
            "--no-show-release-notes",
        ]
        .map(str::to_owned),
    );
    for (flag, name) in [
        ("--input-history-file", INPUT_HISTORY),
        ("--chat-history-file", CHAT_HISTORY),
    ] {
        args.extend([
            flag.to_owned(),
            task.scratch_dir.join(name).to_string_lossy().into_owned(),
        ]);
    }
    let mut key = Vec::new();
    let mut env: Vec<(String, String)> = ENV
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut files = vec![(message_file, task.prompt.clone())];
    if let (Some(model), Some(facts)) = (&task.model, &task.model_facts) {
        let path = task.scratch_dir.join(MODEL_METADATA);
        args.extend([
            "--model-metadata-file".to_owned(),
            path.to_string_lossy().into_owned(),
        ]);
        files.push((path, model_metadata(model, facts)));
    }
    if let Some(model) = &task.model {
        args.extend(["--model".to_owned(), model.clone()]);
        key.extend(key_env(model).map(str::to_owned));
        // The routed provider pointed elsewhere in Switchyard: LiteLLM's `<PROVIDER>_API_BASE`.
        if let (Some((provider, _)), Some(base_url)) = (model.split_once('/'), &task.base_url) {
            env.push((
                format!(
                    "{}_API_BASE",
                    provider.to_ascii_uppercase().replace('-', "_")
                ),
                base_url.clone(),
            ));
        }
    }
    Invocation {
        program: "aider".into(),
        args,
        stdin: None,
        env,
        key_env: key,
        cwd: task.worktree.clone(),
        files,
    }
}

/// `model`'s entry in LiteLLM's model metadata format, from the catalog: its prices per token
/// and context, under the provider its name gives (`openai/gpt-4o-mini` → `openai`).
pub fn model_metadata(model: &str, facts: &ModelFacts) -> String {
    let provider = model
        .split_once('/')
        .map(|(provider, _)| provider)
        .or_else(|| key_env(model).map(|var| var.trim_end_matches("_API_KEY")))
        .unwrap_or("openai")
        .to_ascii_lowercase();
    let mut entry = serde_json::json!({
        "input_cost_per_token": facts.input_per_mtok / 1e6,
        "output_cost_per_token": facts.output_per_mtok / 1e6,
        "litellm_provider": provider,
        "mode": "chat",
    });
    if let Some(context) = facts.context {
        entry["max_input_tokens"] = context.into();
        entry["max_tokens"] = context.into();
    }
    serde_json::json!({ model: entry }).to_string()
}

/// Parses Aider's plain-text output.
#[derive(Debug, Default)]
pub struct AiderParser {
    usage: Usage,
    edits: u32,
    failed: bool,
}

/// `2.5k`, `12k`, `999`, `1,234` → tokens.
fn tokens(text: &str) -> Option<u32> {
    let text = text.replace(',', "");
    let (number, scale) = match text.strip_suffix('k') {
        Some(n) => (n, 1000.0),
        None => match text.strip_suffix('M') {
            Some(n) => (n, 1_000_000.0),
            None => (text.as_str(), 1.0),
        },
    };
    let value: f64 = number.parse().ok()?;
    (value >= 0.0).then(|| (value * scale).round().min(f64::from(u32::MAX)) as u32)
}

/// The parts of one `Tokens: …` report.
struct Report {
    sent: u32,
    cache_hit: u32,
    received: u32,
    session_cost: Option<f64>,
}

fn report(line: &str) -> Option<Report> {
    let rest = line.trim().strip_prefix("Tokens: ")?;
    let (token_part, cost_part) = match rest.split_once(". Cost: ") {
        Some((t, c)) => (t, Some(c)),
        None => (rest.trim_end_matches('.'), None),
    };
    let mut report = Report {
        sent: 0,
        cache_hit: 0,
        received: 0,
        session_cost: None,
    };
    let mut saw_sent = false;
    for item in token_part.split(", ") {
        let (count, what) = item.split_once(' ')?;
        let count = tokens(count)?;
        match what {
            "sent" => {
                report.sent = count;
                saw_sent = true;
            }
            "received" => report.received = count,
            "cache hit" => report.cache_hit = count,
            "cache write" => {}
            _ => return None,
        }
    }
    if let Some(cost) = cost_part {
        report.session_cost = cost
            .trim_end_matches('.')
            .split(", ")
            .find_map(|item| item.strip_suffix(" session"))
            .and_then(|amount| amount.strip_prefix('$'))
            .and_then(|amount| amount.parse().ok());
    }
    saw_sent.then_some(report)
}

impl TranscriptParser for AiderParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        let trimmed = line.trim();
        if let Some(path) = trimmed.strip_prefix("Applied edit to ") {
            self.edits = self.edits.saturating_add(1);
            return vec![WorkerEvent::ToolUse {
                id: None,
                tool: "edit".into(),
                action: ToolAction::FileEdit {
                    path: path.to_owned(),
                },
                status: ToolStatus::Completed,
            }];
        }
        if let Some(report) = report(trimmed) {
            self.usage.input = self.usage.input.saturating_add(report.sent);
            self.usage.cached = self.usage.cached.saturating_add(report.cache_hit);
            self.usage.output = self.usage.output.saturating_add(report.received);
            if report.session_cost.is_some() {
                self.usage.cost_usd = report.session_cost;
            }
            return vec![WorkerEvent::Usage(self.usage)];
        }
        if trimmed.starts_with("litellm.") && trimmed.contains("Error") {
            self.failed = true;
            return vec![WorkerEvent::Error {
                message: trimmed.to_owned(),
            }];
        }
        if trimmed == "The LLM did not conform to the edit format." {
            return vec![WorkerEvent::Error {
                message: trimmed.to_owned(),
            }];
        }
        raw(line)
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        let summary = match self.edits {
            0 => Some("no edits applied".to_owned()),
            1 => Some("1 edit applied".to_owned()),
            n => Some(format!("{n} edits applied")),
        };
        let summary = if exit_code == Some(0) { summary } else { None };
        finish_events(None, self.failed, exit_code, summary)
    }
}
