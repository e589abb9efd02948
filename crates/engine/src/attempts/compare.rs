//! Compare groups: one task, 2–5 workers, one attempt each from the same base; pick one.

use std::sync::Arc;

use switchyard_core::attempt::{
    new_attempt_id, AttemptRequest, AttemptReview, AttemptState, CompareSummary,
};
use switchyard_store::attempts::CompareRow;

use super::record::{now_ms, summary};
use super::start::{parse_worker, Origin};
use crate::handoff::Launch;
use crate::owner::random_u64;
use crate::{Engine, EngineError};

use switchyard_core::attempt::COMPARE_WORKERS;

/// Why the losers of a pick are rejected.
pub const PICKED_ELSEWHERE: &str = "another attempt was picked";

impl Engine {
    /// Sends `req`'s task to each of `workers` (2–5; `req.worker` is ignored), one attempt
    /// each, all pinned to the same base. Returns at once with the group and its attempts.
    ///
    /// Takes `self: &Arc<Self>` because the pipelines outlive the call.
    /// Errors: `InvalidInput` (count, a worker that does not parse, the request itself).
    pub async fn start_compare(
        self: &Arc<Self>,
        req: AttemptRequest,
        workers: Vec<String>,
        launcher: &str,
    ) -> Result<CompareSummary, EngineError> {
        self.compare_with(req, workers, launcher, None).await
    }

    /// [`Engine::start_compare`] with each attempt handed to the process `launch` starts for
    /// it (see [`Engine::start_attempt_detached`]).
    pub async fn start_compare_detached(
        self: &Arc<Self>,
        req: AttemptRequest,
        workers: Vec<String>,
        launcher: &str,
        launch: &mut Launch<'_>,
    ) -> Result<CompareSummary, EngineError> {
        self.compare_with(req, workers, launcher, Some(launch))
            .await
    }

    async fn compare_with(
        self: &Arc<Self>,
        req: AttemptRequest,
        workers: Vec<String>,
        launcher: &str,
        mut launch: Option<&mut Launch<'_>>,
    ) -> Result<CompareSummary, EngineError> {
        let workers: Vec<String> = workers
            .into_iter()
            .map(|w| w.trim().to_owned())
            .filter(|w| !w.is_empty())
            .collect();
        if !COMPARE_WORKERS.admits(workers.len()) {
            return Err(EngineError::InvalidInput(format!(
                "compare takes {}–{} workers, not {}",
                COMPARE_WORKERS.min,
                COMPARE_WORKERS.max,
                workers.len()
            )));
        }
        for worker in &workers {
            parse_worker(worker)?;
        }
        let mut req = req;
        req.worker.clone_from(&workers[0]);
        let prepared = self.prepare_attempt(req).await?;
        for worker in &workers[1..] {
            self.check_worker(worker).await?;
        }
        let now = now_ms();
        let id = format!(
            "c{}",
            new_attempt_id(u64::try_from(now).unwrap_or(0), random_u64() as u32)
        );
        self.store()
            .insert_compare(&CompareRow {
                id: id.clone(),
                task: prepared.request.task.trim().to_owned(),
                repo: prepared.toplevel.clone(),
                created_ms: now,
            })
            .await?;
        let mut attempts = Vec::with_capacity(workers.len());
        for worker in &workers {
            let origin = Origin {
                compare: Some(id.clone()),
                ..Origin::default()
            };
            let attempt = match launch.as_deref_mut() {
                Some(launch) => {
                    self.launch_detached(&prepared, worker, launcher, origin, launch)
                        .await?
                }
                None => {
                    self.launch_attempt(&prepared, worker, launcher, origin)
                        .await?
                }
            };
            attempts.push(attempt);
        }
        Ok(CompareSummary { id, attempts })
    }

    /// The compare group `id` with its attempts as they are now. Errors: `NotFound`.
    pub async fn compare_group(&self, id: &str) -> Result<CompareSummary, EngineError> {
        if self.store().compare(id).await?.is_none() {
            return Err(EngineError::NotFound(format!("no compare group {id:?}")));
        }
        let now = now_ms();
        let attempts = self
            .store()
            .attempts_in_compare(id)
            .await?
            .iter()
            .map(|row| summary(row, now))
            .collect();
        Ok(CompareSummary {
            id: id.to_owned(),
            attempts,
        })
    }

    /// Picks `winner` of compare group `compare`: approves and integrates it with
    /// `message`, then rejects the others still in review or approved ("another attempt was
    /// picked") and cancels those still running.
    ///
    /// Errors: `NotFound` (group, or a winner not in it); the winner's approve errors (then
    /// nothing else is touched).
    pub async fn pick_attempt(
        &self,
        compare: &str,
        winner: &str,
        message: &str,
    ) -> Result<AttemptReview, EngineError> {
        let group = self.compare_group(compare).await?;
        if !group.attempts.iter().any(|a| a.id == winner) {
            return Err(EngineError::NotFound(format!(
                "attempt {winner} is not part of compare group {compare}"
            )));
        }
        let review = self.approve_attempt(winner, message, true).await?;
        for other in group.attempts.iter().filter(|a| a.id != winner) {
            let current = self.attempt_row(&other.id).await?;
            let result = if current.state.can_move_to(AttemptState::Rejected) {
                self.reject_attempt(&other.id, PICKED_ELSEWHERE)
                    .await
                    .map(|_| ())
            } else if current.state.is_live() {
                self.cancel_attempt(&other.id).await.map(|_| ())
            } else {
                Ok(())
            };
            if let Err(error) = result {
                tracing::warn!(attempt = %other.id, %error, "could not discard a compared attempt");
            }
        }
        Ok(review)
    }
}
