//! How an attempt's worker and verification are confined, decided once per attempt.
//!
//! bubblewrap confines them when it works here ([`switchyard_runner::sandbox::probe`]);
//! otherwise nothing starts unless the user allowed unconfined workers
//! ([`ALLOW_UNCONFINED_SETTING`], off by default), and then the attempt records mode `none`.
//! Landlock is not used yet: applying it needs code in the child between fork and exec, which
//! this workspace (no `unsafe`) only gets through a helper executable.
//!
//! Network: an `exec:` worker and verification get none (their own loopback), unless the
//! attempt allows it; a CLI worker reaches only its provider's origin through the
//! [`EgressProxy`] (the provider Switchyard passes it, and the endpoint the CLI's own
//! configuration names); the built-in model worker runs inside Switchyard and calls only its
//! routed origin itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use switchyard_core::attempt::AttemptLog;
use switchyard_core::confinement::{
    origins_in, ConfinementMode, ConfinementReport, ConfinementSupport, Denial, DenialKind,
    DenialSource, NetworkPolicy,
};
use switchyard_core::origin::Origin;
use switchyard_core::worker::{WorkerCli, WorkerSpec};
use switchyard_runner::files::FileSnapshot;
use switchyard_runner::git::{Area, RepoChange, Worktree};
use switchyard_runner::sandbox::proxy::{EgressProxy, ProxyEvent, Target};
use switchyard_runner::sandbox::{self, Network, Sandbox, Support};
use tokio::sync::mpsc;

use crate::catalog::now;
use crate::{Engine, EngineError};

/// Settings key: `"true"` lets workers run unconfined where no sandbox is available.
pub const ALLOW_UNCONFINED_SETTING: &str = "workers.allow_unconfined";

/// Longest Unix socket path (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 100;

/// `host:port` of an origin (the scheme's default port when none is written).
pub(crate) fn target_of(origin: &Origin) -> Option<Target> {
    let text = origin.as_str();
    let (scheme, authority) = text.split_once("://")?;
    let default = if scheme == "https" { 443 } else { 80 };
    let has_port = !authority.ends_with(']')
        && authority
            .rsplit_once(':')
            .is_some_and(|(_, port)| port.parse::<u16>().is_ok());
    if has_port {
        Target::parse(authority)
    } else {
        Some(Target::new(authority, default))
    }
}

impl Engine {
    /// Whether workers may run unconfined where no sandbox is available (default off).
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn allow_unconfined(&self) -> Result<bool, EngineError> {
        let stored = self.store().setting(ALLOW_UNCONFINED_SETTING).await?;
        Ok(stored.as_deref() == Some("true"))
    }

