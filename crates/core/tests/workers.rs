//! Worker adapters over recorded transcripts in each CLI's real output format, and the exact
//! command lines they are invoked with.

use std::path::PathBuf;

use switchyard_core::worker::{
    invocation, parser, InvocationError, ModelFacts, ToolAction, ToolStatus, TranscriptParser,
    Usage, WorkerCli, WorkerEvent, WorkerSpec, WorkerTask, MAX_ARG_BYTES,
};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/workers/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cli(cli: WorkerCli) -> WorkerSpec {
    WorkerSpec::Cli { cli, model: None }
}

fn parser_for(spec: &WorkerSpec) -> Box<dyn TranscriptParser> {
    parser(spec).expect("a CLI worker has a parser")
}

/// Every event of a transcript, then what `finish(exit_code)` adds.
fn replay(
    spec: &WorkerSpec,
    name: &str,
    exit_code: Option<i32>,
) -> (Vec<WorkerEvent>, Vec<WorkerEvent>) {
    let mut parser = parser_for(spec);
    let events = fixture(name)
        .lines()
        .flat_map(|line| parser.parse_line(line))
        .collect();
    (events, parser.finish(exit_code))
}

fn tool(id: &str, name: &str, action: ToolAction, status: ToolStatus) -> WorkerEvent {
    WorkerEvent::ToolUse {
        id: Some(id.to_owned()),
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

fn command(command: &str, exit_code: Option<i32>) -> ToolAction {
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

fn error(message: &str) -> WorkerEvent {
    WorkerEvent::Error {
        message: message.into(),
    }
}

fn final_(ok: bool, summary: Option<&str>) -> WorkerEvent {
    WorkerEvent::Final {
        ok,
        summary: summary.map(str::to_owned),
    }
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

const LIB: &str = "/work/worktree/src/lib.rs";

#[test]
fn claude_stream_json_transcript() {
    let spec = cli(WorkerCli::Claude);
    let (events, end) = replay(&spec, "claude.jsonl", Some(0));
    let compact = fixture("claude.jsonl")
        .lines()
        .find(|l| l.contains("compact_boundary"))
        .expect("fixture line")
        .to_owned();
    let summary = "Fixed `add`: it subtracted instead of adding. I could not run the tests (no shell access).";
    assert_eq!(
        events,
        vec![
            WorkerEvent::Started {
                session_id: Some("9b7c6c1e-2f1a-4c38-9a53-0d8a3f1e7b21".into()),
                model: Some("claude-sonnet-4-5-20250929".into()),
            },
            WorkerEvent::Thinking {
                text: "The task says add() returns the wrong value. Read src/lib.rs first.".into()
            },
            text("I'll look at the failing function first.", false),
            tool("toolu_01ReadLib", "Read", read(LIB), ToolStatus::Started),
            tool("toolu_01ReadLib", "Read", read(LIB), ToolStatus::Completed),
            tool(
                "toolu_01GrepAdd",
                "Grep",
                ToolAction::Search {
                    query: Some("add\\(".into())
                },
                ToolStatus::Started
            ),
            tool(
                "toolu_01GrepAdd",
                "Grep",
                ToolAction::Search {
                    query: Some("add\\(".into())
                },
                ToolStatus::Completed
            ),
            tool("toolu_01EditLib", "Edit", edit(LIB), ToolStatus::Started),
            tool("toolu_01EditLib", "Edit", edit(LIB), ToolStatus::Completed),
            tool(
                "toolu_01BashTest",
                "Bash",
                command("cargo test", None),
                ToolStatus::Started
            ),
            tool(
                "toolu_01BashTest",
                "Bash",
                command("cargo test", None),
                ToolStatus::Failed
            ),
            WorkerEvent::Raw { line: compact },
            text(summary, false),
            usage(14 + 5235 + 48210, 612, 48210, Some(0.0483215)),
            final_(true, Some(summary)),
        ]
    );
    assert!(end.is_empty(), "{end:?}");
}

#[test]
fn claude_result_with_is_error_is_a_failure_even_when_subtype_is_success() {
    let spec = cli(WorkerCli::Claude);
    let (events, end) = replay(&spec, "claude-is-error.jsonl", Some(1));
    assert_eq!(
        events[1..],
        [
            usage(0, 0, 0, Some(0.0)),
            error("Invalid API key · Fix external API key"),
            final_(false, Some("Invalid API key · Fix external API key")),
        ]
    );
    assert!(
        end.is_empty(),
        "a failure already reported needs nothing more: {end:?}"
    );
}

#[test]
fn claude_max_turns_is_a_failure() {
    let (events, _) = replay(&cli(WorkerCli::Claude), "claude-max-turns.jsonl", Some(1));
    assert_eq!(
        events[2..],
        [
            usage(20009, 150, 20000, Some(0.0121)),
            error("Claude Code ended with error_max_turns"),
            final_(false, Some("error_max_turns")),
        ]
    );
}

#[test]
fn claude_success_with_a_failing_exit_code_is_flagged() {
    let (_, end) = replay(&cli(WorkerCli::Claude), "claude.jsonl", Some(1));
    assert_eq!(
        end,
        [error("the worker reported success but exited with code 1")]
    );
}

#[test]
fn codex_exec_json_transcript() {
    let (events, end) = replay(&cli(WorkerCli::Codex), "codex.jsonl", Some(0));
    let cat = "bash -lc 'cat src/lib.rs'";
    let test = "bash -lc 'cargo test'";
    let answer = "Fixed `add` (it subtracted) and added `tests/add.rs`. `cargo test` could not fetch dependencies in the sandbox.";
    assert_eq!(
        events,
        vec![
            WorkerEvent::Started {
                session_id: Some("0199a213-81c0-7800-8aa1-bbab2a035a53".into()),
                model: None
            },
            WorkerEvent::Thinking {
                text:
                    "**Locating the bug**\n\nI need to read `src/lib.rs` before changing anything."
                        .into()
            },
            tool("item_1", "shell", command(cat, None), ToolStatus::Started),
            tool(
                "item_1",
                "shell",
                command(cat, Some(0)),
                ToolStatus::Completed
            ),
            tool("item_3", "apply_patch", edit(LIB), ToolStatus::Completed),
            tool(
                "item_3",
                "apply_patch",
                edit("/work/worktree/tests/add.rs"),
                ToolStatus::Completed
            ),
            tool("item_4", "shell", command(test, None), ToolStatus::Started),
            tool(
                "item_4",
                "shell",
                command(test, Some(101)),
                ToolStatus::Failed
            ),
            error("Falling back from WebSockets to HTTPS transport."),
            tool(
                "item_6",
                "docs.search",
                ToolAction::Other,
                ToolStatus::Started
            ),
            tool(
                "item_6",
                "docs.search",
                ToolAction::Other,
                ToolStatus::Completed
            ),
            text(answer, false),
            usage(23552, 410, 6016, None),
        ]
    );
    assert_eq!(end, [final_(true, Some(answer))]);
}

#[test]
fn codex_older_item_type_field_is_read() {
    let (events, end) = replay(&cli(WorkerCli::Codex), "codex-legacy.jsonl", Some(0));
    let cat = "bash -lc 'cat note.txt'";
    assert_eq!(
        events[1..],
        [
            tool("item_0", "shell", command(cat, None), ToolStatus::Started),
            tool(
                "item_0",
                "shell",
                command(cat, Some(0)),
                ToolStatus::Completed
            ),
            tool(
                "item_1",
                "apply_patch",
                edit("note.txt"),
                ToolStatus::Completed
            ),
            text("Updated note.txt with PONG.", false),
            usage(1200, 345, 200, None),
        ]
    );
    assert_eq!(end, [final_(true, Some("Updated note.txt with PONG."))]);
}

#[test]
fn codex_turn_failed_ends_the_attempt() {
    let (events, end) = replay(&cli(WorkerCli::Codex), "codex-failed.jsonl", Some(1));
    let denied =
        "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header";
    assert_eq!(
        events[1..],
        [
            error("Reconnecting... 1/5 (stream disconnected before completion)"),
            error(denied),
            final_(false, Some(denied)),
        ]
    );
    assert!(end.is_empty());
}

#[test]
fn codex_exiting_zero_without_a_completed_turn_is_not_a_success() {
    let mut parser = parser_for(&cli(WorkerCli::Codex));
    parser.parse_line(r#"{"type":"thread.started","thread_id":"t"}"#);
    parser.parse_line(r#"{"type":"turn.started"}"#);
    assert_eq!(parser.finish(Some(0)), [final_(false, None)]);
}

#[test]
fn gemini_stream_json_transcript() {
    let (events, end) = replay(&cli(WorkerCli::Gemini), "gemini.jsonl", Some(0));
    let read_id = "read_file-1768858006112-3a1f9c2d7e4b8";
    let replace_id = "replace-1768858008072-7d88fcce98a3b";
    let shell_id = "run_shell_command-1768858009010-c0ffee1234567";
    assert_eq!(
        events,
        vec![
            WorkerEvent::Started {
                session_id: Some("b35ecd66-4ed8-43cd-b73b-9dd2eb9b2f4e".into()),
                model: Some("gemini-2.5-flash".into()),
            },
            tool(read_id, "read_file", read(LIB), ToolStatus::Started),
            tool(read_id, "read_file", read(LIB), ToolStatus::Completed),
            text("The function subtracts", true),
            text(" instead of adding; fixing it.", true),
            tool(replace_id, "replace", edit(LIB), ToolStatus::Started),
            tool(replace_id, "replace", edit(LIB), ToolStatus::Completed),
            tool(
                shell_id,
                "run_shell_command",
                command("cargo test", None),
                ToolStatus::Started
            ),
            tool(
                shell_id,
                "run_shell_command",
                command("cargo test", None),
                ToolStatus::Failed
            ),
            error("Loop detection is disabled for this session."),
            text("Done: add() now adds.", true),
            usage(11020, 418, 6144, None),
            final_(true, Some("Done: add() now adds.")),
        ]
    );
    assert!(end.is_empty());
}

#[test]
fn gemini_error_result_is_a_failure() {
    let (events, end) = replay(&cli(WorkerCli::Gemini), "gemini-error.jsonl", Some(1));
    let exhausted = "You have exhausted your capacity on this model.";
    assert_eq!(
        events[1..],
        [
            error("[API Error: You have exhausted your capacity on this model.]"),
            usage(0, 0, 0, None),
            error(exhausted),
            final_(false, Some(exhausted)),
        ]
    );
    assert!(end.is_empty());
}

#[test]
fn gemini_turn_limit_exit_code_is_explained() {
    let mut parser = parser_for(&cli(WorkerCli::Gemini));
    parser.parse_line(
        r#"{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"s","model":"m"}"#,
    );
    assert_eq!(
        parser.finish(Some(53)),
        [
            error("Gemini CLI reached its turn limit (exit code 53)"),
            final_(false, Some("exited with code 53")),
        ]
    );
}

#[test]
fn opencode_json_transcript_without_a_final_step_finish() {
    let (events, end) = replay(&cli(WorkerCli::OpenCode), "opencode.jsonl", Some(0));
    assert_eq!(
        events,
        vec![
            WorkerEvent::Started {
                session_id: Some("ses_3f1a9c0d2ffe7YbQ1x".into()),
                model: None
            },
            WorkerEvent::Thinking {
                text: "Read the function before editing.".into()
            },
            tool("call_01", "read", read(LIB), ToolStatus::Completed),
            usage(10234 + 2048, 88 + 12, 2048, Some(0.0041)),
            tool("call_02", "edit", edit(LIB), ToolStatus::Completed),
            tool(
                "call_03",
                "bash",
                command("cargo test", Some(101)),
                ToolStatus::Failed
            ),
            tool("call_04", "write", edit("/etc/hosts"), ToolStatus::Failed),
            text("Fixed add(); one test still fails.", false),
        ]
    );
    assert_eq!(
        end,
        [final_(true, Some("Fixed add(); one test still fails."))]
    );
}

#[test]
fn opencode_error_event_fails_the_attempt_even_with_exit_zero() {
    let (events, end) = replay(&cli(WorkerCli::OpenCode), "opencode-error.jsonl", Some(0));
    assert_eq!(
        events[1..],
        [error("Model not found: openai/llama-3.3-70b-versatile.")]
    );
    assert_eq!(end, [final_(false, None)]);
}

#[test]
fn aider_plain_text_transcript() {
    let (events, end) = replay(&cli(WorkerCli::Aider), "aider.txt", Some(0));
    let meaningful: Vec<_> = events
        .iter()
        .filter(|e| !matches!(e, WorkerEvent::Raw { .. }))
        .cloned()
        .collect();
    let applied = |path: &str| WorkerEvent::ToolUse {
        id: None,
        tool: "edit".into(),
        action: edit(path),
        status: ToolStatus::Completed,
    };
    assert_eq!(
        meaningful,
        [
            usage(2500, 250, 3400, Some(0.0012)),
            applied("src/lib.rs"),
            usage(2500 + 12_000, 250 + 180, 3400, Some(0.0043)),
            applied("tests/add.rs"),
        ]
    );
    let non_empty = fixture("aider.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(events.len(), non_empty, "every other line is kept raw");
    assert_eq!(end, [final_(true, Some("2 edits applied"))]);
}

#[test]
fn aider_provider_error_fails_the_attempt() {
    let (events, end) = replay(&cli(WorkerCli::Aider), "aider-error.txt", Some(1));
    assert!(events.iter().any(|e| matches!(e,
        WorkerEvent::Error { message } if message.starts_with("litellm.AuthenticationError"))));
    assert_eq!(end, [final_(false, Some("exited with code 1"))]);
}

#[test]
fn unknown_and_malformed_lines_are_kept_raw_by_every_adapter() {
    let specs = [
        cli(WorkerCli::Claude),
        cli(WorkerCli::Codex),
        cli(WorkerCli::Gemini),
        cli(WorkerCli::OpenCode),
        cli(WorkerCli::Aider),
        WorkerSpec::Exec {
            command: "make".into(),
        },
    ];
    for spec in &specs {
        let mut parser = parser_for(spec);
        for line in [
            "warning: something printed to stdout",
            r#"{"type":"brand_new_event","x":1}"#,
            r#"{"type":"assistant""#,
            "[1,2,3]",
        ] {
            assert_eq!(
                parser.parse_line(line),
                [WorkerEvent::Raw { line: line.into() }],
                "{spec} on {line}"
            );
        }
        assert!(parser.parse_line("").is_empty(), "{spec}");
    }
}

#[test]
fn exec_worker_output_is_raw_and_its_exit_code_decides() {
    let spec = WorkerSpec::Exec {
        command: "./fix.sh".into(),
    };
    let mut parser = parser_for(&spec);
    assert_eq!(
        parser.parse_line("patched 2 files"),
        [WorkerEvent::Raw {
            line: "patched 2 files".into()
        }]
    );
    assert_eq!(parser.finish(Some(0)), [final_(true, None)]);
    let mut parser = parser_for(&spec);
    assert_eq!(
        parser.finish(None),
        [final_(false, Some("was killed by a signal"))]
    );
}

fn task(model: Option<&str>) -> WorkerTask {
    WorkerTask {
        prompt: "Fix add() in src/lib.rs.".into(),
        model: model.map(str::to_owned),
        max_turns: Some(12),
        worktree: PathBuf::from("/data/worktrees/a1"),
        scratch_dir: PathBuf::from("/data/scratch/a1"),
        config_dir: None,
        base_url: None,
        confined: false,
        model_facts: None,
    }
}

fn argv(spec: &WorkerSpec, task: &WorkerTask) -> Vec<String> {
    let inv = invocation(spec, task).expect("invocation");
    assert_eq!(inv.cwd, task.worktree, "every worker runs in its worktree");
    std::iter::once(inv.program).chain(inv.args).collect()
}

#[test]
fn claude_command_line() {
    let task = task(Some("claude-sonnet-4-5"));
    let inv = invocation(&cli(WorkerCli::Claude), &task).expect("invocation");
    // Edits are pre-approved under the worktree only (Claude Code's `//` is an absolute path).
    let allowed = "Read,Glob,Grep,LS,Edit(//data/worktrees/a1/**)".to_owned();
    assert_eq!(
        argv(&cli(WorkerCli::Claude), &task),
        [
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            allowed.as_str(),
            "--disallowedTools",
            "Bash,WebFetch,WebSearch,Agent,Task",
            "--model",
            "claude-sonnet-4-5",
            "--max-turns",
            "12"
        ]
    );
    assert_eq!(inv.stdin.as_deref(), Some("Fix add() in src/lib.rs."));
    assert_eq!(inv.key_env, ["ANTHROPIC_API_KEY"]);
    let bare = argv(
        &cli(WorkerCli::Claude),
        &WorkerTask {
            max_turns: None,
            ..self::task(None)
        },
    );
    assert!(
        !bare.iter().any(|a| a == "--model" || a == "--max-turns"),
        "{bare:?}"
    );
}

#[test]
fn codex_command_line() {
    let spec = cli(WorkerCli::Codex);
    let inv = invocation(&spec, &task(Some("gpt-5-codex"))).expect("invocation");
    assert_eq!(
        argv(&spec, &task(Some("gpt-5-codex"))),
        [
            "codex",
            "exec",
            "--json",
            "--sandbox",
            "workspace-write",
            "--skip-git-repo-check",
            "-C",
            "/data/worktrees/a1",
            "-m",
            "gpt-5-codex",
            "-"
        ]
    );
    assert_eq!(inv.stdin.as_deref(), Some("Fix add() in src/lib.rs."));
    assert!(!inv.args.iter().any(|a| a == "--full-auto"));
    // Inside Switchyard's sandbox, Codex's own (which cannot set itself up there) is off.
    let confined = WorkerTask {
        confined: true,
        ..task(None)
    };
    let args = argv(&spec, &confined);
    assert_eq!(args[3..5], ["--sandbox", "danger-full-access"]);
}

#[test]
fn gemini_command_line() {
    let spec = cli(WorkerCli::Gemini);
    let inv = invocation(&spec, &task(Some("gemini-2.5-flash"))).expect("invocation");
    assert_eq!(
        argv(&spec, &task(Some("gemini-2.5-flash"))),
        [
            "gemini",
            "-p",
            "Fix add() in src/lib.rs.",
            "-o",
            "stream-json",
            "--approval-mode",
            "auto_edit",
            "--skip-trust",
            "-m",
            "gemini-2.5-flash"
        ]
    );
    assert_eq!(inv.stdin, None);
    assert_eq!(inv.key_env, ["GEMINI_API_KEY"]);
    // With a key from Switchyard: the attempt's own settings, the API key as auth method.
    let own = WorkerTask {
        config_dir: Some(PathBuf::from("/data/scratch/a1/tmp/gemini-config")),
        ..task(None)
    };
    let inv = invocation(&spec, &own).expect("invocation");
    assert!(inv.env.contains(&(
        "GEMINI_CLI_HOME".to_owned(),
        "/data/scratch/a1/tmp/gemini-config".to_owned()
    )));
    let (path, settings) = &inv.files[0];
    assert_eq!(
        path,
        &PathBuf::from("/data/scratch/a1/tmp/gemini-config/.gemini/settings.json")
    );
    let settings: serde_json::Value = serde_json::from_str(settings).expect("JSON");
    assert_eq!(
        settings["security"]["auth"]["selectedType"],
        "gemini-api-key"
    );
    assert_eq!(settings["telemetry"]["enabled"], false);
    let long = WorkerTask {
        prompt: "x".repeat(MAX_ARG_BYTES + 1),
        ..task(None)
    };
    assert!(matches!(
        invocation(&spec, &long),
        Err(InvocationError::PromptTooLong { cli: "gemini", .. })
    ));
    let dash = WorkerTask {
        prompt: "--help me".into(),
        ..task(None)
    };
    assert_eq!(
        argv(&spec, &dash)[2],
        " --help me",
        "a leading dash is not read as a flag"
    );
}

#[test]
fn opencode_command_line() {
    let spec = cli(WorkerCli::OpenCode);
    let with_model = task(Some("openrouter/qwen/qwen3-coder"));
    assert_eq!(
        argv(&spec, &with_model),
        [
            "opencode",
            "run",
            "--format",
            "json",
            "--print-logs",
            "--log-level",
            "ERROR",
            "-m",
            "openrouter/qwen/qwen3-coder",
            "Fix add() in src/lib.rs."
        ]
    );
    let inv = invocation(&spec, &with_model).expect("invocation");
    assert_eq!(inv.key_env, ["OPENROUTER_API_KEY"]);
    // No shell and no web fetch, through OpenCode's highest-precedence config source.
    let config = inv
        .env
        .iter()
        .find(|(name, _)| name == "OPENCODE_CONFIG_CONTENT")
        .map(|(_, value)| serde_json::from_str::<serde_json::Value>(value).expect("JSON"))
        .expect("OPENCODE_CONFIG_CONTENT");
    assert_eq!(config["permission"]["bash"], "deny");
    assert_eq!(config["permission"]["webfetch"], "deny");
    // Its global config folder is the user's: with Switchyard's key, one of the attempt's own.
    assert!(!inv.env.iter().any(|(name, _)| name == "XDG_CONFIG_HOME"));
    let own = WorkerTask {
        config_dir: Some(PathBuf::from("/data/scratch/a1/tmp/opencode-config")),
        ..with_model.clone()
    };
    assert!(invocation(&spec, &own).expect("invocation").env.contains(&(
        "XDG_CONFIG_HOME".to_owned(),
        "/data/scratch/a1/tmp/opencode-config".to_owned()
    )));
    assert_eq!(
        argv(&spec, &task(None)),
        [
            "opencode",
            "run",
            "--format",
            "json",
            "--print-logs",
            "--log-level",
            "ERROR",
            "Fix add() in src/lib.rs."
        ]
    );
    // A routed provider moved in Switchyard: OpenCode is pointed there.
    let moved = WorkerTask {
        base_url: Some("http://127.0.0.1:9/v1".to_owned()),
        ..task(Some("deepseek/deepseek-flash"))
    };
    let inv = invocation(&spec, &moved).expect("invocation");
    let config = inv
        .env
        .iter()
        .find(|(name, _)| name == "OPENCODE_CONFIG_CONTENT")
        .map(|(_, value)| serde_json::from_str::<serde_json::Value>(value).expect("JSON"))
        .expect("OPENCODE_CONFIG_CONTENT");
    assert_eq!(
        config["provider"]["deepseek"]["options"]["baseURL"],
        "http://127.0.0.1:9/v1"
    );
    assert_eq!(config["permission"]["bash"], "deny");
    assert_eq!(inv.key_env, ["DEEPSEEK_API_KEY"]);
}

#[test]
fn aider_command_line_writes_the_message_file_outside_the_worktree() {
    let spec = cli(WorkerCli::Aider);
    let t = task(Some("anthropic/claude-sonnet-4-5"));
    assert_eq!(
        argv(&spec, &t),
        [
            "aider",
            "--message-file",
            "/data/scratch/a1/aider-message.txt",
            "--yes-always",
            "--no-auto-commits",
            "--no-stream",
            "--no-pretty",
            "--no-check-update",
            "--analytics-disable",
            "--no-suggest-shell-commands",
            "--no-detect-urls",
            "--no-gitignore",
            "--no-show-release-notes",
            "--input-history-file",
            "/data/scratch/a1/tmp/aider.input.history",
            "--chat-history-file",
            "/data/scratch/a1/tmp/aider.chat.history.md",
            "--model",
            "anthropic/claude-sonnet-4-5"
        ]
    );
    let inv = invocation(&spec, &t).expect("invocation");
    // A wide console, so edits and the cost report stay on one line each.
    assert!(inv.env.iter().any(|(k, v)| k == "COLUMNS" && v == "1000"));
    assert_eq!(
        inv.files,
        [(
            PathBuf::from("/data/scratch/a1/aider-message.txt"),
            "Fix add() in src/lib.rs.".to_owned()
        )]
    );
    assert!(!inv.files[0].0.starts_with(&t.worktree));
    assert_eq!(inv.key_env, ["ANTHROPIC_API_KEY"]);
    assert_eq!(inv.stdin, None);

    // With the catalog's facts of the routed model: its metadata, so Aider fetches none.
    let priced = WorkerTask {
        model_facts: Some(ModelFacts {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            context: Some(200_000),
        }),
        ..t.clone()
    };
    let inv = invocation(&spec, &priced).expect("invocation");
    let at = inv
        .args
        .iter()
        .position(|a| a == "--model-metadata-file")
        .expect("--model-metadata-file");
    let path = PathBuf::from(&inv.args[at + 1]);
    assert_eq!(
        path,
        PathBuf::from("/data/scratch/a1/aider-model-metadata.json")
    );
    let (_, metadata) = inv.files.iter().find(|(p, _)| p == &path).expect("written");
    let metadata: serde_json::Value = serde_json::from_str(metadata).expect("JSON");
    let entry = &metadata["anthropic/claude-sonnet-4-5"];
    assert_eq!(entry["litellm_provider"], "anthropic");
    assert_eq!(entry["input_cost_per_token"], 3.0e-6);
    assert_eq!(entry["output_cost_per_token"], 15.0e-6);
    assert_eq!(entry["max_input_tokens"], 200_000);
}

#[test]
fn exec_command_line_passes_the_task_on_stdin_and_in_the_environment() {
    let spec = WorkerSpec::parse("exec:./fix.sh --all").expect("spec");
    let inv = invocation(&spec, &task(None)).expect("invocation");
    assert_eq!(inv.program, "sh");
    assert_eq!(inv.args, ["-c", "./fix.sh --all"]);
    assert_eq!(inv.stdin.as_deref(), Some("Fix add() in src/lib.rs."));
    assert_eq!(
        inv.env,
        [(
            "SWITCHYARD_TASK".to_owned(),
            "Fix add() in src/lib.rs.".to_owned()
        )]
    );
    assert!(
        inv.key_env.is_empty(),
        "a command worker gets no provider key"
    );
}
