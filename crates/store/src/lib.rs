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

    /// Begins a write transaction (`BEGIN IMMEDIATE`: it takes SQLite's write lock now, so a
    /// later write in it cannot fail on a stale read). Cancel-safe, unlike sqlx's own
    /// `begin_with`: that acknowledges the `BEGIN`, then awaits a check of the connection
    /// before it hands out the `Transaction`, and a caller dropped at that await (a task
    /// canceled as the engine closes, a timeout) leaves the connection in the pool inside an
    /// open transaction that nothing rolls back. It holds the write lock for as long as the
    /// connection lives: every other write fails with `database is locked`, and writes on
    /// that connection are never committed. Run on its own task, the begin always completes;
    /// a `Transaction` nobody received is dropped with the task's output, which rolls it back.
    pub(crate) async fn begin_immediate(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
        let pool = self.pool.clone();
        tokio::spawn(async move { pool.begin_with("BEGIN IMMEDIATE").await })
            .await
            .map_err(|e| StoreError::Interrupted(format!("starting a write transaction: {e}")))?
            .map_err(StoreError::from)
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

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::{ConnectOptions, Connection};

    /// A caller dropped at any point of a write transaction's begin (a task canceled at close,
    /// a timeout) leaves the write lock free: another connection can take it at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_transaction_dropped_while_it_begins_leaves_the_lock_free() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("switchyard.db");
        let store = Store::open(&path).await.expect("open");
        let mut probe = SqliteConnectOptions::new()
            .filename(&path)
            .busy_timeout(Duration::from_millis(200))
            .connect()
            .await
            .expect("probe");
        // Drop points spread from before the BEGIN is sent to after it is acknowledged (sqlx's
        // own `begin_with` leaked its transaction within a few hundred of these).
        for n in 0..600u64 {
            let begin = store.begin_immediate();
            let _ = tokio::time::timeout(Duration::from_micros(n % 60 * 3), begin).await;
            // A dropped begin finishes on its own task and rolls back; give it that moment.
            tokio::time::sleep(Duration::from_millis(2)).await;
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut probe)
                .await
                .unwrap_or_else(|e| panic!("drop {n} left the write lock held: {e}"));
            sqlx::query("ROLLBACK")
                .execute(&mut probe)
                .await
                .expect("rollback");
        }
        // And the pool's own connections are not stuck inside a transaction either.
        for _ in 0..8 {
            let mut tx = store.begin_immediate().await.expect("begin");
            sqlx::query("SELECT 1")
                .execute(&mut *tx)
                .await
                .expect("select");
            tx.commit().await.expect("commit");
        }
        probe.close().await.expect("close probe");
        store.close().await;
    }
}
