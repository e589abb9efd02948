//! The one crate that starts processes: no other crate of the workspace spawns one outside
//! its tests. Today that is finding tools on `PATH` and asking `git` for its version
//! ([`tools`]); worktrees, worker CLIs and verification commands are to come here too.
//!
//! Every child started here is bounded by a timeout and killed when its handle is dropped
//! (so a timeout kills it). Children do not get a process group of their own yet, so a
//! child's own children are not killed with it; that comes with the process owner the worker
//! adapters need. No dependency on storage, HTTP, secrets or the UI.

pub mod tools;
