//! Catalog refreshes as the engine's background work, and the guards around a refresh's
//! outcome: refresh ids on every event, one refresh at a time, cancellation on close, the
//! schedule, held-back snapshots ("accept anyway") and unreadable stored rows. Real SQLite
//! files, real folders and a real HTTP server on 127.0.0.1.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use support::{fixtures, import_dir, serve, Reply, COHERENT, SOURCE_PATHS};
use switchyard_core::catalog::query::ModelQuery;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::snapshot::HoldReason;
use switchyard_core::catalog::view::{
    RefreshId, RefreshProgress, RefreshReport, RefreshStage, RefreshTrigger, SourceRefresh,
};
use switchyard_core::error::ErrorCode;
use switchyard_engine::{BackgroundSchedule, Engine, EngineConfig, EngineEvent, RefreshFrom};
use switchyard_store::{Store, DATABASE_FILE};
use tokio::sync::broadcast;

async fn engine(home: &Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn quiet(_: RefreshProgress) {}

fn source(report: &RefreshReport, id: SourceId) -> &SourceRefresh {
    report
        .sources
        .iter()
        .find(|s| s.source == id)
        .expect("source in report")
}

/// Points every source at `base` (see [`SOURCE_PATHS`]), with a keychain service of its own
/// so the user's real Artificial Analysis key is never read.
async fn point_sources_at(engine: &Engine, base: &str) {
    for (source, path) in SOURCE_PATHS {
        engine
            .set_source_endpoint(source, &format!("{base}{path}"))
            .await
            .expect("endpoint");
    }
}

async fn isolated_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&home.path().join(DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            "keychain.service",
            &format!("dev.switchyard.test.refresh.{}", std::process::id()),
            "2026-12-01T00:00:00Z",
        )
        .await
        .expect("setting");
    store.close().await;
    home
}

/// Events until the `CatalogRefreshFinished` of `id` (every event seen, of any refresh).
async fn until_finished(
    events: &mut broadcast::Receiver<EngineEvent>,
    id: RefreshId,
) -> Vec<EngineEvent> {
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("the refresh finishes within 30 s")
            .expect("event stream open");
        let done = matches!(
            &event,
            EngineEvent::CatalogRefreshFinished { refresh_id, .. } if *refresh_id == id
        );
        seen.push(event);
        if done {
            return seen;
        }
    }
}

fn started(events: &[EngineEvent]) -> Vec<RefreshId> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::CatalogRefreshStarted { refresh_id, .. } => Some(*refresh_id),
            _ => None,
        })
        .collect()
}

fn finished(events: &[EngineEvent]) -> Vec<(RefreshId, bool, Option<ErrorCode>)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::CatalogRefreshFinished {
                refresh_id,
                report,
                error,
            } => Some((
                *refresh_id,
                report.is_some(),
                error.as_ref().map(|e| e.code),
            )),
            _ => None,
        })
        .collect()
}

