//! Catalog persistence: the last good snapshot per source, the last refresh attempt per
//! source, refreshed snapshots held back for an explicit "accept anyway", and users' match
//! overrides.

use switchyard_core::catalog::matching::{MatchOverride, OverrideAction};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::snapshot::{HoldReason, SourceSnapshot};
use switchyard_core::catalog::view::HeldSnapshot;

use crate::{Store, StoreError};

const SNAPSHOTS: &str = "source_snapshots";
const CANDIDATES: &str = "source_candidates";

/// The stored snapshots, split into those that decode and those that do not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredSnapshots {
    /// Rows that decode, ordered by source.
    pub snapshots: Vec<SourceSnapshot>,
    /// Rows that no longer decode (hand-edited, damaged, or written by an incompatible
    /// build), with the decoder's complaint. The caller decides what to serve instead.
    pub unreadable: Vec<(SourceId, String)>,
}

impl StoredSnapshots {
    /// The decoded snapshot of `source`, if any.
    pub fn get(&self, source: SourceId) -> Option<&SourceSnapshot> {
        self.snapshots.iter().find(|s| s.source == source)
    }
}

fn encode(table: &'static str, snapshot: &SourceSnapshot) -> Result<String, StoreError> {
    serde_json::to_string(snapshot).map_err(|e| StoreError::Corrupt {
        table,
        detail: e.to_string(),
    })
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn source_key(source: SourceId) -> &'static str {
    source.folder()
}

fn parse_source(text: &str) -> Option<SourceId> {
    SourceId::ALL.into_iter().find(|s| s.folder() == text)
}

impl Store {
    /// Replaces the stored snapshot of its source, clears that source's last error and drops
    /// any snapshot held back for it, in one transaction.
    pub async fn save_source_snapshot(
        &self,
        snapshot: &SourceSnapshot,
        now: &str,
    ) -> Result<(), StoreError> {
        let json = encode(SNAPSHOTS, snapshot)?;
        let records = count(snapshot.record_count());
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
        sqlx::query("DELETE FROM source_candidates WHERE source = ?")
            .bind(source_key(snapshot.source))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records a failed refresh of `source`; its stored snapshot stays as it was, and a
    /// snapshot held back earlier is dropped (it is no longer the latest answer).
    pub async fn record_source_failure(
        &self,
        source: SourceId,
        error: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        record_attempt(&mut tx, source, Some(error), now).await?;
        sqlx::query("DELETE FROM source_candidates WHERE source = ?")
            .bind(source_key(source))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Keeps a refreshed snapshot aside instead of storing it (the stored one stays in use),
    /// replacing any held earlier, and records `reason`'s description as the source's last
    /// error, in one transaction. `previous_records` is the count of the snapshot in use.
    pub async fn hold_source_candidate(
        &self,
        snapshot: &SourceSnapshot,
        reason: HoldReason,
        previous_records: usize,
        now: &str,
    ) -> Result<(), StoreError> {
        let json = encode(CANDIDATES, snapshot)?;
        let reason_json = serde_json::to_string(&reason).map_err(|e| StoreError::Corrupt {
            table: CANDIDATES,
            detail: e.to_string(),
        })?;
        let mut tx = self.pool().begin().await?;
        sqlx::query(
            "INSERT INTO source_candidates
                 (source, held_at, records, previous_records, origin, reason, snapshot)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(source) DO UPDATE SET
                 held_at = excluded.held_at, records = excluded.records,
                 previous_records = excluded.previous_records, origin = excluded.origin,
                 reason = excluded.reason, snapshot = excluded.snapshot",
        )
        .bind(source_key(snapshot.source))
        .bind(now)
        .bind(count(snapshot.record_count()))
        .bind(count(previous_records))
        .bind(&snapshot.origin)
        .bind(reason_json)
        .bind(json)
        .execute(&mut *tx)
        .await?;
        let message = reason.describe(snapshot.source);
        record_attempt(&mut tx, snapshot.source, Some(&message), now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// What is held back, per source (without the records). A row whose reason no longer
    /// decodes is skipped with a warning; the snapshot in use is unaffected either way.
    pub async fn held_source_candidates(&self) -> Result<Vec<HeldSnapshot>, StoreError> {
        let rows: Vec<(String, String, i64, i64, String, String)> = sqlx::query_as(
            "SELECT source, held_at, records, previous_records, origin, reason
             FROM source_candidates ORDER BY source",
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(source, held_at, records, previous, origin, reason)| {
                let id = parse_source(&source)?;
                let reason: HoldReason = serde_json::from_str(&reason)
                    .map_err(|error| {
                        tracing::warn!(source, %error, "a held-back snapshot's reason is unreadable");
                    })
                    .ok()?;
                Some(HeldSnapshot {
                    source: id,
                    reason,
                    records: u32::try_from(records).unwrap_or(0),
                    previous_records: u32::try_from(previous).unwrap_or(0),
                    origin,
                    held_at,
                    message: reason.describe(id),
                })
            })
            .collect())
    }

    /// The snapshot held back for `source`, if any. Errors: `Corrupt` when it no longer
    /// decodes.
    pub async fn source_candidate(
        &self,
        source: SourceId,
    ) -> Result<Option<SourceSnapshot>, StoreError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT snapshot FROM source_candidates WHERE source = ?")
                .bind(source_key(source))
                .fetch_optional(self.pool())
                .await?;
        row.map(|(json,)| {
            serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
                table: CANDIDATES,
                detail: format!("{}: {e}", source_key(source)),
            })
        })
        .transpose()
    }

