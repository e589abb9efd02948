//! Running the `git` CLI for Switchyard's own operations.
//!
//! Each invocation is an owned child: its own process group, killed with the group on timeout
//! and on drop, a cleared environment (an allowlist plus what the operation sets), no terminal
//! prompt, no credential helper, no hooks, no signing, no auto-gc, no network transport.
//! Kept small on purpose so it can move onto the runner's shared process module.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::GitError;

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

/// Environment variables passed through from Switchyard's own environment; everything else
/// (`GIT_DIR`, `GIT_INDEX_FILE`, `SSH_AUTH_SOCK`, provider keys, …) is dropped.
const PASSED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "TZ",
];

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
        // git's own helper was written beside the shared process module: it gives git its own
        // process group, a timeout and a cleared environment too; runs will move it onto
        // `process::spawn`.
        #[allow(clippy::disallowed_methods)]
        let mut command = Command::new(&self.git.program);
        command.current_dir(&self.cwd).env_clear();
        for key in PASSED_ENV {
            if let Some(value) = std::env::var_os(key) {
                command.env(key, value);
            }
        }
        command
            .env("LC_ALL", "C")
            .env("LANG", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_ATTR_NOSYSTEM", "1");
        if self.isolated {
            command
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null");
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        for setting in FORCED_CONFIG
            .iter()
            .copied()
            .chain(self.config.iter().map(String::as_str))
        {
            command.arg("-c").arg(setting);
        }
        command
            .args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        let mut child = command.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::GitMissing
            } else {
                GitError::io(format!("starting git {subcommand}"), e)
            }
        })?;
        let pid = child.id();
        let writer = match (self.stdin, child.stdin.take()) {
            (Some(bytes), Some(mut pipe)) => Some(tokio::spawn(async move {
                // A child that exits early closes the pipe; its exit status tells the story.
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            })),
            _ => None,
        };
        let result = tokio::time::timeout(self.git.timeout, child.wait_with_output()).await;
        if let Some(writer) = writer {
            writer.abort();
        }
        match result {
            Ok(Ok(output)) => Ok(GitOutput {
                code: output.status.code(),
                stdout: output.stdout,
                stderr: output.stderr,
            }),
            Ok(Err(e)) => Err(GitError::io(format!("waiting for git {subcommand}"), e)),
            Err(_) => {
                if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                    // The leader is killed on drop; this reaches anything git started.
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                Err(GitError::Timeout {
                    command: subcommand,
                    timeout: self.git.timeout,
                })
            }
        }
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
