//! Committing an attempt and integrating it into the user's branch.
//!
//! The attempt's commit is made from the private index capture staged (so it holds exactly
//! the captured tree, and optionally only if its hash is the one verified). Integration puts
//! one commit on the target branch: the attempt's commit itself when the branch has not moved
//! (fast-forward), otherwise a new commit with the same message and author whose tree is the
//! clean three-way merge `git merge-tree --write-tree` computes in the object store (cherry-pick
//! semantics: merge base = the attempt's base). The branch moves by compare-and-swap. If it is
//! checked out, that working tree follows with a two-tree `git read-tree -m -u`, which refuses
//! rather than overwrite local changes; overlapping uncommitted changes are reported first.
//! On any refusal nothing is changed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::lock::{RepoLock, LOCK_WAIT};
use super::repo::dirty_paths;
use super::{GitError, Repo, Worktree};

/// Who Switchyard commits as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Author and committer name.
    pub name: String,
    /// Author and committer email.
    pub email: String,
}

impl Default for Identity {
    /// `Switchyard <switchyard@localhost>`.
    fn default() -> Self {
        Identity {
            name: "Switchyard".to_owned(),
            email: "switchyard@localhost".to_owned(),
        }
    }
}

/// How the target branch was moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegrationKind {
    /// The branch was still at the attempt's base: it now points at the attempt's commit.
    FastForward,
    /// The branch had moved: a new commit on top of it carries the merged change.
    Merged,
    /// The branch already contains the commit; nothing changed.
    AlreadyIntegrated,
}

/// The result of [`integrate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integration {
    /// The target branch.
    pub branch: String,
    /// Its commit before.
    pub old: String,
    /// Its commit after (the one new commit).
    pub new: String,
    /// How.
    pub kind: IntegrationKind,
    /// The user's worktree that had the branch checked out and was updated.
    pub updated_worktree: Option<PathBuf>,
}

impl Worktree {
    /// Commits the worktree's whole change (as captured) on `switchyard/<attempt>` with the
    /// base as its only parent, and returns the commit id. With `expected_sha256`, refuses
    /// unless the change hashes to it, checked on the very index the commit is made from.
    ///
    /// # Errors
    /// [`GitError::Changed`] when the hash differs, [`GitError::Unreadable`] when there is
    /// nothing to commit, [`GitError::Busy`].
    pub async fn commit(
        &self,
        message: &str,
        identity: &Identity,
        expected_sha256: Option<&str>,
    ) -> Result<String, GitError> {
        let _lock = RepoLock::acquire(self.data_dir(), self.repo(), LOCK_WAIT).await?;
        let capture = self.capture().await?;
        if let Some(expected) = expected_sha256 {
            if capture.diff.sha256 != expected {
                return Err(GitError::Changed {
                    expected: expected.to_owned(),
                    actual: capture.diff.sha256,
                });
            }
        }
        if capture.diff.files.is_empty() {
            return Err(GitError::Unreadable(
                "the worktree has no change to commit".to_owned(),
            ));
        }
        let git = self.repo().git();
        let tree = git
            .cmd(self.path())
            .env("GIT_INDEX_FILE", self.index())
            .arg("write-tree")
            .line()
            .await?;
        let message = if message.trim().is_empty() {
            format!("switchyard: attempt {}", self.attempt())
        } else {
            message.to_owned()
        };
        let commit = with_identity(git.cmd(self.path()), identity, identity, None)
            .args(["commit-tree", &tree, "-p", self.base(), "-F", "-"])
            .stdin(message.into_bytes())
            .line()
            .await?;
        git.cmd(self.path())
            .args(["update-ref", "-m", "switchyard: commit attempt"])
            .arg(self.branch_ref())
            .arg(&commit)
            .run()
            .await?;
        // Keep the worktree's own index in step with its branch so `git status` there is sane.
        git.cmd(self.path())
            .args(["read-tree", &commit])
            .run()
            .await?;
        Ok(commit)
    }
}

fn with_identity<'g>(
    cmd: super::cmd::GitCmd<'g>,
    author: &Identity,
    committer: &Identity,
    author_date: Option<&str>,
) -> super::cmd::GitCmd<'g> {
    let mut cmd = cmd
        .env("GIT_AUTHOR_NAME", &author.name)
        .env("GIT_AUTHOR_EMAIL", &author.email)
        .env("GIT_COMMITTER_NAME", &committer.name)
        .env("GIT_COMMITTER_EMAIL", &committer.email);
    if let Some(date) = author_date {
        cmd = cmd.env("GIT_AUTHOR_DATE", date);
    }
    cmd
}

/// Author and message of a commit, read from its raw object.
struct CommitInfo {
    author: Identity,
    author_date: String,
    message: Vec<u8>,
}

