//! Why a model was chosen: the numbers behind its blended score, and a sentence quoting them.

use std::fmt::Write;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::{Category, ModelCard, Pricing};

use super::budget::Budget;
use super::context::ContextMetrics;
use super::feedback::FeedbackSummary;
use super::learned::{prior_from_score, Evidence};
use super::rank::{coverage_adjustment, learned_points, Scored};
use super::request::{RouteContext, RouteRequest};
use super::worker::WorkerSuggestion;

/// One benchmark value behind a context boost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MetricValue {
    /// Source-qualified metric id (`aa.livecodebench`).
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
    /// The category ranked in.
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
    /// How many ratings the adjustment rests on.
    pub feedback_count: u32,
    /// Their mean (1–5), when rated.
    pub feedback_mean: Option<f64>,
    /// Points added (or removed) by the stack's own metrics.
    pub context_boost: f64,
    /// The metric values behind the boost.
    pub context_metrics: Vec<MetricValue>,
    /// Points added (or removed) by recorded outcomes: the move from the benchmark prior to
    /// the learned estimate (`evidence`), in score points.
    pub learned_adjustment: f64,
    /// categoryScore + coverageAdjustment + feedbackAdjustment + contextBoost +
    /// learnedAdjustment.
    pub blended_score: f64,
    /// The estimated chance of a verified success, 0–1 (the blended score read as a
    /// probability).
    pub estimated_success: f64,
    /// Blended USD per million tokens divided by `estimatedSuccess`: what `pick` ranks by
    /// among the models that clear the tier's quality floor. `None` when the price is unknown.
    pub cost_per_success: Option<f64>,
    /// 1-based place in the answer (pick: best first, then the alternatives).
    pub rank: u32,
    /// How many models passed every filter.
    pub qualified: u32,
    /// The budget the ranking respected.
    pub budget: Budget,
}

/// A ranked model with its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RankedModel {
    /// Catalog id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Provider slug.
    pub provider: String,
    /// Blended score.
    pub score: f64,
    /// The category ranked in.
    pub category: Category,
    /// Its prices.
    pub pricing: Pricing,
    /// 0–1: how much evidence stands behind the score (coverage and number of ratings).
    pub confidence: f64,
    /// The numbers behind its place.
    pub reason: Reason,
    /// The learned estimate and the recorded outcomes behind it.
    pub evidence: Evidence,
    /// For a coding task, the worker that would run it here (the engine fills it in).
    #[serde(default)]
    pub worker: Option<WorkerSuggestion>,
}

fn round(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (value * factor).round() / factor
}

/// Writes `value` with `decimals` places (and a `+` for positives when `signed`), using
/// integer formatting: float formatting with a precision is the slowest part of a reason.
fn fixed(out: &mut String, value: f64, decimals: u32, signed: bool) {
    if !value.is_finite() {
        let _ = write!(out, "{value}");
        return;
    }
    let scale = 10u64.pow(decimals);
    let scaled = (value.abs() * scale as f64).round();
    if scaled >= u64::MAX as f64 {
        let _ = write!(out, "{value}");
        return;
    }
    let scaled = scaled as u64;
    if value < 0.0 && scaled != 0 {
        out.push('-');
    } else if signed {
        out.push('+');
    }
    let _ = write!(out, "{}", scaled / scale);
    if decimals > 0 {
        let _ = write!(
            out,
            ".{:0width$}",
            scaled % scale,
            width = decimals as usize
        );
    }
}

fn money(out: &mut String, price: Option<f64>) {
    match price {
        Some(0.0) => out.push_str("free"),
        Some(p) => {
            out.push('$');
            fixed(out, p, if p < 0.1 { 3 } else { 2 }, false);
            out.push_str("/M blended");
        }
        None => out.push_str("price unknown"),
    }
}

/// Builds the ranked entry for a selected candidate.
pub(crate) fn explain(
    card: &ModelCard,
    scored: &Scored,
    rank: u32,
    qualified: u32,
    request: &RouteRequest,
    ctx: &RouteContext<'_>,
    metrics: &ContextMetrics<'_>,
) -> RankedModel {
    let (feedback, learned) = (ctx.feedback, ctx.learned);
    let category = request.category;
    let (score, coverage) = card
        .categories
        .get(&category)
        .map_or((0.0, 0.0), |s| (s.score, s.coverage));
    let coverage_adj = coverage_adjustment(coverage);
    let summary = feedback.summary(&card.id, category);
    let feedback_adj = summary.map_or(0.0, |s| s.adjustment());
    let boost = metrics.boost(card, score);
    let context_boost = boost.points;
    let blended = scored.blended();
    let before_outcomes = score + coverage_adj + feedback_adj + context_boost;
    let learned_adj = learned_points(learned, &card.id, category, before_outcomes);
    let evidence = learned.evidence(&card.id, category, prior_from_score(before_outcomes));
    let estimated_success = prior_from_score(blended);
    let cost_per_success = card
        .pricing
        .blended_per_m()
        .map(|price| price / estimated_success);

    let text = reason_text(&ReasonParts {
        request,
        card,
        score,
        coverage,
        coverage_adj,
        summary,
        feedback_adj,
        context_boost,
        evidence: &boost.evidence,
        outcomes: &evidence,
        learned_adj,
        blended,
        cost_per_success,
        rank,
        qualified,
    });
    let weight = summary.map_or(0.0, |s| s.weight());
    let confidence = round(
        (0.15 + 0.6 * coverage.clamp(0.0, 1.0) + 0.25 * weight).min(1.0),
        2,
    );
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
            learned_adjustment: round(learned_adj, 2),
            blended_score: round(blended, 2),
            estimated_success: round(estimated_success, 3),
            cost_per_success: cost_per_success.map(|c| round(c, 3)),
            rank,
            qualified,
            budget: request.budget,
        },
        evidence,
        worker: None,
    }
}

