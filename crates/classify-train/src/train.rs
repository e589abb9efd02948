//! Multinomial logistic regression over the classifier's named features: a vocabulary from
//! the train split, AdaGrad SGD with L2 in a seeded order, weights centered per feature (the
//! softmax is unchanged, and a weight then reads as evidence for or against a category), a
//! temperature fitted on dev, and tiny weights pruned.

use std::collections::{BTreeMap, HashMap};

use switchyard_core::catalog::card::Category;
use switchyard_core::routing::{TaskModel, CLASSES, FEATURE_GROUPS};

use crate::corpus::splitmix;

/// Training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hyper {
    /// Passes over the train split.
    pub epochs: u32,
    /// AdaGrad base learning rate.
    pub rate: f64,
    /// L2 penalty per update.
    pub l2: f64,
    /// Fewest train tasks a word, bigram or CJK feature must occur in.
    pub min_df: u32,
    /// Fewest train tasks a Latin character n-gram must occur in.
    pub min_df_chars: u32,
    /// Weights whose largest magnitude (after centering) is below this are dropped.
    pub prune: f64,
    /// Multipliers of each feature group's values (words, characters, CJK, structure,
    /// lexicon); with AdaGrad they set how fast each group learns.
    pub groups: [f64; FEATURE_GROUPS],
    /// Leave single CJK characters out.
    pub no_cjk_unigrams: bool,
    /// Runs (seeds `seed`, `seed + 1`, …) whose centered weights are averaged.
    pub runs: u32,
}

impl Default for Hyper {
    fn default() -> Hyper {
        Hyper {
            epochs: 30,
            rate: 0.2,
            l2: 1e-5,
            min_df: 2,
            min_df_chars: 3,
            prune: 2e-3,
            groups: [2.0, 2.0, 2.0, 1.0, 1.0],
            no_cjk_unigrams: false,
            runs: 5,
        }
    }
}

/// The group index of a feature name (see `FEATURE_GROUPS`).
pub fn group_of(name: &str) -> usize {
    match name.get(..2) {
        Some("w:") | Some("b:") | Some("p:") => 0,
        Some("c:") => 1,
        Some("z:") | Some("y:") => 2,
        Some("s:") => 3,
        _ => 4,
    }
}

fn is_cjk_unigram(name: &str) -> bool {
    name.strip_prefix("z:")
        .is_some_and(|rest| rest.chars().count() == 1)
}

/// Named features of one task and its class.
pub type Named = Vec<(String, f32)>;

/// Encoded tasks: sparse rows over a vocabulary, and class indices.
pub struct Dataset {
    pub rows: Vec<Vec<(u32, f32)>>,
    pub labels: Vec<usize>,
}

/// Feature names kept for training.
pub struct Vocab {
    pub names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Vocab {
    /// Names occurring in at least the hyperparameters' minimum number of train tasks.
    pub fn build(train: &[Named], hyper: &Hyper) -> Vocab {
        let mut df: BTreeMap<&str, u32> = BTreeMap::new();
        for features in train {
            for (name, _) in features {
                *df.entry(name.as_str()).or_default() += 1;
            }
        }
        let names: Vec<String> = df
            .into_iter()
            .filter(|(name, count)| {
                let needed = match name.get(..2) {
                    Some("c:") => hyper.min_df_chars,
                    Some("s:") | Some("l:") => 1,
                    _ => hyper.min_df,
                };
                *count >= needed
                    && name.len() <= 96
                    && !(hyper.no_cjk_unigrams && is_cjk_unigram(name))
            })
            .map(|(name, _)| name.to_owned())
            .collect();
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        Vocab { names, index }
    }

    pub fn encode(&self, tasks: &[Named], labels: &[usize], hyper: &Hyper) -> Dataset {
        let rows = tasks
            .iter()
            .map(|features| {
                features
                    .iter()
                    .filter_map(|(name, value)| {
                        let scale = hyper.groups[group_of(name)] as f32;
                        self.index.get(name).map(|i| (*i, *value * scale))
                    })
                    .collect()
            })
            .collect();
        Dataset {
            rows,
            labels: labels.to_vec(),
        }
    }
}

/// Trained parameters.
#[derive(Clone)]
pub struct Params {
    pub weights: Vec<[f64; CLASSES]>,
    pub bias: [f64; CLASSES],
}

fn softmax(z: &[f64; CLASSES]) -> [f64; CLASSES] {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut p = [0.0; CLASSES];
    let mut total = 0.0;
    for k in 0..CLASSES {
        p[k] = (z[k] - max).exp();
        total += p[k];
    }
    for v in &mut p {
        *v /= total;
    }
    p
}

impl Params {
    pub fn logits(&self, row: &[(u32, f32)]) -> [f64; CLASSES] {
        let mut z = self.bias;
        for (j, x) in row {
            let w = &self.weights[*j as usize];
            for k in 0..CLASSES {
                z[k] += f64::from(*x) * w[k];
            }
        }
        z
    }

