//! The routing module's error type.

use crate::catalog::card::Category;

use super::matcher::TermError;

/// Why a routing data file, a request or a planner output was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoutingError {
    /// A routing data file is not valid JSON of the expected shape.
    #[error("routing data file {file} is invalid: {message}")]
    Data {
        /// The file (`classify.json`, `plan.json`, `context.json`).
        file: &'static str,
        /// What is wrong, with the offending entry.
        message: String,
    },
    /// A term in a data file cannot be compiled.
    #[error("routing data file {file}: {source}")]
    Term {
        /// The file holding the term.
        file: &'static str,
        /// The term's problem.
        source: TermError,
    },
    /// No model satisfies the request; `rejected` says which filter removed how many.
    #[error("no {category:?} model fits: {rejected}")]
    NoCandidate {
        /// The category asked for.
        category: Category,
        /// Counts per filter, in filter order.
        rejected: String,
    },
    /// A routing request is malformed (empty task, bad price cap, unknown need, rating
    /// outside 1–5).
    #[error("{0}")]
    InvalidRequest(String),
    /// `recommend` takes 1 to 10 models.
    #[error("recommend count must be 1..=10, got {0}")]
    InvalidCount(u32),
    /// The model planner's output could not be used; the deterministic planner takes over.
    #[error("model planner output rejected: {0}")]
    PlannerOutput(String),
}
