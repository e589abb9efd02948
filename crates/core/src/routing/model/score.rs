//! Scoring a task with a [`TaskModel`]: one pass that hashes each feature's name pieces and
//! sums the weights it finds, then the softmax, then the strongest features for the winner.
//! [`named_features`] is the same pass for the trainer, with the names spelled out.

use std::collections::BTreeMap;

use crate::catalog::card::Category;
use crate::routing::text::Tokens;

use super::features::{extract, Group, Origin, Sink, GROUPS};
use super::{feature_hash, FeatureKind, FeatureWeight, TaskModel, CLASSES};

/// A scored task.
#[derive(Debug, Clone)]
pub(crate) struct Scored {
    /// Calibrated probability per category, in [`Category::ALL`] order.
    pub probabilities: [f64; CLASSES],
    /// The index of the most probable category (the earlier one on a tie).
    pub top: usize,
    /// How many features of the text or the lexicon the model knew.
    pub known: u32,
    /// The strongest positive contributions to `top`, strongest first.
    pub features: Vec<FeatureWeight>,
}

#[derive(Clone, Copy)]
struct Hit {
    row: u32,
    group: Group,
    origin: Origin,
    value: f32,
}

struct Scorer<'m> {
    model: &'m TaskModel,
    sums: [[f32; CLASSES]; GROUPS],
    emitted: [u32; GROUPS],
    hits: Vec<Hit>,
}

impl Sink for Scorer<'_> {
    #[inline]
    fn feature(&mut self, group: Group, parts: &[&str], origin: Origin, value: f32) {
        let g = group as usize;
        self.emitted[g] += 1;
        let Some((row, weights)) = self.model.lookup(feature_hash(parts)) else {
            return;
        };
        for (sum, w) in self.sums[g].iter_mut().zip(weights) {
            *sum += value * w;
        }
        self.hits.push(Hit {
            row,
            group,
            origin,
            value,
        });
    }
}

/// The factor a group's values are multiplied by, given how many features each group
/// emitted: text groups share `1/sqrt(all text features)` (one English word in a Chinese
/// task weighs like one of its CJK n-grams), the others keep their values.
#[inline]
pub(crate) fn group_scale(group: Group, emitted: &[u32; GROUPS]) -> f32 {
    let text: u32 = ALL_GROUPS
        .iter()
        .filter(|g| g.normalized())
        .map(|g| emitted[*g as usize])
        .sum();
    if group.normalized() && text > 0 {
        1.0 / (text as f32).sqrt()
    } else {
        1.0
    }
}

const ALL_GROUPS: [Group; GROUPS] = [
    Group::Words,
    Group::Chars,
    Group::Cjk,
    Group::Structure,
    Group::Lexicon,
];

impl TaskModel {
    /// Scores `raw` (tokenized as `tokens`, with the lexicon's weights `lexicon`) and
    /// explains the winner with at most `explain` features.
    pub(crate) fn score(
        &self,
        raw: &str,
        tokens: &Tokens,
        lexicon: &[f64; CLASSES],
        explain: usize,
    ) -> Scored {
        let mut scorer = Scorer {
            model: self,
            sums: [[0.0; CLASSES]; GROUPS],
            emitted: [0; GROUPS],
            hits: Vec::with_capacity(tokens.lowered.len().min(1 << 16)),
        };
        extract(raw, tokens, lexicon, &mut scorer);
        let mut scale = [1.0f32; GROUPS];
        for group in ALL_GROUPS {
            let g = group as usize;
            scale[g] = self.group_weights[g] * group_scale(group, &scorer.emitted);
        }
        let mut logits = [0f64; CLASSES];
        for (k, logit) in logits.iter_mut().enumerate() {
            let mut total = self.bias[k];
            for (factor, sums) in scale.iter().zip(&scorer.sums) {
                total += factor * sums[k];
            }
            *logit = f64::from(total) / f64::from(self.temperature);
        }
        let probabilities = softmax(&logits);
        let mut top = 0;
        for k in 1..CLASSES {
            if probabilities[k] > probabilities[top] {
                top = k;
            }
        }
        let known = scorer
            .hits
            .iter()
            .filter(|h| h.group != Group::Structure)
            .count() as u32;
        let features = if explain == 0 {
            Vec::new()
        } else {
            self.explain(&scorer.hits, &scale, top, tokens, explain)
        };
        Scored {
            probabilities,
            top,
            known,
            features,
        }
    }

