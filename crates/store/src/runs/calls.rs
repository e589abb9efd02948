//! The ledger's entries: every try of a node, recorded `reserved` with its worst case before
//! it is made and finished (settled, failed, released) afterwards. Each change moves the
//! run's `spent_usd` / `reserved_usd` and the node's totals in the same transaction, and only
//! for the holder of the run's lease.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use switchyard_core::run::{CallPurpose, CallState};

use super::sets::{opt_u32_of, parsed, u32_of};
use crate::journal::{self, Journal};
use crate::{Store, StoreError};

/// Builds a reservation's log entry from the call's number and the ledger after it.
type ReserveBody = fn(u32, f64, f64) -> String;
/// Builds a finished call's log entry from the ledger after it.
type FinishBody = fn(f64, f64) -> String;

/// Rounding slack of the cap check (a thousandth of a cent), as in the core ledger.
const EPSILON_USD: f64 = 1e-9;

/// A call about to be made.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCall {
    pub run_id: String,
    pub node_id: String,
    pub purpose: CallPurpose,
    pub model: String,
    pub worker: Option<String>,
    pub rung: Option<u32>,
    pub reserved_usd: f64,
    pub started_ms: i64,
    pub attempt_id: Option<String>,
}

/// How reserving went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reserved {
    /// Recorded as call `n`; the run's ledger after it.
    Yes {
        n: u32,
        spent_usd: f64,
        reserved_usd: f64,
    },
    /// It does not fit under the run's cap (nothing recorded).
    OverCap { spent_usd: f64, reserved_usd: f64 },
    /// The caller does not hold the run's lease (nothing recorded).
    LeaseLost,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEnd {
    /// `settled`, `failed` or `released`.
    pub state: CallState,
    pub cost_usd: f64,
    pub tokens_in: u32,
    pub tokens_out: u32,
    pub finished_ms: i64,
    pub error: Option<String>,
    pub signal_json: Option<String>,
    pub attempt_id: Option<String>,
}

/// One stored call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRow {
    pub run_id: String,
    pub node_id: String,
    pub n: u32,
    pub purpose: CallPurpose,
    pub model: String,
    pub worker: Option<String>,
    pub rung: Option<u32>,
    pub state: CallState,
    pub reserved_usd: f64,
    pub cost_usd: f64,
    pub tokens_in: u32,
    pub tokens_out: u32,
    pub started_ms: i64,
    pub finished_ms: Option<i64>,
    pub error: Option<String>,
    pub signal_json: Option<String>,
    pub attempt_id: Option<String>,
}

fn call_row(row: &SqliteRow) -> Result<CallRow, StoreError> {
    Ok(CallRow {
        run_id: row.try_get("run_id")?,
        node_id: row.try_get("node_id")?,
        n: u32_of(row, "n")?,
        purpose: parsed(row, "purpose", "run_calls", CallPurpose::parse)?,
        model: row.try_get("model")?,
        worker: row.try_get("worker")?,
        rung: opt_u32_of(row, "rung")?,
        state: parsed(row, "state", "run_calls", CallState::parse)?,
        reserved_usd: row.try_get("reserved_usd")?,
        cost_usd: row.try_get("cost_usd")?,
        tokens_in: u32_of(row, "tokens_in")?,
        tokens_out: u32_of(row, "tokens_out")?,
        started_ms: row.try_get("started_ms")?,
        finished_ms: row.try_get("finished_ms")?,
        error: row.try_get("error")?,
        signal_json: row.try_get("signal_json")?,
        attempt_id: row.try_get("attempt_id")?,
    })
}

impl Store {
    /// Records `call` as `reserved` and adds its reservation to the run, if `owner` holds
    /// the run's lease and the reservation fits under the run's cap (checked here too, so the
    /// cap holds whatever the caller's own bookkeeping says).
    pub async fn reserve_call(&self, owner: &str, call: &NewCall) -> Result<Reserved, StoreError> {
        let none: Option<(i64, ReserveBody)> = None;
        Ok(self.reserve(owner, call, none).await?.0)
    }

    /// [`Store::reserve_call`], appending the run event `body(n, spent, reserved)` (the ledger
    /// after it) in the same transaction when it was reserved; returns the event's number.
    pub async fn reserve_call_logged(
        &self,
        owner: &str,
        call: &NewCall,
        at_ms: i64,
        body: impl FnOnce(u32, f64, f64) -> String,
    ) -> Result<(Reserved, Option<u32>), StoreError> {
        self.reserve(owner, call, Some((at_ms, body))).await
    }

