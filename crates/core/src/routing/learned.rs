//! Learned success estimates: for each (category, model), how likely a verified success is.
//!
//! The estimate is a Beta posterior. Its prior is the benchmark score read as a probability
//! (a blended score of 73 is a prior of 0.73), worth [`PRIOR_OUTCOMES`] outcomes; each
//! recorded outcome (verification, gates and the user's decision, from the journal) adds its
//! weight, halved every [`HALF_LIFE_DAYS`] days of age so that a model that changed is not
//! judged forever on last season's results. With no outcomes the estimate is the prior, so a
//! fresh profile routes exactly on the benchmarks.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;
use crate::hash::FastMap;
use crate::outcomes::TaskFeatures;
use crate::run::savings::LearningSavings;

/// How many outcomes the benchmark prior weighs as much as.
pub const PRIOR_OUTCOMES: f64 = 4.0;
/// An outcome's weight halves with every this many days of age.
pub const HALF_LIFE_DAYS: f64 = 30.0;
/// Outcomes a rung needs before a cascade may skip it on them.
pub const MIN_SKIP_EVIDENCE: u32 = 3;
/// How much an agent's own outcomes weigh in the estimates it routes on, against everyone
/// else's: an agent's history says most about the work it sends.
pub const OWN_HISTORY_WEIGHT: f64 = 2.0;

/// How many outcomes a feature's own rate is shrunk towards the category's estimate with: a
/// feature seen once moves the prediction a little, one seen often moves it a lot.
pub const FEATURE_PSEUDO_OUTCOMES: f64 = 2.0;

const DAY_MS: f64 = 86_400_000.0;

/// A blended score (0–100) read as a prior success probability, kept off 0 and 1 so that
/// evidence can always move it.
pub fn prior_from_score(score: f64) -> f64 {
    if score.is_finite() {
        (score / 100.0).clamp(0.02, 0.98)
    } else {
        0.02
    }
}

/// What the estimate for one model in one category rests on (`pick --json`'s `evidence`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The benchmark prior, 0–1.
    pub prior: f64,
    /// Recorded verified successes.
    pub successes: u32,
    /// Recorded failures (verification, a gate, a failure signal, or the user said no).
    pub failures: u32,
    /// When the oldest outcome counted finished (RFC 3339); `None` without outcomes.
    pub since: Option<String>,
    /// The estimate after the outcomes, 0–1.
    pub estimate: f64,
    /// The outcomes' weight after their age discount (≤ successes + failures).
    pub weight: f64,
}

impl Evidence {
    /// `2 of 9 verified for coding` (or `no outcomes yet for coding`).
    pub fn describe(&self, category: Category) -> String {
        let total = self.successes + self.failures;
        if total == 0 {
            format!("no outcomes yet for {}", category.id())
        } else {
            format!(
                "{} of {total} verified for {}",
                self.successes,
                category.id()
            )
        }
    }
}

/// How routing learns, as Settings and `outcomes reset` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LearningSettings {
    /// Outcomes that finished before this time (RFC 3339, the last reset) are ignored;
    /// `None`: every outcome counts.
    pub since: Option<String>,
    /// A routed cascade skips rungs estimated below this for the task's category (0–1).
    pub skip_below: f64,
    /// Outcomes currently learned from.
    pub outcomes: u32,
    /// What was learned, per category and model: most outcomes first.
    pub estimates: Vec<LearnedEstimate>,
    /// What the outcomes counted cost against the static picks and the premium baseline.
    pub savings: LearningSavings,
}

/// One agent's routing preferences (Settings → Agents): its own history, which weighs double
/// in what it routes, and the model its runs start with when it names none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentPreference {
    /// The launcher name (an MCP client's `clientInfo` name, `cli`, `app`).
    pub agent: String,
    /// The model (or, for code, the worker) a run it launches starts with when it names
    /// none: a single run's model, a routed cascade's first rung.
    pub start_model: Option<String>,
    /// Its recorded outcomes since the last reset.
    pub outcomes: u32,
    /// How many of them succeeded.
    pub succeeded: u32,
}

/// The learned estimate of one model in one category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LearnedEstimate {
    /// The task category the outcomes were in.
    pub category: Category,
    /// Catalog id (or the model the built-in worker ran).
    pub model: String,
    /// The prior, the outcomes and the estimate.
    pub evidence: Evidence,
}

