//! Provider keys, provider settings and `ask` through the engine, with a tempdir home, the
//! scripted HTTP server of the providers crate and, where available, the real keychain.
//!
//! Keychain tests need a Secret Service (run under `dbus-run-session` with
//! `gnome-keyring-daemon --unlock`); without a session bus they are skipped with a note unless
//! `SWITCHYARD_REQUIRE_KEYCHAIN` is set. Keys go under a per-test keychain service.

#[path = "../../providers/tests/support/mod.rs"]
mod http;

mod leak_scan;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use http::{wire, Reply, TestServer};
use switchyard_core::catalog::card::Pricing;
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{
    AddProviderRequest, AskRequest, KeySource, KeyStatus, ProviderKind,
};
use switchyard_engine::{Engine, EngineConfig, EngineError, InvalidKey, ProviderKey};
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

/// An engine on a fresh home whose keys go to a keychain service of its own.
async fn engine(home: &Path) -> Engine {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!(
        "dev.switchyard.test.engine.{}.{}",
        std::process::id(),
        ENGINES.fetch_add(1, Ordering::Relaxed)
    );
    store
        .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
        .await
        .expect("setting");
    store.close().await;
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
    );
    eprintln!("note: no D-Bus session bus; skipping a real keychain test");
    false
}

fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

fn ask(model: &str) -> AskRequest {
    AskRequest {
        model: model.into(),
        prompt: "Say hi".into(),
        system: None,
        max_tokens: None,
        pricing: None,
    }
}

fn custom(id: &str, kind: ProviderKind, base_url: &str) -> AddProviderRequest {
    AddProviderRequest {
        id: id.into(),
        name: None,
        kind,
        base_url: base_url.into(),
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test]
async fn providers_are_listed_with_urls_kinds_and_local_reachability() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    let tags = r#"{"models":[{"name":"llama3.2:3b"},{"name":"qwen3:8b"},{"name":"phi4"}]}"#;
    // One answer for the status `set_provider_base_url` returns, one for the list.
    let ollama = TestServer::start(vec![Reply::json(200, tags), Reply::json(200, tags)]).await;
    engine
        .set_provider_base_url("ollama", Some(&ollama.at("/v1")))
        .await
        .expect("ollama url");
    engine
        .set_provider_base_url("lmstudio", Some(&refused_url()))
        .await
        .expect("lmstudio url");

    let list = engine.list_providers().await.expect("list");
    let ids: Vec<&str> = list.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "openrouter",
            "openai",
            "anthropic",
            "gemini",
            "deepseek",
            "ollama",
            "lmstudio",
            "artificialanalysis"
        ]
    );
    let by_id = |id: &str| list.iter().find(|p| p.id == id).expect(id);
    let ollama_row = by_id("ollama");
    assert_eq!(ollama_row.key, KeyStatus::NotNeeded);
    let local = ollama_row.local.as_ref().expect("probed");
    assert!(local.reachable && local.model_count == Some(3), "{local:?}");
    let lmstudio = by_id("lmstudio").local.as_ref().expect("probed");
    assert!(
        !lmstudio.reachable && lmstudio.error.is_some(),
        "{lmstudio:?}"
    );
    let anthropic = by_id("anthropic");
    assert_eq!(anthropic.kind, ProviderKind::Anthropic);
    assert_eq!(anthropic.base_url, "https://api.anthropic.com");
    assert_eq!(anthropic.env_var.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_ne!(anthropic.key, KeyStatus::NotNeeded);
    assert!(anthropic.local.is_none());
    assert_eq!(by_id("artificialanalysis").kind, ProviderKind::DataSource);
    engine.close().await;
}

