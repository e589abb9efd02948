//! Finding a CLI worker's binary and its version.

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchyard_core::worker::WorkerCli;
use switchyard_runner::process::{self, ProcessSpec};
use switchyard_runner::tools::{which, which_in};

use super::launch::{failed, WorkerEnd};
use crate::Engine;

impl Engine {
    /// The CLI's binary: the path set in Settings (`workers.<name>.path`), else on `PATH`,
    /// else on the login shell's `PATH` (returned too, so the CLI finds its own runtime).
    pub(super) async fn resolve_cli(
        &self,
        cli: WorkerCli,
    ) -> Result<(PathBuf, Option<String>), WorkerEnd> {
        let name = cli.program();
        if let Ok(Some(path)) = self.store().setting(&format!("workers.{name}.path")).await {
            let path = PathBuf::from(path.trim());
            if path.is_file() {
                return Ok((path, None));
            }
            return Err(failed(format!(
                "{name} is set to {} in Settings, but that file does not exist",
                path.display()
            )));
        }
        if let Some(path) = which(name) {
            return Ok((path, None));
        }
        if let Some(login_path) = login_shell_path().await {
            if let Some(path) = which_in(name, Some(login_path.as_ref())) {
                return Ok((path, Some(login_path)));
            }
        }
        Err(failed(format!(
            "{name} is not installed: it is not on PATH nor on the login shell's PATH; \
             install it or set its path in Settings"
        )))
    }
}

/// `<binary> --version`, first line, within a few seconds; `None` when it gives none.
pub(super) async fn cli_version(binary: &Path, path_env: Option<&str>) -> Option<String> {
    let mut spec = ProcessSpec::new(binary)
        .arg("--version")
        .timeout(Duration::from_secs(10))
        .output_cap(64 * 1024);
    if let Some(path) = path_env {
        spec = spec.env("PATH", path);
    }
    let done = process::run(spec).await.ok()?;
    let text = if done.stdout.is_empty() {
        done.stderr
    } else {
        done.stdout
    };
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect())
}

/// The login shell's `PATH` (GUI apps start with a minimal one), if it answers quickly.
async fn login_shell_path() -> Option<String> {
    let shell = std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".to_owned());
    let spec = ProcessSpec::new(shell)
        .args(["-l", "-c", "printf '%s' \"$PATH\""])
        .timeout(Duration::from_secs(5))
        .output_cap(64 * 1024);
    let done = process::run(spec).await.ok()?;
    let path = String::from_utf8_lossy(&done.stdout).trim().to_owned();
    (done.exit.success() && !path.is_empty()).then_some(path)
}
