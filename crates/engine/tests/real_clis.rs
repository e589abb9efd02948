//! The real agent CLIs (installed at their pinned versions by the test command) as workers in
//! Switchyard's sandbox, against a scripted model server on 127.0.0.1 speaking each one's wire
//! format: Anthropic Messages (Claude Code), OpenAI Responses (Codex), Gemini
//! `streamGenerateContent` (Gemini CLI), OpenAI Chat Completions with tool calls (OpenCode)
//! and with Aider's edit formats (Aider).
//!
//! - Each fixes the fixture's bug with the model Switchyard routed it to: only `calc.sh` in
//!   the diff, verification passed, a cost, and `approve` lands it with the user as author
//!   (before: Gemini CLI exited 55 or 41, Codex's own sandbox denied its writes, Aider put
//!   `.gitignore` in the change and lost its cost, OpenCode wrote into the user's config and
//!   git directory, and Codex and Gemini had no cost).
//! - A refused key or an unreachable provider ends the attempt within seconds with the CLI's
//!   own cause under `providerAuth` / `providerUnreachable` (before: Claude Code retried for
//!   minutes and every error was "exit code N").
//!
//! - A model that never answers ends Claude Code at the attempt's timeout with its process
//!   group stopped; an edit that fails is logged as a failed tool and leaves nothing to
//!   approve; with "CLI's own account" chosen it gets no key and says it is not logged in.
//!
//! Every model call carries only the key bound to that origin.

mod attempts_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use attempts_support::{
    engine_with_own_keychain, keychain_present, real_cli, run, use_cli_binary, Fixture,
};
use serde_json::{json, Value};
use switchyard_core::attempt::AttemptReview;
use switchyard_core::attempt::AttemptState;
use switchyard_core::error::ErrorCode;
use switchyard_engine::Engine;
use switchyard_engine::ProviderKey;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    api_key: Option<String>,
    body: Value,
}

impl Seen {
    /// The model the request names.
    fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// Whether the request offers the model tools (the agent loop, not a title or a check).
    fn offers_tools(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
    }

    /// How many items of the body's array `key` `keep` accepts.
    fn count(&self, key: &str, keep: impl Fn(&Value) -> bool) -> usize {
        self.body
            .get(key)
            .and_then(Value::as_array)
            .map_or(0, |items| items.iter().filter(|i| keep(i)).count())
    }
}

/// Anthropic's answer to a key it does not know.
const ANTHROPIC_401: &str = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#;
/// Google's answer to a key it does not accept.
const GOOGLE_401: &str = r#"{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.","status":"UNAUTHENTICATED"}}"#;

/// OpenAI's answer to a key it does not accept.
const OPENAI_401: &str = r#"{"error":{"message":"Incorrect API key provided: sk-real*********************ghij. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;

/// A reply: status line, content type, body.
type Reply = (&'static str, &'static str, String);

/// A server on 127.0.0.1 answering each request with `answer(request)`, one request per
/// connection; returns its URL and what it saw.
async fn scripted_server(
    answer: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let log = log.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                let Some(request) = read_request(&mut socket).await else {
                    return;
                };
                let (status, kind, body) = answer(&request);
                log.lock().expect("log").push(request);
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\nrequest-id: req_011CSHoEeqs5C35K2UUqR7Fy\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (url, seen)
}

/// A server answering every request with 401 and `body`.
async fn refusing_server(body: &'static str) -> (String, Arc<Mutex<Vec<Seen>>>) {
    scripted_server(move |_| ("401 Unauthorized", "application/json", body.to_owned())).await
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let body = serde_json::from_slice(&data[head_end..]).unwrap_or(Value::Null);
    Some(Seen {
        path,
        api_key: header("x-api-key")
            .or_else(|| header("x-goog-api-key"))
            .or_else(|| {
                header("authorization").and_then(|v| v.strip_prefix("Bearer ").map(str::to_owned))
            }),
        body,
    })
}

/// The fixture and an engine with a keychain of its own, pointed at the real `cli`; `None`
/// (said by `real_cli` / `keychain_present`, a failure where they are required) when either
/// is missing here.
async fn real_worker(cli: &str, tag: &str) -> Option<(Fixture, Arc<Engine>)> {
    let binary = real_cli(cli)?;
    if !keychain_present() {
        return None;
    }
    let fx = Fixture::new();
    let engine = engine_with_own_keychain(&fx, tag).await;
    use_cli_binary(&fx, cli, &binary).await;
    Some((fx, engine))
}

/// Points `provider` at `base_url` and stores `key` for it.
async fn point_at(engine: &Engine, provider: &str, base_url: &str, key: &str) {
    engine
        .set_provider_base_url(provider, Some(base_url))
        .await
        .expect("base url");
    engine
        .set_key(provider, ProviderKey::parse(key).expect("key"))
        .await
        .expect("key");
}

/// Removes the keys stored for `providers` and closes the engine (closed even when a removal
/// fails, which then fails the test).
async fn forget_and_close(engine: Arc<Engine>, providers: &[&str]) {
    let mut deleted = Vec::new();
    for provider in providers {
        deleted.push(engine.delete_key(provider).await);
    }
    engine.close().await;
    for result in deleted {
        result.expect("delete the key");
    }
}

