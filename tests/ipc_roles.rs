//! Roles commands through Tauri's mock runtime: the real invoke handler, a real engine on a
//! temp SQLite file, JSON in and out exactly as the UI sends and receives it.

mod support;

use serde_json::{json, Value};
use support::Harness;

impl Harness {
    /// The prompt text of block `id` of `kind` as the library reports it (ids are unique per
    /// kind only: `security` is both a domain and a guardrail).
    fn prompt_of(&self, kind: &str, id: &str) -> String {
        let blocks = self.ok("list_role_blocks", json!({}));
        blocks
            .as_array()
            .expect("array")
            .iter()
            .find(|b| b["id"] == id && b["kind"] == kind)
            .and_then(|b| b["prompt"].as_str())
            .unwrap_or_else(|| panic!("block {id} in the library"))
            .to_owned()
    }

    fn preset_names(&self) -> Vec<String> {
        self.ok("list_role_presets", json!({}))
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect()
    }
}

fn custom_input(title: &str, prompt: &str) -> Value {
    json!({
        "kind": "guardrail",
        "title": title,
        "description": "House rules for the payments team.",
        "prompt": prompt,
        "aliases": [],
        "group": null,
    })
}

#[test]
fn blocks_cover_every_kind_with_builtin_source() {
    let h = Harness::new();
    let blocks = h.ok("list_role_blocks", json!({}));
    let blocks = blocks.as_array().expect("array");
    for (kind, at_least) in [
        ("persona", 15),
        ("stack", 40),
        ("domain", 12),
        ("format", 6),
        ("guardrail", 8),
    ] {
        let count = blocks.iter().filter(|b| b["kind"] == kind).count();
        assert!(
            count >= at_least,
            "{kind}: {count} blocks, want ≥ {at_least}"
        );
    }
    assert!(blocks.iter().all(|b| b["source"] == "builtin"));
    assert!(blocks
        .iter()
        .all(|b| b["prompt"].as_str().is_some_and(|p| !p.is_empty())));
}

