//! Cost and savings: what a run's tokens would have cost on a premium baseline model, and
//! totals over many runs per model, per mode and per day for the Runs page.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::{Category, ModelCard, Pricing};

use super::RunMode;

/// What `tokens_in` and `tokens_out` cost at `baseline`; `None` when a price is unknown.
pub fn baseline_cost(tokens_in: u64, tokens_out: u64, baseline: &Pricing) -> Option<f64> {
    let input = baseline.prompt_per_m?;
    let output = baseline.completion_per_m?;
    Some((tokens_in as f64 * input + tokens_out as f64 * output) / 1_000_000.0)
}

/// Baseline minus actual: positive when the run was cheaper than the baseline would have
/// been. Signed, so a run that cost more says so.
pub fn savings(baseline_usd: Option<f64>, actual_usd: f64) -> Option<f64> {
    baseline_usd.map(|b| b - actual_usd)
}

/// The default baseline: the catalog's best-scored general model with known, non-zero
/// prices that is not local (ties: the first in catalog order).
pub fn default_baseline(catalog: &[ModelCard]) -> Option<&ModelCard> {
    catalog
        .iter()
        .filter(|card| !card.local)
        .filter(|card| {
            card.pricing.prompt_per_m.is_some_and(|p| p > 0.0)
                && card.pricing.completion_per_m.is_some_and(|p| p > 0.0)
        })
        .filter_map(|card| {
            card.categories
                .get(&Category::General)
                .map(|score| (card, score.score))
        })
        .fold(
            None,
            |best: Option<(&ModelCard, f64)>, (card, score)| match best {
                Some((_, top)) if top >= score => best,
                _ => Some((card, score)),
            },
        )
        .map(|(card, _)| card)
}

/// What the recorded outcomes cost, against what the same tokens would have cost on the
/// static pick (each category's best-scored model of the default budget, benchmarks only —
/// routing before it learned) and on the premium baseline. Recorded tokens and costs only:
/// nothing here is estimated beyond repricing recorded tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LearningSavings {
    /// Outcomes with recorded tokens.
    pub outcomes: u32,
    /// What they cost.
    pub cost_usd: f64,
    /// The same tokens at each category's static pick; `None` when a price was unknown.
    pub static_usd: Option<f64>,
    /// The same tokens at the premium baseline; `None` without a priced baseline.
    pub premium_usd: Option<f64>,
}

impl LearningSavings {
    /// Adds one outcome: its category, tokens and cost. `static_pricing` is the category's
    /// static pick's prices.
    pub fn add(
        &mut self,
        tokens_in: u32,
        tokens_out: u32,
        cost_usd: f64,
        static_pricing: Option<&Pricing>,
        premium: Option<&Pricing>,
    ) {
        let (tokens_in, tokens_out) = (u64::from(tokens_in), u64::from(tokens_out));
        self.outcomes += 1;
        self.cost_usd += cost_usd;
        let first = self.outcomes == 1;
        // One unknown price makes the total unknown, not smaller.
        let total = |sum: Option<f64>, pricing: Option<&Pricing>| {
            let cost = baseline_cost(tokens_in, tokens_out, pricing?)?;
            if first {
                Some(cost)
            } else {
                sum.map(|sum| sum + cost)
            }
        };
        self.static_usd = total(self.static_usd, static_pricing);
        self.premium_usd = total(self.premium_usd, premium);
    }
}

/// One run's spend as the totals count it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpendEntry {
    pub mode: RunMode,
    /// `YYYY-MM-DD` (UTC) of its creation.
    pub day: String,
    pub cost_usd: f64,
    pub savings_usd: Option<f64>,
    /// Cost per model reference.
    pub by_model: Vec<(String, f64)>,
}

/// Spend and savings under one key.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SpendTotal {
    /// The model, the mode or the day.
    pub key: String,
    pub runs: u32,
    pub cost_usd: f64,
    pub savings_usd: f64,
}

/// Totals over runs: overall, per model, per mode and per day (oldest first).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SpendReport {
    pub runs: u32,
    pub cost_usd: f64,
    pub savings_usd: f64,
    pub by_model: Vec<SpendTotal>,
    pub by_mode: Vec<SpendTotal>,
    pub by_day: Vec<SpendTotal>,
}

