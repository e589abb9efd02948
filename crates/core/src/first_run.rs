//! The app's own preferences (theme, the first-run checklist dismissed) and the first-run
//! checklist: what a new user needs before Switchyard can work for them, each with the one
//! step that fixes it.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::doctor::{CheckStatus, DoctorReport};

/// Settings key of [`UiPrefs::theme`].
pub const SETTING_THEME: &str = "ui.theme";
/// Settings key of [`UiPrefs::checklist_dismissed`].
pub const SETTING_CHECKLIST_DISMISSED: &str = "ui.checklist_dismissed";
/// Settings key of [`UiPrefs::plot_hidden`].
pub const SETTING_PLOT_HIDDEN: &str = "ui.plot_hidden";

/// Days after which the catalog counts as old.
pub const CATALOG_STALE_DAYS: i64 = 30;

/// Light, dark, or whatever the system says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme `text` names; `None` for anything else.
    pub fn parse(text: &str) -> Option<Theme> {
        [Theme::System, Theme::Light, Theme::Dark]
            .into_iter()
            .find(|t| t.as_str() == text)
    }
}

/// What the desktop app remembers about itself.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct UiPrefs {
    pub theme: Theme,
    /// The first-run checklist was dismissed (Settings shows it again).
    pub checklist_dismissed: bool,
    /// The Models page's quality-vs-price plot was hidden: it stays hidden at the next start,
    /// so its charting library is never loaded then.
    pub plot_hidden: bool,
}

/// One item of the checklist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ChecklistId {
    Keychain,
    Model,
    AgentClis,
    Catalog,
    ConnectAgent,
}

/// The one step that fixes an item (the UI knows where each leads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ChecklistFix {
    /// Settings → Doctor: what the keychain check says, and run it again.
    OpenDoctor,
    /// The Keys page: add a provider key (or a local server's address).
    OpenKeys,
    /// Settings → Agent CLIs.
    OpenAgentClis,
    /// Refresh the catalog now.
    RefreshCatalog,
    /// Settings → Connect an agent (the MCP snippets).
    ConnectAgent,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ChecklistItem {
    pub id: ChecklistId,
    pub title: String,
    pub done: bool,
    /// What was found, in one line.
    pub detail: String,
    /// The step that fixes it; `None` once done.
    pub fix: Option<ChecklistFix>,
    /// The step's button text.
    pub fix_label: Option<String>,
}

/// The first-run checklist as Settings and a new profile's first screen show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FirstRunChecklist {
    pub items: Vec<ChecklistItem>,
    pub done: u32,
    pub dismissed: bool,
}

/// What the checklist is made from.
#[derive(Debug, Clone, Default)]
pub struct ChecklistFacts<'a> {
    pub report: Option<&'a DoctorReport>,
    /// Providers (not data sources) whose key a call would find.
    pub usable_keys: Vec<String>,
    /// The catalog's snapshot date and today's, both `YYYY-MM-DD`.
    pub catalog_date: Option<String>,
    pub today: String,
    /// Agents (MCP clients) that launched a run or an attempt.
    pub agents: Vec<String>,
    pub dismissed: bool,
}

fn item(
    id: ChecklistId,
    title: &str,
    done: bool,
    detail: String,
    fix: ChecklistFix,
    label: &str,
) -> ChecklistItem {
    ChecklistItem {
        id,
        title: title.to_owned(),
        done,
        detail,
        fix: (!done).then_some(fix),
        fix_label: (!done).then(|| label.to_owned()),
    }
}

/// Days from `from` to `to` (`YYYY-MM-DD`); `None` when either does not parse.
fn days_between(from: &str, to: &str) -> Option<i64> {
    let parse = |d: &str| chrono::NaiveDate::parse_from_str(d.get(..10)?, "%Y-%m-%d").ok();
    Some((parse(to)? - parse(from)?).num_days())
}

