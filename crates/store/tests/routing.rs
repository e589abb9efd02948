//! Route picks and ratings against the real SQLite file.

use switchyard_core::catalog::card::Category;
use switchyard_store::routing::{NewRoutePick, RatingSource};
use switchyard_store::{Store, DATABASE_FILE};

const T0: &str = "2026-11-29T10:00:00Z";
const T1: &str = "2026-11-29T11:00:00Z";
const T2: &str = "2026-11-29T12:00:00Z";

async fn open(dir: &tempfile::TempDir) -> Store {
    Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("open")
}

fn new_pick<'a>(task: &'a str, model_id: &'a str, created_at: &'a str) -> NewRoutePick<'a> {
    NewRoutePick {
        task,
        category: Category::Coding,
        budget: "medium",
        model_id,
        created_at,
    }
}

#[tokio::test]
async fn picks_are_listed_newest_first_with_their_ratings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    let first = store
        .insert_route_pick(&new_pick("write a parser", "a/one", T0))
        .await
        .expect("insert");
    let second = store
        .insert_route_pick(&new_pick("fix the bug", "b/two", T1))
        .await
        .expect("insert");
    assert_ne!(first, second);
    let rated = store
        .rate_route_pick(first, 2, T2)
        .await
        .expect("rate")
        .expect("pick exists");
    assert_eq!(rated.rating, Some(2));

    let recent = store.recent_route_picks(10).await.expect("recent");
    let ids: Vec<i64> = recent.iter().map(|p| p.id).collect();
    assert_eq!(ids, vec![second, first]);
    assert_eq!(recent[0].rating, None);
    assert_eq!(recent[1].rating, Some(2));
    assert_eq!(recent[1].task, "write a parser");
    assert_eq!(recent[1].category, Category::Coding);
    assert_eq!(recent[1].budget, "medium");

    let limited = store.recent_route_picks(1).await.expect("recent");
    assert_eq!(limited.len(), 1);
    assert_eq!(limited[0].id, second);
}

#[tokio::test]
async fn rating_a_pick_again_replaces_its_rating() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    let id = store
        .insert_route_pick(&new_pick("task", "a/one", T0))
        .await
        .expect("insert");
    store.rate_route_pick(id, 1, T1).await.expect("rate");
    store.rate_route_pick(id, 5, T2).await.expect("rate");
    let summary = store
        .rating_summary("a/one", Category::Coding)
        .await
        .expect("summary");
    assert_eq!(summary.count, 1);
    assert_eq!(summary.mean, 5.0);
}

#[tokio::test]
async fn rating_an_unknown_pick_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    assert!(store
        .rate_route_pick(42, 3, T0)
        .await
        .expect("rate")
        .is_none());
    assert!(store
        .rating_aggregates()
        .await
        .expect("aggregates")
        .is_empty());
}

#[tokio::test]
async fn aggregates_group_by_model_and_category() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    for rating in [1, 2, 3] {
        store
            .add_rating("a/one", Category::Coding, rating, RatingSource::Manual, T0)
            .await
            .expect("rate");
    }
    store
        .add_rating("a/one", Category::Math, 5, RatingSource::Run, T0)
        .await
        .expect("rate");
    let id = store
        .insert_route_pick(&new_pick("task", "a/one", T0))
        .await
        .expect("insert");
    store.rate_route_pick(id, 4, T1).await.expect("rate");

    let mut aggregates = store.rating_aggregates().await.expect("aggregates");
    aggregates.sort_by_key(|a| a.category);
    assert_eq!(aggregates.len(), 2);
    assert_eq!(aggregates[0].category, Category::Coding);
    assert_eq!(aggregates[0].summary.count, 4);
    assert_eq!(aggregates[0].summary.mean, 2.5);
    assert_eq!(aggregates[1].category, Category::Math);
    assert_eq!(aggregates[1].summary.count, 1);
}

#[tokio::test]
async fn out_of_range_ratings_are_refused_by_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    for rating in [0, 6] {
        let result = store
            .add_rating("a/one", Category::Coding, rating, RatingSource::Manual, T0)
            .await;
        assert!(result.is_err(), "rating {rating} was stored");
    }
    assert!(store
        .add_rating("a/one", Category::Coding, 3, RatingSource::Pick, T0)
        .await
        .is_err());
    let summary = store
        .rating_summary("a/one", Category::Coding)
        .await
        .expect("summary");
    assert_eq!(summary.count, 0);
}

#[tokio::test]
async fn picks_and_ratings_survive_reopening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = {
        let store = open(&dir).await;
        let id = store
            .insert_route_pick(&new_pick("task", "a/one", T0))
            .await
            .expect("insert");
        store.rate_route_pick(id, 2, T1).await.expect("rate");
        store.close().await;
        id
    };
    let store = open(&dir).await;
    let pick = store.route_pick(id).await.expect("load").expect("exists");
    assert_eq!(pick.rating, Some(2));
    assert_eq!(pick.model_id, "a/one");
}