impl LearningSettings {
    /// The settings as stored (the reset time in Unix ms) and what `learned` holds, each
    /// model's estimate starting from `prior(model, category)`.
    pub fn new(
        since_ms: Option<i64>,
        skip_below: f64,
        learned: &LearnedIndex,
        prior: impl Fn(&str, Category) -> f64,
        savings: LearningSavings,
    ) -> LearningSettings {
        let mut estimates: Vec<LearnedEstimate> = Category::ALL
            .iter()
            .zip(&learned.by_category)
            .flat_map(|(category, map)| {
                map.keys().map(|model| LearnedEstimate {
                    category: *category,
                    model: model.to_string(),
                    evidence: learned.evidence(model, *category, prior(model, *category)),
                })
            })
            .collect();
        estimates.sort_by(|a, b| {
            let total = |e: &LearnedEstimate| e.evidence.successes + e.evidence.failures;
            total(b)
                .cmp(&total(a))
                .then_with(|| a.category.id().cmp(b.category.id()))
                .then_with(|| a.model.cmp(&b.model))
        });
        let outcomes = estimates
            .iter()
            .map(|e| e.evidence.successes + e.evidence.failures)
            .sum();
        LearningSettings {
            since: since_ms.and_then(rfc3339),
            skip_below,
            outcomes,
            estimates,
            savings,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    successes: u32,
    failures: u32,
    weighted_successes: f64,
    weighted_total: f64,
    oldest_ms: i64,
}

impl Tally {
    fn estimate(&self, prior: f64) -> f64 {
        (PRIOR_OUTCOMES * prior + self.weighted_successes) / (PRIOR_OUTCOMES + self.weighted_total)
    }

    fn starting(finished_ms: i64) -> Tally {
        Tally {
            oldest_ms: finished_ms,
            ..Tally::default()
        }
    }

    fn count(&mut self, succeeded: bool, weight: f64, finished_ms: i64) {
        if succeeded {
            self.successes = self.successes.saturating_add(1);
            self.weighted_successes += weight;
        } else {
            self.failures = self.failures.saturating_add(1);
        }
        self.weighted_total += weight;
        self.oldest_ms = self.oldest_ms.min(finished_ms);
    }
}

/// What a task looks like to the per-task prediction, beyond its category: its language, its
/// size, each stack word and each need (`lang:zh`, `size:long`, `stack:rust`, `needs:tools`).
pub fn task_feature_keys(task: &TaskFeatures) -> Vec<String> {
    let size = match task.task_tokens {
        0..=40 => "short",
        41..=400 => "medium",
        _ => "long",
    };
    let mut keys = vec![format!("lang:{}", task.lang), format!("size:{size}")];
    keys.extend(task.stack.iter().map(|word| format!("stack:{word}")));
    keys.extend(task.needs.iter().map(|need| format!("needs:{need}")));
    keys
}

/// How one feature of the task moved a model's prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FeatureEvidence {
    /// `stack:rust`, `lang:zh`, …
    pub feature: String,
    /// This model's verified successes on tasks of the category with the feature.
    pub successes: u32,
    /// Its failures on them.
    pub failures: u32,
}

/// A model's predicted verified success on one task: the category's estimate, moved by the
/// model's recorded outcomes on tasks that shared this task's features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskPrediction {
    /// The predicted success, 0–1.
    pub estimate: f64,
    /// The category's estimate and outcomes it starts from.
    pub category: Evidence,
    /// The features with outcomes of this model, each with its tally.
    pub features: Vec<FeatureEvidence>,
}

impl TaskPrediction {
    /// Recorded outcomes the prediction rests on: the category's, or the most of one feature.
    pub fn outcomes(&self) -> u32 {
        let category = self.category.successes + self.category.failures;
        let feature = self
            .features
            .iter()
            .map(|f| f.successes + f.failures)
            .max()
            .unwrap_or(0);
        category.max(feature)
    }

    /// `2 of 9 verified for coding; 0 of 4 with stack:rust; predicted 0.12 for this task`.
    pub fn describe(&self, category: Category) -> String {
        let mut text = self.category.describe(category);
        for feature in &self.features {
            text.push_str(&format!(
                "; {} of {} with {}",
                feature.successes,
                feature.successes + feature.failures,
                feature.feature
            ));
        }
        if !self.features.is_empty() {
            text.push_str(&format!("; predicted {:.2} for this task", self.estimate));
        }
        text
    }
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(0.01, 0.99);
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Every outcome of a request's catalog, tallied per category and model. Built once per
/// request from the rows the engine loaded; lookups in the ranking loop are one hash probe.
#[derive(Debug, Clone, Default)]
pub struct LearnedIndex {
    by_category: [FastMap<Box<str>, Tally>; Category::ALL.len()],
    /// Per (model, category, feature): `model \u{1f} category \u{1f} feature`.
    by_feature: FastMap<Box<str>, Tally>,
}

fn feature_key(model_id: &str, category: Category, feature: &str) -> String {
    format!("{model_id}\u{1f}{}\u{1f}{feature}", category.id())
}

/// An outcome's weight after its age discount.
fn aged(weight: f64, finished_ms: i64, now_ms: i64) -> f64 {
    let age_days = (now_ms.saturating_sub(finished_ms)).max(0) as f64 / DAY_MS;
    weight.max(0.0) * 0.5f64.powf(age_days / HALF_LIFE_DAYS)
}

impl LearnedIndex {
    /// An index with no outcomes (routing on the benchmarks alone).
    pub fn none() -> &'static LearnedIndex {
        static EMPTY: OnceLock<LearnedIndex> = OnceLock::new();
        EMPTY.get_or_init(LearnedIndex::default)
    }

