//! Local servers are probed one way: the doctor, the catalog's local models and the provider
//! list all ask the server at the base URL the user configured (once, the doctor and the
//! catalog asked the built-in default address and disagreed with the Keys page).

#[path = "../../providers/tests/support/mod.rs"]
mod http;

use http::{Reply, TestServer};
use switchyard_engine::{Engine, EngineConfig};

const TAGS: &str = r#"{"models":[{"name":"llama3.2:3b"},{"name":"qwen3:8b"},{"name":"phi4"}]}"#;

fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

async fn engine(home: &std::path::Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

#[tokio::test]
async fn doctor_and_catalog_probe_local_servers_at_their_configured_urls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    let ollama = TestServer::start((0..4).map(|_| Reply::json(200, TAGS)).collect()).await;
    let ollama_url = ollama.at("/v1");
    engine
        .set_provider_base_url("ollama", Some(&ollama_url))
        .await
        .expect("ollama url");
    let lmstudio_url = refused_url();
    engine
        .set_provider_base_url("lmstudio", Some(&lmstudio_url))
        .await
        .expect("lmstudio url");
    let listed = engine.list_providers().await.expect("providers");
    let keys_page = listed
        .iter()
        .find(|p| p.id == "ollama")
        .and_then(|p| p.local.clone())
        .expect("probed");

    let report = engine.doctor().await;
    let endpoint = |id: &str| {
        report
            .local_endpoints
            .iter()
            .find(|e| e.id == id)
            .expect(id)
            .clone()
    };
    let doctor_ollama = endpoint("ollama");
    assert_eq!(doctor_ollama.url, ollama.url, "the server root, as before");
    assert!(doctor_ollama.reachable, "{doctor_ollama:?}");
    assert_eq!(doctor_ollama.model_count, Some(3));
    assert_eq!(
        (keys_page.reachable, keys_page.model_count),
        (doctor_ollama.reachable, doctor_ollama.model_count)
    );
    let doctor_lmstudio = endpoint("lmstudio");
    assert_eq!(
        doctor_lmstudio.url,
        lmstudio_url.strip_suffix("/v1").expect("a /v1 base")
    );
    assert!(!doctor_lmstudio.reachable && doctor_lmstudio.error.is_some());

    let empty = tempfile::tempdir().expect("tempdir");
    engine
        .refresh_catalog_from_dir(empty.path(), &|_| {})
        .await
        .expect("refresh");
    let card = engine
        .model("local/ollama/qwen3:8b")
        .await
        .expect("the configured server's model is in the catalog");
    assert_eq!(card.id, "local/ollama/qwen3:8b");
    assert!(ollama.requests().iter().all(|r| r.path == "/api/tags"));
    assert_eq!(ollama.requests().len(), 4);
    engine.close().await;
}
