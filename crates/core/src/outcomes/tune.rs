//! Fitting the predictor to one user's data: what it should learn (the gain from the strong
//! model, or only where the strong model wins) and how much each part of it counts differ
//! from one kind of task to another — on word problems a prompt's length says most, on
//! mixed-subject questions its topic does. Both are chosen by two-fold cross-validation
//! inside the training rows (never the rows it is scored on), then the predictor is trained
//! on all training rows with the winning choice.

use super::predictor::{blend, FailurePredictor, PredictorSettings};
use super::split::train_test;
use super::sweep::sweep;
use super::OutcomeRow;

/// What the predictor learns per prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// 1 where only the strong model is right, ½ where routing does not matter, 0 where only
    /// the weak one is.
    Gain,
    /// 1 where only the strong model is right, else 0.
    StrongWins,
}

impl Target {
    pub fn of(self, row: &OutcomeRow) -> f32 {
        let (weak, strong) = (row.weak_correct, row.strong_correct);
        match self {
            Target::Gain => (1.0 + f32::from(u8::from(strong)) - f32::from(u8::from(weak))) / 2.0,
            Target::StrongWins => f32::from(u8::from(strong && !weak)),
        }
    }
}

const TARGETS: [Target; 2] = [Target::Gain, Target::StrongWins];
/// Blend shares tried, in tenths: (neighbours, shape), the rest to the word regression.
const STEPS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// A held-out fold's rows and the parts a predictor trained on the other fold gives them.
type Fold<'a> = (Vec<&'a OutcomeRow>, Vec<(f64, f64, f64)>);

/// The chosen target and blend, and the predictor trained on every row with them.
#[derive(Debug, Clone)]
pub struct Tuned {
    pub target: Target,
    pub predictor: FailurePredictor,
    /// Mean validation APGR of the choice across the two folds.
    pub validation_apgr: f64,
}

/// Chooses target and blend on two folds of `rows`, then trains on all of them.
pub fn fit_tuned(rows: &[&OutcomeRow], seed: u64) -> Tuned {
    let base = PredictorSettings::default();
    let (a, b) = train_test(rows.len(), seed ^ 0x5eed, 0.5);
    let mut best = (Target::Gain, base, f64::NEG_INFINITY);
    for target in TARGETS {
        // Each fold's parts are computed once; the blends only re-rank them.
        let folds: Vec<Fold> = [(&a, &b), (&b, &a)]
            .into_iter()
            .map(|(fit, held)| {
                let examples: Vec<(&str, f32)> = fit
                    .iter()
                    .map(|&at| (rows[at].prompt.as_str(), target.of(rows[at])))
                    .collect();
                let predictor = FailurePredictor::fit(&examples, base, seed);
                let held: Vec<&OutcomeRow> = held.iter().map(|&at| rows[at]).collect();
                let prompts: Vec<&str> = held.iter().map(|row| row.prompt.as_str()).collect();
                let parts = predictor.parts(&prompts);
                (held, parts)
            })
            .collect();
        for neighbours in STEPS {
            for shape in STEPS.into_iter().filter(|s| neighbours + s <= 1.0 + 1e-9) {
                let apgr = folds
                    .iter()
                    .map(|(held, parts)| {
                        sweep(held, &blend(parts, neighbours, shape))
                            .apgr
                            .unwrap_or(0.5)
                    })
                    .sum::<f64>()
                    / folds.len() as f64;
                if apgr > best.2 {
                    let settings = PredictorSettings {
                        neighbour_weight: neighbours,
                        shape_weight: shape,
                        ..base
                    };
                    best = (target, settings, apgr);
                }
            }
        }
    }
    let (target, settings, validation_apgr) = best;
    let examples: Vec<(&str, f32)> = rows
        .iter()
        .map(|row| (row.prompt.as_str(), target.of(row)))
        .collect();
    Tuned {
        target,
        predictor: FailurePredictor::fit(&examples, settings, seed),
        validation_apgr,
    }
}
