//! A CLI worker end to end: a stand-in `claude` (set as the binary in Settings) that accepts
//! the real flags, edits the worktree and prints Claude Code's `stream-json`. Its version,
//! reported cost, tool calls and verdict reach the attempt; with a real keychain it gets its
//! own provider key and no other.

mod attempts_support;

use std::os::unix::fs::PermissionsExt;

use attempts_support::{engine_with_own_keychain, keychain_present, run, Fixture};
use switchyard_core::attempt::{AttemptLog, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::worker::{ToolAction, WorkerEvent};
use switchyard_engine::ProviderKey;

const RESULT_OK: &str = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.0123,"usage":{"input_tokens":100,"output_tokens":20}}"#;
const RESULT_ERROR: &str = r#"{"type":"result","subtype":"success","is_error":true,"num_turns":1,"total_cost_usd":0.001,"usage":{"input_tokens":10,"output_tokens":2}}"#;

/// Writes a fake `claude` printing `result` last, and points Settings at it.
async fn fake_claude(fx: &Fixture, result: &str) -> std::path::PathBuf {
    let seen = fx.probe("claude-seen");
    let script = fx.root.path().join("bin").join("claude");
    std::fs::create_dir_all(script.parent().expect("parent")).expect("bin");
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "1.0.99 (Claude Code)"; exit 0; fi
printf '%s\n' "$@" > {seen}.args
cat > {seen}.stdin
env > {seen}.env
echo "debug: key is $ANTHROPIC_API_KEY" >&2
sed -i 's/\$1 - \$2/$1 + $2/' calc.sh
echo '{{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Edit"]}}'
echo '{{"type":"assistant","message":{{"content":[{{"type":"text","text":"Fixing add"}},{{"type":"tool_use","id":"t1","name":"Edit","input":{{"file_path":"calc.sh"}}}}]}}}}'
echo '{result}'
"#,
            seen = seen.display(),
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let store = switchyard_store::Store::open(&fx.home.join(switchyard_store::DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            "workers.path.claude",
            &script.display().to_string(),
            "2026-12-02T00:00:00Z",
        )
        .await
        .expect("setting");
    store.close().await;
    seen
}

#[tokio::test]
async fn claude_code_output_becomes_events_usage_and_a_verified_review() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let seen = fake_claude(&fx, RESULT_OK).await;
    let review = run(&fx, &engine, "claude").await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    assert_eq!(
        review.summary.worker_version.as_deref(),
        Some("1.0.99 (Claude Code)")
    );
    assert_eq!(review.summary.cost_usd, Some(0.0123));
    let usage = review.usage.expect("usage");
    assert_eq!(
        (usage.input, usage.output, usage.estimated),
        (100, 20, false)
    );
    let args = std::fs::read_to_string(seen.with_extension("args")).expect("args");
    for flag in [
        "-p",
        "stream-json",
        "--verbose",
        "acceptEdits",
        "--allowedTools",
    ] {
        assert!(
            args.lines().any(|l| l == flag),
            "{flag} missing from {args}"
        );
    }
    let stdin = std::fs::read_to_string(seen.with_extension("stdin")).expect("stdin");
    assert_eq!(stdin, "make add() add");
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    let events: Vec<&WorkerEvent> = log
        .iter()
        .filter_map(|e| match &e.entry {
            AttemptLog::Worker { event } => Some(event),
            _ => None,
        })
        .collect();
    assert!(events
        .iter()
        .any(|e| matches!(e, WorkerEvent::AssistantText { text, .. } if text == "Fixing add")));
    assert!(events.iter().any(|e| matches!(e,
        WorkerEvent::ToolUse { action: ToolAction::FileEdit { path }, .. } if path == "calc.sh")));
    engine.close().await;
}

#[tokio::test]
async fn a_result_with_is_error_fails_the_attempt_even_after_a_clean_exit() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    fake_claude(&fx, RESULT_ERROR).await;
    let review = run(&fx, &engine, "claude").await;
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    assert_eq!(
        review.summary.error.as_ref().map(|e| e.code),
        Some(ErrorCode::WorkerFailed)
    );
    assert_eq!(
        review.summary.files_changed,
        Some(1),
        "its diff is still shown"
    );
    engine.close().await;
}

#[tokio::test]
async fn a_cli_worker_gets_its_own_provider_key_and_no_other() {
    if !keychain_present() {
        return;
    }
    let fx = Fixture::new();
    let engine = engine_with_own_keychain(&fx, "cli-key").await;
    let own = "sk-ant-attemptclitest0123456789abcdefgh";
    let other = "sk-or-v1-attemptclitestother0123456789";
    engine
        .set_key("anthropic", ProviderKey::parse(own).expect("key"))
        .await
        .expect("anthropic key");
    engine
        .set_key("openrouter", ProviderKey::parse(other).expect("key"))
        .await
        .expect("openrouter key");
    let seen = fake_claude(&fx, RESULT_OK).await;
    let review = run(&fx, &engine, "claude").await;
    let cleanup = (
        engine.delete_key("anthropic").await,
        engine.delete_key("openrouter").await,
    );
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let env = std::fs::read_to_string(seen.with_extension("env")).expect("env");
    assert!(
        env.lines().any(|l| l == format!("ANTHROPIC_API_KEY={own}")),
        "own key missing"
    );
    assert!(
        !env.contains(other),
        "another provider's key reached the worker"
    );
    cleanup.0.expect("delete");
    cleanup.1.expect("delete");
    engine.close().await;
}
