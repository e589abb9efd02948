//! The ranking loop shared by pick and recommend: filter, score, select the top few.
//!
//! The catalog is filtered in chunks, two passes each: budgets and category scores first in
//! a tight loop (the category score is behind a pointer in every card, and a loop doing
//! little else lets those memory loads overlap), then the other filters and the cheap part of the score (category score and
//! coverage); nothing in it allocates besides pushing a small candidate. Feedback and the
//! context boost, which need a hash probe or a walk over a model's benchmarks, are both
//! bounded, so they are computed only for candidates close enough to the top to be moved by
//! them. The top few are chosen by partial selection (`select_nth_unstable_by`), not a full
//! sort.

use std::cmp::Ordering;

use crate::catalog::card::{Category, ModelCard};
use crate::hash::FastMap;

use super::context::{ContextMetrics, ContextRules};
use super::learned::{prior_from_score, LearnedIndex};
use super::request::{meets_needs, Rejections, RouteContext, RouteRequest};

/// Score points a model with no evidence at all would lose; scaled by missing coverage.
pub const COVERAGE_PENALTY: f64 = 8.0;

/// The score points a model loses for the share of its category's evidence it lacks.
pub fn coverage_adjustment(coverage: f64) -> f64 {
    -COVERAGE_PENALTY * (1.0 - coverage.clamp(0.0, 1.0))
}

/// Models per chunk of the two filtering passes.
const CHUNK: usize = 128;

/// A model's standing after the first pass.
#[derive(Debug, Clone, Copy)]
enum Member {
    OverBudget,
    NotScored,
    /// Category score and coverage.
    Scored(f64, f64),
}

/// A candidate: index into the catalog and its score parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub index: u32,
    /// Provider slot (only filled for diverse rankings).
    provider: u32,
    /// Category score + coverage adjustment.
    pub base: f64,
    /// Feedback adjustment + context boost + learned points (0 for candidates too far from
    /// the top).
    pub adjust: f64,
}

