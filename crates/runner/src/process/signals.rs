//! The signal dispositions a child starts with.
//!
//! A process started with SIGINT ignored (under `nohup`, or as a background job of a
//! non-interactive shell: `switchyard … &` in a script) passes that on through every `exec`.
//! Its workers would then ignore the INT a cancel sends first, a shell worker could not even
//! trap it, and every cancel would wait out the interrupt grace for TERM. `exec` resets a
//! caught signal to its default but keeps an ignored one, so a signal the runner sends that
//! this process ignores is caught instead, by tokio, which only records it: this process
//! still does nothing on it, and its children start with the default. Done without
//! `pre_exec`, which would need unsafe code.

use std::sync::Once;

use tokio::signal::unix::{signal, SignalKind};

/// The signals the runner sends a group before KILL, by number.
const SENT: [(u32, fn() -> SignalKind); 2] =
    [(2, SignalKind::interrupt), (15, SignalKind::terminate)];

/// Makes sure children of this process start with the default disposition of every signal
/// the runner sends them. Needs a tokio runtime; once per process.
pub(crate) fn default_for_children() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let Some(ignored) = ignored_mask() else {
            return;
        };
        for (number, kind) in SENT {
            if ignored & (1 << (number - 1)) != 0 {
                // A failure leaves the signal ignored: a cancel then still ends the worker
                // with TERM or KILL after the grace, only later.
                let _ = signal(kind());
            }
        }
    });
}

/// The ignored-signal mask of this process (`SigIgn` in `/proc/self/status`: bit n-1 is
/// signal n), or `None` when it cannot be read.
fn ignored_mask() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_ignored(&status)
}

fn parse_ignored(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
    u64::from_str_radix(line.trim(), 16).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_ignored;

    #[test]
    fn the_ignored_mask_is_read_from_proc_status() {
        let status = "Name:\tsh\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000006\n";
        let mask = parse_ignored(status).expect("mask");
        assert_eq!(mask & (1 << 1), 2, "SIGINT (2) is bit 1");
        assert_eq!(mask & (1 << 14), 0, "SIGTERM (15) is not ignored");
        assert_eq!(parse_ignored("Name:\tsh\n"), None);
        assert_eq!(parse_ignored("SigIgn:\tzz\n"), None);
    }
}
