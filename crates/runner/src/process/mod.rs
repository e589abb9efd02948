//! Owned child processes: the only place in the workspace that starts one.
//!
//! Every child [`spawn`]ed here:
//! - leads its **own process group**, and every signal goes to the whole group, so a worker's
//!   shells, test runners and servers end with it;
//! - starts with a **cleared environment**: the allowlist in [`env`] plus only the variables
//!   passed for it (a worker's own provider key), never the SSH agent or a credential prompt;
//! - is **owned**: dropping the [`OwnedChild`] SIGKILLs the group at once;
//! - is **canceled** (its token, or the caller's parent token) and **timed out** the same way:
//!   SIGINT to the group, [`Grace::interrupt`] later SIGTERM, [`Grace::terminate`] later SIGKILL;
//! - has exactly **one exit monitor** task. It pumps stdin, reads stdout and stderr into the
//!   [`OutputBuffer`] (byte-capped, replayable, tagged by stream), escalates signals, reaps the
//!   leader, SIGKILLs whatever is left in the group once the leader is gone (a child's
//!   background processes never outlive it), and records the final [`ProcessExit`].
//!
//! Built on `tokio::process` with `process_group(0)` and `killpg` rather than `process-wrap`:
//! that crate's kill-on-drop ends only the leader, and its group signal needs the child handle
//! the monitor is waiting on, so it would have saved nothing here.
//!
//! The exception is [`detached`]: a child that is meant to outlive this process (the CLI's
//! `run --detach` hands its attempt to one), with none of the ownership above.
//!
//! Zombies: a grandchild killed after its parent died is reparented to init, which reaps it;
//! in a container whose init does not reap, it stays a zombie (no memory, no CPU, no files).

pub mod detached;
pub mod env;
mod invocation;
pub mod lines;
mod monitor;
pub mod output;
pub mod probe;
mod signals;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::sandbox::Sandbox;
pub use detached::{spawn_detached, DetachedSpec};
use invocation::Invocation;
pub use output::{OutputBuffer, OutputChunk, OutputCursor, OutputProgress, OutputRead, Stream};

/// Called with every chunk of output, in order, before it enters the buffer. The monitor calls
/// it inline, so it sees every byte even when the buffer's cap drops old ones (verification
/// hashes the whole log and scans every line this way). Keep it cheap.
pub type OutputTap = Box<dyn FnMut(Stream, &[u8]) + Send>;

/// How long a group gets after each polite signal before the next, harder one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grace {
    /// After SIGINT, before SIGTERM.
    pub interrupt: Duration,
    /// After SIGTERM, before SIGKILL.
    pub terminate: Duration,
}

impl Default for Grace {
    fn default() -> Self {
        Self {
            interrupt: Duration::from_secs(3),
            terminate: Duration::from_secs(3),
        }
    }
}

/// A signal the runner sent to a child's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupSignal {
    Interrupt,
    Terminate,
    Kill,
}

impl GroupSignal {
    fn signal(self) -> Signal {
        match self {
            GroupSignal::Interrupt => Signal::SIGINT,
            GroupSignal::Terminate => Signal::SIGTERM,
            GroupSignal::Kill => Signal::SIGKILL,
        }
    }
}

/// Why the child stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndedBy {
    /// On its own (whatever its exit code).
    Exited,
    /// Its timeout passed; the runner stopped the group.
    TimedOut,
    /// Its cancellation token fired; the runner stopped the group.
    Canceled,
    /// Its [`OwnedChild`] was dropped; the group was killed.
    Dropped,
}

/// The final state of a child, recorded once by its exit monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessExit {
    /// Exit code, when the leader exited normally.
    pub code: Option<i32>,
    /// The signal that ended the leader, when one did.
    pub signal: Option<i32>,
    pub ended_by: EndedBy,
    /// Signals the runner sent to the group, in order.
    pub signals_sent: Vec<GroupSignal>,
    /// From spawn to the leader's exit and its output drained.
    pub duration: Duration,
    /// Bytes the child wrote to stdout / stderr (all of them, not just those retained).
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// A process that left the group kept the pipes open past the drain period after the
    /// leader exited; reading stopped there.
    pub output_cut_off: bool,
}

impl ProcessExit {
    /// Exited on its own with code 0.
    pub fn success(&self) -> bool {
        self.ended_by == EndedBy::Exited && self.code == Some(0)
    }
}

/// Why a child could not be started or watched.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("{program} is not installed or not on PATH")]
    NotFound { program: String },
    #[error("could not start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the working directory {path} does not exist")]
    NoWorkingDir { path: PathBuf },
    #[error("{name} may not be passed to a child process (it is a credential channel)")]
    ForbiddenEnv { name: String },
    #[error("the monitor of process {pid} ended without recording an exit (runtime shut down)")]
    MonitorLost { pid: u32 },
}

