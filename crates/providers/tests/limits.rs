//! Bounded reads: a 127.0.0.1 server that streams without end — a body, an SSE line, an SSE
//! answer — or announces an absurd length or row count gets a clear error at the cap, never
//! an unbounded buffer. The tests assert the error, not timing.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{Reply, TestServer};
use switchyard_core::catalog::record::SourceId;
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, ResponseLimits, ResponsePart, Target,
    Timeouts,
};
use switchyard_providers::local::{self, LocalError, LocalServer};
use switchyard_providers::probe::{test_provider, MAX_TEST_BODY};
use switchyard_providers::registry::{builtin, Provider};
use switchyard_providers::sources::{self, FetchError, SourceEndpoints, HF_CONCURRENCY, MAX_BODY};

const LIMITS: ResponseLimits = ResponseLimits {
    max_event_bytes: 64 * 1024,
    max_answer_bytes: 256 * 1024,
};

fn client() -> ModelClient {
    ModelClient::new(ClientConfig {
        timeouts: Timeouts {
            // Far beyond what reaching a cap takes: an unbounded read would end in a
            // timeout instead of the size error.
            total: Duration::from_secs(60),
            ..Timeouts::default()
        },
        limits: LIMITS,
        ..ClientConfig::default()
    })
    .expect("client")
}

fn too_large(error: &ClientError) -> (ResponsePart, usize) {
    match error {
        ClientError::TooLarge { part, limit, .. } => (*part, *limit),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

async fn stream(server: &TestServer) -> Result<(), ClientError> {
    let mut received = 0usize;
    client()
        .chat_streaming(
            &Target::openai(&server.at("/v1")),
            None,
            &ChatRequest::new("m", "hi"),
            &mut |_| received += 1,
        )
        .await
        .map(|_| ())
}

#[tokio::test]
async fn endless_sse_line_fails_at_the_line_cap() {
    let server = TestServer::start(vec![Reply::endless_sse_line()]).await;
    let error = stream(&server).await.expect_err("too large");
    assert_eq!(
        too_large(&error),
        (ResponsePart::Line, LIMITS.max_event_bytes)
    );
    assert!(error.to_string().contains("a stream line"), "{error}");
    assert_eq!(server.requests().len(), 1, "not retried");
    assert!(server.wait_for_hangup(Duration::from_secs(5)).await);
}

#[tokio::test]
async fn endless_sse_event_fails_at_the_event_cap() {
    let server = TestServer::start(vec![Reply::Endless {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunk: format!("data: {}\n", "y".repeat(1000)),
        announce: None,
    }])
    .await;
    let error = stream(&server).await.expect_err("too large");
    assert_eq!(
        too_large(&error),
        (ResponsePart::Event, LIMITS.max_event_bytes)
    );
}

#[tokio::test]
async fn endless_sse_answer_fails_at_the_answer_cap() {
    let chunk = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "z".repeat(4000)}, "finish_reason": null}]
    });
    let server = TestServer::start(vec![Reply::Endless {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunk: format!("data: {chunk}\n\n"),
        announce: None,
    }])
    .await;
    let error = stream(&server).await.expect_err("too large");
    assert_eq!(
        too_large(&error),
        (ResponsePart::Answer, LIMITS.max_answer_bytes)
    );
}

#[tokio::test]
async fn endless_answer_body_fails_at_the_body_cap() {
    let server = TestServer::start(vec![Reply::endless_json()]).await;
    let error = client()
        .chat(
            &Target::openai(&server.at("/v1")),
            None,
            &ChatRequest::new("m", "hi"),
        )
        .await
        .expect_err("too large");
    assert_eq!(
        too_large(&error),
        (ResponsePart::Body, LIMITS.max_answer_bytes)
    );
}

#[tokio::test]
async fn announced_answer_length_over_the_cap_fails_before_reading() {
    let server = TestServer::start(vec![Reply::Endless {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunk: "{".into(),
        announce: Some(1 << 40),
    }])
    .await;
    let error = client()
        .chat(
            &Target::openai(&server.at("/v1")),
            None,
            &ChatRequest::new("m", "hi"),
        )
        .await
        .expect_err("too large");
    assert_eq!(
        too_large(&error),
        (ResponsePart::Body, LIMITS.max_answer_bytes)
    );
}

