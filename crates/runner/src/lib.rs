//! Everything that starts a process lives here: git, worker CLIs, verification commands.
//!
//! Each child gets an owner (process group, kill on drop, timeout); nothing else in the
//! workspace spawns processes. No dependency on storage, HTTP, secrets or the UI.
//!
//! Entry points: [`git`] (attempt worktrees, diff capture with the canonical hash, the
//! attempt's commit, integration into the user's branch, the orphan sweep) and [`tools`]
//! (finding `git` and the agent CLIs). The gates themselves are pure and live in
//! `switchyard_core::review::gates`; the runner only gathers their inputs with git.

pub mod git;
pub mod tools;
