//! Cleaning text that goes into a prompt: task, block texts, ids and preset names.
//!
//! Rules (the same everywhere, so output is deterministic):
//! - `\r\n` and lone `\r` become `\n`;
//! - control characters are removed, except `\n` and `\t`;
//! - invisible characters that can hide or reorder text are removed: bidirectional
//!   overrides and isolates (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), the
//!   zero-width space U+200B, the word joiner U+2060 and the byte-order mark U+FEFF
//!   (zero-width joiners stay: emoji sequences and several scripts need them);
//! - leading and trailing whitespace is trimmed.

/// Returns `input` cleaned by the rules above.
pub fn sanitize_text(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() || is_hidden_format_char(c) => {}
            c => out.push(c),
        }
    }
    let trimmed = out.trim();
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_owned()
    }
}

/// Sanitizes a single-line field (title, description, preset name, alias): like
/// [`sanitize_text`], and every run of whitespace (newlines and tabs included) becomes one
/// space.
pub fn sanitize_line(input: &str) -> String {
    sanitize_text(input)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Normalizes a block id typed by a user: sanitized as a line, ASCII-lowercased.
pub fn normalize_id(input: &str) -> String {
    sanitize_line(input).to_ascii_lowercase()
}

/// Length in characters (Unicode scalar values), the unit every limit uses.
pub fn char_len(text: &str) -> usize {
    text.chars().count()
}

fn is_hidden_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}'
            | '\u{200B}'
            | '\u{2060}'
            | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_controls_but_keeps_newlines_and_tabs() {
        assert_eq!(
            sanitize_text("a\u{0}b\u{7}c\u{1b}[31m\td\ne"),
            "abc[31m\td\ne"
        );
        assert_eq!(sanitize_text("x\u{7f}y\u{85}z"), "xyz");
    }

    #[test]
    fn normalizes_line_endings_and_trims() {
        assert_eq!(sanitize_text("  one\r\ntwo\rthree\n\n "), "one\ntwo\nthree");
    }

    #[test]
    fn removes_bidi_overrides_and_zero_width_spaces() {
        assert_eq!(
            sanitize_text("\u{FEFF}ad\u{202E}min\u{200B}\u{2066}x"),
            "adminx"
        );
        // The zero-width joiner in an emoji sequence survives.
        assert_eq!(sanitize_text("👩\u{200D}💻"), "👩\u{200D}💻");
    }

    #[test]
    fn lines_collapse_whitespace_and_ids_lowercase() {
        assert_eq!(sanitize_line(" Code\n  Review\t bot "), "Code Review bot");
        assert_eq!(normalize_id("  PostgreSQL\u{0} "), "postgresql");
        assert_eq!(char_len("日本語"), 3);
    }
}
