//! The roles composer: persona, stack, domain, format and guardrail blocks composed with a
//! task into one role prompt.
//!
//! Pure: no IO. The built-in library is compiled in from `crates/core/data/roles/*.json` and
//! parsed once ([`builtin_blocks`]); custom blocks (from the store) are passed in through
//! [`RoleLibrary::with_custom`]. Entry points:
//! - [`compose`]: request + library → [`ComposedRole`] (deterministic, fixed section order,
//!   unknown ids as warnings with "did you mean");
//! - [`resolve_preset`]: merges a saved [`RolePreset`] into a [`ComposeRequest`];
//! - [`CustomBlockInput::into_block`], [`validate_block`], [`RolePreset::validated`]: the
//!   rules every stored block and preset satisfies;
//! - [`parse_bundle`] / [`RolesBundle::to_json`]: the import/export file;
//! - [`estimate_tokens`]: the token estimate shown next to the preview (the one estimate of
//!   [`crate::text`], re-exported here).

mod block;
mod bundle;
mod compose;
mod error;
mod library;
pub mod limits;
mod preset;
mod sanitize;
mod suggest;

#[cfg(test)]
mod compose_tests;

pub use crate::text::estimate_tokens;
pub use block::{
    check_id, check_slug, custom_id, slugify, validate_block, BlockKind, BlockSource,
    CustomBlockInput, RoleBlock, StackGroup, CUSTOM_PREFIX,
};
pub use bundle::{
    parse_bundle, BundleBlock, ImportMode, ImportReport, RolesBundle, BUNDLE_VERSION,
};
pub use compose::{compose, ComposeRequest, ComposedBlock, ComposedRole, RoleWarning};
pub use error::RoleError;
pub use library::{builtin_blocks, builtin_stack, RoleLibrary};
pub use preset::{resolve_preset, validate_preset_name, RolePreset};
pub use sanitize::{char_len, normalize_id, sanitize_line, sanitize_text};
pub use suggest::{closest, edit_distance};
