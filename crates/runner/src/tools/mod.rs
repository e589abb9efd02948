//! Finding external tools: `git` and the coding-agent CLIs on `PATH`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{self, EndedBy, ProcessError, ProcessSpec};

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
    let tool = "git".to_owned();
    let timeout = Duration::from_secs(5);
    let spec = ProcessSpec::new("git")
        .arg("--version")
        .timeout(timeout)
        .output_cap(64 * 1024);
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
    if !completed.exit.success() {
        let detail = String::from_utf8_lossy(&completed.stderr).trim().to_owned();
        return Err(ToolError::Failed { tool, detail });
    }
    Ok(String::from_utf8_lossy(&completed.stdout)
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
}
