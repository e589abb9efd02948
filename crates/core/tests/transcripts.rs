//! Transcripts recorded from the fake agent CLIs in `tests/fixtures/workers` (see
//! `fixtures/transcripts/record.sh`), parsed by each adapter's parser into normalized events;
//! and the fakes run live with the adapters' exact invocations, so the fakes and the adapters
//! cannot drift apart.
// The live test spawns the fake CLIs directly: a test outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use switchyard_core::worker::{
    invocation, parser, ToolAction, ToolStatus, Usage, WorkerCli, WorkerEvent, WorkerSpec,
    WorkerTask,
};

/// Where record.sh ran the fakes; stripped from paths so expectations stay short.
const WORKTREE: &str = "/tmp/switchyard-transcript/worktree/";

fn transcripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts")
}

fn workers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/workers")
}

fn file_name(cli: WorkerCli, fail: bool) -> String {
    let ext = if cli == WorkerCli::Aider {
        "txt"
    } else {
        "jsonl"
    };
    let suffix = if fail { "-fail" } else { "" };
    format!("{}{suffix}.{ext}", cli.program())
}

/// The recorded stdout and exit code.
fn recorded(cli: WorkerCli, fail: bool) -> (String, i32) {
    let name = file_name(cli, fail);
    let text = std::fs::read_to_string(transcripts().join(&name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let exit = name
        .rsplit_once('.')
        .map(|(stem, _)| format!("{stem}.exit"));
    let exit = exit
        .and_then(|exit| std::fs::read_to_string(transcripts().join(exit)).ok())
        .and_then(|code| code.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name}: no exit code recorded"));
    (text, exit)
}

/// Random ids and session ids dropped, recorded worktree paths made relative.
fn normalized(event: WorkerEvent) -> WorkerEvent {
    let rel = |path: String| {
        path.strip_prefix(WORKTREE)
            .map_or(path.clone(), str::to_owned)
    };
    match event {
        WorkerEvent::Started { model, .. } => WorkerEvent::Started {
            session_id: None,
            model,
        },
        WorkerEvent::ToolUse {
            tool,
            action,
            status,
            ..
        } => WorkerEvent::ToolUse {
            id: None,
            tool,
            action: match action {
                ToolAction::FileRead { path } => ToolAction::FileRead { path: rel(path) },
                ToolAction::FileEdit { path } => ToolAction::FileEdit { path: rel(path) },
                other => other,
            },
            status,
        },
        other => other,
    }
}

/// Every event of a transcript plus what `finish` adds, with the raw lines kept apart.
fn replay(cli: WorkerCli, text: &str, exit: i32) -> (Vec<WorkerEvent>, Vec<String>) {
    let mut parser = parser(&WorkerSpec::Cli { cli, model: None }).expect("a CLI has a parser");
    let mut events: Vec<WorkerEvent> = text.lines().flat_map(|l| parser.parse_line(l)).collect();
    events.extend(parser.finish(Some(exit)));
    let mut raw = Vec::new();
    let events = events
        .into_iter()
        .filter_map(|event| match event {
            WorkerEvent::Raw { line } => {
                raw.push(line);
                None
            }
            event => Some(normalized(event)),
        })
        .collect();
    (events, raw)
}

fn started(model: Option<&str>) -> WorkerEvent {
    WorkerEvent::Started {
        session_id: None,
        model: model.map(str::to_owned),
    }
}

fn tool(name: &str, action: ToolAction, status: ToolStatus) -> WorkerEvent {
    WorkerEvent::ToolUse {
        id: None,
        tool: name.to_owned(),
        action,
        status,
    }
}

fn read(path: &str) -> ToolAction {
    ToolAction::FileRead { path: path.into() }
}

fn edit(path: &str) -> ToolAction {
    ToolAction::FileEdit { path: path.into() }
}

fn cmd(command: &str, exit_code: Option<i32>) -> ToolAction {
    ToolAction::Command {
        command: command.into(),
        exit_code,
    }
}

fn text(text: &str, delta: bool) -> WorkerEvent {
    WorkerEvent::AssistantText {
        text: text.into(),
        delta,
    }
}

fn thinking(text: &str) -> WorkerEvent {
    WorkerEvent::Thinking { text: text.into() }
}

fn usage(input: u32, output: u32, cached: u32, cost_usd: Option<f64>) -> WorkerEvent {
    WorkerEvent::Usage(Usage {
        input,
        output,
        cached,
        cost_usd,
        estimated: false,
    })
}

fn error(message: &str) -> WorkerEvent {
    WorkerEvent::Error {
        message: message.into(),
    }
}

fn done(ok: bool, summary: &str) -> WorkerEvent {
    WorkerEvent::Final {
        ok,
        summary: Some(summary.into()),
    }
}

const CLAIM: &str = "I ran the test suite: all 12 tests pass.";
const SUMMARY: &str = "Updated greet() and added tests/greet.rs.";

use ToolStatus::{Completed, Failed, Started};

/// The JSON-lines transcripts are all JSON: nothing may fall through to `Raw`.
fn assert_no_raw(cli: WorkerCli, raw: &[String]) {
    assert!(raw.is_empty(), "{}: unparsed lines {raw:?}", cli.program());
}

#[test]
fn claude_code_transcript() {
    let (out, exit) = recorded(WorkerCli::Claude, false);
    assert_eq!(exit, 0);
    let (events, raw) = replay(WorkerCli::Claude, &out, exit);
    assert_no_raw(WorkerCli::Claude, &raw);
    let lib = "src/lib.rs";
    assert_eq!(
        events,
        vec![
            started(Some("claude-sonnet-4-5")),
            thinking("The greeting lives in src/lib.rs."),
            tool("Read", read(lib), Started),
            tool("Read", read(lib), Completed),
            tool("Edit", edit(lib), Started),
            tool("Edit", edit(lib), Completed),
            tool("Write", edit("tests/greet.rs"), Started),
            tool("Write", edit("tests/greet.rs"), Completed),
            // Bash is not among the allowed tools: Claude Code denies both commands.
            tool(
                "Bash",
                cmd("test -f Cargo.toml && echo found", None),
                Started
            ),
            tool(
                "Bash",
                cmd("test -f Cargo.toml && echo found", None),
                Failed
            ),
            tool("Bash", cmd("exit 3", None), Started),
            tool("Bash", cmd("exit 3", None), Failed),
            // …yet the worker claims a test run, which is shown but never trusted.
            tool("Bash", cmd("cargo test", None), Started),
            tool("Bash", cmd("cargo test", None), Completed),
            text(CLAIM, false),
            text(SUMMARY, false),
            usage(2400, 310, 1000, Some(0.0123)),
            done(true, SUMMARY),
        ]
    );
}

#[test]
fn claude_code_error_result() {
    let (out, exit) = recorded(WorkerCli::Claude, true);
    assert_eq!(exit, 1);
    let (events, raw) = replay(WorkerCli::Claude, &out, exit);
    assert_no_raw(WorkerCli::Claude, &raw);
    let message = "API Error: rate limit exceeded";
    let last = events[events.len() - 3..].to_vec();
    assert_eq!(
        last,
        vec![
            usage(900, 40, 0, Some(0.0033)),
            error(message),
            done(false, message)
        ]
    );
    assert!(events.contains(&tool("Write", edit("NOTES.md"), Completed)));
}

#[test]
fn codex_exec_json_transcript() {
    let (out, exit) = recorded(WorkerCli::Codex, false);
    assert_eq!(exit, 0);
    let (events, raw) = replay(WorkerCli::Codex, &out, exit);
    assert_no_raw(WorkerCli::Codex, &raw);
    let sh = |c: &str, code| cmd(&format!("bash -lc '{c}'"), code);
    assert_eq!(
        events,
        vec![
            started(None),
            thinking("**The greeting lives in src/lib.rs.**"),
            tool("shell", sh("cat src/lib.rs", None), Started),
            tool("shell", sh("cat src/lib.rs", Some(0)), Completed),
            tool("apply_patch", edit("src/lib.rs"), Completed),
            tool("apply_patch", edit("tests/greet.rs"), Completed),
            tool(
                "shell",
                sh("test -f Cargo.toml && echo found", None),
                Started
            ),
            tool(
                "shell",
                sh("test -f Cargo.toml && echo found", Some(0)),
                Completed
            ),
            tool("shell", sh("exit 3", None), Started),
            tool("shell", sh("exit 3", Some(3)), Failed),
            tool("shell", sh("cargo test", None), Started),
            tool("shell", sh("cargo test", Some(0)), Completed),
            text(CLAIM, false),
            text(SUMMARY, false),
            // Codex reports tokens only; the engine estimates the cost.
            usage(2400, 310, 1000, None),
            done(true, SUMMARY),
        ]
    );
}

#[test]
fn codex_turn_failed() {
    let (out, exit) = recorded(WorkerCli::Codex, true);
    assert_eq!(exit, 1);
    let (events, raw) = replay(WorkerCli::Codex, &out, exit);
    assert_no_raw(WorkerCli::Codex, &raw);
    assert_eq!(
        events,
        vec![
            started(None),
            tool("apply_patch", edit("NOTES.md"), Completed),
            error("rate limit exceeded"),
            error("rate limit exceeded"),
            done(false, "rate limit exceeded"),
        ]
    );
}

#[test]
fn gemini_stream_json_transcript() {
    let (out, exit) = recorded(WorkerCli::Gemini, false);
    assert_eq!(exit, 0);
    let (events, raw) = replay(WorkerCli::Gemini, &out, exit);
    assert_no_raw(WorkerCli::Gemini, &raw);
    let lib = "src/lib.rs";
    let shell = "run_shell_command";
    assert_eq!(
        events,
        vec![
            started(Some("gemini-2.5-flash")),
            tool("read_file", read(lib), Started),
            tool("read_file", read(lib), Completed),
            tool("replace", edit(lib), Started),
            tool("replace", edit(lib), Completed),
            tool("write_file", edit("tests/greet.rs"), Started),
            tool("write_file", edit("tests/greet.rs"), Completed),
            // auto_edit approves edits, not shell commands.
            tool(
                shell,
                cmd("test -f Cargo.toml && echo found", None),
                Started
            ),
            tool(shell, cmd("test -f Cargo.toml && echo found", None), Failed),
            tool(shell, cmd("exit 3", None), Started),
            tool(shell, cmd("exit 3", None), Failed),
            tool(shell, cmd("cargo test", None), Started),
            tool(shell, cmd("cargo test", None), Completed),
            text(CLAIM, true),
            text(&format!("\n\n{SUMMARY}"), true),
            usage(2400, 310, 1000, None),
            done(true, &format!("{CLAIM}\n\n{SUMMARY}")),
        ]
    );
}

#[test]
fn gemini_error_result() {
    let (out, exit) = recorded(WorkerCli::Gemini, true);
    assert_eq!(exit, 1);
    let (events, raw) = replay(WorkerCli::Gemini, &out, exit);
    assert_no_raw(WorkerCli::Gemini, &raw);
    assert_eq!(
        events,
        vec![
            started(Some("gemini-2.5-flash")),
            tool("write_file", edit("NOTES.md"), Started),
            tool("write_file", edit("NOTES.md"), Completed),
            usage(900, 40, 0, None),
            error("rate limit exceeded"),
            done(false, "rate limit exceeded"),
        ]
    );
}

#[test]
fn opencode_json_transcript() {
    let (out, exit) = recorded(WorkerCli::OpenCode, false);
    assert_eq!(exit, 0);
    let (events, raw) = replay(WorkerCli::OpenCode, &out, exit);
    assert_no_raw(WorkerCli::OpenCode, &raw);
    assert_eq!(
        events,
        vec![
            started(None),
            thinking("The greeting lives in src/lib.rs."),
            tool("read", read("src/lib.rs"), Completed),
            tool("edit", edit("src/lib.rs"), Completed),
            tool("write", edit("tests/greet.rs"), Completed),
            tool(
                "bash",
                cmd("test -f Cargo.toml && echo found", Some(0)),
                Completed
            ),
            tool("bash", cmd("exit 3", Some(3)), Failed),
            tool("bash", cmd("cargo test", Some(0)), Completed),
            text(CLAIM, false),
            text(SUMMARY, false),
            usage(2400, 310, 1000, Some(0.0123)),
            done(true, SUMMARY),
        ]
    );
}

#[test]
fn opencode_error_event() {
    let (out, exit) = recorded(WorkerCli::OpenCode, true);
    assert_eq!(exit, 1);
    let (events, raw) = replay(WorkerCli::OpenCode, &out, exit);
    assert_no_raw(WorkerCli::OpenCode, &raw);
    assert_eq!(
        events,
        vec![
            started(None),
            tool("write", edit("NOTES.md"), Completed),
            error("rate limit exceeded"),
            // The failed run has no closing step_finish: the exit code ends it.
            done(false, "exited with code 1"),
        ]
    );
}

#[test]
fn aider_plain_text_transcript() {
    let (out, exit) = recorded(WorkerCli::Aider, false);
    assert_eq!(exit, 0);
    let (events, raw) = replay(WorkerCli::Aider, &out, exit);
    assert_eq!(
        events,
        vec![
            usage(2400, 310, 1000, Some(0.0123)),
            tool("edit", edit("src/lib.rs"), Completed),
            tool("edit", edit("tests/greet.rs"), Completed),
            done(true, "2 edits applied"),
        ]
    );
    // Everything else, the claimed test run included, stays raw text for the transcript.
    assert!(raw.iter().any(|l| l == "Aider v0.86.1"), "{raw:?}");
    assert!(raw.iter().any(|l| l == CLAIM), "{raw:?}");
}

#[test]
fn aider_provider_error() {
    let (out, exit) = recorded(WorkerCli::Aider, true);
    assert_eq!(exit, 1);
    let (events, _) = replay(WorkerCli::Aider, &out, exit);
    assert_eq!(
        events,
        vec![
            error("litellm.APIError: AnthropicException - rate limit exceeded"),
            done(false, "exited with code 1"),
        ]
    );
}

/// A throwaway git repository with one file, in a fresh temp dir (removed on drop).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "switchyard-fake-{name}-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(dir.join("repo/src")).expect("mkdir");
        std::fs::create_dir_all(dir.join("scratch")).expect("mkdir");
        std::fs::write(dir.join("repo/src/lib.rs"), "pub fn one() -> u32 { 1 }\n").expect("write");
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(dir.join("repo"))
                .output()
                .expect("git");
            assert!(out.status.success(), "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "base",
        ]);
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_fakes_accept_each_adapters_exact_invocation_and_edit_for_real() {
    let prompt = "Change one() to return 2.\n\
        @replace src/lib.rs <<EOF\n{ 1 }\n=======\n{ 2 }\nEOF\n\
        @write docs/one.md <<EOF\none returns two\nEOF\n\
        @say Done.\n";
    let path = format!(
        "{}:{}",
        workers_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for cli in WorkerCli::ALL {
        let scratch = Scratch::new(cli.program());
        let task = WorkerTask {
            prompt: prompt.to_owned(),
            model: Some("test/model".to_owned()),
            max_turns: Some(8),
            worktree: scratch.0.join("repo"),
            scratch_dir: scratch.0.join("scratch"),
            config_dir: None,
            base_url: None,
            confined: false,
            model_facts: None,
        };
        let spec = WorkerSpec::Cli { cli, model: None };
        let inv = invocation(&spec, &task).expect("invocation");
        for (file, contents) in &inv.files {
            std::fs::write(file, contents).expect("message file");
        }
        let mut child = Command::new(&inv.program)
            .args(&inv.args)
            .current_dir(&inv.cwd)
            .env("PATH", &path)
            .envs(inv.env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", inv.program));
        let mut stdin = child.stdin.take().expect("stdin");
        if let Some(input) = &inv.stdin {
            stdin.write_all(input.as_bytes()).expect("stdin");
        }
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", cli.program());
        let lib = std::fs::read_to_string(task.worktree.join("src/lib.rs")).expect("lib");
        assert_eq!(lib, "pub fn one() -> u32 { 2 }\n", "{}", cli.program());
        let doc = std::fs::read_to_string(task.worktree.join("docs/one.md")).expect("doc");
        assert_eq!(doc, "one returns two\n");

        let mut parser = parser(&spec).expect("parser");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut events: Vec<WorkerEvent> =
            stdout.lines().flat_map(|l| parser.parse_line(l)).collect();
        events.extend(parser.finish(Some(0)));
        let edits: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::ToolUse {
                    action: ToolAction::FileEdit { path },
                    status: ToolStatus::Completed,
                    ..
                } => Some(path.rsplit("repo/").next().unwrap_or(path).to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(edits, ["src/lib.rs", "docs/one.md"], "{}", cli.program());
        assert!(
            matches!(events.last(), Some(WorkerEvent::Final { ok: true, .. })),
            "{}: {events:?}",
            cli.program()
        );
        if cli != WorkerCli::Aider {
            assert!(
                !events.iter().any(|e| matches!(e, WorkerEvent::Raw { .. })),
                "{}: {events:?}",
                cli.program()
            );
        }
    }
}

#[test]
fn the_fakes_refuse_unknown_flags_and_print_a_version() {
    let versions = [
        (WorkerCli::Claude, "2.0.37 (Claude Code)"),
        (WorkerCli::Codex, "codex-cli 0.58.0"),
        (WorkerCli::Gemini, "0.15.4"),
        (WorkerCli::OpenCode, "1.0.68"),
        (WorkerCli::Aider, "aider 0.86.1"),
    ];
    for (cli, version) in versions {
        let program = workers_dir().join(cli.program());
        let out = Command::new(&program)
            .args(cli.version_args())
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", cli.program());
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), version);

        let bogus: &[&str] = match cli {
            WorkerCli::Codex => &["exec", "--no-such-flag", "-"],
            WorkerCli::OpenCode => &["run", "--no-such-flag", "hi"],
            _ => &["--no-such-flag"],
        };
        let out = Command::new(&program)
            .args(bogus)
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert!(
            !out.status.success(),
            "{} accepted a bogus flag",
            cli.program()
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no-such-flag"),
            "{}: {stderr}",
            cli.program()
        );
        assert!(out.stdout.is_empty(), "{}", cli.program());
    }
}

/// The version the test command pins for `cli` (`scripts/lib.sh`): the recorded transcript of
/// the real CLI must be of it, so a new pin fails here until
/// `scripts/record-cli-transcripts.sh` records it.
fn pinned_version(cli: WorkerCli) -> String {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/lib.sh");
    let text = std::fs::read_to_string(&lib).expect("scripts/lib.sh");
    let package = match cli {
        WorkerCli::Claude => "@anthropic-ai/claude-code@",
        WorkerCli::Codex => "@openai/codex@",
        WorkerCli::Gemini => "@google/gemini-cli@",
        WorkerCli::OpenCode => "opencode-ai@",
        WorkerCli::Aider => "aider-chat==",
    };
    let at = text.find(package).expect("the CLI's pin") + package.len();
    text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect()
}

/// The transcript recorded from the real CLI at its pinned version fixing the engine tests'
/// fixture bug (`calc.sh`), replayed: its events, unparsed lines and last usage.
fn replay_real(cli: WorkerCli) -> (Vec<WorkerEvent>, Vec<String>, Usage) {
    let ext = if cli == WorkerCli::Aider {
        "txt"
    } else {
        "jsonl"
    };
    let stem = format!("{}-{}", cli.program(), pinned_version(cli));
    let dir = transcripts().join("real");
    let text = std::fs::read_to_string(dir.join(format!("{stem}.{ext}"))).unwrap_or_else(|e| {
        panic!("{stem}.{ext}: {e}: run scripts/record-cli-transcripts.sh after a new pin")
    });
    let exit: i32 = std::fs::read_to_string(dir.join(format!("{stem}.exit")))
        .expect("exit code")
        .trim()
        .parse()
        .expect("a number");
    let (events, raw) = replay(cli, &text, exit);
    let usage = events
        .iter()
        .rev()
        .find_map(|e| match e {
            WorkerEvent::Usage(usage) => Some(*usage),
            _ => None,
        })
        .expect("a usage");
    (events, raw, usage)
}

/// What every real transcript comes to: the edit of `calc.sh` completed, a successful end.
fn assert_fixed(cli: WorkerCli, events: &[WorkerEvent]) {
    assert!(
        events.iter().any(|e| matches!(e,
            WorkerEvent::ToolUse { action: ToolAction::FileEdit { path }, status: Completed, .. }
                if path == "calc.sh")),
        "{}: no completed edit of calc.sh in {events:?}",
        cli.program()
    );
    assert!(
        matches!(events.last(), Some(WorkerEvent::Final { ok: true, .. })),
        "{}: {:?}",
        cli.program(),
        events.last()
    );
}

#[test]
fn the_real_claude_code_transcript() {
    let (events, raw, usage) = replay_real(WorkerCli::Claude);
    assert_no_raw(WorkerCli::Claude, &raw);
    assert_fixed(WorkerCli::Claude, &events);
    assert_eq!(events[0], started(Some("claude-haiku-4-5")));
    assert!(events.contains(&tool("Read", read("calc.sh"), Started)));
    assert_eq!((usage.input, usage.output), (3600, 180));
    assert!(usage.cost_usd.is_some_and(|c| c > 0.0), "{usage:?}");
}

#[test]
fn the_real_codex_transcript() {
    let (events, raw, usage) = replay_real(WorkerCli::Codex);
    assert_no_raw(WorkerCli::Codex, &raw);
    assert_fixed(WorkerCli::Codex, &events);
    // Its events never name the model, nor a cost: the engine prices the tokens.
    assert_eq!(
        (usage.input, usage.output, usage.cost_usd),
        (2400, 120, None)
    );
    // Its "model metadata not found" notice is an error item, reported, yet not the end.
    assert!(events
        .iter()
        .any(|e| matches!(e, WorkerEvent::Error { message } if message.contains("metadata"))));
}

#[test]
fn the_real_gemini_cli_transcript() {
    let (events, raw, usage) = replay_real(WorkerCli::Gemini);
    assert_no_raw(WorkerCli::Gemini, &raw);
    assert_fixed(WorkerCli::Gemini, &events);
    assert!(events.contains(&tool("replace", edit("calc.sh"), Started)));
    assert_eq!(
        (usage.input, usage.output, usage.cost_usd),
        (2400, 120, None)
    );
    // The model that did the work, from `result.stats.models`.
    let mut parser = parser(&WorkerSpec::Cli {
        cli: WorkerCli::Gemini,
        model: None,
    })
    .expect("parser");
    let text = std::fs::read_to_string(transcripts().join("real").join(format!(
        "gemini-{}.jsonl",
        pinned_version(WorkerCli::Gemini)
    )))
    .expect("transcript");
    for line in text.lines() {
        parser.parse_line(line);
    }
    assert_eq!(parser.model().as_deref(), Some("gemini-2.5-flash"));
}

#[test]
fn the_real_opencode_transcript() {
    let (events, raw, usage) = replay_real(WorkerCli::OpenCode);
    assert_no_raw(WorkerCli::OpenCode, &raw);
    assert_fixed(WorkerCli::OpenCode, &events);
    assert!(events.contains(&tool("read", read("calc.sh"), Completed)));
    assert_eq!((usage.input, usage.output), (3600, 180));
    assert!(usage.cost_usd.is_some_and(|c| c > 0.0), "{usage:?}");
}

#[test]
fn the_real_aider_transcript() {
    let (events, raw, usage) = replay_real(WorkerCli::Aider);
    assert_fixed(WorkerCli::Aider, &events);
    // Two model calls ("12k sent, 567 received" each) summed, and its session cost.
    assert_eq!(
        (usage.input, usage.output, usage.cost_usd),
        (24_000, 1_134, Some(0.0039))
    );
    assert!(raw.iter().any(|line| line.starts_with("Aider v0.86")));
}
