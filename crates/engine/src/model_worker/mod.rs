//! The built-in model worker: edits a worktree through a model's structured answers.
//!
//! SCAFFOLD: the signature the attempt pipeline calls. The implementation replaces the body.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use switchyard_core::worker::{Usage, WorkerEvent};
use tokio_util::sync::CancellationToken;

use crate::{Engine, EngineError};

/// One model-worker run.
#[derive(Debug, Clone)]
pub(crate) struct ModelWorkerJob {
    /// A catalog model id (`provider:model` or the catalog's id).
    pub model_id: String,
    /// The full prompt: role (if any), then the task (and review comments on a revision).
    pub prompt: String,
    /// The attempt's worktree; every edit stays inside it.
    pub worktree: PathBuf,
    pub limits: ModelWorkerLimits,
    pub cancel: CancellationToken,
}

/// Bounds on one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelWorkerLimits {
    pub max_turns: u32,
    pub max_total_tokens: u32,
    pub timeout: Duration,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub(crate) struct ModelWorkerOutcome {
    pub usage: Usage,
    pub ok: bool,
    pub summary: Option<String>,
}

impl Engine {
    /// Runs the model worker on `job`, reporting each step through `on_event`.
    #[allow(clippy::unused_async)]
    pub(crate) async fn run_model_worker(
        &self,
        job: ModelWorkerJob,
        on_event: &(dyn Fn(WorkerEvent) + Send + Sync),
    ) -> Result<ModelWorkerOutcome, EngineError> {
        let _ = (job, on_event);
        Err(EngineError::InvalidInput(
            "the built-in model worker is not available in this build".to_owned(),
        ))
    }
}