async fn commit_info(repo: &Repo, commit: &str) -> Result<CommitInfo, GitError> {
    let raw = repo
        .git()
        .cmd(repo.toplevel())
        .args(["cat-file", "commit", commit])
        .run()
        .await?;
    let split = raw
        .windows(2)
        .position(|w| w == b"\n\n")
        .ok_or_else(|| GitError::Unreadable(format!("commit {commit} has no message")))?;
    let headers = String::from_utf8_lossy(&raw[..split]).into_owned();
    let author_line = headers
        .lines()
        .find_map(|l| l.strip_prefix("author "))
        .ok_or_else(|| GitError::Unreadable(format!("commit {commit} has no author")))?;
    // `Name <email> 1700000000 +0000`
    let (name, rest) = author_line
        .split_once(" <")
        .ok_or_else(|| GitError::Unreadable(format!("author of {commit}")))?;
    let (email, date) = rest
        .split_once("> ")
        .ok_or_else(|| GitError::Unreadable(format!("author of {commit}")))?;
    Ok(CommitInfo {
        author: Identity {
            name: name.to_owned(),
            email: email.to_owned(),
        },
        author_date: date.to_owned(),
        message: raw[split + 2..].to_vec(),
    })
}

/// Integrates `commit` (an attempt's commit, whose first parent is its base) into
/// `target_branch` of `repo`: one commit on the branch, by fast-forward or clean merge, never
/// touching the user's uncommitted changes. Nothing is pushed.
///
/// # Errors
/// [`GitError::BranchMissing`]; [`GitError::Conflict`] with the files when the merge is not
/// clean; [`GitError::Dirty`] when the branch is checked out and uncommitted changes there
/// touch files the integration changes; [`GitError::InProgress`]; [`GitError::TargetMoved`]
/// when the branch moved meanwhile; [`GitError::Busy`]. In every error case the branch and
/// every working tree are as they were.
pub async fn integrate(
    repo: &Repo,
    data_dir: &Path,
    target_branch: &str,
    commit: &str,
    committer: &Identity,
) -> Result<Integration, GitError> {
    let data_dir = std::fs::canonicalize(data_dir)
        .map_err(|e| GitError::io(format!("resolving {}", data_dir.display()), e))?;
    let _lock = RepoLock::acquire(&data_dir, repo, LOCK_WAIT).await?;
    let git = repo.git();
    let top = repo.toplevel();
    let branch_ref = format!("refs/heads/{target_branch}");
    let valid = git
        .cmd(top)
        .args(["check-ref-format", &branch_ref])
        .output()
        .await?;
    let missing = || GitError::BranchMissing {
        branch: target_branch.to_owned(),
    };
    if valid.code != Some(0) {
        return Err(missing());
    }
    let old = repo
        .resolve_commit(&branch_ref)
        .await?
        .ok_or_else(missing)?;
    let commit = repo
        .resolve_commit(commit)
        .await?
        .ok_or_else(|| GitError::BaseMissing {
            commit: commit.to_owned(),
        })?;
    let parent = repo
        .resolve_commit(&format!("{commit}^1"))
        .await?
        .ok_or_else(|| GitError::BaseMissing {
            commit: format!("{commit}^1"),
        })?;
    let contained = git
        .cmd(top)
        .args(["merge-base", "--is-ancestor", &commit, &old])
        .output()
        .await?;
    if contained.code == Some(0) {
        return Ok(Integration {
            branch: target_branch.to_owned(),
            new: old.clone(),
            old,
            kind: IntegrationKind::AlreadyIntegrated,
            updated_worktree: None,
        });
    }
    let (new, kind) = if old == parent {
        (commit.clone(), IntegrationKind::FastForward)
    } else {
        let tree = merged_tree(repo, target_branch, &old, &commit, &parent).await?;
        let info = commit_info(repo, &commit).await?;
        let new = with_identity(
            git.cmd(top),
            &info.author,
            committer,
            Some(&info.author_date),
        )
        .args(["commit-tree", &tree, "-p", &old, "-F", "-"])
        .stdin(info.message)
        .line()
        .await?;
        (new, IntegrationKind::Merged)
    };
    let checked_out = worktree_with_branch(repo, &branch_ref).await?;
    if let Some(dir) = &checked_out {
        follow(repo, dir, &old, &new).await?;
    }
    let moved = git
        .cmd(top)
        .args([
            "update-ref",
            "-m",
            "switchyard: integrate attempt",
            &branch_ref,
            &new,
            &old,
        ])
        .output()
        .await?;
    if moved.code != Some(0) {
        if let Some(dir) = &checked_out {
            // Put that working tree back where its branch still is.
            git.cmd(dir)
                .args(["read-tree", "-m", "-u", &new, &old])
                .run()
                .await?;
        }
        return Err(GitError::TargetMoved {
            branch: target_branch.to_owned(),
        });
    }
    Ok(Integration {
        branch: target_branch.to_owned(),
        old,
        new,
        kind,
        updated_worktree: checked_out,
    })
}

