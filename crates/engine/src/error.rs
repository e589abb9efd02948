use std::path::PathBuf;

use switchyard_core::error::ErrorCode;
use switchyard_core::roles::RoleError;
use switchyard_keychain::{InvalidKey, KeychainError};
use switchyard_providers::client::ClientError;
use switchyard_runner::git::GitError;
use switchyard_store::StoreError;

/// Errors of engine use cases. Each maps to one [`ErrorCode`] for the UI and the CLI.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The data directory is unusable.
    #[error("data directory {path}: {detail}", path = .path.display())]
    Home { path: PathBuf, detail: String },
    /// The database could not be opened or migrated at start-up.
    #[error("{0}")]
    Startup(StoreError),
    /// A database operation failed later on.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Bad request.
    #[error("{0}")]
    InvalidInput(String),
    /// Unknown id.
    #[error("{0}")]
    NotFound(String),
    /// A bug or a crashed background task.
    #[error("internal error: {0}")]
    Internal(String),
    /// The keychain is unavailable, locked or failed; the message says how to fix it.
    #[error(transparent)]
    Keychain(KeychainError),
    /// A provider key is needed and none is stored or set in the environment.
    #[error("{0}")]
    MissingCredential(String),
    /// A stored key is held for another origin than the one the request would go to; it
    /// was not sent. The message names both origins and how to move the key.
    #[error("{0}")]
    KeyOriginMismatch(String),
    /// A key would go over plain http to another host; nothing was sent.
    #[error("{0}")]
    InsecureOrigin(String),
    /// A model provider failed; the message is the provider's own where it gave one.
    #[error("{provider}: {source}")]
    Provider {
        /// The provider id.
        provider: String,
        /// What the client saw (never contains the key).
        source: ClientError,
    },
    /// The work is already running (a catalog refresh); the message names it.
    #[error("{0}")]
    Busy(String),
    /// The work stopped because the engine is closing.
    #[error("{0}")]
    Canceled(String),
    /// The roles composer refused the request (empty task, limits, unknown preset, bad
    /// roles file); the code comes from [`RoleError::code`].
    #[error(transparent)]
    Role(#[from] RoleError),
    /// A worker or a verification command ran out of time; its process group was stopped.
    #[error("{0}")]
    Timeout(String),
    /// Integrating does not merge cleanly (the message names the files), or uncommitted
    /// changes in the user's working tree overlap it. Nothing was changed.
    #[error("{0}")]
    Conflict(String),
    /// A gate blocks the attempt; the message names the gate and its first finding.
    #[error("{0}")]
    GateFailed(String),
    /// The change touches a locked path; the message names it.
    #[error("{0}")]
    LockedPath(String),
    /// The worktree changed since it was verified; approve refuses.
    #[error("{0}")]
    Changed(String),
    /// The worker could not start, exited non-zero or reported failure.
    #[error("{0}")]
    WorkerFailed(String),
    /// A git operation failed; the code follows its kind (conflict, busy, changed, …).
    #[error(transparent)]
    Git(#[from] GitError),
    /// No sandbox can confine workers here and unconfined ones are not allowed; the message
    /// says why and how to fix it.
    #[error("{0}")]
    ConfinementUnavailable(String),
    /// A file or directory of Switchyard's own could not be written.
    #[error("{0}")]
    Io(String),
}

impl EngineError {
    /// The code the UI and scripts switch on.
    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::Home { .. } | EngineError::Startup(_) => ErrorCode::Startup,
            EngineError::Store(_) => ErrorCode::Database,
            EngineError::InvalidInput(_) => ErrorCode::InvalidInput,
            EngineError::NotFound(_) => ErrorCode::NotFound,
            EngineError::Internal(_) => ErrorCode::Internal,
            EngineError::Keychain(_) => ErrorCode::Keychain,
            EngineError::MissingCredential(_) => ErrorCode::MissingCredential,
            EngineError::KeyOriginMismatch(_) => ErrorCode::KeyOriginMismatch,
            EngineError::InsecureOrigin(_) => ErrorCode::InsecureOrigin,
            EngineError::Provider { .. } => ErrorCode::Provider,
            EngineError::Busy(_) => ErrorCode::Busy,
            EngineError::Canceled(_) => ErrorCode::Canceled,
            EngineError::Role(e) => e.code(),
            EngineError::Timeout(_) => ErrorCode::Timeout,
            EngineError::Conflict(_) => ErrorCode::Conflict,
            EngineError::GateFailed(_) => ErrorCode::GateFailed,
            EngineError::LockedPath(_) => ErrorCode::LockedPath,
            EngineError::Changed(_) => ErrorCode::Changed,
            EngineError::WorkerFailed(_) => ErrorCode::WorkerFailed,
            EngineError::Git(e) => git_code(e),
            EngineError::ConfinementUnavailable(_) => ErrorCode::ConfinementUnavailable,
            EngineError::Io(_) => ErrorCode::Io,
        }
    }
}

impl From<InvalidKey> for EngineError {
    /// A refused key is bad input; the message never contains the key.
    fn from(error: InvalidKey) -> Self {
        EngineError::InvalidInput(error.to_string())
    }
}

impl From<switchyard_core::run::RunOptionsError> for EngineError {
    /// Launch options that do not fit together are bad input.
    fn from(error: switchyard_core::run::RunOptionsError) -> Self {
        EngineError::InvalidInput(error.to_string())
    }
}

/// The code of a git failure, in domain terms.
fn git_code(error: &GitError) -> ErrorCode {
    match error {
        GitError::Conflict { .. } | GitError::Dirty { .. } | GitError::InProgress { .. } => {
            ErrorCode::Conflict
        }
        GitError::Changed { .. } => ErrorCode::Changed,
        GitError::Busy { .. } | GitError::TargetMoved { .. } => ErrorCode::Busy,
        GitError::Timeout { .. } => ErrorCode::Timeout,
        GitError::NotARepo { .. }
        | GitError::BaseMissing { .. }
        | GitError::BranchMissing { .. }
        | GitError::InvalidAttemptId { .. }
        | GitError::InsideRepo { .. } => ErrorCode::InvalidInput,
        GitError::WorktreeMissing { .. } => ErrorCode::NotFound,
        GitError::Io { .. } => ErrorCode::Io,
        GitError::GitMissing
        | GitError::Failed { .. }
        | GitError::WorktreeExists { .. }
        | GitError::Unreadable(_) => ErrorCode::Internal,
    }
}
