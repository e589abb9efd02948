//! The `repository` gate's evidence: what a worker (or its verification) could have changed
//! outside its worktree in the user's repository, checked even when the sandbox holds.
//!
//! A snapshot taken before the worker starts holds the shared git directory's `config`,
//! `hooks/` and `info/` byte for byte (with modes), its refs outside `switchyard/*`, the
//! worktree's own `.git` file, and the user's checkout's status with the content hash of
//! every path that status lists. [`RepoSnapshot::compare`] reports what differs; with
//! `restore` it puts config, hooks, info and the `.git` file back exactly as they were (a
//! hook planted there would run on the user's next own commit). Refs and the checkout are
//! reported, never rolled back: the user may be committing and editing there while the worker
//! runs, and their own work must never be undone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::worktree::BRANCH_PREFIX;
use super::{GitError, Repo, Worktree};
use crate::files::FileSnapshot;

/// Checkout files hashed per snapshot; larger files are compared by size.
const MAX_HASHED: u64 = 16 * 1024 * 1024;

/// What of the shared git directory is kept byte for byte (and put back).
const GIT_DIR_FILES: &[&str] = &["config", "hooks", "info", "config.worktree", "commondir"];

/// Where a change was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// `config`, `hooks/`, `info/` in the shared git directory.
    GitDir,
    /// A ref outside `switchyard/*`, or `HEAD`.
    Refs,
    /// The worktree's `.git` file, which says where its git directory is.
    Gitfile,
    /// The user's own checkout.
    Checkout,
    /// A CLI's own configuration under the user's home (compared by the engine).
    Home,
}

/// One difference between a snapshot and now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoChange {
    pub area: Area,
    /// The path (absolute) or ref name.
    pub what: String,
    /// `added`, `changed` or `removed`.
    pub how: &'static str,
    /// Put back as it was.
    pub restored: bool,
}

/// The repository outside the worktree, as it was.
#[derive(Debug, Clone)]
pub struct RepoSnapshot {
    toplevel: PathBuf,
    git_files: FileSnapshot,
    refs: BTreeMap<String, String>,
    gitfile: Option<(PathBuf, Vec<u8>)>,
    /// The worktree's own git directory (`worktrees/<name>`), writable to the worker: the
    /// files there that say where the repository is.
    own_files: Option<FileSnapshot>,
    checkout: BTreeMap<String, String>,
}

/// The files of a worktree's own git directory that decide which repository and config git
/// uses there; a worker that rewrote them could make Switchyard's own git run its config.
const OWN_CONTROL_FILES: &[&str] = &["commondir", "gitdir", "config.worktree"];

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> GitError {
    move |e| GitError::io(context, e)
}

fn files(root: &Path, names: &[&str]) -> Result<FileSnapshot, GitError> {
    FileSnapshot::take(root, names).map_err(io(format!("reading {}", root.display())))
}

fn as_changes(found: Vec<crate::files::FileChange>, area: Area, out: &mut Vec<RepoChange>) {
    out.extend(found.into_iter().map(|change| RepoChange {
        area,
        what: change.path.to_string_lossy().into_owned(),
        how: change.how,
        restored: change.restored,
    }));
}

async fn refs(repo: &Repo) -> Result<BTreeMap<String, String>, GitError> {
    let out = repo
        .git()
        .cmd(repo.toplevel())
        .args(["for-each-ref", "--format=%(refname) %(objectname)"])
        .run()
        .await?;
    let own = format!("refs/heads/{BRANCH_PREFIX}");
    let mut refs: BTreeMap<String, String> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(name, _)| !name.starts_with(&own) && !name.starts_with("refs/switchyard/"))
        .map(|(name, oid)| (name.to_owned(), oid.to_owned()))
        .collect();
    if let Ok(head) = std::fs::read(repo.common_dir().join("HEAD")) {
        refs.insert(
            "HEAD".to_owned(),
            String::from_utf8_lossy(&head).trim().to_owned(),
        );
    }
    Ok(refs)
}

