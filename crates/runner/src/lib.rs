//! Everything that starts a process lives here: git, worker CLIs, verification commands.
//!
//! Each child gets an owner (process group, kill on drop, timeout); nothing else in the
//! workspace spawns processes. No dependency on storage, HTTP, secrets or the UI.

pub mod tools;
