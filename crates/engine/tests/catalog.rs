//! Catalog use cases against real files, a real SQLite database and a local HTTP server.

mod support;

use std::collections::HashMap;

use support::{fixtures, import_dir, serve, Reply, COHERENT};
use switchyard_core::catalog::card::Category;
use switchyard_core::catalog::matching::{MatchOverride, MatchRule, OverrideAction};
use switchyard_core::catalog::query::ModelQuery;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::view::{RefreshProgress, RefreshStage};
use switchyard_core::error::ErrorCode;
use switchyard_engine::{Engine, EngineConfig};

async fn engine(home: &std::path::Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn quiet(_: RefreshProgress) {}

#[tokio::test]
async fn first_start_serves_the_bundled_snapshot() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let status = engine.catalog_status().await.expect("status");
    assert!(
        status.model_count > 100,
        "bundled catalog has {} models",
        status.model_count
    );
    assert_eq!(
        status.bundled_sources.len(),
        5,
        "every source comes from the bundle"
    );
    assert!(status.snapshot_date.is_some());
    let coding = engine
        .models(&ModelQuery {
            category: Some(Category::Coding),
            limit: Some(5),
            ..ModelQuery::default()
        })
        .await
        .expect("models");
    assert_eq!(coding.len(), 5);
    assert!(coding.windows(2).all(|w| {
        w[0].categories[&Category::Coding].score >= w[1].categories[&Category::Coding].score
    }));
    let info = engine.app_info().await.expect("info");
    assert_eq!(info.catalog_snapshot_date, status.snapshot_date);
}

#[tokio::test]
async fn refresh_from_a_folder_replaces_the_bundle_and_reports_per_source() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = import_dir(&COHERENT);
    let engine = engine(home.path()).await;
    let stages = std::sync::Mutex::new(Vec::new());
    let progress = |p: RefreshProgress| stages.lock().expect("lock").push((p.source, p.stage));
    let report = engine
        .refresh_catalog_from_dir(dir.path(), &progress)
        .await
        .expect("refresh");

    assert_eq!(report.sources.len(), 5);
    for source in &report.sources {
        assert!(
            source.error.is_none(),
            "{:?} failed: {:?}",
            source.source,
            source.error
        );
        assert!(source.records > 0, "{:?} has no records", source.source);
    }
    let by = |id: SourceId| {
        report
            .sources
            .iter()
            .find(|s| s.source == id)
            .expect("source")
    };
    // HF rows join on OpenRouter's hugging_face_id only, so only those rows are kept (the
    // abliterated fine-tune and other repos are dropped at parse time), and each kept row
    // matches exactly.
    let hf = by(SourceId::HfLeaderboard);
    assert!(hf.matched >= 1);
    assert_eq!(hf.records, hf.matched);
    let stages = stages.lock().expect("lock").clone();
    assert_eq!(stages.first(), Some(&(None, RefreshStage::Started)));
    assert_eq!(stages.last(), Some(&(None, RefreshStage::Finished)));
    assert_eq!(
        stages
            .iter()
            .filter(|(_, s)| *s == RefreshStage::Saved)
            .count(),
        5
    );

    let status = engine.catalog_status().await.expect("status");
    assert!(status.bundled_sources.is_empty());
    assert_eq!(status.model_count, report.model_count);
    let llama = engine
        .model("meta-llama/llama-3.3-70b-instruct")
        .await
        .expect("llama");
    let sources: Vec<SourceId> = llama
        .matches
        .iter()
        .filter(|m| m.primary)
        .map(|m| m.source)
        .collect();
    assert!(sources.contains(&SourceId::HfLeaderboard), "{sources:?}");
    assert!(llama.variants.iter().any(|v| v.ends_with(":free")));
    // A variant id finds its base model.
    assert_eq!(
        engine
            .model("meta-llama/llama-3.3-70b-instruct:free")
            .await
            .expect("variant")
            .id,
        llama.id
    );
}