    /// Every stored snapshot. A row that no longer decodes is listed in
    /// [`StoredSnapshots::unreadable`] rather than failing the read (one bad row must not take
    /// every catalog read down) or being dropped silently.
    pub async fn source_snapshots(&self) -> Result<StoredSnapshots, StoreError> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT source, snapshot FROM source_snapshots ORDER BY source")
                .fetch_all(self.pool())
                .await?;
        let mut stored = StoredSnapshots::default();
        for (key, json) in rows {
            let Some(source) = parse_source(&key) else {
                tracing::warn!(source = key, "a stored snapshot names an unknown source");
                continue;
            };
            match serde_json::from_str::<SourceSnapshot>(&json) {
                Ok(snapshot) if snapshot.source == source => stored.snapshots.push(snapshot),
                Ok(snapshot) => stored.unreadable.push((
                    source,
                    format!("the row holds {} data", snapshot.source.folder()),
                )),
                Err(error) => stored.unreadable.push((source, error.to_string())),
            }
        }
        Ok(stored)
    }

    /// Record counts of the stored snapshots (from the `records` column, without decoding).
    pub async fn source_record_counts(&self) -> Result<Vec<(SourceId, usize)>, StoreError> {
        let rows: Vec<(String, i64)> =
            sqlx::query_as("SELECT source, records FROM source_snapshots ORDER BY source")
                .fetch_all(self.pool())
                .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(source, records)| {
                Some((
                    parse_source(&source)?,
                    usize::try_from(records).unwrap_or(0),
                ))
            })
            .collect())
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

async fn record_attempt(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    source: SourceId,
    error: Option<&str>,
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
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(feature = "test-support")]
impl Store {
    /// Test support only (feature `test-support`): overwrites the stored snapshot of `source`
    /// with `text`, creating the row, to simulate a database damaged by hand or written by an
    /// incompatible build. Never compiled into the app or the CLI.
    pub async fn overwrite_source_snapshot_for_tests(
        &self,
        source: SourceId,
        text: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO source_snapshots
                 (source, fetched_at, data_date, origin, records, snapshot, updated_at)
             VALUES (?, NULL, NULL, 'test', 1, ?, '2026-01-01T00:00:00Z')
             ON CONFLICT(source) DO UPDATE SET snapshot = excluded.snapshot",
        )
        .bind(source_key(source))
        .bind(text)
        .execute(self.pool())
        .await?;
        Ok(())
    }
}
