//! The model catalog: parsing the five benchmark sources, matching their names to OpenRouter
//! models, normalizing metrics, scoring categories and producing [`card::ModelCard`]s.
//!
//! Pure: callers hand in bytes and get records, matches and cards back. Fetching lives in
//! `providers`, persistence in `store`, orchestration in `engine`.
//!
//! Pipeline: `sources::*::parse` → records → `matching` → `scoring` → `card::Catalog`.

pub mod build;
pub mod card;
pub mod matching;
pub mod metrics;
pub mod query;
pub mod record;
pub mod scoring;
pub mod snapshot;
pub mod sources;
pub mod view;
