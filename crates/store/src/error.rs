use std::path::{Path, PathBuf};

/// Everything that can go wrong in storage. Messages name the file so that the user can act.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened: unwritable directory, not a database, locked.
    #[error("cannot open database {path}: {source}")]
    Open { path: PathBuf, source: sqlx::Error },
    /// A migration failed, or the database was written by a newer Switchyard.
    #[error("cannot migrate database {path}: {source}")]
    Migrate {
        path: PathBuf,
        source: sqlx::migrate::MigrateError,
    },
    /// Another process kept the database's open lock (it was migrating) for too long, or the
    /// lock file could not be used.
    #[error("cannot lock database {path} for opening: {reason}")]
    Lock { path: PathBuf, reason: String },
    /// A query failed.
    #[error("database error: {0}")]
    Query(#[from] sqlx::Error),
    /// A write could not finish: the task running it panicked or its runtime shut down.
    #[error("database write interrupted: {0}")]
    Interrupted(String),
    /// A stored value could not be decoded.
    #[error("corrupt value in {table}: {detail}")]
    Corrupt { table: &'static str, detail: String },
}

impl StoreError {
    pub(crate) fn open(path: &Path, source: sqlx::Error) -> Self {
        Self::Open {
            path: path.to_path_buf(),
            source,
        }
    }
}
