//! Switchyard's storage: one SQLite file (WAL) opened through sqlx, migrations applied at open,
//! and one repository module per table group.
//!
//! This is the only crate that contains SQL. It knows nothing of HTTP, processes, secrets or
//! the UI. Entry point: [`Store::open`].

pub mod attempts;
pub mod catalog;
mod error;
pub mod journal;
pub mod keys;
pub mod lease;
mod lock;
pub mod outcomes;
pub mod providers;
pub mod roles;
pub mod routing;
pub mod runs;
pub mod settings;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

pub use error::StoreError;

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How long [`Store::open`] waits for another process that is opening (migrating) the same
/// database.
pub const OPEN_LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// Name of the database file inside the data directory.
pub const DATABASE_FILE: &str = "switchyard.db";

/// Which migrations the database has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaVersion {
    /// Version (timestamp) of the newest applied migration, `0` when none.
    pub version: i64,
    /// Number of applied migrations.
    pub applied: u32,
}

/// An open database: a small connection pool over one SQLite file.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if missing) the database at `path` and applies pending migrations.
    ///
    /// Opening and migrating hold an exclusive lock on `<path>.lock`, so the app and the CLI
    /// starting together on a new or older database never apply the same migration twice.
    /// The path is handed to SQLite as a file name, never inside a URL, so `?`, `#` or `%` in
    /// a directory name open exactly that file.
    ///
    /// Errors name the path and the cause: a file that is not a database, a directory that
    /// cannot be written, a migration that fails, a database newer than this build, or another
    /// process holding the lock for longer than [`OPEN_LOCK_TIMEOUT`].
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let _lock = lock::OpenLock::acquire(path, OPEN_LOCK_TIMEOUT).await?;
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::open(path, source))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Self {
            pool,
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pool, for repository modules in this crate.
    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// The newest applied migration and how many are applied.
    pub async fn schema_version(&self) -> Result<SchemaVersion, StoreError> {
        let row: (Option<i64>, i64) =
            sqlx::query_as("SELECT MAX(version), COUNT(*) FROM _sqlx_migrations WHERE success = 1")
                .fetch_one(&self.pool)
                .await?;
        Ok(SchemaVersion {
            version: row.0.unwrap_or(0),
            applied: u32::try_from(row.1).unwrap_or(0),
        })
    }

    /// Number of migrations this build knows about.
    pub fn known_migrations() -> usize {
        MIGRATOR.iter().count()
    }

    /// Closes the pool, checkpointing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
