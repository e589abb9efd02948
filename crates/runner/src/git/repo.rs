//! The user's repository: where it is and what the base of a new attempt is.

use std::path::{Path, PathBuf};

use super::{Git, GitError};

/// Dirty paths kept in a [`Base`]; `dirty_count` has the full number.
pub const MAX_DIRTY_LISTED: usize = 50;

/// A repository with a working tree, resolved to canonical paths.
#[derive(Debug, Clone)]
pub struct Repo {
    git: Git,
    toplevel: PathBuf,
    common_dir: PathBuf,
}

/// The base of a new attempt: the current branch head, pinned as a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The commit (full object id).
    pub commit: String,
    /// The branch checked out (`None` when `HEAD` is detached).
    pub branch: Option<String>,
    /// The working tree has uncommitted changes or untracked files. They are allowed and not
    /// part of the base.
    pub dirty: bool,
    /// The first [`MAX_DIRTY_LISTED`] dirty paths.
    pub dirty_files: Vec<String>,
    /// How many paths are dirty.
    pub dirty_count: usize,
}

impl Repo {
    /// Opens the repository containing `path`.
    ///
    /// # Errors
    /// [`GitError::NotARepo`] when `path` is not inside a git working tree;
    /// [`GitError::GitMissing`] when git is not installed.
    pub async fn open(git: &Git, path: &Path) -> Result<Repo, GitError> {
        let not_a_repo = || GitError::NotARepo {
            path: path.to_path_buf(),
        };
        if !path.is_dir() {
            return Err(not_a_repo());
        }
        let output = git
            .cmd(path)
            .args([
                "rev-parse",
                "--path-format=absolute",
                "--show-toplevel",
                "--git-common-dir",
            ])
            .output()
            .await?;
        if output.code != Some(0) {
            return Err(not_a_repo());
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut lines = text.lines();
        let (Some(toplevel), Some(common)) = (lines.next(), lines.next()) else {
            return Err(not_a_repo());
        };
        let canonical = |p: &str| {
            std::fs::canonicalize(p).map_err(|e| GitError::io(format!("resolving {p}"), e))
        };
        Ok(Repo {
            git: git.clone(),
            toplevel: canonical(toplevel)?,
            common_dir: canonical(common)?,
        })
    }

    /// The main working tree's root.
    pub fn toplevel(&self) -> &Path {
        &self.toplevel
    }

    /// The git dir shared by all worktrees (the repository's identity).
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The git handle this repository was opened with.
    pub fn git(&self) -> &Git {
        &self.git
    }

    /// The current branch head as a commit, and whether the working tree is dirty.
    ///
    /// # Errors
    /// [`GitError::BaseMissing`] on an unborn branch (no commit yet).
    pub async fn resolve_base(&self) -> Result<Base, GitError> {
        let commit = self
            .resolve_commit("HEAD")
            .await?
            .ok_or_else(|| GitError::BaseMissing {
                commit: "HEAD".to_owned(),
            })?;
        let branch = self
            .git
            .cmd(&self.toplevel)
            .args(["symbolic-ref", "--quiet", "--short", "HEAD"])
            .output()
            .await?;
        let branch = (branch.code == Some(0)).then(|| branch.stdout_line());
        let dirty = dirty_paths(&self.git, &self.toplevel).await?;
        Ok(Base {
            commit,
            branch,
            dirty: !dirty.is_empty(),
            dirty_count: dirty.len(),
            dirty_files: dirty.into_iter().take(MAX_DIRTY_LISTED).collect(),
        })
    }

    /// The tip of branch `name`, creating it at `commit` first when it does not exist. Two
    /// callers at once get the same branch: the update only creates (its old value must be
    /// absent), and the loser reads the winner's tip.
    ///
    /// # Errors
    /// [`GitError::BaseMissing`] when `commit` is not in the repository, or the branch could
    /// not be created.
    pub async fn ensure_branch(&self, name: &str, commit: &str) -> Result<String, GitError> {
        let branch_ref = format!("refs/heads/{name}");
        if let Some(tip) = self.resolve_commit(&branch_ref).await? {
            return Ok(tip);
        }
        let commit = self
            .resolve_commit(commit)
            .await?
            .ok_or_else(|| GitError::BaseMissing {
                commit: commit.to_owned(),
            })?;
        self.git
            .cmd(&self.toplevel)
            .args([
                "update-ref",
                "-m",
                "switchyard: create branch",
                &branch_ref,
                &commit,
                "",
            ])
            .output()
            .await?;
        self.resolve_commit(&branch_ref)
            .await?
            .ok_or_else(|| GitError::BranchMissing {
                branch: name.to_owned(),
            })
    }

    /// The full commit id `rev` names, or `None` when it names no commit.
    pub async fn resolve_commit(&self, rev: &str) -> Result<Option<String>, GitError> {
        let output = self
            .git
            .cmd(&self.toplevel)
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"))
            .output()
            .await?;
        Ok((output.code == Some(0)).then(|| output.stdout_line()))
    }

    /// The user's git identity as git itself resolves it for this repository (its own config,
    /// then the global and system ones): `user.name` and `user.email`, `None` unless both are
    /// set. Approved attempts are committed as the user who approved them.
    pub async fn user_identity(&self) -> Result<Option<super::Identity>, GitError> {
        let mut values = Vec::new();
        for key in ["user.name", "user.email"] {
            let output = self
                .git
                .cmd(&self.toplevel)
                .args(["config", "--get", key])
                .output()
                .await?;
            let value = output.stdout_line();
            if output.code != Some(0) || value.trim().is_empty() {
                return Ok(None);
            }
            values.push(value.trim().to_owned());
        }
        let email = values.pop().unwrap_or_default();
        let name = values.pop().unwrap_or_default();
        Ok(Some(super::Identity { name, email }))
    }
}

/// Paths with uncommitted changes (staged, unstaged or untracked, ignored files excluded) in
/// the worktree at `dir`, without taking git's optional index lock.
pub(crate) async fn dirty_paths(git: &Git, dir: &Path) -> Result<Vec<String>, GitError> {
    let stdout = git
        .cmd(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=none",
        ])
        .run()
        .await?;
    Ok(stdout
        .split(|&b| b == 0)
        .filter(|entry| entry.len() > 3)
        .map(|entry| String::from_utf8_lossy(&entry[3..]).into_owned())
        .collect())
}
