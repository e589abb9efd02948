//! Composing a role prompt from block ids and a task.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::block::{shorten, BlockKind, BlockSource, RoleBlock};
use super::library::RoleLibrary;
use super::limits::{
    MAX_FULL_PROMPT_CHARS, MAX_GUARDRAIL_ENTRIES, MAX_ID_CHARS, MAX_STACK_ENTRIES, MAX_TASK_CHARS,
};
use super::sanitize::{char_len, normalize_id, sanitize_text};
use super::suggest::closest;
use super::RoleError;
use crate::text::estimate_tokens;

/// What to compose: block ids per slot, the task, and optionally a saved preset to start from.
///
/// Every field but `task` may be omitted in JSON. Ids are matched case-insensitively, by id
/// or alias (`pg` finds `postgresql`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase", default)]
pub struct ComposeRequest {
    /// What the model should do. Required: empty is an error.
    pub task: String,
    pub persona: Option<String>,
    /// In the order they should appear.
    pub stack: Vec<String>,
    pub domain: Option<String>,
    pub format: Option<String>,
    pub guardrails: Vec<String>,
    /// Name of a saved preset to start from. [`compose`] does not read presets: callers
    /// resolve it first with [`super::resolve_preset`], which explains the merge rules.
    pub preset: Option<String>,
}

/// One block that made it into the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ComposedBlock {
    pub kind: BlockKind,
    /// The resolved id (an alias in the request shows here as the canonical id).
    pub id: String,
    pub title: String,
    pub source: BlockSource,
}

/// An id that matched no block of its kind. Never an error: the rest still composes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RoleWarning {
    /// The slot the id was given for.
    pub kind: BlockKind,
    /// The id as given (normalized: trimmed, lowercase).
    pub id: String,
    /// The closest valid id of that kind, when one is close.
    pub suggestion: Option<String>,
    /// For people: `unknown persona 'backend-enginer'; did you mean 'backend-engineer'?`.
    pub message: String,
}

/// The result: what will be sent, and what went into it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ComposedRole {
    /// True when at least one block resolved; otherwise `full_prompt` is the task alone.
    pub has_role: bool,
    /// The complete prompt: role sections in fixed order, then the task.
    pub full_prompt: String,
    /// One per unknown id, in request order (persona, stack, domain, format, guardrails).
    pub warnings: Vec<RoleWarning>,
    /// The blocks used, in prompt order.
    pub blocks: Vec<ComposedBlock>,
    /// Estimated tokens of `full_prompt` (see [`super::estimate_tokens`]).
    pub token_estimate: u32,
}

/// Composes the role prompt for `request` from `library`.
///
/// Sections appear in a fixed order — role (persona), stack, domain, output format,
/// guardrails, then the task — each under a Markdown heading. Stack entries and guardrails
/// keep the order given, with duplicates removed (an alias and its id count as the same
/// block). Unknown ids become [`RoleWarning`]s. The output is a pure function of the input:
/// the same request and library give byte-identical results.
///
/// Errors: the task is empty or too long; an id or a list is over its limit; the composed
/// prompt exceeds [`MAX_FULL_PROMPT_CHARS`]; `request.preset` is still set.
pub fn compose(request: &ComposeRequest, library: &RoleLibrary) -> Result<ComposedRole, RoleError> {
    if let Some(name) = &request.preset {
        return Err(RoleError::UnresolvedPreset {
            name: shorten(name),
        });
    }
    let task = sanitize_text(&request.task);
    if task.is_empty() {
        return Err(RoleError::EmptyTask);
    }
    let task_chars = char_len(&task);
    if task_chars > MAX_TASK_CHARS {
        return Err(RoleError::too_long("task", task_chars, MAX_TASK_CHARS));
    }
    check_count("stack entries", request.stack.len(), MAX_STACK_ENTRIES)?;
    check_count(
        "guardrails",
        request.guardrails.len(),
        MAX_GUARDRAIL_ENTRIES,
    )?;

    let mut resolver = Resolver {
        library,
        warnings: Vec::new(),
    };
    let persona = resolver.resolve(BlockKind::Persona, request.persona.iter())?;
    let stack = resolver.resolve(BlockKind::Stack, request.stack.iter())?;
    let domain = resolver.resolve(BlockKind::Domain, request.domain.iter())?;
    let format = resolver.resolve(BlockKind::Format, request.format.iter())?;
    let guardrails = resolver.resolve(BlockKind::Guardrail, request.guardrails.iter())?;
    let warnings = resolver.warnings;

    let mut prompt = String::new();
    for block in &persona {
        push_single(&mut prompt, "Role", block);
    }
    push_list(&mut prompt, "Stack", &stack);
    for block in &domain {
        push_single(&mut prompt, "Domain", block);
    }
    for block in &format {
        push_single(&mut prompt, "Output format", block);
    }
    push_list(&mut prompt, "Guardrails", &guardrails);

    let used: Vec<&RoleBlock> = [persona, stack, domain, format, guardrails].concat();
    let has_role = !used.is_empty();
    let full_prompt = if has_role {
        prompt.push_str("# Task\n");
        prompt.push_str(&task);
        prompt.push('\n');
        prompt
    } else {
        task
    };
    let chars = char_len(&full_prompt);
    if chars > MAX_FULL_PROMPT_CHARS {
        return Err(RoleError::PromptTooLarge {
            chars,
            max: MAX_FULL_PROMPT_CHARS,
        });
    }
    Ok(ComposedRole {
        has_role,
        token_estimate: estimate_tokens(&full_prompt),
        full_prompt,
        warnings,
        blocks: used
            .into_iter()
            .map(|b| ComposedBlock {
                kind: b.kind,
                id: b.id.clone(),
                title: b.title.clone(),
                source: b.source,
            })
            .collect(),
    })
}

