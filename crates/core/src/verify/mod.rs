//! Switchyard's own verification record: what happened when it ran the verification commands
//! itself in a worktree (the runner runs them; this module holds the shapes and the rules).
//!
//! What a worker says about its tests is never read here. A command passes when it exited on
//! its own with code 0 **and** no test runner summary in its log reports a failure.

mod defaults;
mod summary;

use serde::{Deserialize, Serialize};
use specta::Type;

pub use defaults::default_verification;
pub use summary::{parse_summary, strip_ansi, SummaryScanner};

/// At most this many bytes of a command's log are kept as its tail.
pub const LOG_TAIL_BYTES: usize = 8 * 1024;

/// A test runner whose closing summary Switchyard can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum TestRunner {
    /// `cargo test`: every `test result:` line, summed (one per test binary and doc-tests).
    Cargo,
    /// `cargo nextest run`: its `Summary` line.
    Nextest,
    /// pytest: its closing `N passed, M failed … in Xs` line.
    Pytest,
    /// Jest: its `Tests:` line.
    Jest,
    /// Vitest: its `Tests` line.
    Vitest,
    /// `go test`: `ok`/`FAIL` package lines, or `--- PASS`/`--- FAIL` lines with `-v`.
    Go,
    /// Node's built-in runner (`node --test`): `# pass N` / `# fail N` (TAP) or `ℹ pass N`.
    Node,
    /// The plain `N passed, N failed[, N skipped]` line any runner may print.
    Plain,
}

/// What the counts count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum CountUnit {
    Tests,
    /// `go test` without `-v` names only failing tests, so it is counted per package.
    Packages,
}

/// Pass/fail counts read from one runner's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TestCounts {
    pub runner: TestRunner,
    pub unit: CountUnit,
    pub passed: u32,
    pub failed: u32,
    /// Skipped, ignored, todo and deselected.
    pub skipped: u32,
    /// Errors outside a test (pytest collection errors, Node's cancelled tests).
    pub errors: u32,
}

impl TestCounts {
    /// Failed tests plus errors.
    pub fn failures(&self) -> u32 {
        self.failed.saturating_add(self.errors)
    }

    /// One line for humans, e.g. `cargo: 12 passed, 1 failed, 2 skipped`.
    pub fn describe(&self) -> String {
        let runner = match self.runner {
            TestRunner::Cargo => "cargo test",
            TestRunner::Nextest => "nextest",
            TestRunner::Pytest => "pytest",
            TestRunner::Jest => "jest",
            TestRunner::Vitest => "vitest",
            TestRunner::Go => "go test",
            TestRunner::Node => "node --test",
            TestRunner::Plain => "tests",
        };
        let unit = match self.unit {
            CountUnit::Tests => "",
            CountUnit::Packages => " packages",
        };
        let mut line = format!(
            "{runner}: {}{unit} passed, {}{unit} failed",
            self.passed, self.failed
        );
        if self.skipped > 0 {
            line.push_str(&format!(", {} skipped", self.skipped));
        }
        if self.errors > 0 {
            line.push_str(&format!(", {} errors", self.errors));
        }
        line
    }
}

/// How a verification command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum CommandOutcome {
    /// It exited on its own (any code).
    Exited,
    /// Its timeout passed and Switchyard stopped it.
    TimedOut,
    /// The verification was canceled.
    Canceled,
    /// It could not be started at all.
    SpawnFailed,
}

/// Switchyard's record of one verification command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CommandVerification {
    /// The command as run with `sh -c`.
    pub command: String,
    pub outcome: CommandOutcome,
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// See [`command_passed`].
    pub passed: bool,
    pub duration_ms: u32,
    /// Every runner summary recognised in its log (usually one).
    pub counts: Vec<TestCounts>,
    /// Lowercase hex SHA-256 of the whole log (stdout and stderr in arrival order), however
    /// long; the tail below is only its end.
    pub log_sha256: String,
    /// Bytes in the whole log.
    #[specta(type = f64)]
    pub log_bytes: u64,
    /// The last [`LOG_TAIL_BYTES`] of the log as text.
    pub log_tail: String,
    /// Why it could not start, for [`CommandOutcome::SpawnFailed`].
    pub error: Option<String>,
    /// Paths the command could not write because its sandbox made them read-only (as its
    /// own output reported them), at most [`MAX_REFUSED_WRITES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_writes: Vec<String>,
}

/// Refused writes kept per command.
pub const MAX_REFUSED_WRITES: usize = 50;

impl CommandVerification {
    /// The counts described on one line, or `None` when no summary was recognised.
    pub fn summary(&self) -> Option<String> {
        if self.counts.is_empty() {
            return None;
        }
        Some(
            self.counts
                .iter()
                .map(TestCounts::describe)
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

/// The whole verification: every command, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VerificationRecord {
    /// Every command passed (vacuously true for none: the caller decides whether no commands
    /// is acceptable).
    pub passed: bool,
    pub duration_ms: u32,
    pub commands: Vec<CommandVerification>,
}

impl VerificationRecord {
    /// Builds the record from its commands; `passed` follows from them.
    pub fn new(commands: Vec<CommandVerification>, duration_ms: u32) -> Self {
        Self {
            passed: commands.iter().all(|c| c.passed),
            duration_ms,
            commands,
        }
    }

    /// The first failing command, if any.
    pub fn first_failure(&self) -> Option<&CommandVerification> {
        self.commands.iter().find(|c| !c.passed)
    }
}

/// Whether a command passed: it exited on its own with code 0 and no recognised summary
/// reports a failed test or an error. (A runner summary cannot make a failing exit pass.)
pub fn command_passed(
    outcome: CommandOutcome,
    exit_code: Option<i32>,
    counts: &[TestCounts],
) -> bool {
    outcome == CommandOutcome::Exited
        && exit_code == Some(0)
        && counts.iter().all(|c| c.failures() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(failed: u32) -> TestCounts {
        TestCounts {
            runner: TestRunner::Cargo,
            unit: CountUnit::Tests,
            passed: 3,
            failed,
            skipped: 0,
            errors: 0,
        }
    }

    #[test]
    fn a_zero_exit_with_a_reported_failure_does_not_pass() {
        assert!(command_passed(
            CommandOutcome::Exited,
            Some(0),
            &[counts(0)]
        ));
        assert!(!command_passed(
            CommandOutcome::Exited,
            Some(0),
            &[counts(1)]
        ));
        assert!(!command_passed(
            CommandOutcome::Exited,
            Some(1),
            &[counts(0)]
        ));
        assert!(!command_passed(CommandOutcome::TimedOut, Some(0), &[]));
        assert!(command_passed(CommandOutcome::Exited, Some(0), &[]));
    }

    #[test]
    fn describe_names_the_runner_and_the_unit() {
        assert_eq!(counts(1).describe(), "cargo test: 3 passed, 1 failed");
        let go = TestCounts {
            runner: TestRunner::Go,
            unit: CountUnit::Packages,
            passed: 2,
            failed: 1,
            skipped: 0,
            errors: 0,
        };
        assert_eq!(
            go.describe(),
            "go test: 2 packages passed, 1 packages failed"
        );
    }
}
