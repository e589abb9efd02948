//! The open lock: an exclusive OS file lock on `<database>.lock`, held while a process opens
//! the database and applies migrations.
//!
//! sqlx's SQLite migrator takes no lock of its own, so two processes opening a new database at
//! once both try the first migration and one fails ("table … already exists"). The lock file
//! sits beside the database (never the database itself, whose locks belong to SQLite) and is
//! released when the guard drops or the process dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::StoreError;

/// How often a waiting opener retries the lock.
const RETRY: Duration = Duration::from_millis(25);

/// Holds the lock until dropped.
#[derive(Debug)]
pub(crate) struct OpenLock {
    _file: File,
}

impl OpenLock {
    /// Takes the lock for the database at `database`, waiting up to `timeout` for another
    /// process (or another open in this one) to finish.
    pub(crate) async fn acquire(database: &Path, timeout: Duration) -> Result<Self, StoreError> {
        let path = lock_path(database);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| lock_error(database, format!("cannot open {}: {e}", path.display())))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Self { _file: file }),
                Err(TryLockError::WouldBlock) if started.elapsed() < timeout => {
                    tokio::time::sleep(RETRY).await;
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(lock_error(
                        database,
                        format!(
                            "another Switchyard process has been opening it for over {}s",
                            timeout.as_secs()
                        ),
                    ))
                }
                Err(TryLockError::Error(e)) => return Err(lock_error(database, e.to_string())),
            }
        }
    }
}

fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

fn lock_error(database: &Path, reason: String) -> StoreError {
    StoreError::Lock {
        path: database.to_path_buf(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_held_lock_times_out_with_a_clear_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("x.db");
        let held = OpenLock::acquire(&db, Duration::from_secs(1))
            .await
            .expect("first");
        let err = OpenLock::acquire(&db, Duration::from_millis(100))
            .await
            .expect_err("second must wait and give up");
        assert!(
            err.to_string().contains("another Switchyard process"),
            "{err}"
        );
        drop(held);
        OpenLock::acquire(&db, Duration::from_millis(100))
            .await
            .expect("free again once dropped");
    }
}
