//! Tier, tags and cost-efficiency of a model, from its facts and the thresholds in the
//! weights file.
//!
//! - Tier: free and local models are budget; otherwise by blended 3:1 price, with frontier
//!   providers (their flagship pricing) premium from a lower price; unknown (dynamic) prices
//!   are standard.
//! - Cost-efficiency: category score per blended $/M; free and local models count as costing
//!   the price floor (`efficiencyPriceFloorPerM`, $0.01/M), so their efficiency is defined and
//!   finite (100× the score) instead of infinite.

use crate::catalog::card::{Pricing, Tag, Tier};

use super::weights::{TierRules, Weights};

/// Whether both prices are known and zero.
pub fn is_free(pricing: &Pricing) -> bool {
    pricing.prompt_per_m == Some(0.0) && pricing.completion_per_m == Some(0.0)
}

/// The blended $/M a model is charged at for price scores and efficiency: the floor for free
/// and local models, `None` when unknown.
pub fn effective_price(pricing: &Pricing, local: bool, floor: f64) -> Option<f64> {
    if local {
        return Some(floor);
    }
    pricing
        .blended_per_m()
        .filter(|p| p.is_finite() && *p >= 0.0)
        .map(|p| p.max(floor))
}

/// Premium / standard / budget.
pub fn tier(pricing: &Pricing, provider: &str, local: bool, rules: &TierRules) -> Tier {
    if local || is_free(pricing) {
        return Tier::Budget;
    }
    let Some(blended) = pricing.blended_per_m() else {
        return Tier::Standard;
    };
    let frontier = rules
        .frontier_providers
        .iter()
        .any(|p| p.eq_ignore_ascii_case(provider));
    if blended >= rules.premium_min_blended_per_m
        || (frontier && blended >= rules.frontier_premium_min_blended_per_m)
    {
        Tier::Premium
    } else if blended < rules.budget_max_blended_per_m {
        Tier::Budget
    } else {
        Tier::Standard
    }
}

/// The facts tags are read from.
#[derive(Debug, Clone, Copy)]
pub struct TagFacts<'a> {
    /// Prices per million tokens.
    pub pricing: &'a Pricing,
    /// OpenRouter input modalities (`image` means vision).
    pub input_modalities: &'a [String],
    /// OpenRouter supported parameters (`tools`, `reasoning`, ...).
    pub supported_parameters: &'a [String],
    /// The model lists reasoning efforts.
    pub has_reasoning_efforts: bool,
    /// Context length in tokens.
    pub context_length: Option<u64>,
    /// Measured median output tokens/s.
    pub output_speed: Option<f64>,
    /// A `:free` variant exists.
    pub free_variant: bool,
    /// Served by a local server.
    pub local: bool,
}

/// Tags in [`Tag`] order.
pub fn tags(facts: &TagFacts<'_>, weights: &Weights) -> Vec<Tag> {
    let param = |name: &str| facts.supported_parameters.iter().any(|p| p == name);
    let mut tags = Vec::new();
    if let Some(speed) = facts.output_speed {
        if speed >= weights.speed.fast_min_tokens_per_second {
            tags.push(Tag::Fast);
        } else if speed < weights.speed.slow_max_tokens_per_second {
            tags.push(Tag::Slow);
        }
    }
    if facts.input_modalities.iter().any(|m| m == "image") {
        tags.push(Tag::Vision);
    }
    if facts.has_reasoning_efforts || param("reasoning") || param("include_reasoning") {
        tags.push(Tag::Reasoning);
    }
    if param("tools") {
        tags.push(Tag::Tools);
    }
    if param("structured_outputs") || param("response_format") {
        tags.push(Tag::StructuredOutput);
    }
    if facts
        .context_length
        .is_some_and(|c| c >= weights.long_context_min_tokens)
    {
        tags.push(Tag::LongContext);
    }
    if facts.local || facts.free_variant || is_free(facts.pricing) {
        tags.push(Tag::Free);
    }
    if facts.local {
        tags.push(Tag::Local);
    }
    tags
}

/// Score per blended $/M, `None` when the price is unknown.
pub fn efficiency(score: f64, pricing: &Pricing, local: bool, floor: f64) -> Option<f64> {
    effective_price(pricing, local, floor).map(|price| score / price)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn priced(prompt: f64, completion: f64) -> Pricing {
        Pricing {
            prompt_per_m: Some(prompt),
            completion_per_m: Some(completion),
        }
    }

    #[test]
    fn tiers_follow_price_and_provider() {
        let rules = &Weights::bundled().tiers;
        // Blended (3·5 + 25) / 4 = 10.
        assert_eq!(
            tier(&priced(5.0, 25.0), "anthropic", false, rules),
            Tier::Premium
        );
        // Blended 3.4375: premium for a frontier provider, standard for others.
        assert_eq!(
            tier(&priced(1.25, 10.0), "openai", false, rules),
            Tier::Premium
        );
        assert_eq!(
            tier(&priced(1.25, 10.0), "qwen", false, rules),
            Tier::Standard
        );
        assert_eq!(
            tier(&priced(0.1, 0.4), "google", false, rules),
            Tier::Budget
        );
        assert_eq!(
            tier(&priced(0.0, 0.0), "openai", false, rules),
            Tier::Budget
        );
        assert_eq!(
            tier(&Pricing::default(), "openrouter", false, rules),
            Tier::Standard
        );
    }

    #[test]
    fn efficiency_is_defined_for_free_models_through_the_floor() {
        assert_eq!(
            efficiency(60.0, &priced(0.0, 0.0), false, 0.01),
            Some(6000.0)
        );
        assert_eq!(
            efficiency(60.0, &Pricing::default(), true, 0.01),
            Some(6000.0)
        );
        assert_eq!(efficiency(60.0, &priced(1.0, 1.0), false, 0.01), Some(60.0));
        assert_eq!(efficiency(60.0, &Pricing::default(), false, 0.01), None);
    }
}