impl Scored {
    #[inline]
    pub fn blended(&self) -> f64 {
        self.base + self.adjust
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
    let mut rejections = Rejections::default();
    let mut candidates: Vec<Scored> = Vec::with_capacity(catalog.len().min(4096));
    let mut providers: FastMap<&str, u32> = FastMap::default();
    let mut members: Vec<Member> = Vec::with_capacity(CHUNK.min(catalog.len()));
    // Chunks small enough that the second pass finds the cards the first one brought into
    // cache, large enough that the first pass keeps many loads in flight.
    for (chunk_index, chunk) in catalog.chunks(CHUNK).enumerate() {
        members.clear();
        // The price is inside the card, the category score behind a pointer: checking the
        // budget first spares the pointer chase for every model outside it.
        members.extend(chunk.iter().map(|card| {
            if !request.budget.fits(&card.pricing) {
                return Member::OverBudget;
            }
            card.categories
                .get(&category)
                .filter(|s| s.score.is_finite())
                .map_or(Member::NotScored, |s| Member::Scored(s.score, s.coverage))
        }));
        for ((offset, card), member) in chunk.iter().enumerate().zip(&members) {
            let (score, coverage) = match *member {
                Member::Scored(score, coverage) => (score, coverage),
                Member::OverBudget => {
                    rejections.over_budget += 1;
                    continue;
                }
                Member::NotScored => {
                    rejections.not_in_category += 1;
                    continue;
                }
            };
            if !meets_needs(card, &request.needs, &mut rejections) {
                continue;
            }
            if !request.any_provider && !(ctx.usable)(card) {
                rejections.unusable += 1;
                continue;
            }
            let Ok(index) = u32::try_from(chunk_index * CHUNK + offset) else {
                break;
            };
            let provider = if diverse {
                let next = u32::try_from(providers.len()).unwrap_or(u32::MAX);
                *providers.entry(card.provider.as_str()).or_insert(next)
            } else {
                0
            };
            let base = score + coverage_adjustment(coverage);
            candidates.push(Scored {
                index,
                provider,
                base,
                adjust: 0.0,
            });
        }
    }
    let qualified = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
    let metrics = ContextRules::builtin().metrics_for(&request.stack);
    refine(
        &mut candidates,
        ctx,
        request,
        &metrics,
        want,
        diverse.then_some(providers.len()),
    );
    let order = |a: &Scored, b: &Scored| compare(a, b, catalog, request);
    let selected = if diverse {
        select_diverse(candidates, providers.len(), want, &order)
    } else {
        top(candidates, want, &order)
    };
    Ranking {
        selected,
        qualified,
        rejections,
        metrics,
    }
}

/// Best first: blended score, then coverage, then the lower blended price, then the id.
fn compare(a: &Scored, b: &Scored, catalog: &[ModelCard], request: &RouteRequest) -> Ordering {
    b.blended().total_cmp(&a.blended()).then_with(|| {
        let (Some(ca), Some(cb)) = (catalog.get(a.index as usize), catalog.get(b.index as usize))
        else {
            return a.index.cmp(&b.index);
        };
        let coverage = |c: &ModelCard| {
            c.categories
                .get(&request.category)
                .map_or(0.0, |s| s.coverage)
        };
        let price = |c: &ModelCard| c.pricing.blended_per_m().unwrap_or(f64::INFINITY);
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
    providers: usize,
    want: usize,
    order: &impl Fn(&Scored, &Scored) -> Ordering,
) -> Vec<Scored> {
    let mut best_of: Vec<Option<Scored>> = vec![None; providers];
    for candidate in &candidates {
        let Some(slot) = best_of.get_mut(candidate.provider as usize) else {
            continue;
        };
        match slot {
            Some(best) if order(candidate, best) != Ordering::Less => {}
            _ => *slot = Some(*candidate),
        }
    }
    let firsts: Vec<Scored> = best_of.into_iter().flatten().collect();
    let mut chosen = top(firsts, want, order);
    if chosen.len() < want {
        let missing = want - chosen.len();
        let rest: Vec<Scored> = candidates
            .into_iter()
            .filter(|c| !chosen.iter().any(|s| s.index == c.index))
            .collect();
        chosen.extend(top(rest, missing, order));
        chosen.sort_by(order);
    }
    chosen
}

/// Adds feedback and context boost to every candidate they could move into the selection.
///
/// Both are bounded: feedback by the largest gain and loss among the category's ratings, the
/// boost by `maxBoost`. A candidate further below the `want`-th best (with `providers`: below
/// its provider's best too) than what adjustments can make up cannot be selected, so it is
/// left alone. Feedback goes first (its reach is the wider), then the boost, whose window is
/// measured from the scores with feedback.
fn refine(
    candidates: &mut [Scored],
    ctx: &RouteContext<'_>,
    request: &RouteRequest,
    metrics: &ContextMetrics<'_>,
    want: usize,
    providers: Option<usize>,
) {
    let category = request.category;
    let boost = if metrics.is_active() {
        metrics.max_boost
    } else {
        0.0
    };
    if ctx.feedback.has_category(category) {
        let (gain, loss) = ctx.feedback.adjustment_bounds(category);
        within_reach(
            candidates,
            want,
            providers,
            gain + loss + 2.0 * boost,
            |candidate| {
                let Some(card) = ctx.catalog.get(candidate.index as usize) else {
                    return;
                };
                if let Some(summary) = ctx.feedback.summary(&card.id, category) {
                    candidate.adjust += summary.adjustment();
                }
            },
        );
    }
    if metrics.is_active() {
        within_reach(candidates, want, providers, 2.0 * boost, |candidate| {
            let Some(card) = ctx.catalog.get(candidate.index as usize) else {
                return;
            };
            let score = card.categories.get(&category).map_or(0.0, |s| s.score);
            candidate.adjust += metrics.points(card, score);
        });
    }
    // Last, because the prior it starts from is the score with ratings and context.
    if ctx.learned.has_category(category) {
        let reach = LEARNED_POINTS * ctx.learned.reach(category);
        within_reach(candidates, want, providers, 2.0 * reach, |candidate| {
            let Some(card) = ctx.catalog.get(candidate.index as usize) else {
                return;
            };
            candidate.adjust +=
                learned_points(ctx.learned, &card.id, category, candidate.blended());
        });
    }
}

/// Score points per unit of success probability: a blended score of 73 is a prior of 0.73.
pub(crate) const LEARNED_POINTS: f64 = 100.0;

/// The points recorded outcomes add to (or take from) a model whose score is `blended`
/// before them: the move from its prior to its estimate, in score points.
pub(crate) fn learned_points(
    learned: &LearnedIndex,
    model_id: &str,
    category: Category,
    blended: f64,
) -> f64 {
    let prior = prior_from_score(blended);
    LEARNED_POINTS * (learned.estimate(model_id, category, prior) - prior)
}

/// Calls `adjust` on every candidate whose blended score is within `window` of the
/// `want`-th best (twice `want` when diverse), or of its provider's best when that provider's
/// best is itself within `window` of the `want`-th best provider.
fn within_reach(
    candidates: &mut [Scored],
    want: usize,
    providers: Option<usize>,
    window: f64,
    mut adjust: impl FnMut(&mut Scored),
) {
    if candidates.is_empty() {
        return;
    }
    let reach = if providers.is_some() {
        want.saturating_mul(2)
    } else {
        want
    };
    let global = if reach == 0 || candidates.len() <= reach {
        f64::NEG_INFINITY
    } else {
        let mut values: Vec<f64> = candidates.iter().map(Scored::blended).collect();
        let (_, kth, _) = values.select_nth_unstable_by(reach - 1, |a, b| b.total_cmp(a));
        *kth - window
    };
    let mut provider_floor: Vec<f64> = vec![f64::NEG_INFINITY; providers.unwrap_or(0)];
    if providers.is_some() {
        for candidate in candidates.iter() {
            if let Some(best) = provider_floor.get_mut(candidate.provider as usize) {
                *best = best.max(candidate.blended());
            }
        }
        // Only providers whose best could be among the `want` best firsts matter.
        let mut bests: Vec<f64> = provider_floor.clone();
        let cut = if want > 0 && bests.len() > want {
            let (_, kth, _) = bests.select_nth_unstable_by(want - 1, |a, b| b.total_cmp(a));
            *kth - window
        } else {
            f64::NEG_INFINITY
        };
        for floor in &mut provider_floor {
            *floor = if *floor < cut {
                f64::INFINITY
            } else {
                *floor - window
            };
        }
    }
    for candidate in candidates.iter_mut() {
        let value = candidate.blended();
        let near_provider_best = provider_floor
            .get(candidate.provider as usize)
            .is_some_and(|floor| value >= *floor);
        if value >= global || near_provider_best {
            adjust(candidate);
        }
    }
}
