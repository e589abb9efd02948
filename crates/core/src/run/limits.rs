//! A run's limits: parallelism, timeouts, the hard USD cap and the per-call output cap, with
//! their defaults, their settings keys and per-run overrides.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Settings key: runs executing at once in one process (default [`DEFAULT_MAX_PARALLEL_RUNS`]).
pub const SETTING_MAX_PARALLEL_RUNS: &str = "runs.max_parallel_runs";
/// Settings key: [`RunLimits::max_parallel_nodes`].
pub const SETTING_MAX_PARALLEL_NODES: &str = "runs.max_parallel_nodes";
/// Settings key: [`RunLimits::node_timeout_s`].
pub const SETTING_NODE_TIMEOUT: &str = "runs.node_timeout_s";
/// Settings key: [`RunLimits::code_node_timeout_s`].
pub const SETTING_CODE_NODE_TIMEOUT: &str = "runs.code_node_timeout_s";
/// Settings key: [`RunLimits::run_timeout_s`].
pub const SETTING_RUN_TIMEOUT: &str = "runs.run_timeout_s";
/// Settings key: [`RunLimits::max_usd`].
pub const SETTING_MAX_USD: &str = "runs.max_usd";
/// Settings key: [`RunLimits::cli_reservation_usd`].
pub const SETTING_CLI_RESERVATION: &str = "runs.cli_reservation_usd";
/// Settings key: the model savings are measured against (default: the catalog's top general
/// model).
pub const SETTING_BASELINE_MODEL: &str = "runs.baseline_model";

/// Runs one process executes at once unless the setting says otherwise.
pub const DEFAULT_MAX_PARALLEL_RUNS: u32 = 2;
/// The most runs, or nodes of one run, executing at once that a setting may ask for.
pub const MAX_PARALLELISM: u32 = 32;
/// The longest node or run timeout accepted (a week).
pub const MAX_TIMEOUT_S: u32 = 7 * 24 * 60 * 60;
/// The largest per-call output cap accepted.
pub const MAX_OUTPUT_TOKENS: u32 = 1_000_000;

/// What one run may use. Every limit holds under concurrency: the engine checks them before
/// each call or worker starts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunLimits {
    /// Nodes of the run executing at once.
    pub max_parallel_nodes: u32,
    /// Seconds one text node's model call may take.
    pub node_timeout_s: u32,
    /// Seconds one code node's worker may take.
    pub code_node_timeout_s: u32,
    /// Seconds the whole run may take.
    pub run_timeout_s: u32,
    /// The hard USD cap: spent plus reserved never exceeds it.
    pub max_usd: f64,
    /// What a CLI worker's attempt reserves (its cost is not known before it ends).
    pub cli_reservation_usd: f64,
    /// The answer-length cap of every model call (it bounds the call's worst case).
    pub max_output_tokens: u32,
}

impl Default for RunLimits {
    fn default() -> Self {
        Self {
            max_parallel_nodes: 4,
            node_timeout_s: 180,
            code_node_timeout_s: 900,
            run_timeout_s: 1800,
            max_usd: 5.0,
            cli_reservation_usd: 0.50,
            max_output_tokens: 4096,
        }
    }
}

/// Per-run changes to the limits; `None` keeps the setting.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RunLimitsOverride {
    #[serde(default)]
    pub max_parallel_nodes: Option<u32>,
    #[serde(default)]
    pub node_timeout_s: Option<u32>,
    #[serde(default)]
    pub code_node_timeout_s: Option<u32>,
    #[serde(default)]
    pub run_timeout_s: Option<u32>,
    #[serde(default)]
    pub max_usd: Option<f64>,
    #[serde(default)]
    pub cli_reservation_usd: Option<f64>,
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
}

/// A limit outside what is accepted; the message names it and the range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct LimitError(pub String);

impl RunLimits {
    /// These limits with `changes` applied.
    pub fn with(mut self, changes: &RunLimitsOverride) -> RunLimits {
        let RunLimitsOverride {
            max_parallel_nodes,
            node_timeout_s,
            code_node_timeout_s,
            run_timeout_s,
            max_usd,
            cli_reservation_usd,
            max_output_tokens,
        } = *changes;
        self.max_parallel_nodes = max_parallel_nodes.unwrap_or(self.max_parallel_nodes);
        self.node_timeout_s = node_timeout_s.unwrap_or(self.node_timeout_s);
        self.code_node_timeout_s = code_node_timeout_s.unwrap_or(self.code_node_timeout_s);
        self.run_timeout_s = run_timeout_s.unwrap_or(self.run_timeout_s);
        self.max_usd = max_usd.unwrap_or(self.max_usd);
        self.cli_reservation_usd = cli_reservation_usd.unwrap_or(self.cli_reservation_usd);
        self.max_output_tokens = max_output_tokens.unwrap_or(self.max_output_tokens);
        self
    }

