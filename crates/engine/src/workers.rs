//! Worker CLI discovery: where each adapter's executable is, and which version it is.
//!
//! A CLI is found at the path set in Settings (`workers.path.<program>`), else on this
//! process's `PATH`, else on the login shell's (see [`ToolSearch`]). A set path that is no
//! longer executable makes the CLI missing rather than silently running another one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use futures_util::future::join_all;
use switchyard_core::doctor::{WorkerAccount, WorkerCliStatus, WorkerSource};
use switchyard_core::routing::{agent_workers, model_worker, WorkerSuggestion};
use switchyard_core::worker::{WorkerCli, WorkerSpec};
use switchyard_runner::tools::{self, Located, ToolSearch, ToolSource, VERSION_TIMEOUT};

use crate::catalog::now;
use crate::{Engine, EngineError};

/// Models listed per agent CLI for the launch forms' picker.
const CLI_MODELS: usize = 40;

/// Settings key prefix of a CLI's path override; the program name follows.
pub const WORKER_PATH_SETTING: &str = "workers.path.";

/// Settings key prefix of a CLI's account choice (`own`: the CLI's own login or settings;
/// absent: Switchyard's key when it holds one); the program name follows.
pub const WORKER_ACCOUNT_SETTING: &str = "workers.account.";

fn setting_key(cli: WorkerCli) -> String {
    format!("{WORKER_PATH_SETTING}{}", cli.program())
}

fn account_key(cli: WorkerCli) -> String {
    format!("{WORKER_ACCOUNT_SETTING}{}", cli.program())
}

fn source(source: ToolSource) -> WorkerSource {
    match source {
        ToolSource::Setting => WorkerSource::Setting,
        ToolSource::Path => WorkerSource::Path,
        ToolSource::LoginShell => WorkerSource::LoginShell,
    }
}

impl Engine {
    /// Replaces where worker CLIs are looked for (by default this process's `PATH` and
    /// `SHELL`, read at [`Engine::open`]). Call before sharing the engine.
    pub fn with_tool_search(mut self, search: ToolSearch) -> Self {
        self.tools = std::sync::Arc::new(search);
        self
    }

