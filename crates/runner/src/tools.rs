//! Finding external tools: `git` and the coding-agent CLIs on `PATH`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

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

/// Looks `name` up on `path_var` (a `PATH`-style list) and returns the first executable file.
pub fn which_in(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// Looks `name` up on the process's `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    which_in(name, std::env::var_os("PATH").as_deref())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Runs `git --version` and returns its first line, e.g. `git version 2.47.3`.
pub async fn git_version() -> Result<String, ToolError> {
    first_line("git", &["--version"], Duration::from_secs(5)).await
}

/// Runs `program args…` with no stdin, under `timeout`, and returns the first line of its
/// stdout. The child is killed when the timeout drops it.
async fn first_line(program: &str, args: &[&str], timeout: Duration) -> Result<String, ToolError> {
    let tool = program.to_owned();
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).kill_on_drop(true);
    let output = match tokio::time::timeout(timeout, command.output()).await {
        Err(_) => return Err(ToolError::Timeout { tool, timeout }),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::NotFound { tool })
        }
        Ok(Err(e)) => {
            return Err(ToolError::Failed {
                tool,
                detail: e.to_string(),
            })
        }
        Ok(Ok(output)) => output,
    };
    if !output.status.success() {
        let detail = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(ToolError::Failed { tool, detail });
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_finds_only_executables_in_path_order() {
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        let plain = a.path().join("claude");
        std::fs::write(&plain, "not executable").expect("write");
        let exe = b.path().join("claude");
        std::fs::write(&exe, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let path = std::env::join_paths([a.path(), b.path()]).expect("join");
        assert_eq!(which_in("claude", Some(&path)), Some(exe));
        assert_eq!(which_in("codex", Some(&path)), None);
        assert_eq!(which_in("claude", None), None);
    }

    #[tokio::test]
    async fn git_version_reads_the_real_git() {
        let version = git_version()
            .await
            .expect("git is installed on every dev and CI machine");
        assert!(version.starts_with("git version "), "{version}");
    }

    /// The crate docs promise a timeout and kill-on-drop for every child: a tool that hangs
    /// comes back as `Timeout` and is dead afterwards, not left running.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_hanging_tool_times_out_and_is_killed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("pid");
        let script = format!("echo $$ > '{}'; exec sleep 30", pid_file.display());
        let started = std::time::Instant::now();
        let result = first_line("sh", &["-c", &script], Duration::from_secs(1)).await;
        assert!(
            matches!(result, Err(ToolError::Timeout { .. })),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        let pid = std::fs::read_to_string(&pid_file).expect("the child wrote its pid");
        let stat = format!("/proc/{}/stat", pid.trim());
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            // Gone, or a zombie waiting to be reaped: either way it no longer runs.
            let alive = std::fs::read_to_string(&stat)
                .ok()
                .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().to_owned()))
                .is_some_and(|rest| !rest.starts_with('Z'));
            if !alive {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the timed-out child {pid} still runs"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    #[tokio::test]
    async fn a_missing_tool_is_not_found() {
        let result = first_line("switchyard-no-such-tool", &[], Duration::from_secs(5)).await;
        assert!(
            matches!(result, Err(ToolError::NotFound { .. })),
            "{result:?}"
        );
    }
}