/// `path → status code + content hash` for every path the checkout's status lists.
async fn checkout(repo: &Repo) -> Result<BTreeMap<String, String>, GitError> {
    let out = repo
        .git()
        .cmd(repo.toplevel())
        .args([
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=all",
        ])
        .run()
        .await?;
    let mut listed = BTreeMap::new();
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if field.len() < 4 {
            continue;
        }
        let code = String::from_utf8_lossy(&field[..2]).into_owned();
        let path = String::from_utf8_lossy(&field[3..]).into_owned();
        if code.starts_with('R') || code.starts_with('C') {
            // The original path follows a rename or copy.
            fields.next();
        }
        let full = repo.toplevel().join(&path);
        let content = match std::fs::symlink_metadata(&full) {
            Err(_) => "gone".to_owned(),
            Ok(meta) if meta.is_file() && meta.len() <= MAX_HASHED => std::fs::read(&full)
                .map(|b| sha(&b))
                .unwrap_or_else(|_| "unreadable".to_owned()),
            Ok(meta) => format!("{} bytes", meta.len()),
        };
        listed.insert(path, format!("{code} {content}"));
    }
    Ok(listed)
}

fn worktree_gitfile(worktree: Option<&Worktree>) -> Option<(PathBuf, Vec<u8>)> {
    let path = worktree?.path().join(".git");
    let bytes = std::fs::read(&path).ok()?;
    Some((path, bytes))
}

fn diff_maps<V: PartialEq>(
    before: &BTreeMap<String, V>,
    after: &BTreeMap<String, V>,
    mut found: impl FnMut(&str, &'static str),
) {
    for (key, value) in before {
        match after.get(key) {
            None => found(key, "removed"),
            Some(now) if now != value => found(key, "changed"),
            Some(_) => {}
        }
    }
    for key in after.keys().filter(|k| !before.contains_key(*k)) {
        found(key, "added");
    }
}

impl RepoSnapshot {
    /// Takes the snapshot of `repo` (and of `worktree`'s `.git` file).
    ///
    /// # Errors
    /// When git or the git directory cannot be read.
    pub async fn take(repo: &Repo, worktree: Option<&Worktree>) -> Result<Self, GitError> {
        let gitfile = worktree_gitfile(worktree);
        let own = worktree.and_then(Worktree::own_gitdir);
        Ok(RepoSnapshot {
            toplevel: repo.toplevel().to_path_buf(),
            git_files: files(repo.common_dir(), GIT_DIR_FILES)?,
            refs: refs(repo).await?,
            own_files: own.map(|dir| files(&dir, OWN_CONTROL_FILES)).transpose()?,
            gitfile,
            checkout: checkout(repo).await?,
        })
    }

    /// What differs now; with `restore`, config, hooks, info and the `.git` file are put back.
    ///
    /// # Errors
    /// When git or the git directory cannot be read.
    pub async fn compare(&self, repo: &Repo, restore: bool) -> Result<Vec<RepoChange>, GitError> {
        let mut changes = Vec::new();
        let read = |e: std::io::Error| GitError::io("reading the git directory", e);
        as_changes(
            self.git_files.compare(restore).map_err(read)?,
            Area::GitDir,
            &mut changes,
        );
        if let Some(own) = &self.own_files {
            as_changes(
                own.compare(restore).map_err(read)?,
                Area::Gitfile,
                &mut changes,
            );
        }
        if let Some((path, bytes)) = &self.gitfile {
            let now = std::fs::read(path).ok();
            if now.as_deref() != Some(bytes.as_slice()) {
                let restored = restore && {
                    if path.is_dir() {
                        let _ = std::fs::remove_dir_all(path);
                    }
                    std::fs::write(path, bytes).is_ok()
                };
                changes.push(RepoChange {
                    area: Area::Gitfile,
                    what: path.to_string_lossy().into_owned(),
                    how: if now.is_some() { "changed" } else { "removed" },
                    restored,
                });
            }
        }
        diff_maps(&self.refs, &refs(repo).await?, |what, how| {
            changes.push(RepoChange {
                area: Area::Refs,
                what: what.to_owned(),
                how,
                restored: false,
            });
        });
        let toplevel = &self.toplevel;
        diff_maps(&self.checkout, &checkout(repo).await?, |what, how| {
            changes.push(RepoChange {
                area: Area::Checkout,
                what: toplevel.join(what).to_string_lossy().into_owned(),
                how,
                restored: false,
            });
        });
        Ok(changes)
    }
}
