//! Composition rules: section order, dedupe, warnings and suggestions, sanitizing, caps,
//! determinism.

use super::limits::{
    MAX_BLOCK_PROMPT_CHARS, MAX_FULL_PROMPT_CHARS, MAX_ID_CHARS, MAX_STACK_ENTRIES, MAX_TASK_CHARS,
};
use super::*;

fn library() -> RoleLibrary {
    RoleLibrary::builtin()
}

fn request(task: &str) -> ComposeRequest {
    ComposeRequest {
        task: task.into(),
        ..ComposeRequest::default()
    }
}

fn full() -> ComposeRequest {
    ComposeRequest {
        task: "Add a refunds endpoint".into(),
        persona: Some("backend-engineer".into()),
        stack: vec!["rust".into(), "postgresql".into()],
        domain: Some("fintech".into()),
        format: Some("patch-only".into()),
        guardrails: vec!["security".into(), "minimal-diff".into()],
        preset: None,
    }
}

fn prompt_of(kind: BlockKind, id: &str) -> String {
    library()
        .find(kind, id)
        .map(|b| b.prompt.clone())
        .expect("built-in block exists")
}

#[test]
fn sections_come_in_fixed_order_with_every_block_and_the_task() {
    let role = compose(&full(), &library()).expect("composes");
    assert!(role.has_role);
    assert!(role.warnings.is_empty(), "{:?}", role.warnings);
    let text = &role.full_prompt;
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("missing {needle:?}"))
    };
    let order = [
        at("# Role: Backend engineer\n"),
        at(&prompt_of(BlockKind::Persona, "backend-engineer")),
        at("# Stack\n"),
        at(&prompt_of(BlockKind::Stack, "rust")),
        at(&prompt_of(BlockKind::Stack, "postgresql")),
        at("# Domain: Fintech\n"),
        at(&prompt_of(BlockKind::Domain, "fintech")),
        at("# Output format: Patch only\n"),
        at("# Guardrails\n"),
        at(&prompt_of(BlockKind::Guardrail, "security")),
        at(&prompt_of(BlockKind::Guardrail, "minimal-diff")),
        at("# Task\nAdd a refunds endpoint\n"),
    ];
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "out of order: {order:?}"
    );
    assert!(text.ends_with("# Task\nAdd a refunds endpoint\n"));
    let kinds: Vec<BlockKind> = role.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BlockKind::Persona,
            BlockKind::Stack,
            BlockKind::Stack,
            BlockKind::Domain,
            BlockKind::Format,
            BlockKind::Guardrail,
            BlockKind::Guardrail
        ]
    );
    assert_eq!(role.token_estimate, estimate_tokens(text));
}

#[test]
fn field_order_in_the_request_does_not_change_section_order() {
    // Guardrails listed before persona in JSON still come last.
    let json = r#"{"guardrails":["code"],"task":"t","persona":"sre","stack":["go"]}"#;
    let request: ComposeRequest = serde_json::from_str(json).expect("parses");
    let role = compose(&request, &library()).expect("composes");
    let ids: Vec<&str> = role.blocks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, ["sre", "go", "code"]);
}

#[test]
fn stack_keeps_the_given_order() {
    let forward = ComposeRequest {
        stack: vec!["react".into(), "go".into()],
        ..request("t")
    };
    let backward = ComposeRequest {
        stack: vec!["go".into(), "react".into()],
        ..request("t")
    };
    let ids = |r: &ComposeRequest| -> Vec<String> {
        compose(r, &library())
            .expect("ok")
            .blocks
            .into_iter()
            .map(|b| b.id)
            .collect()
    };
    assert_eq!(ids(&forward), ["react", "go"]);
    assert_eq!(ids(&backward), ["go", "react"]);
}

#[test]
fn duplicates_and_aliases_of_the_same_block_appear_once() {
    let role = compose(
        &ComposeRequest {
            stack: vec![
                "postgresql".into(),
                "PG".into(),
                " postgres ".into(),
                "rust".into(),
            ],
            guardrails: vec!["security".into(), "security".into()],
            ..request("t")
        },
        &library(),
    )
    .expect("composes");
    let ids: Vec<&str> = role.blocks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, ["postgresql", "rust", "security"]);
    let pg = prompt_of(BlockKind::Stack, "postgresql");
    assert_eq!(role.full_prompt.matches(&pg).count(), 1);
    assert!(role.warnings.is_empty());
}

