//! Leases on live jobs, attempts and runs alike. A job's row holds its owner's token; the
//! owner renews the lease and hears a cancel another process asked for in one statement,
//! and any process records such a request on the row.

use crate::{Store, StoreError};

/// The kind of job a lease is on: which table holds it and which of its states are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leased {
    Attempt,
    Run,
}

impl Leased {
    fn table(self) -> &'static str {
        match self {
            Leased::Attempt => "attempts",
            Leased::Run => "runs",
        }
    }

    /// The live states, as an SQL list.
    fn live(self) -> &'static str {
        match self {
            Leased::Attempt => crate::attempts::LIVE,
            Leased::Run => crate::runs::LIVE,
        }
    }
}

impl Store {
    /// Renews the lease of `token` on job `id`. `None` when it holds it no more; otherwise
    /// when (if ever) another process asked for the job to be canceled.
    pub async fn renew_lease(
        &self,
        kind: Leased,
        id: &str,
        token: &str,
        now_ms: i64,
    ) -> Result<Option<Option<i64>>, StoreError> {
        let row: Option<(Option<i64>,)> = sqlx::query_as(&format!(
            "UPDATE {} SET heartbeat_ms = ? WHERE id = ? AND owner_token = ?
             RETURNING cancel_requested_ms",
            kind.table()
        ))
        .bind(now_ms)
        .bind(id)
        .bind(token)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|(requested,)| requested))
    }

    /// Asks the owner of live job `id` to cancel it (the first request's time is kept).
    /// `false` when there is no such live job (it ended meanwhile, or never was).
    pub async fn request_cancel(
        &self,
        kind: Leased,
        id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(&format!(
            "UPDATE {} SET cancel_requested_ms = COALESCE(cancel_requested_ms, ?)
             WHERE id = ? AND state IN {}",
            kind.table(),
            kind.live()
        ))
        .bind(now_ms)
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Passes the lease on job `id`, in `state` and held under `from`, to `(pid, to)`: how a
    /// job handed to another process changes hands. `false` when it is no longer in `state`
    /// under `from` (adopted already, interrupted or canceled).
    #[allow(clippy::too_many_arguments)]
    pub async fn pass_lease(
        &self,
        kind: Leased,
        id: &str,
        state: &str,
        from: &str,
        pid: u32,
        to: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(&format!(
            "UPDATE {} SET owner_pid = ?, owner_token = ?, heartbeat_ms = ?, updated_ms = ?
             WHERE id = ? AND state = ? AND owner_token = ?",
            kind.table()
        ))
        .bind(i64::from(pid))
        .bind(to)
        .bind(now_ms)
        .bind(now_ms)
        .bind(id)
        .bind(state)
        .bind(from)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() == 1)
    }
}
