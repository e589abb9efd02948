//! Attempt worktrees: created at a pinned base on `switchyard/<attempt>`, removed with their
//! branch, and swept when no live attempt owns them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::lock::{RepoLock, LOCK_WAIT};
use super::{GitError, Repo};

/// Every attempt branch is `switchyard/<attempt>`.
pub const BRANCH_PREFIX: &str = "switchyard/";

/// One attempt's worktree.
#[derive(Debug, Clone)]
pub struct Worktree {
    repo: Repo,
    attempt: String,
    path: PathBuf,
    branch: String,
    base: String,
    index: PathBuf,
    data_dir: PathBuf,
}

fn validate_attempt(attempt: &str) -> Result<(), GitError> {
    let ok = !attempt.is_empty()
        && attempt.len() <= 64
        && attempt
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(GitError::InvalidAttemptId {
            id: attempt.to_owned(),
        })
    }
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> GitError {
    move |e| GitError::io(context, e)
}

/// The data dir, created and canonicalized, checked to lie outside the repository.
fn prepare_data_dir(repo: &Repo, data_dir: &Path) -> Result<PathBuf, GitError> {
    for dir in [
        data_dir.join("worktrees"),
        data_dir.join("git").join("index"),
    ] {
        std::fs::create_dir_all(&dir).map_err(io(format!("creating {}", dir.display())))?;
    }
    let data_dir =
        std::fs::canonicalize(data_dir).map_err(io(format!("resolving {}", data_dir.display())))?;
    if data_dir.starts_with(repo.toplevel()) || data_dir.starts_with(repo.common_dir()) {
        return Err(GitError::InsideRepo {
            data_dir,
            repo: repo.toplevel().to_path_buf(),
        });
    }
    Ok(data_dir)
}

impl Worktree {
    /// Creates the worktree `<data_dir>/worktrees/<attempt>` on a new branch
    /// `switchyard/<attempt>` at `base_commit` (checked out, no hooks run), and seeds the
    /// attempt's private capture index from it.
    ///
    /// # Errors
    /// [`GitError::InvalidAttemptId`], [`GitError::BaseMissing`] when the commit is not in the
    /// repository, [`GitError::InsideRepo`] when the data dir is inside it,
    /// [`GitError::WorktreeExists`] when the directory or branch exists, [`GitError::Busy`].
    pub async fn create(
        repo: &Repo,
        base_commit: &str,
        data_dir: &Path,
        attempt: &str,
    ) -> Result<Worktree, GitError> {
        validate_attempt(attempt)?;
        let base =
            repo.resolve_commit(base_commit)
                .await?
                .ok_or_else(|| GitError::BaseMissing {
                    commit: base_commit.to_owned(),
                })?;
        let data_dir = prepare_data_dir(repo, data_dir)?;
        let worktree = Worktree::at(repo, &data_dir, attempt, &base);
        let _lock = RepoLock::acquire(&data_dir, repo, LOCK_WAIT).await?;
        let exists = GitError::WorktreeExists {
            attempt: attempt.to_owned(),
            path: worktree.path.clone(),
        };
        if worktree.path.exists() || repo.resolve_commit(&worktree.branch_ref()).await?.is_some() {
            return Err(exists);
        }
        repo.git()
            .cmd(repo.toplevel())
            .args(["worktree", "add", "--quiet", "--no-track", "-b"])
            .arg(&worktree.branch)
            .arg(&worktree.path)
            .arg(&base)
            .run()
            .await?;
        let own_index = repo
            .git()
            .cmd(&worktree.path)
            .args(["rev-parse", "--path-format=absolute", "--git-path", "index"])
            .line()
            .await?;
        std::fs::copy(&own_index, &worktree.index).map_err(io(format!(
            "copying {own_index} to {}",
            worktree.index.display()
        )))?;
        Ok(worktree)
    }

    /// Re-attaches to an existing attempt worktree (e.g. after a restart).
    ///
    /// # Errors
    /// [`GitError::WorktreeMissing`] when its directory is gone.
    pub fn open(
        repo: &Repo,
        base_commit: &str,
        data_dir: &Path,
        attempt: &str,
    ) -> Result<Worktree, GitError> {
        validate_attempt(attempt)?;
        let data_dir = prepare_data_dir(repo, data_dir)?;
        let worktree = Worktree::at(repo, &data_dir, attempt, base_commit);
        if !worktree.path.join(".git").exists() {
            return Err(GitError::WorktreeMissing {
                attempt: attempt.to_owned(),
                path: worktree.path,
            });
        }
        Ok(worktree)
    }

