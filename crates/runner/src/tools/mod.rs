//! Finding external tools (`git`, the coding-agent CLIs) and asking them their version.
//!
//! [`ToolSearch`] is where a CLI is looked for: a path the user set, else this process's
//! `PATH`, else the login shell's `PATH` (asked once). [`version`] runs `<tool> --version`
//! through [`crate::process`] with a timeout.

mod search;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{self, EndedBy, ProcessError, ProcessSpec};

pub use search::{login_shell_path, Located, ToolSearch, ToolSource, LOGIN_SHELL_TIMEOUT};

/// How long `<tool> --version` may take (node-based CLIs start slowly on a busy machine).
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Output kept from a version probe.
const VERSION_OUTPUT_CAP: usize = 64 * 1024;

/// Why a tool could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{tool} is not installed or not on PATH")]
    NotFound { tool: String },
    #[error("{tool} did not answer within {timeout:?}")]
    Timeout { tool: String, timeout: Duration },
    #[error("{tool} failed: {detail}")]
    Failed { tool: String, detail: String },
}

/// Why a path cannot be used as a tool's executable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotExecutable {
    #[error("{} is not an absolute path", .0.display())]
    Relative(PathBuf),
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("{} is not a file", .0.display())]
    NotAFile(PathBuf),
    #[error("{} is not executable", .0.display())]
    NoPermission(PathBuf),
}

/// Checks that `path` is an absolute path to an executable file (symlinks followed).
///
/// # Errors
/// [`NotExecutable`] naming what is wrong.
pub fn check_executable(path: &Path) -> Result<(), NotExecutable> {
    if !path.is_absolute() {
        return Err(NotExecutable::Relative(path.to_path_buf()));
    }
    let meta = path
        .metadata()
        .map_err(|_| NotExecutable::Missing(path.to_path_buf()))?;
    if !meta.is_file() {
        return Err(NotExecutable::NotAFile(path.to_path_buf()));
    }
    if !has_exec_bit(&meta) {
        return Err(NotExecutable::NoPermission(path.to_path_buf()));
    }
    Ok(())
}

#[cfg(unix)]
fn has_exec_bit(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn has_exec_bit(_meta: &std::fs::Metadata) -> bool {
    true
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && has_exec_bit(&m))
        .unwrap_or(false)
}

/// Looks `name` up on `path_var` (a `PATH`-style list) and returns the first executable file.
/// Empty and relative entries are skipped: they name the current directory, which for
/// Switchyard may be a repository a worker just wrote into.
pub fn which_in(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// Looks `name` up on the process's `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    which_in(name, std::env::var_os("PATH").as_deref())
}

/// Runs `program args…` (e.g. `claude --version`) and returns the first non-empty line it
/// printed (stdout, else stderr: some CLIs print their version there). A CLI that prints its
/// version and exits non-zero still has that version: after a non-zero exit the line counts
/// when it holds a digit (`tool 1.2.3`), not when it is only a complaint (`unknown flag`).
/// `path_var`, when given, is the child's `PATH` (a CLI found on the login shell's `PATH` may
/// need its interpreter from there too).
///
/// # Errors
/// [`ToolError::NotFound`], [`ToolError::Timeout`] after `timeout`, [`ToolError::Failed`] for
/// a non-zero exit without a version line (with its first line of output), no output at all,
/// or a start failure.
pub async fn version(
    program: &Path,
    args: &[&str],
    path_var: Option<&OsStr>,
    timeout: Duration,
) -> Result<String, ToolError> {
    let tool = program.display().to_string();
    let mut spec = ProcessSpec::new(program)
        .args(args)
        .timeout(timeout)
        .drain(Duration::from_millis(500))
        .output_cap(VERSION_OUTPUT_CAP);
    if let Some(path_var) = path_var {
        spec = spec.env("PATH", path_var);
    }
    let completed = match process::run(spec).await {
        Err(ProcessError::NotFound { .. }) => return Err(ToolError::NotFound { tool }),
        Err(e) => {
            return Err(ToolError::Failed {
                tool,
                detail: e.to_string(),
            })
        }
        Ok(completed) => completed,
    };
    if completed.exit.ended_by == EndedBy::TimedOut {
        return Err(ToolError::Timeout { tool, timeout });
    }
    let line = first_line(&completed.stdout).or_else(|| first_line(&completed.stderr));
    if !completed.exit.success() && completed.exit.ended_by == EndedBy::Exited {
        if let Some(version) = line
            .as_ref()
            .filter(|l| l.bytes().any(|b| b.is_ascii_digit()))
        {
            return Ok(version.clone());
        }
    }
    if !completed.exit.success() {
        let detail = match (completed.exit.code, line) {
            (Some(code), Some(line)) => format!("exit {code}: {line}"),
            (Some(code), None) => format!("exit {code}"),
            (None, line) => format!(
                "killed by signal {}{}",
                completed.exit.signal.unwrap_or_default(),
                line.map(|l| format!(": {l}")).unwrap_or_default()
            ),
        };
        return Err(ToolError::Failed { tool, detail });
    }
    line.ok_or_else(|| ToolError::Failed {
        tool,
        detail: "printed no version".to_owned(),
    })
}

/// The first non-empty line, trimmed and capped at 200 characters.
fn first_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.chars().take(200).collect())
}

