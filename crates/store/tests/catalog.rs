//! Catalog snapshots and overrides against the real SQLite file.

use std::collections::BTreeMap;

use switchyard_core::catalog::matching::{MatchOverride, OverrideAction};
use switchyard_core::catalog::record::{BenchmarkRecord, SourceId};
use switchyard_core::catalog::snapshot::SourceSnapshot;
use switchyard_store::Store;

fn snapshot(source: SourceId, keys: &[&str]) -> SourceSnapshot {
    SourceSnapshot {
        source,
        fetched_at: Some("2026-11-29T10:00:00Z".into()),
        data_date: Some("2026-11-28".into()),
        origin: "fixture".into(),
        skipped: 1,
        errors: vec!["row 3: no model".into()],
        openrouter: vec![],
        benchmarks: keys
            .iter()
            .map(|k| BenchmarkRecord {
                source,
                key: (*k).into(),
                display_name: None,
                creator: None,
                release_date: None,
                metrics: BTreeMap::from([("livebench.coding".to_owned(), 61.5)]),
                facts: BTreeMap::new(),
            })
            .collect(),
    }
}

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join("switchyard.db"))
        .await
        .expect("open");
    (dir, store)
}

#[tokio::test]
async fn a_failure_keeps_the_last_good_snapshot_and_success_clears_the_error() {
    let (_dir, store) = store().await;
    let good = snapshot(SourceId::LiveBench, &["gpt-5.1", "grok-4-0709"]);
    store
        .save_source_snapshot(&good, "2026-11-29T10:00:00Z")
        .await
        .expect("save");
    store
        .record_source_failure(
            SourceId::LiveBench,
            "HTTP 503 from livebench",
            "2026-11-29T11:00:00Z",
        )
        .await
        .expect("fail");

    assert_eq!(
        store.source_snapshots().await.expect("load"),
        vec![good.clone()]
    );
    assert_eq!(
        store.source_errors().await.expect("errors"),
        vec![(SourceId::LiveBench, "HTTP 503 from livebench".to_owned())]
    );

    let newer = snapshot(SourceId::LiveBench, &["gpt-5.5"]);
    store
        .save_source_snapshot(&newer, "2026-11-29T12:00:00Z")
        .await
        .expect("save");
    assert_eq!(store.source_snapshots().await.expect("load"), vec![newer]);
    assert!(store.source_errors().await.expect("errors").is_empty());
}

#[tokio::test]
async fn overrides_replace_per_record_and_model_and_survive_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("switchyard.db");
    let store = Store::open(&path).await.expect("open");
    let add = MatchOverride {
        source: SourceId::LmArena,
        key: "mistral-medium-2508".into(),
        model_id: "mistralai/mistral-medium-3.1".into(),
        action: OverrideAction::Add,
    };
    store
        .put_match_override(&add, "2026-11-29T10:00:00Z")
        .await
        .expect("put");
    let remove = MatchOverride {
        action: OverrideAction::Remove,
        ..add.clone()
    };
    store
        .put_match_override(&remove, "2026-11-29T10:01:00Z")
        .await
        .expect("put");
    store.close().await;

    let store = Store::open(&path).await.expect("reopen");
    assert_eq!(
        store.match_overrides().await.expect("list"),
        vec![remove.clone()]
    );
    assert!(store
        .delete_match_override(
            SourceId::LmArena,
            "mistral-medium-2508",
            "mistralai/mistral-medium-3.1"
        )
        .await
        .expect("delete"));
    assert!(!store
        .delete_match_override(
            SourceId::LmArena,
            "mistral-medium-2508",
            "mistralai/mistral-medium-3.1"
        )
        .await
        .expect("delete again"));
    assert!(store.match_overrides().await.expect("list").is_empty());
}
