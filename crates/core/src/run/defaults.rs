//! The run defaults Settings edits: max parallel runs, every limit a run starts with, and the
//! baseline model savings are measured against — as stored under the `runs.*` settings keys.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::limits::{
    LimitError, RunLimits, MAX_PARALLELISM, SETTING_BASELINE_MODEL, SETTING_CLI_RESERVATION,
    SETTING_CODE_NODE_TIMEOUT, SETTING_MAX_PARALLEL_NODES, SETTING_MAX_PARALLEL_RUNS,
    SETTING_MAX_USD, SETTING_NODE_TIMEOUT, SETTING_RUN_TIMEOUT,
};

/// What every new run starts with unless its request overrides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunDefaults {
    /// Runs one process executes at once (the others wait queued).
    pub max_parallel_runs: u32,
    pub limits: RunLimits,
    /// The model savings are measured against; `None`: the catalog's top general model.
    #[serde(default)]
    pub baseline_model: Option<String>,
    /// What `None` means now: the catalog's top general model with known prices (read only;
    /// ignored when saving).
    #[serde(default)]
    pub default_baseline: Option<String>,
}

impl RunDefaults {
    /// `self` with the baseline trimmed (empty becomes `None`), checked.
    ///
    /// # Errors
    /// [`LimitError`] naming the first value out of range.
    pub fn checked(mut self) -> Result<RunDefaults, LimitError> {
        if self.max_parallel_runs == 0 || self.max_parallel_runs > MAX_PARALLELISM {
            return Err(LimitError(format!(
                "max parallel runs must be 1–{MAX_PARALLELISM}, not {}",
                self.max_parallel_runs
            )));
        }
        self.limits.validate()?;
        self.baseline_model = self
            .baseline_model
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty());
        Ok(self)
    }

    /// The settings rows that store these defaults (the baseline as `""` when unset), in the
    /// form [`RunLimits::from_settings`] reads back.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let l = &self.limits;
        vec![
            (
                SETTING_MAX_PARALLEL_RUNS,
                self.max_parallel_runs.to_string(),
            ),
            (SETTING_MAX_PARALLEL_NODES, l.max_parallel_nodes.to_string()),
            (SETTING_NODE_TIMEOUT, l.node_timeout_s.to_string()),
            (SETTING_CODE_NODE_TIMEOUT, l.code_node_timeout_s.to_string()),
            (SETTING_RUN_TIMEOUT, l.run_timeout_s.to_string()),
            (SETTING_MAX_USD, l.max_usd.to_string()),
            (SETTING_CLI_RESERVATION, l.cli_reservation_usd.to_string()),
            (
                SETTING_BASELINE_MODEL,
                self.baseline_model.clone().unwrap_or_default(),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> RunDefaults {
        RunDefaults {
            max_parallel_runs: 3,
            limits: RunLimits {
                max_parallel_nodes: 6,
                node_timeout_s: 60,
                max_usd: 2.5,
                ..RunLimits::default()
            },
            baseline_model: Some("  openai/gpt-4o ".into()),
            default_baseline: None,
        }
    }

    #[test]
    fn stored_settings_read_back_as_the_same_limits() {
        let checked = defaults().checked().expect("valid");
        assert_eq!(checked.baseline_model.as_deref(), Some("openai/gpt-4o"));
        let rows = checked.settings();
        let (limits, runs, warnings) = RunLimits::from_settings(|key| {
            rows.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
        });
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(runs, 3);
        assert_eq!(limits, checked.limits);
        let baseline = rows
            .iter()
            .find(|(k, _)| *k == SETTING_BASELINE_MODEL)
            .map(|(_, v)| v.as_str());
        assert_eq!(baseline, Some("openai/gpt-4o"));
    }

    #[test]
    fn out_of_range_values_are_named() {
        let mut zero_runs = defaults();
        zero_runs.max_parallel_runs = 0;
        assert!(zero_runs
            .checked()
            .expect_err("zero")
            .0
            .contains("parallel runs"));
        let mut bad_cap = defaults();
        bad_cap.limits.max_usd = -1.0;
        assert!(bad_cap.checked().expect_err("negative").0.contains("USD"));
        let mut blank = defaults();
        blank.baseline_model = Some("   ".into());
        assert_eq!(blank.checked().expect("valid").baseline_model, None);
    }
}
