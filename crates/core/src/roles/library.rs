//! The block library: the built-in blocks (data files compiled in, parsed once) merged with
//! the user's custom blocks.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde::Deserialize;

use super::block::{validate_block, BlockKind, BlockSource, RoleBlock, StackGroup};
use super::RoleError;

/// The built-in data files, one per kind, in section order.
const DATA_FILES: [(&str, &str); 5] = [
    (
        "personas.json",
        include_str!("../../data/roles/personas.json"),
    ),
    ("stack.json", include_str!("../../data/roles/stack.json")),
    (
        "domains.json",
        include_str!("../../data/roles/domains.json"),
    ),
    (
        "formats.json",
        include_str!("../../data/roles/formats.json"),
    ),
    (
        "guardrails.json",
        include_str!("../../data/roles/guardrails.json"),
    ),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataFile {
    kind: BlockKind,
    blocks: Vec<DataBlock>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataBlock {
    id: String,
    title: String,
    description: String,
    prompt: String,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    group: Option<StackGroup>,
}

/// Parses and validates the built-in data files. Errors name the file and the block.
fn load_builtin() -> Result<Vec<RoleBlock>, String> {
    let mut blocks = Vec::new();
    let mut seen: HashSet<(BlockKind, String)> = HashSet::new();
    for (index, (name, text)) in DATA_FILES.iter().enumerate() {
        let file: DataFile =
            serde_json::from_str(text).map_err(|e| format!("{name}: not valid: {e}"))?;
        if Some(&file.kind) != BlockKind::ALL.get(index) {
            return Err(format!(
                "{name}: kind {} is out of section order",
                file.kind.id()
            ));
        }
        for data in file.blocks {
            let id = data.id.clone();
            let block = validate_block(RoleBlock {
                id: data.id,
                kind: file.kind,
                title: data.title,
                description: data.description,
                prompt: data.prompt,
                aliases: data.aliases,
                group: data.group,
                source: BlockSource::Builtin,
            })
            .map_err(|e| format!("{name}: block {id}: {e}"))?;
            if !seen.insert((block.kind, block.id.clone())) {
                return Err(format!("{name}: duplicate id {id}"));
            }
            blocks.push(block);
        }
    }
    Ok(blocks)
}

/// Every built-in block, in section order and then in data-file order. Parsed on first use.
///
/// Stack blocks carry `group` and `aliases`; the router reuses their ids and aliases to spot
/// stack words in tasks, so ids are stable.
pub fn builtin_blocks() -> &'static [RoleBlock] {
    static BUILTIN: OnceLock<Vec<RoleBlock>> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        // The data is compiled in and checked by `builtin_library_is_valid`: a failure here
        // is a build defect, not something input can cause.
        load_builtin().unwrap_or_else(|e| panic!("built-in role library is invalid: {e}"))
    })
}

/// The built-in stack blocks (languages, frameworks, databases, clouds, tools).
pub fn builtin_stack() -> impl Iterator<Item = &'static RoleBlock> {
    builtin_blocks()
        .iter()
        .filter(|b| b.kind == BlockKind::Stack)
}

/// Built-in blocks plus the user's custom ones: what [`super::compose`] resolves ids against.
#[derive(Debug, Clone, Default)]
pub struct RoleLibrary {
    /// Validated custom blocks sorted by (kind, id).
    custom: Vec<RoleBlock>,
}

impl RoleLibrary {
    /// Only the built-in blocks.
    pub fn builtin() -> Self {
        Self::default()
    }

    /// The built-in blocks plus `custom`, each validated (and sanitized) as a custom block.
    ///
    /// Errors: a custom block is invalid (not `custom:` namespaced, empty or oversized
    /// field) or two custom blocks share an id.
    pub fn with_custom(custom: Vec<RoleBlock>) -> Result<Self, RoleError> {
        let mut blocks = Vec::with_capacity(custom.len());
        let mut ids = HashSet::new();
        for block in custom {
            let block = validate_block(RoleBlock {
                source: BlockSource::Custom,
                ..block
            })?;
            if !ids.insert(block.id.clone()) {
                return Err(RoleError::InvalidId {
                    id: block.id,
                    reason: "two custom blocks have this id".into(),
                });
            }
            blocks.push(block);
        }
        blocks.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
        Ok(Self { custom: blocks })
    }

