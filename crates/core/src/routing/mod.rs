//! Routing: classify a task, pick or recommend models for it, learn from ratings, and
//! decompose larger tasks into sequential plans or swarm DAGs with a model per step.
//!
//! Pure and deterministic: the engine hands in the catalog, the ratings and which models are
//! usable; nothing here reads a database, a key or the network. Data files under
//! `crates/core/data/routing/` (classification words, context metrics, planning words) are
//! embedded at build time and compiled once on first use; stack ids and their spellings come
//! from the roles library's stack blocks.
//!
//! Entry points: [`classify`], [`pick`], [`recommend`], [`plan::plan`], [`plan::swarm`],
//! [`plan::validate_plan`], [`plan::recompute`], [`plan::planner::resolve_plan`].

#![warn(missing_docs)]

mod assist;
mod budget;
mod classify;
mod context;
mod error;
mod evaluate;
mod feedback;
mod learned;
mod lexicon;
mod matcher;
mod model;
mod pick;
pub mod plan;
mod rank;
mod reason;
mod recommend;
mod request;
mod signals;
mod task;
mod text;
mod worker;

pub use assist::{
    assist_schema, parse_assist_answer, ClassifierSettings, ASSIST_INSTRUCTIONS,
    DEFAULT_ASSIST_THRESHOLD,
};
pub use budget::{budget_tiers, Budget, BudgetTier, BudgetTierView, Nudge};
pub use classify::{
    classify, AssistVerdict, CategoryWeight, Classification, Classifier, MatchedTerm,
    ANSWER_RESERVE_TOKENS, EXPLAINED_FEATURES, LONG_CONTEXT_MIN_TOKENS, NO_SIGNAL_CONFIDENCE,
};
pub use error::RoutingError;
pub use evaluate::{
    detect_lang, evaluate, parse_eval_tsv, Confusion, Evaluation, GroupAccuracy, LabeledTask,
    Misclassified,
};
pub use feedback::{FeedbackIndex, FeedbackSummary, Rating, MAX_SWING, PRIOR_RATINGS};
pub use learned::{
    prior_from_score, task_feature_keys, AgentPreference, Evidence, FeatureEvidence,
    LearnedEstimate, LearnedIndex, LearningSettings, TaskPrediction, FEATURE_PSEUDO_OUTCOMES,
    HALF_LIFE_DAYS, MIN_SKIP_EVIDENCE, OWN_HISTORY_WEIGHT, PRIOR_OUTCOMES,
};
pub use lexicon::StackSpelling;
pub use matcher::TermError;
pub use model::{
    builtin_model_bytes, builtin_model_info, builtin_model_manifest, FeatureKind, FeatureWeight,
    ModelInfo, TaskModel, CLASSES, FEATURE_GROUPS,
};
pub use pick::{pick, Pick, ALTERNATIVES, SHORTLIST};
pub use rank::{coverage_adjustment, COVERAGE_PENALTY};
pub use reason::{MetricValue, RankedModel, Reason};
pub use recommend::{recommend, Recommendation, MAX_RECOMMENDATIONS};
pub use request::{Rejections, RouteContext, RouteRequest};
pub use signals::{Hints, Needs, Signals};
pub use task::{
    check_rating, PastPick, PickAnswer, PlanCheck, PlanTaskRequest, PlannerChoice,
    RouteTaskRequest, ValidPlanTask,
};
pub use worker::{agent_workers, model_worker, WorkerSuggestion};

/// Checks that every built-in routing data file compiles (for `doctor`; tests guarantee it,
/// and a broken file would otherwise only show as poor routing).
pub fn check_builtin_data() -> Result<(), RoutingError> {
    Classifier::with_stacks(&lexicon::builtin_stacks())?;
    context::check_builtin()?;
    plan::check_builtin()?;
    Ok(())
}
