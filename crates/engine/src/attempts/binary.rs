//! Finding a CLI worker's binary and its version.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use switchyard_core::worker::WorkerCli;
use switchyard_runner::tools::{self, VERSION_TIMEOUT};

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

/// `<binary> <version args>` as Settings and `switchyard doctor` ask it (see
/// [`tools::version`]), recorded with the attempt; `None` when it gives none.
pub(super) async fn cli_version(
    cli: WorkerCli,
    binary: &Path,
    path_env: Option<&str>,
) -> Option<String> {
    let path_env = path_env.map(OsStr::new);
    match tools::version(binary, cli.version_args(), path_env, VERSION_TIMEOUT).await {
        Ok(version) => Some(version),
        Err(error) => {
            tracing::info!(%error, "no worker version recorded");
            None
        }
    }
}