    /// Every block: by kind in section order, built-ins first (data order), then custom
    /// blocks by id.
    pub fn blocks(&self) -> Vec<&RoleBlock> {
        let mut all: Vec<&RoleBlock> =
            Vec::with_capacity(builtin_blocks().len() + self.custom.len());
        for kind in BlockKind::ALL {
            all.extend(builtin_blocks().iter().filter(|b| b.kind == kind));
            all.extend(self.custom.iter().filter(|b| b.kind == kind));
        }
        all
    }

    /// The custom blocks, by kind then id.
    pub fn custom(&self) -> &[RoleBlock] {
        &self.custom
    }

    /// Blocks of one kind, in [`RoleLibrary::blocks`] order.
    pub fn of_kind(&self, kind: BlockKind) -> impl Iterator<Item = &RoleBlock> {
        builtin_blocks()
            .iter()
            .filter(move |b| b.kind == kind)
            .chain(self.custom.iter().filter(move |b| b.kind == kind))
    }

    /// The block of `kind` whose id is `id`, or else whose alias is `id` (built-ins win over
    /// custom blocks on a shared alias). `id` must already be normalized (lowercase).
    pub fn find(&self, kind: BlockKind, id: &str) -> Option<&RoleBlock> {
        self.of_kind(kind).find(|b| b.id == id).or_else(|| {
            self.of_kind(kind)
                .find(|b| b.aliases.iter().any(|a| a == id))
        })
    }

