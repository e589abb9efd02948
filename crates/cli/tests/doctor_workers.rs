//! `switchyard doctor` lists each agent CLI: a fake `claude` on a temporary `PATH` (written by
//! the test) is installed with its version; the others are missing. The login shell is a
//! script that prints an empty-handed `PATH`, so the machine's real CLIs never leak in.
// Drives the real binary as a child process: a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn write_exe(path: &Path, body: &str) {
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn doctor(dir: &Path, json: bool) -> std::process::Output {
    let bin = dir.join("bin");
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .env("SWITCHYARD_HOME", dir.join("home"))
        // A home with no CLI logged in, whatever the machine running the test has.
        .env("HOME", dir.join("home"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("SHELL", dir.join("login-shell"))
        .arg("doctor");
    if json {
        command.arg("--json");
    }
    command.output().expect("run")
}

fn machine() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("bin")).expect("mkdir");
    write_exe(
        &dir.path().join("bin").join("claude"),
        "#!/bin/sh\n[ \"$1\" = --version ] && echo '9.9.9 (Claude Code)'\n",
    );
    write_exe(
        &dir.path().join("login-shell"),
        "#!/bin/sh\nPATH=/nonexistent\nexport PATH\nexec /bin/sh -c \"$2\"\n",
    );
    dir
}

#[test]
fn doctor_lists_each_agent_cli_installed_with_its_version_or_missing() {
    let dir = machine();
    let out = doctor(dir.path(), true);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let clis = report["workerClis"].as_array().expect("workerClis");
    let claude = &clis[0];
    assert_eq!(claude["cli"], "claude");
    assert_eq!(claude["installed"], true);
    assert_eq!(claude["version"], "9.9.9 (Claude Code)");
    assert_eq!(claude["source"], "path");
    assert_eq!(
        claude["path"].as_str(),
        dir.path().join("bin").join("claude").to_str()
    );
    // No anthropic key in Switchyard and no login under this machine's home: not ready,
    // and the report says how to fix it.
    assert_eq!(claude["ready"], false);
    assert_eq!(claude["account"], "none");
    assert!(
        claude["fix"]
            .as_str()
            .is_some_and(|f| f.contains("key for anthropic") && f.contains("log in")),
        "{claude}"
    );
    for other in &clis[1..] {
        assert_eq!(other["installed"], false, "{other}");
        assert_eq!(other["ready"], false, "{other}");
        assert_eq!(other["path"], serde_json::Value::Null, "{other}");
    }

    let text = doctor(dir.path(), false);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("claude    installed  9.9.9 (Claude Code)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("codex     missing    codex is not on PATH"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not ready  add a key for anthropic"),
        "{stdout}"
    );
}

#[test]
fn a_cli_logged_in_on_its_own_account_is_ready() {
    let dir = machine();
    let home = dir.path().join("user");
    std::fs::create_dir_all(home.join(".claude")).expect("mkdir");
    std::fs::write(home.join(".claude/.credentials.json"), "{}").expect("login");
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_HOME", dir.path().join("home"))
        .env("HOME", &home)
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", dir.path().join("bin").display()),
        )
        .env("SHELL", dir.path().join("login-shell"))
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let claude = &report["workerClis"][0];
    assert_eq!(claude["account"], "own", "{claude}");
    assert_eq!(claude["ready"], true, "{claude}");
    assert_eq!(claude["fix"], serde_json::Value::Null);
}

fn workers(dir: &Path, args: &[&str]) -> std::process::Output {
    let bin = dir.join("bin");
    Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_HOME", dir.join("home"))
        .env("HOME", dir.join("home"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("SHELL", dir.join("login-shell"))
        .arg("workers")
        .args(args)
        .output()
        .expect("run")
}

#[test]
fn workers_choose_a_clis_own_account_and_doctor_then_asks_for_its_login() {
    let dir = machine();
    let out = workers(dir.path(), &["account", "claude", "own", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let claude: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(claude["cli"], "claude");
    assert_eq!(claude["ownAccount"], true);
    assert_eq!(claude["account"], "none");
    assert!(
        claude["fix"]
            .as_str()
            .is_some_and(|f| f.contains("log in") && f.contains("let Switchyard pass its key")),
        "{claude}"
    );

    // Kept: the list and doctor say so too.
    let listed = workers(dir.path(), &["--json"]);
    let list: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    assert_eq!(list[0]["ownAccount"], true, "{list}");
    assert_eq!(list[1]["ownAccount"], false, "{list}");
    let report: serde_json::Value =
        serde_json::from_slice(&doctor(dir.path(), true).stdout).expect("json");
    assert_eq!(report["workerClis"][0]["ownAccount"], true);

    // Logged in under its home: its own account is used and it is ready.
    let login = dir.path().join("home").join(".claude");
    std::fs::create_dir_all(&login).expect("mkdir");
    std::fs::write(login.join(".credentials.json"), "{}").expect("login");
    let out = workers(dir.path(), &["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("account    its own account, chosen in Settings"),
        "{text}"
    );

    // Back to Switchyard's key.
    let out = workers(dir.path(), &["account", "claude", "switchyard", "--json"]);
    let claude: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(claude["ownAccount"], false);
    assert_eq!(
        claude["account"], "own",
        "logged in, and Switchyard holds no key"
    );

    // An unknown CLI is bad input, said as such.
    let out = workers(dir.path(), &["account", "vim", "own", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
