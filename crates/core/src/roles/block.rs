//! Role blocks: the pieces a role prompt is composed of, and the rules a block must satisfy.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::limits::{
    MAX_ALIASES, MAX_ALIAS_CHARS, MAX_BLOCK_PROMPT_CHARS, MAX_DESCRIPTION_CHARS, MAX_ID_CHARS,
    MAX_SLUG_CHARS, MAX_TITLE_CHARS,
};
use super::sanitize::{char_len, sanitize_line, sanitize_text};
use super::RoleError;

/// Prefix of every custom block id, so that user blocks never collide with built-ins.
pub const CUSTOM_PREFIX: &str = "custom:";

/// The slot a block fills in a role.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum BlockKind {
    /// Who the model is (one per role).
    Persona,
    /// A language, framework, database, cloud or tool (any number, in the order given).
    Stack,
    /// The business domain (one per role).
    Domain,
    /// The shape of the answer (one per role).
    Format,
    /// A rule the answer must respect (any number).
    Guardrail,
}

impl BlockKind {
    /// Every kind, in the order sections appear in a composed prompt.
    pub const ALL: [BlockKind; 5] = [
        BlockKind::Persona,
        BlockKind::Stack,
        BlockKind::Domain,
        BlockKind::Format,
        BlockKind::Guardrail,
    ];

    /// The id used in JSON and on the CLI: `persona`, `stack`, `domain`, `format`, `guardrail`.
    pub fn id(self) -> &'static str {
        match self {
            BlockKind::Persona => "persona",
            BlockKind::Stack => "stack",
            BlockKind::Domain => "domain",
            BlockKind::Format => "format",
            BlockKind::Guardrail => "guardrail",
        }
    }

    /// How messages name one block of this kind: "persona", "stack entry", ….
    pub fn noun(self) -> &'static str {
        match self {
            BlockKind::Persona => "persona",
            BlockKind::Stack => "stack entry",
            BlockKind::Domain => "domain",
            BlockKind::Format => "format",
            BlockKind::Guardrail => "guardrail",
        }
    }

    /// Parses [`BlockKind::id`].
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.id() == id)
    }
}

/// Where a block comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum BlockSource {
    /// Shipped with Switchyard (`crates/core/data/roles/`); read-only.
    Builtin,
    /// Written or imported by the user; stored in SQLite; id starts with `custom:`.
    Custom,
}

/// What kind of thing a stack block is; lets pickers group entries and lets the router tell
/// languages from databases.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum StackGroup {
    /// A programming or query language.
    Language,
    /// A framework, library or runtime.
    Framework,
    /// A database or data store.
    Database,
    /// A cloud platform.
    Cloud,
    /// Infrastructure, build, messaging or API tooling.
    Tool,
}

impl StackGroup {
    /// Every group, in picker order.
    pub const ALL: [StackGroup; 5] = [
        StackGroup::Language,
        StackGroup::Framework,
        StackGroup::Database,
        StackGroup::Cloud,
        StackGroup::Tool,
    ];

    /// The id used in JSON and storage: `language`, `framework`, `database`, `cloud`, `tool`.
    pub fn id(self) -> &'static str {
        match self {
            StackGroup::Language => "language",
            StackGroup::Framework => "framework",
            StackGroup::Database => "database",
            StackGroup::Cloud => "cloud",
            StackGroup::Tool => "tool",
        }
    }

    /// Parses [`StackGroup::id`].
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|group| group.id() == id)
    }
}

/// One block of the library.
///
/// Invariants (checked by [`validate_block`]): `id` is a lowercase kebab-case slug, prefixed
/// with [`CUSTOM_PREFIX`] exactly when `source` is custom; title, description and prompt are
/// sanitized, non-empty and within [`super::limits`]; aliases are lowercase and unique.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RoleBlock {
    /// Stable id: `backend-engineer`, `postgresql`, `custom:my-review`.
    pub id: String,
    pub kind: BlockKind,
    /// Display name.
    pub title: String,
    /// One line for pickers.
    pub description: String,
    /// The text inserted into the composed prompt.
    pub prompt: String,
    /// Other words for the same thing (`pg`, `k8s`, `golang`), lowercase; resolve like the id.
    pub aliases: Vec<String>,
    /// For stack blocks: language, framework, database, cloud or tool.
    pub group: Option<StackGroup>,
    pub source: BlockSource,
}

impl RoleBlock {
    /// Every spelling that names this block: the id, the title and the aliases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [self.id.as_str(), self.title.as_str()]
            .into_iter()
            .chain(self.aliases.iter().map(String::as_str))
            .chain(self.id.strip_prefix(CUSTOM_PREFIX))
    }
}

