//! The engine's background work: one owner for every task the engine starts on its own
//! (catalog refreshes today; workers and runs next) and one stream of domain events.
//!
//! Invariants:
//! - Every background task is spawned through [`Supervisor::spawn`], so it is tracked and
//!   stops when the engine's cancellation token fires. [`Supervisor::shutdown`] (called by
//!   `Engine::close`) cancels the token, refuses new tasks and waits until every task has
//!   returned; nothing the engine started outlives it.
//! - Tasks run on the runtime the engine was opened on (captured at open), so a caller without
//!   a runtime context (a GUI thread) can still start them.
//! - Events go to every current subscriber of [`Supervisor::subscribe`]; with none, they are
//!   dropped. The stream is bounded: a subscriber that falls more than [`EVENT_CAPACITY`]
//!   events behind gets `RecvError::Lagged` and continues from the oldest event still held.
//!   Events are low rate (state changes, not output streams) and never carry a secret.

use std::future::Future;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::events::EngineEvent;

/// Events held for slow subscribers before they lag.
pub const EVENT_CAPACITY: usize = 256;

/// Tracks the engine's background tasks, cancels them together, and publishes events.
#[derive(Debug)]
pub struct Supervisor {
    tasks: TaskTracker,
    cancel: CancellationToken,
    events: broadcast::Sender<EngineEvent>,
    runtime: tokio::runtime::Handle,
}

impl Supervisor {
    /// A supervisor spawning onto `runtime`.
    pub(crate) fn new(runtime: tokio::runtime::Handle) -> Self {
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        Self {
            tasks: TaskTracker::new(),
            cancel: CancellationToken::new(),
            events,
            runtime,
        }
    }

    /// Runs `task` in the background until it returns or the engine closes (then it is
    /// dropped at its next await point, running its destructors). Returns `false`, without
    /// running it, once shutdown has begun. `what` names the task in logs.
    pub(crate) fn spawn<F>(&self, what: &'static str, task: F) -> bool
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if self.cancel.is_cancelled() || self.tasks.is_closed() {
            tracing::debug!(what, "not started: the engine is closing");
            return false;
        }
        let cancel = self.cancel.clone();
        self.tasks.spawn_on(
            async move {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => tracing::debug!(what, "canceled"),
                    () = task => {}
                }
            },
            &self.runtime,
        );
        true
    }

    /// A token that fires when the engine closes, for work that checks it itself.
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.child_token()
    }

    /// Whether shutdown has begun.
    pub fn is_closing(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Publishes `event` to current subscribers.
    pub(crate) fn emit(&self, event: EngineEvent) {
        // An error only means nobody is listening right now.
        let _ = self.events.send(event);
    }

    /// A sender for guards that must publish from `Drop`.
    pub(crate) fn sender(&self) -> broadcast::Sender<EngineEvent> {
        self.events.clone()
    }

    /// Every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.events.subscribe()
    }

    /// Cancels every task, refuses new ones and waits until all have returned.
    pub(crate) async fn shutdown(&self) {
        self.cancel.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}