/// The tree of merging `commit` onto `old` with `parent` as the merge base, or the conflict.
async fn merged_tree(
    repo: &Repo,
    branch: &str,
    old: &str,
    commit: &str,
    parent: &str,
) -> Result<String, GitError> {
    let output = repo
        .git()
        .cmd(repo.toplevel())
        .isolated()
        .args(["merge-tree", "--write-tree", "-z", "--name-only"])
        .arg(format!("--merge-base={parent}"))
        .args([old, commit])
        .output()
        .await?;
    // `<tree>\0` then, on conflict, `<path>\0`… then an empty field and the messages.
    let mut fields = output.stdout.split(|&b| b == 0);
    let tree = String::from_utf8_lossy(fields.next().unwrap_or_default())
        .trim()
        .to_owned();
    match output.code {
        Some(0) if !tree.is_empty() => Ok(tree),
        Some(1) => {
            let files: BTreeSet<String> = fields
                .take_while(|f| !f.is_empty())
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            Err(GitError::Conflict {
                branch: branch.to_owned(),
                files: files.into_iter().collect(),
            })
        }
        code => Err(GitError::Failed {
            command: "merge-tree".to_owned(),
            code,
            stderr: output.stderr_text(),
        }),
    }
}

/// The working tree (of any of the repository's worktrees) with `branch_ref` checked out.
async fn worktree_with_branch(repo: &Repo, branch_ref: &str) -> Result<Option<PathBuf>, GitError> {
    let listed = repo
        .git()
        .cmd(repo.toplevel())
        .args(["worktree", "list", "--porcelain", "-z"])
        .run()
        .await?;
    let mut current: Option<PathBuf> = None;
    for field in listed.split(|&b| b == 0) {
        let field = String::from_utf8_lossy(field);
        if let Some(path) = field.strip_prefix("worktree ") {
            current = Some(PathBuf::from(path));
        } else if field.strip_prefix("branch ") == Some(branch_ref) {
            return Ok(current);
        }
    }
    Ok(None)
}

/// Moves the working tree at `dir` (branch checked out, at `old`) to `new`, or refuses with
/// nothing changed.
async fn follow(repo: &Repo, dir: &Path, old: &str, new: &str) -> Result<(), GitError> {
    let git = repo.git();
    let git_dir = git
        .cmd(dir)
        .args(["rev-parse", "--path-format=absolute", "--git-dir"])
        .line()
        .await?;
    let git_dir = PathBuf::from(git_dir);
    for (marker, operation) in [
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("rebase-merge", "rebase"),
        ("rebase-apply", "rebase"),
    ] {
        if git_dir.join(marker).exists() {
            return Err(GitError::InProgress {
                operation: operation.to_owned(),
                worktree: dir.to_path_buf(),
            });
        }
    }
    let changed = git
        .cmd(dir)
        .isolated()
        .args(["diff", "--name-only", "-z", "--no-renames", old, new, "--"])
        .run()
        .await?;
    let changed: BTreeSet<String> = changed
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let dirty = dirty_paths(git, dir).await?;
    let overlap: Vec<String> = dirty
        .into_iter()
        .filter(|d| {
            let d = d.trim_end_matches('/');
            changed.iter().any(|c| {
                c == d
                    || c.strip_prefix(d).is_some_and(|r| r.starts_with('/'))
                    || d.strip_prefix(c.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
        })
        .collect();
    if !overlap.is_empty() {
        return Err(GitError::Dirty {
            worktree: dir.to_path_buf(),
            files: overlap,
        });
    }
    let two_tree = || {
        git.cmd(dir)
            .args(["read-tree", "-m", "-u", old, new])
            .output()
    };
    let mut moved = two_tree().await?;
    if moved.code != Some(0) && String::from_utf8_lossy(&moved.stderr).contains("not uptodate") {
        // `status` found no overlapping change, so these entries only have stale stat data;
        // refresh them (the index's content is unchanged) and try once more.
        git.cmd(dir)
            .args(["update-index", "-q", "--refresh"])
            .output()
            .await?;
        moved = two_tree().await?;
    }
    if moved.code != Some(0) {
        let stderr = String::from_utf8_lossy(&moved.stderr).into_owned();
        let files: Vec<String> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix('\t'))
            .map(str::to_owned)
            .collect();
        if stderr.contains("index.lock") {
            return Err(GitError::Busy {
                repo: dir.to_path_buf(),
                reason: "git's index lock is held".to_owned(),
            });
        }
        return Err(GitError::Dirty {
            worktree: dir.to_path_buf(),
            files,
        });
    }
    Ok(())
}
