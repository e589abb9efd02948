//! Per-metric normalization: a z-score over the catalog's base models that have the metric
//! (population standard deviation), mapped to `clamp(50 + 20·z, 0, 100)`; inverted for
//! lower-is-better metrics. A metric with fewer than [`MIN_VALUES`] values or no spread is
//! not normalized and therefore not used in any score.

use super::weights::{higher_is_better, CONTEXT_METRIC, PRICE_METRIC};
use crate::hash::FastMap;

/// Fewest values a metric needs before a z-score means anything.
pub const MIN_VALUES: usize = 5;

/// Mean and spread of one metric over the population, in the scale it is scored on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricStats {
    /// Values the stats rest on.
    pub count: usize,
    /// Mean on the scored scale.
    pub mean: f64,
    /// Population standard deviation (divides by `count`).
    pub std_dev: f64,
    /// Direction: lower-is-better metrics are inverted.
    pub higher_is_better: bool,
}

impl MetricStats {
    /// Stats of `values` (already on the scored scale, see [`scored_value`]); `None` when there
    /// are fewer than [`MIN_VALUES`] finite values or they do not spread.
    pub fn of(values: &[f64], higher_is_better: bool) -> Option<MetricStats> {
        let finite = || values.iter().copied().filter(|v| v.is_finite());
        let count = finite().count();
        if count < MIN_VALUES {
            return None;
        }
        let n = count as f64;
        let mean = finite().sum::<f64>() / n;
        let variance = finite().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let std_dev = variance.sqrt();
        // Spread below rounding noise of the mean is no spread.
        if std_dev.is_nan() || std_dev <= mean.abs().max(1.0) * 1e-12 {
            return None;
        }
        Some(MetricStats {
            count,
            mean,
            std_dev,
            higher_is_better,
        })
    }

    /// The 0–100 score of a value on the scored scale.
    pub fn normalize(&self, value: f64) -> f64 {
        let z = (value - self.mean) / self.std_dev;
        let z = if self.higher_is_better { z } else { -z };
        (50.0 + 20.0 * z).clamp(0.0, 100.0)
    }
}

/// The value a raw metric is scored on: prices on log10 (free models at `price_floor`),
/// context lengths on log2, everything else as is.
pub fn scored_value(metric: &str, raw: f64, price_floor: f64) -> f64 {
    match metric {
        PRICE_METRIC => raw.max(price_floor).log10(),
        CONTEXT_METRIC => raw.max(1.0).log2(),
        _ => raw,
    }
}

/// Stats for every metric of a population, built from `(metric, raw value)` pairs; each pair
/// must come from a distinct model (callers pass base models only, so variants and local
/// copies never count twice).
#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    stats: FastMap<String, MetricStats>,
}

impl Normalizer {
    /// Collects values per metric and computes their stats. Unknown metric ids are skipped.
    pub fn from_values<'a>(
        values: impl IntoIterator<Item = (&'a str, f64)>,
        price_floor: f64,
    ) -> Normalizer {
        let mut by_metric: FastMap<&'a str, Vec<f64>> = FastMap::default();
        for (metric, raw) in values {
            by_metric
                .entry(metric)
                .or_default()
                .push(scored_value(metric, raw, price_floor));
        }
        let stats = by_metric
            .into_iter()
            .filter_map(|(metric, values)| {
                let direction = higher_is_better(metric)?;
                Some((metric.to_string(), MetricStats::of(&values, direction)?))
            })
            .collect();
        Normalizer { stats }
    }

    /// Stats of a metric, `None` when it is not normalized.
    pub fn stats(&self, metric: &str) -> Option<&MetricStats> {
        self.stats.get(metric)
    }

    /// The 0–100 score of a raw value, `None` when the metric is not normalized.
    pub fn normalize(&self, metric: &str, raw: f64, price_floor: f64) -> Option<f64> {
        let stats = self.stats.get(metric)?;
        raw.is_finite()
            .then(|| stats.normalize(scored_value(metric, raw, price_floor)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_z_scores_map_to_fifty_plus_twenty_z() {
        // Values 2,4,4,4,5,5,7,9: mean 5, population std dev 2.
        let stats = MetricStats::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], true)
            .expect("eight spread values");
        assert_eq!((stats.mean, stats.std_dev), (5.0, 2.0));
        assert_eq!(stats.normalize(9.0), 90.0);
        assert_eq!(stats.normalize(2.0), 20.0);
        assert_eq!(stats.normalize(20.0), 100.0);
        let lower = MetricStats {
            higher_is_better: false,
            ..stats
        };
        assert_eq!(lower.normalize(9.0), 10.0);
    }

    #[test]
    fn too_few_or_flat_values_are_not_normalized() {
        assert!(MetricStats::of(&[1.0, 2.0, 3.0, 4.0], true).is_none());
        assert!(MetricStats::of(&[3.0; 6], true).is_none());
        assert!(MetricStats::of(&[1.0, 2.0, 3.0, 4.0, f64::NAN], true).is_none());
    }

    #[test]
    fn prices_score_on_a_log_scale_with_a_floor() {
        assert_eq!(scored_value(PRICE_METRIC, 0.0, 0.01), -2.0);
        assert_eq!(scored_value(PRICE_METRIC, 10.0, 0.01), 1.0);
        assert_eq!(scored_value(CONTEXT_METRIC, 1024.0, 0.01), 10.0);
        assert_eq!(scored_value("aa.gpqa", 0.5, 0.01), 0.5);
    }
}