    /// Sets "Allow unconfined workers"; returns the value stored.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_allow_unconfined(&self, allowed: bool) -> Result<bool, EngineError> {
        self.store()
            .set_setting(ALLOW_UNCONFINED_SETTING, &allowed.to_string(), &now())
            .await?;
        Ok(allowed)
    }

    /// What confines workers on this machine, for `doctor` and Settings.
    ///
    /// # Errors
    /// [`EngineError::Store`] (reading the setting).
    pub async fn confinement_support(&self) -> Result<ConfinementSupport, EngineError> {
        let support = sandbox::probe().await;
        let allow = self.allow_unconfined().await?;
        Ok(describe(&support, allow))
    }

    /// The mode a new attempt gets, or why none may start.
    ///
    /// # Errors
    /// [`EngineError::ConfinementUnavailable`] when nothing can confine workers here and
    /// unconfined workers are not allowed.
    pub(crate) async fn confinement_mode(&self) -> Result<ConfinementMode, EngineError> {
        let support = sandbox::probe().await;
        if support.usable_bwrap().is_some() {
            return Ok(ConfinementMode::Bwrap);
        }
        if self.allow_unconfined().await? {
            return Ok(ConfinementMode::None);
        }
        Err(EngineError::ConfinementUnavailable(format!(
            "workers cannot be confined here: {}. To run them anyway, as you and unconfined, \
             turn on Settings → Workers → \"Allow unconfined workers\" (`switchyard settings \
             set workers.allow_unconfined true`)",
            support
                .reason
                .unwrap_or_else(|| "no sandbox is available".to_owned())
        )))
    }

    /// The confinement of one attempt's worker and verification. `scratch` is the attempt's
    /// private directory outside the worktree.
    ///
    /// # Errors
    /// As [`Engine::confinement_mode`]; an egress proxy that cannot start.
    pub(crate) async fn jail(
        &self,
        spec: &WorkerSpec,
        allow_network: bool,
        allow_write: &[String],
        scratch: &Path,
        worktree: &Worktree,
    ) -> Result<Jail, EngineError> {
        let mode = self.confinement_mode().await?;
        let support = sandbox::probe().await;
        let temp = scratch.join("tmp");
        std::fs::create_dir_all(&temp)
            .map_err(|e| EngineError::Io(format!("creating {}: {e}", temp.display())))?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let (denials, denial_rx) = mpsc::unbounded_channel();
        let mut jail = Jail {
            mode,
            bwrap: support.usable_bwrap().map(Path::to_path_buf),
            temp,
            home: home.clone(),
            common_dir: worktree.repo().common_dir().to_path_buf(),
            worktree: worktree.path().to_path_buf(),
            state: Vec::new(),
            extra: allow_write
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.is_dir())
                .collect(),
            own_gitdir: worktree.own_gitdir(),
            network: Network::None,
            proxy: None,
            proxy_env: Vec::new(),
            home_guard: None,
            report: Arc::new(Mutex::new(ConfinementReport {
                mode,
                network: NetworkPolicy::None,
                allowed: Vec::new(),
                writable: Vec::new(),
                denied: Vec::new(),
                denied_more: 0,
            })),
            denials,
            denial_rx: Mutex::new(denial_rx),
            allow_network,
        };
        if let (WorkerSpec::Cli { cli, .. }, Some(home)) = (spec, &home) {
            jail.home_guard = match FileSnapshot::take(home, cli.guarded_config()) {
                Ok(snapshot) => Some(snapshot),
                Err(error) => {
                    return Err(EngineError::Io(format!(
                        "reading {}'s configuration under {}: {error}",
                        cli.program(),
                        home.display()
                    )))
                }
            };
        }
        if mode == ConfinementMode::None {
            jail.set_network(Network::Open, Vec::new());
            return Ok(jail);
        }
        match spec {
            WorkerSpec::Model { .. } => jail.set_network(Network::None, Vec::new()),
            WorkerSpec::Exec { .. } if allow_network => jail.set_network(Network::Open, Vec::new()),
            WorkerSpec::Exec { .. } => jail.set_network(Network::None, Vec::new()),
            WorkerSpec::Cli { cli, .. } => {
                if let Some(home) = &home {
                    jail.state = state_paths(*cli, home);
                }
                if allow_network {
                    jail.set_network(Network::Open, Vec::new());
                } else {
                    let mut origins = self.cli_origins(*cli, home.as_deref()).await;
                    // OpenCode and Aider call the provider the routed model names.
                    if let Some(provider) = spec.model_provider() {
                        if let Ok(provider) = self.provider(provider).await {
                            origins.extend(provider.origin().ok().filter(|o| !origins.contains(o)));
                        }
                    }
                    jail.start_proxy(&support, scratch, origins)?;
                }
            }
        }
        Ok(jail)
    }

    /// The origins a CLI worker may reach: its built-in provider as configured in Switchyard,
    /// and every endpoint its own configuration files name.
    async fn cli_origins(&self, cli: WorkerCli, home: Option<&Path>) -> Vec<Origin> {
        let mut origins = Vec::new();
        if let Some(provider) = cli.builtin_provider() {
            if let Ok(provider) = self.provider(provider).await {
                origins.extend(provider.origin().ok());
            }
        }
        if let Some(home) = home {
            for file in cli.config_files() {
                let Ok(text) = std::fs::read_to_string(home.join(file)) else {
                    continue;
                };
                for origin in origins_in(&text) {
                    if !origins.contains(&origin) {
                        origins.push(origin);
                    }
                }
            }
        }
        origins
    }

    /// Logs every denial the jail collected since the last call, in the attempt's log.
    pub(crate) async fn log_denials(&self, id: &str, jail: &Jail) {
        for denial in jail.drain() {
            if let Err(error) = self.log_attempt(id, AttemptLog::Denied { denial }).await {
                tracing::warn!(attempt = %id, %error, "denial not logged");
            }
        }
    }
}

