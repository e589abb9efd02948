//! Disk used by attempt worktrees, and how long failed, canceled or interrupted attempts keep
//! theirs.
//!
//! Worktrees live in `<data dir>/worktrees/<attempt>` (see `switchyard_runner::git::Worktree`).
//! The retention setting is applied by the attempts sweep (`attempts::retention`, at every open
//! and through [`Engine::prune_worktrees`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use switchyard_core::doctor::{
    WorktreeUsage, DEFAULT_WORKTREE_RETENTION_DAYS, MAX_WORKTREE_RETENTION_DAYS,
};

use crate::catalog::now;
use crate::{Engine, EngineError};

/// Settings key of the retention in days.
pub const WORKTREE_RETENTION_SETTING: &str = "worktrees.retentionDays";

/// The directory under the data dir that holds the worktrees.
pub const WORKTREES_DIR: &str = "worktrees";

impl Engine {
    /// `<data dir>/worktrees`.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.home().join(WORKTREES_DIR)
    }

    /// Days the worktree of a failed, canceled or interrupted attempt is kept
    /// ([`DEFAULT_WORKTREE_RETENTION_DAYS`] unless set; an unreadable stored value counts as
    /// unset and is logged).
    ///
    /// # Errors
    /// [`EngineError::Store`].
    pub async fn worktree_retention_days(&self) -> Result<u32, EngineError> {
        let stored = self.store().setting(WORKTREE_RETENTION_SETTING).await?;
        Ok(match stored.as_deref().map(str::parse::<u32>) {
            None => DEFAULT_WORKTREE_RETENTION_DAYS,
            Some(Ok(days)) if days <= MAX_WORKTREE_RETENTION_DAYS => days,
            Some(_) => {
                tracing::warn!(value = ?stored, "ignoring an invalid worktree retention setting");
                DEFAULT_WORKTREE_RETENTION_DAYS
            }
        })
    }

    /// Sets the retention (0 removes them at the next sweep) and returns it.
    ///
    /// # Errors
    /// [`EngineError::InvalidInput`] above [`MAX_WORKTREE_RETENTION_DAYS`];
    /// [`EngineError::Store`].
    pub async fn set_worktree_retention_days(&self, days: u32) -> Result<u32, EngineError> {
        if days > MAX_WORKTREE_RETENTION_DAYS {
            return Err(EngineError::InvalidInput(format!(
                "worktree retention must be at most {MAX_WORKTREE_RETENTION_DAYS} days, not {days}"
            )));
        }
        self.store()
            .set_setting(WORKTREE_RETENTION_SETTING, &days.to_string(), &now())
            .await?;
        Ok(days)
    }

    /// Bytes on disk and number of worktrees under [`Engine::worktrees_dir`] (zero when it
    /// does not exist yet), with the retention setting.
    ///
    /// # Errors
    /// [`EngineError::Store`]; [`EngineError::Internal`] if the walk crashed.
    pub async fn worktree_usage(&self) -> Result<WorktreeUsage, EngineError> {
        let dir = self.worktrees_dir();
        let walked = dir.clone();
        let (worktrees, bytes) = tokio::task::spawn_blocking(move || disk_usage(&walked))
            .await
            .map_err(|e| EngineError::Internal(format!("measuring worktrees: {e}")))?;
        Ok(WorktreeUsage {
            path: dir.display().to_string(),
            worktrees,
            // Exact below 2^53 bytes (8 PiB); a JSON number for the UI.
            bytes: bytes as f64,
            retention_days: self.worktree_retention_days().await?,
        })
    }
}

/// (directories directly under `dir`, bytes allocated under it). Entries that vanish or cannot
/// be read during the walk (an attempt removing its worktree) are skipped; hard-linked files
/// are counted once; symlinks are not followed.
fn disk_usage(dir: &Path) -> (u32, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    let mut worktrees = 0u32;
    let mut seen = HashSet::new();
    let mut bytes = 0u64;
    let mut stack = Vec::new();
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            worktrees = worktrees.saturating_add(1);
        }
        stack.push(entry.path());
    }
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        bytes = bytes.saturating_add(allocated(&meta, &mut seen));
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        }
    }
    (worktrees, bytes)
}

#[cfg(unix)]
fn allocated(meta: &std::fs::Metadata, seen: &mut HashSet<(u64, u64)>) -> u64 {
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 && !meta.is_dir() && !seen.insert((meta.dev(), meta.ino())) {
        return 0;
    }
    meta.blocks().saturating_mul(512)
}

#[cfg(not(unix))]
fn allocated(meta: &std::fs::Metadata, _seen: &mut HashSet<(u64, u64)>) -> u64 {
    meta.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_worktrees_and_their_bytes_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(disk_usage(&dir.path().join("absent")), (0, 0));
        let a = dir.path().join("att-a");
        let b = dir.path().join("att-b").join("src");
        std::fs::create_dir_all(&a).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        std::fs::write(a.join("big.bin"), vec![7u8; 256 * 1024]).expect("write");
        std::fs::write(b.join("lib.rs"), "fn main() {}\n").expect("write");
        std::fs::hard_link(a.join("big.bin"), b.join("same.bin")).expect("link");
        std::os::unix::fs::symlink("/usr", b.join("usr")).expect("symlink");
        std::fs::write(dir.path().join("stray-file"), "x").expect("write");
        let (worktrees, bytes) = disk_usage(dir.path());
        assert_eq!(worktrees, 2, "the stray file is not a worktree");
        assert!(bytes >= 256 * 1024, "{bytes}");
        assert!(
            bytes < 2 * 256 * 1024,
            "the hard link and the symlink's target are not counted twice: {bytes}"
        );
    }
}
