//! `doctor` and `info`.

use std::process::ExitCode;

use switchyard_core::doctor::{CheckStatus, WorkerCliStatus, WorkerSource};
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
        lines.push("Agent CLIs:".to_owned());
        lines.extend(agent_cli_lines(&r.worker_clis));
        lines.join("\n")
    })?;
    Ok(if report.overall == CheckStatus::Fail {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// Lines per adapter: installed with version and where, or missing and why; whose account it
/// calls its provider with; the fix when it is not ready.
pub fn agent_cli_lines(clis: &[WorkerCliStatus]) -> Vec<String> {
    let mut lines = Vec::new();
    for cli in clis {
        let line = if cli.installed {
            let source = cli.source.map_or("?", WorkerSource::label);
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
        if cli.installed {
            if let Some(account) = &cli.account_detail {
                lines.push(format!("  {:<9} account    {account}", ""));
            }
        }
        if let Some(fix) = cli.fix.as_deref().filter(|_| cli.installed && !cli.ready) {
            lines.push(format!("  {:<9} not ready  {fix}", ""));
        }
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

/// `switchyard setup`: the first-run checklist, one line per item.
pub async fn setup(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let list = engine.first_run_checklist().await?;
    print(&list, json, |l| {
        let mut lines = vec![format!("{} of {} done", l.done, l.items.len())];
        for item in &l.items {
            let mark = if item.done { "done" } else { "todo" };
            lines.push(format!("[{mark}] {}: {}", item.title, item.detail));
            if let Some(fix) = &item.fix_label {
                lines.push(format!("       fix: {fix}"));
            }
        }
        lines.join("\n")
    })
}

/// The settings the CLI reads and writes (the rest live in the app's Settings page).
const SETTINGS: [&str; 3] = [
    switchyard_engine::confinement::ALLOW_UNCONFINED_SETTING,
    switchyard_engine::agents::AGENTS_MAY_APPROVE_SETTING,
    switchyard_core::first_run::SETTING_PLOT_HIDDEN,
];

/// `switchyard settings …`
#[derive(clap::Args, Debug)]
pub struct SettingsArgs {
    #[command(subcommand)]
    pub command: SettingsCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum SettingsCommand {
    /// Print every setting the CLI knows, or one.
    Get { key: Option<String> },
    /// Set one: `workers.allow_unconfined true|false` (workers may run without a sandbox
    /// where none is available), `mcp.agents_may_approve true|false`, `ui.plot_hidden
    /// true|false` (the app's Models page opens without its plot).
    Set { key: String, value: String },
}

async fn setting_value(engine: &Engine, key: &str) -> Result<bool, CliError> {
    Ok(match key {
        switchyard_engine::confinement::ALLOW_UNCONFINED_SETTING => {
            engine.allow_unconfined().await?
        }
        switchyard_core::first_run::SETTING_PLOT_HIDDEN => engine.ui_prefs().await?.plot_hidden,
        _ => engine.agents_may_approve().await?,
    })
}

/// `switchyard settings get [KEY]` / `settings set KEY VALUE`: `{key: value, …}`.
pub async fn settings(
    engine: &Engine,
    args: SettingsArgs,
    json: bool,
) -> Result<ExitCode, CliError> {
    let known = |key: &str| {
        if SETTINGS.contains(&key) {
            Ok(())
        } else {
            Err(CliError::invalid(format!(
                "unknown setting {key:?}: use one of {}",
                SETTINGS.join(", ")
            )))
        }
    };
    let keys: Vec<String> = match args.command {
        SettingsCommand::Get { key: Some(key) } => {
            known(&key)?;
            vec![key]
        }
        SettingsCommand::Get { key: None } => SETTINGS.iter().map(|k| (*k).to_owned()).collect(),
        SettingsCommand::Set { key, value } => {
            known(&key)?;
            let on = match value.trim() {
                "true" | "on" | "yes" | "1" => true,
                "false" | "off" | "no" | "0" => false,
                other => {
                    return Err(CliError::invalid(format!(
                        "{key} takes true or false, not {other:?}"
                    )))
                }
            };
            match key.as_str() {
                switchyard_engine::confinement::ALLOW_UNCONFINED_SETTING => {
                    engine.set_allow_unconfined(on).await?;
                }
                switchyard_core::first_run::SETTING_PLOT_HIDDEN => {
                    engine.set_plot_hidden(on).await?;
                }
                _ => {
                    engine.set_agents_may_approve(on).await?;
                }
            }
            vec![key]
        }
    };
    let mut values = serde_json::Map::new();
    for key in keys {
        let value = setting_value(engine, &key).await?;
        values.insert(key, serde_json::Value::Bool(value));
    }
    print(&values, json, |v| {
        v.iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    })
}
