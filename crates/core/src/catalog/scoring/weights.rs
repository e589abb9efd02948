//! The category weights data file (`crates/core/data/category_weights.json`), parsed once.
//!
//! The file also carries the thresholds that turn prices and speeds into tiers and tags, so
//! every tunable number of the scoring lives in one reviewed place with its reasons.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::catalog::card::Category;
use crate::catalog::metrics;

pub use crate::catalog::metrics::{CONTEXT_METRIC, PRICE_METRIC};

const BUNDLED: &str = include_str!("../../../data/category_weights.json");

/// Why a weights file was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WeightsError {
    /// Not the expected JSON shape.
    #[error("category weights are not valid: {0}")]
    Shape(String),
    /// A category key that is not a [`Category`].
    #[error("unknown category `{0}` in category weights")]
    UnknownCategory(String),
    /// A category the file does not define.
    #[error("category `{0}` has no weights")]
    MissingCategory(&'static str),
    /// A metric id no parser emits and that is not derived.
    #[error("unknown metric `{metric}` in category `{category}`")]
    UnknownMetric { category: String, metric: String },
    /// A weight or threshold that is not a positive finite number.
    #[error("`{0}` must be a positive number")]
    NotPositive(String),
}

/// Price and provider thresholds for [`crate::catalog::card::Tier`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TierRules {
    /// Blended $/M at or above which any model is premium.
    pub premium_min_blended_per_m: f64,
    /// Providers whose flagship pricing marks premium from a lower price.
    pub frontier_providers: Vec<String>,
    /// Blended $/M at or above which a frontier provider's model is premium.
    pub frontier_premium_min_blended_per_m: f64,
    /// Blended $/M below which a model is budget.
    pub budget_max_blended_per_m: f64,
}

/// Measured-speed thresholds for the fast and slow tags.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SpeedRules {
    /// Median output tokens/s at or above which a model is fast.
    pub fast_min_tokens_per_second: f64,
    /// Median output tokens/s below which a model is slow.
    pub slow_max_tokens_per_second: f64,
}

/// One category's weighted metrics and conditions.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryWeights {
    /// `(metric id, weight)`, heaviest first.
    pub weights: Vec<(String, f64)>,
    /// The score needs at least one of these metrics (quality evidence for fast-cheap).
    pub require_any: Vec<String>,
    /// Only models that take image input are scored.
    pub requires_image_input: bool,
    /// Sum of all weights: the denominator of coverage.
    pub total: f64,
}