#[tokio::test]
async fn base_urls_and_custom_providers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;

    let status = engine
        .set_provider_base_url("openai", Some(" http://127.0.0.1:9/v1/ "))
        .await
        .expect("set");
    assert_eq!(status.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(
        status.default_base_url.as_deref(),
        Some("https://api.openai.com/v1")
    );
    let status = engine
        .set_provider_base_url("openai", None)
        .await
        .expect("reset");
    assert_eq!(status.base_url, "https://api.openai.com/v1");
    let err = engine
        .set_provider_base_url("openai", Some("ftp://x"))
        .await
        .expect_err("bad url");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let err = engine
        .set_provider_base_url("nope", Some("http://h"))
        .await
        .expect_err("unknown");
    assert_eq!(err.code(), ErrorCode::NotFound);

    let added = engine
        .add_provider(AddProviderRequest {
            name: Some("My vLLM".into()),
            ..custom(
                "my-vllm",
                ProviderKind::OpenaiCompatible,
                "http://127.0.0.1:8000/v1/",
            )
        })
        .await
        .expect("add");
    assert!(added.custom);
    assert_eq!(
        (added.name.as_str(), added.base_url.as_str()),
        ("My vLLM", "http://127.0.0.1:8000/v1")
    );
    assert_eq!(added.default_base_url, None);

    for (request, why) in [
        (
            custom("my-vllm", ProviderKind::OpenaiCompatible, "http://h"),
            "taken",
        ),
        (
            custom("openai", ProviderKind::OpenaiCompatible, "http://h"),
            "built in",
        ),
        (
            custom("Bad Id", ProviderKind::OpenaiCompatible, "http://h"),
            "bad id",
        ),
        (custom("lab", ProviderKind::Local, "http://h"), "local kind"),
        (
            custom("lab", ProviderKind::Anthropic, "http://user:pw@h"),
            "credentials in url",
        ),
    ] {
        let err = engine.add_provider(request).await.expect_err(why);
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{why}: {err}");
    }
    let err = engine
        .set_provider_base_url("my-vllm", None)
        .await
        .expect_err("custom needs url");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let moved = engine
        .set_provider_base_url("my-vllm", Some("http://127.0.0.1:8001/v1"))
        .await
        .expect("move");
    assert_eq!(moved.base_url, "http://127.0.0.1:8001/v1");

    let list = engine.list_providers().await.expect("list");
    assert_eq!(list.last().map(|p| p.id.as_str()), Some("my-vllm"));
    assert_eq!(
        engine
            .remove_provider("openai")
            .await
            .expect_err("built in")
            .code(),
        ErrorCode::InvalidInput
    );
    engine.remove_provider("my-vllm").await.expect("remove");
    assert_eq!(
        engine
            .provider_status("my-vllm")
            .await
            .expect_err("gone")
            .code(),
        ErrorCode::NotFound
    );
    engine.close().await;
}

#[tokio::test]
async fn ask_streams_from_a_local_server_for_free() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    let server = TestServer::start(vec![
        // Probed by the status `set_provider_base_url` returns.
        Reply::json(200, r#"{"models":[{"name":"llama3.2:3b"}]}"#),
        Reply::sse(wire::openai_stream(
            "llama3.2:3b",
            &["Hi", " there", "!"],
            Some((7, 3)),
        )),
    ])
    .await;
    engine
        .set_provider_base_url("ollama", Some(&server.at("/v1")))
        .await
        .expect("url");
    let mut streamed = String::new();
    let answer = engine
        .ask(ask("local/ollama/llama3.2:3b"), None, |delta| {
            streamed.push_str(delta)
        })
        .await
        .expect("answer");
    assert_eq!(streamed, "Hi there!");
    assert_eq!(answer.text, "Hi there!");
    assert_eq!(
        (answer.provider_id.as_str(), answer.provider_model.as_str()),
        ("ollama", "llama3.2:3b")
    );
    assert_eq!(answer.key_source, None);
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (7, 3)
    );
    assert_eq!(answer.cost.map(|c| c.usd), Some(0.0));
    let sent = &server.requests()[1];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.json()["model"], "llama3.2:3b");
    assert!(sent.header("authorization").is_none());
    engine.close().await;
}

#[tokio::test]
async fn custom_provider_errors_are_the_providers_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    let body = wire::anthropic_error("authentication_error", "invalid x-api-key");
    let server =
        TestServer::start(vec![Reply::json(401, body.clone()), Reply::json(401, body)]).await;
    engine
        .add_provider(custom("proxy", ProviderKind::Anthropic, &server.url))
        .await
        .expect("add");

    let err = engine
        .ask(ask("proxy:claude-x"), None, |_| {})
        .await
        .expect_err("401");
    assert_eq!(err.code(), ErrorCode::Provider);
    assert!(
        err.to_string()
            .starts_with("proxy: invalid x-api-key (HTTP 401"),
        "{err}"
    );
    assert!(matches!(&err, EngineError::Provider { source, .. } if source.is_auth()));

    let report = engine.test_provider("proxy").await.expect("report");
    assert!(!report.ok);
    assert_eq!(
        (report.http_status, report.error.as_deref()),
        (Some(401), Some("invalid x-api-key"))
    );
    assert_eq!(report.key_source, None);
    assert_eq!(server.requests()[1].path, "/v1/models?limit=1000");

    let mut empty = ask("proxy:claude-x");
    empty.prompt = " ".into();
    assert_eq!(
        engine
            .ask(empty, None, |_| {})
            .await
            .expect_err("empty")
            .code(),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        engine
            .ask(ask("gpt-4o"), None, |_| {})
            .await
            .expect_err("ambiguous")
            .code(),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        engine
            .ask(ask("local/nope/x"), None, |_| {})
            .await
            .expect_err("unknown")
            .code(),
        ErrorCode::NotFound
    );
    engine.close().await;
}

