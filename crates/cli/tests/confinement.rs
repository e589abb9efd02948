//! Confinement through the CLI: without bubblewrap a run is refused unless unconfined workers
//! are allowed, and then every surface says `mode: "none"` and the repository gate still puts
//! back what the worker changed; SIGINT, SIGTERM and SIGHUP to a waiting `switchyard run`
//! cancel it and leave no process behind.
// The fixtures build a PATH of links and send signals with the system's own tools.
#![allow(clippy::disallowed_methods)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{gate, Run, Workspace};

const LIMIT: Duration = Duration::from_secs(120);

struct Fixture {
    ws: Workspace,
}

impl std::ops::Deref for Fixture {
    type Target = Workspace;
    fn deref(&self) -> &Workspace {
        &self.ws
    }
}

impl Fixture {
    fn new() -> Self {
        Self {
            ws: Workspace::new("confinement", &[("greet.txt", "hello\n")]),
        }
    }

    /// A `PATH` with every program of this one except `bwrap`: links in one folder.
    fn path_without_bwrap(&self) -> PathBuf {
        let bin = self.dir.path().join("bin-without-bwrap");
        std::fs::create_dir_all(&bin).expect("bin");
        let path = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&path) {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = entry.file_name();
                let link = bin.join(&name);
                if name == "bwrap" || link.exists() {
                    continue;
                }
                let _ = std::os::unix::fs::symlink(entry.path(), &link);
            }
        }
        bin
    }

    fn command(&self, path: Option<&Path>, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command
            .args(args)
            .env("SWITCHYARD_HOME", self.home())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(path) = path {
            command.env("PATH", path);
        }
        command
    }

    fn run(&self, path: Option<&Path>, args: &[&str]) -> Run {
        let child = self.command(path, args).spawn().expect("spawn");
        Run::new(wait(child, args), args)
    }
}

fn wait(mut child: Child, args: &[&str]) -> std::process::Output {
    let deadline = Instant::now() + LIMIT;
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("switchyard {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Live (not zombie) `sleep <marker>` processes (the command line is NUL-separated, so the
/// `switchyard run` that names the same words in one argument does not match).
fn processes_with(marker: &str) -> Vec<u32> {
    let wanted = format!("sleep\0{marker}");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let zombie = status
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(&wanted)
        })
        .collect()
}

#[test]
fn without_bubblewrap_a_run_is_refused_unless_unconfined_workers_are_allowed() {
    let fx = Fixture::new();
    let path = fx.path_without_bwrap();
    let repo = fx.repo().display().to_string();
    let worker = "exec:common=$(git rev-parse --git-common-dir); \
         printf '#!/bin/sh\\necho HOOK-RAN\\n' > \"$common/hooks/pre-commit\"; \
         chmod +x \"$common/hooks/pre-commit\"; git config core.pager 'sh -c evil'; \
         printf 'hello, world\\n' > greet.txt";
    let args = [
        "run",
        "--repo",
        &repo,
        "--task",
        "Greet the world.",
        "--worker",
        worker,
        "--verify",
        "true",
        "--json",
    ];
    let config_before = std::fs::read(fx.repo().join(".git/config")).expect("config");

    let refused = fx.run(Some(&path), &args);
    let json = refused.expect_code(1);
    assert_eq!(json["error"]["code"], "confinementUnavailable", "{json}");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("bubblewrap") && m.contains("Allow unconfined")),
        "{json}"
    );
    let listed = fx.run(Some(&path), &["runs", "list", "--json"]);
    assert_eq!(
        listed.expect_code(0),
        &serde_json::json!([]),
        "nothing started"
    );
    let doctor = fx.run(Some(&path), &["doctor", "--json"]);
    assert_eq!(
        doctor.json["confinement"]["bwrap"], false,
        "{}",
        doctor.json
    );
    assert_eq!(doctor.json["confinement"]["allowUnconfined"], false);

    let set = fx.run(
        Some(&path),
        &[
            "settings",
            "set",
            "workers.allow_unconfined",
            "true",
            "--json",
        ],
    );
    assert_eq!(set.expect_code(0)["workers.allow_unconfined"], true);
    let run = fx.run(Some(&path), &args);
    // The repository gate blocks (exit 3): the worker, unconfined, changed the git directory.
    let review = run.expect_code(3).clone();
    assert_eq!(review["confinement"]["mode"], "none", "{review}");
    assert_eq!(review["confinement"]["network"], "open", "{review}");
    let repository = gate(&review, "repository");
    assert_eq!(repository["passed"], false, "{repository}");
    let evidence = repository["evidence"].to_string();
    assert!(evidence.contains("hooks/pre-commit"), "{evidence}");
    assert!(evidence.contains("config"), "{evidence}");
    assert!(evidence.contains("put back"), "{evidence}");
    // Put back byte for byte: no hook, the config as it was.
    assert!(!fx.repo().join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read(fx.repo().join(".git/config")).expect("config"),
        config_before
    );
    let approve = fx.run(
        Some(&path),
        &[
            "approve",
            review["run"].as_str().unwrap_or_default(),
            "--message",
            "x",
            "--json",
        ],
    );
    assert_eq!(approve.expect_code(3)["error"]["code"], "gateFailed");
    let doctor = fx.run(Some(&path), &["doctor", "--json"]);
    assert_eq!(
        doctor.json["confinement"]["mode"], "none",
        "{}",
        doctor.json
    );
    assert_eq!(doctor.json["confinement"]["allowUnconfined"], true);
}

