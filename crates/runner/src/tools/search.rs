//! Where a CLI's executable is looked for.
//!
//! An app started from the desktop often has a minimal `PATH` (no `~/.local/bin`, no npm global
//! bin, no Homebrew); the user's login shell knows the real one. So a CLI is found at the path
//! set in Settings, else on this process's `PATH`, else on the login shell's `PATH`, which is
//! asked once per [`ToolSearch`] (`$SHELL -lc 'printf …"$PATH"'`, through [`crate::process`],
//! with [`LOGIN_SHELL_TIMEOUT`]).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::OnceCell;

use super::{which_in, ToolError};
use crate::process::{self, EndedBy, ProcessError, ProcessSpec};

/// How long the login shell may take to print its `PATH` (profiles that run `nvm`, `conda`…).
pub const LOGIN_SHELL_TIMEOUT: Duration = Duration::from_secs(5);

/// Printed right before the `PATH` so that whatever a profile prints first is skipped.
const PATH_MARKER: &str = "__SWITCHYARD_LOGIN_PATH__=";

/// How a tool's executable was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSource {
    /// The path the user set for it.
    Setting,
    /// This process's `PATH`.
    Path,
    /// The login shell's `PATH`.
    LoginShell,
}

/// A tool's executable and what its child process should get as `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Absolute path of the executable.
    pub path: PathBuf,
    pub source: ToolSource,
    /// `PATH` for the child, when it must differ from the runner's allowlisted one: the login
    /// shell's (the CLI's interpreter, e.g. `node`, is likely found there too), or the set
    /// path's directory in front of this process's `PATH`. `None`: inherit.
    pub child_path: Option<OsString>,
}

/// The places a tool is looked for. Build one per process (or per engine) and keep it: the
/// login shell is asked at most once.
#[derive(Debug)]
pub struct ToolSearch {
    path_var: Option<OsString>,
    shell: Option<PathBuf>,
    /// The login shell's `PATH`, or why it could not be had; `None` inside: no shell set.
    login_path: OnceCell<Option<Result<OsString, String>>>,
}

impl ToolSearch {
    /// This process's `PATH` and `SHELL`.
    pub fn from_env() -> Self {
        Self::new(
            std::env::var_os("PATH"),
            std::env::var_os("SHELL").map(PathBuf::from),
        )
    }

    /// An explicit `PATH` and login shell (`None`: no login-shell fallback).
    pub fn new(path_var: Option<OsString>, shell: Option<PathBuf>) -> Self {
        Self {
            path_var,
            shell: shell.filter(|s| !s.as_os_str().is_empty()),
            login_path: OnceCell::new(),
        }
    }

    /// The process `PATH` this search uses.
    pub fn path_var(&self) -> Option<&OsStr> {
        self.path_var.as_deref()
    }

    /// The login shell's `PATH`, asked on first use; `None` when there is no shell or it
    /// failed (see [`login_problem`](Self::login_problem)).
    pub async fn login_path(&self) -> Option<&OsStr> {
        match self.login().await {
            Some(Ok(path)) => Some(path.as_os_str()),
            _ => None,
        }
    }

    /// Why the login shell gave no `PATH`, once it was asked and failed.
    pub fn login_problem(&self) -> Option<&str> {
        match self.login_path.get() {
            Some(Some(Err(problem))) => Some(problem),
            _ => None,
        }
    }

    async fn login(&self) -> Option<&Result<OsString, String>> {
        self.login_path
            .get_or_init(|| async {
                let shell = self.shell.as_deref()?;
                Some(
                    login_shell_path(shell, LOGIN_SHELL_TIMEOUT)
                        .await
                        .map_err(|e| e.to_string()),
                )
            })
            .await
            .as_ref()
    }

    /// Finds `name` on this process's `PATH`, else on the login shell's.
    pub async fn locate(&self, name: &str) -> Option<Located> {
        if let Some(path) = which_in(name, self.path_var()) {
            return Some(Located {
                path,
                source: ToolSource::Path,
                child_path: None,
            });
        }
        let login = self.login_path().await?;
        which_in(name, Some(login)).map(|path| Located {
            path,
            source: ToolSource::LoginShell,
            child_path: Some(login.to_owned()),
        })
    }

    /// A path the user set, already checked to be executable: its directory goes in front of
    /// `PATH` for the child (a CLI installed with its own runtime next to it).
    pub fn located_at(&self, path: &Path) -> Located {
        let mut dirs: Vec<PathBuf> = path.parent().map(Path::to_path_buf).into_iter().collect();
        if let Some(path_var) = self.path_var() {
            dirs.extend(std::env::split_paths(path_var));
        }
        Located {
            path: path.to_path_buf(),
            source: ToolSource::Setting,
            child_path: std::env::join_paths(dirs).ok(),
        }
    }
}

