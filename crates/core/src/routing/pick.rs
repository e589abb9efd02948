//! `pick`: the single best model for a request, with its reason and the runner-ups.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::{Category, Pricing};

use super::error::RoutingError;
use super::rank::{rank, Ranking};
use super::reason::{explain, RankedModel, Reason};
use super::request::{RouteContext, RouteRequest};
use super::worker::WorkerSuggestion;

/// How many runner-ups a pick lists.
pub const ALTERNATIVES: usize = 4;

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
    /// The next best models, best first, each with its own reason.
    pub alternatives: Vec<RankedModel>,
    /// For a coding task, the worker that would run it here (the engine fills it in).
    #[serde(default)]
    pub worker: Option<WorkerSuggestion>,
}

/// Picks the highest blended score among the models that are scored in the category, meet
/// the needs, fit the budget and are usable (unless `any_provider`).
///
/// # Errors
/// [`RoutingError::NoCandidate`] when no model passes, with the count each filter removed.
pub fn pick(request: &RouteRequest, ctx: &RouteContext<'_>) -> Result<Pick, RoutingError> {
    let ranking = rank(request, ctx, ALTERNATIVES + 1, false);
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
                ctx.feedback,
                &ranking.metrics,
            ))
        })
        .collect()
}
