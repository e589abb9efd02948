//! Shared setup of the CLI's attempt tests: a temporary Switchyard home whose keychain service
//! is the test's own (so the user's keys are never touched), beside a git repository on `main`;
//! and a finished command's exit code, output and JSON.
#![allow(dead_code)]
// The fixtures drive the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;
use switchyard_store::{Store, DATABASE_FILE};

static HOMES: AtomicU32 = AtomicU32::new(0);

/// Runs git in `dir` (no system config) and returns its stdout; panics on failure.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home and a repository side by side in one temporary folder.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// A home whose keys go to the keychain service `dev.switchyard.test.<tag>.<pid>.<n>`, and
    /// a repository on `main` holding `files`, committed as "base" by "Test User".
    pub fn new(tag: &str, files: &[(&str, &str)]) -> Self {
        let ws = Self {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        std::fs::create_dir_all(ws.home()).expect("home");
        std::fs::create_dir_all(ws.repo()).expect("repo");
        let service = format!(
            "dev.switchyard.test.{tag}.{}.{}",
            std::process::id(),
            HOMES.fetch_add(1, Ordering::Relaxed)
        );
        let db = ws.home().join(DATABASE_FILE);
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(async {
                let store = Store::open(&db).await.expect("open store");
                store
                    .set_setting("keychain.service", &service, "2026-12-02T00:00:00Z")
                    .await
                    .expect("keychain service setting");
                store.close().await;
            });
        for (path, text) in files {
            ws.write(path, text);
        }
        ws.git(&["init", "-q", "-b", "main"]);
        ws.git(&["config", "user.name", "Test User"]);
        ws.git(&["config", "user.email", "user@example.com"]);
        ws.git(&["add", "."]);
        ws.git(&["commit", "-qm", "base"]);
        ws
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    pub fn repo_arg(&self) -> String {
        self.repo().to_string_lossy().into_owned()
    }

    /// A path outside the repository and the home, for files a test (or a worker it lets
    /// write there with `--allow-write`, see [`Workspace::outside_dir`]) writes about itself.
    pub fn outside(&self, name: &str) -> PathBuf {
        self.outside_dir().join(name)
    }

    /// The folder of [`Workspace::outside`] (created): pass it to `--allow-write` so a
    /// sandboxed worker may write its markers there.
    pub fn outside_dir(&self) -> PathBuf {
        let dir = self.dir.path().join("outside");
        std::fs::create_dir_all(&dir).expect("outside dir");
        dir
    }

    /// `--allow-write <outside dir>` as two arguments.
    pub fn allow_outside(&self) -> [String; 2] {
        [
            "--allow-write".to_owned(),
            self.outside_dir().display().to_string(),
        ]
    }

    /// Writes `text` at `rel` in the repository (creating parent folders).
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.repo().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.repo().join(rel)).expect("read")
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.repo(), args)
    }

    pub fn head(&self, rev: &str) -> String {
        self.git(&["rev-parse", rev]).trim().to_owned()
    }
}

/// One finished command: exit code, output, and stdout as JSON when `--json` was given.
pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Reads `out` of `switchyard args…`; with `--json`, stdout must be JSON.
    pub fn new(out: Output, args: &[&str]) -> Self {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json = if args.contains(&"--json") {
            serde_json::from_str(&stdout).unwrap_or_else(|e| {
                panic!("switchyard {args:?} must print JSON ({e}): {stdout}\nstderr: {stderr}")
            })
        } else {
            Value::Null
        };
        Self {
            code: out.status.code().unwrap_or(-1),
            json,
            stdout,
            stderr,
        }
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Value {
        assert_eq!(
            self.code, code,
            "exit code; stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.json
    }

    /// The attempt id (`run` in the review JSON).
    pub fn id(&self) -> String {
        self.json["run"].as_str().expect("run id").to_owned()
    }
}

/// The gate named `name` of a review JSON.
pub fn gate<'a>(review: &'a Value, name: &str) -> &'a Value {
    review["gates"]
        .as_array()
        .and_then(|gates| gates.iter().find(|g| g["name"] == name))
        .unwrap_or_else(|| panic!("no gate {name} in {review}"))
}

/// The host's pid of a live (not zombie) process that reported `ns_pid` from inside its
/// sandbox's PID namespace (`$$`, a child's pid) and works under `within` (its current
/// directory, e.g. a test's Switchyard home, where its worktree is): a worker's view of its own
/// pid is its namespace's. `None` when no such process is alive.
pub fn host_pid(ns_pid: u32, within: &Path) -> Option<u32> {
    let entries = std::fs::read_dir("/proc").ok()?;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let zombie = status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'));
        let inner = status
            .lines()
            .find_map(|l| l.strip_prefix("NSpid:"))
            .and_then(|ids| ids.split_whitespace().last())
            .and_then(|id| id.parse::<u32>().ok());
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
        if !zombie && inner == Some(ns_pid) && cwd.starts_with(within) {
            return Some(pid);
        }
    }
    None
}
