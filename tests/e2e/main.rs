//! End-to-end tests against the real app window. See `harness.rs`.

mod agents;
mod harness;
// The scripted OpenAI-compatible server of the providers crate's tests (keys, model worker).
#[path = "../../crates/providers/tests/support/mod.rs"]
mod http;
mod keys;
mod models;
mod palette;
mod procs;
mod review;
mod review_gallery;
mod review_model;
mod roles;
mod route;
mod runs;
mod runs_code;
mod shell;