    /// The path set in Settings for `cli`, if any.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn worker_path_setting(
        &self,
        cli: WorkerCli,
    ) -> Result<Option<PathBuf>, EngineError> {
        Ok(self
            .store()
            .setting(&setting_key(cli))
            .await?
            .filter(|p| !p.is_empty())
            .map(PathBuf::from))
    }

    /// Where `cli`'s executable is and what `PATH` its process should get; `Ok(None)` when it
    /// is not found, or the set path is no longer an executable file (the reason is in
    /// [`Engine::worker_cli`]'s `problem`). What attempts spawn.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn locate_worker(&self, cli: WorkerCli) -> Result<Option<Located>, EngineError> {
        let configured = self.worker_path_setting(cli).await?;
        Ok(self.locate(cli, configured.as_deref()).await.ok())
    }

    pub(crate) async fn locate(
        &self,
        cli: WorkerCli,
        configured: Option<&Path>,
    ) -> Result<Located, String> {
        match configured {
            Some(path) => tools::check_executable(path)
                .map(|()| self.tools.located_at(path))
                .map_err(|e| format!("the path set in Settings: {e}")),
            None => self.tools.locate(cli.program()).await.ok_or_else(|| {
                let mut problem = format!("{} is not on PATH", cli.program());
                if let Some(login) = self.tools.login_problem() {
                    problem.push_str(&format!(
                        " (and the login shell's PATH is unknown: {login})"
                    ));
                } else {
                    problem.push_str(" or the login shell's PATH");
                }
                problem
            }),
        }
    }

    /// One adapter as this machine has it: found where, which version. Never fails for a
    /// missing or broken CLI: that is the answer.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn worker_cli(&self, cli: WorkerCli) -> Result<WorkerCliStatus, EngineError> {
        let configured = self.worker_path_setting(cli).await?;
        let configured_text = configured.as_ref().map(|p| p.display().to_string());
        let own_account = self.worker_own_account(cli).await?;
        let located = match self.locate(cli, configured.as_deref()).await {
            Ok(located) => located,
            Err(problem) => {
                return Ok(WorkerCliStatus {
                    own_account,
                    ..WorkerCliStatus::missing(cli, configured_text, Some(problem))
                })
            }
        };
        let version = tools::version(
            &located.path,
            cli.version_args(),
            located.child_path.as_deref(),
            VERSION_TIMEOUT,
        )
        .await;
        let (version, problem) = match version {
            Ok(version) => (Some(version), None),
            Err(error) => (None, Some(format!("--version failed: {error}"))),
        };
        let installed = version.is_some();
        let (account, account_detail, fix) = self.worker_account(cli, own_account).await;
        let fix = if installed {
            fix
        } else {
            Some(format!(
                "reinstall {} or point Settings → Agent CLIs at a working one",
                cli.program()
            ))
        };
        Ok(WorkerCliStatus {
            name: cli.program().to_owned(),
            cli,
            program: cli.program().to_owned(),
            title: cli.title().to_owned(),
            path: Some(located.path.display().to_string()),
            installed,
            version,
            source: Some(source(located.source)),
            configured_path: configured_text,
            problem,
            ready: installed && account != WorkerAccount::None,
            account: Some(account),
            account_detail: Some(account_detail),
            fix,
            own_account,
            models: self.cli_models(cli).await,
            label: String::new(),
            detail: String::new(),
        }
        .worded())
    }

    /// Catalog models `cli` can call, in its naming, cheapest first (priced ones before the
    /// unpriced), at most [`CLI_MODELS`].
    async fn cli_models(&self, cli: WorkerCli) -> Vec<String> {
        let Ok(state) = self.catalog_state().await else {
            return Vec::new();
        };
        let mut priced: Vec<(f64, String)> = state
            .catalog
            .models
            .iter()
            // Models that write text and, where the catalog says, call tools: an agent's.
            .filter(|m| {
                m.output_modalities.iter().any(|o| o == "text")
                    && (m.supported_parameters.is_empty()
                        || m.supported_parameters.iter().any(|p| p == "tools"))
            })
            .filter_map(|m| {
                let name = cli.model_name(&m.id)?;
                Some((m.pricing.blended_per_m().unwrap_or(f64::INFINITY), name))
            })
            .collect();
        priced.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let mut seen = std::collections::HashSet::new();
        priced
            .into_iter()
            .filter(|(_, name)| seen.insert(name.clone()))
            .take(CLI_MODELS)
            .map(|(_, name)| name)
            .collect()
    }

    /// Whether "CLI's own account" is chosen for `cli` in Settings.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn worker_own_account(&self, cli: WorkerCli) -> Result<bool, EngineError> {
        Ok(self.store().setting(&account_key(cli)).await?.as_deref() == Some("own"))
    }

    /// Chooses the CLI's own account for `cli` (`true`: Switchyard passes it no key and
    /// writes no configuration for it) or Switchyard's key when it holds one (`false`, the
    /// default), and returns the adapter as found afterwards.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_worker_own_account(
        &self,
        cli: WorkerCli,
        own: bool,
    ) -> Result<WorkerCliStatus, EngineError> {
        let key = account_key(cli);
        if own {
            self.store().set_setting(&key, "own", &now()).await?;
        } else {
            self.store().delete_setting(&key).await?;
        }
        let status = self.worker_cli(cli).await?;
        self.refresh_doctor_worker(&status);
        Ok(status)
    }

    /// Whose account `cli` would call its provider with here, in words, and the fix when it
    /// has none: Switchyard's key for its provider (bound to that provider's origin) unless
    /// its own account is chosen, else its own login, else nothing.
    async fn worker_account(
        &self,
        cli: WorkerCli,
        own_chosen: bool,
    ) -> (WorkerAccount, String, Option<String>) {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let login = home.as_ref().and_then(|home| {
            cli.login_files()
                .iter()
                .map(|file| home.join(file))
                .find(|path| path.is_file())
        });
        if own_chosen {
            return match login {
                Some(path) => (
                    WorkerAccount::Own,
                    format!("its own account, chosen in Settings ({})", path.display()),
                    None,
                ),
                // Aider has no login: its own settings (`~/.aider.conf.yml`) name its keys.
                None if cli.login_files().is_empty() => (
                    WorkerAccount::Own,
                    "its own account, chosen in Settings (its own settings under your home)"
                        .to_owned(),
                    None,
                ),
                None => (
                    WorkerAccount::None,
                    "its own account is chosen in Settings, and it is not logged in".to_owned(),
                    Some(format!(
                        "{}, or let Switchyard pass its key (Settings → Agent CLIs)",
                        cli.login_hint()
                    )),
                ),
            };
        }
        let Some(provider) = cli.builtin_provider() else {
            return (
                WorkerAccount::RoutedProvider,
                format!(
                    "the key of the provider the routed model names ({}:<provider/model>)",
                    cli.program()
                ),
                None,
            );
        };
        if self.worker_key(provider).await.is_some() {
            let origin = self
                .provider(provider)
                .await
                .ok()
                .and_then(|p| p.origin().ok())
                .map(|o| o.to_string())
                .unwrap_or_default();
            return (
                WorkerAccount::Switchyard,
                format!("Switchyard's {provider} key, sent only to {origin}"),
                None,
            );
        }
        match login {
            Some(path) => (
                WorkerAccount::Own,
                format!("its own login ({})", path.display()),
                None,
            ),
            None => (
                WorkerAccount::None,
                format!("no {provider} key in Switchyard and not logged in"),
                Some(format!(
                    "add a key for {provider} in Settings → Keys, or {}",
                    cli.login_hint()
                )),
            ),
        }
    }

    /// Every adapter in display order ([`WorkerCli::ALL`]), probed concurrently.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn worker_clis(&self) -> Result<Vec<WorkerCliStatus>, EngineError> {
        join_all(WorkerCli::ALL.into_iter().map(|cli| self.worker_cli(cli)))
            .await
            .into_iter()
            .collect()
    }

    /// Sets (or with `None` or a blank path, clears) where `cli`'s executable is, and returns
    /// the adapter as found afterwards.
    ///
    /// # Errors
    /// [`EngineError::InvalidInput`] when the path is not absolute or not an executable file
    /// (nothing is stored); [`EngineError::Store`].
    pub async fn set_worker_path(
        &self,
        cli: WorkerCli,
        path: Option<&str>,
    ) -> Result<WorkerCliStatus, EngineError> {
        let key = setting_key(cli);
        match path.map(str::trim).filter(|p| !p.is_empty()) {
            Some(path) => {
                tools::check_executable(Path::new(path)).map_err(|e| {
                    EngineError::InvalidInput(format!("{} path: {e}", cli.program()))
                })?;
                self.store().set_setting(&key, path, &now()).await?;
            }
            None => self.store().delete_setting(&key).await?,
        }
        let status = self.worker_cli(cli).await?;
        self.refresh_doctor_worker(&status);
        Ok(status)
    }

    /// Puts `status` into the last doctor report, which feeds the launch forms' worker
    /// pickers, so it stays current after a setting changes.
    fn refresh_doctor_worker(&self, status: &WorkerCliStatus) {
        if let Ok(mut last) = self.last_doctor.lock() {
            if let Some(entry) = last
                .as_mut()
                .and_then(|report| report.worker_clis.iter_mut().find(|w| w.cli == status.cli))
            {
                *entry = status.clone();
            }
        }
    }
}

