//! The locked-paths gate: a worker may not change how the project is built in CI or how its
//! tests run, so that "the tests pass" keeps meaning what the user thinks it means.
//!
//! A change is blocked when any path it touches matches a locked glob — the new path, the old
//! path of a rename, and the resolved target of a new symlink (a symlink into a locked path
//! counts; one inside a locked path is itself a locked path) — or when a manifest's locked keys
//! differ between the old and the new file (compared parsed, so formatting and dependency
//! edits stay allowed). Any change to a locked path counts, a pure mode change included.

use std::collections::BTreeMap;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::symlinks::{self, Resolved};
use super::{Finding, GateName, GateResult};
use crate::review::diff::{CapturedDiff, FileChange};

/// Globs locked for every attempt (repository-relative; `*` stays within one path component,
/// `**/` spans directories; a `dir/**` glob also locks `dir` itself, so replacing the
/// directory with a symlink counts).
///
/// Deliberately included: CI definitions (`.github/actions/**` too, since workflows run them),
/// test-runner configuration for JavaScript, Python and Rust, coverage configuration, and
/// `conftest.py` — its hooks can rewrite test outcomes, so a worker's fixture edits there need
/// the user's eye. Deliberately not included: `vite.config.*` and `setup.cfg` (they mostly hold
/// build and packaging settings workers legitimately edit; a vitest `test` block in
/// `vite.config.*` or a `[tool:pytest]` section in `setup.cfg` is therefore not protected — lock
/// them per attempt where it matters), and test files themselves.
pub const DEFAULT_LOCKED_GLOBS: &[&str] = &[
    ".ci/**",
    ".github/workflows/**",
    ".github/actions/**",
    ".gitlab-ci.yml",
    ".gitlab/ci/**",
    ".circleci/**",
    ".buildkite/**",
    ".travis.yml",
    ".drone.yml",
    ".woodpecker.yml",
    ".woodpecker/**",
    "azure-pipelines.yml",
    "Jenkinsfile",
    "**/jest.config.*",
    "**/vitest.config.*",
    "**/vitest.workspace.*",
    "**/.mocharc",
    "**/.mocharc.*",
    "**/karma.conf.*",
    "**/ava.config.*",
    "**/playwright.config.*",
    "**/cypress.config.*",
    "**/.nycrc",
    "**/.nycrc.*",
    "**/.c8rc",
    "**/.c8rc.*",
    "**/pytest.ini",
    "**/tox.ini",
    "**/noxfile.py",
    "**/conftest.py",
    "**/.coveragerc",
    "**/.cargo/config",
    "**/.cargo/config.toml",
    "**/.config/nextest.toml",
];

/// Manifests whose keys decide how tests run, by file name, with the locked keys (dotted for
/// nested TOML tables). Other keys, dependencies above all, may change.
pub const LOCKED_MANIFEST_KEYS: &[(&str, &[&str])] = &[
    (
        "package.json",
        &[
            "scripts",
            "jest",
            "vitest",
            "mocha",
            "ava",
            "c8",
            "nyc",
            "workspaces",
            "packageManager",
        ],
    ),
    (
        "pyproject.toml",
        &[
            "tool.pytest",
            "tool.coverage",
            "tool.tox",
            "tool.hatch.envs",
            "tool.pdm.scripts",
        ],
    ),
];

/// A glob that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("locked glob {glob:?} is invalid: {reason}")]
pub struct LockedGlobError {
    /// The glob as given.
    pub glob: String,
    /// Why.
    pub reason: String,
}

/// The compiled set of locked globs for one attempt.
#[derive(Debug, Clone)]
pub struct LockedPaths {
    globs: Vec<String>,
    /// Pattern index → the glob it came from (a `dir/**` glob compiles to two patterns).
    origin: Vec<usize>,
    set: GlobSet,
}