#[tokio::test]
async fn a_broken_source_keeps_its_last_good_snapshot() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = import_dir(&COHERENT);
    let engine = engine(home.path()).await;
    let first = engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("refresh");
    let arena_before = first
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("arena")
        .records;

    // A newer, truncated LMArena file now wins the "newest file" pick and fails to parse.
    std::fs::write(
        dir.path()
            .join("lmarena/arena-catalog_leaderboard-text-style-control_2026-09-01.json"),
        b"{\"full\": {\"gpt-x\": {\"rating\": 12",
    )
    .expect("write");
    let second = engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("refresh");
    let arena = second
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("arena");
    let error = arena
        .error
        .as_deref()
        .expect("lmarena must report its error");
    assert!(
        error.contains("2026-09-01"),
        "error names the file: {error}"
    );
    assert_eq!(
        arena.records, arena_before,
        "previous LMArena records stay in use"
    );
    assert!(second
        .sources
        .iter()
        .filter(|s| s.source != SourceId::LmArena)
        .all(|s| s.error.is_none()));

    // The error survives a restart, and so does the data.
    engine.close().await;
    let engine = self::engine(home.path()).await;
    let status = engine.catalog_status().await.expect("status");
    let arena = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("arena");
    assert!(arena.error.is_some());
    assert_eq!(arena.records, arena_before);
}