    /// The kind an id belongs to when it is not of the kind asked for (for "… is a stack
    /// entry, not a persona").
    pub fn kind_of(&self, id: &str) -> Option<BlockKind> {
        BlockKind::ALL
            .into_iter()
            .find(|kind| self.find(*kind, id).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roles::block::{check_slug, CustomBlockInput};

    #[test]
    fn builtin_library_is_valid() {
        let blocks = load_builtin().expect("built-in data files are valid");
        assert_eq!(blocks.len(), builtin_blocks().len());
        for block in &blocks {
            check_slug(&block.id).expect("built-in ids are kebab-case slugs");
            assert!(block.prompt.len() >= 200, "{} has a thin prompt", block.id);
            if block.kind == BlockKind::Stack {
                assert!(block.group.is_some(), "{} needs a group", block.id);
            }
        }
    }

    #[test]
    fn builtin_library_has_the_required_blocks() {
        let count = |kind| builtin_blocks().iter().filter(|b| b.kind == kind).count();
        assert!(count(BlockKind::Persona) >= 15);
        assert!(count(BlockKind::Stack) >= 40);
        assert!(count(BlockKind::Domain) >= 12);
        assert!(count(BlockKind::Format) >= 6);
        assert!(count(BlockKind::Guardrail) >= 8);
        let library = RoleLibrary::builtin();
        let required: [(BlockKind, &[&str]); 5] = [
            (
                BlockKind::Persona,
                &[
                    "backend-engineer",
                    "frontend-engineer",
                    "fullstack-engineer",
                    "data-engineer",
                    "ml-engineer",
                    "devops-engineer",
                    "security-auditor",
                    "code-reviewer",
                    "test-engineer",
                    "technical-writer",
                    "architect",
                    "researcher",
                    "product-analyst",
                    "mobile-engineer",
                    "sre",
                ],
            ),
            (
                BlockKind::Stack,
                &[
                    "rust",
                    "typescript",
                    "python",
                    "go",
                    "react",
                    "nextjs",
                    "postgresql",
                    "aws",
                    "docker",
                    "kubernetes",
                ],
            ),
            (
                BlockKind::Domain,
                &[
                    "saas",
                    "fintech",
                    "healthcare",
                    "e-commerce",
                    "devtools",
                    "gaming",
                    "education",
                    "data-platform",
                    "embedded",
                    "security",
                    "media",
                    "government",
                ],
            ),
            (
                BlockKind::Format,
                &[
                    "full-implementation",
                    "patch-only",
                    "review-comments",
                    "plan-only",
                    "explanation",
                    "test-suite",
                ],
            ),
            (
                BlockKind::Guardrail,
                &[
                    "code",
                    "security",
                    "production",
                    "privacy",
                    "performance",
                    "accessibility",
                    "no-new-deps",
                    "minimal-diff",
                ],
            ),
        ];
        for (kind, ids) in required {
            for id in ids {
                let block = library
                    .find(kind, id)
                    .unwrap_or_else(|| panic!("{id} missing"));
                assert_eq!(block.id, *id, "{id} must be an id, not an alias");
            }
        }
    }

    #[test]
    fn stack_aliases_are_unique_and_never_shadow_ids() {
        let mut seen = HashSet::new();
        for block in builtin_stack() {
            assert!(seen.insert(block.id.clone()), "duplicate {}", block.id);
        }
        for block in builtin_stack() {
            for alias in &block.aliases {
                assert!(
                    seen.insert(alias.clone()),
                    "alias {alias} of {} is taken",
                    block.id
                );
                assert_eq!(alias, &alias.to_lowercase());
            }
        }
    }

    #[test]
    fn aliases_resolve_to_their_block() {
        let library = RoleLibrary::builtin();
        for (alias, id) in [
            ("postgres", "postgresql"),
            ("k8s", "kubernetes"),
            ("golang", "go"),
            ("ts", "typescript"),
        ] {
            assert_eq!(
                library.find(BlockKind::Stack, alias).map(|b| b.id.as_str()),
                Some(id)
            );
        }
        assert_eq!(library.kind_of("rust"), Some(BlockKind::Stack));
        assert!(library.find(BlockKind::Persona, "rust").is_none());
    }

    fn custom(kind: BlockKind, slug: &str) -> RoleBlock {
        CustomBlockInput {
            kind,
            title: format!("Custom {slug}"),
            description: "mine".into(),
            prompt: "Do it my way.".into(),
            aliases: vec![],
            group: None,
        }
        .into_block(&format!("custom:{slug}"))
        .expect("valid")
    }

    #[test]
    fn custom_blocks_merge_after_builtins_of_their_kind() {
        let library = RoleLibrary::with_custom(vec![
            custom(BlockKind::Persona, "zeta"),
            custom(BlockKind::Persona, "alpha"),
        ])
        .expect("valid");
        let personas: Vec<&str> = library
            .of_kind(BlockKind::Persona)
            .map(|b| b.id.as_str())
            .collect();
        let n = personas.len();
        assert_eq!(&personas[n - 2..], &["custom:alpha", "custom:zeta"]);
        assert_eq!(personas[0], builtin_blocks()[0].id);
        let all = library.blocks();
        assert_eq!(all.len(), builtin_blocks().len() + 2);
        let position = |id: &str| all.iter().position(|b| b.id == id).expect("present");
        assert!(
            position("custom:zeta") < position("rust"),
            "personas come before stack"
        );
    }

    #[test]
    fn custom_blocks_are_validated_and_unique() {
        let mut builtin_id = custom(BlockKind::Stack, "rust");
        builtin_id.id = "rust".into();
        assert!(matches!(
            RoleLibrary::with_custom(vec![builtin_id]),
            Err(RoleError::InvalidId { .. })
        ));
        let twice = vec![
            custom(BlockKind::Stack, "a"),
            custom(BlockKind::Domain, "a"),
        ];
        assert!(RoleLibrary::with_custom(twice).is_err());
    }
}
