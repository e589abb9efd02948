//! `pick`: the single best model for a request, with its reason and the runner-ups.

use serde::{Deserialize, Serialize};
use specta::Type;

use std::cmp::Ordering;

use crate::catalog::card::{Category, ModelCard, Pricing};

use super::budget::BudgetTier;
use super::error::RoutingError;
use super::learned::{prior_from_score, Evidence};
use super::rank::{rank, Ranking, Scored};
use super::reason::{explain, RankedModel, Reason};
use super::request::{RouteContext, RouteRequest};
use super::worker::WorkerSuggestion;

/// How many runner-ups a pick lists.
pub const ALTERNATIVES: usize = 4;
/// How many of the best-scored models a pick weighs by cost.
pub const SHORTLIST: usize = 32;

/// The chosen model, why, and what came next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Pick {
    /// Catalog id (`anthropic/claude-opus-4.5`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Provider slug.
    pub provider: String,
    /// Blended score.
    pub score: f64,
    /// The category it was picked for.
    pub category: Category,
    /// Its prices.
    pub pricing: Pricing,
    /// 0–1, from coverage and the number of ratings.
    pub confidence: f64,
    /// The numbers behind the choice.
    pub reason: Reason,
    /// The learned estimate and the recorded outcomes behind it.
    pub evidence: Evidence,
    /// The next best models, best first, each with its own reason.
    pub alternatives: Vec<RankedModel>,
    /// For a coding task, the worker that would run it here (the engine fills it in).
    #[serde(default)]
    pub worker: Option<WorkerSuggestion>,
}

/// Picks the cheapest model per verified success among the models that are scored in the
/// category, meet the needs, fit the budget and are usable (unless `any_provider`).
///
/// The [`SHORTLIST`] best by blended score (benchmarks, ratings, context, recorded outcomes)
/// are read as success estimates; those within the tier's quality floor of the best
/// ([`BudgetTier::quality_floor`]) come first, cheapest per verified success first (blended
/// price ÷ estimate), then the rest by score.
///
/// # Errors
/// [`RoutingError::NoCandidate`] when no model passes, with the count each filter removed.
pub fn pick(request: &RouteRequest, ctx: &RouteContext<'_>) -> Result<Pick, RoutingError> {
    let mut ranking = rank(request, ctx, SHORTLIST, false);
    by_cost_per_success(&mut ranking.selected, ctx.catalog, request.budget.tier);
    ranking.selected.truncate(ALTERNATIVES + 1);
    let mut ranked = explain_all(&ranking, request, ctx).into_iter();
    let Some(best) = ranked.next() else {
        return Err(RoutingError::NoCandidate {
            category: request.category,
            rejected: ranking.rejections.describe(request.category),
        });
    };
    Ok(Pick {
        id: best.id,
        name: best.name,
        provider: best.provider,
        score: best.score,
        category: best.category,
        pricing: best.pricing,
        confidence: best.confidence,
        reason: best.reason,
        evidence: best.evidence,
        alternatives: ranked.collect(),
        worker: None,
    })
}

/// Reasons for every selected model, in ranking order.
pub(crate) fn explain_all(
    ranking: &Ranking<'_>,
    request: &RouteRequest,
    ctx: &RouteContext<'_>,
) -> Vec<RankedModel> {
    ranking
        .selected
        .iter()
        .zip(1u32..)
        .filter_map(|(scored, place)| {
            let card = ctx.catalog.get(scored.index as usize)?;
            Some(explain(
                card,
                scored,
                place,
                ranking.qualified,
                request,
                ctx,
                &ranking.metrics,
            ))
        })
        .collect()
}

/// Orders a score-ranked shortlist for `pick`: the models clearing the quality floor first,
/// cheapest per verified success first (ties: the higher score), then the others as ranked.
fn by_cost_per_success(selected: &mut [Scored], catalog: &[ModelCard], tier: BudgetTier) {
    let Some(best) = selected.first() else {
        return;
    };
    let floor = prior_from_score(best.blended()) * tier.quality_floor();
    let eligible = |s: &Scored| prior_from_score(s.blended()) >= floor;
    let cost = |s: &Scored| {
        catalog
            .get(s.index as usize)
            .and_then(|card| card.pricing.blended_per_m())
            .map_or(f64::INFINITY, |price| price / prior_from_score(s.blended()))
    };
    // Stable: the models below the floor keep their score order.
    selected.sort_by(|a, b| match (eligible(a), eligible(b)) {
        (true, true) => cost(a)
            .total_cmp(&cost(b))
            .then_with(|| b.blended().total_cmp(&a.blended())),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => Ordering::Equal,
    });
}
