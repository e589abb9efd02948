//! HTTP: fetching catalog sources and talking to model providers (OpenAI-compatible,
//! Anthropic, local Ollama / LM Studio servers).
//!
//! Keys come in as `&Secret` arguments from the caller; this crate never reads the keychain,
//! the database or the filesystem, and no error, log line or `Debug` output of it contains a
//! key. Entry points: [`client::ModelClient`] (every model call), [`registry`] (built-in and
//! custom providers), [`route::route`] (which provider serves a model id),
//! [`probe::test_provider`] (the Keys page's Test) and [`local::list_models`].

pub mod client;
pub mod local;
pub mod probe;
pub mod registry;
pub mod route;
pub mod sources;
