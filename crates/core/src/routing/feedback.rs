//! User ratings (1–5 per model and category) and how they shift benchmark scores.
//!
//! Shrinkage: a rating of 3 means "as the benchmarks say"; the mean rating's distance from 3
//! is an evidence of the model being better or worse than its score, worth at most
//! [`MAX_SWING`] points, and shrunk toward zero by `n / (n + PRIOR_RATINGS)` — the more
//! ratings, the more they count. With the defaults one rating of 1 moves a score by −4.3,
//! five ratings of 1 by −13.6, twenty by −23.1.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;
use crate::hash::FastMap;

/// How many ratings weigh as much as the benchmarks.
pub const PRIOR_RATINGS: f64 = 6.0;
/// Score points a mean rating of 5 (or 1) is worth with unlimited ratings.
pub const MAX_SWING: f64 = 30.0;

/// One rating as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    /// The catalog id of the rated model.
    pub model_id: String,
    /// The category the model was used in.
    pub category: Category,
    /// 1–5; anything else is ignored.
    pub rating: u8,
}

/// Ratings of one model in one category, aggregated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackSummary {
    /// Number of ratings.
    pub count: u32,
    /// Their mean, 1–5.
    pub mean: f64,
}

impl FeedbackSummary {
    /// The weight of the ratings against the benchmarks, 0–1.
    pub fn weight(&self) -> f64 {
        let n = f64::from(self.count);
        n / (n + PRIOR_RATINGS)
    }

    /// Score points to add to the benchmark score (negative for bad ratings).
    pub fn adjustment(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.weight() * (self.mean - 3.0) / 2.0 * MAX_SWING
    }
}

/// All ratings of a request, indexed by category then model id. Built once per request
/// from the rows the engine loaded; lookups in the ranking loop are one hash probe.
#[derive(Debug, Clone, Default)]
pub struct FeedbackIndex {
    by_category: [FastMap<Box<str>, (u32, u32)>; Category::ALL.len()],
}

fn slot(category: Category) -> usize {
    Category::ALL
        .iter()
        .position(|c| *c == category)
        .unwrap_or(0)
}

impl FeedbackIndex {
    /// An index with no ratings.
    pub fn empty() -> FeedbackIndex {
        FeedbackIndex::default()
    }

    /// Indexes individual ratings; ratings outside 1–5 are skipped.
    pub fn from_ratings<'a>(ratings: impl IntoIterator<Item = &'a Rating>) -> FeedbackIndex {
        let mut index = FeedbackIndex::default();
        for rating in ratings {
            index.add(&rating.model_id, rating.category, rating.rating);
        }
        index
    }

    /// Adds one rating; ratings outside 1–5 are skipped.
    pub fn add(&mut self, model_id: &str, category: Category, rating: u8) {
        if !(1..=5).contains(&rating) {
            return;
        }
        let Some(map) = self.by_category.get_mut(slot(category)) else {
            return;
        };
        let entry = match map.get_mut(model_id) {
            Some(entry) => entry,
            None => map.entry(model_id.into()).or_insert((0, 0)),
        };
        entry.0 = entry.0.saturating_add(1);
        entry.1 = entry.1.saturating_add(u32::from(rating));
    }

    /// Adds pre-aggregated ratings (`count` ratings with this `mean`), e.g. a SQL `GROUP BY`.
    pub fn add_summary(&mut self, model_id: &str, category: Category, summary: FeedbackSummary) {
        if summary.count == 0 || !(1.0..=5.0).contains(&summary.mean) {
            return;
        }
        let Some(map) = self.by_category.get_mut(slot(category)) else {
            return;
        };
        let entry = map.entry(model_id.into()).or_insert((0, 0));
        let sum = (summary.mean * f64::from(summary.count)).round() as u32;
        entry.0 = entry.0.saturating_add(summary.count);
        entry.1 = entry.1.saturating_add(sum);
    }

    /// Whether any model has ratings in `category` (lets the ranking skip lookups).
    pub fn has_category(&self, category: Category) -> bool {
        self.by_category
            .get(slot(category))
            .is_some_and(|map| !map.is_empty())
    }

    /// The ratings of a model in a category.
    pub fn summary(&self, model_id: &str, category: Category) -> Option<FeedbackSummary> {
        let (count, sum) = *self.by_category.get(slot(category))?.get(model_id)?;
        (count > 0).then(|| FeedbackSummary {
            count,
            mean: f64::from(sum) / f64::from(count),
        })
    }

    /// The largest gain and the largest loss (both ≥ 0) any rated model has in `category`:
    /// how far feedback can move a score, which bounds what the ranking must look up.
    pub fn adjustment_bounds(&self, category: Category) -> (f64, f64) {
        let Some(map) = self.by_category.get(slot(category)) else {
            return (0.0, 0.0);
        };
        map.values()
            .fold((0.0f64, 0.0f64), |(gain, loss), (count, sum)| {
                let summary = FeedbackSummary {
                    count: *count,
                    mean: f64::from(*sum) / f64::from((*count).max(1)),
                };
                let adjustment = summary.adjustment();
                (gain.max(adjustment), loss.max(-adjustment))
            })
    }

    /// Number of rated (model, category) pairs.
    pub fn len(&self) -> usize {
        self.by_category.iter().map(|map| map.len()).sum()
    }

    /// Whether there are no ratings at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_ratings_count_more_and_three_is_neutral() {
        let one = FeedbackSummary {
            count: 1,
            mean: 1.0,
        };
        let five = FeedbackSummary {
            count: 5,
            mean: 1.0,
        };
        let twenty = FeedbackSummary {
            count: 20,
            mean: 1.0,
        };
        assert!(one.adjustment() < 0.0);
        assert!(five.adjustment() < one.adjustment());
        assert!(twenty.adjustment() < five.adjustment());
        assert!(twenty.adjustment() > -MAX_SWING);
        assert_eq!(
            FeedbackSummary {
                count: 9,
                mean: 3.0
            }
            .adjustment(),
            0.0
        );
        assert!(
            FeedbackSummary {
                count: 3,
                mean: 5.0
            }
            .adjustment()
                > 0.0
        );
    }

    #[test]
    fn index_aggregates_and_skips_out_of_range() {
        let mut index = FeedbackIndex::empty();
        index.add("a/x", Category::Coding, 1);
        index.add("a/x", Category::Coding, 5);
        index.add("a/x", Category::Coding, 9);
        index.add("a/x", Category::Math, 4);
        let coding = index.summary("a/x", Category::Coding).expect("rated");
        assert_eq!(coding.count, 2);
        assert_eq!(coding.mean, 3.0);
        assert!(index.summary("a/x", Category::Creative).is_none());
        assert!(index.has_category(Category::Math));
        assert!(!index.has_category(Category::Vision));
        assert_eq!(index.len(), 2);
    }
}
