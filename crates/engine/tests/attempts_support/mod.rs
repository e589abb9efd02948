//! Shared fixtures for the attempt tests: real git repositories built here, real engines on
//! temporary homes, `exec:` workers written as shell scripts.
#![allow(dead_code)]
// Test fixtures drive the real `git` binary to build and inspect repositories.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use switchyard_core::attempt::{AttemptRequest, AttemptReview, AttemptState};
use switchyard_engine::{Engine, EngineConfig};
use switchyard_runner::git::{Git, Repo};
use switchyard_store::attempts::{AttemptChanges, Guard, NewAttempt};
use switchyard_store::{Store, DATABASE_FILE};

/// Runs git in `dir` and returns its trimmed stdout; panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.com")
        .env("GIT_COMMITTER_NAME", "Fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A test's folders: the user's repository and Switchyard's home, side by side.
pub struct Fixture {
    pub root: tempfile::TempDir,
    pub repo: PathBuf,
    pub home: PathBuf,
}

impl Fixture {
    /// A repository on `main` with `calc.sh` (a bug: it subtracts) and `test.sh` (fails
    /// until `calc.sh` adds), committed.
    pub fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let repo = root.path().join("repo");
        let home = root.path().join("home");
        std::fs::create_dir_all(&repo).expect("repo dir");
        git(&repo, &["init", "--quiet", "--initial-branch=main"]);
        write(&repo, "calc.sh", "add() { echo $(($1 - $2)); }\n");
        write(
            &repo,
            "test.sh",
            ". ./calc.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
        );
        write(&repo, "README.md", "# fixture\n");
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "--quiet", "-m", "initial"]);
        std::fs::create_dir_all(root.path().join("probe")).expect("probe dir");
        Self { root, repo, home }
    }

    /// A path in the probe folder: the one place outside its worktree that the fixture's
    /// requests let a (sandboxed) worker write, for markers and dumps a test reads back.
    pub fn probe(&self, name: &str) -> PathBuf {
        self.root.path().join("probe").join(name)
    }

    pub fn head(&self) -> String {
        git(&self.repo, &["rev-parse", "HEAD"])
    }

    pub fn repo_str(&self) -> String {
        self.repo.display().to_string()
    }

    /// A request for `worker` verified by `sh test.sh`.
    pub fn request(&self, worker: &str) -> AttemptRequest {
        AttemptRequest {
            repo: self.repo_str(),
            task: "make add() add".into(),
            worker: worker.into(),
            verify: Some(vec!["sh test.sh".into()]),
            lock: Vec::new(),
            timeout_secs: Some(60),
            preset: None,
            allow_network: false,
            allow_write: vec![self.root.path().join("probe").display().to_string()],
            self_review: false,
        }
    }

    pub async fn engine(&self) -> Arc<Engine> {
        // The engine's warnings go to the test's captured output, so a test that fails under
        // load says what the engine could not do (libtest shows them only on failure).
        let _ = tracing_subscriber::fmt()
            .with_env_filter("switchyard_engine=info")
            .with_ansi(false)
            .with_test_writer()
            .try_init();
        Arc::new(
            Engine::open(EngineConfig {
                home: Some(self.home.clone()),
            })
            .await
            .expect("engine opens"),
        )
    }

    /// Where attempt `id`'s worktree lives.
    pub fn worktree(&self, id: &str) -> PathBuf {
        std::fs::canonicalize(&self.home)
            .unwrap_or_else(|_| self.home.clone())
            .join("worktrees")
            .join(id)
    }

    /// `switchyard/*` branches in the repository.
    pub fn attempt_branches(&self) -> Vec<String> {
        git(
            &self.repo,
            &[
                "for-each-ref",
                "--format=%(refname:short)",
                "refs/heads/switchyard/",
            ],
        )
        .lines()
        .map(str::to_owned)
        .collect()
    }

    /// Writes a worker script outside the repository and returns `exec:sh <path>`.
    pub fn worker(&self, name: &str, body: &str) -> String {
        let path = self.root.path().join(format!("{name}.sh"));
        std::fs::write(&path, body).expect("write worker");
        format!("exec:sh {}", path.display())
    }
}

/// Writes `contents` at `dir/name` (creating parent folders).
pub fn write(dir: &Path, name: &str, contents: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("parent");
    }
    std::fs::write(path, contents).expect("write");
}

/// The honest fix: `-` becomes `+`.
pub const FIX: &str = "sed -i 's/\\$1 - \\$2/$1 + $2/' calc.sh\necho 'fixed add'\n";

/// Waits (bounded) for attempt `id` to stop being live.
pub async fn settle(engine: &Engine, id: &str) -> AttemptReview {
    tokio::time::timeout(Duration::from_secs(120), engine.wait_attempt(id))
        .await
        .expect("the attempt settles within two minutes")
        .expect("wait")
}

/// Waits until attempt `id` is in `state`.
pub async fn wait_for_state(engine: &Engine, id: &str, state: AttemptState) {
    for _ in 0..600 {
        let review = engine.attempt_review(id).await.expect("review");
        if review.summary.state == state {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("attempt {id} never reached {state:?}");
}

/// The gate named `name` of a review.
pub fn gate(
    review: &AttemptReview,
    name: switchyard_core::review::gates::GateName,
) -> &switchyard_core::review::gates::GateResult {
    review
        .gates
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no {name:?} gate in {:?}", review.gates))
}

/// Whether any process whose command line contains `marker` is alive (Linux `/proc`).
pub fn process_with(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // A zombie has exited; it only waits to be reaped.
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'));
        !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
    })
}