#[tokio::test]
async fn match_corrections_apply_on_every_rebuild_and_survive_restart() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = import_dir(&COHERENT);
    let engine = engine(home.path()).await;
    engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("refresh");
    let status = engine.catalog_status().await.expect("status");
    let arena = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("arena");
    let unmatched = arena
        .unmatched_keys
        .first()
        .cloned()
        .expect("an unmatched LMArena record");

    let card = engine
        .set_match_override(MatchOverride {
            source: SourceId::LmArena,
            key: unmatched.clone(),
            model_id: "acme/rocket-2.5".into(),
            action: OverrideAction::Add,
        })
        .await
        .expect("override");
    let manual = card
        .card
        .matches
        .iter()
        .find(|m| m.name == unmatched)
        .expect("manual match listed");
    assert_eq!(manual.rule, MatchRule::Manual);

    engine.close().await;
    let engine = self::engine(home.path()).await;
    let card = engine.model("acme/rocket-2.5").await.expect("model");
    assert!(card
        .matches
        .iter()
        .any(|m| m.name == unmatched && m.rule == MatchRule::Manual));
    assert!(engine
        .clear_match_override(SourceId::LmArena, &unmatched, "acme/rocket-2.5")
        .await
        .expect("clear"));
    let card = engine.model("acme/rocket-2.5").await.expect("model");
    assert!(!card
        .matches
        .iter()
        .any(|m| m.name == unmatched && m.rule == MatchRule::Manual));

    let err = engine
        .set_match_override(MatchOverride {
            source: SourceId::LmArena,
            key: unmatched,
            model_id: "nobody/none".into(),
            action: OverrideAction::Add,
        })
        .await
        .expect_err("unknown model");
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[tokio::test]
async fn compare_takes_two_to_five_known_models() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let ids: Vec<String> = engine
        .models(&ModelQuery {
            limit: Some(3),
            ..ModelQuery::default()
        })
        .await
        .expect("models")
        .into_iter()
        .map(|m| m.id)
        .collect();
    let cards = engine.compare(&ids).await.expect("compare");
    assert_eq!(cards.iter().map(|c| c.id.clone()).collect::<Vec<_>>(), ids);
    assert_eq!(
        engine.compare(&ids[..1]).await.expect_err("one").code(),
        ErrorCode::InvalidInput
    );
    let unknown = vec![ids[0].clone(), "nobody/none".to_owned()];
    assert_eq!(
        engine.compare(&unknown).await.expect_err("unknown").code(),
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn network_refresh_fetches_every_source_and_survives_a_failing_one() {
    let read = |folder: &str, file: &str| {
        std::fs::read(fixtures().join(folder).join(file)).expect("fixture")
    };
    // A 250-row leaderboard: three pages of the fixture's rows.
    let mut page: serde_json::Value =
        serde_json::from_slice(&read("hf-open-llm-leaderboard", "rows_offset_100.json"))
            .expect("json");
    page["num_rows_total"] = 250.into();
    let hf_page = serde_json::to_vec(&page).expect("json");
    let mut routes = HashMap::new();
    routes.insert(
        "/or/models".to_owned(),
        Reply::ok(read("openrouter", "openrouter_models_live.json")),
    );
    routes.insert(
        "/aa/models".to_owned(),
        Reply::status(503, "{\"error\":\"maintenance\"}"),
    );
    routes.insert(
        "/arena.json".to_owned(),
        Reply::ok(read(
            "lmarena",
            "arena-catalog_leaderboard-text-style-control_2026-02-20.json",
        )),
    );
    routes.insert(
        "/lb/table_2026_01_08.csv".to_owned(),
        Reply::ok(read("livebench", "table_2026_01_08.csv")),
    );
    routes.insert(
        "/lb/categories_2026_01_08.json".to_owned(),
        Reply::ok(read("livebench", "categories_2026_01_08.json")),
    );
    for offset in [0, 100, 200] {
        routes.insert(
            format!("/rows?x=1&offset={offset}&length=100"),
            Reply::ok(hf_page.clone()),
        );
    }
    let server = serve(routes).await;

    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    for (source, path) in [
        (SourceId::OpenRouter, "/or/models"),
        (SourceId::ArtificialAnalysis, "/aa/models"),
        (SourceId::LmArena, "/arena.json"),
        (SourceId::LiveBench, "/lb"),
        (SourceId::HfLeaderboard, "/rows?x=1"),
    ] {
        engine
            .set_source_endpoint(source, &format!("{}{path}", server.base))
            .await
            .expect("endpoint");
    }
    std::env::set_var("ARTIFICIAL_ANALYSIS_API_KEY", "aa-test-key-7319");
    let report = engine
        .refresh_catalog_from_network(&quiet)
        .await
        .expect("refresh");
    let by = |id: SourceId| {
        report
            .sources
            .iter()
            .find(|s| s.source == id)
            .expect("source")
    };
    let aa_error = by(SourceId::ArtificialAnalysis)
        .error
        .clone()
        .expect("AA fails with 503");
    assert!(
        aa_error.contains("503") && aa_error.contains("maintenance"),
        "{aa_error}"
    );
    assert!(
        !aa_error.contains("aa-test-key-7319"),
        "the key never appears in errors"
    );
    for source in [
        SourceId::OpenRouter,
        SourceId::LmArena,
        SourceId::LiveBench,
        SourceId::HfLeaderboard,
    ] {
        assert!(
            by(source).error.is_none(),
            "{source:?}: {:?}",
            by(source).error
        );
        assert!(by(source).records > 0, "{source:?} has no records");
    }
    let requests = server.requests.lock().expect("lock").clone();
    let aa = requests
        .iter()
        .find(|r| r.starts_with("GET /aa/models"))
        .expect("AA requested");
    assert!(
        aa.to_ascii_lowercase()
            .contains("x-api-key: aa-test-key-7319"),
        "AA gets its key header"
    );
    assert!(requests
        .iter()
        .any(|r| r.starts_with("GET /lb/categories_2026_01_08.json")));
    let hf_pages = requests
        .iter()
        .filter(|r| r.starts_with("GET /rows?x=1&offset="))
        .count();
    assert_eq!(hf_pages, 3, "every HF page is fetched once");
    assert!(engine
        .last_network_refresh()
        .await
        .expect("setting")
        .is_some());
    // Sources that failed keep their previous data: AA still comes from the bundle.
    let status = engine.catalog_status().await.expect("status");
    assert_eq!(status.bundled_sources, vec![SourceId::ArtificialAnalysis]);
}

#[tokio::test]
async fn a_second_concurrent_refresh_is_refused() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = import_dir(&COHERENT);
    let engine = std::sync::Arc::new(engine(home.path()).await);
    let (a, b) = tokio::join!(
        engine.refresh_catalog_from_dir(dir.path(), &quiet),
        engine.refresh_catalog_from_dir(dir.path(), &quiet)
    );
    let errors: Vec<_> = [a, b].into_iter().filter_map(Result::err).collect();
    assert_eq!(
        errors.len(),
        1,
        "exactly one of two concurrent refreshes is refused"
    );
    assert!(errors[0].to_string().contains("already running"));
}

#[tokio::test]
async fn livebench_releases_merge_with_each_models_newest_row() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut files = COHERENT.to_vec();
    files.push(("livebench", "table_2026_06_25.csv"));
    let dir = import_dir(&files);
    let engine = engine(home.path()).await;
    engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("refresh");
    let status = engine.catalog_status().await.expect("status");
    let livebench = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::LiveBench)
        .expect("livebench");
    // The June release lists only two models; January's models stay in the catalog.
    assert_eq!(livebench.data_date.as_deref(), Some("2026-06-25"));
    let llama = engine
        .model("meta-llama/llama-3.3-70b-instruct")
        .await
        .expect("llama");
    assert!(
        llama
            .matches
            .iter()
            .any(|m| m.source == SourceId::LiveBench),
        "a model only in the older release keeps its LiveBench values"
    );
    assert!(livebench.records >= 6, "{} records", livebench.records);
}
