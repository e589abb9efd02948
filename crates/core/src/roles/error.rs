//! The one error type of the roles composer.

use crate::error::ErrorCode;

/// Everything that can make composing, validating or importing roles fail.
///
/// Unknown block ids are deliberately *not* errors: they become [`super::RoleWarning`]s.
/// Messages are written for people and name the field, the size and the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleError {
    /// The task is empty (or only whitespace and control characters).
    #[error("the task is empty: describe what the model should do")]
    EmptyTask,
    /// A required text field is empty after sanitizing.
    #[error("{field} is empty")]
    Empty {
        /// Which field, e.g. `title` or `prompt`.
        field: String,
    },
    /// A text field is longer than its limit.
    #[error("{field} is {chars} characters long; the limit is {max}")]
    TooLong {
        /// Which field, e.g. `task` or `stack id`.
        field: String,
        /// Its length in characters (Unicode scalar values).
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// A list has more entries than allowed.
    #[error("too many {field}: {count} given, the limit is {max}")]
    TooMany {
        /// Which list, e.g. `stack entries`.
        field: String,
        /// Entries given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A block id is malformed (custom ids are `custom:<slug>`, slugs lowercase kebab-case).
    #[error("invalid block id '{id}': {reason}")]
    InvalidId {
        /// The id as given (sanitized, possibly shortened for display).
        id: String,
        /// What is wrong and what is expected.
        reason: String,
    },
    /// The composed prompt would exceed the size cap.
    #[error(
        "the composed prompt would be {chars} characters; the limit is {max}: \
         remove some blocks or shorten the task"
    )]
    PromptTooLarge {
        /// Size of the prompt that would have been produced.
        chars: usize,
        /// The cap, [`super::limits::MAX_FULL_PROMPT_CHARS`].
        max: usize,
    },
    /// `compose` was given a request that still names a preset; resolve it first with
    /// [`super::resolve_preset`]. A caller bug, not a user error.
    #[error("preset '{name}' was not resolved before composing")]
    UnresolvedPreset {
        /// The preset name left in the request.
        name: String,
    },
    /// No preset has this name.
    #[error("no preset named '{name}'{}", did_you_mean(.suggestion))]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The closest existing preset name, if any is close.
        suggestion: Option<String>,
    },
    /// A roles file (import) is not valid; nothing was imported.
    #[error("roles file: {detail}")]
    InvalidBundle {
        /// Where and what: `blocks[2] (custom:review): title is empty`.
        detail: String,
    },
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    }
}

impl RoleError {
    /// The code the UI and the CLI switch on.
    pub fn code(&self) -> ErrorCode {
        match self {
            RoleError::UnknownPreset { .. } => ErrorCode::NotFound,
            RoleError::UnresolvedPreset { .. } => ErrorCode::Internal,
            _ => ErrorCode::InvalidInput,
        }
    }

    /// Shorthand for [`RoleError::TooLong`].
    pub(crate) fn too_long(field: impl Into<String>, chars: usize, max: usize) -> Self {
        RoleError::TooLong {
            field: field.into(),
            chars,
            max,
        }
    }

    /// Shorthand for [`RoleError::Empty`].
    pub(crate) fn empty(field: impl Into<String>) -> Self {
        RoleError::Empty {
            field: field.into(),
        }
    }

    /// Wraps this error as an import error located at `at` (e.g. `blocks[3]`).
    pub(crate) fn in_bundle(self, at: &str) -> Self {
        match self {
            RoleError::InvalidBundle { detail } => RoleError::InvalidBundle {
                detail: format!("{at}: {detail}"),
            },
            other => RoleError::InvalidBundle {
                detail: format!("{at}: {other}"),
            },
        }
    }
}
