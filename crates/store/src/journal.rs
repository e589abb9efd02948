//! The journal: every job's events — an attempt's state changes, gate results and worker
//! output, a run's state, node and ledger moves — in one table, numbered per job. A state
//! change and its event are written in one transaction (`update_attempt_logged`,
//! `update_run_logged`, the node and call writes), so a crash leaves both or neither.

use crate::{Store, StoreError};

/// Whose events: one journal, two kinds of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journal {
    Attempt,
    Run,
}

impl Journal {
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Journal::Attempt => "attempt",
            Journal::Run => "run",
        }
    }

    pub(crate) fn parse(kind: &str) -> Option<Journal> {
        match kind {
            "attempt" => Some(Journal::Attempt),
            "run" => Some(Journal::Run),
            _ => None,
        }
    }
}

/// One stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    pub seq: u32,
    pub at_ms: i64,
    pub body_json: String,
}

/// Appends one event to job `id`'s journal, numbered by the statement itself (MAX + 1).
/// Inside a transaction that has just written a change, this is the one place between the
/// change and its event (see [`between_state_and_event`]).
pub(crate) async fn append_on<'e, E>(
    executor: E,
    journal: Journal,
    id: &str,
    at_ms: i64,
    body_json: &str,
) -> Result<u32, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Sqlite>,
{
    between_state_and_event(body_json);
    let seq: i64 = sqlx::query_scalar(
        "INSERT INTO events (kind, job_id, seq, at_ms, body_json)
         SELECT ?1, ?2, COALESCE(MAX(seq), 0) + 1, ?3, ?4 FROM events
         WHERE kind = ?1 AND job_id = ?2
         RETURNING seq",
    )
    .bind(journal.kind())
    .bind(id)
    .bind(at_ms)
    .bind(body_json)
    .fetch_one(executor)
    .await?;
    u32::try_from(seq).map_err(|_| StoreError::Corrupt {
        table: "events",
        detail: format!("sequence {seq} out of range"),
    })
}

/// A test hook where a state change is written and its event not yet: a debug build whose
/// `SWITCHYARD_FAILPOINT` is `between-state-and-event:<text>` is SIGKILLed here when the
/// event's body contains `<text>` — so a test can kill a process at that point and check
/// the store.
fn between_state_and_event(body_json: &str) {
    if cfg!(debug_assertions) {
        if let Ok(point) = std::env::var("SWITCHYARD_FAILPOINT") {
            if point
                .strip_prefix("between-state-and-event:")
                .is_some_and(|text| body_json.contains(text))
            {
                let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}

impl Store {
    /// Appends one event to job `id`'s journal and returns its number (1, 2, …).
    pub async fn append_event(
        &self,
        journal: Journal,
        id: &str,
        at_ms: i64,
        body_json: &str,
    ) -> Result<u32, StoreError> {
        append_on(self.pool(), journal, id, at_ms, body_json).await
    }

    /// Job `id`'s events after `after_seq`, in order, at most `limit`.
    pub async fn events(
        &self,
        journal: Journal,
        id: &str,
        after_seq: u32,
        limit: u32,
    ) -> Result<Vec<EventRow>, StoreError> {
        let rows: Vec<(i64, i64, String)> = sqlx::query_as(
            "SELECT seq, at_ms, body_json FROM events
             WHERE kind = ? AND job_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(journal.kind())
        .bind(id)
        .bind(i64::from(after_seq))
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(seq, at_ms, body_json)| EventRow {
                seq: u32::try_from(seq).unwrap_or(u32::MAX),
                at_ms,
                body_json,
            })
            .collect())
    }

    /// The newest event number of job `id` (0 without events).
    pub async fn last_event(&self, journal: Journal, id: &str) -> Result<u32, StoreError> {
        let seq: Option<i64> =
            sqlx::query_scalar("SELECT MAX(seq) FROM events WHERE kind = ? AND job_id = ?")
                .bind(journal.kind())
                .bind(id)
                .fetch_one(self.pool())
                .await?;
        Ok(seq.and_then(|s| u32::try_from(s).ok()).unwrap_or(0))
    }
}
