//! The ranking loop shared by pick and recommend: filter, score, select the top few.
//!
//! One pass over the catalog does the filtering and the cheap part of the score (category
//! score, coverage and feedback adjustments); nothing in it allocates besides pushing a
//! 16-byte candidate. The context boost, which reads a model's benchmark list, is computed
//! only for candidates close enough to the top to be moved by it (it is bounded), and the
//! top few are chosen by partial selection (`select_nth_unstable_by`), not a full sort.

use std::cmp::Ordering;

use crate::catalog::card::ModelCard;

use super::context::{ContextMetrics, ContextRules};
use super::hash::FxHashMap;
use super::request::{meets_needs, Rejections, RouteContext, RouteRequest};

/// Score points a model with no evidence at all would lose; scaled by missing coverage.
pub const COVERAGE_PENALTY: f64 = 8.0;

/// The score points a model loses for the share of its category's evidence it lacks.
pub fn coverage_adjustment(coverage: f64) -> f64 {
    -COVERAGE_PENALTY * (1.0 - coverage.clamp(0.0, 1.0))
}

/// A candidate: index into the catalog and its score parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub index: u32,
    /// Category score + coverage and feedback adjustments.
    pub base: f64,
    pub boost: f64,
}

impl Scored {
    #[inline]
    pub fn blended(&self) -> f64 {
        self.base + self.boost
    }
}

/// The result of ranking.
pub(crate) struct Ranking<'r> {
    /// Best first.
    pub selected: Vec<Scored>,
    /// Models that passed every filter.
    pub qualified: u32,
    pub rejections: Rejections,
    pub metrics: ContextMetrics<'r>,
}

/// Ranks the catalog for `request` and keeps the best `want`; with `diverse`, the best model
/// of each provider comes first and the rest is filled by score.
pub(crate) fn rank<'r>(
    request: &'r RouteRequest,
    ctx: &RouteContext<'_>,
    want: usize,
    diverse: bool,
) -> Ranking<'r> {
    let catalog = ctx.catalog;
    let category = request.category;
    let feedback_on = ctx.feedback.has_category(category);
    let mut rejections = Rejections::default();
    let mut candidates: Vec<Scored> = Vec::with_capacity(catalog.len().min(4096));
    for (index, card) in catalog.iter().enumerate() {
        let Some(score) = card.categories.get(&category).filter(|s| s.score.is_finite()) else {
            rejections.not_in_category += 1;
            continue;
        };
        if !meets_needs(card, &request.needs, &mut rejections) {
            continue;
        }
        if !request.budget.fits(&card.pricing) {
            rejections.over_budget += 1;
            continue;
        }
        if !request.any_provider && !(ctx.usable)(card) {
            rejections.unusable += 1;
            continue;
        }
        let mut base = score.score + coverage_adjustment(score.coverage);
        if feedback_on {
            if let Some(summary) = ctx.feedback.summary(&card.id, category) {
                base += summary.adjustment();
            }
        }
        let Ok(index) = u32::try_from(index) else { break };
        candidates.push(Scored { index, base, boost: 0.0 });
    }
    let qualified = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
    let metrics = ContextRules::builtin().metrics_for(&request.stack);
    if metrics.is_active() {
        apply_boosts(&mut candidates, catalog, request, &metrics, want, diverse);
    }
    let order = |a: &Scored, b: &Scored| compare(a, b, catalog, request);
    let selected = if diverse {
        select_diverse(candidates, catalog, want, &order)
    } else {
        top(candidates, want, &order)
    };
    Ranking { selected, qualified, rejections, metrics }
}

