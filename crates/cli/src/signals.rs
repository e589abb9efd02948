//! The signals that end a waiting `switchyard` the way Ctrl-C does: SIGINT, SIGTERM (a
//! service manager, `kill`, a closing IDE) and SIGHUP (the terminal went away). Each cancels
//! the attempt or run being waited on, so its worker's process group is stopped and nothing
//! is left running with init as its parent.

use std::sync::Arc;

use switchyard_core::attempt::AttemptReview;
use switchyard_core::run::RunDetail;
use switchyard_engine::{Engine, EngineError};
use tokio::signal::unix::{signal, SignalKind};

use crate::attempts::Failure;
use crate::output::CliError;

/// Watches for SIGINT, SIGTERM and SIGHUP from the moment it is made.
pub struct Termination {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
    /// A detached job owner outlives the terminal it came from: a hang-up is caught (so it
    /// does not end the process) and not reported.
    ends_on_hangup: bool,
}

impl Termination {
    /// For a command waiting in a terminal: any of the three ends the wait.
    ///
    /// # Errors
    /// When a signal handler cannot be installed.
    pub fn watch() -> std::io::Result<Self> {
        Self::new(true)
    }

    /// For a detached job owner (`attempt-worker`, `run-worker`): SIGINT and SIGTERM end the
    /// wait; SIGHUP is caught and ignored.
    ///
    /// # Errors
    /// When a signal handler cannot be installed.
    pub fn watch_detached() -> std::io::Result<Self> {
        Self::new(false)
    }

    fn new(ends_on_hangup: bool) -> std::io::Result<Self> {
        Ok(Termination {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: signal(SignalKind::hangup())?,
            ends_on_hangup,
        })
    }

    /// Resolves on the first signal that ends the wait, with its name.
    pub async fn recv(&mut self) -> &'static str {
        loop {
            tokio::select! {
                _ = self.interrupt.recv() => return "SIGINT",
                _ = self.terminate.recv() => return "SIGTERM",
                _ = self.hangup.recv() => if self.ends_on_hangup {
                    return "SIGHUP";
                },
            }
        }
    }
}

/// A job a command waits on until it ends: an attempt or a run.
pub(crate) trait Job {
    /// Where it ended.
    type Ended;
    /// `attempt` or `run`, for an owner's log.
    const NOUN: &'static str;
    async fn adopt(engine: &Arc<Engine>, id: &str, token: &str) -> Result<(), EngineError>;
    async fn wait(engine: &Engine, id: &str) -> Result<Self::Ended, EngineError>;
    async fn cancel(engine: &Engine, id: &str) -> Result<(), EngineError>;
    fn state(ended: &Self::Ended) -> &'static str;
}

/// An attempt, ending in its review.
pub(crate) struct Attempt;

impl Job for Attempt {
    type Ended = AttemptReview;
    const NOUN: &'static str = "attempt";
    async fn adopt(engine: &Arc<Engine>, id: &str, token: &str) -> Result<(), EngineError> {
        engine.adopt_attempt(id, token).await.map(drop)
    }
    async fn wait(engine: &Engine, id: &str) -> Result<AttemptReview, EngineError> {
        engine.wait_attempt(id).await
    }
    async fn cancel(engine: &Engine, id: &str) -> Result<(), EngineError> {
        engine.cancel_attempt(id).await.map(drop)
    }
    fn state(ended: &AttemptReview) -> &'static str {
        ended.summary.state.as_str()
    }
}

/// A run, ending in its detail.
pub(crate) struct Run;

impl Job for Run {
    type Ended = RunDetail;
    const NOUN: &'static str = "run";
    async fn adopt(engine: &Arc<Engine>, id: &str, token: &str) -> Result<(), EngineError> {
        engine.adopt_run(id, token).await.map(drop)
    }
    async fn wait(engine: &Engine, id: &str) -> Result<RunDetail, EngineError> {
        engine.wait_run(id).await
    }
    async fn cancel(engine: &Engine, id: &str) -> Result<(), EngineError> {
        engine.cancel_run(id).await.map(drop)
    }
    fn state(ended: &RunDetail) -> &'static str {
        ended.summary.state.as_str()
    }
}

/// Waits for job `id` in a terminal. SIGINT, SIGTERM and SIGHUP cancel it (the process would
/// otherwise leave it interrupted, or its worker running), and it still returns where it ended.
pub(crate) async fn wait<J: Job>(engine: &Engine, id: &str) -> Result<J::Ended, Failure> {
    let signals = Termination::watch().map_err(cannot_watch)?;
    until_ended::<J>(engine, id, signals, false).await
}

/// `attempt-worker` and `run-worker` (started by a detached hand-off): adopts job `id`, handed
/// to this process with `token`, and runs it to its end. SIGINT and SIGTERM cancel it; a
/// hang-up is ignored, so closing the terminal it came from does not end it. Logs to stderr.
pub(crate) async fn own<J: Job>(
    engine: &Arc<Engine>,
    id: &str,
    token: &str,
) -> Result<J::Ended, Failure> {
    // Watching first: a signal while it adopts still cancels instead of killing the process.
    let signals = Termination::watch_detached().map_err(cannot_watch)?;
    J::adopt(engine, id, token).await?;
    eprintln!("{} {id}: adopted by pid {}", J::NOUN, std::process::id());
    let ended = until_ended::<J>(engine, id, signals, true).await?;
    eprintln!("{} {id}: ended {}", J::NOUN, J::state(&ended));
    Ok(ended)
}

async fn until_ended<J: Job>(
    engine: &Engine,
    id: &str,
    mut signals: Termination,
    log: bool,
) -> Result<J::Ended, Failure> {
    tokio::select! {
        ended = J::wait(engine, id) => Ok(ended?),
        signal = signals.recv() => {
            if log {
                eprintln!("{} {id}: canceling on {signal}", J::NOUN);
            }
            J::cancel(engine, id).await?;
            Ok(J::wait(engine, id).await?)
        }
    }
}

fn cannot_watch(e: std::io::Error) -> Failure {
    CliError::internal(format!("cannot watch for signals: {e}")).into()
}
