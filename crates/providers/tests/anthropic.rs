//! The client against a server speaking Anthropic's Messages API wire format.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{wire, End, Reply, TestServer};
use switchyard_core::catalog::card::Pricing;
use switchyard_keychain::Secret;
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, RetryPolicy, StreamEvent, Target,
};

fn client() -> ModelClient {
    let retry = RetryPolicy {
        base_delay: Duration::from_millis(20),
        ..RetryPolicy::default()
    };
    ModelClient::new(ClientConfig {
        retry,
        ..ClientConfig::default()
    })
    .expect("client")
}

fn key() -> Secret {
    Secret::new("sk-ant-test-0002")
}

fn request() -> ChatRequest {
    let mut request = ChatRequest::new("claude-sonnet-4-5", "Say hi");
    request.system = Some("Be brief.".into());
    request.pricing = Some(Pricing {
        prompt_per_m: Some(3.0),
        completion_per_m: Some(15.0),
    });
    request
}

fn deltas_into(deltas: &mut Vec<String>) -> impl FnMut(StreamEvent) + Send + '_ {
    move |event| match event {
        StreamEvent::Delta(text) => deltas.push(text),
        other => panic!("unexpected event {other:?}"),
    }
}

#[tokio::test]
async fn non_streaming_message_with_headers_usage_and_cost() {
    let server = TestServer::start(vec![Reply::json(
        200,
        wire::anthropic_message("claude-sonnet-4-5-20250929", "Hi!", (2000, 1000)),
    )])
    .await;
    let target = Target::anthropic(&server.url);
    let answer = client()
        .chat(&target, Some(&key()), &request())
        .await
        .expect("answer");
    assert_eq!(answer.text, "Hi!");
    assert_eq!(answer.finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (2000, 1000)
    );
    let cost = answer.cost.expect("priced");
    assert!((cost.usd - 0.021).abs() < 1e-12, "{cost:?}");

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("sk-ant-test-0002"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert!(sent.header("authorization").is_none());
    let body = sent.json();
    assert_eq!(body["system"], "Be brief.");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "Say hi"}])
    );
}

#[tokio::test]
async fn streaming_events_and_usage_from_message_start_and_delta() {
    let events = wire::anthropic_stream(
        "claude-sonnet-4-5",
        &["Hello", " from", " Claude"],
        Some((25, 15)),
    );
    let server = TestServer::start(vec![Reply::sse(events)]).await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &Target::anthropic(&server.url),
            Some(&key()),
            &request(),
            &mut deltas_into(&mut deltas),
        )
        .await
        .expect("answer");
    assert_eq!(deltas, ["Hello", " from", " Claude"]);
    assert_eq!(answer.text, "Hello from Claude");
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.output_tokens,
            answer.usage.estimated
        ),
        (25, 15, false)
    );
    assert_eq!(answer.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(server.requests()[0].json()["stream"], true);
}

#[tokio::test]
async fn stream_without_usage_is_estimated() {
    let server = TestServer::start(vec![Reply::sse(wire::anthropic_stream(
        "c",
        &["abcdefgh"],
        None,
    ))])
    .await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &Target::anthropic(&server.url),
            None,
            &request(),
            &mut deltas_into(&mut deltas),
        )
        .await
        .expect("answer");
    assert!(answer.usage.estimated);
    assert_eq!(answer.usage.output_tokens, 2);
}

#[tokio::test]
async fn overloaded_error_event_before_text_is_retried() {
    let mut broken = wire::anthropic_stream("c", &[], None)[..1].to_vec();
    broken.push(wire::anthropic_error_event(
        "overloaded_error",
        "Overloaded",
    ));
    let server = TestServer::start(vec![
        Reply::sse(broken),
        Reply::sse(wire::anthropic_stream("c", &["fine"], Some((1, 1)))),
    ])
    .await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &Target::anthropic(&server.url),
            None,
            &request(),
            &mut deltas_into(&mut deltas),
        )
        .await
        .expect("retried");
    assert_eq!((answer.text.as_str(), answer.attempts), ("fine", 2));
}

#[tokio::test]
async fn invalid_request_error_event_is_final() {
    let mut broken = wire::anthropic_stream("c", &["par"], None)[..4].to_vec();
    broken.push(wire::anthropic_error_event(
        "invalid_request_error",
        "prompt is too long",
    ));
    let server = TestServer::start(vec![Reply::sse(broken)]).await;
    let mut deltas = Vec::new();
    let err = client()
        .chat_streaming(
            &Target::anthropic(&server.url),
            None,
            &request(),
            &mut deltas_into(&mut deltas),
        )
        .await
        .expect_err("error event");
    assert_eq!(
        err,
        ClientError::StreamError {
            url: format!("{}/v1/messages", server.url),
            message: "prompt is too long".into(),
            kind: Some("invalid_request_error".into()),
        }
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn wrong_key_surfaces_anthropics_message() {
    let server = TestServer::start(vec![Reply::json(
        401,
        wire::anthropic_error("authentication_error", "invalid x-api-key"),
    )])
    .await;
    let err = client()
        .chat(&Target::anthropic(&server.url), Some(&key()), &request())
        .await
        .expect_err("401");
    assert!(err.is_auth());
    assert_eq!(
        err.to_string(),
        format!(
            "invalid x-api-key (HTTP 401 from {}/v1/messages)",
            server.url
        )
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn truncated_stream_is_interrupted() {
    let events = wire::anthropic_stream("c", &["Hello", " there"], Some((3, 3)));
    let cut: Vec<_> = events[..5]
        .iter()
        .map(|e| (Duration::ZERO, e.clone()))
        .collect();
    let server = TestServer::start(vec![Reply::sse_paced(cut, End::Complete)]).await;
    let mut deltas = Vec::new();
    let err = client()
        .chat_streaming(
            &Target::anthropic(&server.url),
            None,
            &request(),
            &mut deltas_into(&mut deltas),
        )
        .await
        .expect_err("no message_stop");
    assert_eq!(deltas, ["Hello", " there"]);
    match err {
        ClientError::Interrupted {
            delivered_chars,
            detail,
            ..
        } => {
            assert_eq!(delivered_chars, 11);
            assert!(detail.contains("message_stop"), "{detail}");
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
}
