//! `doctor`: gathers the health report from every part of the engine, concurrently.

use switchyard_core::doctor::{
    Check, CheckStatus, DoctorReport, LocalEndpoint, WorkerCli, WORKER_CLIS,
};
use switchyard_providers::local;
use switchyard_runner::tools;

use crate::{paths, Engine};

impl Engine {
    /// Checks the data dir, the database, the keychain, git, worker CLIs and local model
    /// servers. Never fails: every problem becomes a check with the reason.
    pub async fn doctor(&self) -> DoctorReport {
        let keychain = tokio::task::spawn_blocking(switchyard_keychain::probe);
        let (database, git, endpoints) = tokio::join!(
            self.database_check(),
            tools::git_version(),
            self.local_endpoints()
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

        let worker_clis: Vec<WorkerCli> = WORKER_CLIS
            .iter()
            .map(|name| WorkerCli {
                name: (*name).to_owned(),
                path: tools::which(name).map(|p| p.display().to_string()),
            })
            .collect();
        let found: Vec<&str> = worker_clis
            .iter()
            .filter(|w| w.path.is_some())
            .map(|w| w.name.as_str())
            .collect();
        checks.push(if found.is_empty() {
            Check::new(
                "workers",
                "Worker CLIs",
                CheckStatus::Warn,
                format!(
                    "none of {} on PATH; direct model calls still work",
                    WORKER_CLIS.join(", ")
                ),
            )
        } else {
            Check::new("workers", "Worker CLIs", CheckStatus::Ok, found.join(", "))
        });

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

        let report = DoctorReport {
            generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            checks,
            git_version,
            worker_clis,
            local_endpoints: endpoints,
        };
        if let Ok(mut last) = self.last_doctor.lock() {
            *last = Some(report.clone());
        }
        report
    }

    /// The newest report gathered by [`Engine::doctor`], if any ran yet.
    pub fn last_doctor(&self) -> Option<DoctorReport> {
        self.last_doctor.lock().ok().and_then(|last| last.clone())
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
