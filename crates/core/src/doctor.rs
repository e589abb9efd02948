//! The doctor report: can this machine run Switchyard, and what can it reach?
//!
//! The report is data only. Gathering it (touching the disk, the keychain, `git`, the network)
//! is the engine's job; this module defines the shape and the summary rules.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::worker::WorkerCli;

/// Outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum CheckStatus {
    /// Works.
    Ok,
    /// Not required, but something the user may want to fix (e.g. no worker CLI installed).
    Warn,
    /// Broken: the feature that depends on it will not work.
    Fail,
}

/// One line of the doctor report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Stable machine-readable id, e.g. `dataDir`, `database`, `keychain`, `git`.
    pub id: String,
    /// Human title.
    pub title: String,
    pub status: CheckStatus,
    /// What was found, or the exact reason it failed and how to fix it.
    pub detail: String,
}

impl Check {
    pub fn new(id: &str, title: &str, status: CheckStatus, detail: impl Into<String>) -> Self {
        Self {
            id: id.to_owned(),
            title: title.to_owned(),
            status,
            detail: detail.into(),
        }
    }
}

/// How a worker CLI's executable was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum WorkerSource {
    /// The path set for it in Settings.
    Setting,
    /// Switchyard's own `PATH`.
    Path,
    /// The login shell's `PATH` (an app started from the desktop often has a shorter one).
    LoginShell,
}

impl WorkerSource {
    /// Where it was found, in words.
    pub fn label(self) -> &'static str {
        match self {
            WorkerSource::Setting => "set in Settings",
            WorkerSource::Path => "PATH",
            WorkerSource::LoginShell => "login shell PATH",
        }
    }
}

/// A coding-agent CLI Switchyard can drive as a worker, as this machine has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkerCliStatus {
    /// Executable name looked up on `PATH` (same as `program`; kept for older readers).
    pub name: String,
    /// Which adapter.
    pub cli: WorkerCli,
    /// Executable name looked up on `PATH`.
    pub program: String,
    /// The product's name (`Claude Code`).
    pub title: String,
    /// Absolute path of the executable that would run, when found.
    pub path: Option<String>,
    /// First line of `<program> --version`, when it answered.
    pub version: Option<String>,
    /// How `path` was found.
    pub source: Option<WorkerSource>,
    /// Found and answered `--version`: attempts can use it.
    pub installed: bool,
    /// The path set in Settings, if any (shown in the path field even when it is broken).
    pub configured_path: Option<String>,
    /// Why it is not installed or its version is unknown (a set path that is not executable,
    /// a `--version` that failed or hung).
    pub problem: Option<String>,
    /// Whose account the CLI will call its provider with; `None` when it is not installed.
    pub account: Option<WorkerAccount>,
    /// The account in words: which key for which origin, or which login.
    pub account_detail: Option<String>,
    /// Installed and with an account it can use: an attempt can start it and expect it to
    /// reach its provider.
    pub ready: bool,
    /// One line that makes it ready, when it is not.
    pub fix: Option<String>,
    /// "CLI's own account" is chosen for it in Settings: Switchyard passes it no key and
    /// writes no configuration for it, even when it holds a key for its provider.
    pub own_account: bool,
    /// Catalog models this CLI can be routed to, in its own naming, cheapest first (at most
    /// 40): the launch forms' model picker.
    pub models: Vec<String>,
    /// How a worker picker lists it: `Claude Code (2.1.197)`, `Codex (not installed)`.
    pub label: String,
    /// One line about it: version and where it was found, or why it is missing.
    pub detail: String,
}

/// Whose account a worker CLI calls its provider with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum WorkerAccount {
    /// Switchyard passes its own key for the CLI's provider, bound to that provider's origin,
    /// and writes the attempt's CLI configuration (see the README's worker table).
    Switchyard,
    /// The CLI's own login or settings under the user's home (chosen in Settings, or
    /// Switchyard holds no key for its provider).
    Own,
    /// The key of the provider the routed model names (`opencode:<provider/model>`,
    /// `aider:<provider/model>`), from Switchyard's keychain.
    RoutedProvider,
    /// Neither: Switchyard has no key for its provider and the CLI is not logged in.
    None,
}

