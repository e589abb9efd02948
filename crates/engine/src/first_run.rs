//! The app's preferences (theme, checklist dismissed) and the first-run checklist, gathered
//! from the doctor, the keys, the catalog and who has launched work.

use switchyard_core::first_run::{
    checklist, ChecklistFacts, FirstRunChecklist, Theme, UiPrefs, SETTING_CHECKLIST_DISMISSED,
    SETTING_PLOT_HIDDEN, SETTING_THEME,
};
use switchyard_core::providers::{KeyStatus, ProviderKind};

use crate::catalog::now;
use crate::{Engine, EngineError};

/// Launchers that are Switchyard's own front ends, not agents.
const OWN_LAUNCHERS: [&str; 2] = ["app", "cli"];

impl Engine {
    /// The stored preferences; unknown stored values read as the defaults.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn ui_prefs(&self) -> Result<UiPrefs, EngineError> {
        let store = self.store();
        let theme = store.setting(SETTING_THEME).await?;
        let dismissed = store.setting(SETTING_CHECKLIST_DISMISSED).await?;
        let plot_hidden = store.setting(SETTING_PLOT_HIDDEN).await?;
        Ok(UiPrefs {
            theme: theme.as_deref().and_then(Theme::parse).unwrap_or_default(),
            checklist_dismissed: dismissed.as_deref() == Some("true"),
            plot_hidden: plot_hidden.as_deref() == Some("true"),
        })
    }

    /// Stores the theme; resolves to the preferences as stored.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_theme(&self, theme: Theme) -> Result<UiPrefs, EngineError> {
        self.store()
            .set_setting(SETTING_THEME, theme.as_str(), &now())
            .await?;
        self.ui_prefs().await
    }

    /// Hides (or shows again) the Models page's plot from the next start on; resolves to the
    /// preferences as stored.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_plot_hidden(&self, hidden: bool) -> Result<UiPrefs, EngineError> {
        self.store()
            .set_setting(SETTING_PLOT_HIDDEN, &hidden.to_string(), &now())
            .await?;
        self.ui_prefs().await
    }

    /// Hides (or shows again) the first-run checklist; resolves to the checklist.
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn set_checklist_dismissed(
        &self,
        dismissed: bool,
    ) -> Result<FirstRunChecklist, EngineError> {
        self.store()
            .set_setting(SETTING_CHECKLIST_DISMISSED, &dismissed.to_string(), &now())
            .await?;
        self.first_run_checklist().await
    }

    /// What a new user still needs: keychain, a key or local server, agent CLIs, a recent
    /// catalog, a connected agent. Uses the last doctor report (waiting for the one running,
    /// or running it when none did yet).
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn first_run_checklist(&self) -> Result<FirstRunChecklist, EngineError> {
        let report = self.doctor_report().await;
        let usable_keys = self
            .list_providers()
            .await?
            .into_iter()
            .filter(|p| {
                matches!(
                    p.kind,
                    ProviderKind::OpenaiCompatible | ProviderKind::Anthropic
                )
            })
            .filter(|p| {
                matches!(
                    p.key,
                    KeyStatus::Stored { .. } | KeyStatus::Environment { .. }
                )
            })
            .map(|p| p.name)
            .collect();
        let catalog_date = match self.catalog_status().await {
            Ok(status) => status.snapshot_date,
            Err(error) => {
                tracing::warn!(%error, "the checklist goes without the catalog's date");
                None
            }
        };
        let agents: Vec<String> = self
            .store()
            .launchers()
            .await?
            .into_iter()
            .filter(|l| !l.is_empty() && !OWN_LAUNCHERS.contains(&l.as_str()))
            .collect();
        let dismissed = self.ui_prefs().await?.checklist_dismissed;
        Ok(checklist(&ChecklistFacts {
            report: Some(&report),
            usable_keys,
            catalog_date,
            today: chrono::Utc::now().format("%Y-%m-%d").to_string(),
            agents,
            dismissed,
        }))
    }
}
