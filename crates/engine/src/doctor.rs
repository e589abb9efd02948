//! `doctor`: gathers the health report from every part of the engine, concurrently.

use switchyard_core::doctor::{
    Check, CheckStatus, DoctorReport, LocalEndpoint, WorkerCliStatus, WORKER_CLIS,
};
use switchyard_core::worker::WorkerCli;
use switchyard_providers::local;
use switchyard_runner::tools;

use crate::{paths, Engine};

impl Engine {
    /// Checks the data dir, the database, the keychain, git, worker CLIs and local model
    /// servers. Never fails: every problem becomes a check with the reason.
    pub async fn doctor(&self) -> DoctorReport {
        let _turn = self.doctor_turn.lock().await;
        self.gather_doctor().await
    }

    /// The newest report, or a new one when none ran yet; waits for a doctor already running
    /// (the app runs one at start-up) rather than starting another.
    pub async fn doctor_report(&self) -> DoctorReport {
        let _turn = self.doctor_turn.lock().await;
        match self.last_doctor() {
            Some(report) => report,
            None => self.gather_doctor().await,
        }
    }

    async fn gather_doctor(&self) -> DoctorReport {
        let keychain = tokio::task::spawn_blocking(switchyard_keychain::probe);
        let (database, git, endpoints, workers) = tokio::join!(
            self.database_check(),
            tools::git_version(),
            self.local_endpoints(),
            self.workers_check()
        );

        let mut checks = vec![data_dir_check(self), database];
        checks.push(match keychain.await {
            Ok(Ok(())) => Check::new(
                "keychain",
                "Keychain",
                CheckStatus::Ok,
                "reachable and writable",
            ),
            Ok(Err(e)) => Check::new("keychain", "Keychain", CheckStatus::Fail, e.to_string()),
            Err(e) => Check::new(
                "keychain",
                "Keychain",
                CheckStatus::Fail,
                format!("probe crashed: {e}"),
            ),
        });
        let git_version = match git {
            Ok(version) => {
                checks.push(Check::new("git", "Git", CheckStatus::Ok, version.clone()));
                Some(version)
            }
            Err(e) => {
                checks.push(Check::new("git", "Git", CheckStatus::Fail, e.to_string()));
                None
            }
        };

        let (workers_check, worker_clis) = workers;
        checks.push(workers_check);

        let reachable: Vec<&str> = endpoints
            .iter()
            .filter(|e| e.reachable)
            .map(|e| e.name.as_str())
            .collect();
        checks.push(if reachable.is_empty() {
            Check::new(
                "localModels",
                "Local models",
                CheckStatus::Warn,
                "no local model server answered",
            )
        } else {
            Check::new(
                "localModels",
                "Local models",
                CheckStatus::Ok,
                reachable.join(", "),
            )
        });

        let confinement = self.confinement_support().await.ok();
        if let Some(support) = &confinement {
            let status = match (support.bwrap, support.socat, support.allow_unconfined) {
                (true, true, _) => CheckStatus::Ok,
                _ => CheckStatus::Warn,
            };
            checks.push(Check::new(
                "confinement",
                "Worker confinement",
                status,
                support.detail.clone(),
            ));
        }
        let report = DoctorReport {
            generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            checks,
            git_version,
            worker_clis,
            local_endpoints: endpoints,
            confinement,
            overall: CheckStatus::Ok,
            worker_summary: String::new(),
        }
        .summarized();
        if let Ok(mut last) = self.last_doctor.lock() {
            *last = Some(report.clone());
        }
        report
    }

    /// The newest report gathered by [`Engine::doctor`], if any ran yet.
    pub fn last_doctor(&self) -> Option<DoctorReport> {
        self.last_doctor.lock().ok().and_then(|last| last.clone())
    }

    /// The `workers` check and every adapter's status. Installed CLIs are listed with their
    /// versions; one found but not answering `--version`, or a set path that broke, is a
    /// warning naming it; none at all is a warning too (the model worker still works).
    async fn workers_check(&self) -> (Check, Vec<WorkerCliStatus>) {
        let title = "Worker CLIs";
        let clis = match self.worker_clis().await {
            Ok(clis) => clis,
            Err(e) => {
                let missing = WorkerCli::ALL
                    .into_iter()
                    .map(|cli| WorkerCliStatus::missing(cli, None, Some(e.to_string())))
                    .collect();
                return (
                    Check::new("workers", title, CheckStatus::Fail, e.to_string()),
                    missing,
                );
            }
        };
        let installed: Vec<String> = clis
            .iter()
            .filter(|w| w.installed)
            .map(|w| match &w.version {
                Some(version) => format!("{} ({version})", w.name),
                None => w.name.clone(),
            })
            .collect();
        // Found (or pointed at) but unusable: worth a warning even when others work.
        let broken: Vec<String> = clis
            .iter()
            .filter(|w| !w.installed && (w.path.is_some() || w.configured_path.is_some()))
            .map(|w| format!("{}: {}", w.name, w.problem.as_deref().unwrap_or("unusable")))
            .collect();
        // Installed but with no account to call its provider with: it would start and fail.
        let unready: Vec<String> = clis
            .iter()
            .filter(|w| w.installed && !w.ready)
            .map(|w| format!("{}: {}", w.name, w.fix.as_deref().unwrap_or("not ready")))
            .collect();
        let broken: Vec<String> = broken.into_iter().chain(unready).collect();
        let check = if !broken.is_empty() {
            let mut detail = broken.join("; ");
            if !installed.is_empty() {
                detail = format!("{}; {detail}", installed.join(", "));
            }
            Check::new("workers", title, CheckStatus::Warn, detail)
        } else if installed.is_empty() {
            Check::new(
                "workers",
                title,
                CheckStatus::Warn,
                format!(
                    "none of {} found on PATH or the login shell's PATH; set a path in \
                     Settings, or use the built-in model worker",
                    WORKER_CLIS.join(", ")
                ),
            )
        } else {
            Check::new("workers", title, CheckStatus::Ok, installed.join(", "))
        };
        (check, clis)
    }

    async fn database_check(&self) -> Check {
        let title = "Database";
        match self.store().schema_version().await {
            Ok(v) => Check::new(
                "database",
                title,
                CheckStatus::Ok,
                format!(
                    "{} opens; {} migrations applied, schema {}",
                    self.store().path().display(),
                    v.applied,
                    v.version
                ),
            ),
            Err(e) => Check::new("database", title, CheckStatus::Fail, e.to_string()),
        }
    }
}

fn data_dir_check(engine: &Engine) -> Check {
    match paths::ensure_writable_dir(engine.home()) {
        Ok(()) => Check::new(
            "dataDir",
            "Data directory",
            CheckStatus::Ok,
            format!("{} is writable", engine.home().display()),
        ),
        Err(e) => Check::new(
            "dataDir",
            "Data directory",
            CheckStatus::Fail,
            e.to_string(),
        ),
    }
}

impl Engine {
    /// The local servers at their configured base URLs, as the Keys page sees them.
    async fn local_endpoints(&self) -> Vec<LocalEndpoint> {
        self.probe_local_servers()
            .await
            .into_iter()
            .map(|probe| LocalEndpoint {
                id: probe.provider.id,
                name: probe.provider.name,
                url: local::server_root(&probe.provider.base_url).to_owned(),
                reachable: probe.models.is_ok(),
                model_count: probe
                    .models
                    .as_ref()
                    .ok()
                    .map(|m| u32::try_from(m.len()).unwrap_or(u32::MAX)),
                error: probe.models.err().map(|e| e.to_string()),
            })
            .collect()
    }
}