#[test]
fn unknown_ids_warn_with_kind_and_suggestion_but_never_fail() {
    let role = compose(
        &ComposeRequest {
            persona: Some("backend-enginer".into()),
            stack: vec!["rust".into(), "postgress".into(), "zzzzqqqq".into()],
            domain: Some("fintek".into()),
            ..request("Fix the bug")
        },
        &library(),
    )
    .expect("unknown ids are warnings");
    assert!(role.has_role, "rust resolved");
    let summary: Vec<(BlockKind, &str, Option<&str>)> = role
        .warnings
        .iter()
        .map(|w| (w.kind, w.id.as_str(), w.suggestion.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                BlockKind::Persona,
                "backend-enginer",
                Some("backend-engineer")
            ),
            (BlockKind::Stack, "postgress", Some("postgresql")),
            (BlockKind::Stack, "zzzzqqqq", None),
            (BlockKind::Domain, "fintek", Some("fintech")),
        ]
    );
    let message = &role.warnings[0].message;
    assert!(
        message.contains("unknown persona 'backend-enginer'"),
        "{message}"
    );
    assert!(
        message.contains("did you mean 'backend-engineer'"),
        "{message}"
    );
    assert!(!role.full_prompt.contains("Backend engineer"));
}

#[test]
fn an_id_of_another_kind_says_which_kind_it_is() {
    let role = compose(
        &ComposeRequest {
            persona: Some("rust".into()),
            ..request("t")
        },
        &library(),
    )
    .expect("composes");
    assert!(!role.has_role);
    assert_eq!(role.warnings.len(), 1);
    assert!(
        role.warnings[0]
            .message
            .contains("'rust' is a stack entry, not a persona"),
        "{}",
        role.warnings[0].message
    );
}

#[test]
fn without_blocks_the_prompt_is_the_task_alone() {
    let role = compose(&request("  Summarize this file\r\n"), &library()).expect("composes");
    assert!(!role.has_role);
    assert_eq!(role.full_prompt, "Summarize this file");
    assert!(role.blocks.is_empty());
    let only_unknown = compose(
        &ComposeRequest {
            guardrails: vec!["nope".into()],
            ..request("x")
        },
        &library(),
    )
    .expect("composes");
    assert!(!only_unknown.has_role);
    assert_eq!(only_unknown.warnings.len(), 1);
}

#[test]
fn empty_task_is_a_clear_error() {
    for task in ["", "   ", "\u{0}\u{7}\n\t", "\u{202E}\u{FEFF}"] {
        let err = compose(
            &ComposeRequest {
                task: task.into(),
                ..full()
            },
            &library(),
        )
        .expect_err("empty task");
        assert_eq!(err, RoleError::EmptyTask);
    }
    assert!(RoleError::EmptyTask.to_string().contains("task is empty"));
}