#[tokio::test]
async fn endless_provider_test_body_fails_at_the_cap() {
    let server = TestServer::start(vec![Reply::endless_json()]).await;
    let provider = Provider::custom(
        "lab",
        "Lab",
        switchyard_core::providers::ProviderKind::OpenaiCompatible,
        &server.at("/v1"),
    );
    let report = test_provider(&provider, None).await;
    assert!(!report.ok);
    assert_eq!(report.http_status, Some(200));
    assert_eq!(
        report.error,
        Some(format!(
            "the answer from {}/v1/models is larger than {MAX_TEST_BODY} bytes",
            server.url
        ))
    );
}

#[tokio::test]
async fn endless_catalog_source_body_fails_at_the_cap() {
    let server = TestServer::start(vec![Reply::endless_json()]).await;
    let endpoints = SourceEndpoints {
        openrouter: server.at("/api/v1/models"),
        ..SourceEndpoints::default()
    };
    let client = sources::http_client().expect("client");
    let error = sources::fetch(&client, &endpoints, SourceId::OpenRouter, None)
        .await
        .expect_err("too large");
    assert_eq!(
        error,
        FetchError::TooLarge {
            url: endpoints.openrouter.clone(),
            limit: MAX_BODY
        }
    );
}

#[tokio::test]
async fn announced_source_length_over_the_cap_fails_before_reading() {
    let server = TestServer::start(vec![Reply::Endless {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunk: " ".into(),
        announce: Some(1 << 40),
    }])
    .await;
    let endpoints = SourceEndpoints {
        lmarena: server.at("/leaderboard.json"),
        ..SourceEndpoints::default()
    };
    let client = sources::http_client().expect("client");
    let error = sources::fetch(&client, &endpoints, SourceId::LmArena, None)
        .await
        .expect_err("too large");
    assert!(
        matches!(
            error,
            FetchError::TooLarge {
                limit: MAX_BODY,
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn endless_local_model_list_fails_at_the_cap() {
    let server = TestServer::start(vec![Reply::endless_json()]).await;
    let error = local::list_models(LocalServer::LmStudio, &server.at("/v1"))
        .await
        .expect_err("too large");
    assert!(
        matches!(
            error,
            LocalError::TooLarge {
                limit: local::MAX_LIST_BODY,
                ..
            }
        ),
        "{error}"
    );
    // The Keys page's Test of a local server is the same probe.
    let server = TestServer::start(vec![Reply::endless_json()]).await;
    let provider = Provider::from_spec(builtin("lmstudio").expect("lmstudio"), Some(&server.url));
    let report = test_provider(&provider, None).await;
    assert_eq!(
        report.error,
        Some(format!(
            "{}/v1/models answered with more than {} bytes",
            server.url,
            local::MAX_LIST_BODY
        ))
    );
}

fn rows_page(rows: usize, num_rows_total: u64) -> Reply {
    let rows: Vec<_> = (0..rows)
        .map(|i| json!({"row_idx": i, "row": {"fullname": format!("org/model-{i}")}, "truncated_cells": []}))
        .collect();
    Reply::json(
        200,
        json!({"features": [], "rows": rows, "num_rows_total": num_rows_total, "num_rows_per_page": 100, "partial": false}),
    )
}

#[tokio::test]
async fn huge_num_rows_total_does_not_abort_and_paging_stops_at_an_empty_page() {
    let mut script = vec![rows_page(2, u64::MAX)];
    script.extend((0..2 * HF_CONCURRENCY).map(|_| rows_page(0, u64::MAX)));
    let server = TestServer::start(script).await;
    let endpoints = SourceEndpoints {
        hf_rows: server
            .at("/rows?dataset=open-llm-leaderboard%2Fcontents&config=default&split=train"),
        ..SourceEndpoints::default()
    };
    let client = sources::http_client().expect("client");
    let fetched = sources::fetch(&client, &endpoints, SourceId::HfLeaderboard, None)
        .await
        .expect("fetched");
    let doc: serde_json::Value = serde_json::from_slice(&fetched.bytes).expect("json");
    assert_eq!(doc["rows"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc["num_rows_total"], 2);
    let requested = server.requests().len();
    assert!(
        requested <= 2 + HF_CONCURRENCY,
        "{requested} requests for a split that ended on page 2"
    );
}
