//! Switchyard's own verification: it runs the verification commands itself, in the worktree,
//! and writes its own record. What a worker said about its tests plays no part.
//!
//! Each command runs as `sh -c <command>` through [`crate::process`]: its own process group,
//! the environment allowlist (no provider keys), a timeout that stops the group. Every byte of
//! its output passes a tap that hashes the whole log (SHA-256) and feeds each line to the
//! summary scanner in `core`, so the digest and the counts cover the entire log even when the
//! output buffer keeps only its tail.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use switchyard_core::confinement::refused_write;
use switchyard_core::verify::{
    command_passed, CommandOutcome, CommandVerification, SummaryScanner, VerificationRecord,
    LOG_TAIL_BYTES, MAX_REFUSED_WRITES,
};
use tokio_util::sync::CancellationToken;

use crate::process::lines::LineAssembler;
use crate::process::{self, EndedBy, Grace, ProcessSpec, Stream};
use crate::sandbox::Sandbox;

/// Lines longer than this are scanned by their beginning only (a summary line is short).
const MAX_SCANNED_LINE: usize = 64 * 1024;

/// How verification commands are run.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Per command.
    pub timeout: Duration,
    pub grace: Grace,
    /// Output retained per command for the tail (the digest and counts see everything).
    pub output_cap: usize,
    /// Extra non-secret variables (e.g. `CI=true`); never a key.
    pub env: Vec<(String, String)>,
    /// Stops the running command and skips the rest.
    pub cancel: Option<CancellationToken>,
    /// The sandbox each command runs in (`None`: unconfined, as the user allowed).
    pub sandbox: Option<Sandbox>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(600),
            grace: Grace::default(),
            output_cap: 1024 * 1024,
            env: Vec::new(),
            cancel: None,
            sandbox: None,
        }
    }
}

/// Runs every command in `dir`, in order, and records each. All commands run even after one
/// fails (the review shows every result); after a cancel the rest are recorded as canceled
/// without running.
pub async fn verify(
    dir: &Path,
    commands: &[String],
    options: &VerifyOptions,
) -> VerificationRecord {
    let started = Instant::now();
    let mut records = Vec::with_capacity(commands.len());
    for command in commands {
        let canceled = options
            .cancel
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled);
        records.push(if canceled {
            not_run(command)
        } else {
            run_command(dir, command, options).await
        });
    }
    VerificationRecord::new(records, millis(started.elapsed()))
}

/// Everything the tap sees, for one command.
struct LogTap {
    hasher: Sha256,
    bytes: u64,
    stdout: LineAssembler,
    stderr: LineAssembler,
    scanner: SummaryScanner,
    refused: Vec<String>,
}

/// Scans one line for the summary and for a write the sandbox refused.
fn scan(scanner: &mut SummaryScanner, refused: &mut Vec<String>, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    scanner.feed_line(&text);
    if let Some(path) = refused_write(&text) {
        if refused.len() < MAX_REFUSED_WRITES && !refused.contains(&path) {
            refused.push(path);
        }
    }
}

impl LogTap {
    fn new() -> Self {
        Self {
            hasher: Sha256::new(),
            bytes: 0,
            stdout: LineAssembler::new(MAX_SCANNED_LINE),
            stderr: LineAssembler::new(MAX_SCANNED_LINE),
            scanner: SummaryScanner::new(),
            refused: Vec::new(),
        }
    }

    fn feed(&mut self, stream: Stream, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.bytes += bytes.len() as u64;
        let lines = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        let (scanner, refused) = (&mut self.scanner, &mut self.refused);
        lines.push(bytes, |line| scan(scanner, refused, line.bytes));
    }

    fn finish(mut self) -> (String, u64, SummaryScanner, Vec<String>) {
        let (scanner, refused) = (&mut self.scanner, &mut self.refused);
        self.stdout
            .finish(|line| scan(scanner, refused, line.bytes));
        self.stderr
            .finish(|line| scan(scanner, refused, line.bytes));
        (
            hex::encode(self.hasher.finalize()),
            self.bytes,
            self.scanner,
            self.refused,
        )
    }
}

/// Runs one command (`sh -c <command>`) in `dir` and records it.
pub async fn run_command(
    dir: &Path,
    command: &str,
    options: &VerifyOptions,
) -> CommandVerification {
    let tap = Arc::new(Mutex::new(Some(LogTap::new())));
    let feed = tap.clone();
    let mut spec = ProcessSpec::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .timeout(options.timeout)
        .grace(options.grace)
        .output_cap(options.output_cap)
        .tap(move |stream, bytes| {
            let mut tap = feed.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(tap) = tap.as_mut() {
                tap.feed(stream, bytes);
            }
        });
    for (name, value) in &options.env {
        spec = spec.env(name, value);
    }
    if let Some(cancel) = &options.cancel {
        spec = spec.cancel_on(cancel);
    }
    if let Some(sandbox) = &options.sandbox {
        spec = spec.confine(sandbox.clone());
    }
    let started = Instant::now();
    let waited = match process::spawn(spec) {
        Ok(child) => child.wait().await.map(|exit| (exit, child)),
        Err(e) => Err(e),
    };
    let (exit, child) = match waited {
        Ok(done) => done,
        Err(e) => {
            return CommandVerification {
                command: command.to_owned(),
                outcome: CommandOutcome::SpawnFailed,
                exit_code: None,
                signal: None,
                passed: false,
                duration_ms: millis(started.elapsed()),
                counts: Vec::new(),
                log_sha256: hex::encode(Sha256::digest(b"")),
                log_bytes: 0,
                log_tail: String::new(),
                error: Some(e.to_string()),
                refused_writes: Vec::new(),
            }
        }
    };
    let taken = tap.lock().unwrap_or_else(|p| p.into_inner()).take();
    let (log_sha256, log_bytes, scanner, refused_writes) =
        taken.unwrap_or_else(LogTap::new).finish();
    let counts = scanner.finish();
    let outcome = match exit.ended_by {
        EndedBy::Exited => CommandOutcome::Exited,
        EndedBy::TimedOut => CommandOutcome::TimedOut,
        EndedBy::Canceled | EndedBy::Dropped => CommandOutcome::Canceled,
    };
    let (tail, _) = child.output().tail(LOG_TAIL_BYTES);
    CommandVerification {
        command: command.to_owned(),
        outcome,
        exit_code: exit.code,
        signal: exit.signal,
        passed: command_passed(outcome, exit.code, &counts),
        duration_ms: millis(exit.duration),
        counts,
        log_sha256,
        log_bytes,
        log_tail: String::from_utf8_lossy(&tail).into_owned(),
        error: None,
        refused_writes,
    }
}

fn not_run(command: &str) -> CommandVerification {
    CommandVerification {
        command: command.to_owned(),
        outcome: CommandOutcome::Canceled,
        exit_code: None,
        signal: None,
        passed: false,
        duration_ms: 0,
        counts: Vec::new(),
        log_sha256: hex::encode(Sha256::digest(b"")),
        log_bytes: 0,
        log_tail: String::new(),
        error: None,
        refused_writes: Vec::new(),
    }
}

fn millis(duration: Duration) -> u32 {
    u32::try_from(duration.as_millis()).unwrap_or(u32::MAX)
}
