//! Worker CLI discovery and worktree housekeeping against real files: fake CLIs written by the
//! test into a temporary `PATH`, a fake login shell, a real SQLite settings table.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchyard_core::doctor::{CheckStatus, WorkerCliStatus, WorkerSource};
use switchyard_core::error::ErrorCode;
use switchyard_core::worker::WorkerCli;
use switchyard_engine::{Engine, EngineConfig, ToolSearch, ToolSource};

fn write_exe(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A fake CLI that answers `--version` with `version` (and refuses anything else).
fn fake_cli(path: &Path, version: &str) {
    write_exe(
        path,
        &format!("#!/bin/sh\n[ \"$1\" = --version ] || exit 64\necho '{version}'\n"),
    );
}

/// The machine this test builds: a `PATH` dir, a login-shell-only dir, and a fake login shell
/// whose `PATH` is the latter.
struct Machine {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    path_dir: PathBuf,
    login_dir: PathBuf,
    shell: PathBuf,
}

impl Machine {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_path_buf();
        let path_dir = root.join("path-bin");
        let login_dir = root.join("login-bin");
        std::fs::create_dir_all(&path_dir).expect("mkdir");
        std::fs::create_dir_all(&login_dir).expect("mkdir");
        let shell = root.join("fake-login-shell");
        write_exe(
            &shell,
            &format!(
                "#!/bin/sh\necho 'Welcome to a noisy profile'\n[ \"$1\" = -lc ] || exit 9\n\
                 PATH='{}:/usr/bin:/bin'\nexport PATH\nexec /bin/sh -c \"$2\"\n",
                login_dir.display()
            ),
        );
        Self {
            home: root.join("home"),
            _dir: dir,
            root,
            path_dir,
            login_dir,
            shell,
        }
    }

    async fn engine(&self) -> Engine {
        Engine::open(EngineConfig {
            home: Some(self.home.clone()),
        })
        .await
        .expect("open")
        .with_tool_search(ToolSearch::new(
            Some(OsString::from(&self.path_dir)),
            Some(self.shell.clone()),
        ))
    }
}

fn find(clis: &[WorkerCliStatus], cli: WorkerCli) -> &WorkerCliStatus {
    clis.iter().find(|w| w.cli == cli).expect("listed")
}

#[tokio::test]
async fn each_adapter_is_found_on_path_or_the_login_shells_path_with_its_version() {
    let machine = Machine::new();
    fake_cli(&machine.path_dir.join("claude"), "2.0.14 (Claude Code)");
    write_exe(
        &machine.path_dir.join("codex"),
        "#!/bin/sh\necho 'error: config is broken' >&2\nexit 2\n",
    );
    // On the login shell's PATH only, as with an npm global bin an app launched from the
    // desktop does not see; it needs the login PATH itself to find its interpreter.
    fake_cli(&machine.login_dir.join("real-opencode"), "opencode 0.15.2");
    write_exe(
        &machine.login_dir.join("opencode"),
        "#!/bin/sh\nexec real-opencode \"$@\"\n",
    );
    let engine = machine.engine().await;

    let clis = engine.worker_clis().await.expect("list");
    let order: Vec<WorkerCli> = clis.iter().map(|w| w.cli).collect();
    assert_eq!(order, WorkerCli::ALL);

    let claude = find(&clis, WorkerCli::Claude);
    assert!(claude.installed, "{claude:?}");
    assert_eq!(claude.version.as_deref(), Some("2.0.14 (Claude Code)"));
    assert_eq!(claude.source, Some(WorkerSource::Path));
    assert_eq!(
        claude.path.as_deref(),
        Some(machine.path_dir.join("claude").to_str().expect("utf-8"))
    );

    let codex = find(&clis, WorkerCli::Codex);
    assert!(
        !codex.installed,
        "a CLI that cannot say its version is not usable"
    );
    assert!(codex.path.is_some());
    let problem = codex.problem.as_deref().expect("problem");
    assert!(
        problem.contains("exit 2: error: config is broken"),
        "{problem}"
    );

    let opencode = find(&clis, WorkerCli::OpenCode);
    assert!(opencode.installed, "{opencode:?}");
    assert_eq!(opencode.source, Some(WorkerSource::LoginShell));
    assert_eq!(opencode.version.as_deref(), Some("opencode 0.15.2"));

    for missing in [WorkerCli::Gemini, WorkerCli::Aider] {
        let status = find(&clis, missing);
        assert!(!status.installed);
        assert_eq!(status.path, None);
        assert_eq!(status.source, None);
        assert!(status
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("not on PATH")));
    }

    // What an attempt spawns: the same executable, with the login PATH for its child.
    let located = engine
        .locate_worker(WorkerCli::OpenCode)
        .await
        .expect("store")
        .expect("found");
    assert_eq!(located.source, ToolSource::LoginShell);
    assert_eq!(located.path, machine.login_dir.join("opencode"));
    assert!(located.child_path.is_some_and(|p| p
        .to_string_lossy()
        .starts_with(&*machine.login_dir.to_string_lossy())));
    assert_eq!(
        engine
            .locate_worker(WorkerCli::Gemini)
            .await
            .expect("store"),
        None
    );
    engine.close().await;
}