/// The parsed weights file.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// The file's reasons for its numbers.
    pub notes: Vec<String>,
    /// Least coverage a category score may rest on.
    pub min_coverage: f64,
    /// Price per million used for free (and local) models in efficiency and price scores.
    pub price_floor_per_m: f64,
    /// Tier thresholds.
    pub tiers: TierRules,
    /// Fast/slow thresholds.
    pub speed: SpeedRules,
    /// Context length from which a model is tagged long-context.
    pub long_context_min_tokens: u64,
    /// Every category's weights.
    pub categories: BTreeMap<Category, CategoryWeights>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileShape {
    notes: Vec<String>,
    min_coverage: f64,
    efficiency_price_floor_per_m: f64,
    tiers: TierRules,
    speed: SpeedRules,
    long_context_min_tokens: u64,
    categories: BTreeMap<String, CategoryShape>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CategoryShape {
    weights: BTreeMap<String, f64>,
    #[serde(default)]
    require_any: Vec<String>,
    #[serde(default)]
    requires_image_input: bool,
}

/// Whether a metric id is known: emitted by a parser or derived from OpenRouter data.
pub fn known_metric(id: &str) -> bool {
    metrics::metric(id).is_some()
}

/// Whether a higher raw value of the metric is better; `None` for unknown ids.
pub fn higher_is_better(id: &str) -> Option<bool> {
    metrics::metric(id).map(|m| m.higher_is_better)
}

impl Weights {
    /// The weights shipped with the app, parsed on first use.
    pub fn bundled() -> &'static Weights {
        static BUNDLED_WEIGHTS: OnceLock<Weights> = OnceLock::new();
        BUNDLED_WEIGHTS.get_or_init(|| {
            // The file is compiled in and validated strictly by this module's tests; at run time
            // a metric the registry dropped since is skipped rather than fatal.
            #[allow(clippy::expect_used)]
            Weights::parse_with(BUNDLED, false).expect("bundled category_weights.json is valid")
        })
    }

    /// Parses and validates a weights file: every category present, every metric known,
    /// every weight and threshold positive.
    pub fn parse(text: &str) -> Result<Weights, WeightsError> {
        Weights::parse_with(text, true)
    }

    /// Like [`Weights::parse`]; with `strict` off, metrics no parser emits are left out of
    /// their category instead of rejecting the file.
    pub fn parse_with(text: &str, strict: bool) -> Result<Weights, WeightsError> {
        let file: FileShape =
            serde_json::from_str(text).map_err(|e| WeightsError::Shape(e.to_string()))?;
        positive("minCoverage", file.min_coverage)?;
        positive(
            "efficiencyPriceFloorPerM",
            file.efficiency_price_floor_per_m,
        )?;
        positive(
            "speed.fastMinTokensPerSecond",
            file.speed.fast_min_tokens_per_second,
        )?;
        positive(
            "speed.slowMaxTokensPerSecond",
            file.speed.slow_max_tokens_per_second,
        )?;
        positive(
            "tiers.premiumMinBlendedPerM",
            file.tiers.premium_min_blended_per_m,
        )?;
        positive(
            "tiers.budgetMaxBlendedPerM",
            file.tiers.budget_max_blended_per_m,
        )?;
        let mut categories = BTreeMap::new();
        for (key, shape) in file.categories {
            let category =
                Category::parse(&key).ok_or_else(|| WeightsError::UnknownCategory(key.clone()))?;
            let mut weights = Vec::with_capacity(shape.weights.len());
            for (metric, weight) in shape.weights {
                if !known_metric(&metric) {
                    if !strict {
                        continue;
                    }
                    return Err(WeightsError::UnknownMetric {
                        category: key.clone(),
                        metric,
                    });
                }
                positive(&format!("{key}.{metric}"), weight)?;
                weights.push((metric, weight));
            }
            for metric in &shape.require_any {
                if strict && !weights.iter().any(|(m, _)| m == metric) {
                    return Err(WeightsError::UnknownMetric {
                        category: key.clone(),
                        metric: metric.clone(),
                    });
                }
            }
            weights.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let total = weights.iter().map(|(_, w)| w).sum();
            categories.insert(
                category,
                CategoryWeights {
                    weights,
                    require_any: shape.require_any,
                    requires_image_input: shape.requires_image_input,
                    total,
                },
            );
        }
        if let Some(missing) = Category::ALL
            .into_iter()
            .find(|c| !categories.contains_key(c))
        {
            return Err(WeightsError::MissingCategory(missing.id()));
        }
        Ok(Weights {
            notes: file.notes,
            min_coverage: file.min_coverage,
            price_floor_per_m: file.efficiency_price_floor_per_m,
            tiers: file.tiers,
            speed: file.speed,
            long_context_min_tokens: file.long_context_min_tokens,
            categories,
        })
    }

    /// Every metric some category uses.
    pub fn used_metrics(&self) -> impl Iterator<Item = &str> {
        self.categories
            .values()
            .flat_map(|c| c.weights.iter().map(|(m, _)| m.as_str()))
    }
}

fn positive(name: &str, value: f64) -> Result<(), WeightsError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(WeightsError::NotPositive(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_defines_every_category_with_known_metrics() {
        let weights = Weights::parse(BUNDLED).expect("bundled weights parse");
        assert_eq!(weights.categories.len(), Category::ALL.len());
        assert!(weights.used_metrics().all(known_metric));
        let coding = &weights.categories[&Category::Coding];
        assert_eq!(coding.weights.first().map(|(_, w)| *w), Some(3.0));
        assert!(weights.categories[&Category::Vision].requires_image_input);
        assert!(!weights.categories[&Category::FastCheap]
            .require_any
            .is_empty());
        assert!(!weights.notes.is_empty());
    }

    #[test]
    fn bad_files_are_rejected_with_a_reason() {
        let unknown = BUNDLED.replace("\"aa.scicode\"", "\"aa.sci_code\"");
        assert!(matches!(
            Weights::parse(&unknown),
            Err(WeightsError::UnknownMetric { .. })
        ));
        let lenient = Weights::parse_with(&unknown, false).expect("unknown metric skipped");
        let coding = &lenient.categories[&Category::Coding];
        assert!(coding.weights.iter().all(|(m, _)| m != "aa.sci_code"));
        let negative = BUNDLED.replace("\"minCoverage\": 0.2", "\"minCoverage\": -1");
        assert!(matches!(
            Weights::parse(&negative),
            Err(WeightsError::NotPositive(_))
        ));
        let missing = BUNDLED.replace("\"general\": {", "\"generalx\": {");
        assert!(matches!(
            Weights::parse(&missing),
            Err(WeightsError::UnknownCategory(_))
        ));
        assert!(matches!(Weights::parse("[]"), Err(WeightsError::Shape(_))));
    }
}
