//! Detached processes: the one kind of child the runner does not own.
//!
//! Why it exists: `switchyard run --detach` must print the attempt and return at once while
//! the attempt goes on to review. A live attempt needs a live owner process (its lease is a
//! pid and a token), so the CLI starts a copy of itself to own it, and that copy must outlive
//! the CLI. Everything [`super::spawn`] guarantees is the opposite (kill on drop, one exit
//! monitor), hence this separate, deliberately small entry point.
//!
//! A detached child:
//! - leads its **own process group**, so a Ctrl-C or hang-up meant for the terminal's
//!   foreground job never reaches it (a new session would need `setsid` in `pre_exec`, which
//!   is unsafe code; a background group that never touches the terminal is enough);
//! - has **no terminal**: stdin is the `stdin` payload (then closed) or `/dev/null`; stdout
//!   and stderr go to the log file or `/dev/null`;
//! - starts with a **cleared environment**: the [`super::env`] allowlist, plus the parent
//!   variables the caller forwards by name, plus explicit ones. The SSH agent, askpass
//!   programs and `GIT_*` are never forwarded: the detached process is Switchyard's own
//!   engine, which never pushes or prompts. (It may be given the session bus, which a worker
//!   never gets, because the engine reads its keychain through it.)
//! - is **not killed** when the spawning process ends. A thread of the parent waits for it,
//!   so a long-lived parent (`switchyard mcp`, the app) reaps each child as it exits instead
//!   of collecting zombies; when the parent exits first, init reaps the child.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::invocation::Invocation;
use super::{env, ProcessError};

/// Parent variables never forwarded to a detached process, by exact name.
pub const NEVER_FORWARDED: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "SSH_ASKPASS",
    "GIT_ASKPASS",
    "SUDO_ASKPASS",
];

/// Whether a parent variable may be forwarded to a detached process at all.
pub fn may_forward(name: &str) -> bool {
    !NEVER_FORWARDED.contains(&name) && !name.starts_with("GIT_")
}

/// What to start detached. Build with [`DetachedSpec::new`] and the setters.
pub struct DetachedSpec {
    call: Invocation,
    log: Option<PathBuf>,
}

impl std::fmt::Debug for DetachedSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Values may be keys: names only; the stdin payload is a secret token.
        let mut d = f.debug_struct("DetachedSpec");
        self.call.debug_fields(&mut d);
        d.field("log", &self.log).finish()
    }
}

impl DetachedSpec {
    /// `program` with the parent's allowlisted environment, no stdin and no log.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            call: Invocation::new(program.into(), env::inherited_from_parent()),
            log: None,
        }
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

    /// Forwards every parent variable whose name `keep` accepts, except those
    /// [`may_forward`] refuses.
    pub fn forward_if(mut self, keep: impl Fn(&str) -> bool) -> Self {
        self.call
            .base_env
            .extend(std::env::vars_os().filter(|(name, _)| {
                name.to_str()
                    .is_some_and(|name| keep(name) && may_forward(name))
            }));
        self
    }

    /// One variable set explicitly (overrides an inherited or forwarded one). A name
    /// [`may_forward`] refuses makes [`spawn_detached`] fail.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<OsString>) -> Self {
        self.call.explicit.push((name.into(), value.into()));
        self
    }

    /// Bytes written to the child's stdin, which is then closed (a token that must not
    /// appear in `ps`). Keep it under the pipe's buffer (4 KiB is always safe): the write
    /// does not wait for the child to read.
    pub fn stdin(mut self, payload: impl Into<Vec<u8>>) -> Self {
        self.call.stdin = Some(payload.into());
        self
    }

    /// Appends the child's stdout and stderr to `path` (created with its parent folders).
    pub fn log_to(mut self, path: impl AsRef<Path>) -> Self {
        self.log = Some(path.as_ref().to_path_buf());
        self
    }

    fn environment(&self) -> Result<BTreeMap<OsString, OsString>, ProcessError> {
        self.call.environment(|name| !may_forward(name))
    }
}

// The runner's only other `Command`: this child is meant to outlive its parent, so it gets no
// monitor and no kill-on-drop (see the module docs).
#[allow(clippy::disallowed_methods)]
fn command(program: &OsStr) -> std::process::Command {
    std::process::Command::new(program)
}

/// Starts `spec` detached (see the module docs) and returns its pid. Needs no runtime.
///
/// # Errors
/// [`ProcessError::ForbiddenEnv`], [`ProcessError::NoWorkingDir`], [`ProcessError::NotFound`];
/// [`ProcessError::Spawn`] when the log cannot be opened, the start fails, or the child
/// closed its stdin before the payload was written (it died at once).
pub fn spawn_detached(spec: DetachedSpec) -> Result<u32, ProcessError> {
    let vars = spec.environment()?;
    let program = spec.call.program_name();
    let spawn_error = |source: std::io::Error| ProcessError::Spawn {
        program: program.clone(),
        source,
    };
    spec.call.check_cwd()?;
    let (stdout, stderr) = match &spec.log {
        Some(path) => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(spawn_error)?;
            }
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(spawn_error)?;
            let copy = file.try_clone().map_err(spawn_error)?;
            (Stdio::from(file), Stdio::from(copy))
        }
        None => (Stdio::null(), Stdio::null()),
    };
    let mut command = command(&spec.call.program);
    command
        .args(&spec.call.args)
        .env_clear()
        .envs(&vars)
        .process_group(0)
        .stdin(if spec.call.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(stdout)
        .stderr(stderr);
    if let Some(cwd) = &spec.call.cwd {
        command.current_dir(cwd);
    }
    let mut child =
        super::again_while_busy(|| command.spawn()).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => ProcessError::NotFound {
                program: program.clone(),
            },
            _ => spawn_error(source),
        })?;
    if let (Some(payload), Some(mut stdin)) = (spec.call.stdin, child.stdin.take()) {
        // Closing stdin (dropping it) after the write is the child's end-of-input.
        stdin.write_all(&payload).map_err(spawn_error)?;
    }
    let pid = child.id();
    // Reaped when it exits; never killed. A thread per child: detached children are few (one
    // per handed-off job) and this needs no runtime.
    // Without the thread (it could not be made) the child is still fine: it stays a zombie
    // until this process exits.
    let _ = std::thread::Builder::new()
        .name(format!("reap-{pid}"))
        .spawn(move || {
            let _ = child.wait();
        });
    Ok(pid)
}
