//! The real `switchyard` binary, run as a child process with its own SWITCHYARD_HOME.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::process::Command;

fn switchyard(home: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command.env("SWITCHYARD_HOME", home);
    command
}

#[test]
fn version_prints_the_workspace_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = switchyard(dir.path())
        .arg("--version")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("switchyard {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn doctor_json_reports_every_section() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = switchyard(dir.path())
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json must print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    for id in [
        "dataDir",
        "database",
        "keychain",
        "git",
        "workers",
        "localModels",
    ] {
        assert!(ids.contains(&id), "missing check {id} in {ids:?}");
    }
    let names: Vec<&str> = report["workerClis"]
        .as_array()
        .expect("workers")
        .iter()
        .filter_map(|w| w["name"].as_str())
        .collect();
    assert_eq!(names, ["claude", "codex", "gemini", "opencode", "aider"]);
    let endpoints: Vec<&str> = report["localEndpoints"]
        .as_array()
        .expect("endpoints")
        .iter()
        .filter_map(|e| e["url"].as_str())
        .collect();
    assert_eq!(
        endpoints,
        ["http://127.0.0.1:11434", "http://127.0.0.1:1234"]
    );
    assert!(report["gitVersion"]
        .as_str()
        .is_some_and(|v| v.starts_with("git version")));
    assert!(dir.path().join("switchyard.db").is_file());
}

#[test]
fn info_json_keeps_data_across_runs_and_names_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first: serde_json::Value = serde_json::from_slice(
        &switchyard(dir.path())
            .args(["info", "--json"])
            .output()
            .expect("run")
            .stdout,
    )
    .expect("json");
    let second: serde_json::Value = serde_json::from_slice(
        &switchyard(dir.path())
            .args(["info", "--json"])
            .output()
            .expect("run")
            .stdout,
    )
    .expect("json");
    assert_eq!(first["schemaVersion"], second["schemaVersion"]);
    assert_eq!(
        first["databasePath"],
        dir.path().join("switchyard.db").display().to_string()
    );
}

#[test]
fn unwritable_home_is_a_clear_json_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").expect("write");
    let home = blocker.join("home");
    let out = switchyard(&home)
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json error");
    assert_eq!(body["error"]["code"], "startup");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains(&home.display().to_string()), "{message}");
}

#[test]
fn corrupt_database_is_a_clear_text_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("switchyard.db"), vec![b'z'; 8192]).expect("write");
    let out = switchyard(dir.path()).arg("doctor").output().expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("switchyard.db") && stderr.contains("not a database"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn processes_starting_together_on_a_new_database_all_start() {
    // Regression: two processes opening a new database at the same moment raced on the
    // migrations and one failed to start ("table … already exists").
    for round in 0..4 {
        let dir = tempfile::tempdir().expect("tempdir");
        let children: Vec<_> = (0..4)
            .map(|_| {
                switchyard(dir.path())
                    .args(["info", "--json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        for (i, child) in children.into_iter().enumerate() {
            let out = child.wait_with_output().expect("wait");
            assert!(
                out.status.success(),
                "round {round}, process {i} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            assert!(
                info["migrationsApplied"].as_u64().unwrap_or(0) > 0,
                "{info}"
            );
        }
    }
}

#[test]
fn setup_json_lists_the_first_run_checklist_with_a_fix_for_each_open_item() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = switchyard(dir.path())
        .args(["setup", "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let items = list["items"].as_array().expect("items");
    let ids: Vec<&str> = items.iter().filter_map(|i| i["id"].as_str()).collect();
    assert_eq!(
        ids,
        ["keychain", "model", "agentClis", "catalog", "connectAgent"]
    );
    // A new profile has no key and no agent has launched anything.
    let model = &items[1];
    assert_eq!(model["done"], false);
    assert_eq!(model["fix"], "openKeys");
    assert_eq!(items[4]["done"], false);
    for item in items {
        assert_eq!(
            item["done"].as_bool().expect("done"),
            item["fix"].is_null(),
            "{item}"
        );
    }
    let done = items.iter().filter(|i| i["done"] == true).count();
    assert_eq!(list["done"], done);
    assert_eq!(list["dismissed"], false);
}

#[test]
fn settings_set_hides_the_models_plot_for_the_app() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = |args: &[&str]| -> serde_json::Value {
        let out = switchyard(dir.path()).args(args).output().expect("run");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    assert_eq!(
        json(&["settings", "get", "--json"])["ui.plot_hidden"],
        false
    );
    assert_eq!(
        json(&["settings", "set", "ui.plot_hidden", "true", "--json"])["ui.plot_hidden"],
        true
    );
    assert_eq!(
        json(&["settings", "get", "ui.plot_hidden", "--json"])["ui.plot_hidden"],
        true
    );
}