#[tokio::test]
async fn a_path_set_in_settings_wins_is_validated_persists_and_can_be_cleared() {
    let machine = Machine::new();
    fake_cli(&machine.path_dir.join("claude"), "1.0.0 (Claude Code)");
    let custom = machine.root.join("opt").join("claude-nightly");
    fake_cli(&custom, "2.1.0-nightly (Claude Code)");
    let plain = machine.root.join("opt").join("not-executable");
    std::fs::write(&plain, "text").expect("write");
    let engine = machine.engine().await;

    let refused = engine
        .set_worker_path(WorkerCli::Claude, Some(plain.to_str().expect("utf-8")))
        .await
        .expect_err("not executable");
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert!(refused.to_string().contains("not executable"), "{refused}");
    let refused = engine
        .set_worker_path(WorkerCli::Claude, Some("bin/claude"))
        .await
        .expect_err("relative");
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert_eq!(
        engine
            .worker_path_setting(WorkerCli::Claude)
            .await
            .expect("read"),
        None,
        "nothing stored for a refused path"
    );

    let set = engine
        .set_worker_path(
            WorkerCli::Claude,
            Some(&format!("  {}  ", custom.display())),
        )
        .await
        .expect("set");
    assert_eq!(set.source, Some(WorkerSource::Setting));
    assert_eq!(set.version.as_deref(), Some("2.1.0-nightly (Claude Code)"));
    assert_eq!(set.configured_path.as_deref(), custom.to_str());
    engine.close().await;

    // Stored in SQLite: a new engine on the same home sees it.
    let engine = machine.engine().await;
    let claude = engine.worker_cli(WorkerCli::Claude).await.expect("status");
    assert_eq!(claude.path.as_deref(), custom.to_str());
    assert_eq!(claude.source, Some(WorkerSource::Setting));

    // A set path that breaks is reported, never silently replaced by the one on PATH.
    std::fs::remove_file(&custom).expect("rm");
    let broken = engine.worker_cli(WorkerCli::Claude).await.expect("status");
    assert!(!broken.installed);
    assert_eq!(broken.path, None);
    assert_eq!(broken.configured_path.as_deref(), custom.to_str());
    assert!(
        broken
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("does not exist")),
        "{broken:?}"
    );
    assert_eq!(
        engine
            .locate_worker(WorkerCli::Claude)
            .await
            .expect("store"),
        None
    );

    let cleared = engine
        .set_worker_path(WorkerCli::Claude, Some("   "))
        .await
        .expect("clear");
    assert_eq!(cleared.source, Some(WorkerSource::Path));
    assert_eq!(cleared.version.as_deref(), Some("1.0.0 (Claude Code)"));
    assert_eq!(cleared.configured_path, None);
    engine.close().await;
}

