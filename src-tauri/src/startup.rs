//! When the process started, for the first-paint measurement.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Marks the process start; call first thing in `main`.
pub fn mark_process_start() {
    PROCESS_START.get_or_init(Instant::now);
}

/// Time since [`mark_process_start`] (zero if it was never called).
pub fn since_process_start() -> Duration {
    PROCESS_START
        .get()
        .map(Instant::elapsed)
        .unwrap_or_default()
}
