//! The model planner through the engine, against the scripted OpenAI-compatible server of the
//! providers crate on 127.0.0.1: a valid answer becomes the plan; schema-invalid, non-JSON
//! and semantically invalid answers fall back to the deterministic planner with a warning
//! naming the problem; with no usable model the deterministic planner plans, saying so.
//!
//! Local servers (Ollama, LM Studio) are pointed at a closed port or at the test server so a
//! server running on the machine never answers; keys go to a keychain service of each test's
//! own (none are stored).

#[path = "../../providers/tests/support/mod.rs"]
mod http;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use http::{wire, Reply, TestServer};
use serde_json::json;
use switchyard_core::providers::{AddProviderRequest, ProviderKind};
use switchyard_core::routing::plan::{Plan, PlanMode, PlanOrigin};
use switchyard_core::routing::{BudgetTier, PlanTaskRequest};
use switchyard_engine::{Engine, EngineConfig};
use switchyard_store::{Store, DATABASE_FILE};

static ENGINES: AtomicU32 = AtomicU32::new(0);

const KEY_VARS: [&str; 5] = [
    "OPENROUTER_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "DEEPSEEK_API_KEY",
];

const TASK: &str = "Design the database schema, then build the REST API, then write the docs";

/// An engine on a fresh home with a keychain service of its own and the local servers
/// pointed at `local` (a closed port unless a test serves one).
async fn engine(home: &Path, ollama: Option<&str>) -> Engine {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!(
        "dev.switchyard.test.planner.{}.{}",
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
    engine
        .set_provider_base_url("ollama", Some(ollama.unwrap_or(&closed)))
        .await
        .expect("ollama base URL");
    engine
        .set_provider_base_url("lmstudio", Some(&closed))
        .await
        .expect("lmstudio base URL");
    engine
}

/// Adds the keyless custom provider `plantest` at `server`.
async fn with_test_provider(engine: &Engine, server: &TestServer) {
    engine
        .add_provider(AddProviderRequest {
            id: "plantest".into(),
            name: None,
            kind: ProviderKind::OpenaiCompatible,
            base_url: server.at("/v1"),
        })
        .await
        .expect("add provider");
}

fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

fn completion(text: &str) -> Reply {
    Reply::json(200, wire::openai_completion("tiny", text, Some((300, 120))))
}

fn request(task: &str, mode: PlanMode) -> PlanTaskRequest {
    PlanTaskRequest {
        task: task.into(),
        mode,
        budget: BudgetTier::Medium,
        max_price: None,
        any_provider: false,
        use_model_planner: false,
        planner_model: None,
    }
}

/// `request` with the model planner asked for, and `model` named (or chosen by the engine).
fn with_model_planner(request: PlanTaskRequest, model: Option<String>) -> PlanTaskRequest {
    PlanTaskRequest {
        use_model_planner: true,
        planner_model: model,
        ..request
    }
}

fn model_swarm() -> serde_json::Value {
    json!({
        "mode": "swarm",
        "steps": [
            {"id": "schema", "task": "Design the database schema", "category": "reasoning",
             "budget": "medium", "dependsOn": []},
            {"id": "api", "task": "Build the REST API on the schema", "category": "coding",
             "budget": "medium", "dependsOn": ["schema"]},
            {"id": "ui", "task": "Build the settings screen", "category": "coding",
             "budget": "low", "dependsOn": ["schema"]},
            {"id": "docs", "task": "Write the API docs", "category": "creative",
             "budget": "low", "dependsOn": ["api"]}
        ]
    })
}

fn step_ids(plan: &Plan) -> Vec<&str> {
    plan.steps().iter().map(|s| s.id.as_str()).collect()
}

#[tokio::test]
async fn valid_answer_becomes_the_plan() {
    let server = TestServer::start(vec![completion(&model_swarm().to_string())]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    with_test_provider(&engine, &server).await;

    let plan = engine
        .plan_task(with_model_planner(
            request(TASK, PlanMode::Swarm),
            Some("plantest:tiny".into()),
        ))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Model);
    assert_eq!(plan.mode(), PlanMode::Swarm);
    assert_eq!(step_ids(&plan), ["schema", "api", "ui", "docs"]);
    assert_eq!(
        plan.warnings().first().map(String::as_str),
        Some("planned by the model planner (plantest:tiny)")
    );
    let edges: Vec<(&str, &str)> = plan
        .edges()
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    assert_eq!(
        edges,
        [("schema", "api"), ("schema", "ui"), ("api", "docs")]
    );
    // api and ui both wait only for the schema: they share a wave.
    let waves: Vec<Vec<&str>> = plan
        .waves()
        .iter()
        .map(|w| w.iter().map(|s| s.id.as_str()).collect())
        .collect();
    assert_eq!(waves, [vec!["schema"], vec!["api", "ui"], vec!["docs"]]);

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one call, no repair");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let body = requests[0].json();
    assert_eq!(body["model"], "tiny");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["title"],
        "SwitchyardPlan"
    );
    let sent = body["messages"].to_string();
    assert!(sent.contains(TASK), "the task is sent: {sent}");
    assert!(sent.contains("swarm"), "the mode is sent: {sent}");
}

