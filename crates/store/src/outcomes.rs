//! Outcome records, stored: the engine derives them from a job's rows and writes them here,
//! and routing reads them back. Triggers (see the `outcomes` migration) mark a job as behind
//! in the transaction of every change a record depends on; [`Store::jobs_behind`] lists them
//! and [`Store::replace_outcomes`] brings one up to date.

use switchyard_core::outcomes::OutcomeRecord;

use crate::journal::Journal;
use crate::{Store, StoreError};

/// A job whose stored records are older than its rows, at the change count read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobBehind {
    pub journal: Journal,
    pub id: String,
    pub version: i64,
}

impl Store {
    /// Every job whose records are behind its rows.
    pub async fn jobs_behind(&self) -> Result<Vec<JobBehind>, StoreError> {
        let rows: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT job_kind, job_id, version FROM outcome_jobs WHERE version > done
             ORDER BY job_kind, job_id",
        )
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(kind, id, version)| {
                Ok(JobBehind {
                    journal: Journal::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                        table: "outcome_jobs",
                        detail: format!("unknown job kind {kind:?}"),
                    })?,
                    id,
                    version,
                })
            })
            .collect()
    }

    /// Replaces `job`'s records with `records` and marks them derived from `job.version`, in
    /// one transaction. A change made since `job` was read keeps the job behind.
    pub async fn replace_outcomes(
        &self,
        job: &JobBehind,
        records: &[OutcomeRecord],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("DELETE FROM outcomes WHERE job_kind = ? AND job_id = ?")
            .bind(job.journal.kind())
            .bind(&job.id)
            .execute(&mut *tx)
            .await?;
        for record in records {
            let json = serde_json::to_string(record).map_err(|error| StoreError::Corrupt {
                table: "outcomes",
                detail: error.to_string(),
            })?;
            // A record moved between jobs (an attempt linked to a run) is replaced, not doubled.
            sqlx::query(
                "INSERT OR REPLACE INTO outcomes
                 (id, job_kind, job_id, finished_ms, category, model, launcher, succeeded,
                  record_json)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&record.id)
            .bind(job.journal.kind())
            .bind(&job.id)
            .bind(record.finished_ms)
            .bind(record.task.category.id())
            .bind(record.model.as_deref())
            .bind(&record.launcher)
            .bind(i64::from(record.succeeded))
            .bind(json)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "UPDATE outcome_jobs SET done = MAX(done, ?) WHERE job_kind = ? AND job_id = ?",
        )
        .bind(job.version)
        .bind(job.journal.kind())
        .bind(&job.id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The stored records that finished at or after `since_ms`, newest first.
    pub async fn stored_outcomes(&self, since_ms: i64) -> Result<Vec<OutcomeRecord>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, record_json FROM outcomes WHERE finished_ms >= ?
             ORDER BY finished_ms DESC, id",
        )
        .bind(since_ms)
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(id, json)| {
                serde_json::from_str(&json).map_err(|error| StoreError::Corrupt {
                    table: "outcomes",
                    detail: format!("{id}: {error}"),
                })
            })
            .collect()
    }
}
