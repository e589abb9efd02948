//! From raw benchmark values on cards to normalized values, category scores and
//! cost-efficiency.
//!
//! - [`normalize`]: z-score per metric over the catalog's OpenRouter base models (variants are
//!   collapsed before, local models are scored against that population but never change it).
//! - [`category`]: weighted mean per category with coverage ([`weights`] holds the data file).
//! - [`classify`]: tier, tags, efficiency.

pub mod category;
pub mod classify;
pub mod normalize;
pub mod weights;

use crate::catalog::card::{Category, ModelCard};

pub use normalize::{MetricStats, Normalizer};
pub use weights::{Weights, WeightsError, CONTEXT_METRIC, PRICE_METRIC};

/// Normalizes every card's benchmark values and computes its category scores and
/// efficiency. Statistics come from the cards for which `in_population` holds; every card is
/// scored against them. Benchmarks end up sorted by metric id.
pub fn score_cards(
    cards: &mut [ModelCard],
    in_population: impl Fn(&ModelCard) -> bool,
    weights: &Weights,
) -> Normalizer {
    let floor = weights.price_floor_per_m;
    let normalizer = Normalizer::from_values(
        cards
            .iter()
            .filter(|card| in_population(card))
            .flat_map(|card| card.benchmarks.iter().map(|b| (b.metric.as_str(), b.raw))),
        floor,
    );
    for card in cards.iter_mut() {
        for value in &mut card.benchmarks {
            value.normalized = normalizer.normalize(&value.metric, value.raw, floor);
        }
        card.benchmarks.sort_by(|a, b| a.metric.cmp(&b.metric));
        let has_image_input = card.input_modalities.iter().any(|m| m == "image");
        let benchmarks = &card.benchmarks;
        let lookup = |metric: &str| {
            let i = benchmarks
                .binary_search_by(|b| b.metric.as_str().cmp(metric))
                .ok()?;
            benchmarks[i].normalized
        };
        card.categories.clear();
        card.efficiency.clear();
        for category in Category::ALL {
            let Some(category_weights) = weights.categories.get(&category) else {
                continue;
            };
            let score = category::score_category(
                category_weights,
                weights.min_coverage,
                has_image_input,
                lookup,
            );
            if let Some(score) = score {
                let efficiency =
                    classify::efficiency(score.score, &card.pricing, card.local, floor);
                if let Some(efficiency) = efficiency {
                    card.efficiency.insert(category, efficiency);
                }
                card.categories.insert(category, score);
            }
        }
    }
    normalizer
}