/// What to start and how to own it. Build with [`ProcessSpec::new`] and the setters.
pub struct ProcessSpec {
    call: Invocation,
    timeout: Option<Duration>,
    grace: Grace,
    drain: Duration,
    output_cap: usize,
    cancel: Option<CancellationToken>,
    tap: Option<OutputTap>,
    sandbox: Option<Sandbox>,
}

impl std::fmt::Debug for ProcessSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Explicit variables carry provider keys: names only.
        let mut d = f.debug_struct("ProcessSpec");
        self.call.debug_fields(&mut d);
        d.field("timeout", &self.timeout)
            .field("grace", &self.grace)
            .field("output_cap", &self.output_cap)
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

impl ProcessSpec {
    /// A child running `program` (looked up on the child's `PATH` unless it is a path), with
    /// the parent's allowlisted environment, no stdin, no timeout, default grace periods and a
    /// [`output::DEFAULT_OUTPUT_CAP`] output buffer.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            call: Invocation::new(program.into(), env::inherited_from_parent()),
            timeout: None,
            grace: Grace::default(),
            drain: Duration::from_secs(2),
            output_cap: output::DEFAULT_OUTPUT_CAP,
            cancel: None,
            tap: None,
            sandbox: None,
        }
    }

    /// Runs the child inside `sandbox` (see [`crate::sandbox`]): `bwrap` becomes the process
    /// started, the program is looked up on the child's `PATH` first (so a missing one is
    /// still [`ProcessError::NotFound`]), and `TMPDIR` points at the sandbox's private temp.
    pub fn confine(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.call.args.push(arg.into());
        self
    }

    pub fn args<I, A>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = A>,
        A: Into<OsString>,
    {
        self.call.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The child's working directory (default: the parent's).
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.call.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Passes one variable explicitly (it overrides an inherited one of the same name). A name
    /// in [`env::FORBIDDEN`] makes [`spawn`] fail.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<OsString>) -> Self {
        self.call.explicit.push((name.into(), value.into()));
        self
    }

    /// Replaces the inherited base with the allowlisted subset of `vars` instead of this
    /// process's environment.
    pub fn inherit_env_from<I>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        self.call.base_env = env::inherited_from(vars);
        self
    }

    /// Bytes written to the child's stdin, which is then closed. Without it stdin is
    /// `/dev/null`.
    pub fn stdin(mut self, payload: impl Into<Vec<u8>>) -> Self {
        self.call.stdin = Some(payload.into());
        self
    }

    /// Stops the group (INT → TERM → KILL) once this much time has passed since spawn.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub fn grace(mut self, grace: Grace) -> Self {
        self.grace = grace;
        self
    }

    /// How long to keep reading after the leader exits, for output still in the pipes.
    pub fn drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// The output buffer's cap in bytes.
    pub fn output_cap(mut self, cap: usize) -> Self {
        self.output_cap = cap;
        self
    }

    /// Cancels the child when `parent` is canceled (the child's own token is a child of it).
    pub fn cancel_on(mut self, parent: &CancellationToken) -> Self {
        self.cancel = Some(parent.child_token());
        self
    }

    /// Sees every output chunk before the buffer does; see [`OutputTap`].
    pub fn tap(mut self, tap: impl FnMut(Stream, &[u8]) + Send + 'static) -> Self {
        self.tap = Some(Box::new(tap));
        self
    }

    /// The program as given.
    pub fn program(&self) -> &OsStr {
        &self.call.program
    }

    /// The environment the child will start with (names and values; explicit ones included).
    fn environment(&self) -> Result<BTreeMap<OsString, OsString>, ProcessError> {
        self.call.environment(env::is_forbidden)
    }
}

/// The process group of one child; signals go here and nowhere once the group is gone.
#[derive(Debug)]
struct Group {
    pgid: Pid,
    /// Set once the monitor has reaped the leader and killed what was left: the id may then
    /// be reused by an unrelated group, so nothing is sent to it any more.
    gone: Mutex<bool>,
    dropped: AtomicBool,
}

impl Group {
    fn signal(&self, signal: Signal) {
        let gone = self.gone.lock().unwrap_or_else(|p| p.into_inner());
        if !*gone {
            // ESRCH (nobody left in the group) is the expected end state.
            let _ = killpg(self.pgid, signal);
        }
    }

    fn mark_gone(&self) {
        *self.gone.lock().unwrap_or_else(|p| p.into_inner()) = true;
    }
}