/// The checklist from what the engine found.
pub fn checklist(facts: &ChecklistFacts<'_>) -> FirstRunChecklist {
    let report = facts.report;
    let keychain = report.and_then(|r| r.checks.iter().find(|c| c.id == "keychain"));
    let keychain_ok = keychain.is_some_and(|c| c.status == CheckStatus::Ok);
    let servers: Vec<&str> = report
        .map(|r| {
            r.local_endpoints
                .iter()
                .filter(|e| e.reachable)
                .map(|e| e.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    let model_detail = match (facts.usable_keys.is_empty(), servers.is_empty()) {
        (false, _) => format!("keys for {}", facts.usable_keys.join(", ")),
        (true, false) => format!("local model server: {}", servers.join(", ")),
        (true, true) => {
            "no provider key and no local model server (Ollama, LM Studio) answered".to_owned()
        }
    };
    let ready: Vec<&str> = report
        .map(|r| {
            r.worker_clis
                .iter()
                .filter(|c| c.ready)
                .map(|c| c.title.as_str())
                .collect()
        })
        .unwrap_or_default();
    let installed = report.map_or(0, |r| r.worker_clis.iter().filter(|c| c.installed).count());
    let clis_detail = if !ready.is_empty() {
        format!("ready: {}", ready.join(", "))
    } else if installed > 0 {
        format!("{installed} installed, none with an account it can use yet")
    } else if report.is_some() {
        "no agent CLI found (the built-in model worker still works)".to_owned()
    } else {
        "not checked yet".to_owned()
    };
    let age = facts
        .catalog_date
        .as_deref()
        .and_then(|d| days_between(d, &facts.today));
    let catalog_fresh = age.is_some_and(|days| days <= CATALOG_STALE_DAYS);
    let catalog_detail = match (&facts.catalog_date, age) {
        (Some(date), Some(days)) => format!("data up to {date} ({days} days old)"),
        (Some(date), None) => format!("data up to {date}"),
        (None, _) => "no catalog yet".to_owned(),
    };
    let items = vec![
        item(
            ChecklistId::Keychain,
            "Keychain reachable",
            keychain_ok,
            keychain.map_or_else(|| "not checked yet".to_owned(), |c| c.detail.clone()),
            ChecklistFix::OpenDoctor,
            "See the doctor's report",
        ),
        item(
            ChecklistId::Model,
            "A provider key or a local model server",
            !facts.usable_keys.is_empty() || !servers.is_empty(),
            model_detail,
            ChecklistFix::OpenKeys,
            "Add a key",
        ),
        item(
            ChecklistId::AgentClis,
            "Agent CLIs that can run",
            !ready.is_empty(),
            clis_detail,
            ChecklistFix::OpenAgentClis,
            "Set up agent CLIs",
        ),
        item(
            ChecklistId::Catalog,
            "A recent model catalog",
            catalog_fresh,
            catalog_detail,
            ChecklistFix::RefreshCatalog,
            "Refresh the catalog",
        ),
        item(
            ChecklistId::ConnectAgent,
            "Connect an agent",
            !facts.agents.is_empty(),
            if facts.agents.is_empty() {
                "no agent has delegated work over MCP yet".to_owned()
            } else {
                format!("work came from {}", facts.agents.join(", "))
            },
            ChecklistFix::ConnectAgent,
            "Copy an MCP snippet",
        ),
    ];
    let done = u32::try_from(items.iter().filter(|i| i.done).count()).unwrap_or(u32::MAX);
    FirstRunChecklist {
        items,
        done,
        dismissed: facts.dismissed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::{Check, LocalEndpoint};

    fn report(keychain: CheckStatus, ollama: bool) -> DoctorReport {
        DoctorReport {
            generated_at: "2026-12-06T00:00:00Z".into(),
            checks: vec![Check::new(
                "keychain",
                "Keychain",
                keychain,
                "Secret Service answered",
            )],
            git_version: None,
            worker_clis: vec![],
            local_endpoints: vec![LocalEndpoint {
                id: "ollama".into(),
                name: "Ollama".into(),
                url: "http://127.0.0.1:11434".into(),
                reachable: ollama,
                model_count: None,
                error: None,
            }],
            confinement: None,
            overall: CheckStatus::Ok,
            worker_summary: String::new(),
        }
        .summarized()
    }

    #[test]
    fn an_empty_profile_has_every_step_to_do_each_with_its_fix() {
        let report = report(CheckStatus::Fail, false);
        let list = checklist(&ChecklistFacts {
            report: Some(&report),
            today: "2026-12-06".into(),
            ..ChecklistFacts::default()
        });
        assert_eq!(list.done, 0);
        assert!(list
            .items
            .iter()
            .all(|i| !i.done && i.fix.is_some() && i.fix_label.is_some()));
        assert_eq!(list.items[1].fix, Some(ChecklistFix::OpenKeys));
    }

    #[test]
    fn a_local_server_counts_as_a_model_and_an_old_catalog_does_not_count() {
        let report = report(CheckStatus::Ok, true);
        let list = checklist(&ChecklistFacts {
            report: Some(&report),
            catalog_date: Some("2026-08-22".into()),
            today: "2026-12-06".into(),
            agents: vec!["claude-code".into()],
            ..ChecklistFacts::default()
        });
        let by = |id| list.items.iter().find(|i| i.id == id).expect("item");
        assert!(by(ChecklistId::Keychain).done);
        assert!(by(ChecklistId::Model).done);
        assert_eq!(by(ChecklistId::Model).detail, "local model server: Ollama");
        assert!(!by(ChecklistId::Catalog).done);
        assert_eq!(
            by(ChecklistId::Catalog).detail,
            "data up to 2026-08-22 (106 days old)"
        );
        assert!(by(ChecklistId::ConnectAgent).done);
        assert_eq!(by(ChecklistId::ConnectAgent).fix, None);
        assert_eq!(list.done, 3);
    }

    #[test]
    fn themes_round_trip_through_their_names() {
        for theme in [Theme::System, Theme::Light, Theme::Dark] {
            assert_eq!(Theme::parse(theme.as_str()), Some(theme));
        }
        assert_eq!(Theme::parse("sepia"), None);
    }
}
