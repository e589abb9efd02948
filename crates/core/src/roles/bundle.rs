//! The roles file: custom blocks and presets exported to, and imported from, one JSON
//! document `{"version": 1, "blocks": [...], "presets": [...]}`.
//!
//! Import is all-or-nothing: [`parse_bundle`] validates every block and preset before
//! anything is written, and names the first problem with its position.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::block::{shorten, validate_block, BlockKind, BlockSource, RoleBlock, StackGroup};
use super::limits::{MAX_BUNDLE_BLOCKS, MAX_BUNDLE_BYTES, MAX_BUNDLE_PRESETS};
use super::preset::RolePreset;
use super::RoleError;

/// The roles file format version this build writes and reads.
pub const BUNDLE_VERSION: u32 = 1;

/// A custom block as written in a roles file (no `source`: everything in a file is custom).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BundleBlock {
    /// `custom:<slug>`.
    pub id: String,
    pub kind: BlockKind,
    pub title: String,
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<StackGroup>,
}

/// A validated roles file: custom blocks sorted by (kind, id), presets by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolesBundle {
    /// Valid custom blocks with unique ids.
    pub blocks: Vec<RoleBlock>,
    /// Valid presets with unique names.
    pub presets: Vec<RolePreset>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BundleFile {
    version: u32,
    #[serde(default)]
    blocks: Vec<BundleBlock>,
    #[serde(default)]
    presets: Vec<RolePreset>,
}

/// How an import treats what is already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ImportMode {
    /// Keep existing custom blocks and presets; imported ones with the same id or name
    /// replace them.
    #[default]
    Merge,
    /// Delete every custom block and preset first, then insert the file's.
    Replace,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub mode: ImportMode,
    /// Custom blocks written from the file.
    pub blocks_imported: u32,
    /// Presets written from the file.
    pub presets_imported: u32,
    /// Of the imported blocks, how many replaced a stored block with the same id.
    pub blocks_replaced: u32,
    /// Of the imported presets, how many replaced a stored preset with the same name.
    pub presets_replaced: u32,
    /// Stored blocks deleted because the mode was `replace` and the file lacked them.
    pub blocks_removed: u32,
    /// Stored presets deleted because the mode was `replace` and the file lacked them.
    pub presets_removed: u32,
}

impl RolesBundle {
    /// Builds a bundle from stored data, validating it like an import would.
    pub fn new(blocks: Vec<RoleBlock>, presets: Vec<RolePreset>) -> Result<Self, RoleError> {
        validate(blocks.into_iter().map(bundle_block).collect(), presets)
    }

    /// The roles file: pretty JSON, blocks by (kind, id), presets by name — the same data
    /// always gives the same bytes.
    pub fn to_json(&self) -> String {
        let file = BundleFile {
            version: BUNDLE_VERSION,
            blocks: self.blocks.iter().cloned().map(bundle_block).collect(),
            presets: self.presets.clone(),
        };
        // Plain structs of strings, enums and vectors always serialize.
        serde_json::to_string_pretty(&file).unwrap_or_default()
    }
}

fn bundle_block(block: RoleBlock) -> BundleBlock {
    BundleBlock {
        id: block.id,
        kind: block.kind,
        title: block.title,
        description: block.description,
        prompt: block.prompt,
        aliases: block.aliases,
        group: block.group,
    }
}

/// Parses and validates a roles file.
///
/// Errors ([`RoleError::InvalidBundle`]): larger than [`MAX_BUNDLE_BYTES`]; not JSON; a
/// version other than [`BUNDLE_VERSION`]; unknown fields; a block id that is not
/// `custom:<slug>` (built-ins cannot be replaced); an invalid block or preset; duplicate
/// block ids or preset names; too many blocks or presets.
pub fn parse_bundle(json: &str) -> Result<RolesBundle, RoleError> {
    let invalid = |detail: String| RoleError::InvalidBundle { detail };
    if json.len() > MAX_BUNDLE_BYTES {
        return Err(invalid(format!(
            "the file is {} bytes; the limit is {MAX_BUNDLE_BYTES}",
            json.len()
        )));
    }
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(BUNDLE_VERSION) => {}
        Some(v) => {
            return Err(invalid(format!(
                "version {v} is not supported; this build reads version {BUNDLE_VERSION}"
            )))
        }
        None => {
            return Err(invalid(
                "missing \"version\": expected an object with version 1".into(),
            ))
        }
    }
    let file: BundleFile =
        serde_json::from_value(value).map_err(|e| invalid(format!("unexpected shape: {e}")))?;
    validate(file.blocks, file.presets)
}

