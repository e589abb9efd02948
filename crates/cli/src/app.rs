//! `doctor` and `info`.

use std::process::ExitCode;

use switchyard_core::doctor::{CheckStatus, DoctorReport, WorkerSource};
use switchyard_engine::Engine;

use crate::output::{print, CliError};

/// Doctor exits 0 unless a check failed (then 2), so scripts can gate on it.
pub async fn doctor(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let report = engine.doctor().await;
    print(&report, json, |r| {
        let mut lines: Vec<String> = r
            .checks
            .iter()
            .map(|check| {
                let mark = match check.status {
                    CheckStatus::Ok => "ok  ",
                    CheckStatus::Warn => "warn",
                    CheckStatus::Fail => "FAIL",
                };
                format!("[{mark}] {:<16} {}", check.title, check.detail)
            })
            .collect();
        lines.push(String::new());
        lines.extend(agent_cli_lines(r));
        lines.join("\n")
    })?;
    Ok(if report.overall() == CheckStatus::Fail {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// One line per adapter: installed with version and where, or missing and why.
fn agent_cli_lines(report: &DoctorReport) -> Vec<String> {
    let mut lines = vec!["Agent CLIs:".to_owned()];
    for cli in &report.worker_clis {
        let line = if cli.installed {
            let source = match cli.source {
                Some(WorkerSource::Setting) => "set in Settings",
                Some(WorkerSource::Path) => "PATH",
                Some(WorkerSource::LoginShell) => "login shell PATH",
                None => "?",
            };
            format!(
                "  {:<9} installed  {}  {} ({source})",
                cli.name,
                cli.version.as_deref().unwrap_or("?"),
                cli.path.as_deref().unwrap_or("?"),
            )
        } else {
            format!(
                "  {:<9} missing    {}",
                cli.name,
                cli.problem.as_deref().unwrap_or("not found")
            )
        };
        lines.push(line);
    }
    lines
}

pub async fn info(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let info = engine.app_info().await?;
    print(&info, json, |i| {
        format!(
            "Switchyard {}\ndata dir: {}\ndatabase: {} (schema {}, {} migrations)",
            i.version, i.data_dir, i.database_path, i.schema_version, i.migrations_applied
        )
    })
}
