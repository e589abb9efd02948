//! Finding a CLI worker's binary and its version.

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchyard_core::worker::WorkerCli;
use switchyard_runner::process::{self, ProcessSpec};

use super::launch::{failed, WorkerEnd};
use crate::Engine;

impl Engine {
    /// The CLI's binary, found as Settings and `switchyard doctor` find it (the path set in
    /// Settings, else `PATH`, else the login shell's `PATH`), with the `PATH` its process
    /// needs when that differs from ours.
    pub(super) async fn resolve_cli(
        &self,
        cli: WorkerCli,
    ) -> Result<(PathBuf, Option<String>), WorkerEnd> {
        let configured = self
            .worker_path_setting(cli)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let located = self
            .locate(cli, configured.as_deref())
            .await
            .map_err(|problem| {
                failed(format!(
                    "{} is not installed: {problem}; install it or set its path in Settings",
                    cli.program()
                ))
            })?;
        Ok((
            located.path,
            located.child_path.map(|p| p.to_string_lossy().into_owned()),
        ))
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
