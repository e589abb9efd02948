//! "Why this score": a card's category scores taken apart into every metric the category
//! weighs — what each one contributed, or why it did not count — so the UI and the CLI only
//! render numbers computed here, next to the scoring they explain.
//!
//! The score and the used inputs are the card's own ([`super::category::score_category`] made
//! them); this adds the contributions, the shares, the weights and the inputs that did not
//! count, from the same weights the score was computed with.

use serde::Serialize;
use specta::Type;

use crate::catalog::card::{Category, CategoryScore, ModelCard};

use super::weights::{CategoryWeights, Weights};

/// Whether one weighted metric counted towards a category score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum TermStatus {
    /// It had a normalized value and is part of the weighted mean.
    Used,
    /// The model has no value for it.
    NoData,
    /// The model has a raw value, but the metric is not normalized in this catalog (fewer
    /// than five models have it, or they all share one value), so it cannot count.
    NotNormalized,
}

/// One metric of a category, for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ScoreTerm {
    /// Source-qualified metric id (`aa.gpqa`); its label and unit are in the registry.
    pub metric: String,
    /// The metric's weight in the category.
    pub weight: f64,
    /// The model's raw value, in the metric's unit; `None` without data.
    pub raw: Option<f64>,
    /// The 0–100 normalized value; `None` unless the term is used.
    pub normalized: Option<f64>,
    /// Points of the score this term gives: weight × normalized ÷ used weight. The used
    /// terms' contributions add up to the score; `None` for terms that did not count.
    pub contribution: Option<f64>,
    /// Share (0–1) of the score: contribution ÷ score (`0` for a score of 0).
    pub share: Option<f64>,
    /// Whether and why not it counted.
    pub status: TermStatus,
}

/// A category score taken apart.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdown {
    /// The category.
    pub category: Category,
    /// 0–100: Σ weight × normalized ÷ used weight over the used terms.
    pub score: f64,
    /// used weight ÷ total weight.
    pub coverage: f64,
    /// Σ weight of the used terms.
    pub used_weight: f64,
    /// Σ weight of every metric the category weighs.
    pub total_weight: f64,
    /// The least coverage a score may rest on (below it the category has no score).
    pub min_coverage: f64,
    /// Used terms first, then those that did not count; each group heaviest first (then by
    /// metric id).
    pub terms: Vec<ScoreTerm>,
}

/// The breakdown of every category `card` has a score in, in category order. `weights` must
/// be the weights the card was scored with (the engine's are [`Weights::bundled`]); a
/// category those weights do not define is left out.
pub fn explain_card(card: &ModelCard, weights: &Weights) -> Vec<ScoreBreakdown> {
    card.categories
        .iter()
        .filter_map(|(category, score)| {
            let category_weights = weights.categories.get(category)?;
            Some(explain_score(
                *category,
                score,
                category_weights,
                weights.min_coverage,
                card,
            ))
        })
        .collect()
}

