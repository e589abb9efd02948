//! `doctor` and `info`.

use std::process::ExitCode;

use switchyard_core::doctor::CheckStatus;
use switchyard_engine::Engine;

use crate::output::{print, CliError};

/// Doctor exits 0 unless a check failed (then 2), so scripts can gate on it.
pub async fn doctor(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let report = engine.doctor().await;
    print(&report, json, |r| {
        r.checks
            .iter()
            .map(|check| {
                let mark = match check.status {
                    CheckStatus::Ok => "ok  ",
                    CheckStatus::Warn => "warn",
                    CheckStatus::Fail => "FAIL",
                };
                format!("[{mark}] {:<16} {}", check.title, check.detail)
            })
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    Ok(if report.overall() == CheckStatus::Fail {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
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