#[test]
fn task_is_sanitized() {
    let role = compose(
        &ComposeRequest {
            task: "Fix\u{0} the\u{1b}[2J bug\r\nnow\u{202E}\t!".into(),
            ..full()
        },
        &library(),
    )
    .expect("composes");
    assert!(
        role.full_prompt
            .ends_with("# Task\nFix the[2J bug\nnow\t!\n"),
        "{}",
        role.full_prompt
    );
    assert!(!role
        .full_prompt
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t'));
}

#[test]
fn limits_are_errors_that_name_field_and_limit() {
    let long_task = "x".repeat(MAX_TASK_CHARS + 1);
    assert_eq!(
        compose(&request(&long_task), &library()),
        Err(RoleError::too_long(
            "task",
            MAX_TASK_CHARS + 1,
            MAX_TASK_CHARS
        ))
    );
    // A CJK task at the limit is accepted: limits count characters, not bytes.
    assert!(compose(&request(&"字".repeat(MAX_TASK_CHARS)), &library()).is_ok());

    let many = ComposeRequest {
        stack: (0..=MAX_STACK_ENTRIES).map(|i| format!("s{i}")).collect(),
        ..request("t")
    };
    let err = compose(&many, &library()).expect_err("too many");
    assert!(err.to_string().contains("too many stack entries"), "{err}");

    let long_id = ComposeRequest {
        domain: Some("d".repeat(MAX_ID_CHARS + 1)),
        ..request("t")
    };
    let err = compose(&long_id, &library()).expect_err("long id");
    assert!(err.to_string().starts_with("domain id is"), "{err}");
}

fn big_block(slug: &str) -> RoleBlock {
    CustomBlockInput {
        kind: BlockKind::Stack,
        title: slug.into(),
        description: "big".into(),
        prompt: "y".repeat(MAX_BLOCK_PROMPT_CHARS),
        aliases: vec![],
        group: None,
    }
    .into_block(&custom_id(slug))
    .expect("valid")
}

#[test]
fn composed_prompt_has_a_size_cap() {
    let blocks: Vec<RoleBlock> = (0..9).map(|i| big_block(&format!("big-{i}"))).collect();
    let ids: Vec<String> = blocks.iter().map(|b| b.id.clone()).collect();
    let library = RoleLibrary::with_custom(blocks).expect("valid");
    let fits = ComposeRequest {
        stack: ids[..7].to_vec(),
        ..request("t")
    };
    let role = compose(&fits, &library).expect("under the cap");
    assert!(role.full_prompt.chars().count() <= MAX_FULL_PROMPT_CHARS);
    let over = ComposeRequest {
        stack: ids,
        task: "t".repeat(MAX_TASK_CHARS),
        ..request("t")
    };
    match compose(&over, &library) {
        Err(RoleError::PromptTooLarge { chars, max }) => {
            assert!(chars > max);
            assert_eq!(max, MAX_FULL_PROMPT_CHARS);
        }
        other => panic!("expected PromptTooLarge, got {other:?}"),
    }
}

#[test]
fn custom_blocks_compose_and_report_their_source() {
    let custom = CustomBlockInput {
        kind: BlockKind::Guardrail,
        title: "House rules".into(),
        description: "ours".into(),
        prompt: "Always log the tenant id.".into(),
        aliases: vec!["house".into()],
        group: None,
    }
    .into_block("custom:house-rules")
    .expect("valid");
    let library = RoleLibrary::with_custom(vec![custom]).expect("valid");
    let role = compose(
        &ComposeRequest {
            guardrails: vec![
                "security".into(),
                "house".into(),
                "custom:house-rule".into(),
            ],
            ..request("t")
        },
        &library,
    )
    .expect("composes");
    assert_eq!(role.blocks[1].id, "custom:house-rules");
    assert_eq!(role.blocks[1].source, BlockSource::Custom);
    assert_eq!(role.blocks[0].source, BlockSource::Builtin);
    assert!(role
        .full_prompt
        .contains("## House rules\nAlways log the tenant id."));
    assert_eq!(role.warnings.len(), 1);
    assert_eq!(
        role.warnings[0].suggestion.as_deref(),
        Some("custom:house-rules")
    );
}

#[test]
fn output_is_deterministic_and_serializes_camel_case() {
    let a = compose(&full(), &library()).expect("ok");
    let b = compose(&full(), &RoleLibrary::builtin()).expect("ok");
    assert_eq!(a, b);
    let json_a = serde_json::to_string(&a).expect("serializes");
    assert_eq!(json_a, serde_json::to_string(&b).expect("serializes"));
    let value: serde_json::Value = serde_json::from_str(&json_a).expect("json");
    for key in [
        "hasRole",
        "fullPrompt",
        "warnings",
        "blocks",
        "tokenEstimate",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
    assert_eq!(value["blocks"][0]["source"], "builtin");
    assert_eq!(value["blocks"][0]["kind"], "persona");
}

#[test]
fn an_unresolved_preset_is_refused() {
    let err = compose(
        &ComposeRequest {
            preset: Some("p".into()),
            ..full()
        },
        &library(),
    )
    .expect_err("preset must be resolved first");
    assert!(matches!(err, RoleError::UnresolvedPreset { .. }));
}

#[test]
fn a_resolved_preset_composes_like_explicit_ids() {
    let preset = RolePreset {
        name: "api".into(),
        persona: Some("backend-engineer".into()),
        stack: vec!["rust".into()],
        domain: None,
        format: None,
        guardrails: vec!["security".into()],
    };
    let via_preset = resolve_preset(
        ComposeRequest {
            preset: Some("api".into()),
            stack: vec!["postgresql".into()],
            ..request("t")
        },
        &[preset],
    )
    .expect("resolves");
    let explicit = ComposeRequest {
        persona: Some("backend-engineer".into()),
        stack: vec!["rust".into(), "postgresql".into()],
        guardrails: vec!["security".into()],
        ..request("t")
    };
    assert_eq!(
        compose(&via_preset, &library()).expect("ok"),
        compose(&explicit, &library()).expect("ok")
    );
}
