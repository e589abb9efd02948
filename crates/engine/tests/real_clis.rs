//! The real agent CLIs (installed at their pinned versions by the test command) as workers,
//! against a model server on 127.0.0.1 that refuses every key the way the provider's API
//! does, or against a closed port. Each attempt calls the model Switchyard routed it to, sends
//! only the key bound to that origin, and ends within seconds with the CLI's own cause under
//! `providerAuth` / `providerUnreachable` (before, Claude Code retried ten times with backoff,
//! Gemini CLI exited 55 or 41 before calling anything, and the error was only "exit code N").

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
    engine
        .set_provider_base_url(provider, Some(base_url))
        .await
        .expect("base url");
    engine
        .set_key(provider, ProviderKey::parse(key).expect("key"))
        .await
        .expect("key");
    let started = Instant::now();
    let review = run(fx, &engine, worker).await;
    let took = started.elapsed();
    let deleted = engine.delete_key(provider).await;
    engine.close().await;
    deleted.expect("delete the key");
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
        calls
            .iter()
            .any(|c| c.body.get("model").and_then(Value::as_str) == Some("claude-haiku-4-5")),
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
    move |request: &Seen| {
        let model = request
            .body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("claude-haiku-4-5")
            .to_owned();
        let agent = request
            .body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty());
        let text = request.body.to_string();
        // `<worktrees>/<attempt id>`, the id being the path's next component.
        let prefix = format!("{worktrees}/");
        let worktree = text.find(&prefix).map(|at| {
            let id: String = text[at + prefix.len()..]
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            format!("{prefix}{id}")
        });
        let block = match (agent, worktree, tool_results(&request.body)) {
            (true, Some(wt), 0) => json!({"type": "tool_use", "id": "toolu_01Read", "name": "Read",
                "input": {"file_path": format!("{wt}/calc.sh")}}),
            (true, Some(wt), 1) => json!({"type": "tool_use", "id": "toolu_01Edit", "name": "Edit",
                "input": {"file_path": format!("{wt}/calc.sh"), "old_string": "$1 - $2", "new_string": "$1 + $2"}}),
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_claude_code_fixes_a_bug_with_the_routed_model_and_lands_as_the_user() {
    let Some((fx, engine)) = real_worker("claude", "real-claude-fix").await else {
        return;
    };
    attempts_support::git(&fx.repo, &["config", "user.name", "Ada Reviewer"]);
    attempts_support::git(&fx.repo, &["config", "user.email", "ada@example.org"]);
    let worktrees = std::fs::canonicalize(&fx.home)
        .expect("home")
        .join("worktrees")
        .display()
        .to_string();
    let (url, seen) = scripted_server(claude_fixer(worktrees)).await;
    engine
        .set_provider_base_url("anthropic", Some(&url))
        .await
        .expect("base url");
    let key = "sk-ant-realclaudefix0123456789abcdefghij";
    engine
        .set_key("anthropic", ProviderKey::parse(key).expect("key"))
        .await
        .expect("key");

    let review = run(&fx, &engine, "claude:claude-haiku-4-5").await;
    let approved = if review.summary.state == AttemptState::Review {
        Some(
            engine
                .approve_attempt(&review.summary.id, "Fix add()", true)
                .await,
        )
    } else {
        None
    };
    let deleted = engine.delete_key("anthropic").await;
    engine.close().await;
    deleted.expect("delete the key");

    let seen = seen.lock().expect("seen").clone();
    assert_eq!(
        review.summary.state,
        AttemptState::Review,
        "{:?}\nrequests: {:?}",
        review.summary.error,
        seen.iter()
            .map(|s| (&s.path, tool_results(&s.body)))
            .collect::<Vec<_>>()
    );
    let diff = review.diff.as_ref().expect("diff");
    let files: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["calc.sh"], "only the intended file");
    assert!(review.gates.iter().all(|g| g.passed), "{:?}", review.gates);
    let cost = review.summary.cost_usd.expect("a cost");
    assert!(cost > 0.0, "cost {cost}");
    assert!(seen
        .iter()
        .filter(|s| s.path.starts_with("/v1/messages"))
        .all(|s| s.api_key.as_deref() == Some(key)));
    assert!(seen
        .iter()
        .any(
            |s| s.body.get("model").and_then(Value::as_str) == Some("claude-haiku-4-5")
                && tool_results(&s.body) == 2
        ));
    let approved = approved.expect("approved").expect("approve");
    assert_eq!(approved.summary.state, AttemptState::Integrated);
    assert_eq!(
        attempts_support::git(&fx.repo, &["log", "-1", "--format=%an <%ae>%n%(trailers:only,unfold)"]),
        format!(
            "Ada Reviewer <ada@example.org>\nSwitchyard-Attempt: {}\nSwitchyard-Worker: claude:claude-haiku-4-5\nSwitchyard-Model: claude-haiku-4-5\nSwitchyard-Diff-SHA256: {}",
            review.summary.id, diff.sha256
        )
    );
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
        assert_eq!(
            call.body.get("model").and_then(Value::as_str),
            Some("gpt-5-mini")
        );
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
        assert_eq!(
            call.body.get("model").and_then(Value::as_str),
            Some("gpt-4o-mini")
        );
    }
    // No `.aider*` line in .gitignore, no histories, no tag cache in the change.
    assert_eq!(
        files_changed(&review),
        0,
        "the worker changed files: {:?}",
        review.diff
    );
}