impl LockedPaths {
    /// The defaults plus `extra` (the attempt's own globs).
    ///
    /// # Errors
    /// [`LockedGlobError`] naming the first glob that does not compile.
    pub fn new(extra: &[String]) -> Result<Self, LockedGlobError> {
        let globs: Vec<String> = DEFAULT_LOCKED_GLOBS
            .iter()
            .map(|g| (*g).to_owned())
            .chain(
                extra
                    .iter()
                    .map(|g| g.trim().to_owned())
                    .filter(|g| !g.is_empty()),
            )
            .collect();
        let mut builder = GlobSetBuilder::new();
        let mut origin = Vec::new();
        for (index, glob) in globs.iter().enumerate() {
            let mut patterns = vec![glob.trim_start_matches('/').to_owned()];
            if let Some(dir) = patterns[0].strip_suffix("/**") {
                patterns.push(dir.to_owned());
            }
            for pattern in patterns {
                let compiled = GlobBuilder::new(&pattern)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| LockedGlobError {
                        glob: glob.clone(),
                        reason: e.kind().to_string(),
                    })?;
                builder.add(compiled);
                origin.push(index);
            }
        }
        let set = builder.build().map_err(|e| LockedGlobError {
            glob: String::new(),
            reason: e.to_string(),
        })?;
        Ok(LockedPaths { globs, origin, set })
    }

    /// Every glob in force, defaults first.
    pub fn globs(&self) -> &[String] {
        &self.globs
    }

    /// The first glob that locks `path`, if any.
    pub fn matching(&self, path: &str) -> Option<&str> {
        let index = *self.set.matches(path).first()?;
        Some(&self.globs[self.origin[index]])
    }
}

/// A manifest whose old and new contents the gate needs (blob ids to read with git).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestNeed {
    /// The file's path in the diff.
    pub path: String,
    /// The old blob, if the old side is a manifest.
    pub old_oid: Option<String>,
    /// The new blob, if the new side is a manifest.
    pub new_oid: Option<String>,
}

/// Old and new contents of one manifest, as the runner read them.
#[derive(Clone, PartialEq, Eq)]
pub struct ManifestContents {
    /// The file's path in the diff.
    pub path: String,
    /// The old side's bytes (`None` when absent or not a manifest).
    pub old: Option<Vec<u8>>,
    /// The new side's bytes (`None` when absent or not a manifest).
    pub new: Option<Vec<u8>>,
}

impl std::fmt::Debug for ManifestContents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManifestContents")
            .field("path", &self.path)
            .field("old", &self.old.as_ref().map(Vec::len))
            .field("new", &self.new.as_ref().map(Vec::len))
            .finish()
    }
}

