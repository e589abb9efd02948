//! Roles use cases through the engine, against a temp home and its real SQLite file.

use switchyard_core::error::ErrorCode;
use switchyard_core::roles::{
    BlockKind, BlockSource, ComposeRequest, CustomBlockInput, ImportMode, RolePreset,
};
use switchyard_engine::{Engine, EngineConfig};

async fn engine(dir: &tempfile::TempDir) -> Engine {
    Engine::open(EngineConfig {
        home: Some(dir.path().to_path_buf()),
    })
    .await
    .expect("open")
}

fn input(kind: BlockKind, title: &str, prompt: &str) -> CustomBlockInput {
    CustomBlockInput {
        kind,
        title: title.into(),
        description: format!("{title} description"),
        prompt: prompt.into(),
        aliases: vec![],
        group: None,
    }
}

fn request(task: &str) -> ComposeRequest {
    ComposeRequest {
        task: task.into(),
        ..ComposeRequest::default()
    }
}

#[tokio::test]
async fn blocks_list_builtins_and_custom_blocks_with_their_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    let before = engine.role_blocks().await.expect("blocks");
    assert!(before.iter().all(|b| b.source == BlockSource::Builtin));
    assert!(before.iter().filter(|b| b.kind == BlockKind::Stack).count() >= 40);

    let added = engine
        .add_custom_block(input(BlockKind::Persona, "Elm Wizard!", "You write Elm."))
        .await
        .expect("add");
    assert_eq!(added.id, "custom:elm-wizard");
    let again = engine
        .add_custom_block(input(BlockKind::Persona, "elm wizard", "Another."))
        .await
        .expect("add second");
    assert_eq!(again.id, "custom:elm-wizard-2", "taken ids are numbered");

    let after = engine.role_blocks().await.expect("blocks");
    assert_eq!(after.len(), before.len() + 2);
    let custom: Vec<&str> = after
        .iter()
        .filter(|b| b.source == BlockSource::Custom)
        .map(|b| b.id.as_str())
        .collect();
    assert_eq!(custom, ["custom:elm-wizard", "custom:elm-wizard-2"]);
    engine.close().await;
}

#[tokio::test]
async fn compose_uses_custom_blocks_and_warns_on_unknown_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    let house = engine
        .add_custom_block(input(
            BlockKind::Guardrail,
            "House rules",
            "Log the tenant id.",
        ))
        .await
        .expect("add");
    let role = engine
        .compose_role(ComposeRequest {
            persona: Some("backend-engineer".into()),
            stack: vec!["rust".into(), "k8s".into()],
            guardrails: vec![house.id.clone(), "securty".into()],
            ..request("Add audit logging")
        })
        .await
        .expect("composes");
    assert!(role.has_role);
    let ids: Vec<&str> = role.blocks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "backend-engineer",
            "rust",
            "kubernetes",
            "custom:house-rules"
        ]
    );
    assert!(role.full_prompt.contains("Log the tenant id."));
    assert!(role.full_prompt.ends_with("# Task\nAdd audit logging\n"));
    assert_eq!(role.warnings.len(), 1);
    assert_eq!(role.warnings[0].kind, BlockKind::Guardrail);
    assert_eq!(role.warnings[0].suggestion.as_deref(), Some("security"));

    let err = engine
        .compose_role(request("  "))
        .await
        .expect_err("empty task");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("task is empty"), "{err}");
    engine.close().await;
}

#[tokio::test]
async fn presets_are_saved_resolved_and_survive_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    let saved = engine
        .save_role_preset(RolePreset {
            name: " API work ".into(),
            persona: Some("Backend-Engineer".into()),
            stack: vec!["rust".into(), "rust".into()],
            domain: Some("fintech".into()),
            format: None,
            guardrails: vec!["security".into()],
        })
        .await
        .expect("save");
    assert_eq!(saved.name, "API work");
    assert_eq!(saved.persona.as_deref(), Some("backend-engineer"));
    assert_eq!(saved.stack, vec!["rust"]);
    engine.close().await;

    let engine = self::engine(&dir).await;
    assert_eq!(engine.list_role_presets().await.expect("list"), vec![saved]);
    let role = engine
        .compose_role(ComposeRequest {
            preset: Some("API work".into()),
            domain: Some("healthcare".into()),
            stack: vec!["postgresql".into()],
            ..request("Store consent records")
        })
        .await
        .expect("composes");
    let ids: Vec<&str> = role.blocks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "backend-engineer",
            "rust",
            "postgresql",
            "healthcare",
            "security"
        ]
    );

    let err = engine
        .compose_role(ComposeRequest {
            preset: Some("API wrk".into()),
            ..request("t")
        })
        .await
        .expect_err("unknown preset");
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.to_string().contains("did you mean 'API work'"), "{err}");
    engine.close().await;
}

