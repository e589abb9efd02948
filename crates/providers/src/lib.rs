//! HTTP: fetching catalog sources and talking to model providers (OpenAI-compatible,
//! Anthropic, local Ollama / LM Studio servers).
//!
//! Keys come in as `&Secret` arguments from the caller; this crate never reads the keychain,
//! the database or the filesystem, and no error, log line or `Debug` output of it contains a
//! key. Entry points: [`client::ModelClient`] (every model call), [`registry`] (built-in and
//! custom providers), [`route::route`] (which provider serves a model id),
//! [`probe::test_provider`] (the Keys page's Test), [`local::list_models`] (the one probe of
//! a local server) and [`sources::fetch`]. Every request goes through [`http`]: keys stay on
//! their origin, bodies are read against a byte cap.

pub mod client;
pub mod http;
pub mod local;
pub mod probe;
pub mod registry;
pub mod route;
pub mod sources;
