//! Custom role blocks and presets against the real SQLite file.

use switchyard_core::roles::{
    parse_bundle, BlockKind, CustomBlockInput, ImportMode, RoleBlock, RolePreset, RolesBundle,
    StackGroup,
};
use switchyard_store::roles::PresetChange;
use switchyard_store::{Store, DATABASE_FILE};

const T0: &str = "2026-11-29T10:00:00Z";
const T1: &str = "2026-11-29T11:00:00Z";

async fn open(dir: &tempfile::TempDir) -> Store {
    Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("open")
}

fn block(slug: &str, kind: BlockKind, prompt: &str) -> RoleBlock {
    CustomBlockInput {
        kind,
        title: format!("Title {slug}"),
        description: format!("About {slug}"),
        prompt: prompt.into(),
        aliases: vec![format!("{slug}-alias")],
        group: (kind == BlockKind::Stack).then_some(StackGroup::Language),
    }
    .into_block(&format!("custom:{slug}"))
    .expect("valid block")
}

fn preset(name: &str, stack: &[&str]) -> RolePreset {
    RolePreset {
        name: name.into(),
        persona: Some("backend-engineer".into()),
        stack: stack.iter().map(|s| (*s).to_owned()).collect(),
        domain: None,
        format: Some("patch-only".into()),
        guardrails: vec!["security".into(), "custom:house".into()],
    }
}

#[tokio::test]
async fn custom_blocks_crud_survives_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    let elm = block("elm", BlockKind::Stack, "Write Elm.");
    let house = block("house", BlockKind::Guardrail, "House rules.");
    assert!(store
        .insert_custom_role_block(&house, T0)
        .await
        .expect("insert"));
    assert!(store
        .insert_custom_role_block(&elm, T0)
        .await
        .expect("insert"));
    // Same id again: refused, original kept.
    let clash = block("elm", BlockKind::Persona, "Other.");
    assert!(!store
        .insert_custom_role_block(&clash, T1)
        .await
        .expect("insert"));
    assert_eq!(
        store.custom_role_block("custom:elm").await.expect("get"),
        Some(elm.clone())
    );

    let mut edited = elm.clone();
    edited.prompt = "Write Elm 0.19 with elm-review.".into();
    edited.aliases = vec![];
    assert!(store
        .update_custom_role_block(&edited, T1)
        .await
        .expect("update"));
    let missing = block("ghost", BlockKind::Stack, "x");
    assert!(!store
        .update_custom_role_block(&missing, T1)
        .await
        .expect("update"));
    store.close().await;

    let store = open(&dir).await;
    let all = store.custom_role_blocks().await.expect("list");
    // Section order: stack before guardrail, whatever the insertion order.
    assert_eq!(all, vec![edited, house]);
    assert!(store
        .delete_custom_role_block("custom:elm")
        .await
        .expect("delete"));
    assert!(!store
        .delete_custom_role_block("custom:elm")
        .await
        .expect("delete again"));
    assert_eq!(store.custom_role_blocks().await.expect("list").len(), 1);
}

#[tokio::test]
async fn builtin_ids_cannot_be_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    let mut sneaky = block("rust", BlockKind::Stack, "x");
    sneaky.id = "rust".into();
    assert!(
        store.insert_custom_role_block(&sneaky, T0).await.is_err(),
        "CHECK constraint"
    );
    assert!(store.custom_role_blocks().await.expect("list").is_empty());
}

#[tokio::test]
async fn presets_save_rename_duplicate_delete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    store
        .save_role_preset(&preset("API", &["rust", "postgresql"]), T0)
        .await
        .expect("save");
    store
        .save_role_preset(&preset("Web", &["react"]), T0)
        .await
        .expect("save");
    // Saving under an existing name replaces it.
    store
        .save_role_preset(&preset("API", &["go"]), T1)
        .await
        .expect("save");
    let api = store
        .role_preset("API")
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(api.stack, vec!["go"]);
    assert_eq!(api.guardrails, vec!["security", "custom:house"]);

    assert_eq!(
        store
            .rename_role_preset("API", "Web", T1)
            .await
            .expect("rename"),
        PresetChange::NameTaken
    );
    assert_eq!(
        store
            .rename_role_preset("Nope", "X", T1)
            .await
            .expect("rename"),
        PresetChange::NotFound
    );
    assert_eq!(
        store
            .rename_role_preset("API", "Backend", T1)
            .await
            .expect("rename"),
        PresetChange::Done
    );
    assert_eq!(store.role_preset("API").await.expect("get"), None);

    assert_eq!(
        store
            .duplicate_role_preset("Backend", "Backend copy", T1)
            .await
            .expect("dup"),
        PresetChange::Done
    );
    assert_eq!(
        store
            .duplicate_role_preset("Backend", "Web", T1)
            .await
            .expect("dup"),
        PresetChange::NameTaken
    );
    assert_eq!(
        store
            .duplicate_role_preset("Nope", "Other", T1)
            .await
            .expect("dup"),
        PresetChange::NotFound
    );
    let copy = store
        .role_preset("Backend copy")
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(
        copy,
        RolePreset {
            name: "Backend copy".into(),
            ..preset("x", &["go"])
        }
    );

    let names: Vec<String> = store
        .role_presets()
        .await
        .expect("list")
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["Backend", "Backend copy", "Web"]);
    assert!(store.delete_role_preset("Web").await.expect("delete"));
    assert!(!store.delete_role_preset("Web").await.expect("delete again"));
    store.close().await;

    let store = open(&dir).await;
    assert_eq!(
        store.role_presets().await.expect("list").len(),
        2,
        "survives reopen"
    );
}