    /// Accuracy and mean negative log-likelihood at `temperature`.
    pub fn measure(&self, data: &Dataset, temperature: f64) -> (f64, f64) {
        let (mut correct, mut nll) = (0usize, 0.0);
        for (row, label) in data.rows.iter().zip(&data.labels) {
            let mut z = self.logits(row);
            for v in &mut z {
                *v /= temperature;
            }
            let p = softmax(&z);
            let top = (0..CLASSES).fold(0, |best, k| if p[k] > p[best] { k } else { best });
            correct += usize::from(top == *label);
            nll -= p[*label].max(1e-12).ln();
        }
        let n = data.rows.len().max(1) as f64;
        (correct as f64 / n, nll / n)
    }
}

/// Trains `hyper.runs` times on `data` (over `features` vocabulary entries) in orders seeded
/// from `seed`, and averages the centered weights.
pub fn fit(data: &Dataset, features: usize, hyper: &Hyper, seed: u64) -> Params {
    let runs = hyper.runs.max(1);
    let mut total = fit_once(data, features, hyper, seed);
    for run in 1..runs {
        let next = fit_once(data, features, hyper, seed.wrapping_add(u64::from(run)));
        for (t, w) in total.weights.iter_mut().zip(&next.weights) {
            for k in 0..CLASSES {
                t[k] += w[k];
            }
        }
        for k in 0..CLASSES {
            total.bias[k] += next.bias[k];
        }
    }
    let n = f64::from(runs);
    for w in total
        .weights
        .iter_mut()
        .chain(std::iter::once(&mut total.bias))
    {
        for v in w.iter_mut() {
            *v /= n;
        }
    }
    total
}

fn fit_once(data: &Dataset, features: usize, hyper: &Hyper, seed: u64) -> Params {
    let mut params = Params {
        weights: vec![[0.0; CLASSES]; features],
        bias: [0.0; CLASSES],
    };
    let mut squares = vec![[1e-8f64; CLASSES]; features];
    let mut bias_squares = [1e-8f64; CLASSES];
    let mut order: Vec<usize> = (0..data.rows.len()).collect();
    let mut state = seed;
    for _ in 0..hyper.epochs {
        // Fisher–Yates with SplitMix64.
        for i in (1..order.len()).rev() {
            state = splitmix(state);
            let j = (state % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &index in &order {
            let row = &data.rows[index];
            let p = softmax(&params.logits(row));
            let mut g = p;
            g[data.labels[index]] -= 1.0;
            for (j, x) in row {
                let (w, s) = (&mut params.weights[*j as usize], &mut squares[*j as usize]);
                let x = f64::from(*x);
                for k in 0..CLASSES {
                    let grad = g[k] * x + hyper.l2 * w[k];
                    s[k] += grad * grad;
                    w[k] -= hyper.rate * grad / s[k].sqrt();
                }
            }
            for k in 0..CLASSES {
                bias_squares[k] += g[k] * g[k];
                params.bias[k] -= hyper.rate * g[k] / bias_squares[k].sqrt();
            }
        }
    }
    center(&mut params);
    params
}

/// Subtracts each feature's (and the bias's) mean over classes: the softmax is unchanged.
fn center(params: &mut Params) {
    for w in params
        .weights
        .iter_mut()
        .chain(std::iter::once(&mut params.bias))
    {
        let mean = w.iter().sum::<f64>() / CLASSES as f64;
        for v in w.iter_mut() {
            *v -= mean;
        }
    }
}

/// Logits of every row of `data`, with its class.
pub fn scored(params: &Params, data: &Dataset) -> Vec<([f64; CLASSES], usize)> {
    data.rows
        .iter()
        .zip(&data.labels)
        .map(|(row, label)| (params.logits(row), *label))
        .collect()
}

/// Mean negative log-likelihood of `scored` at `temperature`.
fn nll(scored: &[([f64; CLASSES], usize)], temperature: f64) -> f64 {
    let total: f64 = scored
        .iter()
        .map(|(z, label)| {
            let mut z = *z;
            for v in &mut z {
                *v /= temperature;
            }
            -softmax(&z)[*label].max(1e-12).ln()
        })
        .sum();
    total / scored.len().max(1) as f64
}

/// The temperature minimizing the negative log-likelihood of held-out logits (log-spaced
/// search, then refined), rounded to four decimals.
pub fn fit_temperature(scored: &[([f64; CLASSES], usize)]) -> f64 {
    let mut best = (1.0, nll(scored, 1.0));
    for step in 0..=60 {
        let t = 10f64.powf(-1.0 + step as f64 / 30.0); // 0.1 … 10
        let v = nll(scored, t);
        if v < best.1 {
            best = (t, v);
        }
    }
    let (mut lo, mut hi) = (best.0 / 1.08, best.0 * 1.08);
    for _ in 0..40 {
        let a = lo + (hi - lo) / 3.0;
        let b = hi - (hi - lo) / 3.0;
        if nll(scored, a) < nll(scored, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0 * 1e4).round() / 1e4
}

/// The core model of trained parameters, with tiny weights pruned.
pub fn to_model(
    params: &Params,
    vocab: &Vocab,
    temperature: f64,
    version: &str,
    hyper: &Hyper,
) -> Result<TaskModel, String> {
    let features: Vec<(String, [f32; CLASSES])> = vocab
        .names
        .iter()
        .zip(&params.weights)
        .filter(|(_, w)| w.iter().any(|v| v.abs() >= hyper.prune))
        .map(|(name, w)| (name.clone(), w.map(|v| v as f32)))
        .collect();
    TaskModel::new(
        version,
        temperature as f32,
        hyper.groups.map(|v| v as f32),
        params.bias.map(|v| v as f32),
        features,
    )
    .map_err(|e| e.to_string())
}

/// The class index of a category id.
pub fn class_of(category: Category) -> usize {
    Category::ALL
        .iter()
        .position(|c| *c == category)
        .unwrap_or(CLASSES - 1)
}