impl WorkerCliStatus {
    /// Not found anywhere.
    pub fn missing(
        cli: WorkerCli,
        configured_path: Option<String>,
        problem: Option<String>,
    ) -> Self {
        Self {
            name: cli.program().to_owned(),
            cli,
            program: cli.program().to_owned(),
            title: cli.title().to_owned(),
            path: None,
            version: None,
            source: None,
            installed: false,
            configured_path,
            fix: Some(format!(
                "install {} or set its path in Settings → Agent CLIs",
                cli.program()
            )),
            problem,
            account: None,
            account_detail: None,
            ready: false,
            own_account: false,
            models: Vec::new(),
            label: String::new(),
            detail: String::new(),
        }
        .worded()
    }

    /// The status with its `label` and `detail` written from its facts.
    pub fn worded(self) -> Self {
        let installed = self.installed;
        // `2.1.197 (Claude Code)` already names the product: the label keeps only its number.
        let number = self
            .version
            .as_deref()
            .map(|v| v.split(" (").next().unwrap_or(v).trim())
            .filter(|v| !v.is_empty());
        let note = match (installed, number, self.ready) {
            (false, _, _) => " (not installed)".to_owned(),
            (true, Some(number), true) => format!(" ({number})"),
            (true, Some(number), false) => format!(" ({number}, not ready)"),
            (true, None, false) => " (not ready)".to_owned(),
            (true, None, true) => String::new(),
        };
        let detail = if installed {
            let place = self
                .source
                .map(|s| format!(" ({})", s.label()))
                .unwrap_or_default();
            format!(
                "{} · {}{place}",
                self.version.as_deref().unwrap_or("unknown version"),
                self.path.as_deref().unwrap_or("")
            )
        } else {
            self.problem
                .clone()
                .unwrap_or_else(|| "not found".to_owned())
        };
        Self {
            label: format!("{}{note}", self.title),
            detail,
            ..self
        }
    }
}

/// Disk used by attempt worktrees under the data directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeUsage {
    /// `<data dir>/worktrees`.
    pub path: String,
    /// Worktree directories in it.
    pub worktrees: u32,
    /// Bytes allocated on disk by everything under it (as `du` counts; symlinks not followed).
    pub bytes: f64,
    /// Days the worktree of a failed, canceled or interrupted attempt is kept before the sweep
    /// removes it (with its branch, and the attempt's detached-process log).
    pub retention_days: u32,
}

/// What one sweep of old worktrees removed (the start-up sweep, or "Remove old worktrees
/// now").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorktreePrune {
    /// Attempts (worktree ids) whose worktree and `switchyard/<id>` branch were removed.
    pub worktrees: Vec<String>,
    /// Attempts whose detached-process log was removed.
    pub logs: Vec<String>,
    /// Repositories that could not be swept, each with why (moved, busy, a git failure).
    pub problems: Vec<String>,
    /// The disk usage afterwards.
    pub usage: WorktreeUsage,
}

/// A local model server (Ollama, LM Studio) and whether it answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalEndpoint {
    /// Provider id, e.g. `ollama`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Base URL probed.
    pub url: String,
    /// Whether it answered with a model list.
    pub reachable: bool,
    /// Number of models it lists when reachable.
    pub model_count: Option<u32>,
    /// Why it is not reachable (connection refused, timeout, unexpected body).
    pub error: Option<String>,
}

/// Everything `switchyard doctor` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    /// RFC 3339 time the report was gathered.
    pub generated_at: String,
    pub checks: Vec<Check>,
    /// `git --version` output, when git runs.
    pub git_version: Option<String>,
    pub worker_clis: Vec<WorkerCliStatus>,
    pub local_endpoints: Vec<LocalEndpoint>,
    /// What confines workers here (bubblewrap, or unconfined as allowed), and why not.
    pub confinement: Option<crate::confinement::ConfinementSupport>,
    /// The worst status among the checks: what the summary badge shows.
    pub overall: CheckStatus,
    /// `2 of 5 installed: claude, codex`, or `none of 5 worker CLIs installed`.
    pub worker_summary: String,
}

impl DoctorReport {
    /// The report with `overall` and `worker_summary` written from its checks and CLIs.
    pub fn summarized(self) -> Self {
        let found: Vec<&str> = self
            .worker_clis
            .iter()
            .filter(|w| w.installed)
            .map(|w| w.name.as_str())
            .collect();
        let total = self.worker_clis.len();
        let worker_summary = if found.is_empty() {
            format!("none of {total} worker CLIs installed")
        } else {
            format!("{} of {total} installed: {}", found.len(), found.join(", "))
        };
        Self {
            overall: self.worst_check(),
            worker_summary,
            ..self
        }
    }

