//! The classifier's model-assisted fallback through the engine, against the scripted
//! OpenAI-compatible server of the providers crate on 127.0.0.1: a low-confidence task is
//! asked once and the model's category is used (and cached, and routed with); with the
//! server down, the fallback off or a confident classification, the local answer stands.
//!
//! Local servers (Ollama, LM Studio) point at a closed port so a server running on the
//! machine never answers; keys go to a keychain service of each test's own (none stored).

#[path = "../../providers/tests/support/mod.rs"]
mod http;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use http::{wire, Reply, TestServer};
use serde_json::json;
use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AddProviderRequest, ProviderKind};
use switchyard_core::routing::{classify, ClassifierSettings, RouteTaskRequest};
use switchyard_engine::{Engine, EngineConfig};
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

/// A vague task the classifier is unsure of (checked in each test that relies on it).
const UNSURE_TASK: &str = "can you help me with this thing for tomorrow";
const THRESHOLD: f64 = 0.9;

async fn engine(home: &Path) -> Engine {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!(
        "dev.switchyard.test.assist.{}.{}",
        std::process::id(),
        ENGINES.fetch_add(1, Ordering::Relaxed)
    );
    store
        .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
        .await
        .expect("setting");
    store.close().await;
    let engine = Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine");
    let closed = refused_url();
    for local in ["ollama", "lmstudio"] {
        engine
            .set_provider_base_url(local, Some(&closed))
            .await
            .expect("local base URL");
    }
    engine
}

async fn with_provider(engine: &Engine, base_url: String) {
    engine
        .add_provider(AddProviderRequest {
            id: "assisttest".into(),
            name: None,
            kind: ProviderKind::OpenaiCompatible,
            base_url,
        })
        .await
        .expect("add provider");
}

async fn turn_on(engine: &Engine, model: &str) {
    let saved = engine
        .set_classifier_settings(ClassifierSettings {
            assist: true,
            threshold: THRESHOLD,
            model: Some(model.into()),
        })
        .await
        .expect("settings");
    assert!(saved.assist);
}

fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

fn category_reply(category: &str) -> Reply {
    let text = json!({ "category": category }).to_string();
    Reply::json(200, wire::openai_completion("tiny", &text, Some((120, 8))))
}

fn assert_unsure(task: &str) {
    let local = classify(task);
    assert!(
        local.confidence < THRESHOLD,
        "the test needs a task the classifier is unsure of: {task:?} is {} at {}",
        local.category.id(),
        local.confidence
    );
    assert_ne!(local.category, Category::Math, "the model must change it");
}

#[tokio::test]
async fn low_confidence_asks_the_model_once_and_its_category_is_used() {
    assert_unsure(UNSURE_TASK);
    let server = TestServer::start(vec![category_reply("math")]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    with_provider(&engine, server.at("/v1")).await;
    turn_on(&engine, "assisttest:tiny").await;

    let first = engine.classify_task(UNSURE_TASK).await.expect("classify");
    assert_eq!(first.category, Category::Math);
    let assist = first.assist.as_ref().expect("the model decided");
    assert_eq!(assist.model, "assisttest:tiny");
    assert!(!assist.cached);
    assert_eq!(assist.local_category, classify(UNSURE_TASK).category);

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one structured call");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let body = requests[0].json();
    assert_eq!(body["model"], "tiny");
    assert!(
        body.to_string().contains("can you help me with this thing"),
        "the task is sent"
    );
    assert!(
        body["response_format"].to_string().contains("fastCheap"),
        "the answer is constrained to the category ids: {}",
        body["response_format"]
    );

    let again = engine.classify_task(UNSURE_TASK).await.expect("classify");
    assert_eq!(again.category, Category::Math);
    assert!(again.assist.as_ref().is_some_and(|a| a.cached));
    let mut request = RouteTaskRequest::new(UNSURE_TASK);
    request.any_provider = true;
    let pick = engine.pick_model(request).await.expect("pick");
    assert_eq!(
        pick.classification.category,
        Category::Math,
        "routing uses the model's category"
    );
    assert_eq!(
        server.requests().len(),
        1,
        "answers are cached per task text"
    );
}

#[tokio::test]
async fn server_down_keeps_the_local_answer_without_waiting() {
    assert_unsure(UNSURE_TASK);
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    with_provider(&engine, refused_url()).await;
    turn_on(&engine, "assisttest:tiny").await;

    let started = Instant::now();
    let got = engine.classify_task(UNSURE_TASK).await.expect("classify");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a refused connection fails fast: {:?}",
        started.elapsed()
    );
    let local = classify(UNSURE_TASK);
    assert_eq!(got.category, local.category);
    assert_eq!(got.confidence, local.confidence);
    assert!(got.assist.is_none());

    let mut request = RouteTaskRequest::new(UNSURE_TASK);
    request.any_provider = true;
    let pick = engine
        .pick_model(request)
        .await
        .expect("routing still works");
    assert_eq!(pick.classification.category, local.category);
}

#[tokio::test]
async fn a_model_answer_that_is_not_a_category_keeps_the_local_answer() {
    assert_unsure(UNSURE_TASK);
    // The reply and the repair reply both name no known category.
    let server =
        TestServer::start(vec![category_reply("cooking"), category_reply("cooking")]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    with_provider(&engine, server.at("/v1")).await;
    turn_on(&engine, "assisttest:tiny").await;

    let got = engine.classify_task(UNSURE_TASK).await.expect("classify");
    assert_eq!(got.category, classify(UNSURE_TASK).category);
    assert!(got.assist.is_none());
}

#[tokio::test]
async fn confident_tasks_and_a_disabled_fallback_never_ask() {
    let server = TestServer::start(Vec::new()).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    with_provider(&engine, server.at("/v1")).await;

    let defaults = engine.classifier_settings().await.expect("settings");
    assert!(!defaults.assist, "off by default");
    let off = engine.classify_task(UNSURE_TASK).await.expect("classify");
    assert!(off.assist.is_none());

    turn_on(&engine, "assisttest:tiny").await;
    let sure = "Write a Python function that reverses a linked list";
    assert!(
        classify(sure).confidence >= THRESHOLD,
        "{sure:?} is confident"
    );
    let got = engine.classify_task(sure).await.expect("classify");
    assert_eq!(got.category, Category::Coding);
    assert!(got.assist.is_none());
    assert!(server.requests().is_empty(), "no call was made");
}

#[tokio::test]
async fn settings_round_trip_and_are_checked() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let saved = engine
        .set_classifier_settings(ClassifierSettings {
            assist: true,
            threshold: 0.45,
            model: Some("  ollama:qwen3 ".into()),
        })
        .await
        .expect("save");
    assert_eq!(saved.model.as_deref(), Some("ollama:qwen3"));
    assert_eq!(engine.classifier_settings().await.expect("read"), saved);
    let error = engine
        .set_classifier_settings(ClassifierSettings {
            threshold: 1.5,
            ..saved
        })
        .await
        .expect_err("out of range");
    assert_eq!(error.code(), ErrorCode::InvalidInput);
}
