//! Budgets: price bands on the blended price per million tokens, plus an optional hard cap.
//!
//! One price everywhere: the blended price, three input tokens to one output token
//! ([`Pricing::blended_per_m`]). The tiers, `--max-price`, `models --max-price` and the cost
//! per verified success all use it, so "$5" means the same thing on every surface.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Pricing;

/// A price band on blended USD per million tokens (3:1 input:output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum BudgetTier {
    /// $0–1/M blended.
    Low,
    /// $0–5/M blended (the default).
    #[default]
    Medium,
    /// $2–20/M blended.
    High,
    /// Any price, unknown prices included.
    Any,
}

/// Which way a step's words push its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Nudge {
    /// "simple", "boilerplate": one tier cheaper.
    Down,
    /// "critical", "security", "architecture": one tier up.
    Up,
}

impl BudgetTier {
    /// Every tier, cheapest first.
    pub const ALL: [BudgetTier; 4] = [
        BudgetTier::Low,
        BudgetTier::Medium,
        BudgetTier::High,
        BudgetTier::Any,
    ];

    /// The id used in JSON and on the CLI.
    pub fn id(self) -> &'static str {
        match self {
            BudgetTier::Low => "low",
            BudgetTier::Medium => "medium",
            BudgetTier::High => "high",
            BudgetTier::Any => "any",
        }
    }

    /// Parses [`BudgetTier::id`], case-insensitively.
    pub fn parse(text: &str) -> Option<BudgetTier> {
        BudgetTier::ALL
            .into_iter()
            .find(|t| t.id().eq_ignore_ascii_case(text.trim()))
    }

    /// The band in blended USD per million tokens; `None` for [`BudgetTier::Any`].
    pub fn range(self) -> Option<(f64, f64)> {
        match self {
            BudgetTier::Low => Some((0.0, 1.0)),
            BudgetTier::Medium => Some((0.0, 5.0)),
            BudgetTier::High => Some((2.0, 20.0)),
            BudgetTier::Any => None,
        }
    }

    /// Its name on the forms.
    pub fn label(self) -> &'static str {
        match self {
            BudgetTier::Low => "Low",
            BudgetTier::Medium => "Medium",
            BudgetTier::High => "High",
            BudgetTier::Any => "Any",
        }
    }

    /// Its band in words: `$0–5/M blended`, `any price`.
    pub fn band(self) -> String {
        match self.range() {
            Some((low, high)) => format!("${low}–{high}/M blended"),
            None => "any price".to_owned(),
        }
    }

    /// The tier as the forms offer it.
    pub fn view(self) -> BudgetTierView {
        BudgetTierView {
            tier: self,
            label: self.label().to_owned(),
            band: self.band(),
        }
    }

    /// The share of the best candidate's estimated success a model must reach for `pick` to
    /// weigh it by cost: below it, a cheaper model is not an option at all. Higher tiers
    /// spend more to stay closer to the best.
    pub fn quality_floor(self) -> f64 {
        match self {
            BudgetTier::Low => 0.85,
            BudgetTier::Medium | BudgetTier::Any => 0.9,
            BudgetTier::High => 0.95,
        }
    }

    /// One tier down or up. `any` stays `any` either way: a step of a run with no price
    /// limit never becomes `low` because it says "simple".
    pub fn nudge(self, nudge: Nudge) -> BudgetTier {
        match (self, nudge) {
            (BudgetTier::Any, _) => BudgetTier::Any,
            (BudgetTier::High, Nudge::Down) => BudgetTier::Medium,
            (BudgetTier::Medium | BudgetTier::Low, Nudge::Down) => BudgetTier::Low,
            (BudgetTier::Low, Nudge::Up) => BudgetTier::Medium,
            (BudgetTier::Medium | BudgetTier::High, Nudge::Up) => BudgetTier::High,
        }
    }
}

/// A tier as the forms offer it, cheapest first ([`BudgetTier::view`]): the UI draws these
/// and derives none of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BudgetTierView {
    /// The tier's id (`low`, `medium`, `high`, `any`).
    pub tier: BudgetTier,
    /// `Low`, `Medium`, `High`, `Any`.
    pub label: String,
    /// `$0–1/M blended`, …, `any price`.
    pub band: String,
}

/// Every tier as the forms offer it, cheapest first.
pub fn budget_tiers() -> Vec<BudgetTierView> {
    BudgetTier::ALL.into_iter().map(BudgetTier::view).collect()
}

/// A budget: a tier and an optional hard cap on the blended price.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// The price band.
    pub tier: BudgetTier,
    /// Maximum blended USD per million tokens, on top of the tier.
    pub max_price_per_m: Option<f64>,
}

impl Budget {
    /// A budget of `tier` with no cap.
    pub fn tier(tier: BudgetTier) -> Budget {
        Budget {
            tier,
            max_price_per_m: None,
        }
    }

    /// Whether a model priced `pricing` fits. Unknown prices fit only `any` without a cap:
    /// an unknown price is never treated as free.
    pub fn fits(&self, pricing: &Pricing) -> bool {
        let Some(price) = pricing.blended_per_m() else {
            return self.tier == BudgetTier::Any && self.max_price_per_m.is_none();
        };
        if let Some(cap) = self.max_price_per_m {
            if price > cap {
                return false;
            }
        }
        match self.tier.range() {
            Some((low, high)) => price >= low && price <= high,
            None => true,
        }
    }

    /// The band as text: `$0–5/M blended`, `$2–20/M blended, at most $8/M`, `any price`.
    pub fn describe(&self) -> String {
        let band = match self.tier {
            BudgetTier::Any => self.tier.band(),
            tier => format!("{} budget ({})", tier.id(), tier.band()),
        };
        match self.max_price_per_m {
            Some(cap) => format!("{band}, at most ${cap}/M"),
            None => band,
        }
    }

    /// This budget nudged one tier (the cap is kept).
    pub fn nudged(self, nudge: Nudge) -> Budget {
        Budget {
            tier: self.tier.nudge(nudge),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_tiers_come_from_the_bands_pick_uses() {
        let tiers = budget_tiers();
        let ids: Vec<&str> = tiers.iter().map(|t| t.tier.id()).collect();
        assert_eq!(ids, ["low", "medium", "high", "any"]);
        let bands: Vec<&str> = tiers.iter().map(|t| t.band.as_str()).collect();
        assert_eq!(
            bands,
            [
                "$0–1/M blended",
                "$0–5/M blended",
                "$2–20/M blended",
                "any price"
            ]
        );
        assert_eq!(tiers[2].label, "High");
        assert_eq!(
            Budget {
                tier: BudgetTier::High,
                max_price_per_m: Some(8.0)
            }
            .describe(),
            "high budget ($2–20/M blended), at most $8/M"
        );
        assert_eq!(Budget::tier(BudgetTier::Any).describe(), "any price");
    }
}
