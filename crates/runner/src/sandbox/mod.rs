//! Confinement for untrusted processes: every worker and every verification command runs
//! inside a bubblewrap sandbox built here and started by [`crate::process::spawn`] (the only
//! place that spawns).
//!
//! What a confined process sees ([`bwrap::arguments`] has the exact order):
//! - the whole filesystem **read-only**, with `/run/user`, every socket under `/tmp`, `/run`
//!   and `/dev/shm` (with the directory holding it) and the user's credential stores
//!   (`~/.ssh`, `~/.gnupg`, `~/.aws`, …) hidden, so no socket of the user's session (SSH agent,
//!   tmux, the D-Bus bus behind the keychain, X11, an editor's server, Docker) can be reached by
//!   path;
//! - **writable** only: the attempt's worktree (with its own entry under the repository's
//!   `worktrees/<name>`, so git works inside), its private temp (also `TMPDIR`), and the CLI's
//!   own state directories; the rest of the repository's git directory stays read-only (the
//!   files of `worktrees/<name>` that say where the repository is are checked and put back by
//!   the repository gate before Switchyard's own git runs there);
//! - its own PID, IPC, UTS and cgroup namespaces, `/proc` of its own PID namespace, a minimal
//!   `/dev`, no capabilities, no new privileges, and `--die-with-parent`;
//! - unless network is [`Network::Open`], its own **network namespace** with loopback only.
//!   With [`Network::Proxy`] the only way out is Switchyard's [`proxy::EgressProxy`]: its Unix
//!   sockets are bound into the sandbox and `socat` bridges each to a loopback port inside.
//!
//! Where bubblewrap is missing or cannot create namespaces, [`probe`] says why; the engine
//! then refuses to start workers unless the user allowed unconfined ones.

pub mod bwrap;
pub mod proxy;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use switchyard_core::confinement::NetworkPolicy;

use crate::process::{self, ProcessSpec};

/// The inside end of one bridge: `socat` listens on `127.0.0.1:port` in the sandbox and
/// connects each client to `socket`, a Unix socket the egress proxy serves outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bridge {
    pub port: u16,
    pub socket: PathBuf,
}

/// What a confined process may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    /// Loopback inside its own namespace, nothing else.
    None,
    /// The host's network (the user allowed it for this attempt).
    Open,
    /// Only the bridges (the egress proxy and the loopback origins it forwards).
    Proxy {
        socat: PathBuf,
        bridges: Vec<Bridge>,
    },
}

impl Network {
    pub fn policy(&self) -> NetworkPolicy {
        match self {
            Network::None => NetworkPolicy::None,
            Network::Open => NetworkPolicy::Open,
            Network::Proxy { .. } => NetworkPolicy::ProviderOnly,
        }
    }
}

/// The sandbox one process runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The `bwrap` executable.
    pub bwrap: PathBuf,
    /// Directories (or files) the process may write, besides `temp`.
    pub writable: Vec<PathBuf>,
    /// Directories it may read that would otherwise be hidden (under `/tmp` or a credential
    /// store), such as the repository's git directory.
    pub readable: Vec<PathBuf>,
    /// Its private temp directory (created by the caller; `TMPDIR` points here).
    pub temp: PathBuf,
    pub network: Network,
    /// The user's home, whose credential stores are hidden.
    pub home: Option<PathBuf>,
    /// `setsid`, which starts the sandbox in a session of its own (no controlling terminal);
    /// found on this process's `PATH` (util-linux ships it everywhere bubblewrap runs).
    pub setsid: Option<PathBuf>,
}

impl Sandbox {
    /// A sandbox writing only `temp` (add the worktree with [`Sandbox::write`]).
    pub fn new(bwrap: PathBuf, temp: PathBuf) -> Self {
        Sandbox {
            bwrap,
            writable: Vec::new(),
            readable: Vec::new(),
            temp,
            network: Network::None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            setsid: find_on_path("setsid", std::env::var_os("PATH").as_ref()),
        }
    }

    pub fn write(mut self, path: impl Into<PathBuf>) -> Self {
        self.writable.push(path.into());
        self
    }

    pub fn read(mut self, path: impl Into<PathBuf>) -> Self {
        self.readable.push(path.into());
        self
    }

    pub fn network(mut self, network: Network) -> Self {
        self.network = network;
        self
    }

    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }
}

/// Whether bubblewrap can confine processes here, found on this process's `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    pub bwrap: Option<PathBuf>,
    pub bwrap_version: Option<String>,
    pub socat: Option<PathBuf>,
    /// Why `bwrap` cannot be used, when it cannot (missing, or no namespaces).
    pub reason: Option<String>,
}

impl Support {
    /// The `bwrap` to use, when it works here.
    pub fn usable_bwrap(&self) -> Option<&Path> {
        match (&self.bwrap, &self.reason) {
            (Some(path), None) => Some(path),
            _ => None,
        }
    }
}

/// Finds `name` on `path` (a `PATH` value): the first executable file.
pub fn find_on_path(name: &str, path: Option<&OsString>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// How long the namespace check may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What this machine supports, for the current `PATH`. The first call per `PATH` value starts
/// one tiny sandbox (about 5 ms) to see that namespaces work; later calls are answered from
/// memory.
pub async fn probe() -> Support {
    static CACHE: OnceLock<Mutex<HashMap<Option<OsString>, Support>>> = OnceLock::new();
    let path = std::env::var_os("PATH");
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(found) = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&path)
        .cloned()
    {
        return found;
    }
    let support = probe_uncached(path.as_ref()).await;
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(path, support.clone());
    support
}

async fn probe_uncached(path: Option<&OsString>) -> Support {
    let socat = find_on_path("socat", path);
    let Some(bwrap) = find_on_path("bwrap", path) else {
        return Support {
            bwrap: None,
            bwrap_version: None,
            socat,
            reason: Some(
                "bubblewrap (bwrap) is not installed or not on PATH; install the `bubblewrap` \
                 package"
                    .to_owned(),
            ),
        };
    };
    let version = process::run(
        ProcessSpec::new(&bwrap)
            .arg("--version")
            .timeout(PROBE_TIMEOUT),
    )
    .await
    .ok()
    .filter(|done| done.exit.success())
    .map(|done| {
        String::from_utf8_lossy(&done.stdout)
            .trim()
            .trim_start_matches("bubblewrap ")
            .to_owned()
    });
    let trial = ProcessSpec::new(&bwrap)
        .args(bwrap::probe_arguments())
        .arg("true")
        .timeout(PROBE_TIMEOUT);
    let reason = match process::run(trial).await {
        Ok(done) if done.exit.success() => None,
        Ok(done) => Some(format!(
            "bubblewrap cannot create a sandbox here ({}); unprivileged user namespaces may be \
             disabled (kernel.unprivileged_userns_clone, or an AppArmor policy)",
            String::from_utf8_lossy(&done.stderr).trim()
        )),
        Err(error) => Some(format!("bubblewrap could not start: {error}")),
    };
    Support {
        bwrap: Some(bwrap),
        bwrap_version: version,
        socat,
        reason,
    }
}
