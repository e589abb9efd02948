//! Retries, `Retry-After`, timeouts and cancellation, timed against the scripted server.

mod support;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use support::{wire, End, Reply, TestServer};
use switchyard_providers::client::{
    CancellationToken, ChatRequest, ClientConfig, ClientError, ModelClient, RetryPolicy,
    StreamEvent, Target, TimeoutPhase, Timeouts,
};
use switchyard_providers::http::MAX_RETRY_AFTER;

fn config(max_retries: u32) -> ClientConfig {
    ClientConfig {
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            first_byte: Duration::from_secs(5),
            idle: Duration::from_secs(5),
            total: Duration::from_secs(20),
        },
        retry: RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(60),
        },
        ..ClientConfig::default()
    }
}

fn client(config: ClientConfig) -> ModelClient {
    ModelClient::new(config).expect("client")
}

fn ok_reply() -> Reply {
    Reply::json(200, wire::openai_completion("m", "done", Some((1, 1))))
}

fn rate_limited(retry_after: &str) -> Reply {
    Reply::json(
        429,
        wire::openai_error("Rate limit reached", "requests", "rate_limit_exceeded"),
    )
    .with_header("retry-after", retry_after)
}

fn gap(server: &TestServer, a: usize, b: usize) -> Duration {
    let requests = server.requests();
    requests[b].at - requests[a].at
}

