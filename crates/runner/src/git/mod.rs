//! Git for attempts, always through the `git` CLI: worktrees in Switchyard's data dir, diff
//! capture with a canonical hash, the attempt's commit and its integration into the user's
//! branch.
//!
//! Layout under the data dir: `worktrees/<attempt>` (one worktree per attempt, on branch
//! `switchyard/<attempt>`, never inside the user's repository), `git/index/<attempt>` (the
//! private index capture stages into, seeded when the worktree is created, so a worker editing
//! the worktree's own index cannot change what is captured), `git/locks/<key>.lock` (one lock
//! per repository, keyed by the SHA-256 of its canonical common git dir, held by every
//! operation that touches the repository's refs).
//!
//! Every invocation runs with hooks off, signing off, no credential helper and no network
//! transport (see `cmd`). Nothing here pushes, fetches or touches a remote. Integration
//! moves the target branch by compare-and-swap and never overwrites the user's uncommitted
//! changes: it refuses instead.

mod capture;
mod cmd;
mod error;
mod integrate;
mod lock;
mod repo;
mod snapshot;
mod worktree;

pub use capture::Capture;
pub use cmd::{Git, DEFAULT_TIMEOUT};
pub use error::GitError;
pub use integrate::{integrate, Identity, Integration, IntegrationKind};
pub use lock::{RepoLock, LOCK_WAIT};
pub use repo::{Base, Repo, MAX_DIRTY_LISTED};
pub use snapshot::{Area, RepoChange, RepoSnapshot};
pub use worktree::{orphans, sweep, sweep_keeping, Orphans, Worktree, BRANCH_PREFIX};