#[tokio::test]
async fn a_missing_key_says_how_to_add_one() {
    if ["DEEPSEEK_API_KEY", "OPENROUTER_API_KEY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        eprintln!("note: a provider key is set in the environment; skipping");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    // Safety net: nothing here may reach a real provider.
    for id in ["deepseek", "openrouter"] {
        engine
            .set_provider_base_url(id, Some(&refused_url()))
            .await
            .expect("url");
    }
    let bus =
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() || cfg!(not(target_os = "linux"));

    let explicit = engine
        .ask(ask("deepseek:deepseek-chat"), None, |_| {})
        .await
        .expect_err("no key");
    let routed = engine
        .ask(ask("deepseek/deepseek-chat"), None, |_| {})
        .await
        .expect_err("no key");
    let tested = engine.test_provider("deepseek").await.expect_err("no key");
    if bus {
        assert_eq!(explicit.code(), ErrorCode::MissingCredential);
        let message = explicit.to_string();
        assert!(
            message.contains("switchyard keys set deepseek"),
            "{message}"
        );
        assert!(message.contains("DEEPSEEK_API_KEY"), "{message}");
        assert_eq!(routed.code(), ErrorCode::MissingCredential);
        assert_eq!(
            routed.to_string(),
            "no key for deepseek/deepseek-chat: add one for deepseek or openrouter"
        );
        assert_eq!(tested.code(), ErrorCode::MissingCredential);
    } else {
        for err in [&explicit, &routed, &tested] {
            assert_eq!(err.code(), ErrorCode::Keychain, "{err}");
            assert!(
                err.to_string().starts_with("no keychain available"),
                "{err}"
            );
        }
        let status = engine.provider_status("deepseek").await.expect("status");
        assert!(
            matches!(status.key, KeyStatus::Unavailable { .. }),
            "{:?}",
            status.key
        );
    }
    engine.close().await;
}

#[tokio::test]
async fn keys_round_trip_through_the_real_keychain() {
    if !keychain_present() {
        return;
    }
    const KEY: &str = "sk-engine-ROUNDTRIP-4e1d9f8e";
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    let server = TestServer::start(vec![
        Reply::json(200, wire::model_list(2)),
        Reply::sse(wire::openai_stream(
            "gpt-4o-mini",
            &["direct"],
            Some((3, 1)),
        )),
    ])
    .await;
    engine
        .set_provider_base_url("openai", Some(&server.at("/v1")))
        .await
        .expect("url");

    let status = engine
        .set_key(
            "openai",
            ProviderKey::parse(format!("{KEY}\n")).expect("key"),
        )
        .await
        .expect("set");
    let origin = server.url.clone();
    assert_eq!(
        status.key,
        KeyStatus::Stored {
            last4: "9f8e".into(),
            origin: origin.clone()
        }
    );
    let listed = engine.list_providers().await.expect("list");
    let openai = listed.iter().find(|p| p.id == "openai").expect("openai");
    assert_eq!(
        openai.key,
        KeyStatus::Stored {
            last4: "9f8e".into(),
            origin
        }
    );

    let report = engine.test_provider("openai").await.expect("test");
    assert!(report.ok, "{report:?}");
    assert_eq!(
        (report.model_count, report.key_source),
        (Some(2), Some(KeySource::Keychain))
    );

    // The vendor's own key routes the catalog id to the vendor, not OpenRouter.
    let mut request = ask("openai/gpt-4o-mini");
    request.max_tokens = Some(32);
    request.pricing = Some(Pricing {
        prompt_per_m: Some(0.15),
        completion_per_m: Some(0.6),
    });
    let answer = engine.ask(request, None, |_| {}).await.expect("answer");
    assert_eq!(
        (answer.provider_id.as_str(), answer.provider_model.as_str()),
        ("openai", "gpt-4o-mini")
    );
    assert_eq!(answer.key_source, Some(KeySource::Keychain));
    assert!(answer.cost.is_some_and(|c| c.usd > 0.0));
    let requests = server.requests();
    assert!(requests
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))));
    assert_eq!(requests[1].json()["max_completion_tokens"], 32);

    assert_eq!(
        engine
            .set_key("ollama", ProviderKey::parse("x").expect("key"))
            .await
            .expect_err("local")
            .code(),
        ErrorCode::InvalidInput
    );
    assert_eq!(ProviderKey::parse(" \n"), Err(InvalidKey::Empty));
    assert_eq!(
        EngineError::from(InvalidKey::Empty).code(),
        ErrorCode::InvalidInput
    );
    assert!(engine.delete_key("openai").await.expect("delete"));
    assert!(!engine.delete_key("openai").await.expect("delete again"));
    if std::env::var_os("OPENAI_API_KEY").is_none() {
        assert_eq!(
            engine.provider_status("openai").await.expect("status").key,
            KeyStatus::Missing
        );
    }
    engine.close().await;
    assert!(
        !contains(&leak_scan::all_bytes(dir.path()), KEY),
        "the key reached the data directory"
    );
}
