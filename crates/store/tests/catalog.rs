//! Catalog snapshots and overrides against the real SQLite file.

use std::collections::BTreeMap;

use switchyard_core::catalog::matching::{MatchOverride, OverrideAction};
use switchyard_core::catalog::record::{BenchmarkRecord, SourceId};
use switchyard_core::catalog::snapshot::{HoldReason, SourceSnapshot};
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
        store.source_snapshots().await.expect("load").snapshots,
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
    assert_eq!(
        store.source_snapshots().await.expect("load").snapshots,
        vec![newer]
    );
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

/// Writes `text` into the snapshot column of `source`'s row, as a damaged database would hold.
async fn damage(path: &std::path::Path, source: &str, text: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .expect("raw connection");
    sqlx::query("UPDATE source_snapshots SET snapshot = ? WHERE source = ?")
        .bind(text)
        .bind(source)
        .execute(&mut conn)
        .await
        .expect("damage the row");
    conn.close().await.expect("close");
}

#[tokio::test]
async fn one_undecodable_snapshot_row_no_longer_fails_every_snapshot_read() {
    let (dir, store) = store().await;
    let arena = snapshot(SourceId::LmArena, &["gpt-5.1"]);
    let live = snapshot(SourceId::LiveBench, &["grok-4-0709"]);
    for s in [&arena, &live] {
        store
            .save_source_snapshot(s, "2026-11-29T10:00:00Z")
            .await
            .expect("save");
    }
    damage(
        &dir.path().join("switchyard.db"),
        "lmarena",
        "{\"source\": \"lmArena\", \"benchm",
    )
    .await;

    let stored = store
        .source_snapshots()
        .await
        .expect("a bad row is not an error");
    assert_eq!(stored.snapshots, vec![live.clone()]);
    assert_eq!(stored.unreadable.len(), 1);
    assert_eq!(stored.unreadable[0].0, SourceId::LmArena);
    assert!(stored.get(SourceId::LiveBench).is_some());
    // Saving a good snapshot over it repairs the row.
    store
        .save_source_snapshot(&arena, "2026-11-29T11:00:00Z")
        .await
        .expect("save");
    let stored = store.source_snapshots().await.expect("load");
    assert!(stored.unreadable.is_empty());
    assert_eq!(stored.snapshots.len(), 2);
}

#[tokio::test]
async fn a_held_candidate_keeps_the_snapshot_in_use_until_a_later_attempt() {
    let (_dir, store) = store().await;
    let good = snapshot(SourceId::LmArena, &["a", "b", "c", "d", "e"]);
    store
        .save_source_snapshot(&good, "2026-11-29T10:00:00Z")
        .await
        .expect("save");
    let small = snapshot(SourceId::LmArena, &["a"]);
    let reason = HoldReason::Dropped {
        previous: 5,
        candidate: 1,
    };
    store
        .hold_source_candidate(&small, reason, 5, "2026-11-29T11:00:00Z")
        .await
        .expect("hold");

    assert_eq!(
        store.source_snapshots().await.expect("load").snapshots,
        vec![good.clone()],
        "the snapshot in use stays"
    );
    let held = store.held_source_candidates().await.expect("held");
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].source, SourceId::LmArena);
    assert_eq!(held[0].reason, reason);
    assert_eq!((held[0].records, held[0].previous_records), (1, 5));
    assert_eq!(
        store.source_errors().await.expect("errors"),
        vec![(SourceId::LmArena, reason.describe(SourceId::LmArena))]
    );
    assert_eq!(
        store
            .source_candidate(SourceId::LmArena)
            .await
            .expect("candidate"),
        Some(small.clone())
    );
    assert_eq!(
        store.source_record_counts().await.expect("counts"),
        vec![(SourceId::LmArena, 5)]
    );

    // A later failure of the same source drops the candidate (no longer the latest answer).
    store
        .record_source_failure(SourceId::LmArena, "HTTP 503", "2026-11-29T12:00:00Z")
        .await
        .expect("fail");
    assert!(store
        .held_source_candidates()
        .await
        .expect("held")
        .is_empty());

    // Saving (what "accept anyway" does) also clears it.
    store
        .hold_source_candidate(&small, reason, 5, "2026-11-29T13:00:00Z")
        .await
        .expect("hold");
    store
        .save_source_snapshot(&small, "2026-11-29T14:00:00Z")
        .await
        .expect("save");
    assert!(store
        .held_source_candidates()
        .await
        .expect("held")
        .is_empty());
    assert!(store.source_errors().await.expect("errors").is_empty());
    assert_eq!(
        store.source_snapshots().await.expect("load").snapshots,
        vec![small]
    );
}
