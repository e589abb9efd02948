//! HTTP: fetching catalog sources and talking to model providers (OpenAI-compatible,
//! Anthropic, local Ollama / LM Studio servers).
//!
//! Keys come in as arguments from the caller; this crate never reads the keychain, the database
//! or the filesystem.

pub mod local;
