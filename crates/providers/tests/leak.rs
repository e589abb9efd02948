//! The secret-leak test: a recognizable key goes through successes, errors, retries,
//! timeouts, stream errors, structured-output failures and Tests. Every log line (all targets,
//! TRACE level, reqwest and hyper included) and the `Display` and `Debug` of every error and
//! report are captured; the key's bytes must appear in none of them, even when the server
//! echoes the key back in its error messages.

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use support::{wire, End, Reply, TestServer};
use switchyard_keychain::Secret;
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ModelClient, OutputSchema, RetryPolicy, Target, Timeouts,
};
use switchyard_providers::probe::test_provider;
use switchyard_providers::registry::{builtin, normalize_base_url, Provider};

const KEY: &str = "sk-LEAKTEST-c0ffee7d2b9e41f8a35c60";

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn client() -> ModelClient {
    ModelClient::new(ClientConfig {
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            first_byte: Duration::from_millis(300),
            idle: Duration::from_secs(2),
            total: Duration::from_secs(10),
        },
        retry: RetryPolicy {
            base_delay: Duration::from_millis(10),
            ..RetryPolicy::default()
        },
        ..ClientConfig::default()
    })
    .expect("client")
}

fn echo_openai() -> Reply {
    Reply::json(
        401,
        wire::openai_error(
            &format!("Incorrect API key provided: {KEY}"),
            KEY,
            "invalid_api_key",
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_appears_in_no_log_error_or_report() {
    let logs = Capture::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let key = Secret::new(KEY);
    let mut seen: Vec<String> = Vec::new();
    let mut record = |what: String| seen.push(what);

    let server = TestServer::start(vec![
        // 1. retries then success
        Reply::json(429, r#"{"error":{"message":"slow down"}}"#).with_header("retry-after", "0"),
        Reply::json(
            500,
            format!(r#"{{"error":{{"message":"boom for {KEY}"}}}}"#),
        ),
        Reply::json(200, wire::openai_completion("m", "fine", Some((1, 1)))),
        // 2. wrong key, echoed back
        echo_openai(),
        // 3. Anthropic wrong key, echoed in message and type
        Reply::json(
            401,
            wire::anthropic_error(KEY, &format!("invalid x-api-key {KEY}")),
        ),
        // 4. error event in a stream, echoing the key
        Reply::sse(vec![wire::anthropic_error_event(
            "invalid_request_error",
            &format!("bad key {KEY}"),
        )]),
        // 5. malformed body containing the key
        Reply::json(200, format!("{{\"oops\": \"{KEY}")),
        // 6. first-byte timeout
        Reply::Hang,
        // 7. structured output that never validates (and echoes the key)
        Reply::json(
            200,
            wire::openai_completion("m", &format!("no json, {KEY}"), None),
        ),
        Reply::json(200, wire::openai_completion("m", "still none", None)),
        // 8. a stream cut after text
        Reply::sse_paced(
            wire::openai_stream("m", &["part"], None)[..2]
                .iter()
                .map(|e| (Duration::ZERO, e.clone()))
                .collect(),
            End::Abort,
        ),
        // 9. Test with the key echoed
        echo_openai(),
    ])
    .await;
    let openai = Target::openai(&server.url);
    let anthropic = Target::anthropic(&server.url);
    let request = ChatRequest::new("m", "hi");
    let client = client();

    let answer = client
        .chat(&openai, Some(&key), &request)
        .await
        .expect("retried to success");
    record(format!("{answer:?}"));
    for result in [
        client.chat(&openai, Some(&key), &request).await,
        client.chat(&anthropic, Some(&key), &request).await,
        client
            .chat_streaming(&anthropic, Some(&key), &request, &mut |e| record_event(&e))
            .await,
        client.chat(&openai, Some(&key), &request).await,
        client.chat(&openai, Some(&key), &request).await,
    ] {
        let err = result.expect_err("each of these fails");
        record(format!("{err} / {err:?}"));
    }
    let schema = OutputSchema::new("x", json!({"type": "object"}));
    let err = client
        .structured(&openai, Some(&key), &request, &schema)
        .await
        .expect_err("invalid");
    record(format!("{err} / {err:?}"));
    let err = client
        .chat_streaming(&openai, Some(&key), &request, &mut |e| record_event(&e))
        .await
        .expect_err("cut");
    record(format!("{err} / {err:?}"));
    let report = test_provider(
        &Provider::from_spec(builtin("openai").expect("openai"), Some(&server.url)),
        Some(&key),
    )
    .await;
    assert_eq!(report.http_status, Some(401));
    record(format!("{report:?}"));

    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        drop(listener);
        url
    };
    let err = client
        .chat(&Target::openai(&refused), Some(&key), &request)
        .await
        .expect_err("refused");
    record(format!("{err} / {err:?}"));
    let err = normalize_base_url(&format!("https://user:{KEY}@example.com/v1")).expect_err("creds");
    record(format!("{err} / {err:?}"));
    record(format!("{key:?} {key}"));

    // The key did go out, in headers, on every request.
    let requests = server.requests();
    assert!(requests.len() >= 12, "{}", requests.len());
    assert!(requests.iter().all(|r| {
        r.header("authorization") == Some(&format!("Bearer {KEY}"))
            || r.header("x-api-key") == Some(KEY)
    }));

    let logs = String::from_utf8(logs.0.lock().expect("logs").clone()).expect("utf-8 logs");
    assert!(
        logs.contains("retrying"),
        "the retries were logged:\n{logs}"
    );
    assert!(!logs.contains(KEY), "key in the logs:\n{logs}");
    for (i, text) in seen.iter().enumerate() {
        assert!(!text.contains(KEY), "key in output #{i}: {text}");
    }
    assert!(
        seen.iter().any(|t| t.contains("<redacted>")),
        "echoes were redacted: {seen:?}"
    );
}

fn record_event(event: &switchyard_providers::client::StreamEvent) {
    assert!(!format!("{event:?}").contains(KEY));
}