/// `switchyard run` waiting on a worker that sleeps; `signal` ends the wait.
fn signal_cancels(signal: &str, marker: &str) {
    let fx = Fixture::new();
    let repo = fx.repo().display().to_string();
    let worker = format!("exec:printf 'hi\\n' > greet.txt; exec sleep {marker}");
    let args = [
        "run", "--repo", &repo, "--task", "Wait.", "--worker", &worker, "--verify", "true",
        "--json",
    ];
    let child = fx.command(None, &args).spawn().expect("spawn");
    let deadline = Instant::now() + LIMIT;
    while processes_with(marker).is_empty() {
        assert!(Instant::now() < deadline, "the worker never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let out = wait(child, &args);
    let run = Run::new(out, &args);
    assert_eq!(run.json["status"], "canceled", "{signal}: {}", run.json);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "{signal} left the worker running: {:?}",
            processes_with(marker)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigterm_to_a_waiting_run_cancels_it_and_leaves_no_process() {
    signal_cancels("TERM", "971.25");
}

#[test]
fn sighup_to_a_waiting_run_cancels_it_and_leaves_no_process() {
    signal_cancels("HUP", "971.5");
}

#[test]
fn sigint_to_a_waiting_run_cancels_it_and_leaves_no_process() {
    signal_cancels("INT", "971.75");
}

#[test]
fn a_cli_worker_that_rewrites_its_own_configuration_in_home_is_blocked_and_put_back() {
    let fx = Fixture::new();
    let home = fx.dir.path().join("user-home");
    let claude_dir = home.join(".claude");
    std::fs::create_dir_all(&claude_dir).expect("claude dir");
    let settings = claude_dir.join("settings.json");
    std::fs::write(&settings, "{\"theme\": \"dark\"}\n").expect("settings");
    // A look-alike `claude` (the CLI's behaviour is not under test): it plants a hook in its
    // own settings, which the user's next interactive session would run, then makes the edit.
    let bin = fx.dir.path().join("fake-bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let script = bin.join("claude");
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         if [ \"$1\" = --version ]; then echo '2.1.0 (Claude Code)'; exit 0; fi\n\
         cat > /dev/null\n\
         printf '{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch /tmp/pwned\"}]}]}}\\n' > \"$HOME/.claude/settings.json\"\n\
         mkdir -p \"$HOME/.claude/commands\" && echo evil > \"$HOME/.claude/commands/deploy.md\"\n\
         printf 'hello, world\\n' > greet.txt\n\
         echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"num_turns\":1}'\n",
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let repo = fx.repo().display().to_string();
    let args = [
        "run",
        "--repo",
        &repo,
        "--task",
        "Greet the world.",
        "--worker",
        "claude",
        "--verify",
        "true",
        "--json",
    ];
    let mut command = fx.command(None, &args);
    command.env("PATH", &path).env("HOME", &home);
    let run = Run::new(wait(command.spawn().expect("spawn"), &args), &args);
    let review = run.expect_code(3).clone();
    assert_eq!(review["confinement"]["mode"], "bwrap", "{review}");
    let repository = gate(&review, "repository");
    assert_eq!(repository["passed"], false, "{repository}");
    let evidence = repository["evidence"].to_string();
    assert!(evidence.contains(".claude/settings.json"), "{evidence}");
    assert!(evidence.contains(".claude/commands"), "{evidence}");
    // Put back byte for byte, and nothing left of the planted command.
    assert_eq!(
        std::fs::read_to_string(&settings).expect("settings"),
        "{\"theme\": \"dark\"}\n"
    );
    assert!(!claude_dir.join("commands").exists());
    assert_eq!(
        fx.read("greet.txt"),
        "hello\n",
        "the user's checkout is untouched"
    );
}
