//! What the command palette can jump to that Rust knows: catalog models, runs and attempts,
//! each with the words it is found by.

use serde::{Deserialize, Serialize};
use specta::Type;

/// What an entry opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum PaletteKind {
    Model,
    Run,
    Attempt,
}

/// One thing the palette can open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PaletteEntry {
    pub kind: PaletteKind,
    /// The model's, run's or attempt's id (also searched).
    pub id: String,
    /// The model's name, or the task's first line.
    pub title: String,
    /// One short line: the provider and price, or the mode and state.
    pub detail: String,
}

/// At most this many runs and this many attempts are listed (the newest).
pub const PALETTE_RECENT: u32 = 200;

/// The first line of `text`, cut to `max` characters (with `…`).
pub fn first_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_the_first_non_blank_line_cut_on_a_character_boundary() {
        assert_eq!(first_line("\n  Fix the bug \nmore", 80), "Fix the bug");
        assert_eq!(first_line("修复登录错误并添加测试", 5), "修复登录…");
        assert_eq!(first_line("", 10), "");
    }
}
