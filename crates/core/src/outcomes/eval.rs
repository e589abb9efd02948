//! `outcomes eval`: train the failure predictor on the seeded train part of an outcome table
//! and score it on the rest.

use serde::Serialize;

use super::split::train_test;
use super::sweep::sweep;
use super::tune::fit_tuned;
use super::{OutcomeError, OutcomeRow};

/// The seed when none is given.
pub const DEFAULT_SEED: u64 = 42;
/// The share of rows trained on when none is given.
pub const DEFAULT_TRAIN_FRACTION: f64 = 0.7;
/// Fewer rows than this on either side of the split say nothing about a router.
const MIN_ROWS: usize = 2;

/// The evaluation's figures, as the CLI prints them (the names are a contract).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct OutcomeEval {
    pub n_train: usize,
    pub n_test: usize,
    /// Accuracy of each model on the test rows.
    pub weak_accuracy: f64,
    pub strong_accuracy: f64,
    /// Area under the performance-gap-recovered curve (random ≈ 0.5); `null` when both
    /// models are equally accurate on the test rows.
    pub apgr: Option<f64>,
    /// The smallest share of test prompts sent to the strong model that recovers 50 % (80 %)
    /// of the gap.
    pub cpt50: Option<f64>,
    pub cpt80: Option<f64>,
    pub seed: u64,
    pub train_fraction: f64,
    /// Share of the test prompts on which the weak model failed.
    pub weak_failure_rate: f64,
}

/// Splits `rows` by `seed`, trains on the train part's prompts and labels only, and sweeps
/// the test part.
pub fn evaluate_outcomes(
    rows: &[OutcomeRow],
    seed: u64,
    train_fraction: f64,
) -> Result<OutcomeEval, OutcomeError> {
    if !(train_fraction > 0.0 && train_fraction < 1.0) {
        return Err(OutcomeError::TrainFraction(train_fraction.to_string()));
    }
    let (train, test) = train_test(rows.len(), seed, train_fraction);
    if train.len() < MIN_ROWS || test.len() < MIN_ROWS {
        return Err(OutcomeError::TooFew(format!(
            "{} rows split into {} to train on and {} to test: each part needs at least {MIN_ROWS}",
            rows.len(),
            train.len(),
            test.len()
        )));
    }
    let train_rows: Vec<&OutcomeRow> = train.iter().map(|&at| &rows[at]).collect();
    let tuned = fit_tuned(&train_rows, seed);
    let predictor = tuned.predictor;
    let test_rows: Vec<&OutcomeRow> = test.iter().map(|&at| &rows[at]).collect();
    let prompts: Vec<&str> = test_rows.iter().map(|row| row.prompt.as_str()).collect();
    let result = sweep(&test_rows, &predictor.scores(&prompts));
    Ok(OutcomeEval {
        n_train: train.len(),
        n_test: test.len(),
        weak_accuracy: result.weak_accuracy,
        strong_accuracy: result.strong_accuracy,
        apgr: result.apgr,
        cpt50: result.cpt50,
        cpt80: result.cpt80,
        seed,
        train_fraction,
        weak_failure_rate: 1.0 - result.weak_accuracy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table where the weak model fails every "proof" prompt and the strong one gets
    /// everything right: a predictor that reads the prompt must beat chance clearly.
    fn learnable(n: usize) -> Vec<OutcomeRow> {
        (0..n)
            .map(|i| {
                let hard = i % 3 == 0;
                OutcomeRow {
                    prompt: if hard {
                        format!("prove the inequality for the sequence a_{i}")
                    } else {
                        format!("what colour is item {i} in the picture")
                    },
                    weak_correct: !hard,
                    strong_correct: true,
                }
            })
            .collect()
    }

    #[test]
    fn a_learnable_table_scores_well_above_chance() {
        let eval = evaluate_outcomes(&learnable(300), 5, 0.7).expect("evaluates");
        assert_eq!((eval.n_train, eval.n_test), (210, 90));
        // A perfect router sends the hard third first: PGR climbs to 1 at a share of 1/3
        // and stays there, an area of 1/6 + 2/3 ≈ 0.83.
        let apgr = eval.apgr.expect("a gap exists");
        assert!(apgr > 0.8, "apgr {apgr}");
        let cpt50 = eval.cpt50.expect("reached");
        assert!(cpt50 < 0.25, "cpt50 {cpt50}");
    }

    #[test]
    fn labels_the_prompt_does_not_explain_score_near_chance() {
        // The same prompt text with labels by a rule on the row number, which the
        // predictor never sees.
        let rows: Vec<OutcomeRow> = (0..600)
            .map(|i| OutcomeRow {
                prompt: format!("question {}", ["alpha", "beta", "gamma"][i % 3]),
                weak_correct: (i * 7919) % 5 > 1,
                strong_correct: true,
            })
            .collect();
        let apgr = evaluate_outcomes(&rows, 9, 0.7)
            .expect("evaluates")
            .apgr
            .expect("a gap exists");
        assert!((0.35..0.65).contains(&apgr), "apgr {apgr}");
    }

    #[test]
    fn bad_fractions_and_tiny_tables_are_refused() {
        let rows = learnable(10);
        assert!(matches!(
            evaluate_outcomes(&rows, 1, 1.0),
            Err(OutcomeError::TrainFraction(_))
        ));
        assert!(matches!(
            evaluate_outcomes(&rows[..2], 1, 0.5),
            Err(OutcomeError::TooFew(_))
        ));
    }
}
