//! The one error type of Switchyard's git operations, in domain terms.

use std::path::PathBuf;
use std::time::Duration;

use switchyard_core::review::diff::DiffError;
use switchyard_core::review::raw::RawParseError;

/// Everything a worktree, capture, commit or integrate operation can fail with.
///
/// Messages name the repository, branch, path or files involved and never include file
/// contents. `Failed` carries git's own stderr (trimmed and capped) for the log.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` is not installed or not on `PATH`.
    #[error("git is not installed or not on PATH")]
    GitMissing,
    /// A git command did not finish in time; its process group was killed.
    #[error("git {command} did not finish within {timeout:?}")]
    Timeout {
        /// The git subcommand.
        command: String,
        /// The limit.
        timeout: Duration,
    },
    /// A git command failed in a way that has no domain meaning.
    #[error("git {command} failed (exit {code:?}): {stderr}")]
    Failed {
        /// The git subcommand.
        command: String,
        /// Its exit code (`None` when killed by a signal).
        code: Option<i32>,
        /// Its stderr, trimmed and capped.
        stderr: String,
    },
    /// A file or directory Switchyard manages could not be read or written.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, naming the path.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The path is not inside a git working tree (bare repositories are not supported).
    #[error("{} is not a git repository with a working tree", path.display())]
    NotARepo {
        /// The path given.
        path: PathBuf,
    },
    /// The repository has no commit to use as the base (an unborn branch), or the pinned base
    /// commit does not exist in it.
    #[error("base commit {commit} is missing from the repository")]
    BaseMissing {
        /// The commit (or `HEAD`).
        commit: String,
    },
    /// A branch that should exist does not.
    #[error("branch {branch} does not exist")]
    BranchMissing {
        /// The branch name (without `refs/heads/`).
        branch: String,
    },
    /// An attempt id that cannot name a worktree and a branch.
    #[error("attempt id {id:?} is invalid: use 1–64 letters, digits, '-' or '_'")]
    InvalidAttemptId {
        /// The id given.
        id: String,
    },
    /// The worktree directory or the attempt's branch already exists.
    #[error("a worktree or branch for attempt {attempt} already exists at {}", path.display())]
    WorktreeExists {
        /// The attempt.
        attempt: String,
        /// Its worktree path.
        path: PathBuf,
    },
    /// The attempt's worktree is gone.
    #[error("the worktree of attempt {attempt} is missing at {}", path.display())]
    WorktreeMissing {
        /// The attempt.
        attempt: String,
        /// Where it should be.
        path: PathBuf,
    },
    /// Switchyard's data dir lies inside the user's repository; worktrees must live elsewhere.
    #[error("the data dir {} is inside the repository {}; worktrees must live outside it", data_dir.display(), repo.display())]
    InsideRepo {
        /// The data dir.
        data_dir: PathBuf,
        /// The repository's working tree.
        repo: PathBuf,
    },
    /// Another Switchyard operation holds the repository's lock, or git's own lock
    /// (`index.lock`, a ref lock) is held by another process.
    #[error("the repository {} is busy: {reason}", repo.display())]
    Busy {
        /// The repository.
        repo: PathBuf,
        /// What holds it.
        reason: String,
    },
    /// The change does not merge cleanly into the target branch. Nothing was changed.
    #[error("merging into {branch} conflicts in {}", files.join(", "))]
    Conflict {
        /// The target branch.
        branch: String,
        /// The conflicting files.
        files: Vec<String>,
    },
    /// The target branch is checked out and the user's uncommitted changes touch files the
    /// integration would change. Nothing was changed.
    #[error("uncommitted changes in {} touch files the integration changes: {}", worktree.display(), files.join(", "))]
    Dirty {
        /// The user's worktree that has the target branch checked out.
        worktree: PathBuf,
        /// The overlapping files.
        files: Vec<String>,
    },
    /// A merge, rebase, cherry-pick or revert is in progress where the target branch is
    /// checked out.
    #[error("a {operation} is in progress in {}; finish or abort it first", worktree.display())]
    InProgress {
        /// Which operation.
        operation: String,
        /// Where.
        worktree: PathBuf,
    },
    /// The target branch moved while integrating (someone committed); nothing was changed.
    #[error("branch {branch} moved during integration; try again")]
    TargetMoved {
        /// The branch.
        branch: String,
    },
    /// The worktree changed since the hash the caller verified.
    #[error("the worktree changed since verification (diff {expected} is now {actual})")]
    Changed {
        /// The verified hash.
        expected: String,
        /// The hash now.
        actual: String,
    },
    /// Git's output could not be read.
    #[error("git output could not be read: {0}")]
    Unreadable(String),
}

impl From<DiffError> for GitError {
    fn from(error: DiffError) -> Self {
        GitError::Unreadable(error.to_string())
    }
}

impl From<RawParseError> for GitError {
    fn from(error: RawParseError) -> Self {
        GitError::Unreadable(error.to_string())
    }
}

impl GitError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        GitError::Io {
            context: context.into(),
            source,
        }
    }
}
