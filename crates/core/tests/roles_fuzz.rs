//! Property tests for the roles composer: arbitrary tasks, ids and custom blocks never make
//! `compose` panic, successful output stays within the cap and has no stray control
//! characters, and composing twice gives byte-identical results.

use proptest::prelude::*;
use switchyard_core::roles::limits::MAX_FULL_PROMPT_CHARS;
use switchyard_core::roles::{
    builtin_blocks, compose, parse_bundle, resolve_preset, BlockKind, BlockSource, ComposeRequest,
    RoleBlock, RoleLibrary, RolePreset,
};

/// Ids that are sometimes real (built-in or alias), sometimes typos, sometimes garbage.
fn id() -> impl Strategy<Value = String> {
    let real: Vec<String> = builtin_blocks()
        .iter()
        .flat_map(|b| std::iter::once(b.id.clone()).chain(b.aliases.iter().cloned()))
        .collect();
    prop_oneof![
        proptest::sample::select(real.clone()),
        proptest::sample::select(real).prop_map(|id| format!("{id}x")),
        "custom:[a-z]{1,6}",
        any::<String>(),
        "\\PC{0,120}",
    ]
}

fn kind() -> impl Strategy<Value = BlockKind> {
    proptest::sample::select(BlockKind::ALL.to_vec())
}

fn custom_block() -> impl Strategy<Value = RoleBlock> {
    (
        prop_oneof!["custom:[a-z0-9]{1,8}", any::<String>()],
        kind(),
        any::<String>(),
        any::<String>(),
        prop_oneof!["\\PC{1,400}", any::<String>(), "x{7990,8010}"],
        proptest::collection::vec(any::<String>(), 0..3),
    )
        .prop_map(
            |(id, kind, title, description, prompt, aliases)| RoleBlock {
                id,
                kind,
                title,
                description,
                prompt,
                aliases,
                group: None,
                source: BlockSource::Custom,
            },
        )
}

fn request() -> impl Strategy<Value = ComposeRequest> {
    (
        prop_oneof![any::<String>(), "\\PC{0,2000}", "[\\x00-\\x1f ]{0,10}"],
        proptest::option::of(id()),
        proptest::collection::vec(id(), 0..30),
        proptest::option::of(id()),
        proptest::option::of(id()),
        proptest::collection::vec(id(), 0..20),
    )
        .prop_map(
            |(task, persona, stack, domain, format, guardrails)| ComposeRequest {
                task,
                persona,
                stack,
                domain,
                format,
                guardrails,
                preset: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn compose_never_panics_stays_capped_and_is_deterministic(
        request in request(),
        custom in proptest::collection::vec(custom_block(), 0..10),
    ) {
        let library = RoleLibrary::with_custom(custom).unwrap_or_default();
        let first = compose(&request, &library);
        let second = compose(&request, &library);
        prop_assert_eq!(&first, &second);
        if let Ok(role) = first {
            prop_assert!(role.full_prompt.chars().count() <= MAX_FULL_PROMPT_CHARS);
            prop_assert!(!role.full_prompt.is_empty());
            prop_assert!(role
                .full_prompt
                .chars()
                .all(|c| !c.is_control() || c == '\n' || c == '\t'));
            prop_assert_eq!(role.has_role, !role.blocks.is_empty());
            let json_a = serde_json::to_string(&role).expect("serializes");
            let json_b = serde_json::to_string(&compose(&request, &library).expect("ok"))
                .expect("serializes");
            prop_assert_eq!(json_a, json_b);
            for warning in &role.warnings {
                prop_assert!(warning.message.contains(&warning.id));
            }
        }
    }

    #[test]
    fn presets_resolve_or_fail_cleanly(
        request in request(),
        stack in proptest::collection::vec(id(), 0..10),
        name in any::<String>(),
    ) {
        let preset = RolePreset {
            name: name.clone(),
            persona: None,
            stack,
            domain: None,
            format: None,
            guardrails: vec![],
        };
        if let Ok(preset) = preset.validated() {
            let asked = ComposeRequest { preset: Some(preset.name.clone()), ..request };
            let resolved = resolve_preset(asked, std::slice::from_ref(&preset))
                .expect("a validated preset resolves by its own name");
            prop_assert!(resolved.preset.is_none());
            let _ = compose(&resolved, &RoleLibrary::builtin());
        }
    }

    #[test]
    fn bundle_parsing_never_panics(json in "\\PC{0,400}") {
        let _ = parse_bundle(&json);
        let wrapped = format!("{{\"version\":1,\"blocks\":[{json}]}}");
        let _ = parse_bundle(&wrapped);
    }
}
