//! Fixture repositories built by test code with the real `git`.
#![allow(dead_code)]
// Fixtures are built with the real git, outside the code under test.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use switchyard_runner::git::{Git, Repo};

/// A temp dir holding a repository (`repo/`, branch `main`) and a data dir (`data/`) beside it.
pub struct Fixture {
    pub root: tempfile::TempDir,
    pub repo: PathBuf,
    pub data: PathBuf,
}

/// Runs git in `dir` with a fixed identity and no global config; panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "User")
        .env("GIT_AUTHOR_EMAIL", "user@example.com")
        .env("GIT_COMMITTER_NAME", "User")
        .env("GIT_COMMITTER_EMAIL", "user@example.com")
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

pub fn write(path: &Path, content: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, content).expect("write");
}

pub fn chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

pub fn symlink(target: &str, link: &Path) {
    if let Some(parent) = link.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

impl Fixture {
    /// A repository on `main` with `files` committed.
    pub fn new(files: &[(&str, &str)]) -> Fixture {
        let root = tempfile::tempdir().expect("tempdir");
        let repo = root.path().join("repo");
        let data = root.path().join("data");
        std::fs::create_dir_all(&repo).expect("mkdir");
        git(&repo, &["init", "-q", "-b", "main"]);
        for (path, content) in files {
            write(&repo.join(path), content);
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "initial"]);
        Fixture { root, repo, data }
    }

    pub fn head(&self, rev: &str) -> String {
        git(&self.repo, &["rev-parse", rev])
    }

    /// Commits everything in the user's working tree as the user.
    pub fn user_commit(&self, message: &str) -> String {
        git(&self.repo, &["add", "-A"]);
        git(&self.repo, &["commit", "-q", "-m", message]);
        self.head("HEAD")
    }

    pub async fn open(&self) -> Repo {
        Repo::open(&Git::new(), &self.repo).await.expect("opens")
    }
}

/// Every file under `dir` (the `.git` dir included) with its bytes, for before/after equality.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("meta");
            let rel = path.strip_prefix(dir).expect("under").to_path_buf();
            if meta.is_dir() {
                // Loose objects may be added by merge-tree; they change nothing the user sees.
                if rel != Path::new(".git/objects") {
                    stack.push(path);
                }
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).expect("readlink");
                out.insert(rel, target.as_os_str().as_encoded_bytes().to_vec());
            } else {
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}