/// Which agent CLIs can run here, learned once per routing answer: found, and whose account
/// each would use (keychain reads are remembered per provider).
#[derive(Default)]
pub(crate) struct WorkerReadiness {
    /// Per CLI: found here, and "CLI's own account" chosen.
    found: HashMap<WorkerCli, (bool, bool)>,
    /// Per CLI with a built-in provider: whose account it would use.
    accounts: HashMap<WorkerCli, WorkerAccount>,
    /// Per provider: Switchyard holds a key it may pass to a worker.
    keys: HashMap<String, bool>,
}

impl Engine {
    /// The worker that would run catalog model `model_id` on a coding task here: the first of
    /// [`agent_workers`] that is found and has an account (Switchyard's key for the provider
    /// it calls, or its own login when chosen or when Switchyard has no key), else the
    /// built-in model worker.
    pub(crate) async fn suggest_worker(
        &self,
        model_id: &str,
        ready: &mut WorkerReadiness,
    ) -> WorkerSuggestion {
        for spec in agent_workers(model_id) {
            let Some(cli) = spec.cli() else { continue };
            if let Some(reason) = self.ready_for(cli, &spec, ready).await {
                return WorkerSuggestion {
                    worker: spec.to_string(),
                    reason,
                };
            }
        }
        model_worker(model_id)
    }

    /// Why `cli` can run `spec` here, or `None` when it cannot.
    async fn ready_for(
        &self,
        cli: WorkerCli,
        spec: &WorkerSpec,
        ready: &mut WorkerReadiness,
    ) -> Option<String> {
        let (found, own) = match ready.found.get(&cli) {
            Some(known) => *known,
            None => {
                let configured = self.worker_path_setting(cli).await.ok().flatten();
                let found = self.locate(cli, configured.as_deref()).await.is_ok();
                let own = self.worker_own_account(cli).await.unwrap_or(false);
                ready.found.insert(cli, (found, own));
                (found, own)
            }
        };
        if !found {
            return None;
        }
        let program = cli.program();
        if let Some(provider) = cli.builtin_provider() {
            let account = match ready.accounts.get(&cli) {
                Some(known) => *known,
                None => {
                    let (account, _, _) = self.worker_account(cli, own).await;
                    ready.accounts.insert(cli, account);
                    account
                }
            };
            return match account {
                WorkerAccount::Switchyard => Some(format!(
                    "{program} is installed and calls {provider} with Switchyard's key"
                )),
                WorkerAccount::Own => Some(format!(
                    "{program} is installed and logged in on its own account"
                )),
                WorkerAccount::RoutedProvider | WorkerAccount::None => None,
            };
        }
        if own {
            return Some(format!(
                "{program} is installed and runs on its own settings (chosen in Settings)"
            ));
        }
        let provider = spec.model_provider()?.to_owned();
        let has_key = match ready.keys.get(&provider) {
            Some(known) => *known,
            None => {
                let has = self.worker_key(&provider).await.is_some();
                ready.keys.insert(provider.clone(), has);
                has
            }
        };
        has_key.then(|| format!("{program} is installed and Switchyard holds the {provider} key"))
    }
}