fn describe(support: &Support, allow: bool) -> ConfinementSupport {
    let usable = support.usable_bwrap().is_some();
    let mode = if usable {
        ConfinementMode::Bwrap
    } else {
        ConfinementMode::None
    };
    let detail = match (usable, support.socat.is_some(), allow) {
        (true, true, _) => "workers run in a bubblewrap sandbox; CLI workers reach only their \
                            provider through Switchyard's egress proxy"
            .to_owned(),
        (true, false, _) => "workers run in a bubblewrap sandbox; socat is missing, so CLI \
                             workers cannot reach their provider (install the `socat` package)"
            .to_owned(),
        (false, _, true) => format!(
            "workers run UNCONFINED (allowed in Settings): {}",
            support.reason.as_deref().unwrap_or("no sandbox")
        ),
        (false, _, false) => format!(
            "no worker can start: {}; or allow unconfined workers in Settings → Workers",
            support.reason.as_deref().unwrap_or("no sandbox")
        ),
    };
    ConfinementSupport {
        mode,
        bwrap: usable,
        bwrap_version: support.bwrap_version.clone(),
        socat: support.socat.is_some(),
        reason: support.reason.clone(),
        allow_unconfined: allow,
        detail,
    }
}

/// The CLI's state paths under `home`, created when missing so the CLI can use them (a
/// directory it would otherwise create in the read-only home).
fn state_paths(cli: WorkerCli, home: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for entry in cli.state_paths() {
        let path = home.join(entry.trim_end_matches('/'));
        if entry.ends_with('/') {
            if std::fs::create_dir_all(&path).is_ok() {
                paths.push(path);
            }
        } else if path.is_file() {
            paths.push(path);
        }
    }
    paths
}

/// One attempt's confinement: the sandbox each of its processes gets, the egress proxy, and
/// the report of what applied and what was refused.
pub(crate) struct Jail {
    pub mode: ConfinementMode,
    bwrap: Option<PathBuf>,
    temp: PathBuf,
    home: Option<PathBuf>,
    common_dir: PathBuf,
    worktree: PathBuf,
    /// The CLI's writable state (worker only).
    state: Vec<PathBuf>,
    /// Folders the attempt allows besides (worker and verification).
    extra: Vec<PathBuf>,
    /// The worktree's own entry in the git directory (`worktrees/<name>`: its index and
    /// `HEAD`), writable so git works inside; the files there that say where the repository is
    /// (`commondir`, `gitdir`, `config.worktree`) are checked and put back by the repository
    /// gate before Switchyard's own git runs there.
    own_gitdir: Option<PathBuf>,
    network: Network,
    proxy: Option<EgressProxy>,
    /// `HTTPS_PROXY` and friends for the worker.
    proxy_env: Vec<(String, String)>,
    /// The CLI's own configuration under the user's home as it was (see
    /// [`WorkerCli::guarded_config`]).
    home_guard: Option<FileSnapshot>,
    report: Arc<Mutex<ConfinementReport>>,
    denials: mpsc::UnboundedSender<Denial>,
    denial_rx: Mutex<mpsc::UnboundedReceiver<Denial>>,
    allow_network: bool,
}

impl Jail {
    fn set_network(&mut self, network: Network, allowed: Vec<String>) {
        let mut report = self.report.lock().unwrap_or_else(|p| p.into_inner());
        report.network = network.policy();
        report.allowed = allowed;
        drop(report);
        self.network = network;
    }

    fn start_proxy(
        &mut self,
        support: &Support,
        scratch: &Path,
        origins: Vec<Origin>,
    ) -> Result<(), EngineError> {
        let Some(socat) = support.socat.clone() else {
            // Without the bridge the sandbox has no way out at all.
            self.set_network(Network::None, Vec::new());
            return Ok(());
        };
        let mut dir = scratch.join("net");
        if dir.as_os_str().len() + 20 > MAX_SOCKET_PATH {
            let name = scratch
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            dir = std::env::temp_dir().join(format!("switchyard-net-{name}"));
        }
        let targets: Vec<Target> = origins.iter().filter_map(target_of).collect();
        let report = self.report.clone();
        let denials = self.denials.clone();
        let log = Arc::new(move |event: ProxyEvent| match event {
            ProxyEvent::Allowed { target } => {
                tracing::debug!(%target, "egress allowed");
            }
            ProxyEvent::Refused { target, reason } => {
                let denial = Denial {
                    kind: DenialKind::Connect,
                    source: DenialSource::Worker,
                    target,
                    detail: reason,
                };
                report
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .deny(denial.clone());
                let _ = denials.send(denial);
            }
        });
        let proxy = EgressProxy::start(&dir, targets, log).map_err(|e| {
            EngineError::Io(format!(
                "starting the egress proxy in {}: {e}",
                dir.display()
            ))
        })?;
        let url = proxy.url();
        self.proxy_env = [
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "https_proxy",
            "http_proxy",
            "ALL_PROXY",
        ]
        .into_iter()
        .map(|name| (name.to_owned(), url.clone()))
        .chain([
            ("NO_PROXY".to_owned(), String::new()),
            ("no_proxy".to_owned(), String::new()),
        ])
        .collect();
        let network = Network::Proxy {
            socat,
            bridges: proxy.bridges().to_vec(),
        };
        self.set_network(network, origins.iter().map(ToString::to_string).collect());
        self.proxy = Some(proxy);
        Ok(())
    }

