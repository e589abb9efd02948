//! Running the `git` CLI for Switchyard's own operations.
//!
//! Each invocation is an owned child of [`crate::process`]: its own process group, killed with
//! the group on timeout and on drop, the runner's environment allowlist plus what the operation
//! sets (`GIT_DIR`, `GIT_INDEX_FILE`, the SSH agent and provider keys never pass), no terminal
//! prompt, no credential helper, no hooks, no signing, no auto-gc, no network transport.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::GitError;
use crate::process::{self, EndedBy, Grace, ProcessError, ProcessSpec, Stream};

/// How long one git command may run unless the handle says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Stderr kept in an error.
const STDERR_CAP: usize = 2048;

/// Config forced on every invocation (`-c key=value`), so that repository and user settings
/// cannot run code or reach the network on Switchyard's behalf.
const FORCED_CONFIG: &[&str] = &[
    "core.hooksPath=/dev/null",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "credential.helper=",
    "core.fsmonitor=false",
    "core.splitIndex=false",
    "core.untrackedCache=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "submodule.recurse=false",
    "protocol.allow=never",
];

/// git gets no time to clean up after its timeout: nothing it does for Switchyard needs it.
const KILL_GRACE: Grace = Grace {
    interrupt: Duration::from_millis(200),
    terminate: Duration::from_millis(200),
};

/// How long to read after git exits: it starts no background processes of its own.
const DRAIN: Duration = Duration::from_millis(500);

/// The shared buffer's cap; the output itself is collected by the tap.
const BUFFER_CAP: usize = 64 * 1024;

/// A handle on the `git` executable with a per-command timeout.
#[derive(Debug, Clone)]
pub struct Git {
    program: PathBuf,
    timeout: Duration,
}

impl Default for Git {
    fn default() -> Self {
        Git {
            program: PathBuf::from("git"),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Git {
    /// `git` from `PATH` with [`DEFAULT_TIMEOUT`].
    pub fn new() -> Git {
        Git::default()
    }

    /// A specific git executable (e.g. a path set in Settings).
    pub fn with_program(mut self, program: impl Into<PathBuf>) -> Git {
        self.program = program.into();
        self
    }

    /// A different per-command timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Git {
        self.timeout = timeout;
        self
    }

    pub(crate) fn cmd(&self, cwd: &Path) -> GitCmd<'_> {
        GitCmd {
            git: self,
            cwd: cwd.to_path_buf(),
            config: Vec::new(),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            isolated: false,
        }
    }
}

/// One git invocation being built.
pub(crate) struct GitCmd<'g> {
    git: &'g Git,
    cwd: PathBuf,
    config: Vec<String>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    isolated: bool,
}

/// What a finished git command printed.
pub(crate) struct GitOutput {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl GitOutput {
    pub fn stdout_line(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_owned()
    }

    pub fn stderr_text(&self) -> String {
        cap(&String::from_utf8_lossy(&self.stderr))
    }
}

fn cap(text: &str) -> String {
    let text = text.trim();
    if text.len() <= STDERR_CAP {
        return text.to_owned();
    }
    let mut end = STDERR_CAP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

impl<'g> GitCmd<'g> {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// An extra `-c key=value` for this invocation.
    pub fn config(mut self, setting: &str) -> Self {
        self.config.push(setting.to_owned());
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    pub fn stdin(mut self, bytes: Vec<u8>) -> Self {
        self.stdin = Some(bytes);
        self
    }

    /// Ignore the user's global and the system git config (repository config still applies),
    /// for output whose bytes must not depend on them.
    pub fn isolated(mut self) -> Self {
        self.isolated = true;
        self
    }

    fn subcommand(&self) -> String {
        self.args
            .first()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Runs the command and returns its output whatever the exit code.
    pub async fn output(self) -> Result<GitOutput, GitError> {
        let subcommand = self.subcommand();
        let mut spec = ProcessSpec::new(&self.git.program)
            .current_dir(&self.cwd)
            .timeout(self.git.timeout)
            .grace(KILL_GRACE)
            .drain(DRAIN)
            // The tap keeps every byte; the buffer only has to exist.
            .output_cap(BUFFER_CAP);
        // `XDG_CONFIG_HOME` is where the user's global git config may live; the runner's
        // allowlist does not carry it for other children.
        if let Some(value) = std::env::var_os("XDG_CONFIG_HOME") {
            spec = spec.env("XDG_CONFIG_HOME", value);
        }
        spec = spec
            .env("LC_ALL", "C")
            .env("LANG", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_ATTR_NOSYSTEM", "1");
        if self.isolated {
            spec = spec
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null");
        }
        for (key, value) in &self.env {
            spec = spec.env(key.to_string_lossy(), value);
        }
        for setting in FORCED_CONFIG
            .iter()
            .copied()
            .chain(self.config.iter().map(String::as_str))
        {
            spec = spec.arg("-c").arg(setting);
        }
        spec = spec.args(&self.args);
        if let Some(bytes) = self.stdin {
            spec = spec.stdin(bytes);
        }
        // git output is data (patches, object lists), never capped: collected whole here.
        let collected: Arc<Mutex<(Vec<u8>, Vec<u8>)>> = Arc::default();
        let sink = collected.clone();
        spec = spec.tap(move |stream, bytes| {
            let mut sink = sink.lock().unwrap_or_else(|p| p.into_inner());
            match stream {
                Stream::Stdout => sink.0.extend_from_slice(bytes),
                Stream::Stderr => sink.1.extend_from_slice(bytes),
            }
        });
        let exit = process::run(spec).await.map_err(|e| match e {
            ProcessError::NotFound { .. } => GitError::GitMissing,
            ProcessError::NoWorkingDir { path } => GitError::io(
                format!("running git {subcommand} in {}", path.display()),
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ),
            other => GitError::io(
                format!("running git {subcommand}"),
                std::io::Error::other(other.to_string()),
            ),
        })?;
        if exit.exit.ended_by == EndedBy::TimedOut {
            return Err(GitError::Timeout {
                command: subcommand,
                timeout: self.git.timeout,
            });
        }
        let (stdout, stderr) =
            std::mem::take(&mut *collected.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(GitOutput {
            code: exit.exit.code,
            stdout,
            stderr,
        })
    }

    /// Runs the command and returns its stdout; a non-zero exit is [`GitError::Failed`].
    pub async fn run(self) -> Result<Vec<u8>, GitError> {
        let subcommand = self.subcommand();
        let output = self.output().await?;
        if output.code == Some(0) {
            Ok(output.stdout)
        } else {
            Err(GitError::Failed {
                command: subcommand,
                code: output.code,
                stderr: output.stderr_text(),
            })
        }
    }

    /// Runs the command and returns its trimmed stdout as text.
    pub async fn line(self) -> Result<String, GitError> {
        let stdout = self.run().await?;
        Ok(String::from_utf8_lossy(&stdout).trim().to_owned())
    }
}
