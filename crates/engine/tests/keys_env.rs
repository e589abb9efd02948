//! Headless use: a provider key from its environment variable, honoured at call time and shown
//! as "from environment", and the engine-level secret-leak check.
//!
//! This file holds exactly one test because it sets a process environment variable, which it
//! does before any runtime or other thread exists.

#[path = "../../providers/tests/support/mod.rs"]
mod http;
mod support;

mod leak_scan;

use http::{wire, Reply, TestServer};
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AskRequest, KeySource, KeyStatus};

const KEY: &str = "sk-ENVLEAK-5a5a5a5a-d00d77aa";

#[test]
fn environment_key_is_used_reported_and_never_stored() {
    support::with_env_var("DEEPSEEK_API_KEY", KEY, run);
}

async fn run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = support::engine_with_own_keychain(dir.path(), "env").await;

    let echo = wire::key_echo_error(KEY);
    let server = TestServer::start(vec![
        Reply::json(200, wire::model_list(2)),
        Reply::sse(wire::openai_stream(
            "deepseek-chat",
            &["from ", "env"],
            Some((4, 2)),
        )),
        Reply::json(401, echo.clone()),
        Reply::json(401, echo),
    ])
    .await;
    engine
        .set_provider_base_url("deepseek", Some(&server.url))
        .await
        .expect("url");

    let status = engine.provider_status("deepseek").await.expect("status");
    assert_eq!(
        status.key,
        KeyStatus::Environment {
            variable: "DEEPSEEK_API_KEY".into(),
            last4: "77aa".into()
        }
    );
    let report = engine.test_provider("deepseek").await.expect("test");
    assert!(report.ok, "{report:?}");
    assert_eq!(report.key_source, Some(KeySource::Environment));

    let request = AskRequest {
        model: "deepseek/deepseek-chat".into(),
        prompt: "hi".into(),
        system: None,
        max_tokens: None,
        pricing: None,
    };
    let mut streamed = String::new();
    let answer = engine
        .ask(request.clone(), None, |delta| streamed.push_str(delta))
        .await
        .expect("ask");
    assert_eq!(
        (streamed.as_str(), answer.provider_id.as_str()),
        ("from env", "deepseek")
    );
    assert_eq!(answer.provider_model, "deepseek-chat");
    assert_eq!(answer.key_source, Some(KeySource::Environment));
    // No pricing given: the catalog's prices for the model, over the provider's token counts.
    let prices = engine
        .model("deepseek/deepseek-chat")
        .await
        .expect("in the catalog")
        .pricing;
    let cost = answer.cost.expect("a cost from the catalog prices");
    let expected = (4.0 * prices.prompt_per_m.expect("input price")
        + 2.0 * prices.completion_per_m.expect("output price"))
        / 1e6;
    assert!(
        (cost.usd - expected).abs() < 1e-12,
        "{cost:?} vs {expected}"
    );
    assert!(!cost.estimated, "the provider reported the tokens");

    let mut outputs = vec![
        format!("{status:?}"),
        format!("{report:?}"),
        format!("{answer:?}"),
    ];
    let err = engine
        .ask(request.clone(), None, |_| {})
        .await
        .expect_err("401");
    assert_eq!(err.code(), ErrorCode::Provider);
    assert!(err.to_string().contains("Authentication Fails"), "{err}");
    outputs.push(format!("{err} / {err:?}"));
    let report = engine.test_provider("deepseek").await.expect("report");
    assert_eq!(report.http_status, Some(401));
    outputs.push(format!("{report:?}"));

    // The rule for environment keys: the built-in default origin or loopback only. Pointed at
    // another https host (`.invalid` never resolves), the variable is not sent and says why.
    let elsewhere = "https://deepseek-proxy.invalid/v1";
    let status = engine
        .set_provider_base_url("deepseek", Some(elsewhere))
        .await
        .expect("url");
    let bus =
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() || cfg!(not(target_os = "linux"));
    if bus {
        assert_eq!(
            status.key,
            KeyStatus::OriginMismatch {
                last4: "77aa".into(),
                origin: "https://api.deepseek.com".into(),
                target_origin: "https://deepseek-proxy.invalid".into(),
                variable: Some("DEEPSEEK_API_KEY".into())
            }
        );
    }
    outputs.push(format!("{status:?}"));
    for err in [
        engine
            .test_provider("deepseek")
            .await
            .expect_err("withheld"),
        engine
            .ask(request.clone(), None, |_| {})
            .await
            .expect_err("withheld"),
    ] {
        // Without a keychain the keychain's own error comes first (it might hold a key for
        // the new origin); either way nothing is sent.
        let expected = if bus {
            ErrorCode::KeyOriginMismatch
        } else {
            ErrorCode::Keychain
        };
        assert_eq!(err.code(), expected, "{err}");
        if bus {
            assert!(
                err.to_string()
                    .contains("DEEPSEEK_API_KEY is only sent to https://api.deepseek.com"),
                "{err}"
            );
        }
        outputs.push(format!("{err} / {err:?}"));
    }

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))));
    for output in &outputs {
        assert!(!output.contains(KEY), "key in {output}");
    }
    engine.close().await;
    let bytes = leak_scan::all_bytes(dir.path());
    assert!(
        !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
        "key in the data directory"
    );
}
