//! Presets: a named selection of blocks, saved by the user and reused by runs and the CLI.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::block::shorten;
use super::compose::ComposeRequest;
use super::limits::{
    MAX_GUARDRAIL_ENTRIES, MAX_ID_CHARS, MAX_PRESET_NAME_CHARS, MAX_STACK_ENTRIES,
};
use super::sanitize::{char_len, normalize_id, sanitize_line};
use super::suggest::closest;
use super::RoleError;

/// A saved selection of blocks. Ids may name blocks that do not exist (any more): they
/// become warnings when composing, never errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RolePreset {
    /// Unique, 1–80 characters, shown in pickers and passed as `--preset NAME`.
    pub name: String,
    #[serde(default)]
    pub persona: Option<String>,
    #[serde(default)]
    pub stack: Vec<String>,
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub guardrails: Vec<String>,
}

impl RolePreset {
    /// The preset sanitized: name cleaned (see [`validate_preset_name`]); ids trimmed and
    /// lowercased; blank ids dropped; duplicate ids removed keeping the first.
    ///
    /// Errors: the name is empty or too long; an id is too long; a list is over its limit.
    pub fn validated(self) -> Result<Self, RoleError> {
        Ok(Self {
            name: validate_preset_name(&self.name)?,
            persona: single_id(self.persona.as_deref())?,
            stack: id_list("stack entries", &self.stack, MAX_STACK_ENTRIES)?,
            domain: single_id(self.domain.as_deref())?,
            format: single_id(self.format.as_deref())?,
            guardrails: id_list("guardrails", &self.guardrails, MAX_GUARDRAIL_ENTRIES)?,
        })
    }
}

/// A preset name sanitized as one line (control characters removed, whitespace collapsed).
///
/// Errors: empty, or longer than [`MAX_PRESET_NAME_CHARS`].
pub fn validate_preset_name(name: &str) -> Result<String, RoleError> {
    let name = sanitize_line(name);
    if name.is_empty() {
        return Err(RoleError::empty("preset name"));
    }
    let chars = char_len(&name);
    if chars > MAX_PRESET_NAME_CHARS {
        return Err(RoleError::too_long(
            "preset name",
            chars,
            MAX_PRESET_NAME_CHARS,
        ));
    }
    Ok(name)
}

fn single_id(id: Option<&str>) -> Result<Option<String>, RoleError> {
    let Some(id) = id.map(normalize_id).filter(|id| !id.is_empty()) else {
        return Ok(None);
    };
    let chars = char_len(&id);
    if chars > MAX_ID_CHARS {
        return Err(RoleError::too_long("block id", chars, MAX_ID_CHARS));
    }
    Ok(Some(id))
}