/// Best first: blended score, then coverage, then the lower input price, then the id.
fn compare(a: &Scored, b: &Scored, catalog: &[ModelCard], request: &RouteRequest) -> Ordering {
    b.blended().total_cmp(&a.blended()).then_with(|| {
        let (Some(ca), Some(cb)) = (catalog.get(a.index as usize), catalog.get(b.index as usize))
        else {
            return a.index.cmp(&b.index);
        };
        let coverage =
            |c: &ModelCard| c.categories.get(&request.category).map_or(0.0, |s| s.coverage);
        let price = |c: &ModelCard| c.pricing.prompt_per_m.unwrap_or(f64::INFINITY);
        coverage(cb)
            .total_cmp(&coverage(ca))
            .then_with(|| price(ca).total_cmp(&price(cb)))
            .then_with(|| ca.id.cmp(&cb.id))
    })
}

/// The best `want` of `candidates`, sorted.
fn top(
    mut candidates: Vec<Scored>,
    want: usize,
    order: &impl Fn(&Scored, &Scored) -> Ordering,
) -> Vec<Scored> {
    if want == 0 {
        return Vec::new();
    }
    if candidates.len() > want {
        candidates.select_nth_unstable_by(want - 1, order);
        candidates.truncate(want);
    }
    candidates.sort_by(order);
    candidates
}

/// The best of each provider first (up to `want`), then the best of the rest.
fn select_diverse(
    candidates: Vec<Scored>,
    catalog: &[ModelCard],
    want: usize,
    order: &impl Fn(&Scored, &Scored) -> Ordering,
) -> Vec<Scored> {
    let provider = |s: &Scored| catalog.get(s.index as usize).map_or("", |c| c.provider.as_str());
    let mut best_of: FxHashMap<&str, Scored> = FxHashMap::default();
    for candidate in &candidates {
        match best_of.get_mut(provider(candidate)) {
            Some(best) if order(candidate, best) == Ordering::Less => *best = *candidate,
            Some(_) => {}
            None => {
                best_of.insert(provider(candidate), *candidate);
            }
        }
    }
    let firsts: Vec<Scored> = best_of.into_values().collect();
    let mut chosen = top(firsts, want, order);
    if chosen.len() < want {
        let missing = want - chosen.len();
        let rest: Vec<Scored> =
            candidates.into_iter().filter(|c| !chosen.iter().any(|s| s.index == c.index)).collect();
        chosen.extend(top(rest, missing, order));
        chosen.sort_by(order);
    }
    chosen
}

/// Adds the context boost to every candidate the boost could move into the selection:
/// those within twice the largest boost of the `want`-th best (and, with `diverse`, of their
/// provider's best).
fn apply_boosts(
    candidates: &mut [Scored],
    catalog: &[ModelCard],
    request: &RouteRequest,
    metrics: &ContextMetrics<'_>,
    want: usize,
    diverse: bool,
) {
    let margin = 2.0 * metrics.max_boost;
    let reach = if diverse { want.saturating_mul(2) } else { want };
    let global = if reach == 0 || candidates.len() <= reach {
        f64::NEG_INFINITY
    } else {
        let mut bases: Vec<f64> = candidates.iter().map(|c| c.base).collect();
        let (_, kth, _) = bases.select_nth_unstable_by(reach - 1, |a, b| b.total_cmp(a));
        *kth - margin
    };
    let mut provider_best: FxHashMap<&str, f64> = FxHashMap::default();
    if diverse {
        for candidate in candidates.iter() {
            let Some(card) = catalog.get(candidate.index as usize) else { continue };
            let best = provider_best.entry(card.provider.as_str()).or_insert(f64::NEG_INFINITY);
            *best = best.max(candidate.base);
        }
    }
    for candidate in candidates.iter_mut() {
        let Some(card) = catalog.get(candidate.index as usize) else { continue };
        let near_provider_best = diverse
            && provider_best
                .get(card.provider.as_str())
                .is_some_and(|best| candidate.base >= best - margin);
        if candidate.base < global && !near_provider_best {
            continue;
        }
        let score = card.categories.get(&request.category).map_or(0.0, |s| s.score);
        candidate.boost = metrics.boost(card, score).points;
    }
}
