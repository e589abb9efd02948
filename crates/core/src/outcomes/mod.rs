//! Outcomes as data: what happened when a task went to a model ([`OutcomeRecord`], read
//! from the journal), and the predictor that learns from outcomes whether the cheap rung of a
//! cascade will fail.
//!
//! [`evaluate_outcomes`] is the product's own check of that predictor on a user's data (the
//! CLI's `outcomes eval FILE.csv`): a seeded train/test split of an outcome table, the
//! predictor trained from scratch on the train rows' prompts only, and the test rows scored
//! the way RouteLLM scores a router ([`sweep`]).

mod eval;
mod features;
mod predictor;
mod record;
mod split;
mod sweep;
mod table;
mod tune;

pub use eval::{evaluate_outcomes, OutcomeEval, DEFAULT_SEED, DEFAULT_TRAIN_FRACTION};
pub use predictor::{blend, FailurePredictor, PredictorSettings};
pub use record::{outcomes_csv, OutcomeFilter, OutcomeKind, OutcomeRecord, TaskFeatures};
pub use split::train_test;
pub use sweep::{sweep, Sweep};
pub use table::{read_outcome_csv, OutcomeRow};
pub use tune::{fit_tuned, Target, Tuned};

/// Why an outcome table could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutcomeError {
    #[error("the outcome table is not valid CSV: {0}")]
    Csv(String),
    #[error(
        "the outcome table has no `{0}` column (it needs prompt, weak_correct and strong_correct)"
    )]
    MissingColumn(String),
    #[error("line {line}: `{column}` must be True or False, got `{value}`")]
    NotABoolean {
        column: String,
        line: u64,
        value: String,
    },
    #[error("--train-fraction must be above 0 and below 1, got {0}")]
    TrainFraction(String),
    #[error("{0}")]
    TooFew(String),
}
