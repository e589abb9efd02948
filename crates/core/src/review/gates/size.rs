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
    let mut over = |what: &str, value: u64, max: u64| {
        if value > max {
            findings.push(Finding {
                path: String::new(),
                line: None,
                rule: Some(what.to_owned()),
                message: format!("{value} {what}, the limit is {max}"),
            });
        }
    };
    over("changed files", files, u64::from(limits.max_files));
    over("changed lines", lines, u64::from(limits.max_changed_lines));
    over("patch bytes", diff.patch_bytes, limits.max_patch_bytes);
    for file in &diff.files {
        if file.new_mode.is_some() && file.size > limits.max_file_bytes {
            findings.push(Finding {
                path: file.path.clone(),
                line: None,
                rule: Some("file bytes".to_owned()),
                message: format!(
                    "{} bytes, the limit per file is {}",
                    file.size, limits.max_file_bytes
                ),
            });
        }
    }
    let detail = format!(
        "{files} files, {lines} changed lines, {} patch bytes: within the limits ({} files, {} \
         lines, {} bytes, {} bytes per file)",
        diff.patch_bytes,
        limits.max_files,
        limits.max_changed_lines,
        limits.max_patch_bytes,
        limits.max_file_bytes
    );
    GateResult::from_findings(GateName::Size, detail, findings, "size limit")
}