    /// Counts one outcome of `model_id` in `category` that finished at `finished_ms`, weighed
    /// by its age at `now_ms`. Outcomes from the future (a clock moved back) count fully.
    pub fn add(
        &mut self,
        model_id: &str,
        category: Category,
        succeeded: bool,
        finished_ms: i64,
        now_ms: i64,
    ) {
        self.add_weighted(model_id, category, succeeded, finished_ms, now_ms, 1.0);
    }

    /// [`LearnedIndex::add`] with the outcome's weight multiplied by `weight` (it still
    /// counts as one success or failure in the evidence).
    pub fn add_weighted(
        &mut self,
        model_id: &str,
        category: Category,
        succeeded: bool,
        finished_ms: i64,
        now_ms: i64,
        weight: f64,
    ) {
        let Some(map) = self.by_category.get_mut(category as usize) else {
            return;
        };
        let weight = aged(weight, finished_ms, now_ms);
        let tally = match map.get_mut(model_id) {
            Some(tally) => tally,
            None => map
                .entry(model_id.into())
                .or_insert(Tally::starting(finished_ms)),
        };
        tally.count(succeeded, weight, finished_ms);
    }

    /// [`LearnedIndex::add_weighted`] in the task's category, and the same outcome tallied
    /// under each of the task's features (see [`task_feature_keys`]) for
    /// [`LearnedIndex::predict`].
    pub fn add_task(
        &mut self,
        model_id: &str,
        task: &TaskFeatures,
        succeeded: bool,
        finished_ms: i64,
        now_ms: i64,
        weight: f64,
    ) {
        self.add_weighted(
            model_id,
            task.category,
            succeeded,
            finished_ms,
            now_ms,
            weight,
        );
        let aged = aged(weight, finished_ms, now_ms);
        for feature in task_feature_keys(task) {
            self.by_feature
                .entry(feature_key(model_id, task.category, &feature).into())
                .or_insert(Tally::starting(finished_ms))
                .count(succeeded, aged, finished_ms);
        }
    }

    /// The predicted verified success of `model_id` on one task: the category's estimate
    /// (from `prior`), moved in log-odds by each of the task's features the model has outcomes
    /// for — by how far the model's rate on tasks with that feature is from its rate on the
    /// whole category (both shrunk towards the estimate by [`FEATURE_PSEUDO_OUTCOMES`], so a
    /// feature every outcome shares moves nothing). A naive Bayes reading of the user's own
    /// outcomes: with none, the prediction is the estimate.
    pub fn predict(&self, model_id: &str, task: &TaskFeatures, prior: f64) -> TaskPrediction {
        let base = self.estimate(model_id, task.category, prior);
        let shrunk = |tally: &Tally| {
            (tally.weighted_successes + FEATURE_PSEUDO_OUTCOMES * base)
                / (tally.weighted_total + FEATURE_PSEUDO_OUTCOMES)
        };
        let whole = self.tally(model_id, task.category).unwrap_or_default();
        let mut log_odds = logit(base);
        let mut features = Vec::new();
        if !self.by_feature.is_empty() {
            for feature in task_feature_keys(task) {
                let key = feature_key(model_id, task.category, &feature);
                let Some(tally) = self.by_feature.get(key.as_str()) else {
                    continue;
                };
                if (tally.successes, tally.failures) == (whole.successes, whole.failures) {
                    continue;
                }
                log_odds += logit(shrunk(tally)) - logit(shrunk(&whole));
                features.push(FeatureEvidence {
                    feature,
                    successes: tally.successes,
                    failures: tally.failures,
                });
            }
        }
        let category = self.evidence(model_id, task.category, prior);
        TaskPrediction {
            estimate: round3(sigmoid(log_odds)),
            category,
            features,
        }
    }

    /// Whether any model has outcomes in `category` (lets the ranking skip lookups).
    pub fn has_category(&self, category: Category) -> bool {
        self.by_category
            .get(category as usize)
            .is_some_and(|map| !map.is_empty())
    }