    async fn reserve(
        &self,
        owner: &str,
        call: &NewCall,
        log: Option<(i64, impl FnOnce(u32, f64, f64) -> String)>,
    ) -> Result<(Reserved, Option<u32>), StoreError> {
        let mut tx = self.begin_immediate().await?;
        // One statement checks the lease and the cap and reserves: each statement is a
        // round trip made while holding SQLite's write lock, which the run's other nodes wait
        // for.
        let ledger: Option<(f64, f64)> =
            if call.reserved_usd.is_finite() && call.reserved_usd >= 0.0 {
                sqlx::query_as(
                    "UPDATE runs SET reserved_usd = reserved_usd + ?1
                 WHERE id = ?2 AND owner_token = ?3
                   AND spent_usd + reserved_usd + ?1 <= max_usd + ?4
                 RETURNING spent_usd, reserved_usd",
                )
                .bind(call.reserved_usd)
                .bind(&call.run_id)
                .bind(owner)
                .bind(EPSILON_USD)
                .fetch_optional(&mut *tx)
                .await?
            } else {
                None
            };
        let Some((spent, after)) = ledger else {
            // Refused: say why (a read, off the reserving path).
            let run: Option<(f64, f64)> = sqlx::query_as(
                "SELECT spent_usd, reserved_usd FROM runs WHERE id = ? AND owner_token = ?",
            )
            .bind(&call.run_id)
            .bind(owner)
            .fetch_optional(&mut *tx)
            .await?;
            return Ok(match run {
                None => (Reserved::LeaseLost, None),
                Some((spent_usd, reserved_usd)) => (
                    Reserved::OverCap {
                        spent_usd,
                        reserved_usd,
                    },
                    None,
                ),
            });
        };
        let n: i64 = sqlx::query_scalar(
            "INSERT INTO run_calls (run_id, node_id, n, purpose, model, worker, rung, state,
                 reserved_usd, started_ms, attempt_id)
             SELECT ?, ?, COALESCE(MAX(n), 0) + 1, ?, ?, ?, ?, 'reserved', ?, ?, ?
             FROM run_calls WHERE run_id = ? AND node_id = ?
             RETURNING n",
        )
        .bind(&call.run_id)
        .bind(&call.node_id)
        .bind(call.purpose.as_str())
        .bind(&call.model)
        .bind(&call.worker)
        .bind(call.rung.map(i64::from))
        .bind(call.reserved_usd)
        .bind(call.started_ms)
        .bind(&call.attempt_id)
        .bind(&call.run_id)
        .bind(&call.node_id)
        .fetch_one(&mut *tx)
        .await?;
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let seq = match log {
            Some((at_ms, body)) => Some(
                journal::append_on(
                    &mut *tx,
                    Journal::Run,
                    &call.run_id,
                    at_ms,
                    &body(n, spent, after),
                )
                .await?,
            ),
            None => None,
        };
        tx.commit().await?;
        Ok((
            Reserved::Yes {
                n,
                spent_usd: spent,
                reserved_usd: after,
            },
            seq,
        ))
    }

    /// Finishes reserved call `n` of the node: gives its reservation back, spends `end`'s
    /// cost on the run and adds cost and tokens to the node. Returns the run's `(spent,
    /// reserved)` after it; `None` (nothing changed) when the call is not reserved or `owner`
    /// does not hold the run's lease.
    pub async fn finish_call(
        &self,
        run_id: &str,
        node_id: &str,
        n: u32,
        owner: &str,
        end: &CallEnd,
    ) -> Result<Option<(f64, f64)>, StoreError> {
        let none: Option<(i64, FinishBody)> = None;
        Ok(self
            .finish(run_id, node_id, n, owner, end, none)
            .await?
            .map(|(ledger, _)| ledger))
    }

    /// [`Store::finish_call`], appending the run event `body(spent, reserved)` (the ledger
    /// after it) in the same transaction; returns the ledger and the event's number.
    #[allow(clippy::too_many_arguments)]
    pub async fn finish_call_logged(
        &self,
        run_id: &str,
        node_id: &str,
        n: u32,
        owner: &str,
        end: &CallEnd,
        at_ms: i64,
        body: impl FnOnce(f64, f64) -> String,
    ) -> Result<Option<((f64, f64), u32)>, StoreError> {
        Ok(self
            .finish(run_id, node_id, n, owner, end, Some((at_ms, body)))
            .await?
            .map(|(ledger, seq)| (ledger, seq.unwrap_or(0))))
    }

    async fn finish(
        &self,
        run_id: &str,
        node_id: &str,
        n: u32,
        owner: &str,
        end: &CallEnd,
        log: Option<(i64, impl FnOnce(f64, f64) -> String)>,
    ) -> Result<Option<((f64, f64), Option<u32>)>, StoreError> {
        let cost = if end.cost_usd.is_finite() && end.cost_usd > 0.0 {
            end.cost_usd
        } else {
            0.0
        };
        let mut tx = self.begin_immediate().await?;
        // The lease and the call's state are checked by the update itself (see `reserve`).
        let reserved: Option<(f64,)> = sqlx::query_as(
            "UPDATE run_calls SET state = ?, cost_usd = ?, tokens_in = ?, tokens_out = ?,
                 finished_ms = ?, error = ?, signal_json = ?,
                 attempt_id = COALESCE(?, attempt_id)
             WHERE run_id = ? AND node_id = ? AND n = ? AND state = 'reserved'
               AND EXISTS (SELECT 1 FROM runs WHERE id = run_calls.run_id AND owner_token = ?)
             RETURNING reserved_usd",
        )
        .bind(end.state.as_str())
        .bind(cost)
        .bind(i64::from(end.tokens_in))
        .bind(i64::from(end.tokens_out))
        .bind(end.finished_ms)
        .bind(&end.error)
        .bind(&end.signal_json)
        .bind(&end.attempt_id)
        .bind(run_id)
        .bind(node_id)
        .bind(i64::from(n))
        .bind(owner)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((reserved,)) = reserved else {
            return Ok(None);
        };
        let ledger: (f64, f64) = sqlx::query_as(
            "UPDATE runs SET spent_usd = spent_usd + ?,
                 reserved_usd = CASE WHEN reserved_usd - ? < ? THEN 0.0
                                     ELSE reserved_usd - ? END
             WHERE id = ? RETURNING spent_usd, reserved_usd",
        )
        .bind(cost)
        .bind(reserved)
        .bind(EPSILON_USD)
        .bind(reserved)
        .bind(run_id)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE run_nodes SET cost_usd = cost_usd + ?, tokens_in = tokens_in + ?,
                 tokens_out = tokens_out + ?
             WHERE run_id = ? AND node_id = ?",
        )
        .bind(cost)
        .bind(i64::from(end.tokens_in))
        .bind(i64::from(end.tokens_out))
        .bind(run_id)
        .bind(node_id)
        .execute(&mut *tx)
        .await?;
        let seq = match log {
            Some((at_ms, body)) => Some(
                journal::append_on(
                    &mut *tx,
                    Journal::Run,
                    run_id,
                    at_ms,
                    &body(ledger.0, ledger.1),
                )
                .await?,
            ),
            None => None,
        };
        tx.commit().await?;
        Ok(Some((ledger, seq)))
    }

    /// Records why finished call `n` counted as failed (a judge's low score found after the
    /// call settled), if `owner` holds the run's lease.
    pub async fn set_call_signal(
        &self,
        run_id: &str,
        node_id: &str,
        n: u32,
        owner: &str,
        signal_json: &str,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "UPDATE run_calls SET signal_json = ?
             WHERE run_id = ? AND node_id = ? AND n = ?
               AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner_token = ?)",
        )
        .bind(signal_json)
        .bind(run_id)
        .bind(node_id)
        .bind(i64::from(n))
        .bind(run_id)
        .bind(owner)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Calls a dead owner left `reserved`: each becomes `failed`, spent at its whole
    /// reservation (what it may have cost; the cap holds across the crash). For the new
    /// holder of the run's lease; returns the calls as they were.
    pub async fn settle_lost_calls(
        &self,
        run_id: &str,
        owner: &str,
        now_ms: i64,
    ) -> Result<Vec<CallRow>, StoreError> {
        let lost = sqlx::query(
            "SELECT * FROM run_calls WHERE run_id = ? AND state = 'reserved' ORDER BY node_id, n",
        )
        .bind(run_id)
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(call_row)
        .collect::<Result<Vec<_>, _>>()?;
        for call in &lost {
            let end = CallEnd {
                state: CallState::Failed,
                cost_usd: call.reserved_usd,
                tokens_in: 0,
                tokens_out: 0,
                finished_ms: now_ms,
                error: Some(
                    "the run's owner went away during this call; it is counted at its whole \
                     reservation"
                        .into(),
                ),
                signal_json: None,
                attempt_id: None,
            };
            self.finish_call(run_id, &call.node_id, call.n, owner, &end)
                .await?;
        }
        Ok(lost)
    }

    /// Every call of a run, by node then number.
    pub async fn run_calls(&self, run_id: &str) -> Result<Vec<CallRow>, StoreError> {
        let rows =
            sqlx::query("SELECT * FROM run_calls WHERE run_id = ? ORDER BY started_ms, node_id, n")
                .bind(run_id)
                .fetch_all(self.pool())
                .await?;
        rows.iter().map(call_row).collect()
    }
}
