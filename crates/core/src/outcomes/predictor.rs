//! "Will the cheap model fail on this prompt?" — learned from the user's own outcomes, from
//! the prompt alone. Two views of the same TF-IDF vectors, blended by rank:
//!
//! - a logistic regression over words, word pairs and shape facts (what in a prompt predicts
//!   failure), and
//! - the failure rate of the most similar training prompts (cosine k-nearest neighbours,
//!   shrunk toward the overall rate). Prompts on one topic fail together more than any single
//!   word says; the neighbours stand in for a topic label the prompt does not carry.
//!
//! Deterministic: the training order is a seeded shuffle, so one seed gives one model.

use std::collections::HashMap;

use super::features::{raw_features, shape_facts, Idf, Sparse, BUCKETS, SHAPE_FACTS};
use super::split::shuffled;

/// Below this many prompts no feature counts as too common to compare on.
const MIN_COMMON: usize = 200;

/// How the predictor is trained; [`PredictorSettings::default`] is what Switchyard ships.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PredictorSettings {
    pub epochs: usize,
    pub learning_rate: f32,
    pub l2: f32,
    /// Neighbours consulted per prompt.
    pub neighbours: usize,
    /// Pseudo-count pulling a neighbourhood's rate toward the overall rate.
    pub shrink: f32,
    /// Share of the blend given to the neighbours.
    pub neighbour_weight: f64,
    /// Share of the blend given to the shape model (the rest goes to the word regression).
    pub shape_weight: f64,
}

impl Default for PredictorSettings {
    fn default() -> Self {
        PredictorSettings {
            epochs: 6,
            learning_rate: 0.2,
            l2: 1e-5,
            neighbours: 100,
            shrink: 20.0,
            neighbour_weight: 0.5,
            shape_weight: 0.25,
        }
    }
}

/// A trained predictor.
#[derive(Debug, Clone)]
pub struct FailurePredictor {
    settings: PredictorSettings,
    idf: Idf,
    /// Dense over the hashed feature space: a lookup per feature is an index, not a hash.
    weights: Vec<f32>,
    bias: f32,
    /// Training vectors and their labels (1 = the weak model failed), for the neighbours.
    train: Vec<(Sparse, f32)>,
    /// Inverted index over `train`: feature → (document, weight).
    postings: HashMap<u32, Vec<(u32, f32)>>,
    base_rate: f32,
    shape: ShapeModel,
}

impl FailurePredictor {
    /// Trains on prompts with a target in 0..=1 (1 = the weak model failed, or the strong
    /// model is needed).
    pub fn fit(examples: &[(&str, f32)], settings: PredictorSettings, seed: u64) -> Self {
        let raw: Vec<HashMap<u32, f32>> = examples
            .iter()
            .map(|(prompt, _)| raw_features(prompt))
            .collect();
        let idf = Idf::fit(&raw);
        let shape = ShapeModel::fit(examples);
        let train: Vec<(Sparse, f32)> = raw
            .iter()
            .zip(examples)
            .map(|(counts, &(_, target))| (idf.weigh(counts), target))
            .collect();
        let base_rate = if train.is_empty() {
            0.5
        } else {
            train.iter().map(|(_, y)| y).sum::<f32>() / train.len() as f32
        };
        let mut predictor = FailurePredictor {
            settings,
            idf,
            weights: vec![0.0; BUCKETS as usize],
            bias: logit(base_rate),
            train,
            postings: HashMap::new(),
            base_rate,
            shape,
        };
        predictor.fit_regression(seed);
        predictor.index();
        predictor
    }

    /// AdaGrad SGD on the log loss with L2, in a seeded order per epoch.
    fn fit_regression(&mut self, seed: u64) {
        let PredictorSettings {
            epochs,
            learning_rate,
            l2,
            ..
        } = self.settings;
        let mut squares = vec![1e-8_f32; self.weights.len()];
        let mut bias_square = 1e-8_f32;
        for epoch in 0..epochs {
            for at in shuffled(self.train.len(), seed.wrapping_add(epoch as u64)) {
                let (vector, label) = &self.train[at];
                let p = sigmoid(self.bias + dot(&self.weights, vector));
                let error = p - label;
                bias_square += error * error;
                self.bias -= learning_rate * error / bias_square.sqrt();
                for &(feature, value) in vector {
                    let at = feature as usize;
                    let gradient = error * value + l2 * self.weights[at];
                    squares[at] += gradient * gradient;
                    self.weights[at] -= learning_rate * gradient / squares[at].sqrt();
                }
            }
        }
    }