    /// The estimate for `model_id` in `category` from a benchmark `prior` (0–1).
    pub fn estimate(&self, model_id: &str, category: Category, prior: f64) -> f64 {
        self.tally(model_id, category)
            .map_or(prior, |tally| tally.estimate(prior))
    }

    /// The estimate with what it rests on.
    pub fn evidence(&self, model_id: &str, category: Category, prior: f64) -> Evidence {
        let tally = self.tally(model_id, category).unwrap_or_default();
        let since = (tally.successes + tally.failures > 0)
            .then(|| rfc3339(tally.oldest_ms))
            .flatten();
        Evidence {
            prior: round3(prior),
            successes: tally.successes,
            failures: tally.failures,
            since,
            estimate: round3(tally.estimate(prior)),
            weight: round3(tally.weighted_total),
        }
    }

    /// The most any model's outcomes in `category` can move its estimate (0–1): how far the
    /// ranking must look beyond its cut for a model the evidence could lift into it.
    pub fn reach(&self, category: Category) -> f64 {
        self.by_category.get(category as usize).map_or(0.0, |map| {
            map.values()
                .map(|t| t.weighted_total / (PRIOR_OUTCOMES + t.weighted_total))
                .fold(0.0, f64::max)
        })
    }

    /// Number of (model, category) pairs with outcomes.
    pub fn len(&self) -> usize {
        self.by_category.iter().map(|map| map.len()).sum()
    }

    /// Whether there are no outcomes at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn tally(&self, model_id: &str, category: Category) -> Option<Tally> {
        self.by_category
            .get(category as usize)?
            .get(model_id)
            .copied()
    }
}

/// Unix milliseconds as RFC 3339 (seconds, UTC).
pub(crate) fn rfc3339(ms: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn no_outcomes_is_the_prior_and_failures_pull_it_down() {
        let mut index = LearnedIndex::default();
        assert_eq!(index.estimate("a/x", Category::Coding, 0.8), 0.8);
        for _ in 0..20 {
            index.add("a/x", Category::Coding, false, NOW, NOW);
        }
        let after = index.estimate("a/x", Category::Coding, 0.8);
        assert!(after < 0.15, "twenty failures leave {after}");
        // Other categories and models are untouched.
        assert_eq!(index.estimate("a/x", Category::Creative, 0.8), 0.8);
        assert_eq!(index.estimate("a/y", Category::Coding, 0.8), 0.8);
        let evidence = index.evidence("a/x", Category::Coding, 0.8);
        assert_eq!((evidence.successes, evidence.failures), (0, 20));
        assert_eq!(
            evidence.describe(Category::Coding),
            "0 of 20 verified for coding"
        );
        assert!(evidence.since.is_some());
    }

    #[test]
    fn old_outcomes_weigh_less_than_new_ones() {
        let mut old = LearnedIndex::default();
        let mut new = LearnedIndex::default();
        let ninety_days = (90.0 * DAY_MS) as i64;
        for _ in 0..6 {
            old.add("a/x", Category::Math, true, NOW - ninety_days, NOW);
            new.add("a/x", Category::Math, true, NOW, NOW);
        }
        let (old, new) = (
            old.estimate("a/x", Category::Math, 0.4),
            new.estimate("a/x", Category::Math, 0.4),
        );
        assert!(0.4 < old && old < new, "old {old}, new {new}");
    }

    #[test]
    fn a_weighted_outcome_moves_further_but_counts_once() {
        let mut plain = LearnedIndex::default();
        let mut own = LearnedIndex::default();
        plain.add("a/x", Category::Coding, false, NOW, NOW);
        own.add_weighted("a/x", Category::Coding, false, NOW, NOW, OWN_HISTORY_WEIGHT);
        assert!(
            own.estimate("a/x", Category::Coding, 0.8)
                < plain.estimate("a/x", Category::Coding, 0.8)
        );
        let evidence = own.evidence("a/x", Category::Coding, 0.8);
        assert_eq!((evidence.successes, evidence.failures), (0, 1));
        assert_eq!(evidence.weight, OWN_HISTORY_WEIGHT);
    }

    #[test]
    fn reach_bounds_every_move() {
        let mut index = LearnedIndex::default();
        for i in 0..10 {
            index.add("a/x", Category::Coding, i % 3 == 0, NOW, NOW);
        }
        index.add("a/y", Category::Coding, true, NOW, NOW);
        let reach = index.reach(Category::Coding);
        for prior in [0.02, 0.3, 0.7, 0.98] {
            for model in ["a/x", "a/y"] {
                let moved = (index.estimate(model, Category::Coding, prior) - prior).abs();
                assert!(
                    moved <= reach + 1e-12,
                    "{model} at {prior} moved {moved} > {reach}"
                );
            }
        }
        assert_eq!(index.reach(Category::Math), 0.0);
    }
}
