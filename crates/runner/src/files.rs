//! Byte-for-byte pictures of a few files and folders, to see what a worker changed outside its
//! worktree and put it back: the repository's config, hooks and info (`git::RepoSnapshot`), a
//! CLI's own configuration under the user's home (the engine's confinement).
//!
//! Each listed name under the root is read whole (a folder with everything in it, bounded),
//! with its mode or symlink target. [`FileSnapshot::compare`] lists what was added, changed or
//! removed since; with `restore` it puts each back exactly as it was.

use std::collections::BTreeMap;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Entries kept per snapshot; past it the rest of a folder is not looked at.
const MAX_ENTRIES: usize = 2_000;
/// Bytes kept per file for restoring; a larger file is compared by hash and cannot be put back.
const MAX_KEPT: u64 = 1024 * 1024;

/// One path as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File {
        sha256: String,
        mode: u32,
        bytes: Option<Vec<u8>>,
    },
    Symlink(PathBuf),
    Dir,
}

/// One difference between a snapshot and now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    /// `added`, `changed` or `removed`.
    pub how: &'static str,
    /// Put back as it was.
    pub restored: bool,
}

/// Some names under one root, as they were.
#[derive(Debug, Clone)]
pub struct FileSnapshot {
    root: PathBuf,
    names: Vec<PathBuf>,
    entries: BTreeMap<PathBuf, Entry>,
}

fn read(root: &Path, names: &[PathBuf]) -> io::Result<BTreeMap<PathBuf, Entry>> {
    let mut entries = BTreeMap::new();
    for name in names {
        walk(root, &root.join(name), &mut entries)?;
    }
    Ok(entries)
}

/// Reads `path` (a file, symlink or folder, and everything in a folder) into `out`, keyed by
/// its path relative to `root`. A missing path adds nothing.
fn walk(root: &Path, path: &Path, out: &mut BTreeMap<PathBuf, Entry>) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if out.len() >= MAX_ENTRIES {
        return Ok(());
    }
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    if meta.file_type().is_symlink() {
        out.insert(relative, Entry::Symlink(std::fs::read_link(path)?));
    } else if meta.is_dir() {
        out.insert(relative, Entry::Dir);
        for entry in std::fs::read_dir(path)? {
            walk(root, &entry?.path(), out)?;
        }
    } else {
        let bytes = std::fs::read(path)?;
        out.insert(
            relative,
            Entry::File {
                sha256: hex::encode(Sha256::digest(&bytes)),
                mode: meta.permissions().mode() & 0o7777,
                bytes: (meta.len() <= MAX_KEPT).then_some(bytes),
            },
        );
    }
    Ok(())
}

fn remove(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Puts `path` back to `entry` (`None`: it did not exist). Whether that worked.
fn put_back(path: &Path, entry: Option<&Entry>) -> bool {
    match entry {
        None => remove(path).is_ok(),
        Some(Entry::Dir) => {
            let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
            (is_dir || remove(path).is_ok()) && std::fs::create_dir_all(path).is_ok()
        }
        Some(Entry::Symlink(target)) => {
            remove(path).is_ok() && std::os::unix::fs::symlink(target, path).is_ok()
        }
        Some(Entry::File { bytes: None, .. }) => false,
        Some(Entry::File {
            bytes: Some(bytes),
            mode,
            ..
        }) => {
            let is_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
            (is_file || remove(path).is_ok())
                && std::fs::write(path, bytes).is_ok()
                && std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode)).is_ok()
        }
    }
}

impl FileSnapshot {
    /// Reads `names` (relative to `root`; missing ones are remembered as missing).
    ///
    /// # Errors
    /// When a listed path exists but cannot be read.
    pub fn take<P: AsRef<Path>>(root: &Path, names: &[P]) -> io::Result<Self> {
        let names: Vec<PathBuf> = names.iter().map(|n| n.as_ref().to_path_buf()).collect();
        Ok(FileSnapshot {
            entries: read(root, &names)?,
            root: root.to_path_buf(),
            names,
        })
    }

    /// What differs now, deepest paths first; with `restore`, each is put back as it was.
    ///
    /// # Errors
    /// When a listed path exists but cannot be read.
    pub fn compare(&self, restore: bool) -> io::Result<Vec<FileChange>> {
        let now = read(&self.root, &self.names)?;
        let mut found: Vec<(&PathBuf, &'static str)> = Vec::new();
        for (path, entry) in &self.entries {
            match now.get(path) {
                None => found.push((path, "removed")),
                Some(current) if current != entry => found.push((path, "changed")),
                Some(_) => {}
            }
        }
        for path in now.keys().filter(|p| !self.entries.contains_key(*p)) {
            found.push((path, "added"));
        }
        // Deepest first, so a planted folder is emptied before it goes; then restoring a
        // removed folder comes before its files (they sort after it when re-sorted below).
        found.sort_by_key(|(path, _)| std::cmp::Reverse(path.components().count()));
        let mut changes: Vec<FileChange> = found
            .iter()
            .filter(|(_, how)| *how != "removed")
            .chain(found.iter().filter(|(_, how)| *how == "removed").rev())
            .map(|(relative, how)| {
                let path = self.root.join(relative);
                let restored = restore && put_back(&path, self.entries.get(*relative));
                FileChange {
                    path,
                    how,
                    restored,
                }
            })
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_changed_is_named_and_put_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::create_dir_all(root.join("hooks")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("config"), "[core]\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("hooks/keep.sample"), "#!/bin/sh\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let snapshot = FileSnapshot::take(root, &["config", "hooks", "absent"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(snapshot.compare(false).unwrap_or_default(), []);

        std::fs::write(root.join("config"), "[core]\npager = evil\n")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("hooks/pre-commit.d")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("hooks/pre-commit.d/x"), "evil").unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(root.join("hooks/keep.sample")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("absent"), "new").unwrap_or_else(|e| panic!("{e}"));

        let changes = snapshot.compare(true).unwrap_or_else(|e| panic!("{e}"));
        let named: Vec<(String, &str, bool)> = changes
            .iter()
            .map(|c| {
                let rel = c.path.strip_prefix(root).unwrap_or(&c.path);
                (rel.display().to_string(), c.how, c.restored)
            })
            .collect();
        assert_eq!(
            named,
            [
                ("absent".to_owned(), "added", true),
                ("config".to_owned(), "changed", true),
                ("hooks/keep.sample".to_owned(), "removed", true),
                ("hooks/pre-commit.d".to_owned(), "added", true),
                ("hooks/pre-commit.d/x".to_owned(), "added", true),
            ]
        );
        assert_eq!(
            std::fs::read_to_string(root.join("config")).ok().as_deref(),
            Some("[core]\n")
        );
        assert!(root.join("hooks/keep.sample").exists());
        assert!(!root.join("hooks/pre-commit.d").exists());
        assert!(!root.join("absent").exists());
        assert_eq!(snapshot.compare(false).unwrap_or_default(), []);
    }
}