fn id_list(field: &str, ids: &[String], max: usize) -> Result<Vec<String>, RoleError> {
    let mut out: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(id) = single_id(Some(id))? {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    if out.len() > max {
        return Err(RoleError::TooMany {
            field: field.into(),
            count: out.len(),
            max,
        });
    }
    Ok(out)
}

/// Replaces `request.preset` by the preset's blocks, ready for [`super::compose`].
///
/// Merge rules: the task always comes from the request. `persona`, `domain` and `format`
/// given in the request **override** the preset's. `stack` and `guardrails` **extend** it:
/// the preset's entries first, then the request's, duplicates removed (so the request can
/// add entries but not remove them). A request without a preset is returned unchanged.
///
/// Errors: no preset has that name ([`RoleError::UnknownPreset`], with the closest name).
pub fn resolve_preset(
    request: ComposeRequest,
    presets: &[RolePreset],
) -> Result<ComposeRequest, RoleError> {
    let Some(wanted) = request.preset.as_deref() else {
        return Ok(request);
    };
    let name = sanitize_line(wanted);
    let Some(preset) = presets.iter().find(|p| p.name == name) else {
        let suggestion = closest(
            &name,
            presets.iter().map(|p| (p.name.as_str(), [p.name.as_str()])),
        )
        .map(str::to_owned);
        return Err(RoleError::UnknownPreset {
            name: shorten(&name),
            suggestion,
        });
    };
    Ok(ComposeRequest {
        persona: request.persona.or_else(|| preset.persona.clone()),
        stack: extend(&preset.stack, request.stack),
        domain: request.domain.or_else(|| preset.domain.clone()),
        format: request.format.or_else(|| preset.format.clone()),
        guardrails: extend(&preset.guardrails, request.guardrails),
        preset: None,
        task: request.task,
    })
}

fn extend(base: &[String], extra: Vec<String>) -> Vec<String> {
    let mut out = base.to_vec();
    for id in extra {
        if !out
            .iter()
            .any(|existing| normalize_id(existing) == normalize_id(&id))
        {
            out.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset() -> RolePreset {
        RolePreset {
            name: "API work".into(),
            persona: Some("backend-engineer".into()),
            stack: vec!["rust".into(), "postgresql".into()],
            domain: Some("fintech".into()),
            format: None,
            guardrails: vec!["security".into()],
        }
    }

    fn request() -> ComposeRequest {
        ComposeRequest {
            task: "Add an endpoint".into(),
            ..ComposeRequest::default()
        }
    }

    #[test]
    fn preset_fills_an_empty_request() {
        let resolved = resolve_preset(
            ComposeRequest {
                preset: Some("API work".into()),
                ..request()
            },
            &[preset()],
        )
        .expect("found");
        assert_eq!(resolved.persona.as_deref(), Some("backend-engineer"));
        assert_eq!(resolved.stack, vec!["rust", "postgresql"]);
        assert_eq!(resolved.domain.as_deref(), Some("fintech"));
        assert_eq!(resolved.guardrails, vec!["security"]);
        assert_eq!(resolved.preset, None);
        assert_eq!(resolved.task, "Add an endpoint");
    }

    #[test]
    fn explicit_singles_override_and_lists_extend() {
        let resolved = resolve_preset(
            ComposeRequest {
                preset: Some("API work".into()),
                persona: Some("sre".into()),
                format: Some("patch-only".into()),
                stack: vec!["Rust".into(), "docker".into()],
                guardrails: vec!["minimal-diff".into()],
                ..request()
            },
            &[preset()],
        )
        .expect("found");
        assert_eq!(resolved.persona.as_deref(), Some("sre"));
        assert_eq!(
            resolved.domain.as_deref(),
            Some("fintech"),
            "kept from the preset"
        );
        assert_eq!(resolved.format.as_deref(), Some("patch-only"));
        assert_eq!(resolved.stack, vec!["rust", "postgresql", "docker"]);
        assert_eq!(resolved.guardrails, vec!["security", "minimal-diff"]);
    }

    #[test]
    fn no_preset_leaves_the_request_alone() {
        let original = ComposeRequest {
            stack: vec!["go".into()],
            ..request()
        };
        assert_eq!(
            resolve_preset(original.clone(), &[preset()]).expect("ok"),
            original
        );
    }

    #[test]
    fn unknown_preset_is_not_found_with_a_suggestion() {
        let err = resolve_preset(
            ComposeRequest {
                preset: Some("API wrk".into()),
                ..request()
            },
            &[preset()],
        )
        .expect_err("unknown");
        assert_eq!(
            err,
            RoleError::UnknownPreset {
                name: "API wrk".into(),
                suggestion: Some("API work".into())
            }
        );
        assert_eq!(err.code(), crate::error::ErrorCode::NotFound);
        assert!(err.to_string().contains("did you mean 'API work'"), "{err}");
    }

    #[test]
    fn validation_cleans_names_and_ids() {
        let preset = RolePreset {
            name: "  My\npreset\u{0} ".into(),
            persona: Some("  ".into()),
            stack: vec!["Rust".into(), "rust".into(), "".into(), "PG".into()],
            domain: Some("FinTech".into()),
            format: None,
            guardrails: vec![],
        }
        .validated()
        .expect("valid");
        assert_eq!(preset.name, "My preset");
        assert_eq!(preset.persona, None);
        assert_eq!(preset.stack, vec!["rust", "pg"]);
        assert_eq!(preset.domain.as_deref(), Some("fintech"));
    }

    #[test]
    fn validation_enforces_limits() {
        let empty = RolePreset {
            name: "\t".into(),
            ..preset()
        };
        assert_eq!(empty.validated(), Err(RoleError::empty("preset name")));
        let long = RolePreset {
            name: "n".repeat(MAX_PRESET_NAME_CHARS + 1),
            ..preset()
        };
        assert!(matches!(long.validated(), Err(RoleError::TooLong { .. })));
        let many = RolePreset {
            stack: (0..=MAX_STACK_ENTRIES).map(|i| format!("s{i}")).collect(),
            ..preset()
        };
        assert!(matches!(many.validated(), Err(RoleError::TooMany { .. })));
        let long_id = RolePreset {
            domain: Some("d".repeat(MAX_ID_CHARS + 1)),
            ..preset()
        };
        assert!(matches!(
            long_id.validated(),
            Err(RoleError::TooLong { .. })
        ));
    }
}