fn validate(blocks: Vec<BundleBlock>, presets: Vec<RolePreset>) -> Result<RolesBundle, RoleError> {
    if blocks.len() > MAX_BUNDLE_BLOCKS {
        return Err(RoleError::TooMany {
            field: "blocks".into(),
            count: blocks.len(),
            max: MAX_BUNDLE_BLOCKS,
        }
        .in_bundle("blocks"));
    }
    if presets.len() > MAX_BUNDLE_PRESETS {
        return Err(RoleError::TooMany {
            field: "presets".into(),
            count: presets.len(),
            max: MAX_BUNDLE_PRESETS,
        }
        .in_bundle("presets"));
    }
    let mut ids = HashSet::new();
    let mut valid_blocks = Vec::with_capacity(blocks.len());
    for (index, block) in blocks.into_iter().enumerate() {
        let at = format!("blocks[{index}] ({})", shorten(&block.id));
        let block = validate_block(RoleBlock {
            id: block.id,
            kind: block.kind,
            title: block.title,
            description: block.description,
            prompt: block.prompt,
            aliases: block.aliases,
            group: block.group,
            source: BlockSource::Custom,
        })
        .map_err(|e| e.in_bundle(&at))?;
        if !ids.insert(block.id.clone()) {
            return Err(RoleError::InvalidBundle {
                detail: format!("{at}: duplicate id"),
            });
        }
        valid_blocks.push(block);
    }
    let mut names = HashSet::new();
    let mut valid_presets = Vec::with_capacity(presets.len());
    for (index, preset) in presets.into_iter().enumerate() {
        let at = format!("presets[{index}] ({})", shorten(&preset.name));
        let preset = preset.validated().map_err(|e| e.in_bundle(&at))?;
        if !names.insert(preset.name.clone()) {
            return Err(RoleError::InvalidBundle {
                detail: format!("{at}: duplicate name"),
            });
        }
        valid_presets.push(preset);
    }
    valid_blocks.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
    valid_presets.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(RolesBundle {
        blocks: valid_blocks,
        presets: valid_presets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
        "version": 1,
        "blocks": [
            {"id": "custom:team-style", "kind": "guardrail", "title": "Team style",
             "description": "Our conventions", "prompt": "Use snake_case."},
            {"id": "custom:elm", "kind": "stack", "title": "Elm", "description": "Elm apps",
             "prompt": "Write Elm 0.19.", "aliases": ["ELM-lang"], "group": "language"}
        ],
        "presets": [
            {"name": "Zed", "persona": "code-reviewer", "stack": ["custom:elm"]},
            {"name": "Alpha", "guardrails": ["custom:team-style", "security"]}
        ]
    }"#;

    #[test]
    fn parses_validates_and_sorts() {
        let bundle = parse_bundle(GOOD).expect("valid");
        let ids: Vec<&str> = bundle.blocks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(
            ids,
            ["custom:elm", "custom:team-style"],
            "stack sorts before guardrail"
        );
        assert_eq!(bundle.blocks[0].aliases, vec!["elm-lang"]);
        assert_eq!(bundle.blocks[0].source, BlockSource::Custom);
        let names: Vec<&str> = bundle.presets.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Alpha", "Zed"]);
    }

    #[test]
    fn export_round_trips_byte_for_byte() {
        let bundle = parse_bundle(GOOD).expect("valid");
        let json = bundle.to_json();
        let again = parse_bundle(&json).expect("own export parses");
        assert_eq!(again, bundle);
        assert_eq!(again.to_json(), json);
        assert!(json.contains("\"version\": 1"));
    }

    fn detail(json: &str) -> String {
        match parse_bundle(json) {
            Err(RoleError::InvalidBundle { detail }) => detail,
            other => panic!("expected InvalidBundle, got {other:?}"),
        }
    }

    #[test]
    fn malformed_files_are_rejected_with_the_reason() {
        assert!(detail("{not json").contains("not valid JSON"));
        assert!(detail(r#"{"blocks": []}"#).contains("missing \"version\""));
        assert!(detail(r#"{"version": 2}"#).contains("version 2 is not supported"));
        assert!(detail(r#"{"version": 1, "extra": true}"#).contains("unknown field"));
        assert!(
            detail(r#"{"version": 1, "blocks": [{"id": "custom:x"}]}"#).contains("missing field")
        );
    }

    #[test]
    fn builtin_ids_and_invalid_blocks_name_their_position() {
        let builtin = r#"{"version": 1, "blocks": [{"id": "rust", "kind": "stack",
            "title": "Rust", "description": "d", "prompt": "p"}]}"#;
        let message = detail(builtin);
        assert!(
            message.starts_with("blocks[0] (rust): invalid block id"),
            "{message}"
        );

        let empty_prompt = r#"{"version": 1, "blocks": [{"id": "custom:a", "kind": "stack",
            "title": "A", "description": "d", "prompt": " \u0000 "}]}"#;
        assert_eq!(
            detail(empty_prompt),
            "blocks[0] (custom:a): prompt is empty"
        );

        let dup = r#"{"version": 1, "presets": [{"name": "P"}, {"name": " P "}]}"#;
        assert_eq!(detail(dup), "presets[1] ( P ): duplicate name");
    }

    #[test]
    fn oversized_files_are_rejected_before_parsing() {
        let big = format!(
            "{{\"version\": 1, \"pad\": \"{}\"}}",
            "x".repeat(MAX_BUNDLE_BYTES)
        );
        assert!(detail(&big).contains("the limit is"));
    }
}
