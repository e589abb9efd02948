//! One lock per repository for the operations that touch its refs (worktree add/remove,
//! commit, integrate, sweep): an advisory file lock under the data dir, so the desktop app and
//! the CLI serialize on the same repository.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use switchyard_core::review::diff::sha256_hex;

use super::{GitError, Repo};

/// How long an operation waits for the lock before reporting [`GitError::Busy`].
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

const POLL: Duration = Duration::from_millis(20);

/// A held repository lock; released on drop.
#[derive(Debug)]
pub struct RepoLock {
    _file: File,
    path: PathBuf,
}

impl RepoLock {
    /// The lock file for `repo`: `<data_dir>/git/locks/<first 32 hex of SHA-256 of the
    /// canonical common git dir>.lock`.
    pub fn path_for(data_dir: &Path, repo: &Repo) -> PathBuf {
        let key = sha256_hex(repo.common_dir().as_os_str().as_encoded_bytes());
        data_dir
            .join("git")
            .join("locks")
            .join(format!("{}.lock", &key[..32]))
    }

    /// Takes the lock, waiting up to `wait`.
    ///
    /// # Errors
    /// [`GitError::Busy`] when another holder keeps it past `wait`; [`GitError::Io`] when the
    /// lock file cannot be created.
    pub async fn acquire(
        data_dir: &Path,
        repo: &Repo,
        wait: Duration,
    ) -> Result<RepoLock, GitError> {
        let path = Self::path_for(data_dir, repo);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| GitError::io(format!("opening {}", path.display()), e))?;
        let deadline = Instant::now() + wait;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(RepoLock { _file: file, path }),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    tokio::time::sleep(POLL).await;
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(GitError::Busy {
                        repo: repo.toplevel().to_path_buf(),
                        reason: "another Switchyard operation holds its lock".to_owned(),
                    })
                }
                Err(TryLockError::Error(e)) => {
                    return Err(GitError::io(format!("locking {}", path.display()), e))
                }
            }
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