    fn at(repo: &Repo, data_dir: &Path, attempt: &str, base: &str) -> Worktree {
        Worktree {
            repo: repo.clone(),
            attempt: attempt.to_owned(),
            path: data_dir.join("worktrees").join(attempt),
            branch: format!("{BRANCH_PREFIX}{attempt}"),
            base: base.to_owned(),
            index: index_path(data_dir, attempt),
            data_dir: data_dir.to_path_buf(),
        }
    }

    /// Removes the worktree (whatever it contains), its branch and its private index.
    ///
    /// # Errors
    /// [`GitError::Busy`], or a git failure other than "already gone".
    pub async fn remove(self) -> Result<(), GitError> {
        let _lock = RepoLock::acquire(&self.data_dir, &self.repo, LOCK_WAIT).await?;
        remove_attempt(&self.repo, &self.data_dir, &self.attempt).await
    }

    /// The repository it belongs to.
    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// The attempt id.
    pub fn attempt(&self) -> &str {
        &self.attempt
    }

    /// The worktree directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The worktree's own entry in the repository's git directory (`worktrees/<name>`, holding
    /// its index and `HEAD`), as its `.git` file names it, when it lies there.
    pub fn own_gitdir(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(self.path.join(".git")).ok()?;
        let dir = std::fs::canonicalize(text.trim().strip_prefix("gitdir:")?.trim()).ok()?;
        (dir.starts_with(self.repo.common_dir().join("worktrees")) && dir.is_dir()).then_some(dir)
    }

    /// The branch, `switchyard/<attempt>`.
    pub fn branch(&self) -> &str {
        &self.branch
    }

    /// `refs/heads/switchyard/<attempt>`.
    pub fn branch_ref(&self) -> String {
        format!("refs/heads/{}", self.branch)
    }

    /// The pinned base commit.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The data dir (canonical).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub(crate) fn index(&self) -> &Path {
        &self.index
    }
}

fn index_path(data_dir: &Path, attempt: &str) -> PathBuf {
    data_dir.join("git").join("index").join(attempt)
}

/// Removes one attempt's worktree, branch and index; the caller holds the repository lock.
async fn remove_attempt(repo: &Repo, data_dir: &Path, attempt: &str) -> Result<(), GitError> {
    let git = repo.git();
    let path = data_dir.join("worktrees").join(attempt);
    if path.exists() {
        let removed = git
            .cmd(repo.toplevel())
            .args(["worktree", "remove", "--force", "--force"])
            .arg(&path)
            .output()
            .await?;
        // Not registered (pruned, or a half-created directory): it is still ours to delete.
        if removed.code != Some(0) && path.exists() {
            std::fs::remove_dir_all(&path).map_err(io(format!("removing {}", path.display())))?;
        }
    }
    git.cmd(repo.toplevel())
        .args(["worktree", "prune"])
        .run()
        .await?;
    let branch = format!("{BRANCH_PREFIX}{attempt}");
    if repo
        .resolve_commit(&format!("refs/heads/{branch}"))
        .await?
        .is_some()
    {
        // `branch -D` (not `update-ref -d`) refuses a branch the user has checked out.
        git.cmd(repo.toplevel())
            .args(["branch", "-D", "--quiet"])
            .arg(&branch)
            .run()
            .await?;
    }
    let index = index_path(data_dir, attempt);
    match std::fs::remove_file(&index) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(GitError::io(format!("removing {}", index.display()), e))
        }
        _ => Ok(()),
    }
}

/// What belongs to no live attempt in one repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Orphans {
    /// Attempts whose worktree (registered with the repository, or a directory under
    /// `<data_dir>/worktrees` whose `.git` points into it) has no live attempt.
    pub worktrees: Vec<String>,
    /// Attempts whose `switchyard/*` branch has no live attempt.
    pub branches: Vec<String>,
}