    fn index(&mut self) {
        // Features in over a tenth of the prompts (the, of, option letters) say nothing about
        // topic and make up most of the postings; similarity ignores them.
        let mut frequency: HashMap<u32, usize> = HashMap::new();
        for (vector, _) in &self.train {
            for &(feature, _) in vector {
                *frequency.entry(feature).or_default() += 1;
            }
        }
        let common = (self.train.len() / 10).max(MIN_COMMON);
        for (document, (vector, _)) in self.train.iter().enumerate() {
            for &(feature, weight) in vector {
                if frequency.get(&feature).is_some_and(|&df| df > common) {
                    continue;
                }
                self.postings
                    .entry(feature)
                    .or_default()
                    .push((document as u32, weight));
            }
        }
    }

    /// The word regression's probability, the neighbours' rate and the shape model's
    /// probability for each prompt.
    pub fn parts(&self, prompts: &[&str]) -> Vec<(f64, f64, f64)> {
        let mut similarity = vec![0.0_f32; self.train.len()];
        prompts
            .iter()
            .map(|prompt| {
                let vector = self.idf.weigh(&raw_features(prompt));
                let regression = sigmoid(self.bias + dot(&self.weights, &vector));
                (
                    f64::from(regression),
                    f64::from(self.neighbour_rate(&vector, &mut similarity)),
                    f64::from(self.shape.probability(prompt)),
                )
            })
            .collect()
    }

    /// Blended scores, higher = more likely the weak model fails. Each part is ranked among
    /// the prompts scored together, so the two scales never have to agree.
    pub fn scores(&self, prompts: &[&str]) -> Vec<f64> {
        blend(
            &self.parts(prompts),
            self.settings.neighbour_weight,
            self.settings.shape_weight,
        )
    }

    /// The settings it was trained with.
    pub fn settings(&self) -> PredictorSettings {
        self.settings
    }

    fn neighbour_rate(&self, vector: &Sparse, similarity: &mut [f32]) -> f32 {
        similarity.iter_mut().for_each(|s| *s = 0.0);
        let mut touched: Vec<u32> = Vec::new();
        for &(feature, weight) in vector {
            if let Some(list) = self.postings.get(&feature) {
                for &(document, other) in list {
                    let slot = &mut similarity[document as usize];
                    if *slot == 0.0 {
                        touched.push(document);
                    }
                    *slot += weight * other;
                }
            }
        }
        let k = self.settings.neighbours.min(touched.len());
        if k == 0 {
            return self.base_rate;
        }
        let by_similarity = |a: &u32, b: &u32| {
            similarity[*b as usize]
                .total_cmp(&similarity[*a as usize])
                .then(a.cmp(b))
        };
        touched.select_nth_unstable_by(k - 1, by_similarity);
        let (mut weighted, mut total) = (0.0_f32, 0.0_f32);
        for &document in &touched[..k] {
            let s = similarity[document as usize].max(0.0);
            weighted += s * self.train[document as usize].1;
            total += s;
        }
        let shrink = self.settings.shrink;
        (weighted + shrink * self.base_rate) / (total + shrink)
    }
}

/// Logistic regression over the standardized shape facts, by full-batch gradient descent
/// (a handful of dense features: this converges in a few hundred steps, deterministically).
#[derive(Debug, Clone)]
struct ShapeModel {
    mean: [f32; SHAPE_FACTS],
    scale: [f32; SHAPE_FACTS],
    weights: [f32; SHAPE_FACTS],
    bias: f32,
}

impl ShapeModel {
    const STEPS: usize = 300;
    const RATE: f32 = 0.5;

    fn fit(examples: &[(&str, f32)]) -> Self {
        let facts: Vec<[f32; SHAPE_FACTS]> = examples
            .iter()
            .map(|(prompt, _)| shape_facts(prompt))
            .collect();
        let n = facts.len().max(1) as f32;
        let mut mean = [0.0; SHAPE_FACTS];
        let mut scale = [1.0; SHAPE_FACTS];
        for i in 0..SHAPE_FACTS {
            mean[i] = facts.iter().map(|f| f[i]).sum::<f32>() / n;
            let variance = facts.iter().map(|f| (f[i] - mean[i]).powi(2)).sum::<f32>() / n;
            scale[i] = variance.sqrt().max(1e-3);
        }
        let mut model = ShapeModel {
            mean,
            scale,
            weights: [0.0; SHAPE_FACTS],
            bias: 0.0,
        };
        let standardized: Vec<[f32; SHAPE_FACTS]> =
            facts.iter().map(|f| model.standardize(f)).collect();
        for _ in 0..Self::STEPS {
            let mut gradient = [0.0; SHAPE_FACTS];
            let mut bias_gradient = 0.0;
            for (x, (_, target)) in standardized.iter().zip(examples) {
                let error = sigmoid(model.linear(x)) - target;
                bias_gradient += error;
                for (slot, value) in gradient.iter_mut().zip(x) {
                    *slot += error * value;
                }
            }
            model.bias -= Self::RATE * bias_gradient / n;
            for (weight, slot) in model.weights.iter_mut().zip(gradient) {
                *weight -= Self::RATE * slot / n;
            }
        }
        model
    }