async fn seed(store: &Store) {
    store
        .insert_custom_role_block(&block("old", BlockKind::Persona, "Old."), T0)
        .await
        .expect("seed");
    store
        .insert_custom_role_block(&block("elm", BlockKind::Stack, "Elm v1."), T0)
        .await
        .expect("seed");
    store
        .save_role_preset(&preset("Keep", &["rust"]), T0)
        .await
        .expect("seed");
    store
        .save_role_preset(&preset("Shared", &["rust"]), T0)
        .await
        .expect("seed");
}

fn incoming() -> RolesBundle {
    RolesBundle::new(
        vec![
            block("elm", BlockKind::Stack, "Elm v2."),
            block("new", BlockKind::Format, "New."),
        ],
        vec![preset("Shared", &["go"]), preset("Fresh", &[])],
    )
    .expect("valid bundle")
}

#[tokio::test]
async fn merge_import_upserts_and_keeps_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    seed(&store).await;
    let report = store
        .import_roles(&incoming(), ImportMode::Merge, T1)
        .await
        .expect("import");
    assert_eq!(
        (
            report.blocks_imported,
            report.blocks_replaced,
            report.blocks_removed
        ),
        (2, 1, 0)
    );
    assert_eq!(
        (
            report.presets_imported,
            report.presets_replaced,
            report.presets_removed
        ),
        (2, 1, 0)
    );
    let ids: Vec<String> = store
        .custom_role_blocks()
        .await
        .expect("list")
        .into_iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(ids, ["custom:old", "custom:elm", "custom:new"]);
    let elm = store
        .custom_role_block("custom:elm")
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(elm.prompt, "Elm v2.");
    let shared = store
        .role_preset("Shared")
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(shared.stack, vec!["go"]);
    assert!(store.role_preset("Keep").await.expect("get").is_some());
}

#[tokio::test]
async fn replace_import_leaves_exactly_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    seed(&store).await;
    let bundle = incoming();
    let report = store
        .import_roles(&bundle, ImportMode::Replace, T1)
        .await
        .expect("import");
    assert_eq!((report.blocks_removed, report.presets_removed), (1, 1));
    assert_eq!(
        store.custom_role_blocks().await.expect("list"),
        bundle.blocks
    );
    assert_eq!(store.role_presets().await.expect("list"), bundle.presets);
    // An exported store re-imports to the same bytes.
    let export = RolesBundle::new(
        store.custom_role_blocks().await.expect("list"),
        store.role_presets().await.expect("list"),
    )
    .expect("valid");
    assert_eq!(export.to_json(), bundle.to_json());
}

#[tokio::test]
async fn an_import_failing_midway_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    seed(&store).await;
    let before_blocks = store.custom_role_blocks().await.expect("list");
    let before_presets = store.role_presets().await.expect("list");

    // Bypass validation to make the database refuse the second row after the first was
    // written and the replace deletions ran: the transaction must roll everything back.
    let mut bad = incoming();
    bad.blocks[1].id = "rust".into();
    let err = store.import_roles(&bad, ImportMode::Replace, T1).await;
    assert!(err.is_err(), "CHECK constraint rejects a built-in id");
    assert_eq!(
        store.custom_role_blocks().await.expect("list"),
        before_blocks
    );
    assert_eq!(store.role_presets().await.expect("list"), before_presets);
}

#[tokio::test]
async fn a_malformed_file_is_rejected_before_touching_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(&dir).await;
    seed(&store).await;
    let before = (
        store.custom_role_blocks().await.expect("list"),
        store.role_presets().await.expect("list"),
    );
    let malformed = r#"{"version": 1, "blocks": [
        {"id": "custom:fine", "kind": "stack", "title": "Fine", "description": "d", "prompt": "p"},
        {"id": "custom:broken", "kind": "stack", "title": "", "description": "d", "prompt": "p"}
    ]}"#;
    let err = parse_bundle(malformed).expect_err("rejected");
    assert_eq!(
        err.to_string(),
        "roles file: blocks[1] (custom:broken): title is empty"
    );
    let after = (
        store.custom_role_blocks().await.expect("list"),
        store.role_presets().await.expect("list"),
    );
    assert_eq!(after, before);
}

#[tokio::test]
async fn corrupt_rows_are_reported_not_panicked_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    store
        .save_role_preset(&preset("P", &["rust"]), T0)
        .await
        .expect("save");
    store.close().await;
    // Another tool writes a JSON value that is not a list of strings.
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .expect("connect");
        sqlx::query("UPDATE role_presets SET stack = '{\"a\":1}'")
            .execute(&mut conn)
            .await
            .expect("update");
        conn.close().await.expect("close");
    }
    let store = Store::open(&path).await.expect("reopen");
    let err = store.role_presets().await.expect_err("corrupt");
    assert!(
        err.to_string().contains("corrupt value in role_presets"),
        "{err}"
    );
}