impl Orphans {
    /// Every attempt id named, once.
    pub fn attempts(&self) -> BTreeSet<String> {
        self.worktrees
            .iter()
            .chain(&self.branches)
            .cloned()
            .collect()
    }

    /// Nothing is orphaned.
    pub fn is_empty(&self) -> bool {
        self.worktrees.is_empty() && self.branches.is_empty()
    }
}

/// Lists the worktrees and `switchyard/*` branches of `repo` that no attempt in `live` owns.
pub async fn orphans(data_dir: &Path, repo: &Repo, live: &[&str]) -> Result<Orphans, GitError> {
    let data_dir = prepare_data_dir(repo, data_dir)?;
    let root = data_dir.join("worktrees");
    let git = repo.git();
    let mut worktrees = BTreeSet::new();
    let listed = git
        .cmd(repo.toplevel())
        .args(["worktree", "list", "--porcelain", "-z"])
        .run()
        .await?;
    for field in listed.split(|&b| b == 0) {
        let Some(path) = field.strip_prefix(b"worktree ") else {
            continue;
        };
        let path = PathBuf::from(String::from_utf8_lossy(path).into_owned());
        if let Some(attempt) = attempt_under(&root, &path) {
            worktrees.insert(attempt);
        }
    }
    let entries = std::fs::read_dir(&root).map_err(io(format!("reading {}", root.display())))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if validate_attempt(&name).is_err() {
            continue;
        }
        let pointer = std::fs::read_to_string(entry.path().join(".git")).unwrap_or_default();
        let gitdir = pointer.trim().strip_prefix("gitdir: ").map(PathBuf::from);
        let ours = gitdir
            .and_then(|g| std::fs::canonicalize(g.parent()?.parent()?).ok())
            .is_some_and(|common| common == repo.common_dir());
        if ours {
            worktrees.insert(name);
        }
    }
    let refs = git
        .cmd(repo.toplevel())
        .args(["for-each-ref", "--format=%(refname)"])
        .arg(format!("refs/heads/{BRANCH_PREFIX}"))
        .line()
        .await?;
    let prefix = format!("refs/heads/{BRANCH_PREFIX}");
    let branches: BTreeSet<String> = refs
        .lines()
        .filter_map(|r| r.strip_prefix(&prefix))
        .map(str::to_owned)
        .collect();
    let is_live = |a: &String| live.contains(&a.as_str());
    Ok(Orphans {
        worktrees: worktrees.into_iter().filter(|a| !is_live(a)).collect(),
        branches: branches.into_iter().filter(|a| !is_live(a)).collect(),
    })
}

fn attempt_under(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let mut parts = rest.components();
    let first = parts.next()?.as_os_str().to_str()?.to_owned();
    (parts.next().is_none() && validate_attempt(&first).is_ok()).then_some(first)
}

/// Removes every orphan [`orphans`] finds (worktree, branch and private index) under the
/// repository lock, and returns what was removed.
///
/// # Errors
/// [`GitError::Busy`], or the first removal that fails.
pub async fn sweep(data_dir: &Path, repo: &Repo, live: &[&str]) -> Result<Orphans, GitError> {
    let live: Vec<String> = live.iter().map(|a| (*a).to_owned()).collect();
    sweep_keeping(data_dir, repo, || async { Some(live) }).await
}

/// [`sweep`] with the attempts to keep read by `keep` once the repository lock is held, so an
/// attempt recorded just before (whose worktree is created under the same lock) is always in
/// the list. `keep` answering `None` (its source could not be read) removes nothing.
///
/// # Errors
/// As [`sweep`].
pub async fn sweep_keeping<F, Fut>(
    data_dir: &Path,
    repo: &Repo,
    keep: F,
) -> Result<Orphans, GitError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Option<Vec<String>>>,
{
    let data_dir = prepare_data_dir(repo, data_dir)?;
    let _lock = RepoLock::acquire(&data_dir, repo, LOCK_WAIT).await?;
    let Some(keep) = keep().await else {
        return Ok(Orphans::default());
    };
    let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
    let found = orphans(&data_dir, repo, &keep).await?;
    for attempt in found.attempts() {
        remove_attempt(repo, &data_dir, &attempt).await?;
    }
    Ok(found)
}