/// What the user writes to add or edit a custom block; the id is assigned by the engine
/// ([`custom_id`]) and never changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CustomBlockInput {
    pub kind: BlockKind,
    pub title: String,
    pub description: String,
    pub prompt: String,
    /// Optional other names; may be empty.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Optional, meaningful for stack blocks only.
    #[serde(default)]
    pub group: Option<StackGroup>,
}

impl CustomBlockInput {
    /// The custom block this input describes under `id`, validated and sanitized.
    ///
    /// Errors: `id` is not `custom:<slug>`, or a field is empty or over its limit.
    pub fn into_block(self, id: &str) -> Result<RoleBlock, RoleError> {
        validate_block(RoleBlock {
            id: id.to_owned(),
            kind: self.kind,
            title: self.title,
            description: self.description,
            prompt: self.prompt,
            aliases: self.aliases,
            group: self.group,
            source: BlockSource::Custom,
        })
    }
}

/// Lowercase kebab-case slug derived from `title` (ASCII letters and digits kept, anything
/// else a separator), at most [`MAX_SLUG_CHARS`]; `block` when nothing usable remains.
pub fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() == MAX_SLUG_CHARS {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') && slug.len() < MAX_SLUG_CHARS - 1 {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "block".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The custom id for `slug`: `custom:<slug>`.
pub fn custom_id(slug: &str) -> String {
    format!("{CUSTOM_PREFIX}{slug}")
}

/// Checks that `slug` is lowercase kebab-case: `[a-z0-9]+(-[a-z0-9]+)*`, at most
/// [`MAX_SLUG_CHARS`].
pub fn check_slug(slug: &str) -> Result<(), String> {
    if slug.is_empty() {
        return Err("the slug is empty".into());
    }
    if slug.len() > MAX_SLUG_CHARS {
        return Err(format!(
            "the slug is longer than {MAX_SLUG_CHARS} characters"
        ));
    }
    let valid_chars = slug
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid_chars || slug.starts_with('-') || slug.ends_with('-') || slug.contains("--") {
        return Err("use lowercase letters, digits and single dashes (kebab-case)".into());
    }
    Ok(())
}

/// Checks a block id against its source: built-in ids are bare slugs, custom ids are
/// `custom:<slug>`.
pub fn check_id(id: &str, source: BlockSource) -> Result<(), RoleError> {
    let invalid = |reason: String| RoleError::InvalidId {
        id: shorten(id),
        reason,
    };
    if char_len(id) > MAX_ID_CHARS {
        return Err(invalid(format!(
            "ids are at most {MAX_ID_CHARS} characters"
        )));
    }
    match source {
        BlockSource::Custom => match id.strip_prefix(CUSTOM_PREFIX) {
            Some(slug) => check_slug(slug).map_err(invalid),
            None => Err(invalid(format!(
                "custom block ids start with '{CUSTOM_PREFIX}' so that they never replace a \
                 built-in block"
            ))),
        },
        BlockSource::Builtin => check_slug(id).map_err(invalid),
    }
}

/// Validates `block` and returns it sanitized (texts cleaned, aliases lowercased and
/// deduplicated, `group` cleared on non-stack blocks).
pub fn validate_block(block: RoleBlock) -> Result<RoleBlock, RoleError> {
    check_id(&block.id, block.source)?;
    let title = checked_line("title", &block.title, MAX_TITLE_CHARS)?;
    let description = checked_line("description", &block.description, MAX_DESCRIPTION_CHARS)?;
    let prompt = sanitize_text(&block.prompt);
    if prompt.is_empty() {
        return Err(RoleError::empty("prompt"));
    }
    let prompt_chars = char_len(&prompt);
    if prompt_chars > MAX_BLOCK_PROMPT_CHARS {
        return Err(RoleError::too_long(
            "prompt",
            prompt_chars,
            MAX_BLOCK_PROMPT_CHARS,
        ));
    }
    if block.aliases.len() > MAX_ALIASES {
        return Err(RoleError::TooMany {
            field: "aliases".into(),
            count: block.aliases.len(),
            max: MAX_ALIASES,
        });
    }
    let mut aliases: Vec<String> = Vec::with_capacity(block.aliases.len());
    for alias in &block.aliases {
        let alias = sanitize_line(alias).to_lowercase();
        let chars = char_len(&alias);
        if chars > MAX_ALIAS_CHARS {
            return Err(RoleError::too_long("alias", chars, MAX_ALIAS_CHARS));
        }
        if !alias.is_empty() && alias != block.id && !aliases.contains(&alias) {
            aliases.push(alias);
        }
    }
    let group = if block.kind == BlockKind::Stack {
        block.group
    } else {
        None
    };
    Ok(RoleBlock {
        title,
        description,
        prompt,
        aliases,
        group,
        ..block
    })
}

fn checked_line(field: &str, value: &str, max: usize) -> Result<String, RoleError> {
    let value = sanitize_line(value);
    if value.is_empty() {
        return Err(RoleError::empty(field));
    }
    let chars = char_len(&value);
    if chars > max {
        return Err(RoleError::too_long(field, chars, max));
    }
    Ok(value)
}

/// `text` cut to a displayable length for error messages.
pub(crate) fn shorten(text: &str) -> String {
    const SHOWN: usize = MAX_ID_CHARS;
    if char_len(text) <= SHOWN {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(SHOWN).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> CustomBlockInput {
        CustomBlockInput {
            kind: BlockKind::Guardrail,
            title: "  Our\treview rules ".into(),
            description: "House rules\nfor reviews".into(),
            prompt: "\u{0}Check naming.\r\nCheck tests.\u{202E}".into(),
            aliases: vec!["House-Rules".into(), "house-rules".into(), " ".into()],
            group: Some(StackGroup::Tool),
        }
    }

    #[test]
    fn custom_input_is_sanitized_into_a_block() {
        let block = input()
            .into_block("custom:our-review-rules")
            .expect("valid");
        assert_eq!(block.title, "Our review rules");
        assert_eq!(block.description, "House rules for reviews");
        assert_eq!(block.prompt, "Check naming.\nCheck tests.");
        assert_eq!(block.aliases, vec!["house-rules".to_owned()]);
        assert_eq!(block.group, None, "group only applies to stack blocks");
        assert_eq!(block.source, BlockSource::Custom);
    }

    #[test]
    fn custom_ids_must_be_namespaced_slugs() {
        for bad in [
            "rust",
            "custom:",
            "custom:Rust",
            "custom:a--b",
            "custom:-a",
            "custom:a b",
        ] {
            let err = input().into_block(bad).expect_err(bad);
            assert!(matches!(err, RoleError::InvalidId { .. }), "{bad}: {err}");
        }
        let long = custom_id(&"a".repeat(MAX_SLUG_CHARS + 1));
        assert!(input().into_block(&long).is_err());
        assert!(check_id("custom:a1-b2", BlockSource::Custom).is_ok());
        assert!(check_id("custom:x", BlockSource::Builtin).is_err());
    }

    #[test]
    fn empty_and_oversized_fields_are_named_in_the_error() {
        let mut empty_title = input();
        empty_title.title = "\u{1}\n ".into();
        let err = empty_title.into_block("custom:x").expect_err("empty");
        assert_eq!(err, RoleError::empty("title"));

        let mut huge = input();
        huge.prompt = "p".repeat(MAX_BLOCK_PROMPT_CHARS + 1);
        let err = huge.into_block("custom:x").expect_err("too long");
        assert_eq!(
            err,
            RoleError::too_long("prompt", MAX_BLOCK_PROMPT_CHARS + 1, MAX_BLOCK_PROMPT_CHARS)
        );
        assert!(err.to_string().contains("8000"), "{err}");

        let mut many = input();
        many.aliases = (0..=MAX_ALIASES).map(|i| format!("a{i}")).collect();
        assert!(matches!(
            many.into_block("custom:x"),
            Err(RoleError::TooMany { .. })
        ));
    }

    #[test]
    fn ids_match_serde_names() {
        for kind in BlockKind::ALL {
            let json = serde_json::to_value(kind).expect("serializes");
            assert_eq!(json, kind.id());
            assert_eq!(BlockKind::from_id(kind.id()), Some(kind));
        }
        for group in StackGroup::ALL {
            assert_eq!(serde_json::to_value(group).expect("serializes"), group.id());
            assert_eq!(StackGroup::from_id(group.id()), Some(group));
        }
        assert_eq!(BlockKind::from_id("Persona"), None);
    }

    #[test]
    fn slugify_makes_kebab_case_within_the_limit() {
        assert_eq!(slugify("My Review Rules!"), "my-review-rules");
        assert_eq!(slugify("  --C++ & Rust--  "), "c-rust");
        assert_eq!(slugify("日本語"), "block");
        let long = slugify(&"ab ".repeat(100));
        assert!(
            long.len() <= MAX_SLUG_CHARS && check_slug(&long).is_ok(),
            "{long}"
        );
    }
}
