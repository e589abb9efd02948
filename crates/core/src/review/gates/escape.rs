//! The escape gate: nothing in the change may point or lead outside the worktree.
//!
//! Blocks a path that is absolute, empty, has `.`/`..`/empty components, control characters
//! or bytes that are not UTF-8, or leads into `.git`; and a new or changed symlink whose target,
//! resolved through the other symlinks of the new tree, is absolute, climbs above the
//! worktree, leads into `.git` or loops.

use std::collections::BTreeMap;

use super::symlinks::{self, Resolved};
use super::{Finding, GateName, GateResult};
use crate::review::diff::{CapturedDiff, FileStatus};

/// Runs the escape gate. `symlinks` is every symlink of the tree after the change (it may be
/// empty when the diff has no symlink; the diff's own links are always added).
pub fn check(diff: &CapturedDiff, symlinks: &BTreeMap<String, String>) -> GateResult {
    let table = symlinks::table(diff, symlinks);
    let mut findings = Vec::new();
    for file in &diff.files {
        for path in file.touched_paths() {
            if let Some(problem) = path_problem(path) {
                findings.push(Finding {
                    path: path.to_owned(),
                    line: None,
                    rule: Some("path".to_owned()),
                    message: problem.to_owned(),
                });
            }
        }
        if file.status == FileStatus::Deleted || !file.new_is_symlink() {
            continue;
        }
        let target = file.symlink_target.as_deref().unwrap_or_default();
        let message = match symlinks::resolve(&file.path, target, &table) {
            Resolved::Inside(_) => continue,
            Resolved::Outside(why) => format!("symlink leaves the worktree: {why}"),
            Resolved::Loop => "symlink chain loops".to_owned(),
        };
        findings.push(Finding {
            path: file.path.clone(),
            line: None,
            rule: Some("symlink".to_owned()),
            message,
        });
    }
    GateResult::from_findings(
        GateName::Escape,
        format!(
            "{} checked: every path and symlink stays inside the worktree",
            super::count(diff.files.len(), "file", "files")
        ),
        findings,
        "escape",
    )
}

fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("empty path");
    }
    if path.starts_with('/') {
        return Some("absolute path");
    }
    if path.chars().any(|c| c.is_control() || c == '\u{FFFD}') {
        return Some("path has control characters or bytes that are not UTF-8");
    }
    for component in path.split('/') {
        match component {
            "" => return Some("path has an empty component"),
            "." | ".." => return Some("path has a . or .. component"),
            _ => {}
        }
    }
    if path.split('/').next() == Some(".git") {
        return Some("path leads into .git");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_paths_are_problems() {
        assert!(path_problem("src/lib.rs").is_none());
        assert!(path_problem("../x").is_some());
        assert!(path_problem("/etc/passwd").is_some());
        assert!(path_problem("a//b").is_some());
        assert!(path_problem(".git/config").is_some());
        assert!(path_problem("a\u{FFFD}b").is_some());
    }
}
