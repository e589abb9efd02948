//! The size gate: configurable limits on how much one attempt may change.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::{Finding, GateName, GateResult};
use crate::review::diff::CapturedDiff;

/// Limits for one attempt; a change over any of them is blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SizeLimits {
    /// Changed files (a rename counts once).
    pub max_files: u32,
    /// Added plus removed lines over all text files.
    pub max_changed_lines: u32,
    /// Length of the canonical patch in bytes (binary content included).
    #[specta(type = f64)]
    pub max_patch_bytes: u64,
    /// Size of any one file after the change, in bytes.
    #[specta(type = f64)]
    pub max_file_bytes: u64,
}

impl Default for SizeLimits {
    /// 500 files, 50,000 changed lines, a 32 MiB patch, 16 MiB per file.
    fn default() -> Self {
        SizeLimits {
            max_files: 500,
            max_changed_lines: 50_000,
            max_patch_bytes: 32 * 1024 * 1024,
            max_file_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Runs the size gate.
pub fn check(diff: &CapturedDiff, limits: &SizeLimits) -> GateResult {
    let mut findings = Vec::new();
    let files = diff.files.len() as u64;
    let lines = u64::from(diff.additions) + u64::from(diff.deletions);
    let mut over = |what: &str, value: String, max: String| {
        findings.push(Finding {
            path: String::new(),
            line: None,
            rule: Some(what.to_owned()),
            message: format!("{value} {what}, the limit is {max}"),
        });
    };
    if files > u64::from(limits.max_files) {
        over(
            "changed files",
            files.to_string(),
            limits.max_files.to_string(),
        );
    }
    if lines > u64::from(limits.max_changed_lines) {
        over(
            "changed lines",
            lines.to_string(),
            limits.max_changed_lines.to_string(),
        );
    }
    if diff.patch_bytes > limits.max_patch_bytes {
        over(
            "of patch",
            bytes(diff.patch_bytes),
            bytes(limits.max_patch_bytes),
        );
    }
    for file in &diff.files {
        if file.new_mode.is_some() && file.size > limits.max_file_bytes {
            findings.push(Finding {
                path: file.path.clone(),
                line: None,
                rule: Some("file bytes".to_owned()),
                message: format!(
                    "{}, the limit per file is {}",
                    bytes(file.size),
                    bytes(limits.max_file_bytes)
                ),
            });
        }
    }
    let detail = format!(
        "{}, {}, a {} patch: within the limits ({} files, {} lines, a {} patch, {} per file)",
        super::count(diff.files.len(), "file", "files"),
        super::count(lines as usize, "changed line", "changed lines"),
        bytes(diff.patch_bytes),
        limits.max_files,
        limits.max_changed_lines,
        bytes(limits.max_patch_bytes),
        bytes(limits.max_file_bytes)
    );
    GateResult::from_findings(GateName::Size, detail, findings, "size limit")
}

/// `483 B`, `1.5 KiB`, `32 MiB`: a size a reader takes in at a glance (the exact figures are
/// in the diff and the settings).
fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes(483), "483 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(32 * 1024 * 1024), "32 MiB");
        assert_eq!(bytes(16 * 1024 * 1024), "16 MiB");
        assert_eq!(bytes(150 * 1024), "150 KiB");
    }
}