#[tokio::test]
async fn doctor_lists_every_adapter_and_warns_about_a_broken_one() {
    let machine = Machine::new();
    fake_cli(&machine.path_dir.join("aider"), "aider 0.86.1");
    write_exe(&machine.path_dir.join("gemini"), "#!/bin/sh\nexit 1\n");
    let engine = machine.engine().await;

    let report = engine.doctor().await;
    let json = serde_json::to_value(&report).expect("json");
    let clis = json["workerClis"].as_array().expect("array");
    let names: Vec<&str> = clis.iter().filter_map(|w| w["name"].as_str()).collect();
    assert_eq!(names, ["claude", "codex", "gemini", "opencode", "aider"]);
    let aider = &clis[4];
    assert_eq!(aider["cli"], "aider");
    assert_eq!(aider["installed"], true);
    assert_eq!(aider["version"], "aider 0.86.1");
    assert_eq!(aider["source"], "path");
    assert_eq!(clis[0]["installed"], false);
    assert_eq!(clis[0]["path"], serde_json::Value::Null);

    let workers = report
        .checks
        .iter()
        .find(|c| c.id == "workers")
        .expect("workers check");
    assert_eq!(workers.status, CheckStatus::Warn);
    assert!(
        workers.detail.contains("aider (aider 0.86.1)"),
        "{}",
        workers.detail
    );
    assert!(
        workers.detail.contains("gemini: --version failed"),
        "{}",
        workers.detail
    );
    engine.close().await;
}

#[tokio::test]
async fn no_adapter_at_all_is_a_warning_that_says_what_to_do() {
    let machine = Machine::new();
    let engine = machine.engine().await;
    let report = engine.doctor().await;
    let workers = report
        .checks
        .iter()
        .find(|c| c.id == "workers")
        .expect("workers check");
    assert_eq!(workers.status, CheckStatus::Warn);
    assert!(
        workers.detail.contains("set a path in Settings"),
        "{}",
        workers.detail
    );
    assert!(report.worker_clis.iter().all(|w| !w.installed));
    engine.close().await;
}

#[tokio::test]
async fn worktree_retention_defaults_to_seven_days_and_round_trips() {
    let machine = Machine::new();
    let engine = machine.engine().await;
    assert_eq!(engine.worktree_retention_days().await.expect("read"), 7);
    assert_eq!(
        engine.set_worktree_retention_days(14).await.expect("set"),
        14
    );
    let too_long = engine
        .set_worktree_retention_days(100_000)
        .await
        .expect_err("limit");
    assert_eq!(too_long.code(), ErrorCode::InvalidInput);
    engine.close().await;

    let engine = machine.engine().await;
    assert_eq!(engine.worktree_retention_days().await.expect("read"), 14);
    assert_eq!(engine.set_worktree_retention_days(0).await.expect("set"), 0);
    assert_eq!(engine.worktree_retention_days().await.expect("read"), 0);
    engine.close().await;
}

#[tokio::test]
async fn worktree_usage_counts_the_worktrees_under_the_data_dir() {
    let machine = Machine::new();
    let engine = machine.engine().await;
    let empty = engine.worktree_usage().await.expect("usage");
    assert_eq!(empty.worktrees, 0);
    assert!(empty.bytes.abs() < f64::EPSILON);
    assert_eq!(empty.retention_days, 7);
    assert_eq!(empty.path, engine.worktrees_dir().display().to_string());

    let one = engine.worktrees_dir().join("att1");
    std::fs::create_dir_all(one.join("src")).expect("mkdir");
    std::fs::write(one.join("src").join("big.bin"), vec![1u8; 1 << 20]).expect("write");
    std::fs::create_dir_all(engine.worktrees_dir().join("att2")).expect("mkdir");
    let usage = engine.worktree_usage().await.expect("usage");
    assert_eq!(usage.worktrees, 2);
    assert!(usage.bytes >= f64::from(1u32 << 20), "{}", usage.bytes);
    assert!(usage.bytes < f64::from(4u32 << 20), "{}", usage.bytes);
    engine.close().await;
}