    /// Checks every limit is in range.
    ///
    /// # Errors
    /// [`LimitError`] naming the first limit out of range.
    pub fn validate(&self) -> Result<(), LimitError> {
        let count = |name: &str, value: u32, max: u32| {
            if value == 0 || value > max {
                Err(LimitError(format!("{name} must be 1–{max}, not {value}")))
            } else {
                Ok(())
            }
        };
        count(
            "max parallel nodes",
            self.max_parallel_nodes,
            MAX_PARALLELISM,
        )?;
        count("the node timeout (s)", self.node_timeout_s, MAX_TIMEOUT_S)?;
        count(
            "the code node timeout (s)",
            self.code_node_timeout_s,
            MAX_TIMEOUT_S,
        )?;
        count("the run timeout (s)", self.run_timeout_s, MAX_TIMEOUT_S)?;
        count(
            "max output tokens",
            self.max_output_tokens,
            MAX_OUTPUT_TOKENS,
        )?;
        for (name, value) in [
            ("the USD cap", self.max_usd),
            ("the CLI worker reservation", self.cli_reservation_usd),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(LimitError(format!(
                    "{name} must be a number of dollars ≥ 0, not {value}"
                )));
            }
        }
        Ok(())
    }

    /// The defaults with the settings found by `setting` (key → stored text) applied, and the
    /// process's max parallel runs. Values that do not parse or are out of range are ignored
    /// (the default stays) and named in the returned warnings.
    pub fn from_settings(
        setting: impl Fn(&str) -> Option<String>,
    ) -> (RunLimits, u32, Vec<String>) {
        let mut limits = RunLimits::default();
        let mut warnings = Vec::new();
        let mut number = |key: &str, max: u32| -> Option<u32> {
            let text = setting(key)?;
            match text.trim().parse::<u32>() {
                Ok(value) if value >= 1 && value <= max => Some(value),
                _ => {
                    warnings.push(format!("setting {key} = {text:?} is ignored (1–{max})"));
                    None
                }
            }
        };
        let runs =
            number(SETTING_MAX_PARALLEL_RUNS, MAX_PARALLELISM).unwrap_or(DEFAULT_MAX_PARALLEL_RUNS);
        if let Some(v) = number(SETTING_MAX_PARALLEL_NODES, MAX_PARALLELISM) {
            limits.max_parallel_nodes = v;
        }
        if let Some(v) = number(SETTING_NODE_TIMEOUT, MAX_TIMEOUT_S) {
            limits.node_timeout_s = v;
        }
        if let Some(v) = number(SETTING_CODE_NODE_TIMEOUT, MAX_TIMEOUT_S) {
            limits.code_node_timeout_s = v;
        }
        if let Some(v) = number(SETTING_RUN_TIMEOUT, MAX_TIMEOUT_S) {
            limits.run_timeout_s = v;
        }
        for (key, slot) in [
            (SETTING_MAX_USD, &mut limits.max_usd),
            (SETTING_CLI_RESERVATION, &mut limits.cli_reservation_usd),
        ] {
            let Some(text) = setting(key) else { continue };
            match text.trim().parse::<f64>() {
                Ok(value) if value.is_finite() && value >= 0.0 => *slot = value,
                _ => warnings.push(format!("setting {key} = {text:?} is ignored (dollars ≥ 0)")),
            }
        }
        (limits, runs, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let limits = RunLimits::default();
        assert_eq!(limits.max_parallel_nodes, 4);
        assert_eq!(limits.node_timeout_s, 180);
        assert_eq!(limits.run_timeout_s, 1800);
        assert_eq!(limits.max_usd, 5.0);
        assert!(limits.validate().is_ok());
    }

    #[test]
    fn overrides_replace_only_what_they_name_and_are_validated() {
        let limits = RunLimits::default().with(&RunLimitsOverride {
            max_parallel_nodes: Some(2),
            max_usd: Some(0.25),
            ..RunLimitsOverride::default()
        });
        assert_eq!(limits.max_parallel_nodes, 2);
        assert_eq!(limits.max_usd, 0.25);
        assert_eq!(limits.node_timeout_s, 180);
        let zero = RunLimits::default().with(&RunLimitsOverride {
            max_parallel_nodes: Some(0),
            ..RunLimitsOverride::default()
        });
        assert!(zero
            .validate()
            .expect_err("zero")
            .0
            .contains("parallel nodes"));
        let negative = RunLimits::default().with(&RunLimitsOverride {
            max_usd: Some(-1.0),
            ..RunLimitsOverride::default()
        });
        assert!(negative.validate().is_err());
        let nan = RunLimits::default().with(&RunLimitsOverride {
            max_usd: Some(f64::NAN),
            ..RunLimitsOverride::default()
        });
        assert!(nan.validate().is_err());
    }

    #[test]
    fn settings_apply_and_bad_values_are_named_not_used() {
        let settings = |key: &str| match key {
            SETTING_MAX_PARALLEL_RUNS => Some("3".to_owned()),
            SETTING_MAX_PARALLEL_NODES => Some("0".to_owned()),
            SETTING_MAX_USD => Some("1.5".to_owned()),
            SETTING_RUN_TIMEOUT => Some("soon".to_owned()),
            _ => None,
        };
        let (limits, runs, warnings) = RunLimits::from_settings(settings);
        assert_eq!(runs, 3);
        assert_eq!(limits.max_parallel_nodes, 4);
        assert_eq!(limits.max_usd, 1.5);
        assert_eq!(limits.run_timeout_s, 1800);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }
}