/// A server answering every source from the fixtures, OpenRouter only after `or_delay`.
async fn slow_sources(or_delay: Duration) -> support::Server {
    let read = |folder: &str, file: &str| {
        std::fs::read(fixtures().join(folder).join(file)).expect("fixture")
    };
    let mut routes = HashMap::new();
    routes.insert(
        "/or/models".to_owned(),
        Reply::ok(read("openrouter", "openrouter_models_live.json")).after(or_delay),
    );
    routes.insert(
        "/arena.json".to_owned(),
        Reply::ok(read(
            "lmarena",
            "arena-catalog_leaderboard-text-style-control_2026-02-20.json",
        )),
    );
    serve(routes).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_refresh_start_follows_the_running_one_instead_of_ending_it() {
    let home = isolated_home().await;
    let engine = Arc::new(engine(home.path()).await);
    let server = slow_sources(Duration::from_millis(800)).await;
    point_sources_at(&engine, &server.base).await;
    let mut events = engine.subscribe();

    let first = engine
        .start_catalog_refresh(RefreshFrom::Network)
        .expect("start");
    assert!(!first.already_running);
    // A second start while the first runs — from another view, or a folder import — starts
    // nothing and names the running refresh.
    let import = import_dir(&COHERENT);
    let second = engine
        .start_catalog_refresh(RefreshFrom::Dir(import.path().to_path_buf()))
        .expect("second start");
    assert_eq!(second.refresh_id, first.refresh_id);
    assert!(second.already_running);
    assert_eq!(engine.catalog_refresh_running(), Some(first.refresh_id));
    let status = engine.catalog_status().await.expect("status");
    assert!(status.refreshing);
    assert_eq!(status.refresh_id, Some(first.refresh_id));
    // The awaited form is refused with `busy` and publishes nothing.
    let busy = engine
        .refresh_catalog_from_network(&quiet)
        .await
        .expect_err("busy");
    assert_eq!(busy.code(), ErrorCode::Busy);
    assert!(busy.to_string().contains("already running"), "{busy}");

    let seen = until_finished(&mut events, first.refresh_id).await;
    assert_eq!(
        started(&seen),
        vec![first.refresh_id],
        "one refresh started"
    );
    assert_eq!(
        finished(&seen),
        vec![(first.refresh_id, true, None)],
        "exactly one outcome, the running refresh's, with its report"
    );
    assert!(
        seen.iter()
            .all(|e| e.refresh_id() == Some(first.refresh_id)),
        "every event carries the running refresh's id"
    );
    assert!(seen.iter().any(|e| matches!(
        e,
        EngineEvent::CatalogRefreshProgress { progress, .. }
            if progress.source == Some(SourceId::OpenRouter) && progress.stage == RefreshStage::Saved
    )));
    assert_eq!(engine.catalog_refresh_running(), None);

    // Once it is over, a new start gets a new id.
    let next = engine
        .start_catalog_refresh(RefreshFrom::Dir(import.path().to_path_buf()))
        .expect("start again");
    assert!(!next.already_running);
    assert_ne!(next.refresh_id, first.refresh_id);
    let seen = until_finished(&mut events, next.refresh_id).await;
    assert!(matches!(
        seen.first(),
        Some(EngineEvent::CatalogRefreshStarted { trigger: RefreshTrigger::User, from_dir: Some(dir), .. })
            if dir == &import.path().display().to_string()
    ));
    engine.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_cancels_a_running_refresh_and_waits_for_it() {
    let home = isolated_home().await;
    let engine = Arc::new(engine(home.path()).await);
    let server = slow_sources(Duration::from_secs(120)).await;
    point_sources_at(&engine, &server.base).await;
    let mut events = engine.subscribe();
    let ticket = engine
        .start_catalog_refresh(RefreshFrom::Network)
        .expect("start");
    tokio::time::sleep(Duration::from_millis(200)).await;

    tokio::time::timeout(Duration::from_secs(10), engine.close())
        .await
        .expect("close does not wait for the hanging source");
    let seen = until_finished(&mut events, ticket.refresh_id).await;
    assert_eq!(
        finished(&seen),
        vec![(ticket.refresh_id, false, Some(ErrorCode::Canceled))]
    );
    assert_eq!(engine.catalog_refresh_running(), None);
    let refused = engine
        .start_catalog_refresh(RefreshFrom::Network)
        .expect_err("closed");
    assert_eq!(refused.code(), ErrorCode::Canceled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_background_schedule_refreshes_when_due_and_stops_on_close() {
    let home = isolated_home().await;
    let engine = Arc::new(engine(home.path()).await);
    let server = slow_sources(Duration::ZERO).await;
    point_sources_at(&engine, &server.base).await;
    let mut events = engine.subscribe();
    assert!(engine.start_background_with(BackgroundSchedule {
        interval: Duration::from_millis(1500),
        first_delay: Duration::ZERO,
    }));
    assert!(
        !engine.start_background_with(BackgroundSchedule::default()),
        "one schedule per engine"
    );

    let mut scheduled = Vec::new();
    while scheduled.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("the schedule refreshes (never refreshed: due at once; then every interval)")
            .expect("open");
        if let EngineEvent::CatalogRefreshStarted {
            refresh_id,
            trigger,
            from_dir,
        } = event
        {
            assert_eq!(trigger, RefreshTrigger::Schedule);
            assert_eq!(from_dir, None);
            scheduled.push(refresh_id);
        }
    }
    assert_ne!(scheduled[0], scheduled[1]);
    assert!(engine
        .last_network_refresh()
        .await
        .expect("setting")
        .is_some());
    tokio::time::timeout(Duration::from_secs(10), engine.close())
        .await
        .expect("close stops the schedule");
}

#[tokio::test]
async fn background_refresh_stays_off_with_the_environment_switch() {
    std::env::set_var("SWITCHYARD_NO_BACKGROUND_REFRESH", "1");
    let home = isolated_home().await;
    let engine = Arc::new(engine(home.path()).await);
    assert!(!engine.start_background());
    engine.close().await;
}

#[tokio::test]
async fn empty_openrouter_refresh_keeps_last_good_snapshot() {
    let home = isolated_home().await;
    let engine = engine(home.path()).await;
    let dir = import_dir(&COHERENT);
    let first = engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("import");
    let models_before = first.model_count;
    let or_before = source(&first, SourceId::OpenRouter).records;
    assert!(or_before > 0);

    let mut routes = HashMap::new();
    routes.insert("/or/models".to_owned(), Reply::ok(r#"{"data": []}"#));
    let server = serve(routes).await;
    point_sources_at(&engine, &server.base).await;
    let stages = std::sync::Mutex::new(Vec::new());
    let progress = |p: RefreshProgress| stages.lock().expect("lock").push((p.source, p.stage));
    let report = engine
        .refresh_catalog_from_network(&progress)
        .await
        .expect("refresh");

    let or = source(&report, SourceId::OpenRouter);
    assert_eq!(or.held, Some(HoldReason::Empty));
    let error = or.error.as_deref().expect("the hold says why");
    assert!(
        error.contains("held back") && error.contains("no records"),
        "{error}"
    );
    assert_eq!(or.records, or_before, "the previous models stay in use");
    assert_eq!(
        report.model_count, models_before,
        "the catalog is not emptied"
    );
    assert!(stages
        .lock()
        .expect("lock")
        .contains(&(Some(SourceId::OpenRouter), RefreshStage::HeldBack)));
    assert!(engine
        .model("acme/rocket-2.5")
        .await
        .is_ok_and(|m| m.id == "acme/rocket-2.5"));

    // Held back, and it survives a restart, with "accept anyway" available.
    engine.close().await;
    let engine = self::engine(home.path()).await;
    let status = engine.catalog_status().await.expect("status");
    assert_eq!(status.held.len(), 1);
    let held = &status.held[0];
    assert_eq!(held.source, SourceId::OpenRouter);
    assert_eq!((held.records, held.previous_records), (0, or_before));
    assert!(held.origin.ends_with("/or/models"));
    assert_eq!(status.model_count, models_before);
    let row = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::OpenRouter)
        .expect("row");
    assert!(row
        .error
        .as_deref()
        .is_some_and(|e| e.contains("held back")));

    // Accepting applies the empty snapshot without refetching (the server is gone).
    drop(server);
    let status = engine
        .accept_held_snapshot(SourceId::OpenRouter)
        .await
        .expect("accept");
    assert!(status.held.is_empty());
    let row = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::OpenRouter)
        .expect("row");
    assert_eq!(row.records, 0);
    assert!(row.error.is_none());
    assert!(status.model_count < models_before);
    let again = engine
        .accept_held_snapshot(SourceId::OpenRouter)
        .await
        .expect_err("nothing held any more");
    assert_eq!(again.code(), ErrorCode::NotFound);
}

#[tokio::test]
async fn a_refresh_dropping_more_than_half_keeps_the_old_data_until_accepted() {
    let home = isolated_home().await;
    let engine = engine(home.path()).await;
    let dir = import_dir(&COHERENT);
    let first = engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("import");
    let or_before = source(&first, SourceId::OpenRouter).records;
    assert!(
        or_before >= 5,
        "{or_before} OpenRouter models in the fixture"
    );

    // The same folder, but OpenRouter now lists only two models.
    let path = dir.path().join("openrouter/openrouter_models_live.json");
    let mut list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    let kept = ["acme/rocket-2.5", "meta-llama/llama-3.3-70b-instruct"];
    list["data"]
        .as_array_mut()
        .expect("data")
        .retain(|m| kept.contains(&m["id"].as_str().unwrap_or_default()));
    std::fs::write(&path, serde_json::to_vec(&list).expect("json")).expect("write");
    let second = engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("import");
    let or = source(&second, SourceId::OpenRouter);
    assert_eq!(
        or.held,
        Some(HoldReason::Dropped {
            previous: or_before,
            candidate: 2
        })
    );
    assert_eq!(or.records, or_before, "the old data stays");
    assert!(
        second
            .sources
            .iter()
            .filter(|s| s.source != SourceId::OpenRouter)
            .all(|s| s.error.is_none() && s.held.is_none()),
        "the other sources refresh as usual"
    );

    let status = engine
        .accept_held_snapshot(SourceId::OpenRouter)
        .await
        .expect("accept anyway");
    let row = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::OpenRouter)
        .expect("row");
    assert_eq!(row.records, 2);
    assert!(status.held.is_empty());
    let models = engine.models(&ModelQuery::default()).await.expect("models");
    assert_eq!(models.iter().filter(|m| !m.local).count(), 2);
}

#[tokio::test]
async fn an_undecodable_snapshot_row_falls_back_to_the_bundled_data_for_that_source() {
    let home = isolated_home().await;
    let engine = engine(home.path()).await;
    let dir = import_dir(&COHERENT);
    engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("import");
    engine.close().await;
    let store = Store::open(&home.path().join(DATABASE_FILE))
        .await
        .expect("store");
    store
        .overwrite_source_snapshot_for_tests(SourceId::LmArena, "{\"source\": \"lmArena\", \"ben")
        .await
        .expect("damage");
    store.close().await;

    let engine = self::engine(home.path()).await;
    let info = engine.app_info().await.expect("app info still works");
    assert!(info.catalog_snapshot_date.is_some());
    let status = engine.catalog_status().await.expect("status still works");
    assert_eq!(status.bundled_sources, vec![SourceId::LmArena]);
    let arena = status
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("arena");
    let error = arena.error.as_deref().expect("the damage is recorded");
    assert!(error.contains("cannot be read"), "{error}");
    let bundled_arena = switchyard_engine::catalog::bundled_snapshot()
        .sources
        .iter()
        .find(|s| s.source == SourceId::LmArena)
        .expect("bundled arena")
        .record_count();
    assert_eq!(arena.records as usize, bundled_arena);
    assert!(status
        .sources
        .iter()
        .filter(|s| s.source != SourceId::LmArena)
        .all(|s| s.error.is_none()));
    assert!(engine
        .models(&ModelQuery::default())
        .await
        .is_ok_and(|m| !m.is_empty()));

    // The next good refresh repairs the row.
    engine
        .refresh_catalog_from_dir(dir.path(), &quiet)
        .await
        .expect("import");
    let status = engine.catalog_status().await.expect("status");
    assert!(status.bundled_sources.is_empty());
    assert!(status.sources.iter().all(|s| s.error.is_none()));
}