fn explain_score(
    category: Category,
    score: &CategoryScore,
    weights: &CategoryWeights,
    min_coverage: f64,
    card: &ModelCard,
) -> ScoreBreakdown {
    let raw_of = |metric: &str| {
        card.benchmarks
            .iter()
            .find(|b| b.metric == metric)
            .map(|b| b.raw)
    };
    let used_weight: f64 = score.inputs.iter().map(|i| i.weight).sum();
    let mut used: Vec<ScoreTerm> = score
        .inputs
        .iter()
        .map(|input| {
            let contribution = if used_weight > 0.0 {
                input.weight * input.normalized / used_weight
            } else {
                0.0
            };
            let share = if score.score > 0.0 {
                contribution / score.score
            } else {
                0.0
            };
            ScoreTerm {
                metric: input.metric.clone(),
                weight: input.weight,
                raw: raw_of(&input.metric),
                normalized: Some(input.normalized),
                contribution: Some(contribution),
                share: Some(share),
                status: TermStatus::Used,
            }
        })
        .collect();
    let mut missing: Vec<ScoreTerm> = weights
        .weights
        .iter()
        .filter(|(metric, _)| !score.inputs.iter().any(|i| &i.metric == metric))
        .map(|(metric, weight)| {
            let raw = raw_of(metric);
            ScoreTerm {
                metric: metric.clone(),
                weight: *weight,
                raw,
                normalized: None,
                contribution: None,
                share: None,
                status: if raw.is_some() {
                    TermStatus::NotNormalized
                } else {
                    TermStatus::NoData
                },
            }
        })
        .collect();
    let heaviest_first =
        |a: &ScoreTerm, b: &ScoreTerm| b.weight.total_cmp(&a.weight).then(a.metric.cmp(&b.metric));
    used.sort_by(heaviest_first);
    missing.sort_by(heaviest_first);
    used.extend(missing);
    ScoreBreakdown {
        category,
        score: score.score,
        coverage: score.coverage,
        used_weight,
        total_weight: weights.total,
        min_coverage,
        terms: used,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::card::{BenchmarkValue, Pricing, ScoreInput, Tier};
    use crate::catalog::record::SourceId;

    fn benchmark(metric: &str, raw: f64, normalized: Option<f64>) -> BenchmarkValue {
        BenchmarkValue {
            source: SourceId::LiveBench,
            metric: metric.to_owned(),
            raw,
            normalized,
            record: "m".to_owned(),
        }
    }

    fn card_with(score: CategoryScore, benchmarks: Vec<BenchmarkValue>) -> ModelCard {
        ModelCard {
            id: "acme/coder".into(),
            name: "Coder".into(),
            provider: "acme".into(),
            description: None,
            created: None,
            context_length: None,
            input_modalities: Vec::new(),
            output_modalities: Vec::new(),
            supported_parameters: Vec::new(),
            hugging_face_id: None,
            pricing: Pricing::default(),
            tier: Tier::Standard,
            tags: Vec::new(),
            categories: [(Category::Coding, score)].into_iter().collect(),
            efficiency: Default::default(),
            benchmarks,
            matches: Vec::new(),
            variants: Vec::new(),
            output_speed: None,
            ttft_seconds: None,
            local: false,
            blended_per_m: None,
        }
    }

    fn weights() -> Weights {
        let mut weights = Weights::bundled().clone();
        weights.categories.insert(
            Category::Coding,
            CategoryWeights {
                weights: vec![
                    ("lmarena.coding".into(), 5.0),
                    ("aa.coding_index".into(), 2.0),
                    ("livebench.coding".into(), 2.0),
                    ("aa.scicode".into(), 1.0),
                ],
                require_any: Vec::new(),
                requires_image_input: false,
                total: 10.0,
            },
        );
        weights
    }

    #[test]
    fn used_terms_add_up_to_the_score_and_missing_ones_say_why() {
        let score = CategoryScore {
            score: (2.0 * 80.0 + 1.0 * 50.0) / 3.0,
            coverage: 0.3,
            inputs: vec![
                ScoreInput {
                    metric: "aa.scicode".into(),
                    weight: 1.0,
                    normalized: 50.0,
                },
                ScoreInput {
                    metric: "aa.coding_index".into(),
                    weight: 2.0,
                    normalized: 80.0,
                },
            ],
        };
        let card = card_with(
            score,
            vec![
                benchmark("aa.coding_index", 71.0, Some(80.0)),
                benchmark("aa.scicode", 0.4, Some(50.0)),
                benchmark("livebench.coding", 61.0, None),
            ],
        );
        let explained = explain_card(&card, &weights());
        let [coding] = explained.as_slice() else {
            panic!("one scored category: {explained:?}");
        };
        assert_eq!(coding.category, Category::Coding);
        assert_eq!((coding.used_weight, coding.total_weight), (3.0, 10.0));
        let terms: Vec<(&str, TermStatus, Option<f64>)> = coding
            .terms
            .iter()
            .map(|t| (t.metric.as_str(), t.status, t.raw))
            .collect();
        assert_eq!(
            terms,
            [
                ("aa.coding_index", TermStatus::Used, Some(71.0)),
                ("aa.scicode", TermStatus::Used, Some(0.4)),
                ("lmarena.coding", TermStatus::NoData, None),
                ("livebench.coding", TermStatus::NotNormalized, Some(61.0)),
            ]
        );
        let sum: f64 = coding.terms.iter().filter_map(|t| t.contribution).sum();
        assert!((sum - coding.score).abs() < 1e-9);
        let first = &coding.terms[0];
        assert!((first.contribution.unwrap_or_default() - 160.0 / 3.0).abs() < 1e-9);
        assert!((first.share.unwrap_or_default() - 160.0 / 210.0).abs() < 1e-9);
        assert!(coding.terms[2].contribution.is_none() && coding.terms[2].share.is_none());
    }
}
