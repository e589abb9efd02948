//! Catalog persistence: the last good snapshot per source, the last refresh attempt per
//! source, and users' match overrides.

use switchyard_core::catalog::matching::{MatchOverride, OverrideAction};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::snapshot::SourceSnapshot;

use crate::{Store, StoreError};

const SNAPSHOTS: &str = "source_snapshots";

fn source_key(source: SourceId) -> &'static str {
    source.folder()
}

fn parse_source(text: &str) -> Option<SourceId> {
    SourceId::ALL.into_iter().find(|s| s.folder() == text)
}

impl Store {
    /// Replaces the stored snapshot of its source and clears that source's last error, in one
    /// transaction.
    pub async fn save_source_snapshot(
        &self,
        snapshot: &SourceSnapshot,
        now: &str,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(snapshot).map_err(|e| StoreError::Corrupt {
            table: SNAPSHOTS,
            detail: e.to_string(),
        })?;
        let records = i64::try_from(snapshot.record_count()).unwrap_or(i64::MAX);
        let mut tx = self.pool().begin().await?;
        sqlx::query(
            "INSERT INTO source_snapshots
                 (source, fetched_at, data_date, origin, records, snapshot, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(source) DO UPDATE SET
                 fetched_at = excluded.fetched_at, data_date = excluded.data_date,
                 origin = excluded.origin, records = excluded.records,
                 snapshot = excluded.snapshot, updated_at = excluded.updated_at",
        )
        .bind(source_key(snapshot.source))
        .bind(&snapshot.fetched_at)
        .bind(&snapshot.data_date)
        .bind(&snapshot.origin)
        .bind(records)
        .bind(json)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO source_attempts (source, attempted_at, error) VALUES (?, ?, NULL)
             ON CONFLICT(source) DO UPDATE SET attempted_at = excluded.attempted_at, error = NULL",
        )
        .bind(source_key(snapshot.source))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records a failed refresh of `source`; its stored snapshot stays as it was.
    pub async fn record_source_failure(
        &self,
        source: SourceId,
        error: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO source_attempts (source, attempted_at, error) VALUES (?, ?, ?)
             ON CONFLICT(source) DO UPDATE SET attempted_at = excluded.attempted_at,
                 error = excluded.error",
        )
        .bind(source_key(source))
        .bind(now)
        .bind(error)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Every stored snapshot. A row that no longer decodes is reported as corrupt rather than
    /// silently dropped.
    pub async fn source_snapshots(&self) -> Result<Vec<SourceSnapshot>, StoreError> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT source, snapshot FROM source_snapshots ORDER BY source")
                .fetch_all(self.pool())
                .await?;
        rows.into_iter()
            .map(|(source, json)| {
                serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
                    table: SNAPSHOTS,
                    detail: format!("{source}: {e}"),
                })
            })
            .collect()
    }

    /// The last error of each source whose latest refresh attempt failed.
    pub async fn source_errors(&self) -> Result<Vec<(SourceId, String)>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT source, error FROM source_attempts WHERE error IS NOT NULL ORDER BY source",
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(source, error)| parse_source(&source).map(|s| (s, error)))
            .collect())
    }

    /// Adds or replaces a match override.
    pub async fn put_match_override(
        &self,
        correction: &MatchOverride,
        now: &str,
    ) -> Result<(), StoreError> {
        let action = match correction.action {
            OverrideAction::Add => "add",
            OverrideAction::Remove => "remove",
        };
        let mut tx = self.pool().begin().await?;
        // One decision per (record, model): adding after removing (or the reverse) replaces it.
        sqlx::query(
            "DELETE FROM catalog_overrides WHERE source = ? AND record_key = ? AND model_id = ?",
        )
        .bind(source_key(correction.source))
        .bind(&correction.key)
        .bind(&correction.model_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO catalog_overrides (source, record_key, model_id, action, created_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(source_key(correction.source))
        .bind(&correction.key)
        .bind(&correction.model_id)
        .bind(action)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Deletes an override; returns whether one existed.
    pub async fn delete_match_override(
        &self,
        source: SourceId,
        key: &str,
        model_id: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "DELETE FROM catalog_overrides WHERE source = ? AND record_key = ? AND model_id = ?",
        )
        .bind(source_key(source))
        .bind(key)
        .bind(model_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every override, oldest first.
    pub async fn match_overrides(&self) -> Result<Vec<MatchOverride>, StoreError> {
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT source, record_key, model_id, action FROM catalog_overrides
             ORDER BY created_at, source, record_key",
        )
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(source, key, model_id, action)| {
                let source = parse_source(&source).ok_or_else(|| StoreError::Corrupt {
                    table: "catalog_overrides",
                    detail: format!("unknown source {source}"),
                })?;
                let action = match action.as_str() {
                    "add" => OverrideAction::Add,
                    _ => OverrideAction::Remove,
                };
                Ok(MatchOverride {
                    source,
                    key,
                    model_id,
                    action,
                })
            })
            .collect()
    }
}