#[tokio::test]
async fn schema_invalid_answer_falls_back_naming_the_problem() {
    let mut bad = model_swarm();
    bad["steps"][1]["budget"] = json!("cheap");
    let server = TestServer::start(vec![
        completion(&bad.to_string()),
        completion(&bad.to_string()),
    ])
    .await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    with_test_provider(&engine, &server).await;

    let plan = engine
        .plan_task(with_model_planner(
            request(TASK, PlanMode::Plan),
            Some("plantest:tiny".into()),
        ))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Deterministic);
    assert_eq!(plan.mode(), PlanMode::Plan);
    let warning = plan.warnings().first().expect("a warning");
    assert!(
        warning.contains("$.steps[1].budget") && warning.contains("deterministic planner"),
        "{warning}"
    );
    assert!(!plan.steps().is_empty(), "the deterministic plan has steps");
    assert!(plan.steps().iter().all(|s| !s.id.starts_with("schema")));
    assert_eq!(
        server.requests().len(),
        2,
        "the answer and one repair request"
    );
    let repair = server.requests()[1].json()["messages"].to_string();
    assert!(repair.contains("$.steps[1].budget"), "{repair}");
}

#[tokio::test]
async fn non_json_answer_falls_back() {
    let prose = "Sure! First design the schema, then build the API, then write docs.";
    let server = TestServer::start(vec![completion(prose), completion(prose)]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    with_test_provider(&engine, &server).await;

    let plan = engine
        .plan_task(with_model_planner(
            request(TASK, PlanMode::Swarm),
            Some("plantest:tiny".into()),
        ))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Deterministic);
    let warning = plan.warnings().first().expect("a warning");
    assert!(
        warning.contains("no JSON value") && warning.contains("deterministic planner"),
        "{warning}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn answer_with_an_unknown_dependency_falls_back() {
    let mut bad = model_swarm();
    bad["steps"][3]["dependsOn"] = json!(["deploy"]);
    let server = TestServer::start(vec![completion(&bad.to_string())]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    with_test_provider(&engine, &server).await;

    let plan = engine
        .plan_task(with_model_planner(
            request(TASK, PlanMode::Swarm),
            Some("plantest:tiny".into()),
        ))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Deterministic);
    let warning = plan.warnings().first().expect("a warning");
    assert!(warning.contains("\"deploy\""), "{warning}");
}

#[tokio::test]
async fn provider_failure_falls_back() {
    let error = wire::openai_error(
        "model tiny not found",
        "invalid_request_error",
        "model_not_found",
    );
    let server = TestServer::start(vec![Reply::json(404, error)]).await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    with_test_provider(&engine, &server).await;

    let plan = engine
        .plan_task(with_model_planner(
            request(TASK, PlanMode::Plan),
            Some("plantest:tiny".into()),
        ))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Deterministic);
    let warning = plan.warnings().first().expect("a warning");
    assert!(
        warning.starts_with("the model planner failed (plantest") && warning.contains("not found"),
        "{warning}"
    );
}

#[tokio::test]
async fn reachable_local_model_is_chosen_when_none_is_named() {
    let tags = json!({"models": [{"name": "nomic-embed-text"}, {"name": "qwen-tiny"}]});
    // The server is probed when its base URL is set (the provider's status), when the planner
    // model is chosen, and when the plan's step models are chosen (which models are usable).
    let server = TestServer::start(vec![
        Reply::json(200, &tags),
        Reply::json(200, &tags),
        completion(&model_swarm().to_string()),
        Reply::json(200, &tags),
    ])
    .await;
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), Some(&server.at("/v1"))).await;

    let plan = engine
        .plan_task(with_model_planner(request(TASK, PlanMode::Swarm), None))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Model, "{:?}", plan.warnings());
    assert_eq!(
        plan.warnings().first().map(String::as_str),
        Some("planned by the model planner (ollama:qwen-tiny)")
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[1].path, "/api/tags");
    assert_eq!(requests[3].path, "/api/tags");
    assert_eq!(requests[2].path, "/v1/chat/completions");
    assert_eq!(
        requests[2].json()["model"],
        "qwen-tiny",
        "the embedding model is skipped"
    );
}

#[tokio::test]
async fn no_usable_model_uses_the_deterministic_planner() {
    if let Some(var) = KEY_VARS.iter().find(|v| std::env::var_os(v).is_some()) {
        eprintln!("note: {var} is set, so a model is usable; skipping the no-model test");
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;

    let plan = engine
        .plan_task(with_model_planner(request(TASK, PlanMode::Swarm), None))
        .await
        .expect("plan");

    assert_eq!(plan.origin(), PlanOrigin::Deterministic);
    assert_eq!(
        plan.warnings().first().map(String::as_str),
        Some("no model available for the model planner; planned by the deterministic planner")
    );
    assert!(
        plan.steps().len() >= 3,
        "the task's three steps: {:?}",
        step_ids(&plan)
    );
}

#[tokio::test]
async fn empty_task_is_refused() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path(), None).await;
    let error = engine
        .plan_task(with_model_planner(request("  ", PlanMode::Plan), None))
        .await
        .expect_err("empty task");
    assert_eq!(
        error.code(),
        switchyard_core::error::ErrorCode::InvalidInput
    );
}