    /// The sandbox of the worker process (`None`: unconfined).
    pub fn worker_sandbox(&self) -> Option<Sandbox> {
        let bwrap = self.bwrap.clone()?;
        if self.mode != ConfinementMode::Bwrap {
            return None;
        }
        let mut sandbox = Sandbox::new(bwrap, self.temp.clone())
            .home(self.home.clone())
            .write(&self.worktree)
            .read(&self.common_dir)
            .network(self.network.clone());
        for path in self.state.iter().chain(&self.extra).chain(&self.own_gitdir) {
            sandbox = sandbox.write(path);
        }
        if let Some(proxy) = &self.proxy {
            sandbox = sandbox.read(proxy.dir());
        }
        Some(sandbox)
    }

    /// The sandbox of each verification command: the worktree and temp, no network unless
    /// the attempt allows it.
    pub fn verify_sandbox(&self) -> Option<Sandbox> {
        let bwrap = self.bwrap.clone()?;
        if self.mode != ConfinementMode::Bwrap {
            return None;
        }
        let network = if self.allow_network {
            Network::Open
        } else {
            Network::None
        };
        let mut sandbox = Sandbox::new(bwrap, self.temp.clone())
            .home(self.home.clone())
            .write(&self.worktree)
            .read(&self.common_dir)
            .network(network);
        for path in self.extra.iter().chain(&self.own_gitdir) {
            sandbox = sandbox.write(path);
        }
        Some(sandbox)
    }

    /// What the worker changed in its CLI's own configuration under the user's home; with
    /// `restore`, put back as it was.
    pub fn home_changes(&self, restore: bool) -> Vec<RepoChange> {
        let Some(guard) = &self.home_guard else {
            return Vec::new();
        };
        match guard.compare(restore) {
            Ok(found) => found
                .into_iter()
                .map(|change| RepoChange {
                    area: Area::Home,
                    what: change.path.to_string_lossy().into_owned(),
                    how: change.how,
                    restored: change.restored,
                })
                .collect(),
            Err(error) => {
                tracing::warn!(%error, "the CLI's configuration could not be compared");
                Vec::new()
            }
        }
    }

    /// Variables the worker needs to use the proxy.
    pub fn worker_env(&self) -> &[(String, String)] {
        &self.proxy_env
    }

    /// Records a refusal (and queues it for the attempt's log).
    pub fn deny(&self, denial: Denial) {
        self.report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .deny(denial.clone());
        let _ = self.denials.send(denial);
    }

    /// Writes the process reported it could not make.
    pub fn refused_writes(&self, source: DenialSource, paths: &[String]) {
        if self.mode != ConfinementMode::Bwrap {
            return;
        }
        for path in paths {
            self.deny(Denial {
                kind: DenialKind::Write,
                source,
                target: path.clone(),
                detail: "read-only in the sandbox".to_owned(),
            });
        }
    }

    fn drain(&self) -> Vec<Denial> {
        let mut rx = self.denial_rx.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        while let Ok(denial) = rx.try_recv() {
            out.push(denial);
        }
        out
    }

    /// The report as it stands, with the writable paths filled in.
    pub fn report(&self) -> ConfinementReport {
        let mut report = self
            .report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if self.mode == ConfinementMode::Bwrap {
            report.writable = [&self.worktree, &self.temp]
                .into_iter()
                .chain(&self.state)
                .chain(&self.extra)
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_become_targets_with_their_default_ports() {
        let target = |url: &str| {
            Origin::of_url(url)
                .ok()
                .and_then(|o| target_of(&o))
                .map(|t| t.to_string())
        };
        assert_eq!(
            target("https://api.anthropic.com/v1").as_deref(),
            Some("api.anthropic.com:443")
        );
        assert_eq!(
            target("http://127.0.0.1:8123").as_deref(),
            Some("127.0.0.1:8123")
        );
        assert_eq!(target("http://localhost").as_deref(), Some("localhost:80"));
        assert_eq!(target("http://[::1]:9000").as_deref(), Some("[::1]:9000"));
    }
}
