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
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::worktree::BRANCH_PREFIX;
use super::{GitError, Repo, Worktree};

/// Files kept per snapshot of `hooks/` and `info/`; past it the rest are hashed only.
const MAX_FILES: usize = 2_000;
/// Bytes kept per file for restoring; larger files are hashed only.
const MAX_KEPT: u64 = 1024 * 1024;
/// Checkout files hashed per snapshot; larger files are compared by size.
const MAX_HASHED: u64 = 16 * 1024 * 1024;

/// One file of the git directory as it was.
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
    common_dir: PathBuf,
    toplevel: PathBuf,
    git_files: BTreeMap<PathBuf, Entry>,
    refs: BTreeMap<String, String>,
    gitfile: Option<(PathBuf, Vec<u8>)>,
    /// The worktree's own git directory (`worktrees/<name>`), writable to the worker: the
    /// files there that say where the repository is.
    own_gitdir: Option<PathBuf>,
    own_files: BTreeMap<PathBuf, Entry>,
    checkout: BTreeMap<String, String>,
}

/// The files of a worktree's own git directory that decide which repository and config git
/// uses there; a worker that rewrote them could make Switchyard's own git run its config.
const OWN_CONTROL_FILES: &[&str] = &["commondir", "gitdir", "config.worktree"];

fn own_files(dir: Option<&Path>) -> Result<BTreeMap<PathBuf, Entry>, GitError> {
    let mut files = BTreeMap::new();
    if let Some(dir) = dir {
        for name in OWN_CONTROL_FILES {
            walk(dir, &dir.join(name), &mut files)?;
        }
    }
    Ok(files)
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> GitError {
    move |e| GitError::io(context, e)
}

/// Reads `path` (a file, symlink or directory) and, for a directory, everything under it.
fn walk(root: &Path, path: &Path, out: &mut BTreeMap<PathBuf, Entry>) -> Result<(), GitError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(GitError::io(format!("reading {}", path.display()), e)),
    };
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).map_err(io(format!("reading {}", path.display())))?;
        out.insert(relative, Entry::Symlink(target));
    } else if meta.is_dir() {
        out.insert(relative, Entry::Dir);
        let entries = std::fs::read_dir(path).map_err(io(format!("listing {}", path.display())))?;
        for entry in entries {
            let entry = entry.map_err(io(format!("listing {}", path.display())))?;
            if out.len() >= MAX_FILES {
                break;
            }
            walk(root, &entry.path(), out)?;
        }
    } else {
        let bytes = std::fs::read(path).map_err(io(format!("reading {}", path.display())))?;
        out.insert(
            relative,
            Entry::File {
                sha256: sha(&bytes),
                mode: meta.permissions().mode() & 0o7777,
                bytes: (meta.len() <= MAX_KEPT).then_some(bytes),
            },
        );
    }
    Ok(())
}

fn git_dir_files(common_dir: &Path) -> Result<BTreeMap<PathBuf, Entry>, GitError> {
    let mut files = BTreeMap::new();
    for name in ["config", "hooks", "info", "config.worktree", "commondir"] {
        walk(common_dir, &common_dir.join(name), &mut files)?;
    }
    Ok(files)
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

/// The worktree's own git directory named by its `.git` file, inside `common_dir/worktrees`.
fn own_gitdir(gitfile: Option<&(PathBuf, Vec<u8>)>, common_dir: &Path) -> Option<PathBuf> {
    let (_, bytes) = gitfile?;
    let text = String::from_utf8_lossy(bytes);
    let dir = std::fs::canonicalize(text.trim().strip_prefix("gitdir:")?.trim()).ok()?;
    dir.starts_with(common_dir.join("worktrees")).then_some(dir)
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
        let own = own_gitdir(gitfile.as_ref(), repo.common_dir());
        Ok(RepoSnapshot {
            common_dir: repo.common_dir().to_path_buf(),
            toplevel: repo.toplevel().to_path_buf(),
            git_files: git_dir_files(repo.common_dir())?,
            refs: refs(repo).await?,
            own_files: own_files(own.as_deref())?,
            own_gitdir: own,
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
        let now = git_dir_files(&self.common_dir)?;
        let as_strings = |m: &BTreeMap<PathBuf, Entry>| -> BTreeMap<String, Entry> {
            m.iter()
                .map(|(k, v)| (k.to_string_lossy().into_owned(), v.clone()))
                .collect()
        };
        let (before, after) = (as_strings(&self.git_files), as_strings(&now));
        let mut git_changes = Vec::new();
        diff_maps(&before, &after, |what, how| {
            git_changes.push((what.to_owned(), how));
        });
        // Deepest first, so a planted directory is emptied before it is removed.
        git_changes.sort_by_key(|change| std::cmp::Reverse(change.0.len()));
        for (relative, how) in git_changes {
            let path = self.common_dir.join(&relative);
            let restored = restore && self.put_back(&path, before.get(&relative));
            changes.push(RepoChange {
                area: Area::GitDir,
                what: path.to_string_lossy().into_owned(),
                how,
                restored,
            });
        }
        if let Some(own) = &self.own_gitdir {
            let as_text = |m: &BTreeMap<PathBuf, Entry>| -> BTreeMap<String, Entry> {
                m.iter()
                    .map(|(k, v)| (k.to_string_lossy().into_owned(), v.clone()))
                    .collect()
            };
            let (before, after) = (as_text(&self.own_files), as_text(&own_files(Some(own))?));
            let mut found = Vec::new();
            diff_maps(&before, &after, |what, how| {
                found.push((what.to_owned(), how))
            });
            for (relative, how) in found {
                let path = own.join(&relative);
                let restored = restore && self.put_back(&path, before.get(&relative));
                changes.push(RepoChange {
                    area: Area::Gitfile,
                    what: path.to_string_lossy().into_owned(),
                    how,
                    restored,
                });
            }
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

    /// Puts `path` back to `entry` (`None`: it did not exist). Whether that worked.
    fn put_back(&self, path: &Path, entry: Option<&Entry>) -> bool {
        let remove = |path: &Path| match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        };
        match entry {
            None => remove(path).is_ok(),
            Some(Entry::Dir) => std::fs::create_dir_all(path).is_ok(),
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
                    && std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
                        .is_ok()
            }
        }
    }
}
