//! The client against an OpenAI-compatible server speaking the real wire format.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{wire, End, Reply, TestServer};
use switchyard_core::catalog::card::Pricing;
use switchyard_keychain::Secret;
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, RetryPolicy, StreamEvent, Target, Timeouts,
};

fn client() -> ModelClient {
    ModelClient::new(ClientConfig {
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            first_byte: Duration::from_secs(5),
            idle: Duration::from_secs(5),
            total: Duration::from_secs(20),
        },
        retry: RetryPolicy {
            base_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        },
        ..ClientConfig::default()
    })
    .expect("client")
}

fn target(server: &TestServer) -> Target {
    Target::openai(&server.at("/v1"))
}

fn key() -> Secret {
    Secret::new("sk-test-openai-0001")
}

fn priced(model: &str, prompt: &str) -> ChatRequest {
    let mut request = ChatRequest::new(model, prompt);
    request.pricing = Some(Pricing {
        prompt_per_m: Some(1.0),
        completion_per_m: Some(2.0),
    });
    request
}

/// Collects streamed deltas.
fn collector(deltas: &mut Vec<String>) -> impl FnMut(StreamEvent) + Send + '_ {
    move |event| match event {
        StreamEvent::Delta(text) => deltas.push(text),
        other => panic!("unexpected event {other:?}"),
    }
}

#[tokio::test]
async fn non_streaming_answer_with_usage_and_cost() {
    let server = TestServer::start(vec![Reply::json(
        200,
        wire::openai_completion("gpt-4o-mini-2024-07-18", "Hello there.", Some((1000, 500))),
    )])
    .await;
    let mut request = priced("gpt-4o-mini", "Say hello");
    request.system = Some("Be brief.".into());
    request.max_tokens = Some(64);
    let answer = client()
        .chat(&target(&server), Some(&key()), &request)
        .await
        .expect("answer");

    assert_eq!(answer.text, "Hello there.");
    assert_eq!(answer.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(answer.finish_reason.as_deref(), Some("stop"));
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (1000, 500)
    );
    assert!(!answer.usage.estimated);
    let cost = answer.cost.expect("priced");
    assert!((cost.usd - 0.002).abs() < 1e-12, "{cost:?}");
    assert_eq!(answer.attempts, 1);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        sent.header("authorization"),
        Some("Bearer sk-test-openai-0001")
    );
    let body = sent.json();
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}])
    );
    assert!(body.get("stream").is_none());
}

#[tokio::test]
async fn streaming_delivers_deltas_in_order_and_usage_from_the_last_chunk() {
    let events = wire::openai_stream("gpt-4o-mini", &["Hel", "lo", ", wörld"], Some((12, 4)));
    let server = TestServer::start(vec![Reply::sse(events)]).await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &target(&server),
            Some(&key()),
            &priced("gpt-4o-mini", "hi"),
            &mut collector(&mut deltas),
        )
        .await
        .expect("answer");
    assert_eq!(deltas, ["Hel", "lo", ", wörld"]);
    assert_eq!(answer.text, "Hello, wörld");
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.output_tokens,
            answer.usage.estimated
        ),
        (12, 4, false)
    );
    let body = server.requests()[0].json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        server.requests()[0].header("accept"),
        Some("text/event-stream")
    );
}

#[tokio::test]
async fn missing_usage_is_estimated_and_flagged() {
    let server = TestServer::start(vec![
        Reply::json(200, wire::openai_completion("m", "abcdefgh", None)),
        Reply::sse(wire::openai_stream("m", &["abcd", "efgh"], None)),
    ])
    .await;
    let request = priced("m", "0123456789ab");
    let answer = client()
        .chat(&target(&server), None, &request)
        .await
        .expect("answer");
    assert!(answer.usage.estimated);
    // 13 prompt characters ("\n" + 12) → 4 tokens; 8 answer characters → 2 tokens.
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (4, 2)
    );
    assert!(answer.cost.expect("priced").estimated);

    let mut deltas = Vec::new();
    let streamed = client()
        .chat_streaming(
            &target(&server),
            None,
            &request,
            &mut collector(&mut deltas),
        )
        .await
        .expect("answer");
    assert!(streamed.usage.estimated);
    assert_eq!(streamed.usage.output_tokens, 2);
    assert!(
        server.requests()[0].header("authorization").is_none(),
        "no key, no header"
    );
}