/// An engine whose keys go to a keychain service of its own (for tests that store keys).
pub async fn engine_with_own_keychain(fx: &Fixture, tag: &str) -> Arc<Engine> {
    std::fs::create_dir_all(&fx.home).expect("home");
    let store = switchyard_store::Store::open(&fx.home.join(switchyard_store::DATABASE_FILE))
        .await
        .expect("store");
    let service = format!("dev.switchyard.test.attempts.{}.{tag}", std::process::id());
    store
        .set_setting("keychain.service", &service, "2026-12-02T00:00:00Z")
        .await
        .expect("setting");
    store.close().await;
    fx.engine().await
}

/// Whether a real keychain can be used here (see the keys tests): on Linux, a session bus.
pub fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
    );
    eprintln!("note: no D-Bus session bus; skipping a real keychain test");
    false
}

/// Starts `worker` on the fixture's task and waits for it to settle.
pub async fn run(fx: &Fixture, engine: &Arc<Engine>, worker: &str) -> AttemptReview {
    run_request(engine, fx.request(worker)).await
}

pub async fn run_request(engine: &Arc<Engine>, request: AttemptRequest) -> AttemptReview {
    let started = engine.start_attempt(request, "cli").await.expect("start");
    settle(engine, &started.id).await
}

/// `seconds` (with a decimal point) made this test process's own by appending its pid as more
/// decimals: a `sleep` whose command line a test looks for with [`process_with`] is then never
/// another copy of the test binary's.
pub fn own_seconds(seconds: &str) -> String {
    format!("{seconds}{}", std::process::id())
}

/// Waits (up to 5 s) until no live process has `marker` in its command line; `false` if one
/// is still there then.
pub async fn all_gone(marker: &str) -> bool {
    for _ in 0..100 {
        if !process_with(marker) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// The id of a process that has exited (and been reaped).
pub fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = child.id();
    child.wait().expect("reap");
    pid
}

/// Records attempt `id` as another process would have left it: running, owned by a process
/// that has died. Returns the repository.
pub async fn orphaned_attempt(fx: &Fixture, id: &str) -> Repo {
    attempt_owned_by(fx, id, dead_pid(), true).await
}

/// Records attempt `id` running under `owner_pid` (which never renews anything), its worker
/// started (`started_ms` set) or not.
pub async fn attempt_owned_by(fx: &Fixture, id: &str, owner_pid: u32, started: bool) -> Repo {
    let base = fx.head();
    // Another process started an attempt (and, when `started`, its worker).
    std::fs::create_dir_all(&fx.home).expect("home");
    let store = Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store");
    let request = AttemptRequest {
        worker: fx.worker("fix", FIX),
        ..fx.request("x")
    };
    let repo = Repo::open(&Git::new(), &fx.repo).await.expect("repo");
    store
        .insert_attempt(&NewAttempt {
            id: id.into(),
            worker: request.worker.clone(),
            task: request.task.clone(),
            prompt: request.task.clone(),
            repo: repo.toplevel().display().to_string(),
            base: base.clone(),
            target_branch: Some("main".into()),
            parent: None,
            compare_id: None,
            launcher: "app".into(),
            worktree_id: id.into(),
            request_json: serde_json::to_string(&request).expect("json"),
            verify_json: "[\"sh test.sh\"]".into(),
            created_ms: 1,
            owner_pid,
            owner_token: "gone".into(),
        })
        .await
        .expect("insert");
    for (from, to) in [
        (AttemptState::Queued, AttemptState::Preparing),
        (AttemptState::Preparing, AttemptState::Running),
    ] {
        let guard = Guard {
            state: from,
            owner: Some("gone"),
        };
        let mut changes = AttemptChanges::new().state(to);
        if started {
            changes = changes.started_ms(2);
        }
        assert!(store
            .update_attempt(id, guard, 2, &changes)
            .await
            .expect("advance"));
    }
    store.close().await;
    repo
}

/// The real agent CLI `name` installed at its pinned version (see `scripts/lib.sh`), from the
/// folder `SWITCHYARD_AGENT_CLIS` names. `None` (and a note) when it is not installed; with
/// `SWITCHYARD_REQUIRE_AGENT_CLIS` set that is a failure, not a skip.
pub fn real_cli(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("SWITCHYARD_AGENT_CLIS")
        .map(|dir| PathBuf::from(dir).join(name))
        .filter(|path| path.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("SWITCHYARD_REQUIRE_AGENT_CLIS").is_none(),
            "SWITCHYARD_REQUIRE_AGENT_CLIS is set but the real {name} is not installed \
             (SWITCHYARD_AGENT_CLIS={:?})",
            std::env::var_os("SWITCHYARD_AGENT_CLIS")
        );
        eprintln!("note: the real {name} is not installed; skipping (see scripts/lib.sh)");
    }
    found
}

/// Points Settings at `binary` for the CLI worker `cli`.
pub async fn use_cli_binary(fx: &Fixture, cli: &str, binary: &Path) {
    std::fs::create_dir_all(&fx.home).expect("home");
    let store = Store::open(&fx.home.join(DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            &format!("workers.path.{cli}"),
            &binary.display().to_string(),
            "2026-12-06T00:00:00Z",
        )
        .await
        .expect("setting");
    store.close().await;
}
