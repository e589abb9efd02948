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
}

impl Termination {
    /// # Errors
    /// When a signal handler cannot be installed.
    pub fn watch() -> std::io::Result<Self> {
        Ok(Termination {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: signal(SignalKind::hangup())?,
        })
    }

    /// Resolves on the first of the three signals, with its name.
    pub async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.hangup.recv() => "SIGHUP",
        }
    }
}
