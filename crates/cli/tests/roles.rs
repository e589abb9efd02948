//! `switchyard roles …` through the real binary, each test with its own SWITCHYARD_HOME.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

fn switchyard(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_HOME", home)
        .args(args)
        .output()
        .expect("run switchyard")
}

/// Runs a verb that must succeed and parses its JSON stdout.
fn ok_json(home: &Path, args: &[&str]) -> Value {
    let out = switchyard(home, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} must print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Runs a verb that must fail and returns its `{"error": {...}}` body.
fn err_json(home: &Path, args: &[&str]) -> Value {
    let out = switchyard(home, args);
    assert!(!out.status.success(), "{args:?} should fail");
    let body: Value = serde_json::from_slice(&out.stdout).expect("JSON error body");
    body["error"].clone()
}

/// A roles file with one custom guardrail and one preset that uses it.
fn roles_file() -> Value {
    json!({
        "version": 1,
        "blocks": [{
            "id": "custom:house-rules",
            "kind": "guardrail",
            "title": "House rules",
            "description": "How this team ships.",
            "prompt": "Every migration ships with a rollback script."
        }],
        "presets": [{
            "name": "Backend API",
            "persona": "backend-engineer",
            "stack": ["rust", "postgresql"],
            "guardrails": ["custom:house-rules"]
        }]
    })
}

fn write_roles_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("roles.json");
    std::fs::write(&path, roles_file().to_string()).expect("write roles file");
    path
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect()
}

#[test]
fn blocks_lists_every_kind_with_title_and_source() {
    let home = tempfile::tempdir().expect("tempdir");
    let blocks = ok_json(home.path(), &["roles", "blocks", "--json"]);
    for (kind, at_least) in [
        ("persona", 15),
        ("stack", 40),
        ("domain", 12),
        ("format", 6),
        ("guardrail", 8),
    ] {
        let list = blocks[kind].as_array().expect("a list per kind");
        assert!(list.len() >= at_least, "{kind}: {}", list.len());
        assert!(list.iter().all(
            |b| b["source"] == "builtin" && b["title"].as_str().is_some_and(|t| !t.is_empty())
        ));
    }
    assert!(ids(&blocks["persona"]).contains(&"backend-engineer"));
    assert!(ids(&blocks["stack"]).contains(&"postgresql"));

    let file = write_roles_file(home.path());
    ok_json(
        home.path(),
        &["roles", "import", file.to_str().expect("utf-8"), "--json"],
    );
    let blocks = ok_json(home.path(), &["roles", "blocks", "--json"]);
    let custom: Vec<&Value> = blocks["guardrail"]
        .as_array()
        .expect("guardrails")
        .iter()
        .filter(|b| b["source"] == "custom")
        .collect();
    assert_eq!(custom.len(), 1);
    assert_eq!(custom[0]["id"], "custom:house-rules");
    assert_eq!(custom[0]["title"], "House rules");
}

#[test]
fn compose_returns_the_prompt_blocks_warnings_and_estimate() {
    let home = tempfile::tempdir().expect("tempdir");
    let role = ok_json(
        home.path(),
        &[
            "roles",
            "compose",
            "--task",
            "Add pagination to GET /orders",
            "--persona",
            "backend-engineer",
            "--stack",
            "rust,pg,rust",
            "--domain",
            "e-commerce",
            "--format",
            "patch-only",
            "--guardrails",
            "security,minimal-dif",
            "--json",
        ],
    );
    let keys: Vec<&String> = role.as_object().expect("object").keys().collect();
    for key in [
        "hasRole",
        "fullPrompt",
        "warnings",
        "blocks",
        "tokenEstimate",
    ] {
        assert!(keys.iter().any(|k| *k == key), "missing {key} in {keys:?}");
    }
    assert_eq!(role["hasRole"], true);
    assert_eq!(
        ids(&role["blocks"]),
        [
            "backend-engineer",
            "rust",
            "postgresql",
            "e-commerce",
            "patch-only",
            "security"
        ]
    );
    assert_eq!(role["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(role["warnings"][0]["kind"], "guardrail");
    assert_eq!(role["warnings"][0]["suggestion"], "minimal-diff");
    let prompt = role["fullPrompt"].as_str().expect("prompt");
    assert!(prompt.trim_end().ends_with("Add pagination to GET /orders"));
    let tokens = role["tokenEstimate"].as_u64().expect("estimate");
    assert!(tokens > 50 && tokens < prompt.len() as u64, "{tokens}");

    let again = ok_json(
        home.path(),
        &[
            "roles",
            "compose",
            "--task",
            "Add pagination to GET /orders",
            "--persona",
            "backend-engineer",
            "--stack",
            "rust,pg,rust",
            "--domain",
            "e-commerce",
            "--format",
            "patch-only",
            "--guardrails",
            "security,minimal-dif",
            "--json",
        ],
    );
    assert_eq!(again, role, "composition is deterministic");
}

#[test]
fn compose_without_json_prints_the_prompt_and_warns_on_stderr() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = switchyard(
        home.path(),
        &[
            "roles",
            "compose",
            "--task",
            "Fix it",
            "--persona",
            "sre",
            "--stack",
            "rustt",
        ],
    );
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("# Role: "), "{stdout}");
    assert!(stdout.trim_end().ends_with("Fix it"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown stack entry 'rustt'") && stderr.contains("'rust'"),
        "{stderr}"
    );
}

#[test]
fn compose_errors_are_json_with_a_code() {
    let home = tempfile::tempdir().expect("tempdir");
    let empty = err_json(home.path(), &["roles", "compose", "--task", " ", "--json"]);
    assert_eq!(empty["code"], "invalidInput");
    let missing = err_json(
        home.path(),
        &[
            "roles", "compose", "--task", "t", "--preset", "Nope", "--json",
        ],
    );
    assert_eq!(missing["code"], "notFound");
    assert!(missing["message"]
        .as_str()
        .is_some_and(|m| m.contains("Nope")));
}

#[test]
fn presets_from_an_import_list_and_compose() {
    let home = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        ok_json(home.path(), &["roles", "presets", "--json"]),
        json!([])
    );
    let file = write_roles_file(home.path());
    let report = ok_json(
        home.path(),
        &["roles", "import", file.to_str().expect("utf-8"), "--json"],
    );
    assert_eq!(report["mode"], "merge");
    assert_eq!(report["blocksImported"], 1);
    assert_eq!(report["presetsImported"], 1);

    let presets = ok_json(home.path(), &["roles", "presets", "--json"]);
    assert_eq!(presets[0]["name"], "Backend API");
    assert_eq!(presets[0]["stack"], json!(["rust", "postgresql"]));

    let role = ok_json(
        home.path(),
        &[
            "roles",
            "compose",
            "--preset",
            "Backend API",
            "--task",
            "Add an index",
            "--stack",
            "redis",
            "--json",
        ],
    );
    assert_eq!(
        ids(&role["blocks"]),
        [
            "backend-engineer",
            "rust",
            "postgresql",
            "redis",
            "custom:house-rules"
        ]
    );
    assert!(role["fullPrompt"]
        .as_str()
        .is_some_and(|p| p.contains("Every migration ships with a rollback script.")));
}