/// Adds up `entries`. A model's savings are not known separately, so per-model totals carry
/// cost only (`savings_usd` 0).
pub fn spend_report(entries: &[SpendEntry]) -> SpendReport {
    let mut report = SpendReport::default();
    let mut by_model: BTreeMap<String, SpendTotal> = BTreeMap::new();
    let mut by_mode: BTreeMap<String, SpendTotal> = BTreeMap::new();
    let mut by_day: BTreeMap<String, SpendTotal> = BTreeMap::new();
    let add = |map: &mut BTreeMap<String, SpendTotal>, key: &str, cost: f64, saved: f64| {
        let total = map.entry(key.to_owned()).or_insert_with(|| SpendTotal {
            key: key.to_owned(),
            ..SpendTotal::default()
        });
        total.runs += 1;
        total.cost_usd += cost;
        total.savings_usd += saved;
    };
    for entry in entries {
        let saved = entry.savings_usd.unwrap_or(0.0);
        report.runs += 1;
        report.cost_usd += entry.cost_usd;
        report.savings_usd += saved;
        add(&mut by_mode, entry.mode.as_str(), entry.cost_usd, saved);
        add(&mut by_day, &entry.day, entry.cost_usd, saved);
        for (model, cost) in &entry.by_model {
            add(&mut by_model, model, *cost, 0.0);
        }
    }
    report.by_model = by_model.into_values().collect();
    report
        .by_model
        .sort_by(|a, b| b.cost_usd.total_cmp(&a.cost_usd).then(a.key.cmp(&b.key)));
    report.by_mode = by_mode.into_values().collect();
    report.by_day = by_day.into_values().collect();
    report
}

#[cfg(test)]
mod tests {
    #[test]
    fn learning_savings_reprice_recorded_tokens_and_say_when_a_price_is_unknown() {
        let cheap = Pricing {
            prompt_per_m: Some(1.0),
            completion_per_m: Some(4.0),
        };
        let premium = Pricing {
            prompt_per_m: Some(5.0),
            completion_per_m: Some(25.0),
        };
        let mut savings = LearningSavings::default();
        savings.add(1_000_000, 100_000, 0.5, Some(&cheap), Some(&premium));
        savings.add(2_000_000, 0, 0.25, Some(&cheap), Some(&premium));
        assert_eq!(savings.outcomes, 2);
        assert!((savings.cost_usd - 0.75).abs() < 1e-12);
        assert_eq!(savings.static_usd, Some(1.4 + 2.0));
        assert_eq!(savings.premium_usd, Some(7.5 + 10.0));
        // One outcome without a static price makes the static total unknown, not smaller.
        savings.add(10, 10, 0.0, None, Some(&premium));
        assert_eq!(savings.static_usd, None);
        assert!(savings.premium_usd.is_some());
    }

    use super::*;

    #[test]
    fn savings_are_baseline_minus_actual_and_signed() {
        let baseline = Pricing {
            prompt_per_m: Some(10.0),
            completion_per_m: Some(30.0),
        };
        let cost = baseline_cost(1_000_000, 100_000, &baseline).expect("priced");
        assert!((cost - 13.0).abs() < 1e-9);
        assert_eq!(savings(Some(13.0), 1.0), Some(12.0));
        assert_eq!(savings(Some(1.0), 2.0), Some(-1.0));
        assert_eq!(savings(None, 2.0), None);
        assert_eq!(baseline_cost(1, 1, &Pricing::default()), None);
    }

    #[test]
    fn totals_per_model_mode_and_day() {
        let entries = vec![
            SpendEntry {
                mode: RunMode::Single,
                day: "2026-12-20".into(),
                cost_usd: 1.0,
                savings_usd: Some(4.0),
                by_model: vec![("a".into(), 1.0)],
            },
            SpendEntry {
                mode: RunMode::Cascade,
                day: "2026-12-21".into(),
                cost_usd: 0.5,
                savings_usd: None,
                by_model: vec![("a".into(), 0.2), ("b".into(), 0.3)],
            },
        ];
        let report = spend_report(&entries);
        assert_eq!(report.runs, 2);
        assert!((report.cost_usd - 1.5).abs() < 1e-12);
        assert!((report.savings_usd - 4.0).abs() < 1e-12);
        assert_eq!(report.by_model[0].key, "a");
        assert!((report.by_model[0].cost_usd - 1.2).abs() < 1e-12);
        assert_eq!(report.by_mode.len(), 2);
        assert_eq!(report.by_day[0].key, "2026-12-20");
    }
}