/// A running (or finished) child. Dropping it kills the child's whole group.
#[derive(Debug)]
pub struct OwnedChild {
    pid: u32,
    group: Arc<Group>,
    output: OutputBuffer,
    cancel: CancellationToken,
    exit: watch::Receiver<Option<ProcessExit>>,
}

impl OwnedChild {
    /// The leader's pid, which is also the group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The child's output (shared; clone it to keep reading after the child is dropped).
    pub fn output(&self) -> &OutputBuffer {
        &self.output
    }

    /// Starts stopping the group: INT, then TERM and KILL after the grace periods. Returns at
    /// once; [`wait`](Self::wait) for the result.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// The token that cancels this child.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// The final state, once recorded.
    pub fn exit(&self) -> Option<ProcessExit> {
        self.exit.borrow().clone()
    }

    /// A receiver of the final state, usable after this handle is gone (dropping the handle
    /// still kills the group; the monitor still records why it ended).
    pub fn subscribe_exit(&self) -> watch::Receiver<Option<ProcessExit>> {
        self.exit.clone()
    }

    /// Waits for the monitor to record the final state (the leader reaped, the group ended and
    /// the output closed).
    ///
    /// # Errors
    /// [`ProcessError::MonitorLost`] when the runtime dropped the monitor first.
    pub async fn wait(&self) -> Result<ProcessExit, ProcessError> {
        let mut exit = self.exit.clone();
        let recorded = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| ProcessError::MonitorLost { pid: self.pid })?;
        recorded
            .clone()
            .ok_or(ProcessError::MonitorLost { pid: self.pid })
    }
}

impl Drop for OwnedChild {
    fn drop(&mut self) {
        if self.exit.borrow().is_none() {
            self.group.dropped.store(true, Ordering::SeqCst);
            self.group.signal(Signal::SIGKILL);
        }
    }
}

/// Runs `start` (a spawn) again while it fails with "text file busy". An executable written
/// just before it is started can be held open for writing by a child another thread forked
/// in that instant (between its fork and its exec; the descriptor is close-on-exec), and the
/// kernel refuses to execute it until that child has exec'd. The window is a few
/// milliseconds, so a short wait clears it; a file that stays busy is reported as it is.
pub(crate) fn again_while_busy<T>(
    mut start: impl FnMut() -> std::io::Result<T>,
) -> std::io::Result<T> {
    const WAITS_MS: [u64; 5] = [5, 10, 20, 40, 80];
    let mut waits = WAITS_MS.into_iter();
    loop {
        match start() {
            Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ETXTBSY as i32) => {
                match waits.next() {
                    Some(ms) => std::thread::sleep(Duration::from_millis(ms)),
                    None => return Err(e),
                }
            }
            other => return other,
        }
    }
}

// The one place that constructs a `Command`: every child goes through `spawn`, which gives it a
// process group, a cleared environment and an exit monitor.
#[allow(clippy::disallowed_methods)]
fn command(program: &OsStr) -> tokio::process::Command {
    tokio::process::Command::new(program)
}

