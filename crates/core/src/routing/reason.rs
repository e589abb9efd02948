//! Why a model was chosen: the numbers behind its blended score, and a sentence quoting them.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::{Category, ModelCard, Pricing};

use super::budget::Budget;
use super::context::ContextMetrics;
use super::feedback::FeedbackIndex;
use super::rank::{coverage_adjustment, Scored};
use super::request::RouteRequest;

/// One benchmark value behind a context boost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MetricValue {
    pub metric: String,
    /// 0–100.
    pub normalized: f64,
}

/// The numbers behind one model's place in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    /// One sentence quoting the numbers below.
    pub text: String,
    pub category: Category,
    /// The catalog's 0–100 category score.
    pub category_score: f64,
    /// Share (0–1) of the category's evidence the score rests on.
    pub coverage: f64,
    /// Points lost for missing evidence (≤ 0).
    pub coverage_adjustment: f64,
    /// USD per million input tokens; `None` when unknown.
    pub price_per_m: Option<f64>,
    /// USD per million output tokens; `None` when unknown.
    pub completion_price_per_m: Option<f64>,
    /// Points added (or removed) by user ratings.
    pub feedback_adjustment: f64,
    pub feedback_count: u32,
    pub feedback_mean: Option<f64>,
    /// Points added (or removed) by the stack's own metrics.
    pub context_boost: f64,
    pub context_metrics: Vec<MetricValue>,
    /// categoryScore + coverageAdjustment + feedbackAdjustment + contextBoost.
    pub blended_score: f64,
    /// 1-based place in the answer (pick: best first, then the alternatives).
    pub rank: u32,
    /// How many models passed every filter.
    pub qualified: u32,
    pub budget: Budget,
}

/// A ranked model with its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RankedModel {
    pub id: String,
    pub name: String,
    pub provider: String,
    /// Blended score.
    pub score: f64,
    pub category: Category,
    pub pricing: Pricing,
    /// 0–1: how much evidence stands behind the score (coverage and number of ratings).
    pub confidence: f64,
    pub reason: Reason,
}

fn round(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (value * factor).round() / factor
}

fn money(price: Option<f64>) -> String {
    match price {
        Some(p) if p == 0.0 => "free".to_owned(),
        Some(p) if p < 0.1 => format!("${p:.3}/M input"),
        Some(p) => format!("${p:.2}/M input"),
        None => "price unknown".to_owned(),
    }
}

/// Builds the ranked entry for a selected candidate.
pub(crate) fn explain(
    card: &ModelCard,
    scored: &Scored,
    rank: u32,
    qualified: u32,
    request: &RouteRequest,
    feedback: &FeedbackIndex,
    metrics: &ContextMetrics<'_>,
) -> RankedModel {
    let category = request.category;
    let (score, coverage) =
        card.categories.get(&category).map_or((0.0, 0.0), |s| (s.score, s.coverage));
    let coverage_adj = coverage_adjustment(coverage);
    let summary = feedback.summary(&card.id, category);
    let feedback_adj = summary.map_or(0.0, |s| s.adjustment());
    let boost = metrics.boost(card, score);
    let context_boost = if scored.boost == 0.0 { 0.0 } else { boost.points };
    let blended = scored.blended();

    let mut parts = vec![format!(
        "{} score {:.1} at {:.0}% coverage",
        category.id(),
        score,
        coverage * 100.0
    )];
    if coverage_adj < -0.05 {
        parts.push(format!("{coverage_adj:+.1} for missing evidence"));
    }
    parts.push(money(card.pricing.prompt_per_m));
    if let Some(s) = summary {
        let plural = if s.count == 1 { "" } else { "s" };
        parts.push(format!(
            "feedback {feedback_adj:+.1} from {} rating{plural} (mean {:.1})",
            s.count, s.mean
        ));
    }
    if context_boost != 0.0 {
        let named: Vec<String> =
            boost.evidence.iter().map(|(m, v)| format!("{m} {v:.0}")).collect();
        parts.push(format!(
            "context {context_boost:+.1} for {} ({})",
            request.stack.join(", "),
            named.join(", ")
        ));
    }
    let text = format!(
        "{}; blended {:.1}: #{rank} of {qualified} {} models within {}{}",
        parts.join("; "),
        blended,
        category.id(),
        request.budget.describe(),
        needs_text(request),
    );
    let weight = summary.map_or(0.0, |s| s.weight());
    let confidence = round((0.15 + 0.6 * coverage.clamp(0.0, 1.0) + 0.25 * weight).min(1.0), 2);
    RankedModel {
        id: card.id.clone(),
        name: card.name.clone(),
        provider: card.provider.clone(),
        score: round(blended, 2),
        category,
        pricing: card.pricing,
        confidence,
        reason: Reason {
            text,
            category,
            category_score: round(score, 2),
            coverage: round(coverage, 3),
            coverage_adjustment: round(coverage_adj, 2),
            price_per_m: card.pricing.prompt_per_m,
            completion_price_per_m: card.pricing.completion_per_m,
            feedback_adjustment: round(feedback_adj, 2),
            feedback_count: summary.map_or(0, |s| s.count),
            feedback_mean: summary.map(|s| round(s.mean, 2)),
            context_boost: round(context_boost, 2),
            context_metrics: if context_boost == 0.0 {
                Vec::new()
            } else {
                boost
                    .evidence
                    .into_iter()
                    .map(|(metric, normalized)| MetricValue { metric, normalized })
                    .collect()
            },
            blended_score: round(blended, 2),
            rank,
            qualified,
            budget: request.budget,
        },
    }
}

fn needs_text(request: &RouteRequest) -> String {
    let needs = &request.needs;
    let mut list = Vec::new();
    if needs.vision {
        list.push("vision".to_owned());
    }
    if let Some(tokens) = needs.long_context {
        list.push(format!("≥{tokens} tokens of context"));
    }
    if needs.tools {
        list.push("tools".to_owned());
    }
    if needs.structured_output {
        list.push("structured output".to_owned());
    }
    if list.is_empty() {
        String::new()
    } else {
        format!(" with {}", list.join(", "))
    }
}
