//! Routing's tables: past picks (`route_picks`) and ratings per (model, category)
//! (`ratings`), from picks, runs or given by hand.
//!
//! Ratings are loaded aggregated (`GROUP BY`), once per routing request; the router never
//! queries inside its ranking. A pick holds at most one rating: rating it again replaces it.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use switchyard_core::catalog::card::Category;
use switchyard_core::routing::FeedbackSummary;

use crate::{Store, StoreError};

/// Where a rating came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingSource {
    /// Given by hand (`switchyard rate`, the model page).
    Manual,
    /// Given to a past pick on the Route page; the pick's id goes with it.
    Pick,
    /// Recorded by a run.
    Run,
}

impl RatingSource {
    /// The value stored in `ratings.source`.
    pub fn id(self) -> &'static str {
        match self {
            RatingSource::Manual => "manual",
            RatingSource::Pick => "pick",
            RatingSource::Run => "run",
        }
    }
}

/// A pick to record.
#[derive(Debug, Clone, Copy)]
pub struct NewRoutePick<'a> {
    /// The task as typed.
    pub task: &'a str,
    /// The category the pick was made in.
    pub category: Category,
    /// The budget tier id (`low`, `medium`, `high`, `any`).
    pub budget: &'a str,
    /// The picked model's catalog id.
    pub model_id: &'a str,
    /// RFC 3339 timestamp.
    pub created_at: &'a str,
}

/// A recorded pick with its rating, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutePickRecord {
    /// Row id.
    pub id: i64,
    /// The task as typed.
    pub task: String,
    /// The category the pick was made in.
    pub category: Category,
    /// The budget tier id.
    pub budget: String,
    /// The picked model's catalog id.
    pub model_id: String,
    /// RFC 3339 timestamp.
    pub created_at: String,
    /// The rating given to this pick (1–5).
    pub rating: Option<u8>,
}

/// Ratings of one model in one category, aggregated.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingAggregate {
    /// The model's catalog id.
    pub model_id: String,
    /// The category.
    pub category: Category,
    /// Count and mean.
    pub summary: FeedbackSummary,
}

const PICK_SELECT: &str = "SELECT p.id, p.task, p.category, p.budget, p.model_id, p.created_at,
        r.rating
     FROM route_picks p LEFT JOIN ratings r ON r.pick_id = p.id";

impl Store {
    /// Records a pick; returns its id.
    pub async fn insert_route_pick(&self, pick: &NewRoutePick<'_>) -> Result<i64, StoreError> {
        let result = sqlx::query(
            "INSERT INTO route_picks (task, category, budget, model_id, created_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(pick.task)
        .bind(pick.category.id())
        .bind(pick.budget)
        .bind(pick.model_id)
        .bind(pick.created_at)
        .execute(self.pool())
        .await?;
        Ok(result.last_insert_rowid())
    }

    /// One pick by id, with its rating.
    pub async fn route_pick(&self, id: i64) -> Result<Option<RoutePickRecord>, StoreError> {
        let row = sqlx::query(&format!("{PICK_SELECT} WHERE p.id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(pick_from_row).transpose()
    }

    /// The newest `limit` picks, newest first, with their ratings.
    pub async fn recent_route_picks(&self, limit: u32) -> Result<Vec<RoutePickRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "{PICK_SELECT} ORDER BY p.created_at DESC, p.id DESC LIMIT ?"
        ))
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(pick_from_row).collect()
    }

    /// Adds a rating that belongs to no pick (`Manual` or `Run`). `rating` must be 1–5 (the
    /// table's CHECK refuses anything else); `Pick` ratings go through
    /// [`Store::rate_route_pick`] and are refused here.
    pub async fn add_rating(
        &self,
        model_id: &str,
        category: Category,
        rating: u8,
        source: RatingSource,
        now: &str,
    ) -> Result<(), StoreError> {
        if source == RatingSource::Pick {
            return Err(StoreError::Corrupt {
                table: "ratings",
                detail: "a pick rating needs its pick id".into(),
            });
        }
        sqlx::query(
            "INSERT INTO ratings (model_id, category, rating, source, pick_id, created_at)
             VALUES (?, ?, ?, ?, NULL, ?)",
        )
        .bind(model_id)
        .bind(category.id())
        .bind(i64::from(rating))
        .bind(source.id())
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Rates a past pick (its model in its category), replacing an earlier rating of the same
    /// pick. Returns the pick, or `None` (and changes nothing) when there is no such pick.
    pub async fn rate_route_pick(
        &self,
        pick_id: i64,
        rating: u8,
        now: &str,
    ) -> Result<Option<RoutePickRecord>, StoreError> {
        let mut tx = self.pool().begin().await?;
        let found = sqlx::query("SELECT model_id, category FROM route_picks WHERE id = ?")
            .bind(pick_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(found) = found else {
            return Ok(None);
        };
        let model_id: String = found.try_get("model_id")?;
        let category: String = found.try_get("category")?;
        sqlx::query(
            "INSERT INTO ratings (model_id, category, rating, source, pick_id, created_at)
             VALUES (?, ?, ?, 'pick', ?, ?)
             ON CONFLICT (pick_id) WHERE pick_id IS NOT NULL
             DO UPDATE SET rating = excluded.rating, created_at = excluded.created_at",
        )
        .bind(&model_id)
        .bind(&category)
        .bind(i64::from(rating))
        .bind(pick_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.route_pick(pick_id).await
    }

    /// Every rated (model, category) with its count and mean, for one routing request.
    pub async fn rating_aggregates(&self) -> Result<Vec<RatingAggregate>, StoreError> {
        let rows = sqlx::query(
            "SELECT model_id, category, COUNT(*) AS n, SUM(rating) AS total
             FROM ratings GROUP BY model_id, category",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let category = parse_category(row.try_get("category")?)?;
                Ok(RatingAggregate {
                    model_id: row.try_get("model_id")?,
                    category,
                    summary: summary(row.try_get("n")?, row.try_get("total")?),
                })
            })
            .collect()
    }

    /// The ratings of one model in one category (count 0, mean 0 when none).
    pub async fn rating_summary(
        &self,
        model_id: &str,
        category: Category,
    ) -> Result<FeedbackSummary, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n, COALESCE(SUM(rating), 0) AS total
             FROM ratings WHERE model_id = ? AND category = ?",
        )
        .bind(model_id)
        .bind(category.id())
        .fetch_one(self.pool())
        .await?;
        Ok(summary(row.try_get("n")?, row.try_get("total")?))
    }
}

fn summary(count: i64, total: i64) -> FeedbackSummary {
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    FeedbackSummary {
        count,
        mean: if count == 0 {
            0.0
        } else {
            total as f64 / f64::from(count)
        },
    }
}

fn parse_category(text: String) -> Result<Category, StoreError> {
    Category::parse(&text).ok_or_else(|| StoreError::Corrupt {
        table: "ratings",
        detail: format!("unknown category {text:?}"),
    })
}

fn pick_from_row(row: &SqliteRow) -> Result<RoutePickRecord, StoreError> {
    let rating: Option<i64> = row.try_get("rating")?;
    Ok(RoutePickRecord {
        id: row.try_get("id")?,
        task: row.try_get("task")?,
        category: parse_category(row.try_get("category")?)?,
        budget: row.try_get("budget")?,
        model_id: row.try_get("model_id")?,
        created_at: row.try_get("created_at")?,
        rating: rating.and_then(|r| u8::try_from(r).ok()),
    })
}