/// Points `provider` at `base_url`, stores `key` for it, runs `worker` on the fixture's task,
/// then removes the key and closes the engine: the review and how long the attempt took.
async fn run_keyed(
    fx: &Fixture,
    engine: Arc<Engine>,
    provider: &str,
    base_url: &str,
    key: &str,
    worker: &str,
) -> (AttemptReview, Duration) {
    point_at(&engine, provider, base_url, key).await;
    let started = Instant::now();
    let review = run(fx, &engine, worker).await;
    let took = started.elapsed();
    forget_and_close(engine, &[provider]).await;
    (review, took)
}

/// What every refused key comes to: the attempt failed under `providerAuth` within 30 s, the
/// key is nowhere in its error, and the server saw model calls (those `is_call` picks), each
/// with exactly that key. Returns the error message and those calls.
fn assert_refused(
    label: &str,
    review: &AttemptReview,
    took: Duration,
    key: &str,
    seen: &Mutex<Vec<Seen>>,
    is_call: impl Fn(&Seen) -> bool,
) -> (String, Vec<Seen>) {
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.clone().expect("an error");
    eprintln!("real {label}, refused key: {took:?}: {error:?}");
    assert_eq!(error.code, ErrorCode::ProviderAuth, "{error:?}");
    assert!(
        !error.message.contains(key),
        "the key leaked into the error"
    );
    assert!(
        took < Duration::from_secs(30),
        "a refused key took {took:?}"
    );
    let seen = seen.lock().expect("seen").clone();
    let calls: Vec<Seen> = seen.iter().filter(|s| is_call(s)).cloned().collect();
    assert!(
        !calls.is_empty(),
        "{label} never called the server: {seen:?}"
    );
    for call in &calls {
        assert_eq!(
            call.api_key.as_deref(),
            Some(key),
            "the key bound to this origin"
        );
    }
    (error.message, calls)
}

/// How many files the attempt's change holds.
fn files_changed(review: &AttemptReview) -> usize {
    review.diff.as_ref().map(|d| d.files.len()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_ends_the_real_claude_code_fast_with_the_cause() {
    let Some((fx, engine)) = real_worker("claude", "real-claude").await else {
        return;
    };
    let (url, seen) = refusing_server(ANTHROPIC_401).await;
    let key = "sk-ant-realclaudetest0123456789abcdefgh";
    let (review, took) = run_keyed(
        &fx,
        engine,
        "anthropic",
        &url,
        key,
        "claude:claude-haiku-4-5",
    )
    .await;
    let (message, calls) = assert_refused("claude", &review, took, key, &seen, |s| {
        s.path.starts_with("/v1/messages")
    });
    assert!(
        message.contains("authentication_failed") || message.contains("Invalid API key"),
        "the CLI's own cause: {message}"
    );
    assert!(
        calls.iter().any(|c| c.model() == Some("claude-haiku-4-5")),
        "the routed model was not the one called: {:?}",
        calls
            .iter()
            .map(|c| c.body.get("model"))
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_provider_ends_the_real_claude_code_within_30_s_with_the_cause() {
    let Some((fx, engine)) = real_worker("claude", "real-claude-down").await else {
        return;
    };
    // A port nothing listens on.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    let key = "sk-ant-realclaudedown0123456789abcdefgh";
    let (review, took) = run_keyed(
        &fx,
        engine,
        "anthropic",
        &format!("http://{closed}"),
        key,
        "claude",
    )
    .await;

    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.clone().expect("an error");
    eprintln!("real claude, unreachable: {took:?}: {error:?}");
    assert_eq!(error.code, ErrorCode::ProviderUnreachable, "{error:?}");
    assert!(
        [
            "connection refused",
            "connectionrefused",
            "unable to connect",
            "could not be reached"
        ]
        .iter()
        .any(|cause| error.message.to_lowercase().contains(cause)),
        "the CLI's own cause: {error:?}"
    );
    assert!(
        took < Duration::from_secs(30),
        "an unreachable provider took {took:?} to end the attempt"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_gemini_cli_runs_headless_in_the_worktree_and_a_refused_key_says_so() {
    let Some((fx, engine)) = real_worker("gemini", "real-gemini").await else {
        return;
    };
    let (url, seen) = refusing_server(GOOGLE_401).await;
    let key = "AIzaSyRealGeminiTest0123456789abcdefgh";
    // Switchyard's Gemini provider is the OpenAI-compatible path under the origin; the CLI
    // gets the origin.
    let base = format!("{url}/v1beta/openai");
    let (review, took) =
        run_keyed(&fx, engine, "gemini", &base, key, "gemini:gemini-2.5-flash").await;
    // Not "not running in a trusted directory" (exit 55) nor "Invalid auth method" (exit 41):
    // it got as far as the routed model, which refused the key.
    let (message, _) = assert_refused("gemini", &review, took, key, &seen, |s| {
        s.path.starts_with("/v1beta/models/gemini-2.5-flash:")
    });
    assert!(
        message.contains("UNAUTHENTICATED") || message.contains("401"),
        "{message}"
    );
    // Its settings and state stayed out of the worktree.
    assert_eq!(
        files_changed(&review),
        0,
        "the worker changed files: {:?}",
        review.diff
    );
}

/// One Anthropic Messages answer as server-sent events, exactly as the API streams it: a text
/// block, or a tool call whose input arrives as JSON deltas.
fn anthropic_sse(model: &str, block: &Value, usage: (u32, u32)) -> String {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let tool = block.get("type").and_then(Value::as_str) == Some("tool_use");
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
            "content": [], "model": model, "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": usage.0, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 1}}}),
    );
    if tool {
        let start =
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}});
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        );
        out += &event("ping", json!({"type": "ping"}));
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": block["input"].to_string()}}),
        );
    } else {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        );
        out += &event("ping", json!({"type": "ping"}));
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": block["text"]}}),
        );
    }
    out += &event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    out += &event(
        "message_delta",
        json!({"type": "message_delta",
        "delta": {"stop_reason": if tool { "tool_use" } else { "end_turn" }, "stop_sequence": null},
        "usage": {"output_tokens": usage.1}}),
    );
    out += &event("message_stop", json!({"type": "message_stop"}));
    out
}