/// Starts the child described by `spec` and its exit monitor. Must be called inside a tokio
/// runtime.
///
/// # Errors
/// [`ProcessError::ForbiddenEnv`] for a credential-channel variable,
/// [`ProcessError::NoWorkingDir`] for a missing working directory, [`ProcessError::NotFound`]
/// when the program does not exist, [`ProcessError::Spawn`] for any other start failure.
pub fn spawn(spec: ProcessSpec) -> Result<OwnedChild, ProcessError> {
    signals::default_for_children();
    let mut vars = spec.environment()?;
    spec.call.check_cwd()?;
    let program_name = spec.call.program_name();
    let (program, args) = match &spec.sandbox {
        None => (spec.call.program.clone(), spec.call.args.clone()),
        Some(sandbox) => {
            let path = vars.get(OsStr::new("PATH"));
            let resolved =
                resolve(&spec.call.program, path).ok_or_else(|| ProcessError::NotFound {
                    program: program_name.clone(),
                })?;
            let cwd = match &spec.call.cwd {
                Some(cwd) => cwd.clone(),
                None => std::env::current_dir().map_err(|source| ProcessError::Spawn {
                    program: program_name.clone(),
                    source,
                })?,
            };
            vars.insert("TMPDIR".into(), sandbox.temp.clone().into_os_string());
            let args = crate::sandbox::bwrap::arguments(sandbox, &resolved, &spec.call.args, &cwd);
            match &sandbox.setsid {
                // `setsid` (not a group leader here, so it does not fork) makes the process the
                // leader of a new session and process group, pgid = its pid as below, and with
                // no controlling terminal: a worker started from a terminal cannot push
                // keystrokes into it (TIOCSTI). bubblewrap's own --new-session would instead
                // move the sandbox out of the group the runner signals.
                Some(setsid) => {
                    let mut with = vec![sandbox.bwrap.clone().into_os_string()];
                    with.extend(args);
                    (setsid.clone().into_os_string(), with)
                }
                None => (sandbox.bwrap.clone().into_os_string(), args),
            }
        }
    };
    let new_session = spec.sandbox.as_ref().is_some_and(|s| s.setsid.is_some());
    let mut command = command(&program);
    if !new_session {
        command.process_group(0);
    }
    command
        .args(&args)
        .env_clear()
        .envs(&vars)
        .kill_on_drop(true)
        .stdin(if spec.call.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &spec.call.cwd {
        command.current_dir(cwd);
    }
    let mut child = again_while_busy(|| command.spawn()).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ProcessError::NotFound {
            program: program_name.clone(),
        },
        _ => ProcessError::Spawn {
            program: program_name.clone(),
            source,
        },
    })?;
    let pid = child.id().ok_or_else(|| ProcessError::Spawn {
        program: program_name.clone(),
        source: std::io::Error::other("the child exited before its pid was read"),
    })?;
    let raw_pid = i32::try_from(pid).map_err(|_| ProcessError::Spawn {
        program: program_name,
        source: std::io::Error::other("pid out of range"),
    })?;
    let group = Arc::new(Group {
        pgid: Pid::from_raw(raw_pid),
        gone: Mutex::new(false),
        dropped: AtomicBool::new(false),
    });
    let output = OutputBuffer::new(spec.output_cap);
    let cancel = spec.cancel.unwrap_or_default();
    let (exit_tx, exit_rx) = watch::channel(None);
    let monitor = monitor::Monitor {
        stdin: child.stdin.take(),
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        child,
        stdin_payload: spec.call.stdin.unwrap_or_default(),
        group: group.clone(),
        output: output.clone(),
        tap: spec.tap,
        cancel: cancel.clone(),
        timeout: spec.timeout,
        grace: spec.grace,
        drain: spec.drain,
        exit: exit_tx,
    };
    tokio::spawn(monitor.run());
    Ok(OwnedChild {
        pid,
        group,
        output,
        cancel,
        exit: exit_rx,
    })
}

/// `program` as a path: itself when it names one, else the first executable of that name on
/// `path`.
fn resolve(program: &OsStr, path: Option<&OsString>) -> Option<PathBuf> {
    let as_path = Path::new(program);
    if as_path.components().count() > 1 || as_path.is_absolute() {
        return as_path.is_file().then(|| as_path.to_path_buf());
    }
    crate::sandbox::find_on_path(&program.to_string_lossy(), path)
}

/// A finished child's exit and its output, split by stream.
#[derive(Debug, Clone)]
pub struct Completed {
    pub exit: ProcessExit,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The output was larger than the cap and its beginning was dropped.
    pub truncated: bool,
}

/// Spawns `spec`, waits for it and returns its retained output. For short commands (`git`,
/// `--version` probes); long-running ones should [`spawn`] and stream.
///
/// # Errors
/// As [`spawn`] and [`OwnedChild::wait`].
pub async fn run(spec: ProcessSpec) -> Result<Completed, ProcessError> {
    let child = spawn(spec)?;
    let exit = child.wait().await?;
    let read = child.output().read_from(0);
    Ok(Completed {
        stdout: read.stream_bytes(Stream::Stdout),
        stderr: read.stream_bytes(Stream::Stderr),
        truncated: read.truncated_before,
        exit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> std::io::Error {
        std::io::Error::from_raw_os_error(nix::errno::Errno::ETXTBSY as i32)
    }

    #[test]
    fn a_start_refused_as_text_file_busy_is_tried_again_and_other_failures_are_not() {
        let mut calls = 0;
        let started = again_while_busy(|| {
            calls += 1;
            if calls < 3 {
                Err(busy())
            } else {
                Ok(calls)
            }
        });
        assert_eq!(started.expect("third try"), 3);

        let mut calls = 0;
        let stays_busy = again_while_busy(|| -> std::io::Result<()> {
            calls += 1;
            Err(busy())
        });
        assert_eq!(
            stays_busy.expect_err("busy").raw_os_error(),
            Some(nix::errno::Errno::ETXTBSY as i32)
        );
        assert_eq!(calls, 6, "five waits, then the error as it is");

        let mut calls = 0;
        let missing = again_while_busy(|| -> std::io::Result<()> {
            calls += 1;
            Err(std::io::ErrorKind::NotFound.into())
        });
        assert!(missing.is_err());
        assert_eq!(calls, 1);
    }
}