fn manifest_keys(path: &str) -> Option<(&'static str, &'static [&'static str])> {
    let name = path.rsplit('/').next()?;
    LOCKED_MANIFEST_KEYS
        .iter()
        .find(|(file, _)| *file == name)
        .copied()
}

/// The manifests in `diff` whose contents [`check`] compares.
pub fn manifests_needed(diff: &CapturedDiff) -> Vec<ManifestNeed> {
    diff.files
        .iter()
        .filter_map(|file| {
            let old_is = manifest_keys(file.old_path.as_deref().unwrap_or(&file.path)).is_some();
            let new_is = manifest_keys(&file.path).is_some();
            (old_is || new_is).then(|| ManifestNeed {
                path: file.path.clone(),
                old_oid: file.old_oid.clone().filter(|_| old_is),
                new_oid: file.new_oid.clone().filter(|_| new_is),
            })
        })
        .collect()
}

/// Runs the locked-paths gate. `manifests` answers [`manifests_needed`]; a manifest whose
/// contents are missing or do not parse is blocked (its keys cannot be checked).
/// `symlinks` is every symlink of the tree after the change (see the escape gate).
pub fn check(
    diff: &CapturedDiff,
    locked: &LockedPaths,
    manifests: &[ManifestContents],
    symlinks: &BTreeMap<String, String>,
) -> GateResult {
    let table = symlinks::table(diff, symlinks);
    let mut findings = Vec::new();
    for file in &diff.files {
        if let Some(finding) = path_finding(file, locked, &table) {
            findings.push(finding);
            continue;
        }
        let old_keys = manifest_keys(file.old_path.as_deref().unwrap_or(&file.path));
        let new_keys = manifest_keys(&file.path);
        let Some((name, keys)) = new_keys.or(old_keys) else {
            continue;
        };
        let Some(contents) = manifests.iter().find(|m| m.path == file.path) else {
            findings.push(Finding {
                path: file.path.clone(),
                line: None,
                rule: Some(name.to_owned()),
                message: format!("{name} changed but its contents were not provided"),
            });
            continue;
        };
        let old = if old_keys.is_some() {
            contents.old.as_deref()
        } else {
            None
        };
        let new = if new_keys.is_some() {
            contents.new.as_deref()
        } else {
            None
        };
        findings.extend(compare_manifest(&file.path, name, keys, old, new));
    }
    let detail = format!(
        "{} checked against {} and the test keys of package.json and pyproject.toml",
        super::count(diff.files.len(), "file", "files"),
        super::count(locked.globs().len(), "locked glob", "locked globs")
    );
    GateResult::from_findings(GateName::LockedPaths, detail, findings, "locked path")
}

fn path_finding(
    file: &FileChange,
    locked: &LockedPaths,
    table: &BTreeMap<String, String>,
) -> Option<Finding> {
    for path in file.touched_paths() {
        if let Some(glob) = locked.matching(path) {
            let how = if Some(path) == file.old_path.as_deref() {
                format!("renamed out of the locked path {path}")
            } else {
                format!("{path} is locked")
            };
            return Some(Finding {
                path: file.path.clone(),
                line: None,
                rule: Some(glob.to_owned()),
                message: how,
            });
        }
    }
    if file.new_is_symlink() {
        let target = file.symlink_target.as_deref().unwrap_or_default();
        if let Resolved::Inside(resolved) = symlinks::resolve(&file.path, target, table) {
            if let Some(glob) = locked.matching(&resolved) {
                return Some(Finding {
                    path: file.path.clone(),
                    line: None,
                    rule: Some(glob.to_owned()),
                    message: format!("symlink into the locked path {resolved}"),
                });
            }
        }
    }
    None
}

enum Parsed {
    Json(serde_json::Value),
    Toml(toml::Value),
}

impl Parsed {
    fn read(name: &str, bytes: &[u8]) -> Result<Parsed, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())?;
        if name.ends_with(".json") {
            serde_json::from_str(text)
                .map(Parsed::Json)
                .map_err(|e| e.to_string())
        } else {
            text.parse::<toml::Table>()
                .map(|t| Parsed::Toml(toml::Value::Table(t)))
                .map_err(|e| e.message().to_owned())
        }
    }

    /// The value at a dotted key, as JSON so both formats compare alike.
    fn get(&self, key: &str) -> Option<serde_json::Value> {
        match self {
            Parsed::Json(value) => value.as_object()?.get(key).cloned(),
            Parsed::Toml(value) => {
                let mut at = value;
                for part in key.split('.') {
                    at = at.as_table()?.get(part)?;
                }
                serde_json::to_value(at).ok()
            }
        }
    }
}

