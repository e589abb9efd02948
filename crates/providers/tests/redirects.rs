//! Keys stay on their origin: a server that redirects to another origin (a second server on
//! 127.0.0.1, another port) never sees the key — not `x-api-key`, not `Authorization`, not the
//! request at all — and the caller learns why. Redirects within the origin keep working.

mod support;

use support::{wire, Reply, TestServer};
use switchyard_core::catalog::record::SourceId;
use switchyard_keychain::Secret;
use switchyard_providers::client::{ChatRequest, ClientConfig, ClientError, ModelClient, Target};
use switchyard_providers::probe::test_provider;
use switchyard_providers::registry::{builtin, Provider};
use switchyard_providers::sources::{self, FetchError, SourceEndpoints};

fn client() -> ModelClient {
    ModelClient::new(ClientConfig::default()).expect("client")
}

fn key() -> Secret {
    Secret::new("sk-redirect-test-7777")
}

/// The server a redirect points to; it answers like the real API, so a followed redirect
/// would succeed.
async fn elsewhere(reply: Reply) -> TestServer {
    TestServer::start(vec![reply.clone(), reply]).await
}

fn assert_never_reached(other: &TestServer) {
    let seen = other.requests();
    assert!(
        seen.is_empty(),
        "the other origin received {} request(s), headers {:?}",
        seen.len(),
        seen.iter().map(|r| &r.headers).collect::<Vec<_>>()
    );
}

fn assert_refused(error: &ClientError, other: &TestServer) {
    match error {
        ClientError::Redirected { refused, .. } => assert_eq!(refused.to, other.url),
        other => panic!("expected a refused redirect, got {other:?}"),
    }
    let message = error.to_string();
    assert!(
        message.contains("keys are never sent to another origin"),
        "{message}"
    );
}

#[tokio::test]
async fn anthropic_x_api_key_is_not_sent_to_another_origin_on_redirect() {
    let other = elsewhere(Reply::json(
        200,
        wire::anthropic_message("claude-x", "stolen", (1, 1)),
    ))
    .await;
    let server = TestServer::start(vec![Reply::redirect(307, &other.at("/v1/messages"))]).await;
    let error = client()
        .chat(
            &Target::anthropic(&server.url),
            Some(&key()),
            &ChatRequest::new("claude-x", "hi"),
        )
        .await
        .expect_err("refused");
    assert_refused(&error, &other);
    assert_never_reached(&other);
    assert_eq!(
        server.requests().len(),
        1,
        "a refused redirect is not retried"
    );
}

#[tokio::test]
async fn openai_bearer_key_is_not_sent_to_another_origin_on_redirect() {
    let other = elsewhere(Reply::json(
        200,
        wire::openai_completion("m", "stolen", None),
    ))
    .await;
    let server = TestServer::start(vec![Reply::redirect(
        308,
        &other.at("/v1/chat/completions"),
    )])
    .await;
    let mut deltas = Vec::new();
    let error = client()
        .chat_streaming(
            &Target::openai(&server.at("/v1")),
            Some(&key()),
            &ChatRequest::new("m", "hi"),
            &mut |event| deltas.push(event),
        )
        .await
        .expect_err("refused");
    assert_refused(&error, &other);
    assert_never_reached(&other);
    assert!(deltas.is_empty());
}

#[tokio::test]
async fn redirect_within_the_origin_keeps_the_key() {
    let server = TestServer::start(vec![
        Reply::redirect(307, "/v2/chat/completions"),
        Reply::json(200, wire::openai_completion("m", "moved", None)),
    ])
    .await;
    let answer = client()
        .chat(
            &Target::openai(&server.at("/v1")),
            Some(&key()),
            &ChatRequest::new("m", "hi"),
        )
        .await
        .expect("followed");
    assert_eq!(answer.text, "moved");
    let requests = server.requests();
    assert_eq!(requests[1].path, "/v2/chat/completions");
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer sk-redirect-test-7777")
    );
}

#[tokio::test]
async fn provider_test_does_not_send_x_api_key_to_another_origin() {
    let other = elsewhere(Reply::json(200, wire::model_list(3))).await;
    let server = TestServer::start(vec![
        Reply::redirect(302, &other.at("/v1/models?limit=1000")),
        Reply::redirect(301, &other.at("/api/v2/data/llms/models")),
    ])
    .await;
    for (id, base) in [
        ("anthropic", server.url.clone()),
        ("artificialanalysis", server.at("/api/v2")),
    ] {
        let provider = Provider::from_spec(builtin(id).expect(id), Some(&base));
        let report = test_provider(&provider, Some(&key())).await;
        assert!(!report.ok, "{id}: {report:?}");
        let error = report.error.expect("error");
        assert!(
            error.contains(&format!(
                "the server redirected to {}; keys are never sent to another origin",
                other.url
            )),
            "{id}: {error}"
        );
    }
    assert_never_reached(&other);
}

#[tokio::test]
async fn artificial_analysis_source_key_is_not_sent_to_another_origin() {
    let other = elsewhere(Reply::json(200, r#"{"status":200,"data":[]}"#)).await;
    let server = TestServer::start(vec![Reply::redirect(
        302,
        &other.at("/api/v2/data/llms/models"),
    )])
    .await;
    let endpoints = SourceEndpoints {
        artificial_analysis: server.at("/api/v2/data/llms/models"),
        ..SourceEndpoints::default()
    };
    let client = sources::http_client().expect("client");
    let error = sources::fetch(
        &client,
        &endpoints,
        SourceId::ArtificialAnalysis,
        Some(&key()),
    )
    .await
    .expect_err("refused");
    match &error {
        FetchError::Redirected { refused, .. } => assert_eq!(refused.to, other.url),
        other => panic!("expected a refused redirect, got {other:?}"),
    }
    assert!(!error.to_string().contains("sk-redirect"), "{error}");
    assert_never_reached(&other);
}

#[tokio::test]
async fn keyless_source_still_follows_a_redirect_to_another_origin() {
    let other = elsewhere(Reply::json(200, r#"{"data":[]}"#)).await;
    let server = TestServer::start(vec![Reply::redirect(302, &other.at("/models"))]).await;
    let endpoints = SourceEndpoints {
        openrouter: server.at("/api/v1/models"),
        ..SourceEndpoints::default()
    };
    let client = sources::http_client().expect("client");
    let fetched = sources::fetch(&client, &endpoints, SourceId::OpenRouter, None)
        .await
        .expect("followed");
    assert_eq!(fetched.bytes, br#"{"data":[]}"#);
    assert_eq!(other.requests().len(), 1);
}
