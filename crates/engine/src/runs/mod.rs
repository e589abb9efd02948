//! Runs: one task across one or many models (and, for code, workers), in one of five modes —
//! single, collective, cascade, plan, swarm — under limits and a hard USD cap.
//!
//! - `resolve`: a request becomes nodes (plan via `plan_task`, members via
//!   `recommend_models`, a ladder via routing per tier); [`Engine::preview_run`] shows it.
//! - `start`: [`Engine::start_run`] records the run `queued` and hands it to the supervisor;
//!   at most `runs.max_parallel_runs` execute at once, the others wait queued.
//! - `driver`: the DAG scheduler. Every mode is a graph of nodes; each node starts as soon as
//!   its own dependencies are done and a slot (max parallel nodes) is free — never per wave.
//! - `call`: every model call reserves its worst case in the run's ledger (in memory behind a
//!   mutex, and in the store, which re-checks the cap) before it is made, and settles with
//!   its actual cost after, so concurrency cannot break the cap.
//! - `text` and `code`: what one node does (model calls through [`Engine::ask`]; attempts
//!   through the attempts engine). `combine`: the steps of a code plan or swarm, merged into
//!   the run branch `switchyard/run-<id>`, and the combined change brought to review.
//! - `lease`: the owner lease (pid + token + heartbeat), cancel requests from other
//!   processes, and, at open, runs whose owner is gone become `interrupted`.
//! - `recover`: [`Engine::cancel_run`] and [`Engine::recover_run`] (finished nodes are kept —
//!   their output artifact is checked — and are never called again).
//! - `review`: [`Engine::approve_run`] / [`Engine::reject_run`] for code runs in review (the
//!   attempts engine approves, commits and integrates).
//! - `events`: every state change is stored (guarded update + numbered event) before it is
//!   broadcast as an [`crate::EngineEvent`].
//! - `artifacts`: node outputs as files with their SHA-256; `view`: details, lists, outputs.
//! - `detach`: a run (or its recovery) handed to a detached process that owns it, so the
//!   process that started it may exit at once (the CLI's `run --detach`).
//! - `settings`: the run defaults Settings edits ([`Engine::run_defaults`]).

mod artifacts;
mod call;
mod cascade;
mod code;
mod code_ledger;
mod combine;
mod detach;
mod driver;
mod events;
mod lease;
mod recover;
mod resolve;
mod review;
mod settings;
mod start;
mod text;
mod view;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

pub(crate) use combine::run_branch_key;
pub use view::RUN_LIST_LIMIT;

/// A text node's output as it streams, shared by the call writing it and readers.
pub(crate) type LiveText = Arc<Mutex<String>>;

/// The runs this engine executes, and the live text of their running nodes.
#[derive(Debug)]
pub(crate) struct RunsRuntime {
    /// Runs this engine executes (queued for a slot or running), by id.
    active: Mutex<HashMap<String, Arc<driver::Control>>>,
    /// Runs executing now (holding a slot).
    executing: Mutex<u32>,
    slot_freed: Notify,
    /// Streamed text of running nodes, by (run, node).
    live: Mutex<HashMap<(String, String), LiveText>>,
}

impl RunsRuntime {
    pub(crate) fn new() -> Self {
        Self {
            active: Mutex::new(HashMap::new()),
            executing: Mutex::new(0),
            slot_freed: Notify::new(),
            live: Mutex::new(HashMap::new()),
        }
    }

    fn active(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<driver::Control>>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The control of run `id` if this engine executes it.
    pub(crate) fn control(&self, id: &str) -> Option<Arc<driver::Control>> {
        self.active().get(id).cloned()
    }

    /// The live text buffer of a running node (created empty).
    pub(crate) fn live_text(&self, run: &str, node: &str) -> LiveText {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((run.to_owned(), node.to_owned()))
            .or_default()
            .clone()
    }

    /// The live text of a node, if it is streaming now.
    pub(crate) fn live_snapshot(&self, run: &str, node: &str) -> Option<String> {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(run.to_owned(), node.to_owned()))
            .map(|text| text.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }

    /// Forgets a node's live text (its artifact is stored, or it ended without one).
    pub(crate) fn drop_live(&self, run: &str, node: &str) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(run.to_owned(), node.to_owned()));
    }
}

/// The attempts engine's clock: runs and attempts stamp their rows alike.
pub(crate) use crate::attempts::now_ms;