fn check_count(field: &str, count: usize, max: usize) -> Result<(), RoleError> {
    if count > max {
        return Err(RoleError::TooMany {
            field: field.into(),
            count,
            max,
        });
    }
    Ok(())
}

fn push_single(prompt: &mut String, heading: &str, block: &RoleBlock) {
    prompt.push_str(&format!(
        "# {heading}: {}\n{}\n\n",
        block.title, block.prompt
    ));
}

fn push_list(prompt: &mut String, heading: &str, blocks: &[&RoleBlock]) {
    if blocks.is_empty() {
        return;
    }
    prompt.push_str(&format!("# {heading}\n\n"));
    for block in blocks {
        prompt.push_str(&format!("## {}\n{}\n\n", block.title, block.prompt));
    }
}

struct Resolver<'a> {
    library: &'a RoleLibrary,
    warnings: Vec<RoleWarning>,
}

impl<'a> Resolver<'a> {
    /// Resolves `ids` of one kind in order, skipping blanks and duplicates, recording a
    /// warning (once) per unknown id.
    fn resolve<'r>(
        &mut self,
        kind: BlockKind,
        ids: impl Iterator<Item = &'r String>,
    ) -> Result<Vec<&'a RoleBlock>, RoleError> {
        let mut found: Vec<&'a RoleBlock> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for raw in ids {
            let id = normalize_id(raw);
            if id.is_empty() || !seen.insert(id.clone()) {
                continue;
            }
            let chars = char_len(&id);
            if chars > MAX_ID_CHARS {
                return Err(RoleError::too_long(
                    format!("{} id", kind.noun()),
                    chars,
                    MAX_ID_CHARS,
                ));
            }
            match self.library.find(kind, &id) {
                Some(block) => {
                    if !found.iter().any(|b| b.id == block.id) {
                        found.push(block);
                    }
                }
                None => self.warnings.push(self.unknown(kind, id)),
            }
        }
        Ok(found)
    }

    fn unknown(&self, kind: BlockKind, id: String) -> RoleWarning {
        let suggestion = closest(
            &id,
            self.library
                .of_kind(kind)
                .map(|b| (b.id.as_str(), b.names())),
        )
        .map(str::to_owned);
        let mut message = format!("unknown {} '{id}'", kind.noun());
        if let Some(other) = self.library.kind_of(&id) {
            message.push_str(&format!(
                " ('{id}' is a {}, not a {})",
                other.noun(),
                kind.noun()
            ));
        }
        if let Some(s) = &suggestion {
            message.push_str(&format!("; did you mean '{s}'?"));
        }
        RoleWarning {
            kind,
            id,
            suggestion,
            message,
        }
    }
}
