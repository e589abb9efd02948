//! The run defaults as Settings shows and edits them: the `runs.*` settings keys every new
//! run reads (through `run_settings`), and the baseline model savings are measured against.

use switchyard_core::run::limits::SETTING_BASELINE_MODEL;
use switchyard_core::run::savings::default_baseline;
use switchyard_core::run::RunDefaults;

use crate::catalog::now;
use crate::{Engine, EngineError};

impl Engine {
    /// The defaults new runs start with (a setting that does not parse shows its default),
    /// and which model an unset baseline means now.
    pub async fn run_defaults(&self) -> Result<RunDefaults, EngineError> {
        let (limits, max_parallel_runs) = self.run_settings().await?;
        let baseline_model = self
            .store()
            .setting(SETTING_BASELINE_MODEL)
            .await?
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty());
        let default_baseline = match self.catalog_state().await {
            Ok(state) => default_baseline(&state.catalog.models).map(|card| card.id.clone()),
            Err(_) => None,
        };
        Ok(RunDefaults {
            max_parallel_runs,
            limits,
            baseline_model,
            default_baseline,
        })
    }

    /// Stores `defaults` for runs started from now on; returns them as stored.
    ///
    /// Errors: `InvalidInput` for a value out of range, or a baseline model the catalog has
    /// no prices for (savings could not be measured against it).
    pub async fn set_run_defaults(
        &self,
        defaults: RunDefaults,
    ) -> Result<RunDefaults, EngineError> {
        let defaults = defaults
            .checked()
            .map_err(|e| EngineError::InvalidInput(e.0))?;
        if let Some(model) = &defaults.baseline_model {
            let priced = self
                .catalog_pricing(model)
                .await
                .and_then(|p| p.blended_per_m())
                .is_some();
            if !priced {
                return Err(EngineError::InvalidInput(format!(
                    "{model} has no known price in the catalog, so savings cannot be measured \
                     against it"
                )));
            }
        }
        let at = now();
        for (key, value) in defaults.settings() {
            self.store().set_setting(key, &value, &at).await?;
        }
        self.run_defaults().await
    }
}
