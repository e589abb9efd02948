//! The secret-leak test for the catalog refresh path: the Artificial Analysis source answers
//! HTTP 500 with the `x-api-key` it was sent echoed into its error body — once whole, and
//! once where the fetcher's 300-character cut goes through it. After a network refresh (the
//! awaited form and a started one), the key's bytes, and its first part, must appear nowhere:
//! not in the SQLite files or anything else under the data dir, not in any event, not in the
//! report or `catalog_status`, and not in any log line (TRACE, every target).

mod support;

mod leak_scan;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{fixtures, serve, Reply, SOURCE_PATHS};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::view::RefreshProgress;
use switchyard_engine::{Engine, EngineConfig, EngineEvent, RefreshFrom};
use switchyard_store::{Store, DATABASE_FILE};

const KEY: &str = "aa-LEAKTEST-5e1f0c2b9d7a46e8b3c1";
/// The part of the key before the fetcher's 300-character cut in [`echoing_body`]'s second
/// echo: what a cut-then-redact order would leave behind.
const KEY_START: &str = "aa-LEAKTES";

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

fn assert_clean(what: &str, haystack: &[u8]) {
    for needle in [KEY, KEY_START] {
        assert!(
            !haystack
                .windows(needle.len())
                .any(|w| w == needle.as_bytes()),
            "{what} contains the key ({needle})"
        );
    }
}

/// An AA error body with the key echoed whole, then again across character 300.
fn echoing_body() -> String {
    let head = "{\"error\":\"invalid api key {echo}\",\"pad\":\"";
    let tail = "\",\"again\":\"{echo}\"}";
    // Characters before the second echo: the head (with the key), the padding, the tail's
    // start; the second key starts at 290 so the cut at 300 goes through it.
    let before_second = head.len() - "{echo}".len() + KEY.len() + "\",\"again\":\"".len();
    let pad = "x".repeat(290 - before_second);
    format!("{head}{pad}{tail}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_artificial_analysis_key_reaches_no_store_event_status_or_log() {
    let logs = Capture::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    std::env::set_var("ARTIFICIAL_ANALYSIS_API_KEY", KEY);

    let mut routes = HashMap::new();
    routes.insert(
        "/aa/models".to_owned(),
        Reply::echo(500, "x-api-key", &echoing_body()),
    );
    routes.insert(
        "/or/models".to_owned(),
        Reply::ok(
            std::fs::read(fixtures().join("openrouter/openrouter_models_live.json"))
                .expect("fixture"),
        ),
    );
    let server = serve(routes).await;

    let home = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&home.path().join(DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            "keychain.service",
            &format!("dev.switchyard.test.catalog-leak.{}", std::process::id()),
            "2026-12-01T00:00:00Z",
        )
        .await
        .expect("setting");
    store.close().await;
    let engine = Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.path().to_path_buf()),
        })
        .await
        .expect("engine"),
    );
    for (source, path) in SOURCE_PATHS {
        engine
            .set_source_endpoint(source, &format!("{}{path}", server.base))
            .await
            .expect("endpoint");
    }

    let mut events = engine.subscribe();
    let progress_seen = Mutex::new(Vec::new());
    let progress = |p: RefreshProgress| progress_seen.lock().expect("lock").push(format!("{p:?}"));
    let report = engine
        .refresh_catalog_from_network(&progress)
        .await
        .expect("refresh");
    let ticket = engine
        .start_catalog_refresh(RefreshFrom::Network)
        .expect("start");
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("refresh events")
            .expect("open");
        seen.push(serde_json::to_string(&event).expect("event json"));
        seen.push(format!("{event:?}"));
        if matches!(event, EngineEvent::CatalogRefreshFinished { refresh_id, .. } if refresh_id == ticket.refresh_id)
        {
            break;
        }
    }
    let status = engine.catalog_status().await.expect("status");

    // The key went out (the test is not vacuous) and came back in the body.
    let requests = server.requests.lock().expect("lock").clone();
    assert!(requests
        .iter()
        .filter(|r| r.starts_with("GET /aa/models"))
        .all(|r| r
            .to_ascii_lowercase()
            .contains(&format!("x-api-key: {}", KEY.to_ascii_lowercase()))));
    let aa = report
        .sources
        .iter()
        .find(|s| s.source == SourceId::ArtificialAnalysis)
        .expect("aa");
    let error = aa.error.as_deref().expect("AA fails");
    assert!(
        error.contains("500") && error.contains("invalid api key <redacted>"),
        "{error}"
    );
    let aa_status = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::ArtificialAnalysis)
        .expect("aa status");
    assert!(aa_status
        .error
        .as_deref()
        .is_some_and(|e| e.contains("<redacted>")));

    engine.close().await;
    assert_clean(
        "the report",
        serde_json::to_string(&report).expect("json").as_bytes(),
    );
    assert_clean(
        "catalog_status",
        serde_json::to_string(&status).expect("json").as_bytes(),
    );
    assert_clean(
        "the progress callback",
        progress_seen.lock().expect("lock").join("\n").as_bytes(),
    );
    assert_clean("the events", seen.join("\n").as_bytes());
    assert_clean("the data dir", &leak_scan::all_bytes(home.path()));
    let logs = logs.0.lock().expect("logs").clone();
    assert!(!logs.is_empty(), "logs were captured");
    assert_clean("the logs", &logs);
}
