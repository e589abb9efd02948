//! The signals that end a waiting `switchyard` the way Ctrl-C does: SIGINT, SIGTERM (a
//! service manager, `kill`, a closing IDE) and SIGHUP (the terminal went away). Each cancels
//! the attempt or run being waited on, so its worker's process group is stopped and nothing
//! is left running with init as its parent.

use tokio::signal::unix::{signal, SignalKind};

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