/// The attempt's worktree (`<worktrees>/<attempt id>`) as the CLI names it somewhere in its
/// request (its working directory, in the system prompt or the context it sends).
fn worktree_in(body: &Value, worktrees: &str) -> Option<String> {
    let text = body.to_string();
    let prefix = format!("{worktrees}/");
    let at = text.find(&prefix)?;
    let id: String = text[at + prefix.len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    Some(format!("{prefix}{id}"))
}

/// How many tool results the conversation in `body` already holds.
fn tool_results(body: &Value) -> usize {
    body.get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .filter_map(|m| m.get("content").and_then(Value::as_array))
                .flatten()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
                .count()
        })
        .unwrap_or(0)
}

/// The scripted model behind Claude Code: with tools on offer (the agent loop) it reads
/// `calc.sh`, then edits it, then says it is done; anything else (a title, a summary) gets a
/// short text. The worktree's absolute path is found in the request, where Claude Code names
/// its working directory.
fn claude_fixer(worktrees: String) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    claude_editing(worktrees, "$1 - $2")
}

/// [`claude_fixer`] whose edit replaces `old` (text that is not in the file makes the tool
/// fail).
fn claude_editing(
    worktrees: String,
    old: &'static str,
) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |request: &Seen| {
        let model = request.model().unwrap_or("claude-haiku-4-5").to_owned();
        let agent = request.offers_tools();
        let worktree = worktree_in(&request.body, &worktrees);
        let block = match (agent, worktree, tool_results(&request.body)) {
            (true, Some(wt), 0) => json!({"type": "tool_use", "id": "toolu_01Read", "name": "Read",
                "input": {"file_path": format!("{wt}/calc.sh")}}),
            (true, Some(wt), 1) => json!({"type": "tool_use", "id": "toolu_01Edit", "name": "Edit",
                "input": {"file_path": format!("{wt}/calc.sh"), "old_string": old, "new_string": "$1 + $2"}}),
            (true, _, _) => json!({"type": "text", "text": "Fixed add() in calc.sh."}),
            (false, _, _) => json!({"type": "text", "text": "Fix add"}),
        };
        let stream = request.body.get("stream").and_then(Value::as_bool) == Some(true);
        if stream {
            (
                "200 OK",
                "text/event-stream",
                anthropic_sse(&model, &block, (1200, 60)),
            )
        } else {
            let stop = if block["type"] == "tool_use" {
                "tool_use"
            } else {
                "end_turn"
            };
            let body = json!({"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
                "model": model, "content": [block], "stop_reason": stop, "stop_sequence": null,
                "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 60}});
            ("200 OK", "application/json", body.to_string())
        }
    }
}

/// Where the fixture's attempts get their worktrees, as the CLIs see them.
fn worktrees_of(fx: &Fixture) -> String {
    std::fs::canonicalize(&fx.home)
        .expect("home")
        .join("worktrees")
        .display()
        .to_string()
}

/// Where `scripts/record-cli-transcripts.sh` has the real CLIs' transcripts written, for the
/// core crate's `transcripts` tests.
const RECORD_VAR: &str = "SWITCHYARD_RECORD_TRANSCRIPTS";

/// The recorded worktree as the transcript tests strip it.
const RECORDED_WORKTREE: &str = "/tmp/switchyard-transcript/worktree";

/// With [`RECORD_VAR`] set to a folder: the CLI's stdout from this attempt (its raw output
/// minus the log lines it writes on stderr; all of it for Aider, which writes plain text) as
/// `<cli>-<version>.<jsonl|txt>` there, the worktree's path made the recorded one and the
/// fixture's other paths made neutral, with its exit code beside it.
fn record_transcript(label: &str, fx: &Fixture, review: &AttemptReview) {
    let Some(dir) = std::env::var_os(RECORD_VAR).map(std::path::PathBuf::from) else {
        return;
    };
    let version = review
        .summary
        .worker_version
        .as_deref()
        .and_then(|v| {
            v.split_whitespace()
                .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        })
        .expect("the CLI's version")
        .to_owned();
    let raw = std::fs::read_to_string(
        fx.home
            .join("artifacts")
            .join(&review.summary.id)
            .join("worker-output.log"),
    )
    .expect("the worker's raw output");
    let root = std::fs::canonicalize(fx.root.path()).expect("root");
    let worktree = fx.worktree(&review.summary.id).display().to_string();
    let text: String = raw
        .lines()
        .filter(|line| label == "aider" || line.starts_with('{'))
        .map(|line| {
            let line = line
                .replace(&worktree, RECORDED_WORKTREE)
                .replace(&root.display().to_string(), "/tmp/switchyard-transcript");
            format!("{line}\n")
        })
        .collect();
    let ext = if label == "aider" { "txt" } else { "jsonl" };
    std::fs::create_dir_all(&dir).expect("record folder");
    std::fs::write(dir.join(format!("{label}-{version}.{ext}")), text).expect("record");
    std::fs::write(dir.join(format!("{label}-{version}.exit")), "0\n").expect("record");
    eprintln!("recorded the real {label} {version} transcript");
}

/// A fixed bug as the user ends up with it: the review, and what approving it gave.
struct Landed {
    review: AttemptReview,
    approved: Option<Result<AttemptReview, String>>,
}

/// Gives the repository a user identity, runs `worker` against `base_url` (where `provider`
/// is pointed, with `key`) and approves its review when it reaches one.
async fn fix_and_approve(
    fx: &Fixture,
    engine: Arc<Engine>,
    provider: &str,
    base_url: &str,
    key: &str,
    worker: &str,
) -> Landed {
    attempts_support::git(&fx.repo, &["config", "user.name", "Ada Reviewer"]);
    attempts_support::git(&fx.repo, &["config", "user.email", "ada@example.org"]);
    point_at(&engine, provider, base_url, key).await;
    let review = run(fx, &engine, worker).await;
    let approved = if review.summary.state == AttemptState::Review {
        Some(
            engine
                .approve_attempt(&review.summary.id, "Fix add()", true)
                .await
                .map_err(|e| e.to_string()),
        )
    } else {
        None
    };
    forget_and_close(engine, &[provider]).await;
    Landed { review, approved }
}

/// What every fixed bug comes to: the attempt reached review with only `calc.sh` changed and
/// its gates passed, it has a cost, every model call (those `is_call` picks) carried exactly
/// the key bound to that origin, and approving it landed it with the user as author and
/// trailers naming the attempt, the worker, the routed model and the verified diff.
fn assert_landed(
    label: &str,
    fx: &Fixture,
    landed: &Landed,
    worker: &str,
    key: &str,
    seen: &Mutex<Vec<Seen>>,
    is_call: impl Fn(&Seen) -> bool,
) -> Vec<Seen> {
    let review = &landed.review;
    let seen = seen.lock().expect("seen").clone();
    assert_eq!(
        review.summary.state,
        AttemptState::Review,
        "real {label}: {:?}\nrequests: {:?}",
        review.summary.error,
        seen.iter().map(|s| &s.path).collect::<Vec<_>>()
    );
    let diff = review.diff.as_ref().expect("diff");
    let files: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["calc.sh"], "real {label}: only the intended file");
    assert!(review.gates.iter().all(|g| g.passed), "{:?}", review.gates);
    let cost = review.summary.cost_usd;
    eprintln!("real {label}: cost {cost:?}, usage {:?}", review.usage);
    // It reached nothing but its provider and wrote nothing outside what it may: no model
    // list, price list, plugin or telemetry fetched from elsewhere, no history written into
    // a read-only folder.
    let confinement = review.confinement.clone().expect("confinement");
    assert!(
        confinement.denied.is_empty(),
        "real {label} was refused: {:?}",
        confinement.denied
    );
    assert!(
        cost.is_some_and(|c| c > 0.0),
        "real {label}: no cost: {cost:?}"
    );
    let calls: Vec<Seen> = seen.iter().filter(|s| is_call(s)).cloned().collect();
    assert!(!calls.is_empty(), "real {label} never called the model");
    for call in &calls {
        assert_eq!(
            call.api_key.as_deref(),
            Some(key),
            "the key bound to this origin"
        );
    }
    record_transcript(label, fx, review);
    let approved = landed.approved.clone().expect("approved").expect("approve");
    assert_eq!(approved.summary.state, AttemptState::Integrated);
    let model = switchyard_core::worker::WorkerSpec::parse(worker)
        .ok()
        .and_then(|spec| spec.routed_model().map(str::to_owned))
        .expect("a routed model");
    assert_eq!(
        attempts_support::git(&fx.repo, &["log", "-1", "--format=%an <%ae>%n%(trailers:only,unfold)"]),
        format!(
            "Ada Reviewer <ada@example.org>\nSwitchyard-Attempt: {}\nSwitchyard-Worker: {worker}\nSwitchyard-Model: {model}\nSwitchyard-Diff-SHA256: {}",
            review.summary.id, diff.sha256
        )
    );
    assert_eq!(
        attempts_support::git(&fx.repo, &["show", "HEAD:calc.sh"]),
        "add() { echo $(($1 + $2)); }",
        "the fix is what landed"
    );
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_claude_code_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("claude", "real-claude-fix").await else {
        return;
    };
    let (url, seen) = scripted_server(claude_fixer(worktrees_of(&fx))).await;
    let key = "sk-ant-realclaudefix0123456789abcdefghij";
    let worker = "claude:claude-haiku-4-5";
    let landed = fix_and_approve(&fx, engine, "anthropic", &url, key, worker).await;
    let calls = assert_landed("claude", &fx, &landed, worker, key, &seen, |s| {
        s.path.starts_with("/v1/messages")
    });
    assert!(calls
        .iter()
        .any(|s| s.model() == Some("claude-haiku-4-5") && tool_results(&s.body) == 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_codex_calls_the_routed_provider_and_model_and_a_refused_key_ends_it_fast() {
    let Some((fx, engine)) = real_worker("codex", "real-codex").await else {
        return;
    };
    let (url, seen) = refusing_server(OPENAI_401).await;
    let key = "sk-realcodextest0123456789abcdefghij";
    let base = format!("{url}/v1");
    let (review, took) = run_keyed(&fx, engine, "openai", &base, key, "codex:gpt-5-mini").await;
    let (message, calls) = assert_refused("codex", &review, took, key, &seen, |s| {
        s.path == "/v1/responses"
    });
    assert!(message.contains("401"), "{message}");
    for call in &calls {
        assert_eq!(call.model(), Some("gpt-5-mini"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_opencode_calls_the_moved_provider_and_a_refused_key_ends_it_fast() {
    let Some((fx, engine)) = real_worker("opencode", "real-opencode").await else {
        return;
    };
    let (url, seen) = refusing_server(OPENAI_401).await;
    let key = "sk-realopencodetest0123456789abcdefgh";
    let base = format!("{url}/v1");
    // The model as OpenCode 1.18.33's bundled list names it.
    let worker = "opencode:deepseek/deepseek-flash";
    let (review, took) = run_keyed(&fx, engine, "deepseek", &base, key, worker).await;
    assert_refused("opencode", &review, took, key, &seen, |s| {
        s.path.ends_with("/chat/completions")
    });
    // Nothing it wrote landed in the change.
    assert_eq!(
        files_changed(&review),
        0,
        "the worker changed files: {:?}",
        review.diff
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_aider_leaves_nothing_in_the_change_and_a_refused_key_fails_it_with_the_cause() {
    let Some((fx, engine)) = real_worker("aider", "real-aider").await else {
        return;
    };
    let (url, seen) = refusing_server(OPENAI_401).await;
    let key = "sk-realaidertest0123456789abcdefghijkl";
    let base = format!("{url}/v1");
    let (review, took) = run_keyed(
        &fx,
        engine,
        "openai",
        &base,
        key,
        "aider:openai/gpt-4o-mini",
    )
    .await;
    // Aider exits 0 after a refused key; its own words fail the attempt.
    let (message, calls) = assert_refused("aider", &review, took, key, &seen, |s| {
        s.path == "/v1/chat/completions"
    });
    assert!(message.contains("AuthenticationError"), "{message}");
    for call in &calls {
        assert_eq!(call.model(), Some("gpt-4o-mini"));
    }
    // No `.aider*` line in .gitignore, no histories, no tag cache in the change.
    assert_eq!(
        files_changed(&review),
        0,
        "the worker changed files: {:?}",
        review.diff
    );
}

/// The fixture's bug as a Codex patch (`apply_patch`, which Codex runs itself when the model
/// calls its shell tool with it).
const CODEX_PATCH: &str = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: calc.sh\n@@\n-add() { echo $(($1 - $2)); }\n+add() { echo $(($1 + $2)); }\n*** End Patch\nPATCH\n";

/// One OpenAI Responses answer as server-sent events, as the API streams it: the response
/// created, its one output item added and done, the response completed with its usage.
fn responses_sse(model: &str, item: &Value, usage: (u32, u32)) -> String {
    let response = json!({"id": "resp_68af1c2e0d1f", "object": "response", "model": model,
        "status": "completed", "output": [item],
        "usage": {"input_tokens": usage.0, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": usage.1, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": usage.0 + usage.1}});
    [
        json!({"type": "response.created", "sequence_number": 0,
            "response": {"id": "resp_68af1c2e0d1f", "object": "response", "model": model,
                         "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": item}),
        json!({"type": "response.completed", "sequence_number": 3, "response": response}),
    ]
    .iter()
    .map(|event| {
        format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap_or_default()
        )
    })
    .collect()
}

/// The scripted model behind Codex: its shell tool with the patch, then a final answer once
/// the patch's output is back.
fn codex_fixer(request: &Seen) -> Reply {
    let model = request.model().unwrap_or("gpt-5-mini");
    let outputs = request.count("input", |i| i["type"] == "function_call_output");
    let item = if outputs == 0 {
        json!({"type": "function_call", "id": "fc_68af1c2e", "call_id": "call_patch",
            "name": "exec_command", "status": "completed",
            "arguments": json!({"cmd": CODEX_PATCH}).to_string()})
    } else {
        json!({"type": "message", "id": "msg_68af1c2e", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Fixed add() in calc.sh.", "annotations": []}]})
    };
    (
        "200 OK",
        "text/event-stream",
        responses_sse(model, &item, (1200, 60)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_codex_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("codex", "real-codex-fix").await else {
        return;
    };
    let (url, seen) = scripted_server(codex_fixer).await;
    let key = "sk-realcodexfix0123456789abcdefghijkl";
    let worker = "codex:gpt-5-mini";
    let landed = fix_and_approve(&fx, engine, "openai", &format!("{url}/v1"), key, worker).await;
    let calls = assert_landed("codex", &fx, &landed, worker, key, &seen, |s| {
        s.path == "/v1/responses"
    });
    // Its events never name the model: the cost is the routed model's catalog price.
    assert!(calls.iter().all(|c| c.model() == Some("gpt-5-mini")));
    assert_eq!(calls.len(), 2, "the patch, then the answer");
}

/// The scripted model behind Gemini CLI: with tools on offer, its `replace` tool on the
/// worktree's `calc.sh`, then a final answer; anything else (its next-speaker check) a short
/// JSON verdict. Streamed calls get server-sent events, others one JSON answer.
fn gemini_fixer(worktrees: String) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |request: &Seen| {
        let contents = request.body.get("contents").and_then(Value::as_array);
        let responses = contents.map_or(0, |contents| {
            contents
                .iter()
                .filter_map(|c| c.get("parts").and_then(Value::as_array))
                .flatten()
                .filter(|p| p.get("functionResponse").is_some())
                .count()
        });
        let agent = request.offers_tools();
        let part = match (agent, worktree_in(&request.body, &worktrees), responses) {
            (true, Some(wt), 0) => json!({"functionCall": {"name": "replace", "args": {
                "file_path": format!("{wt}/calc.sh"),
                "instruction": "Make add() add its arguments instead of subtracting them.",
                "old_string": "$1 - $2", "new_string": "$1 + $2"}}}),
            (true, _, _) => json!({"text": "Fixed add() in calc.sh."}),
            (false, _, _) => {
                json!({"text": r#"{"next_speaker": "user", "reasoning": "The task is done."}"#})
            }
        };
        let chunk = json!({"candidates": [{"content": {"parts": [part], "role": "model"},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 60, "totalTokenCount": 1260},
            "modelVersion": "gemini-2.5-flash", "responseId": "mIWkaN2HBpGq1MkP"});
        if request.path.contains("alt=sse") {
            (
                "200 OK",
                "text/event-stream",
                format!("data: {chunk}\r\n\r\n"),
            )
        } else {
            ("200 OK", "application/json", chunk.to_string())
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_gemini_cli_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("gemini", "real-gemini-fix").await else {
        return;
    };
    let (url, seen) = scripted_server(gemini_fixer(worktrees_of(&fx))).await;
    let key = "AIzaSyRealGeminiFix0123456789abcdefghi";
    let worker = "gemini:gemini-2.5-flash";
    let base = format!("{url}/v1beta/openai");
    let landed = fix_and_approve(&fx, engine, "gemini", &base, key, worker).await;
    // Its `init` says "auto"; the cost comes from the model `stats.models` names.
    assert_landed("gemini", &fx, &landed, worker, key, &seen, |s| {
        s.path.starts_with("/v1beta/models/gemini-2.5-flash:")
    });
}

/// One OpenAI Chat Completions answer streamed as the API does: the message's delta, its
/// finish reason, then the usage (`stream_options.include_usage`), then `[DONE]`.
fn chat_sse(model: &str, delta: &Value, finish: &str, usage: (u32, u32)) -> String {
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut chunk = json!({"id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
            "object": "chat.completion.chunk", "created": 1_796_564_541, "model": model,
            "choices": choices});
        if let Some(usage) = usage {
            chunk["usage"] = usage;
        }
        format!("data: {chunk}\n\n")
    };
    chunk(
        json!([{"index": 0, "delta": delta, "finish_reason": null}]),
        None,
    ) + &chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        None,
    ) + &chunk(
        json!([]),
        Some(
            json!({"prompt_tokens": usage.0, "completion_tokens": usage.1,
                    "total_tokens": usage.0 + usage.1}),
        ),
    ) + "data: [DONE]\n\n"
}

/// The scripted model behind OpenCode: with tools on offer, `read` then `edit` on the
/// worktree's `calc.sh` (it edits only files it has read), then a final answer; its title
/// request gets a title.
fn opencode_fixer(worktrees: String) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    opencode_editing(worktrees, "$1 + $2")
}

/// [`opencode_fixer`] whose edit writes `new` in place of the subtraction (`$1 * $2` is a
/// wrong fix: verification still fails).
fn opencode_editing(
    worktrees: String,
    new: &'static str,
) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |request: &Seen| {
        let model = request.model().unwrap_or("deepseek-flash");
        let results = request.count("messages", |m| m["role"] == "tool");
        let agent = request.offers_tools();
        let call = |id: &str, name: &str, arguments: Value| {
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id,
                "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]})
        };
        let (delta, finish) = match (agent, worktree_in(&request.body, &worktrees), results) {
            (true, Some(wt), 0) => (
                call(
                    "call_read",
                    "read",
                    json!({"filePath": format!("{wt}/calc.sh")}),
                ),
                "tool_calls",
            ),
            (true, Some(wt), 1) => (
                call(
                    "call_edit",
                    "edit",
                    json!({"filePath": format!("{wt}/calc.sh"),
                           "oldString": "$1 - $2", "newString": new}),
                ),
                "tool_calls",
            ),
            (true, _, _) => (
                json!({"role": "assistant", "content": "Fixed add() in calc.sh."}),
                "stop",
            ),
            (false, _, _) => (json!({"role": "assistant", "content": "Fix add"}), "stop"),
        };
        (
            "200 OK",
            "text/event-stream",
            chat_sse(model, &delta, finish, (1200, 60)),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_opencode_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("opencode", "real-opencode-fix").await else {
        return;
    };
    let (url, seen) = scripted_server(opencode_fixer(worktrees_of(&fx))).await;
    let key = "sk-realopencodefix0123456789abcdefghi";
    let worker = "opencode:deepseek/deepseek-flash";
    let landed = fix_and_approve(&fx, engine, "deepseek", &format!("{url}/v1"), key, worker).await;
    let calls = assert_landed("opencode", &fx, &landed, worker, key, &seen, |s| {
        s.path.ends_with("/chat/completions")
    });
    assert!(calls.iter().all(|c| c.model() == Some("deepseek-flash")));
    // Its project id is not written into the repository's git directory.
    assert!(
        !fx.repo.join(".git").join("opencode").exists(),
        "OpenCode wrote into the repository's git directory"
    );
}

/// The scripted model behind Aider: the fix in the edit format Aider asked for (a
/// SEARCH/REPLACE block, or the whole file), not streamed (`--no-stream`), with a usage whose
/// report is longer than 80 columns (cache hits included).
fn aider_fixer(request: &Seen) -> Reply {
    let model = request.model().unwrap_or("gpt-4o-mini");
    let system = request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    let text = if system.contains("SEARCH/REPLACE") {
        "calc.sh\n```\n<<<<<<< SEARCH\nadd() { echo $(($1 - $2)); }\n=======\nadd() { echo $(($1 + $2)); }\n>>>>>>> REPLACE\n```\n"
    } else {
        "calc.sh\n```\nadd() { echo $(($1 + $2)); }\n```\n"
    };
    let body = json!({"id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion",
        "created": 1_796_564_541, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12_345, "completion_tokens": 567, "total_tokens": 12_912,
                  "prompt_tokens_details": {"cached_tokens": 3_456}}});
    ("200 OK", "application/json", body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_aider_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("aider", "real-aider-fix").await else {
        return;
    };
    let (url, seen) = scripted_server(aider_fixer).await;
    let key = "sk-realaiderfix0123456789abcdefghijkl";
    let worker = "aider:openai/gpt-4o-mini";
    let landed = fix_and_approve(&fx, engine, "openai", &format!("{url}/v1"), key, worker).await;
    assert_landed("aider", &fx, &landed, worker, key, &seen, |s| {
        s.path == "/v1/chat/completions"
    });
    // Aider asks to add the file its answer edits, then asks the model again: two reports of
    // "12k sent, 567 received", summed, and its own running session cost, read whole (a
    // console 80 columns wide splits those lines).
    let usage = landed.review.usage.expect("usage");
    assert_eq!((usage.input, usage.output), (24_000, 1_134), "{usage:?}");
    assert!(!usage.estimated, "Aider reported the cost itself");
    assert_eq!(landed.review.summary.cost_usd, Some(0.0039));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_its_own_account_chosen_the_real_claude_code_gets_no_key_and_says_it_is_not_logged_in()
{
    let Some((fx, engine)) = real_worker("claude", "real-claude-own").await else {
        return;
    };
    let (url, seen) = scripted_server(claude_fixer(worktrees_of(&fx))).await;
    let status = engine
        .set_worker_own_account(switchyard_core::worker::WorkerCli::Claude, true)
        .await
        .expect("own account");
    assert!(status.own_account);
    let logged_in = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .is_some_and(|home| home.join(".claude/.credentials.json").is_file());
    let key = "sk-ant-realclaudeown0123456789abcdefghi";
    let (review, took) = run_keyed(&fx, engine, "anthropic", &url, key, "claude").await;
    // Switchyard held a key and a moved provider for it, and passed neither.
    assert!(
        seen.lock().expect("seen").is_empty(),
        "the worker called Switchyard's provider"
    );
    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.clone().expect("an error");
    eprintln!("real claude, own account: {took:?}: {error:?}");
    assert!(!error.message.contains(key));
    if logged_in {
        eprintln!("note: this home has a Claude Code login; not asserting the not-logged-in cause");
        return;
    }
    assert_eq!(error.code, ErrorCode::WorkerMisconfigured, "{error:?}");
    assert!(error.message.contains("Not logged in"), "{error:?}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(
        status.account,
        Some(switchyard_core::doctor::WorkerAccount::None)
    );
    assert!(!status.ready);
    assert!(
        status
            .fix
            .as_deref()
            .is_some_and(|fix| fix.contains("log in") && fix.contains("Settings → Agent CLIs")),
        "{status:?}"
    );
}

/// A server that reads each request and never answers it.
async fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _request = read_request(&mut socket).await;
                tokio::time::sleep(Duration::from_secs(600)).await;
                drop(socket);
            });
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_never_answers_ends_the_real_claude_code_at_the_attempts_timeout() {
    let Some((fx, engine)) = real_worker("claude", "real-claude-hang").await else {
        return;
    };
    let url = silent_server().await;
    let key = "sk-ant-realclaudehang0123456789abcdefgh";
    point_at(&engine, "anthropic", &url, key).await;
    let request = switchyard_core::attempt::AttemptRequest {
        timeout_secs: Some(8),
        ..fx.request("claude:claude-haiku-4-5")
    };
    let started = Instant::now();
    let review = attempts_support::run_request(&engine, request).await;
    let took = started.elapsed();
    forget_and_close(engine, &["anthropic"]).await;

    assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
    let error = review.summary.error.clone().expect("an error");
    eprintln!("real claude, silent model: {took:?}: {error:?}");
    assert_eq!(error.code, ErrorCode::Timeout, "{error:?}");
    assert!(took < Duration::from_secs(25), "{took:?}");
    // The whole process group went with it.
    assert!(
        attempts_support::all_gone(&review.summary.id).await,
        "a Claude Code process outlived its attempt"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_tool_leaves_the_real_claude_codes_attempt_unapprovable_with_the_failure_logged()
{
    let Some((fx, engine)) = real_worker("claude", "real-claude-badedit").await else {
        return;
    };
    let (url, seen) = scripted_server(claude_editing(worktrees_of(&fx), "no such text")).await;
    let key = "sk-ant-realclaudebad0123456789abcdefghi";
    point_at(&engine, "anthropic", &url, key).await;
    let review = run(&fx, &engine, "claude:claude-haiku-4-5").await;
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    forget_and_close(engine, &["anthropic"]).await;

    eprintln!(
        "real claude, failing edit: {:?} {:?} can_approve={}",
        review.summary.state, review.summary.error, review.can_approve
    );
    // The model saw its edit fail (an error tool result) and was asked again.
    assert!(seen.lock().expect("seen").iter().any(|s| {
        s.body["messages"].as_array().is_some_and(|messages| {
            messages
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .any(|b| b["type"] == "tool_result" && b["is_error"] == true)
        })
    }));
    // Switchyard logged the failed tool, changed nothing, and nothing can be approved.
    assert!(
        log.iter().any(|entry| matches!(
            &entry.entry,
            switchyard_core::attempt::AttemptLog::Worker {
                event: switchyard_core::worker::WorkerEvent::ToolUse {
                    status: switchyard_core::worker::ToolStatus::Failed,
                    ..
                }
            }
        )),
        "no failed tool in the log"
    );
    assert_eq!(files_changed(&review), 0);
    assert!(!review.can_approve, "{review:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_climbs_from_a_cheap_model_in_the_real_opencode_to_the_real_claude_code() {
    let Some((fx, engine)) = real_worker("opencode", "real-cascade").await else {
        return;
    };
    let Some(claude) = real_cli("claude") else {
        return;
    };
    // Read at each launch: the open engine sees it.
    use_cli_binary(&fx, "claude", &claude).await;
    let worktrees = worktrees_of(&fx);
    let (cheap, cheap_seen) = scripted_server(opencode_editing(worktrees.clone(), "$1 * $2")).await;
    let (premium, premium_seen) = scripted_server(claude_fixer(worktrees)).await;
    let keys = [
        (
            "deepseek",
            format!("{cheap}/v1"),
            "sk-realcascadecheap0123456789abcdefgh",
        ),
        (
            "anthropic",
            premium,
            "sk-ant-realcascadepremium0123456789abcd",
        ),
    ];
    for (provider, url, key) in &keys {
        point_at(&engine, provider, url, key).await;
    }
    let mut request = switchyard_core::run::RunRequest::new(
        "make add() add",
        switchyard_core::run::RunMode::Cascade,
    );
    request.repo = Some(fx.repo_str());
    request.verify = Some(vec!["sh test.sh".into()]);
    request.launcher = "test".into();
    request.ladder = Some(vec![
        "opencode:deepseek/deepseek-flash".into(),
        "claude:claude-haiku-4-5".into(),
    ]);
    let run = engine.start_run(request).await.expect("start");
    let detail = tokio::time::timeout(Duration::from_secs(180), engine.wait_run(&run.id))
        .await
        .expect("the run ended in time")
        .expect("wait");
    let mut reviews = Vec::new();
    for attempt in &detail.nodes[0].attempts {
        let id = attempt.attempt_id.clone().expect("an attempt");
        reviews.push(engine.attempt_review(&id).await.expect("review"));
    }
    forget_and_close(engine, &["deepseek", "anthropic"]).await;

    assert_eq!(
        detail.summary.state,
        switchyard_core::run::RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let node = &detail.nodes[0];
    assert_eq!(node.rung, Some(2), "escalated to the second rung");
    assert!(matches!(
        node.attempts[0].signal,
        Some(switchyard_core::run::FailureSignal::VerificationFailed { .. })
    ));
    assert_eq!(reviews.len(), 2);
    assert_eq!(
        reviews[0].summary.worker,
        "opencode:deepseek/deepseek-flash"
    );
    assert_eq!(reviews[1].summary.worker, "claude:claude-haiku-4-5");
    assert!(reviews[1].can_approve, "{:?}", reviews[1].approve_blocked);
    assert_eq!(files_changed(&reviews[1]), 1);
    // Each rung called its own routed provider, with that provider's key only.
    assert!(!cheap_seen.lock().expect("seen").is_empty());
    assert!(premium_seen
        .lock()
        .expect("seen")
        .iter()
        .filter(|s| s.path.starts_with("/v1/messages"))
        .all(|s| s.api_key.as_deref() == Some(keys[1].2)));
}