#[tokio::test]
async fn presets_rename_duplicate_and_delete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    let preset = |name: &str| RolePreset {
        name: name.into(),
        persona: Some("sre".into()),
        stack: vec![],
        domain: None,
        format: None,
        guardrails: vec![],
    };
    engine.save_role_preset(preset("Ops")).await.expect("save");
    engine
        .save_role_preset(preset("Other"))
        .await
        .expect("save");

    let err = engine
        .rename_role_preset("Ops", "Other")
        .await
        .expect_err("taken");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let err = engine
        .rename_role_preset("Nope", "X")
        .await
        .expect_err("missing");
    assert_eq!(err.code(), ErrorCode::NotFound);
    let err = engine
        .rename_role_preset("Ops", " \n ")
        .await
        .expect_err("empty name");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let renamed = engine
        .rename_role_preset("Ops", "Operations")
        .await
        .expect("rename");
    assert_eq!(renamed, preset("Operations"));

    let first = engine
        .duplicate_role_preset("Operations", None)
        .await
        .expect("dup");
    let second = engine
        .duplicate_role_preset("Operations", None)
        .await
        .expect("dup");
    assert_eq!(
        (first.name.as_str(), second.name.as_str()),
        ("Operations copy", "Operations copy 2")
    );
    assert_eq!(second.persona.as_deref(), Some("sre"));
    let named = engine
        .duplicate_role_preset("Operations", Some("Night shift"))
        .await
        .expect("dup");
    assert_eq!(named.name, "Night shift");
    let err = engine
        .duplicate_role_preset("Operations", Some("Other"))
        .await
        .expect_err("taken");
    assert_eq!(err.code(), ErrorCode::InvalidInput);

    engine.delete_role_preset("Other").await.expect("delete");
    let err = engine.delete_role_preset("Other").await.expect_err("gone");
    assert_eq!(err.code(), ErrorCode::NotFound);
    let names: Vec<String> = engine
        .list_role_presets()
        .await
        .expect("list")
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        [
            "Night shift",
            "Operations",
            "Operations copy",
            "Operations copy 2"
        ]
    );
    engine.close().await;
}

#[tokio::test]
async fn custom_blocks_update_and_delete_but_builtins_are_read_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    let block = engine
        .add_custom_block(input(
            BlockKind::Format,
            "Bullet list",
            "Answer in bullets.",
        ))
        .await
        .expect("add");
    let updated = engine
        .update_custom_block(
            &block.id,
            input(BlockKind::Format, "Bullets", "Answer in 5 bullets."),
        )
        .await
        .expect("update");
    assert_eq!(updated.id, block.id, "the id never changes");
    assert_eq!(updated.title, "Bullets");
    let role = engine
        .compose_role(ComposeRequest {
            format: Some(block.id.clone()),
            ..request("t")
        })
        .await
        .expect("composes");
    assert!(role.full_prompt.contains("Answer in 5 bullets."));

    let err = engine
        .update_custom_block("rust", input(BlockKind::Stack, "Rust", "x"))
        .await
        .expect_err("built-in");
    assert_eq!(err.code(), ErrorCode::NotFound);
    let err = engine
        .add_custom_block(input(BlockKind::Stack, "Empty", " \u{0} "))
        .await
        .expect_err("empty prompt");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("prompt is empty"), "{err}");

    engine.delete_custom_block(&block.id).await.expect("delete");
    let err = engine
        .delete_custom_block(&block.id)
        .await
        .expect_err("gone");
    assert_eq!(err.code(), ErrorCode::NotFound);
    let role = engine
        .compose_role(ComposeRequest {
            format: Some(block.id.clone()),
            ..request("t")
        })
        .await
        .expect("a deleted block is a warning, not an error");
    assert!(!role.has_role);
    assert_eq!(role.warnings[0].id, block.id);
    engine.close().await;
}

#[tokio::test]
async fn export_then_import_restores_everything_and_bad_files_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir).await;
    engine
        .add_custom_block(input(
            BlockKind::Domain,
            "Shipping",
            "Parcels and carriers.",
        ))
        .await
        .expect("add");
    engine
        .save_role_preset(RolePreset {
            name: "Logistics".into(),
            persona: None,
            stack: vec!["go".into()],
            domain: Some("custom:shipping".into()),
            format: None,
            guardrails: vec![],
        })
        .await
        .expect("save");
    let exported = engine.export_roles().await.expect("export");
    assert_eq!(
        engine.export_roles().await.expect("export"),
        exported,
        "deterministic"
    );

    let other = tempfile::tempdir().expect("tempdir");
    let fresh = self::engine(&other).await;
    fresh
        .save_role_preset(RolePreset {
            name: "Stale".into(),
            persona: None,
            stack: vec![],
            domain: None,
            format: None,
            guardrails: vec![],
        })
        .await
        .expect("save");
    let before = fresh.export_roles().await.expect("export");

    let bad = exported.replace("Parcels and carriers.", "");
    let err = fresh
        .import_roles(&bad, ImportMode::Replace)
        .await
        .expect_err("malformed");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(
        err.to_string()
            .contains("blocks[0] (custom:shipping): prompt is empty"),
        "{err}"
    );
    assert_eq!(
        fresh.export_roles().await.expect("export"),
        before,
        "nothing changed"
    );
    let err = fresh
        .import_roles("{\"version\": 1,", ImportMode::Merge)
        .await
        .expect_err("not json");
    assert!(err.to_string().contains("not valid JSON"), "{err}");

    let report = fresh
        .import_roles(&exported, ImportMode::Replace)
        .await
        .expect("import");
    assert_eq!(
        (
            report.blocks_imported,
            report.presets_imported,
            report.presets_removed
        ),
        (1, 1, 1)
    );
    assert_eq!(fresh.export_roles().await.expect("export"), exported);
    let role = fresh
        .compose_role(ComposeRequest {
            preset: Some("Logistics".into()),
            ..request("Track parcels")
        })
        .await
        .expect("composes");
    assert!(role.full_prompt.contains("Parcels and carriers."));
    fresh.close().await;
    engine.close().await;
}