#[test]
fn export_to_a_file_round_trips_into_another_home() {
    let first = tempfile::tempdir().expect("tempdir");
    let file = write_roles_file(first.path());
    ok_json(
        first.path(),
        &["roles", "import", file.to_str().expect("utf-8"), "--json"],
    );
    let out = first.path().join("export.json");
    let written = ok_json(
        first.path(),
        &[
            "roles",
            "export",
            "--out",
            out.to_str().expect("utf-8"),
            "--json",
        ],
    );
    assert_eq!(written["out"], out.display().to_string());
    let exported = std::fs::read_to_string(&out).expect("export file");
    assert_eq!(written["bytes"], exported.len());
    let stdout = switchyard(first.path(), &["roles", "export"]);
    assert_eq!(String::from_utf8_lossy(&stdout.stdout), exported);

    let second = tempfile::tempdir().expect("tempdir");
    ok_json(
        second.path(),
        &["roles", "import", out.to_str().expect("utf-8"), "--json"],
    );
    let again = switchyard(second.path(), &["roles", "export"]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), exported);
}

#[test]
fn bad_imports_fail_clearly_and_change_nothing() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = write_roles_file(home.path());
    ok_json(
        home.path(),
        &["roles", "import", file.to_str().expect("utf-8"), "--json"],
    );
    let before = switchyard(home.path(), &["roles", "export"]).stdout;

    let broken = home.path().join("broken.json");
    std::fs::write(&broken, "{\"version\": 1, \"presets\": [{\"name\": \"x\"}").expect("write");
    let error = err_json(
        home.path(),
        &[
            "roles",
            "import",
            broken.to_str().expect("utf-8"),
            "--replace",
            "--json",
        ],
    );
    assert_eq!(error["code"], "invalidInput");
    assert!(error["message"]
        .as_str()
        .is_some_and(|m| m.contains("not valid JSON")));

    let missing = home.path().join("missing.json");
    let error = err_json(
        home.path(),
        &[
            "roles",
            "import",
            missing.to_str().expect("utf-8"),
            "--json",
        ],
    );
    assert_eq!(error["code"], "io");
    assert!(error["message"]
        .as_str()
        .is_some_and(|m| m.contains("missing.json")));

    assert_eq!(switchyard(home.path(), &["roles", "export"]).stdout, before);
}

#[test]
fn import_replace_removes_what_the_file_lacks() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = write_roles_file(home.path());
    ok_json(
        home.path(),
        &["roles", "import", file.to_str().expect("utf-8"), "--json"],
    );
    let empty = home.path().join("empty.json");
    std::fs::write(&empty, "{\"version\": 1}").expect("write");
    let report = ok_json(
        home.path(),
        &[
            "roles",
            "import",
            empty.to_str().expect("utf-8"),
            "--replace",
            "--json",
        ],
    );
    assert_eq!(report["mode"], "replace");
    assert_eq!(report["blocksRemoved"], 1);
    assert_eq!(report["presetsRemoved"], 1);
    assert_eq!(
        ok_json(home.path(), &["roles", "presets", "--json"]),
        json!([])
    );
}