/// Asks `shell` as a login shell for its `PATH`.
///
/// # Errors
/// [`ToolError::NotFound`] when the shell does not exist, [`ToolError::Timeout`],
/// [`ToolError::Failed`] when it exits non-zero or prints no `PATH`.
pub async fn login_shell_path(shell: &Path, timeout: Duration) -> Result<OsString, ToolError> {
    let tool = shell.display().to_string();
    let script = format!("printf '%s%s' '{PATH_MARKER}' \"$PATH\"");
    let spec = ProcessSpec::new(shell)
        .arg("-lc")
        .arg(script)
        .timeout(timeout)
        .drain(Duration::from_millis(500))
        .output_cap(256 * 1024);
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
        return Err(ToolError::Failed {
            tool,
            detail: format!("exit {:?}", completed.exit.code),
        });
    }
    parse_login_path(&completed.stdout).ok_or_else(|| ToolError::Failed {
        tool,
        detail: "printed no PATH".to_owned(),
    })
}

/// What follows the last marker, when not empty.
fn parse_login_path(stdout: &[u8]) -> Option<OsString> {
    use std::os::unix::ffi::OsStringExt;
    let marker = PATH_MARKER.as_bytes();
    let at = stdout.windows(marker.len()).rposition(|w| w == marker)?;
    let path = stdout[at + marker.len()..].to_vec();
    (!path.is_empty()).then(|| OsString::from_vec(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_exe(path: &Path, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, body).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn the_path_is_what_follows_the_last_marker() {
        let noisy = format!("Welcome!\n{PATH_MARKER}/fake\n{PATH_MARKER}/usr/bin:/bin");
        assert_eq!(
            parse_login_path(noisy.as_bytes()),
            Some(OsString::from("/usr/bin:/bin"))
        );
        assert_eq!(parse_login_path(b"no marker"), None);
        assert_eq!(parse_login_path(PATH_MARKER.as_bytes()), None);
    }

    /// A fake login shell: prints a banner (as noisy profiles do), then runs the script with a
    /// `PATH` of its own, and counts how often it was started.
    fn fake_shell(dir: &Path, login_path: &Path) -> PathBuf {
        let shell = dir.join("fake-shell");
        write_exe(
            &shell,
            &format!(
                "#!/bin/sh\necho started >> '{count}'\necho 'Last login: today'\n\
                 [ \"$1\" = -lc ] || exit 9\nPATH='{login}:/usr/bin:/bin'\nexport PATH\n\
                 exec /bin/sh -c \"$2\"\n",
                count = dir.join("count").display(),
                login = login_path.display()
            ),
        );
        shell
    }

    #[tokio::test]
    async fn a_cli_missing_from_path_is_found_on_the_login_shells_path_asked_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let on_path = dir.path().join("path-bin");
        let on_login = dir.path().join("login-bin");
        std::fs::create_dir_all(&on_path).expect("mkdir");
        std::fs::create_dir_all(&on_login).expect("mkdir");
        write_exe(&on_path.join("codex"), "#!/bin/sh\n");
        write_exe(&on_login.join("claude"), "#!/bin/sh\n");
        write_exe(&on_login.join("codex"), "#!/bin/sh\n");
        let shell = fake_shell(dir.path(), &on_login);
        let search = ToolSearch::new(Some(on_path.clone().into_os_string()), Some(shell));

        let codex = search.locate("codex").await.expect("codex");
        assert_eq!(codex.path, on_path.join("codex"));
        assert_eq!(codex.source, ToolSource::Path);
        assert_eq!(codex.child_path, None);

        let claude = search.locate("claude").await.expect("claude");
        assert_eq!(claude.path, on_login.join("claude"));
        assert_eq!(claude.source, ToolSource::LoginShell);
        let child_path = claude.child_path.expect("login PATH");
        assert!(
            child_path
                .to_string_lossy()
                .starts_with(&on_login.display().to_string()),
            "{child_path:?}"
        );

        assert_eq!(search.locate("gemini").await, None);
        let started = std::fs::read_to_string(dir.path().join("count")).expect("count");
        assert_eq!(started.lines().count(), 1, "the login shell is asked once");
    }

    #[tokio::test]
    async fn a_failing_or_missing_login_shell_means_no_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let broken = dir.path().join("broken-shell");
        write_exe(&broken, "#!/bin/sh\nexit 1\n");
        let err = login_shell_path(&broken, Duration::from_secs(5))
            .await
            .expect_err("exit 1");
        assert!(matches!(err, ToolError::Failed { .. }), "{err:?}");
        let search = ToolSearch::new(None, Some(dir.path().join("no-such-shell")));
        assert_eq!(search.locate("claude").await, None);
        assert_eq!(search.login_path().await, None);
        assert!(
            search
                .login_problem()
                .is_some_and(|p| p.contains("no-such-shell")),
            "{:?}",
            search.login_problem()
        );
    }

    #[tokio::test]
    async fn a_set_path_puts_its_directory_first_on_the_childs_path() {
        let search = ToolSearch::new(Some(OsString::from("/usr/bin:/bin")), None);
        let located = search.located_at(Path::new("/opt/claude/bin/claude"));
        assert_eq!(located.source, ToolSource::Setting);
        assert_eq!(
            located.child_path,
            Some(OsString::from("/opt/claude/bin:/usr/bin:/bin"))
        );
    }
}