    fn standardize(&self, facts: &[f32; SHAPE_FACTS]) -> [f32; SHAPE_FACTS] {
        std::array::from_fn(|i| (facts[i] - self.mean[i]) / self.scale[i])
    }

    fn linear(&self, x: &[f32; SHAPE_FACTS]) -> f32 {
        self.bias + x.iter().zip(&self.weights).map(|(x, w)| x * w).sum::<f32>()
    }

    fn probability(&self, prompt: &str) -> f32 {
        sigmoid(self.linear(&self.standardize(&shape_facts(prompt))))
    }
}

/// Ranks each part among the prompts and mixes the ranks: `neighbours` and `shape` are the
/// shares of those parts, the rest goes to the word regression.
pub fn blend(parts: &[(f64, f64, f64)], neighbours: f64, shape: f64) -> Vec<f64> {
    let regression_rank = ranks(&parts.iter().map(|p| p.0).collect::<Vec<_>>());
    let neighbour_rank = ranks(&parts.iter().map(|p| p.1).collect::<Vec<_>>());
    let shape_rank = ranks(&parts.iter().map(|p| p.2).collect::<Vec<_>>());
    (0..parts.len())
        .map(|at| {
            (1.0 - neighbours - shape) * regression_rank[at]
                + neighbours * neighbour_rank[at]
                + shape * shape_rank[at]
        })
        .collect()
}

fn dot(weights: &[f32], vector: &Sparse) -> f32 {
    vector
        .iter()
        .map(|&(feature, value)| weights[feature as usize] * value)
        .sum()
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn logit(p: f32) -> f32 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

/// Average ranks scaled to 0..=1 (ties share their mean rank).
fn ranks(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; n];
    let mut start = 0;
    while start < n {
        let mut end = start;
        while end + 1 < n && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let mean = (start + end) as f64 / 2.0;
        for &at in &order[start..=end] {
            ranks[at] = if n > 1 { mean / (n - 1) as f64 } else { 0.5 };
        }
        start = end + 1;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_which_words_go_with_failure() {
        let mut examples = Vec::new();
        for i in 0..40 {
            examples.push((format!("prove the integral bound {i}"), 1.0));
            examples.push((format!("name the capital city {i}"), 0.0));
        }
        let refs: Vec<(&str, f32)> = examples.iter().map(|(p, y)| (p.as_str(), *y)).collect();
        let predictor = FailurePredictor::fit(&refs, PredictorSettings::default(), 7);
        let scores = predictor.scores(&["prove this integral", "which capital city"]);
        assert!(scores[0] > scores[1], "{scores:?}");
        let parts = predictor.parts(&["prove this integral", "which capital city"]);
        assert!(parts[0].0 > 0.5 && parts[1].0 < 0.5, "{parts:?}");
        // "prove the integral bound N" is longer than "name the capital city N".
        assert!(parts[0].2 > parts[1].2, "{parts:?}");
        assert!(parts[0].1 > 0.5 && parts[1].1 < 0.5, "{parts:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_scores() {
        let examples: Vec<(String, f32)> = (0..30)
            .map(|i| {
                (
                    format!("task number {i} about {}", i % 4),
                    f32::from(u8::from(i % 3 == 0)),
                )
            })
            .collect();
        let refs: Vec<(&str, f32)> = examples.iter().map(|(p, y)| (p.as_str(), *y)).collect();
        let a = FailurePredictor::fit(&refs, PredictorSettings::default(), 3);
        let b = FailurePredictor::fit(&refs, PredictorSettings::default(), 3);
        let probe = ["task about 2", "task number 9"];
        assert_eq!(a.scores(&probe), b.scores(&probe));
    }

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0]), [0.75, 0.0, 0.75]);
    }
}
