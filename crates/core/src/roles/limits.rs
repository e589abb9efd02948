//! Size limits for blocks, presets, requests and the composed prompt.
//!
//! Lengths are counted in characters (Unicode scalar values), not bytes, so a limit means the
//! same thing for English and for CJK text. Every limit is enforced with a
//! [`super::RoleError`] that names the field, the size and the limit.

/// Longest block id, `custom:` prefix included.
pub const MAX_ID_CHARS: usize = 80;
/// Longest slug (the part of a custom id after `custom:`, or a whole built-in id).
pub const MAX_SLUG_CHARS: usize = 64;
/// Longest block title.
pub const MAX_TITLE_CHARS: usize = 80;
/// Longest one-line block description.
pub const MAX_DESCRIPTION_CHARS: usize = 240;
/// Longest prompt text of one block.
pub const MAX_BLOCK_PROMPT_CHARS: usize = 8_000;
/// Most aliases one block may have.
pub const MAX_ALIASES: usize = 16;
/// Longest alias.
pub const MAX_ALIAS_CHARS: usize = 40;
/// Longest task.
pub const MAX_TASK_CHARS: usize = 32_000;
/// Most stack entries in one request or preset (before duplicates are removed).
pub const MAX_STACK_ENTRIES: usize = 24;
/// Most guardrails in one request or preset (before duplicates are removed).
pub const MAX_GUARDRAIL_ENTRIES: usize = 16;
/// Longest preset name.
pub const MAX_PRESET_NAME_CHARS: usize = 80;
/// Cap on the composed prompt (role sections plus the task).
pub const MAX_FULL_PROMPT_CHARS: usize = 64_000;
/// Largest roles file accepted for import, in bytes.
pub const MAX_BUNDLE_BYTES: usize = 4 * 1024 * 1024;
/// Most custom blocks in one roles file.
pub const MAX_BUNDLE_BLOCKS: usize = 1_000;
/// Most presets in one roles file.
pub const MAX_BUNDLE_PRESETS: usize = 1_000;
