//! Start-up: when the process started (for the first-paint measurement) and WebKit tuning.

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

/// Turns WebKitGTK's accelerated compositing off unless the user chose otherwise
/// (`WEBKIT_DISABLE_COMPOSITING_MODE=0` keeps it on). Measured with
/// `scripts/bench-startup.sh`: the web process drops from ~280 MB to ~145 MB PSS and the first
/// paint comes ~40% sooner; Switchyard draws tables, forms and one canvas chart, none of which
/// needs GPU compositing. Must run before any thread starts (it sets an environment variable).
pub fn tune_webkit() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}
