//! The one crate that starts processes: no other crate of the workspace spawns one outside
//! its tests: git, verification commands and the coding-agent CLIs of attempts all start here.
//!
//! Entry points:
//! - [`process`]: the owned child. [`process::spawn`] gives every child its own process
//!   group, a cleared environment (an allowlist plus only what is passed for it), kill-on-drop
//!   of the whole group, cancel and timeout as SIGINT → SIGTERM → SIGKILL to the group, one
//!   exit monitor that records the final [`process::ProcessExit`], and a byte-capped,
//!   replayable [`process::OutputBuffer`]. [`process::run`] is the short-command form.
//!   [`process::spawn_detached`] is the one unowned child: a process meant to outlive this one
//!   (the CLI's `run --detach`), in its own group, without a terminal, not killed on drop.
//! - [`git`]: attempt worktrees, diff capture with the canonical hash, the attempt's commit,
//!   integration into the user's branch, the orphan sweep. The gates themselves are pure and
//!   live in `switchyard_core::review::gates`; the runner only gathers their inputs with git.
//! - [`verify`]: runs verification commands in a directory through [`process`] and records
//!   exit code, duration, parsed pass/fail counts, a SHA-256 of the whole log and its tail.
//! - [`sandbox`]: the bubblewrap sandbox every worker and verification command runs in, and
//!   the egress proxy that is a provider-only worker's one way out.
//! - [`tools`]: finding `git` and the coding-agent CLIs, and their versions.
//!
//! Nothing else in the workspace spawns processes: the workspace `clippy.toml` disallows
//! `std::process::Command::new` and `tokio::process::Command::new`, allowed only in
//! [`process`] (git's own command helper, `git::cmd`, goes through it too) and in test files
//! that drive real binaries. No dependency on storage, HTTP, secrets or the UI; the pure
//! parsing (worker transcripts, test summaries, gates) lives in `core`.

pub mod files;
pub mod git;
pub mod process;
pub mod sandbox;
pub mod tools;
pub mod verify;
