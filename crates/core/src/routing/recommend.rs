//! `recommend`: the best N models with provider diversity.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::error::RoutingError;
use super::pick::explain_all;
use super::rank::rank;
use super::reason::RankedModel;
use super::request::{Rejections, RouteContext, RouteRequest};

/// The largest `count` recommend accepts.
pub const MAX_RECOMMENDATIONS: u32 = 10;

/// A recommendation set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// The category ranked in.
    pub category: Category,
    /// Best first. One model per provider is taken first (the best of each), then the
    /// remaining places are filled by score; fewer than asked when fewer models qualify.
    pub models: Vec<RankedModel>,
    /// Models that passed every filter.
    pub qualified: u32,
    /// Why the others were left out.
    pub rejected: Rejections,
}

/// Recommends the best `count` (1–10) models for `request`.
///
/// # Errors
/// [`RoutingError::InvalidCount`] outside 1–10; [`RoutingError::NoCandidate`] when no model
/// passes the filters.
pub fn recommend(
    request: &RouteRequest,
    count: u32,
    ctx: &RouteContext<'_>,
) -> Result<Recommendation, RoutingError> {
    if !(1..=MAX_RECOMMENDATIONS).contains(&count) {
        return Err(RoutingError::InvalidCount(count));
    }
    let ranking = rank(request, ctx, count as usize, true);
    if ranking.selected.is_empty() {
        return Err(RoutingError::NoCandidate {
            category: request.category,
            rejected: ranking.rejections.describe(request.category),
        });
    }
    Ok(Recommendation {
        category: request.category,
        models: explain_all(&ranking, request, ctx),
        qualified: ranking.qualified,
        rejected: ranking.rejections,
    })
}