/// Runs `git --version` and returns its first line, e.g. `git version 2.47.3`.
///
/// # Errors
/// As [`version`], with `git` as the tool's name.
pub async fn git_version() -> Result<String, ToolError> {
    let timeout = Duration::from_secs(5);
    version(Path::new("git"), &["--version"], None, timeout)
        .await
        .map_err(|e| match e {
            ToolError::NotFound { .. } => ToolError::NotFound { tool: "git".into() },
            ToolError::Timeout { timeout, .. } => ToolError::Timeout {
                tool: "git".into(),
                timeout,
            },
            ToolError::Failed { detail, .. } => ToolError::Failed {
                tool: "git".into(),
                detail,
            },
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_exe(path: &Path, body: &str) {
        std::fs::write(path, body).expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }

    #[test]
    fn which_finds_only_executables_in_path_order() {
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        let plain = a.path().join("claude");
        std::fs::write(&plain, "not executable").expect("write");
        let exe = b.path().join("claude");
        write_exe(&exe, "#!/bin/sh\n");
        let path = std::env::join_paths([a.path(), b.path()]).expect("join");
        assert_eq!(which_in("claude", Some(&path)), Some(exe));
        assert_eq!(which_in("codex", Some(&path)), None);
        assert_eq!(which_in("claude", None), None);
    }

    #[test]
    fn which_skips_relative_and_empty_entries() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_exe(&dir.path().join("aider"), "#!/bin/sh\n");
        // Relative to the test's working directory, which does hold a file named like this.
        let path = std::ffi::OsString::from(format!(":.:{}", dir.path().join("nowhere").display()));
        assert_eq!(which_in("Cargo.toml", Some(&path)), None);
    }

    #[test]
    fn check_executable_names_what_is_wrong() {
        let dir = tempfile::tempdir().expect("tempdir");
        let exe = dir.path().join("codex");
        write_exe(&exe, "#!/bin/sh\n");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").expect("write");
        assert_eq!(check_executable(&exe), Ok(()));
        assert_eq!(
            check_executable(Path::new("bin/codex")),
            Err(NotExecutable::Relative("bin/codex".into()))
        );
        assert_eq!(
            check_executable(&dir.path().join("gone")),
            Err(NotExecutable::Missing(dir.path().join("gone")))
        );
        assert_eq!(
            check_executable(dir.path()),
            Err(NotExecutable::NotAFile(dir.path().to_path_buf()))
        );
        assert_eq!(
            check_executable(&plain),
            Err(NotExecutable::NoPermission(plain.clone()))
        );
    }

    #[tokio::test]
    async fn version_reads_the_first_line_from_stdout_or_stderr() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        write_exe(
            &out,
            "#!/bin/sh\necho\necho \"1.2.3 (Fake Code) $1\"\necho more\n",
        );
        let err = dir.path().join("err");
        write_exe(&err, "#!/bin/sh\necho 'err-cli 0.9' >&2\n");
        let failing = dir.path().join("failing");
        write_exe(&failing, "#!/bin/sh\necho 'unknown flag' >&2\nexit 4\n");
        let versioned = dir.path().join("versioned");
        write_exe(&versioned, "#!/bin/sh\necho 'old-cli 3.1.4'\nexit 1\n");
        let t = Duration::from_secs(10);
        assert_eq!(
            version(&out, &["--version"], None, t).await.expect("out"),
            "1.2.3 (Fake Code) --version"
        );
        assert_eq!(
            version(&err, &["--version"], None, t).await.expect("err"),
            "err-cli 0.9"
        );
        let failed = version(&failing, &["--version"], None, t)
            .await
            .expect_err("exit 4");
        assert!(
            matches!(&failed, ToolError::Failed { detail, .. } if detail == "exit 4: unknown flag"),
            "{failed:?}"
        );
        assert_eq!(
            version(&versioned, &["--version"], None, t)
                .await
                .expect("a version printed with exit 1 is still a version"),
            "old-cli 3.1.4"
        );
        let missing = version(&dir.path().join("gone"), &["--version"], None, t)
            .await
            .expect_err("missing");
        assert!(matches!(missing, ToolError::NotFound { .. }), "{missing:?}");
    }

    #[tokio::test]
    async fn version_times_out_and_gives_the_child_the_path_it_was_found_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let slow = dir.path().join("slow");
        write_exe(&slow, "#!/bin/sh\nexec sleep 30\n");
        let started = std::time::Instant::now();
        let timed_out = version(&slow, &[], None, Duration::from_millis(300))
            .await
            .expect_err("timeout");
        assert!(
            matches!(timed_out, ToolError::Timeout { .. }),
            "{timed_out:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));

        let path_cli = dir.path().join("path-cli");
        write_exe(&path_cli, "#!/bin/sh\necho \"PATH=$PATH\"\n");
        let line = version(
            &path_cli,
            &[],
            Some(OsStr::new("/only/this")),
            Duration::from_secs(10),
        )
        .await
        .expect("runs");
        assert_eq!(line, "PATH=/only/this");
    }

    #[tokio::test]
    async fn git_version_reads_the_real_git() {
        let version = git_version()
            .await
            .expect("git is installed on every dev and CI machine");
        assert!(version.starts_with("git version "), "{version}");
    }
}
