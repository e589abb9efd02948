//! "Test" against the scripted server: model counts, provider messages, per-kind endpoints.

mod support;

use support::{wire, Reply, TestServer};
use switchyard_core::providers::ProviderKind;
use switchyard_keychain::Secret;
use switchyard_providers::probe::test_provider;
use switchyard_providers::registry::{builtin, Provider};

fn provider(id: &str, base_url: &str) -> Provider {
    Provider::from_spec(builtin(id).expect("built-in"), Some(base_url))
}

#[tokio::test]
async fn openai_compatible_list_reports_count_and_latency() {
    let server = TestServer::start(vec![Reply::json(200, wire::model_list(3))]).await;
    let key = Secret::new("sk-probe-openai-1111");
    let report = test_provider(&provider("openai", &server.at("/v1")), Some(&key)).await;
    assert!(report.ok, "{report:?}");
    assert_eq!(
        (report.model_count, report.http_status, report.error),
        (Some(3), Some(200), None)
    );
    assert_eq!(report.url, format!("{}/v1/models", server.url));
    assert!(report.latency_ms < 5_000);
    let sent = &server.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        sent.header("authorization"),
        Some("Bearer sk-probe-openai-1111")
    );
}

#[tokio::test]
async fn wrong_key_shows_the_providers_own_message() {
    let body = wire::openai_error(
        "Incorrect API key provided.",
        "invalid_request_error",
        "invalid_api_key",
    );
    let server = TestServer::start(vec![Reply::json(401, body)]).await;
    let key = Secret::new("sk-wrong");
    let report = test_provider(&provider("deepseek", &server.url), Some(&key)).await;
    assert!(!report.ok);
    assert_eq!(report.http_status, Some(401));
    assert_eq!(report.error.as_deref(), Some("Incorrect API key provided."));
    assert_eq!(report.model_count, None);
}

#[tokio::test]
async fn openrouter_checks_the_key_before_the_public_list() {
    let server = TestServer::start(vec![
        Reply::json(401, r#"{"error":{"message":"User not found.","code":401}}"#),
        Reply::json(200, wire::model_list(5)),
    ])
    .await;
    let key = Secret::new("sk-or-v1-bad");
    let report = test_provider(&provider("openrouter", &server.at("/api/v1")), Some(&key)).await;
    assert!(!report.ok);
    assert_eq!(report.error.as_deref(), Some("User not found."));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.requests()[0].path, "/api/v1/key");

    let server = TestServer::start(vec![
        Reply::json(
            200,
            r#"{"data":{"label":"sk-or-v1-abc...xyz","usage":0,"limit":null}}"#,
        ),
        Reply::json(200, wire::model_list(5)),
    ])
    .await;
    let report = test_provider(&provider("openrouter", &server.at("/api/v1")), Some(&key)).await;
    assert!(report.ok, "{report:?}");
    assert_eq!(report.model_count, Some(5));
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/api/v1/key", "/api/v1/models"]);
}

#[tokio::test]
async fn anthropic_data_source_and_local_endpoints() {
    let server = TestServer::start(vec![
        Reply::json(
            200,
            r#"{"data":[{"type":"model","id":"claude-sonnet-4-5"}],"has_more":false}"#,
        ),
        Reply::json(200, r#"{"status":200,"data":[{"id":"a"},{"id":"b"}]}"#),
        Reply::json(
            200,
            r#"{"models":[{"name":"llama3.2:3b"},{"name":"qwen3:8b"}]}"#,
        ),
    ])
    .await;
    let key = Secret::new("sk-probe-2222");
    let report = test_provider(&provider("anthropic", &server.url), Some(&key)).await;
    assert_eq!(report.model_count, Some(1), "{report:?}");
    let report = test_provider(
        &provider("artificialanalysis", &server.at("/api/v2")),
        Some(&key),
    )
    .await;
    assert_eq!(report.model_count, Some(2), "{report:?}");
    let report = test_provider(&provider("ollama", &server.at("/v1")), None).await;
    assert_eq!(report.model_count, Some(2), "{report:?}");

    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/models?limit=1000");
    assert_eq!(requests[0].header("x-api-key"), Some("sk-probe-2222"));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[1].path, "/api/v2/data/llms/models");
    assert_eq!(requests[1].header("x-api-key"), Some("sk-probe-2222"));
    assert_eq!(requests[2].path, "/api/tags");
    assert!(requests[2].header("authorization").is_none());
}

#[tokio::test]
async fn unreachable_and_non_list_answers_are_explained() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    let custom = Provider::custom("mine", "Mine", ProviderKind::OpenaiCompatible, &url);
    let report = test_provider(&custom, None).await;
    assert!(!report.ok);
    assert_eq!(report.http_status, None);
    let error = report.error.expect("error");
    assert!(
        error.starts_with(&format!("could not reach {url}/models")),
        "{error}"
    );

    let server = TestServer::start(vec![Reply::text(200, "<html>hello</html>")]).await;
    let custom = Provider::custom("mine", "Mine", ProviderKind::OpenaiCompatible, &server.url);
    let report = test_provider(&custom, None).await;
    assert_eq!(
        report.error.as_deref(),
        Some("the answer is not a model list")
    );
}

#[tokio::test]
async fn local_server_test_is_the_same_probe_as_its_reachability() {
    // LM Studio configured at its root (no `/v1`): the Test once asked `/models`, while the
    // provider list asked `/v1/models`, and the two disagreed about the same server.
    let list = r#"{"object":"list","data":[{"id":"qwen2.5-7b-instruct","object":"model"}]}"#;
    let server = TestServer::start(vec![Reply::json(200, list), Reply::json(200, list)]).await;
    let lmstudio = provider("lmstudio", &server.url);
    let report = test_provider(&lmstudio, None).await;
    let names = switchyard_providers::local::list_models(
        lmstudio.local_server().expect("local"),
        &lmstudio.base_url,
    )
    .await
    .expect("listed");
    assert!(report.ok, "{report:?}");
    assert_eq!(report.model_count, Some(names.len() as u32));
    assert_eq!(report.url, format!("{}/v1/models", server.url));
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models", "/v1/models"]);

    // A server that is not there reads the same in both.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    let ollama = provider("ollama", &format!("{url}/v1"));
    let report = test_provider(&ollama, None).await;
    let error = switchyard_providers::local::list_models(
        ollama.local_server().expect("local"),
        &ollama.base_url,
    )
    .await
    .expect_err("refused");
    assert_eq!(report.error, Some(error.to_string()));
    assert_eq!(report.url, format!("{url}/api/tags"));
}
