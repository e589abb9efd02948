//! One category score from a model's normalized metrics: the weighted mean of the metrics it
//! has, with coverage = weight present / total weight. No evidence, no score: below the
//! minimum coverage, without a required quality metric, or (vision) without image input the
//! category is absent, never filled in from the tier or price.

use crate::catalog::card::{CategoryScore, ScoreInput};

use super::weights::CategoryWeights;

/// Scores one category. `normalized(i, metric)` gives the model's 0–100 value of the `i`-th
/// weighted metric, `None` when it has none (or the metric is not normalized in this catalog).
pub fn score_category(
    weights: &CategoryWeights,
    min_coverage: f64,
    has_image_input: bool,
    normalized: impl Fn(usize, &str) -> Option<f64>,
) -> Option<CategoryScore> {
    if weights.requires_image_input && !has_image_input {
        return None;
    }
    let mut inputs = Vec::new();
    let mut present = 0.0;
    let mut weighted = 0.0;
    for (i, (metric, weight)) in weights.weights.iter().enumerate() {
        if let Some(value) = normalized(i, metric) {
            present += weight;
            weighted += weight * value;
            inputs.push(ScoreInput {
                metric: metric.clone(),
                weight: *weight,
                normalized: value,
            });
        }
    }
    if inputs.is_empty() || weights.total <= 0.0 {
        return None;
    }
    let required = weights.require_any.is_empty()
        || inputs
            .iter()
            .any(|i| weights.require_any.contains(&i.metric));
    let coverage = present / weights.total;
    if !required || coverage + 1e-9 < min_coverage {
        return None;
    }
    Some(CategoryScore {
        score: weighted / present,
        coverage,
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(pairs: &[(&str, f64)]) -> CategoryWeights {
        CategoryWeights {
            weights: pairs.iter().map(|(m, w)| (m.to_string(), *w)).collect(),
            require_any: Vec::new(),
            requires_image_input: false,
            total: pairs.iter().map(|(_, w)| w).sum(),
        }
    }

    #[test]
    fn weighted_mean_of_present_metrics_with_coverage() {
        let w = weights(&[("a", 3.0), ("b", 1.0), ("c", 4.0)]);
        let score = score_category(&w, 0.2, false, |_, m| match m {
            "a" => Some(80.0),
            "b" => Some(40.0),
            _ => None,
        })
        .expect("half the weight is present");
        // (3·80 + 1·40) / 4 = 70; coverage (3+1)/8.
        assert_eq!(score.score, 70.0);
        assert_eq!(score.coverage, 0.5);
        assert_eq!(score.inputs.len(), 2);
    }

    #[test]
    fn no_evidence_or_too_little_gives_no_score() {
        let w = weights(&[("a", 1.0), ("b", 9.0)]);
        assert!(score_category(&w, 0.2, false, |_, _| None).is_none());
        assert!(score_category(&w, 0.2, false, |_, m| (m == "a").then_some(90.0)).is_none());
        let mut required = weights(&[("quality", 1.0), ("price", 3.0)]);
        required.require_any = vec!["quality".to_string()];
        assert!(
            score_category(&required, 0.2, false, |_, m| (m == "price").then_some(99.0)).is_none()
        );
        let mut vision = weights(&[("a", 1.0)]);
        vision.requires_image_input = true;
        assert!(score_category(&vision, 0.2, false, |_, _| Some(60.0)).is_none());
        assert!(score_category(&vision, 0.2, true, |_, _| Some(60.0)).is_some());
    }
}