    /// The worst status among the checks.
    pub fn worst_check(&self) -> CheckStatus {
        let mut worst = CheckStatus::Ok;
        for check in &self.checks {
            match check.status {
                CheckStatus::Fail => return CheckStatus::Fail,
                CheckStatus::Warn => worst = CheckStatus::Warn,
                CheckStatus::Ok => {}
            }
        }
        worst
    }
}

/// Worker CLIs looked up by the doctor, in display order.
pub const WORKER_CLIS: [&str; 5] = ["claude", "codex", "gemini", "opencode", "aider"];

/// Retention of failed, canceled or interrupted attempts' worktrees when none is set.
pub const DEFAULT_WORKTREE_RETENTION_DAYS: u32 = 7;

/// The longest retention accepted (ten years): anything above is a typo.
pub const MAX_WORKTREE_RETENTION_DAYS: u32 = 3650;

#[cfg(test)]
mod tests {
    use super::*;

    fn report(statuses: &[CheckStatus]) -> DoctorReport {
        DoctorReport {
            generated_at: "2026-11-29T00:00:00Z".into(),
            checks: statuses
                .iter()
                .map(|s| Check::new("x", "x", *s, ""))
                .collect(),
            git_version: None,
            worker_clis: vec![],
            local_endpoints: vec![],
            confinement: None,
            overall: CheckStatus::Ok,
            worker_summary: String::new(),
        }
        .summarized()
    }

    #[test]
    fn overall_is_the_worst_check() {
        assert_eq!(report(&[]).worst_check(), CheckStatus::Ok);
        assert_eq!(
            report(&[CheckStatus::Ok, CheckStatus::Warn]).worst_check(),
            CheckStatus::Warn
        );
        assert_eq!(
            report(&[CheckStatus::Warn, CheckStatus::Fail, CheckStatus::Ok]).worst_check(),
            CheckStatus::Fail
        );
    }

    #[test]
    fn a_cli_is_worded_by_its_version_readiness_and_place() {
        let missing = WorkerCliStatus::missing(WorkerCli::Codex, None, None);
        assert_eq!(missing.label, "Codex CLI (not installed)");
        assert_eq!(missing.detail, "not found");
        let found = WorkerCliStatus {
            installed: true,
            version: Some("2.1.197 (Claude Code)".into()),
            path: Some("/usr/bin/claude".into()),
            source: Some(WorkerSource::LoginShell),
            ..WorkerCliStatus::missing(WorkerCli::Claude, None, None)
        }
        .worded();
        assert_eq!(found.label, "Claude Code (2.1.197, not ready)");
        assert_eq!(
            found.detail,
            "2.1.197 (Claude Code) · /usr/bin/claude (login shell PATH)"
        );
        let ready = WorkerCliStatus {
            ready: true,
            version: None,
            ..found
        }
        .worded();
        assert_eq!(ready.label, "Claude Code");
        assert!(ready.detail.starts_with("unknown version · "));
    }

    #[test]
    fn a_report_sums_up_its_installed_clis() {
        let mut report = report(&[CheckStatus::Warn]);
        assert_eq!(report.overall, CheckStatus::Warn);
        assert_eq!(report.worker_summary, "none of 0 worker CLIs installed");
        report.worker_clis = vec![
            WorkerCliStatus {
                installed: true,
                ..WorkerCliStatus::missing(WorkerCli::Aider, None, None)
            },
            WorkerCliStatus::missing(WorkerCli::Gemini, None, None),
        ];
        assert_eq!(
            report.summarized().worker_summary,
            "1 of 2 installed: aider"
        );
    }

    #[test]
    fn report_serializes_camel_case() {
        let json = serde_json::to_value(report(&[CheckStatus::Ok])).expect("serializes");
        assert!(json.get("generatedAt").is_some());
        assert_eq!(json["checks"][0]["status"], "ok");
    }

    #[test]
    fn worker_clis_follow_the_adapters_and_serialize_camel_case() {
        let names: Vec<&str> = WorkerCli::ALL.iter().map(|c| c.program()).collect();
        assert_eq!(names, WORKER_CLIS);
        let mut status = WorkerCliStatus::missing(WorkerCli::OpenCode, Some("/x".into()), None);
        status.source = Some(WorkerSource::LoginShell);
        let json = serde_json::to_value(&status).expect("serializes");
        assert_eq!(json["cli"], "opencode");
        assert_eq!(json["name"], "opencode");
        assert_eq!(json["source"], "loginShell");
        assert_eq!(json["configuredPath"], "/x");
        assert_eq!(json["installed"], false);
    }
}
