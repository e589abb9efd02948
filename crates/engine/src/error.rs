use std::path::PathBuf;

use switchyard_core::error::ErrorCode;
use switchyard_core::roles::RoleError;
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
    /// The roles composer refused the request (empty task, limits, unknown preset, bad
    /// roles file); the code comes from [`RoleError::code`].
    #[error(transparent)]
    Role(#[from] RoleError),
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
            EngineError::Role(e) => e.code(),
        }
    }
}
