//! From raw benchmark values on cards to normalized values, category scores and
//! cost-efficiency.
//!
//! - [`normalize`]: z-score per metric over the catalog's OpenRouter base models (variants are
//!   collapsed before, local models are scored against that population but never change it).
//! - [`category`]: weighted mean per category with coverage ([`weights`] holds the data file).
//! - [`classify`]: tier, tags, efficiency.
//! - [`explain`]: each score taken apart for the UI and the CLI ("why this score").

pub mod category;
pub mod classify;
pub mod explain;
pub mod normalize;
pub mod weights;

use crate::catalog::card::{Category, ModelCard};
use crate::hash::FastMap;

pub use explain::{explain_card, ScoreBreakdown, ScoreTerm, TermStatus};
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
    // Every weighted metric gets a slot, so a card's values are looked up by position, not
    // by comparing metric ids for each category.
    let mut slot_of: FastMap<&str, usize> = FastMap::default();
    let categories: Vec<(Category, &weights::CategoryWeights, Vec<usize>)> = Category::ALL
        .into_iter()
        .filter_map(|category| {
            let category_weights = weights.categories.get(&category)?;
            let slots = category_weights
                .weights
                .iter()
                .map(|(metric, _)| {
                    let next = slot_of.len();
                    *slot_of.entry(metric.as_str()).or_insert(next)
                })
                .collect();
            Some((category, category_weights, slots))
        })
        .collect();
    let mut values: Vec<Option<f64>> = vec![None; slot_of.len()];
    for card in cards.iter_mut() {
        values.fill(None);
        for value in &mut card.benchmarks {
            value.normalized = normalizer.normalize(&value.metric, value.raw, floor);
            if let Some(&slot) = slot_of.get(value.metric.as_str()) {
                values[slot] = value.normalized;
            }
        }
        card.benchmarks.sort_by(|a, b| a.metric.cmp(&b.metric));
        let has_image_input = card.input_modalities.iter().any(|m| m == "image");
        card.categories.clear();
        card.efficiency.clear();
        for (category, category_weights, slots) in &categories {
            let lookup = |i: usize, _: &str| slots.get(i).and_then(|&slot| values[slot]);
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
                    card.efficiency.insert(*category, efficiency);
                }
                card.categories.insert(*category, score);
            }
        }
    }
    normalizer
}