#[tokio::test]
async fn malformed_json_is_reported_and_not_retried() {
    let server = TestServer::start(vec![Reply::json(200, r#"{"id":"x","choices":[{"mess"#)]).await;
    let err = client()
        .chat(&target(&server), None, &priced("m", "hi"))
        .await
        .expect_err("malformed");
    assert!(matches!(err, ClientError::Malformed { .. }), "{err:?}");
    assert!(err.to_string().contains("not JSON"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn truncated_stream_after_text_fails_without_retry() {
    let mut events = wire::openai_stream("m", &["The answer ", "is"], Some((5, 5)));
    events.truncate(3); // role chunk + two deltas; no finish, no usage, no [DONE]
    let chunks = events.into_iter().map(|e| (Duration::ZERO, e)).collect();
    let server = TestServer::start(vec![
        Reply::sse_paced(chunks, End::Abort),
        Reply::sse(wire::openai_stream("m", &["never used"], None)),
    ])
    .await;
    let mut deltas = Vec::new();
    let err = client()
        .chat_streaming(
            &target(&server),
            None,
            &priced("m", "hi"),
            &mut collector(&mut deltas),
        )
        .await
        .expect_err("truncated");
    assert_eq!(deltas, ["The answer ", "is"]);
    match &err {
        ClientError::Interrupted {
            delivered_chars, ..
        } => assert_eq!(*delivered_chars, 13),
        other => panic!("expected Interrupted, got {other:?}"),
    }
    assert_eq!(
        server.requests().len(),
        1,
        "a stream that delivered text is not retried"
    );
}

#[tokio::test]
async fn stream_cut_before_any_text_is_retried() {
    let first = wire::openai_stream("m", &[], None)[..1].to_vec(); // role chunk only
    let server = TestServer::start(vec![
        Reply::sse_paced(
            first.into_iter().map(|e| (Duration::ZERO, e)).collect(),
            End::Complete,
        ),
        Reply::sse(wire::openai_stream("m", &["ok"], Some((1, 1)))),
    ])
    .await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &target(&server),
            None,
            &priced("m", "hi"),
            &mut collector(&mut deltas),
        )
        .await
        .expect("second attempt");
    assert_eq!((answer.text.as_str(), answer.attempts), ("ok", 2));
    assert_eq!(deltas, ["ok"]);
}

#[tokio::test]
async fn partial_stream_is_retried_only_when_allowed_and_announced() {
    let mut cut = wire::openai_stream("m", &["par", "tial"], None);
    cut.truncate(2);
    let script = || {
        vec![
            Reply::sse_paced(
                cut.iter().map(|e| (Duration::ZERO, e.clone())).collect(),
                End::Abort,
            ),
            Reply::sse(wire::openai_stream("m", &["full ", "answer"], Some((3, 2)))),
        ]
    };
    let server = TestServer::start(script()).await;
    let mut request = priced("m", "hi");
    request.retry_after_partial = true;
    let mut events = Vec::new();
    let answer = client()
        .chat_streaming(&target(&server), None, &request, &mut |e| events.push(e))
        .await
        .expect("retried");
    assert_eq!(answer.text, "full answer");
    assert_eq!(events[0], StreamEvent::Delta("par".into()));
    assert!(
        matches!(&events[1], StreamEvent::Restarted { attempt: 2, .. }),
        "{events:?}"
    );
    assert_eq!(
        events[2..],
        [
            StreamEvent::Delta("full ".into()),
            StreamEvent::Delta("answer".into())
        ]
    );
}

#[tokio::test]
async fn wrong_key_surfaces_the_providers_message_at_once() {
    let body = wire::openai_error(
        "Incorrect API key provided: sk-test-****0001. You can find your API key at https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key",
    );
    let server = TestServer::start(vec![Reply::json(401, body)]).await;
    let err = client()
        .chat(&target(&server), Some(&key()), &priced("m", "hi"))
        .await
        .expect_err("401");
    assert!(err.is_auth());
    match &err {
        ClientError::Status {
            status,
            message,
            kind,
            ..
        } => {
            assert_eq!(*status, 401);
            assert!(
                message.starts_with("Incorrect API key provided"),
                "{message}"
            );
            assert_eq!(kind.as_deref(), Some("invalid_request_error"));
        }
        other => panic!("expected Status, got {other:?}"),
    }
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    assert_eq!(server.requests().len(), 1, "4xx is not retried");
}

#[tokio::test]
async fn error_object_inside_a_stream_is_the_providers_message() {
    let mut events = wire::openai_stream("m", &[], None)[..1].to_vec();
    events.push(format!(
        "data: {}\n\n",
        json!({"error": {"message": "Context length exceeded", "code": 400}})
    ));
    let server = TestServer::start(vec![Reply::sse(events)]).await;
    let mut deltas = Vec::new();
    let err = client()
        .chat_streaming(
            &target(&server),
            None,
            &priced("m", "hi"),
            &mut collector(&mut deltas),
        )
        .await
        .expect_err("stream error");
    match err {
        ClientError::StreamError { message, kind, .. } => {
            assert_eq!(message, "Context length exceeded");
            assert_eq!(kind.as_deref(), Some("400"));
        }
        other => panic!("expected StreamError, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn server_ignoring_stream_true_still_streams_its_answer() {
    let server = TestServer::start(vec![Reply::json(
        200,
        wire::openai_completion("m", "whole", Some((1, 1))),
    )])
    .await;
    let mut deltas = Vec::new();
    let answer = client()
        .chat_streaming(
            &target(&server),
            None,
            &priced("m", "hi"),
            &mut collector(&mut deltas),
        )
        .await
        .expect("answer");
    assert_eq!(deltas, ["whole"]);
    assert_eq!(answer.text, "whole");
}
