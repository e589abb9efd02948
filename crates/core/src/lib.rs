//! Switchyard's domain: the types every other crate speaks and the pure logic over them:
//! catalog parsing, matching and scoring ([`catalog`]), task classification, model routing and
//! planning ([`routing`]), roles composition ([`roles`]), provider and doctor types
//! ([`providers`], [`doctor`]), the script facts and token estimate they share ([`text`]),
//! coding-agent invocations and transcript parsing ([`worker`]), test-runner summaries
//! ([`verify`]), [`review`]: the captured-diff model with its canonical hash and the gates
//! over it, [`attempt`]: an attempt's states with their pure transitions and the review shapes,
//! [`run`]: run modes, run and node state machines, limits, the USD ledger, DAG scheduling,
//! node context, cascades and savings, [`origin`]: the origin a provider key is bound to, and
//! [`agent_connect`]: the snippets that connect a coding agent to Switchyard's MCP server.
//!
//! No IO, no async runtime, no `tauri`: everything here is a function of its inputs, so it is
//! tested without a disk, a network or a display. Types that cross the IPC boundary derive
//! `specta::Type` here, once, so the desktop shell and the CLI serialize the same shapes.

pub mod agent_connect;
pub mod attempt;
pub mod catalog;
pub mod compare;
pub mod confinement;
pub mod doctor;
pub mod error;
pub mod feed;
pub mod first_run;
mod hash;
pub mod info;
pub mod notice;
pub mod origin;
pub mod outcomes;
pub mod palette;
pub mod providers;
pub mod review;
pub mod roles;
pub mod routing;
pub mod run;
pub mod state_words;
pub mod text;
pub mod verify;
pub mod worker;
