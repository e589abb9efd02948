//! Switchyard's own gates over a captured diff: locked paths, escape, secrets and size.
//!
//! Each gate is a pure function of the [`CapturedDiff`] (plus what it needs: the canonical
//! patch's added lines, manifest contents, the new tree's symlinks, the keys Switchyard holds)
//! and returns one [`GateResult`] with its evidence. Nothing here reads a disk; the runner
//! gathers the inputs with git. What a worker claims about its change is never an input.
//!
//! Evidence never contains a secret: the secrets gate names the file, the line and the rule,
//! and redacts the value.

mod escape;
mod locked;
mod secrets;
mod size;
mod symlinks;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::diff::{CanonicalPatch, CapturedDiff};

pub use escape::check as check_escape;
pub use locked::{
    check as check_locked_paths, manifests_needed, LockedGlobError, LockedPaths, ManifestContents,
    ManifestNeed, DEFAULT_LOCKED_GLOBS, LOCKED_MANIFEST_KEYS,
};
pub use secrets::{
    check as check_secrets, KnownKey, SecretRule, SecretRules, SecretRulesError, MIN_KNOWN_KEY_LEN,
};
pub use size::{check as check_size, SizeLimits};

/// Which gate produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum GateName {
    /// CI configuration, test-runner configuration and the attempt's own locked globs.
    LockedPaths,
    /// Paths or symlink targets outside the worktree.
    Escape,
    /// Credentials in added lines.
    Secrets,
    /// Limits on files and bytes changed.
    Size,
    /// Nothing outside the worktree changed: the repository's git directory (config, hooks,
    /// info, refs), the worktree's `.git` file and the user's checkout. Run by the engine
    /// around the worker and the verification, not by [`run_all`].
    Repository,
    /// Switchyard's own run of the verification commands (not one of [`run_all`]'s checks:
    /// the engine runs it after them and records it in the same list).
    Verification,
}

/// A gate's name and what pages call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct GateTitle {
    pub name: GateName,
    pub title: String,
}

impl GateName {
    /// What pages call the gate.
    pub fn title(self) -> &'static str {
        match self {
            GateName::LockedPaths => "Locked paths",
            GateName::Escape => "Escape",
            GateName::Secrets => "Secrets",
            GateName::Size => "Size",
            GateName::Repository => "Repository",
            GateName::Verification => "Verification",
        }
    }

    /// Every gate with its title, in the order Switchyard runs them.
    pub fn titles() -> Vec<GateTitle> {
        Self::ALL
            .iter()
            .map(|&name| GateTitle {
                name,
                title: name.title().to_owned(),
            })
            .collect()
    }

    /// Every gate, in the order Switchyard runs them.
    pub const ALL: [GateName; 6] = [
        GateName::LockedPaths,
        GateName::Escape,
        GateName::Secrets,
        GateName::Size,
        GateName::Repository,
        GateName::Verification,
    ];
}

/// The gates missing from `results`, in the order they run (an attempt whose worker failed
/// skips verification; a live one has not run them yet).
pub fn not_run(results: &[GateResult]) -> Vec<GateName> {
    GateName::ALL
        .into_iter()
        .filter(|name| !results.iter().any(|r| r.name == *name))
        .collect()
}

/// One gate's verdict with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct GateResult {
    /// The gate.
    pub name: GateName,
    /// `true` when nothing blocks.
    pub passed: bool,
    /// One sentence for people: what was checked, or what blocks.
    pub detail: String,
    /// What the gate found (empty when it passed), capped at [`MAX_FINDINGS`].
    pub evidence: Vec<Finding>,
}

/// Findings kept per gate; the detail says how many there were in all.
pub const MAX_FINDINGS: usize = 100;

/// One thing a gate found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The file (repository-relative).
    pub path: String,
    /// The line in the new file, when the finding is about a line.
    pub line: Option<u32>,
    /// The glob, key or rule id that matched.
    pub rule: Option<String>,
    /// What is wrong, for people (never a secret).
    pub message: String,
}

/// `1 file`, `3 files`: a count with its noun in the right number, for gate details.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl GateResult {
    fn from_findings(name: GateName, ok: String, mut findings: Vec<Finding>, what: &str) -> Self {
        if findings.is_empty() {
            return GateResult {
                name,
                passed: true,
                detail: ok,
                evidence: findings,
            };
        }
        let total = findings.len();
        findings.truncate(MAX_FINDINGS);
        let first = &findings[0];
        let place = match (first.path.as_str(), first.line) {
            ("", _) => String::new(),
            // "locked path: a/b is locked", not "locked path in a/b: a/b is locked".
            (path, None) if first.message.starts_with(path) => String::new(),
            (path, Some(line)) => format!(" in {path}:{line}"),
            (path, None) => format!(" in {path}"),
        };
        let detail = if total == 1 {
            format!("blocked: {what}{place}: {}", first.message)
        } else {
            format!("blocked: {total} {what}s, first{place}: {}", first.message)
        };
        GateResult {
            name,
            passed: false,
            detail,
            evidence: findings,
        }
    }
}

/// What the gates are configured with for one attempt.
#[derive(Debug, Clone)]
pub struct GatePolicy {
    /// Default locked globs plus the attempt's own.
    pub locked: LockedPaths,
    /// Size limits.
    pub size: SizeLimits,
}

/// Everything the gates read besides the policy.
#[derive(Debug, Clone, Copy)]
pub struct GateInputs<'a> {
    /// The captured diff.
    pub diff: &'a CapturedDiff,
    /// Its canonical patch (for added lines, including those of omitted files).
    pub patch: &'a CanonicalPatch,
    /// Old and new contents of the manifests [`manifests_needed`] asked for.
    pub manifests: &'a [ManifestContents],
    /// Every symlink in the tree after the change (path → target), for resolving chains.
    pub symlinks: &'a BTreeMap<String, String>,
    /// Keys Switchyard holds; an added line containing one is blocked.
    pub known_keys: &'a [KnownKey<'a>],
}

/// Runs every gate in a fixed order: locked paths, escape, secrets, size.
pub fn run_all(
    policy: &GatePolicy,
    rules: &SecretRules,
    inputs: &GateInputs<'_>,
) -> Vec<GateResult> {
    vec![
        check_locked_paths(
            inputs.diff,
            &policy.locked,
            inputs.manifests,
            inputs.symlinks,
        ),
        check_escape(inputs.diff, inputs.symlinks),
        check_secrets(inputs.diff, inputs.patch, rules, inputs.known_keys),
        check_size(inputs.diff, &policy.size),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gate_has_a_title_in_run_order() {
        let titles = GateName::titles();
        let names: Vec<GateName> = titles.iter().map(|t| t.name).collect();
        assert_eq!(names, GateName::ALL);
        assert_eq!(titles[0].title, "Locked paths");
        assert!(titles.iter().all(|t| !t.title.is_empty()));
    }
}
