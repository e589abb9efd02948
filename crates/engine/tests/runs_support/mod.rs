//! Shared by the runs tests: a model server on 127.0.0.1 speaking the exact OpenAI
//! chat-completions streaming format, whose replies (latency, failure, usage) are chosen per
//! request from the prompt; and an engine on a fresh home with that server as the keyless
//! custom provider `wtest`.
//!
//! Model references are `wtest:<catalog id>`, so calls go to the test server and are priced
//! from the bundled catalog (`openai/gpt-4o` is $2.50 in / $10 out per million tokens).

#![allow(dead_code)]

#[path = "../../../providers/tests/support/mod.rs"]
pub mod http;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http::{wire, End, Recorded, Reply, TestServer};
use switchyard_core::providers::{AddProviderRequest, ProviderKind};
use switchyard_core::run::{RunDetail, RunMode, RunRequest, RunState};
use switchyard_engine::{Engine, EngineConfig};
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

/// A priced model served by the test server ($2.50 / $10 per million tokens).
pub const GPT4O: &str = "wtest:openai/gpt-4o";
/// A cheaper one ($0.15 / $0.60).
pub const MINI: &str = "wtest:openai/gpt-4o-mini";
/// Another ($2 / $8).
pub const GPT41: &str = "wtest:openai/gpt-4.1";
/// Another ($3 / $15).
pub const SONNET: &str = "wtest:anthropic/claude-sonnet-4";

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Behavior {
    /// Streams `text` in a few deltas after `latency`, reporting `usage` (in, out).
    Answer {
        text: String,
        latency: Duration,
        usage: (u32, u32),
        finish: &'static str,
    },
    /// Streams each of `parts` as its own delta, `gap` apart.
    Paced { parts: Vec<String>, gap: Duration },
    /// Answers `status` with the OpenAI error shape (400s are not retried by the client).
    Fail { status: u16, message: String },
    /// Sends the headers, then nothing until the client hangs up.
    Hang,
}

impl Behavior {
    pub fn answer(text: &str) -> Behavior {
        Behavior::Answer {
            text: text.to_owned(),
            latency: Duration::ZERO,
            usage: (100, 50),
            finish: "stop",
        }
    }

    pub fn after(text: &str, latency: Duration) -> Behavior {
        Behavior::Answer {
            text: text.to_owned(),
            latency,
            usage: (100, 50),
            finish: "stop",
        }
    }

    pub fn fail(status: u16, message: &str) -> Behavior {
        Behavior::Fail {
            status,
            message: message.to_owned(),
        }
    }
}

/// One request as the model saw it.
#[derive(Debug, Clone)]
pub struct Asked {
    pub model: String,
    /// The last user message.
    pub prompt: String,
    pub system: Option<String>,
    pub max_tokens: Option<u64>,
}

/// Reads a chat-completions request.
pub fn asked(request: &Recorded) -> Asked {
    let body = request.json();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let text_of = |role: &str| {
        messages
            .iter()
            .rev()
            .find(|m| m["role"] == role)
            .and_then(|m| m["content"].as_str().map(str::to_owned))
    };
    Asked {
        model: body["model"].as_str().unwrap_or_default().to_owned(),
        prompt: text_of("user").unwrap_or_default(),
        system: text_of("system"),
        max_tokens: body["max_tokens"].as_u64(),
    }
}

fn reply(asked: &Asked, behavior: Behavior) -> Reply {
    match behavior {
        Behavior::Answer {
            text,
            latency,
            usage,
            finish,
        } => {
            let cut = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(text.len(), |(i, _)| i);
            let (head, tail) = text.split_at(cut);
            let events =
                wire::openai_stream_finishing(&asked.model, &[head, tail], Some(usage), finish);
            let mut chunks: Vec<(Duration, String)> =
                events.into_iter().map(|e| (Duration::ZERO, e)).collect();
            if let Some(first) = chunks.first_mut() {
                first.0 = latency;
            }
            Reply::sse_paced(chunks, End::Complete)
        }
        Behavior::Paced { parts, gap } => {
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            let events = wire::openai_stream_finishing(&asked.model, &parts, Some((9, 9)), "stop");
            Reply::sse_paced(
                events.into_iter().map(|e| (gap, e)).collect(),
                End::Complete,
            )
        }
        Behavior::Fail { status, message } => Reply::json(
            status,
            wire::openai_error(&message, "invalid_request_error", "bad"),
        ),
        Behavior::Hang => Reply::sse_paced(Vec::new(), End::Hang),
    }
}

/// A model server whose behavior per request is `choose(asked)`.
pub async fn model_server(
    choose: impl Fn(&Asked) -> Behavior + Send + Sync + 'static,
) -> TestServer {
    let choose = Arc::new(choose);
    TestServer::start_with(move |request| {
        let asked = asked(request);
        let behavior = choose(&asked);
        reply(&asked, behavior)
    })
    .await
}

/// How many requests' prompts contain `marker`.
pub fn count(server: &TestServer, marker: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| asked(r).prompt.contains(marker))
        .count()
}

/// Writes a setting into the database under `home` (open or not).
pub async fn set_setting(home: &Path, key: &str, value: &str) {
    std::fs::create_dir_all(home).expect("home");
    let store = Store::open(&home.join(DATABASE_FILE)).await.expect("store");
    store
        .set_setting(key, value, "2026-12-20T00:00:00Z")
        .await
        .expect("setting");
    store.close().await;
}

/// An engine on `home` (its own keychain service; nothing stored in it) with the keyless
/// provider `wtest` at `server`.
pub async fn engine(home: &Path, server: &TestServer) -> Arc<Engine> {
    let service = format!(
        "dev.switchyard.test.runs.{}.{}",
        std::process::id(),
        ENGINES.fetch_add(1, Ordering::Relaxed)
    );
    set_setting(home, "keychain.service", &service).await;
    let engine = reopen(home).await;
    if engine
        .list_providers()
        .await
        .expect("providers")
        .iter()
        .all(|p| p.id != "wtest")
    {
        engine
            .add_provider(AddProviderRequest {
                id: "wtest".into(),
                name: None,
                kind: ProviderKind::OpenaiCompatible,
                base_url: server.at("/v1"),
            })
            .await
            .expect("add provider");
    }
    engine
}

/// The engine on `home` as it is (the provider already added).
pub async fn reopen(home: &Path) -> Arc<Engine> {
    Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.to_path_buf()),
        })
        .await
        .expect("engine"),
    )
}

/// A request in `mode` for `task` with `models`.
pub fn request(mode: RunMode, task: &str, models: &[&str]) -> RunRequest {
    let mut request = RunRequest::new(task, mode);
    if !models.is_empty() {
        request.models = Some(models.iter().map(|m| (*m).to_owned()).collect());
    }
    request.launcher = "test".into();
    request
}

/// Waits for run `id` to stop being live, failing the test after `limit`.
pub async fn wait(engine: &Engine, id: &str, limit: Duration) -> RunDetail {
    tokio::time::timeout(limit, engine.wait_run(id))
        .await
        .expect("the run ended in time")
        .expect("wait")
}

/// Asserts `detail` ended in `state`.
pub fn assert_state(detail: &RunDetail, state: RunState) {
    assert_eq!(
        detail.summary.state,
        state,
        "{:#?}",
        detail
            .nodes
            .iter()
            .map(|n| (&n.id, n.state, &n.error))
            .collect::<Vec<_>>()
    );
}

/// Waits until `f` holds (polling), failing after `limit`.
pub async fn until(limit: Duration, mut f: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + limit;
    while !f() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "condition not met in time"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