fn request() -> ChatRequest {
    ChatRequest::new("m", "hi")
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after_seconds() {
    let server = TestServer::start(vec![rate_limited("1"), ok_reply()]).await;
    let answer = client(config(3))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect("second attempt succeeds");
    assert_eq!((answer.text.as_str(), answer.attempts), ("done", 2));
    let waited = gap(&server, 0, 1);
    assert!(
        waited >= Duration::from_millis(950),
        "retried after {waited:?}, before Retry-After"
    );
    assert!(
        waited < Duration::from_millis(1600),
        "waited {waited:?}, far longer than asked"
    );
}

#[tokio::test]
async fn retry_after_http_date_is_honoured() {
    let at = chrono::Utc::now() + chrono::Duration::seconds(2);
    let date = at.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    let server = TestServer::start(vec![
        Reply::json(503, r#"{"error":{"message":"busy"}}"#).with_header("retry-after", &date),
        ok_reply(),
    ])
    .await;
    let answer = client(config(3))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect("ok");
    assert_eq!(answer.attempts, 2);
    // HTTP dates have whole seconds: the wait is between one and two seconds.
    let waited = gap(&server, 0, 1);
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(waited <= Duration::from_millis(2500), "{waited:?}");
}

#[tokio::test]
async fn server_error_then_success_backs_off() {
    let server = TestServer::start(vec![
        Reply::json(500, r#"{"error":{"message":"internal"}}"#),
        Reply::json(502, "<html>Bad Gateway</html>"),
        ok_reply(),
    ])
    .await;
    let answer = client(config(3))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect("ok");
    assert_eq!(answer.attempts, 3);
    // Equal jitter: the first wait is in [50, 100] ms, the second in [100, 200] ms.
    assert!(
        gap(&server, 0, 1) >= Duration::from_millis(45),
        "{:?}",
        gap(&server, 0, 1)
    );
    assert!(
        gap(&server, 1, 2) >= Duration::from_millis(95),
        "{:?}",
        gap(&server, 1, 2)
    );
}

#[tokio::test]
async fn retries_are_bounded_and_the_last_error_returned() {
    let busy = || {
        Reply::json(503, r#"{"error":{"message":"still busy"}}"#).with_header("retry-after", "0")
    };
    let server = TestServer::start(vec![busy(), busy(), busy(), busy()]).await;
    let err = client(config(2))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect_err("gives up");
    assert_eq!(err.status(), Some(503));
    assert!(err.to_string().starts_with("still busy"), "{err}");
    assert_eq!(server.requests().len(), 3, "one attempt plus two retries");
    assert_eq!(server.unused_replies(), 1);
}

#[tokio::test]
async fn retry_after_beyond_the_cap_fails_at_once() {
    let server = TestServer::start(vec![rate_limited("3600"), ok_reply()]).await;
    let started = Instant::now();
    let err = client(config(3))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect_err("429");
    assert!(started.elapsed() < Duration::from_secs(1));
    match err {
        ClientError::Status {
            status: 429,
            retry_after,
            message,
            ..
        } => {
            assert_eq!(retry_after, Some(Duration::from_secs(3600)));
            assert_eq!(message, "Rate limit reached");
        }
        other => panic!("expected 429, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retry_after_1e20_does_not_crash_the_client() {
    // `Duration::from_secs_f64(1e20)` panics; every value here once reached it or could.
    for value in [
        "1e20",
        "1e300",
        "99999999999999999999999",
        "18446744073709551616.0",
    ] {
        let server = TestServer::start(vec![rate_limited(value), ok_reply()]).await;
        let err = client(config(3))
            .chat(&Target::openai(&server.url), None, &request())
            .await
            .expect_err("too long to wait");
        match err {
            ClientError::Status {
                status: 429,
                retry_after,
                ..
            } => assert_eq!(retry_after, Some(MAX_RETRY_AFTER), "{value}"),
            other => panic!("{value}: expected 429, got {other:?}"),
        }
        assert_eq!(server.requests().len(), 1, "{value}");
    }
    // Nonsense is ignored: the usual backoff applies and the retry succeeds.
    for value in ["NaN", "inf", "-1", "-1e20"] {
        let server = TestServer::start(vec![rate_limited(value), ok_reply()]).await;
        let answer = client(config(3))
            .chat(&Target::openai(&server.url), None, &request())
            .await
            .expect("retried with backoff");
        assert_eq!(answer.attempts, 2, "{value}");
    }
}

#[tokio::test]
async fn a_wait_past_the_total_deadline_is_not_started() {
    let server = TestServer::start(vec![rate_limited("2"), ok_reply()]).await;
    let mut config = config(3);
    config.timeouts.total = Duration::from_secs(1);
    let started = Instant::now();
    let err = client(config)
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect_err("429");
    assert_eq!(err.status(), Some(429));
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn connection_failures_are_retried_then_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    let started = Instant::now();
    let err = client(config(2))
        .chat(&Target::openai(&url), None, &request())
        .await
        .expect_err("refused");
    assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    assert!(err.to_string().contains(&url), "{err}");
    // Two backoff waits: at least 50 ms + 100 ms.
    assert!(
        started.elapsed() >= Duration::from_millis(145),
        "{:?}",
        started.elapsed()
    );

    let server = TestServer::start(vec![Reply::Drop, ok_reply()]).await;
    let answer = client(config(2))
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect("ok");
    assert_eq!(answer.attempts, 2);
}

#[tokio::test]
async fn first_byte_timeout_is_reported_and_not_retried() {
    let server = TestServer::start(vec![Reply::Hang, ok_reply()]).await;
    let mut config = config(3);
    config.timeouts.first_byte = Duration::from_millis(300);
    let started = Instant::now();
    let err = client(config)
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect_err("timeout");
    assert_eq!(
        err,
        ClientError::Timeout {
            url: format!("{}/chat/completions", server.url),
            phase: TimeoutPhase::FirstByte,
            after: Duration::from_millis(300),
        }
    );
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(290) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    assert_eq!(server.requests().len(), 1);
    assert!(
        server.wait_for_hangup(Duration::from_secs(2)).await,
        "connection left open"
    );
}

#[tokio::test]
async fn idle_and_total_timeouts() {
    let first = wire::openai_stream("m", &["slow"], None)[..2].to_vec();
    let server = TestServer::start(vec![Reply::sse_paced(
        first.into_iter().map(|e| (Duration::ZERO, e)).collect(),
        End::Hang,
    )])
    .await;
    let mut config = config(0);
    config.timeouts.idle = Duration::from_millis(300);
    let mut deltas = Vec::new();
    let err = client(config)
        .chat_streaming(&Target::openai(&server.url), None, &request(), &mut |e| {
            deltas.push(e)
        })
        .await
        .expect_err("idle");
    assert!(
        matches!(
            err,
            ClientError::Timeout {
                phase: TimeoutPhase::Idle,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(deltas, [StreamEvent::Delta("slow".into())]);

    let server = TestServer::start(vec![Reply::Hang]).await;
    let mut config = self::config(0);
    config.timeouts.total = Duration::from_millis(400);
    let started = Instant::now();
    let err = client(config)
        .chat(&Target::openai(&server.url), None, &request())
        .await
        .expect_err("total");
    assert!(
        matches!(
            err,
            ClientError::Timeout {
                phase: TimeoutPhase::Total,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn cancel_token_stops_a_stream_and_closes_the_connection() {
    let first = wire::openai_stream("m", &["first"], None)[..2].to_vec();
    let server = TestServer::start(vec![Reply::sse_paced(
        first.into_iter().map(|e| (Duration::ZERO, e)).collect(),
        End::Hang,
    )])
    .await;
    let token = CancellationToken::new();
    let mut request = request();
    request.cancel = Some(token.clone());
    let started = Instant::now();
    let mut seen = Vec::new();
    let err = client(config(3))
        .chat_streaming(&Target::openai(&server.url), None, &request, &mut |event| {
            seen.push(event);
            token.cancel();
        })
        .await
        .expect_err("canceled");
    assert_eq!(err, ClientError::Canceled);
    assert_eq!(seen, [StreamEvent::Delta("first".into())]);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(
        server.wait_for_hangup(Duration::from_secs(2)).await,
        "connection left open"
    );
}

#[tokio::test]
async fn cancel_token_interrupts_a_retry_wait() {
    let server = TestServer::start(vec![rate_limited("10"), ok_reply()]).await;
    let token = CancellationToken::new();
    let mut request = request();
    request.cancel = Some(token.clone());
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        canceller.cancel();
    });
    let started = Instant::now();
    let err = client(config(3))
        .chat(&Target::openai(&server.url), None, &request)
        .await
        .expect_err("canceled");
    assert_eq!(err, ClientError::Canceled);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn chat_stream_yields_deltas_then_done() {
    let server = TestServer::start(vec![Reply::sse(wire::openai_stream(
        "m",
        &["a", "b"],
        Some((2, 2)),
    ))])
    .await;
    let stream = client(config(0)).stream(Target::openai(&server.url), None, request());
    let events: Vec<_> = stream.collect().await;
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0], Ok(StreamEvent::Delta("a".into())));
    assert_eq!(events[1], Ok(StreamEvent::Delta("b".into())));
    match &events[2] {
        Ok(StreamEvent::Done(answer)) => assert_eq!(answer.text, "ab"),
        other => panic!("expected Done, got {other:?}"),
    }
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_call() {
    let first = wire::openai_stream("m", &["first"], None)[..2].to_vec();
    let server = TestServer::start(vec![Reply::sse_paced(
        first.into_iter().map(|e| (Duration::ZERO, e)).collect(),
        End::Hang,
    )])
    .await;
    let mut stream = client(config(0)).stream(Target::openai(&server.url), None, request());
    assert_eq!(
        stream.next().await,
        Some(Ok(StreamEvent::Delta("first".into())))
    );
    drop(stream);
    assert!(
        server.wait_for_hangup(Duration::from_secs(2)).await,
        "connection left open"
    );
}