#[test]
fn compose_puts_every_block_and_the_task_in_order() {
    let h = Harness::new();
    let role = h.ok(
        "compose_role",
        json!({ "request": {
            "task": "Add rate limiting to the login endpoint",
            "persona": "backend-engineer",
            "stack": ["postgresql", "rust", "postgresql"],
            "guardrails": ["security"],
        }}),
    );
    assert_eq!(role["hasRole"], true);
    assert_eq!(role["warnings"], json!([]));
    let ids: Vec<&str> = role["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(ids, ["backend-engineer", "postgresql", "rust", "security"]);
    let prompt = role["fullPrompt"].as_str().expect("prompt");
    let positions: Vec<usize> = [
        ("persona", "backend-engineer"),
        ("stack", "postgresql"),
        ("stack", "rust"),
        ("guardrail", "security"),
    ]
    .iter()
    .map(|(kind, id)| {
        prompt
            .find(&h.prompt_of(kind, id))
            .unwrap_or_else(|| panic!("{id} text in the prompt"))
    })
    .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert!(prompt
        .trim_end()
        .ends_with("Add rate limiting to the login endpoint"));
    assert!(role["tokenEstimate"].as_u64().is_some_and(|t| t > 0));
}

#[test]
fn unknown_ids_warn_with_a_suggestion_and_empty_task_is_invalid_input() {
    let h = Harness::new();
    let role = h.ok(
        "compose_role",
        json!({ "request": { "task": "x", "persona": "backend-enginer" } }),
    );
    assert_eq!(role["hasRole"], false);
    assert_eq!(role["warnings"][0]["kind"], "persona");
    assert_eq!(role["warnings"][0]["suggestion"], "backend-engineer");
    assert_eq!(role["fullPrompt"], "x");

    let err = h.err(
        "compose_role",
        json!({ "request": { "task": "  ", "persona": "sre" } }),
    );
    assert_eq!(err["code"], "invalidInput");
    assert!(err["message"].as_str().is_some_and(|m| m.contains("task")));
}

#[test]
fn preset_lifecycle_and_compose_from_a_preset() {
    let h = Harness::new();
    let saved = h.ok(
        "save_role_preset",
        json!({ "preset": {
            "name": "  API work ",
            "persona": "Backend-Engineer",
            "stack": ["rust", "postgresql"],
            "domain": null,
            "format": null,
            "guardrails": ["security"],
        }}),
    );
    assert_eq!(saved["name"], "API work");
    assert_eq!(saved["persona"], "backend-engineer");

    let composed = h.ok(
        "compose_role",
        json!({ "request": { "task": "Ship it", "preset": "API work" } }),
    );
    assert!(composed["fullPrompt"]
        .as_str()
        .is_some_and(|p| p.contains(&h.prompt_of("stack", "rust"))));

    let copy = h.ok(
        "duplicate_role_preset",
        json!({ "name": "API work", "newName": null }),
    );
    assert_eq!(copy["name"], "API work copy");
    assert_eq!(copy["stack"], json!(["rust", "postgresql"]));
    let renamed = h.ok(
        "rename_role_preset",
        json!({ "from": "API work copy", "to": "DB work" }),
    );
    assert_eq!(renamed["name"], "DB work");
    assert_eq!(h.preset_names(), ["API work", "DB work"]);

    let taken = h.err(
        "rename_role_preset",
        json!({ "from": "DB work", "to": "API work" }),
    );
    assert_eq!(taken["code"], "invalidInput");
    h.ok("delete_role_preset", json!({ "name": "DB work" }));
    assert_eq!(h.preset_names(), ["API work"]);
    let missing = h.err("delete_role_preset", json!({ "name": "DB work" }));
    assert_eq!(missing["code"], "notFound");
    let unknown = h.err(
        "compose_role",
        json!({ "request": { "task": "t", "preset": "API wrk" } }),
    );
    assert_eq!(unknown["code"], "notFound");
}

#[test]
fn custom_blocks_are_namespaced_editable_and_composable() {
    let h = Harness::new();
    let block = h.ok(
        "add_custom_block",
        json!({ "input": custom_input("Payments rules", "Never log card numbers.") }),
    );
    assert_eq!(block["id"], "custom:payments-rules");
    assert_eq!(block["source"], "custom");

    let updated = h.ok(
        "update_custom_block",
        json!({ "id": "custom:payments-rules",
                "input": custom_input("Payments rules", "Never log PANs or CVVs.") }),
    );
    assert_eq!(updated["prompt"], "Never log PANs or CVVs.");
    let role = h.ok(
        "compose_role",
        json!({ "request": { "task": "t", "guardrails": ["custom:payments-rules"] } }),
    );
    assert!(role["fullPrompt"]
        .as_str()
        .is_some_and(|p| p.contains("Never log PANs or CVVs.")));
    assert_eq!(role["blocks"][0]["source"], "custom");

    let builtin = h.err(
        "update_custom_block",
        json!({ "id": "security", "input": custom_input("X", "Y") }),
    );
    assert_eq!(builtin["code"], "notFound");
    let empty = h.err(
        "add_custom_block",
        json!({ "input": custom_input("Empty", "   ") }),
    );
    assert_eq!(empty["code"], "invalidInput");

    h.ok(
        "delete_custom_block",
        json!({ "id": "custom:payments-rules" }),
    );
    let blocks = h.ok("list_role_blocks", json!({}));
    assert!(!blocks
        .as_array()
        .expect("array")
        .iter()
        .any(|b| b["source"] == "custom"));
}

#[test]
fn export_then_import_restores_blocks_and_presets_and_bad_files_change_nothing() {
    let source = Harness::new();
    source.ok(
        "add_custom_block",
        json!({ "input": custom_input("Payments rules", "Never log card numbers.") }),
    );
    source.ok(
        "save_role_preset",
        json!({ "preset": { "name": "Payments", "guardrails": ["custom:payments-rules"] } }),
    );
    let file = source.ok("export_roles", json!({}));
    let text = file.as_str().expect("export is JSON text");
    let parsed: Value = serde_json::from_str(text).expect("valid JSON file");
    assert_eq!(parsed["version"], 1);

    let target = Harness::new();
    target.ok(
        "save_role_preset",
        json!({ "preset": { "name": "Keep me" } }),
    );
    let bad = target.err(
        "import_roles",
        json!({ "json": "{\"version\":1,\"blocks\":[{\"id\":\"security\"}]}", "mode": "replace" }),
    );
    assert_eq!(bad["code"], "invalidInput");
    assert_eq!(target.preset_names(), ["Keep me"]);

    let report = target.ok("import_roles", json!({ "json": text, "mode": "merge" }));
    assert_eq!(report["blocksImported"], 1);
    assert_eq!(report["presetsImported"], 1);
    assert_eq!(target.preset_names(), ["Keep me", "Payments"]);

    let report = target.ok("import_roles", json!({ "json": text, "mode": "replace" }));
    assert_eq!(report["presetsRemoved"], 1);
    assert_eq!(target.preset_names(), ["Payments"]);
    assert_eq!(target.ok("export_roles", json!({})), file);
}