fn compare_manifest(
    path: &str,
    name: &str,
    keys: &[&str],
    old: Option<&[u8]>,
    new: Option<&[u8]>,
) -> Vec<Finding> {
    let parse = |bytes: Option<&[u8]>, side: &str| -> Result<Option<Parsed>, Finding> {
        bytes
            .map(|b| Parsed::read(name, b))
            .transpose()
            .map_err(|why| Finding {
                path: path.to_owned(),
                line: None,
                rule: Some(name.to_owned()),
                message: format!(
                    "the {side} {name} does not parse ({why}), so its locked keys cannot be \
                     checked"
                ),
            })
    };
    let (old, new) = match (parse(old, "old"), parse(new, "new")) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(finding), _) | (_, Err(finding)) => return vec![finding],
    };
    let mut findings = Vec::new();
    for key in keys {
        let before = old.as_ref().and_then(|p| p.get(key));
        let after = new.as_ref().and_then(|p| p.get(key));
        if before == after {
            continue;
        }
        let what = match (&before, &after) {
            (None, Some(_)) => "added".to_owned(),
            (Some(_), None) => "removed".to_owned(),
            (Some(serde_json::Value::Object(a)), Some(serde_json::Value::Object(b))) => {
                let mut changed: Vec<&str> = a
                    .keys()
                    .chain(b.keys())
                    .filter(|k| a.get(*k) != b.get(*k))
                    .map(String::as_str)
                    .collect();
                changed.sort_unstable();
                changed.dedup();
                let list: Vec<String> = changed
                    .iter()
                    .take(5)
                    .map(|k| format!("{key}.{k}"))
                    .collect();
                format!("changed ({})", list.join(", "))
            }
            _ => "changed".to_owned(),
        };
        findings.push(Finding {
            path: path.to_owned(),
            line: None,
            rule: Some(format!("{name}#{key}")),
            message: format!("{name} key `{key}` {what}: it decides how tests run"),
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lock_ci_and_runner_config_at_any_depth() {
        let locked = LockedPaths::new(&[]).expect("compiles");
        assert_eq!(
            locked.matching(".github/workflows/ci.yml"),
            Some(".github/workflows/**")
        );
        assert!(locked.matching(".github/workflows").is_some());
        assert!(locked.matching("packages/web/jest.config.ts").is_some());
        assert!(locked.matching("jest.config.js").is_some());
        assert!(locked.matching("tests/conftest.py").is_some());
        assert!(locked.matching(".cargo/config.toml").is_some());
        assert!(locked.matching("src/lib.rs").is_none());
        assert!(locked.matching(".github/CODEOWNERS").is_none());
    }

    #[test]
    fn attempt_globs_add_to_the_defaults_and_bad_globs_are_named() {
        let locked = LockedPaths::new(&["migrations/**".to_owned()]).expect("compiles");
        assert_eq!(locked.matching("migrations/001.sql"), Some("migrations/**"));
        let err = LockedPaths::new(&["a[".to_owned()]).expect_err("invalid");
        assert_eq!(err.glob, "a[");
    }

    #[test]
    fn package_json_scripts_change_is_found_but_dependencies_are_not() {
        let old = br#"{"scripts":{"test":"jest"},"dependencies":{"a":"1"}}"#;
        let deps = br#"{"dependencies":{"a":"2"},"scripts":{"test":"jest"}}"#;
        let keys = LOCKED_MANIFEST_KEYS[0].1;
        assert!(
            compare_manifest("package.json", "package.json", keys, Some(old), Some(deps))
                .is_empty()
        );
        let scripts = br#"{"scripts":{"test":"exit 0"},"dependencies":{"a":"1"}}"#;
        let found = compare_manifest(
            "package.json",
            "package.json",
            keys,
            Some(old),
            Some(scripts),
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("scripts.test"));
    }

    #[test]
    fn pyproject_pytest_table_is_locked_and_unparsable_manifests_block() {
        let keys = LOCKED_MANIFEST_KEYS[1].1;
        let old = b"[project]\nname='x'\n[tool.pytest.ini_options]\naddopts='-q'\n";
        let new = b"[project]\nname='y'\n[tool.pytest.ini_options]\naddopts='-q -k nothing'\n";
        let found = compare_manifest(
            "pyproject.toml",
            "pyproject.toml",
            keys,
            Some(old),
            Some(new),
        );
        assert_eq!(found[0].rule.as_deref(), Some("pyproject.toml#tool.pytest"));
        let broken = compare_manifest(
            "pyproject.toml",
            "pyproject.toml",
            keys,
            Some(old),
            Some(b"[["),
        );
        assert_eq!(broken.len(), 1);
    }
}
