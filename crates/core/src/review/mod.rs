//! Reviewing a worker's change before anything merges: the captured diff and the gates.
//!
//! The runner captures a worktree's change against the attempt's pinned base commit with the
//! `git` CLI and hands the raw bytes here: [`diff::CapturedDiff::assemble`] turns git's
//! `--raw -z` listing and the canonical patch into the per-file model the UI and the gates read,
//! and hashes the canonical patch (SHA-256) so approve can prove nothing changed since
//! verification. [`gates`] are pure checks over that model; they never touch a disk.

pub mod diff;
pub mod gates;
mod patch;
mod quote;
pub mod raw;

pub use patch::PatchError;