    fn explain(
        &self,
        hits: &[Hit],
        scale: &[f32; GROUPS],
        top: usize,
        tokens: &Tokens,
        limit: usize,
    ) -> Vec<FeatureWeight> {
        // Key: the origin, with named features told apart by their row.
        let key = |hit: &Hit| match hit.origin {
            Origin::Named => (hit.origin, hit.row),
            other => (other, 0),
        };
        let inverse = 1.0 / self.temperature;
        let mut merged: Vec<((Origin, u32), f32)> = Vec::with_capacity(hits.len() / 4 + 1);
        for hit in hits {
            let weight = self.weights.get(hit.row as usize).map_or(0.0, |w| w[top]);
            let contribution = hit.value * weight * scale[hit.group as usize] * inverse;
            let k = key(hit);
            match merged.last_mut() {
                Some((last, sum)) if *last == k => *sum += contribution,
                _ => merged.push((k, contribution)),
            }
        }
        merged.retain(|(_, c)| *c > 0.0);
        // Only the strongest can be shown: keep a few times as many as asked (the same word
        // elsewhere in the task contributes the same, so it is among them too).
        let keep = limit.saturating_mul(4).max(1);
        if merged.len() > keep {
            merged.select_nth_unstable_by(keep - 1, |a, b| b.1.total_cmp(&a.1));
            merged.truncate(keep);
        }
        merged.sort_unstable_by_key(|entry| entry.0);
        let mut totals: Vec<((Origin, u32), f32)> = Vec::with_capacity(merged.len());
        for (k, c) in merged {
            match totals.last_mut() {
                Some((last, sum)) if *last == k => *sum += c,
                _ => totals.push((k, c)),
            }
        }
        // The same word at two places is one feature to a reader: merge by label.
        let mut labeled: Vec<(FeatureKind, &str, f32)> = totals
            .into_iter()
            .map(|((origin, row), c)| {
                let slice = |s: u32, e: u32| {
                    tokens
                        .lowered
                        .get(s as usize..e as usize)
                        .unwrap_or("")
                        .trim()
                };
                let (kind, label) = match origin {
                    Origin::Word(s, e) => (FeatureKind::Word, slice(s, e)),
                    Origin::Phrase(s, e) => (FeatureKind::Phrase, slice(s, e)),
                    Origin::Cjk(s, e) => (FeatureKind::Characters, slice(s, e)),
                    Origin::Named => {
                        let name = self.names.get(row as usize).map_or("", |n| n);
                        let kind = if name.starts_with("l:") {
                            FeatureKind::Lexicon
                        } else {
                            FeatureKind::Structure
                        };
                        (kind, name)
                    }
                };
                (kind, label, c)
            })
            .collect();
        labeled.sort_unstable_by(|a, b| a.1.cmp(b.1).then((a.0 as u8).cmp(&(b.0 as u8))));
        let mut merged_labels: Vec<(FeatureKind, &str, f32)> = Vec::with_capacity(labeled.len());
        for (kind, label, c) in labeled {
            match merged_labels.last_mut() {
                Some((k, l, sum)) if *k == kind && *l == label => *sum += c,
                _ => merged_labels.push((kind, label, c)),
            }
        }
        merged_labels.sort_unstable_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(b.1)));
        merged_labels.truncate(limit);
        merged_labels
            .into_iter()
            .map(|(kind, label, c)| {
                let feature = match kind {
                    FeatureKind::Structure | FeatureKind::Lexicon => named(label),
                    _ => label.split_whitespace().collect::<Vec<_>>().join(" "),
                };
                FeatureWeight {
                    feature,
                    kind,
                    weight: (f64::from(c) * 1000.0).round() / 1000.0,
                }
            })
            .collect()
    }
}

/// A structural or lexicon feature's name as a reader sees it.
fn named(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("l:top ") {
        format!("lexicon top: {rest}")
    } else if let Some(rest) = name.strip_prefix("l:") {
        format!("lexicon: {rest}")
    } else {
        name.strip_prefix("s:").unwrap_or(name).to_owned()
    }
}

/// Softmax, stable for large logits.
pub(crate) fn softmax(logits: &[f64; CLASSES]) -> [f64; CLASSES] {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out = [0f64; CLASSES];
    let mut total = 0.0;
    for (o, l) in out.iter_mut().zip(logits) {
        *o = (l - max).exp();
        total += *o;
    }
    for o in &mut out {
        *o /= total;
    }
    out
}

/// Collects features by name for the trainer.
#[derive(Default)]
struct Named {
    values: BTreeMap<String, (Group, f32)>,
    emitted: [u32; GROUPS],
}

impl Sink for Named {
    fn feature(&mut self, group: Group, parts: &[&str], _: Origin, value: f32) {
        self.emitted[group as usize] += 1;
        let name: String = parts.concat();
        self.values.entry(name).or_insert((group, 0.0)).1 += value;
    }
}

/// The features of `raw`: names and values (text groups scaled by length, before the
/// model's group weights), sorted by name.
pub(crate) fn named_features(
    raw: &str,
    tokens: &Tokens,
    lexicon: &[f64; Category::ALL.len()],
) -> Vec<(String, f32)> {
    let mut sink = Named::default();
    extract(raw, tokens, lexicon, &mut sink);
    let emitted = sink.emitted;
    sink.values
        .into_iter()
        .map(|(name, (group, value))| {
            let scaled = value * group_scale(group, &emitted);
            (name, scaled)
        })
        .collect()
}