struct ReasonParts<'a> {
    request: &'a RouteRequest,
    card: &'a ModelCard,
    score: f64,
    coverage: f64,
    coverage_adj: f64,
    summary: Option<FeedbackSummary>,
    feedback_adj: f64,
    context_boost: f64,
    evidence: &'a [(String, f64)],
    outcomes: &'a Evidence,
    learned_adj: f64,
    blended: f64,
    cost_per_success: Option<f64>,
    rank: u32,
    qualified: u32,
}

/// "coding score 87.3 at 80% coverage; −1.6 for missing evidence; $6.00/M blended; feedback
/// −4.3 from 1 rating (mean 1.0); context +1.2 for rust (aa.livecodebench 91); outcomes −3.1
/// from 2 of 5 verified; blended 77.5 ($7.74/M per verified success): #1 of 57 coding models
/// within medium budget ($0–5/M blended) with vision".
fn reason_text(p: &ReasonParts<'_>) -> String {
    let category = p.request.category.id();
    let mut text = String::with_capacity(192);
    text.push_str(category);
    text.push_str(" score ");
    fixed(&mut text, p.score, 1, false);
    text.push_str(" at ");
    fixed(&mut text, p.coverage * 100.0, 0, false);
    text.push_str("% coverage");
    if p.coverage_adj < -0.05 {
        text.push_str("; ");
        fixed(&mut text, p.coverage_adj, 1, true);
        text.push_str(" for missing evidence");
    }
    text.push_str("; ");
    money(&mut text, p.card.pricing.blended_per_m());
    if let Some(s) = p.summary {
        text.push_str("; feedback ");
        fixed(&mut text, p.feedback_adj, 1, true);
        let plural = if s.count == 1 { "" } else { "s" };
        let _ = write!(text, " from {} rating{plural} (mean ", s.count);
        fixed(&mut text, s.mean, 1, false);
        text.push(')');
    }
    if p.context_boost != 0.0 {
        text.push_str("; context ");
        fixed(&mut text, p.context_boost, 1, true);
        let _ = write!(text, " for {} (", p.request.stack.join(", "));
        for (index, (metric, value)) in p.evidence.iter().enumerate() {
            if index > 0 {
                text.push_str(", ");
            }
            text.push_str(metric);
            text.push(' ');
            fixed(&mut text, *value, 0, false);
        }
        text.push(')');
    }
    let recorded = p.outcomes.successes + p.outcomes.failures;
    if recorded > 0 {
        text.push_str("; outcomes ");
        fixed(&mut text, p.learned_adj, 1, true);
        let _ = write!(
            text,
            " from {} of {recorded} verified",
            p.outcomes.successes
        );
    }
    text.push_str("; blended ");
    fixed(&mut text, p.blended, 1, false);
    if let Some(cost) = p.cost_per_success {
        text.push_str(" ($");
        fixed(&mut text, cost, if cost < 0.1 { 3 } else { 2 }, false);
        text.push_str("/M per verified success)");
    }
    let _ = write!(
        text,
        ": #{} of {} {category} models within {}{}",
        p.rank,
        p.qualified,
        p.request.budget.describe(),
        needs_text(p.request)
    );
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    fn show(value: f64, decimals: u32, signed: bool) -> String {
        let mut out = String::new();
        fixed(&mut out, value, decimals, signed);
        out
    }

    #[test]
    fn fixed_matches_std_formatting() {
        for value in [
            0.0, 0.04, 0.06, 1.26, 67.0, 99.94, -4.2857, -0.04, 1234.5678, 3.0,
        ] {
            assert_eq!(
                show(value, 1, false),
                format!("{:.1}", value).replace("-0.0", "0.0"),
                "{value}"
            );
            assert_eq!(
                show(value, 2, false),
                format!("{value:.2}").replace("-0.00", "0.00"),
                "{value}"
            );
        }
        // Ties round away from zero, like the `f64::round` behind the numeric fields.
        assert_eq!(show(1.25, 1, false), "1.3");
        assert_eq!(show(4.25, 1, true), "+4.3");
        assert_eq!(show(-4.25, 1, true), "-4.3");
        assert_eq!(show(75.0, 0, false), "75");
        assert_eq!(show(f64::NAN, 1, false), "NaN");
    }
}
