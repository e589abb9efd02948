//! Default verification commands, detected from the files at a repository's top level.

/// What [`default_verification`] looks at: which marker files exist at the top level, and
/// the text of `package.json` when there is one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RepoMarkers<'a> {
    /// File names present at the top level (`Cargo.toml`, `go.mod`, …).
    pub files: &'a [&'a str],
    /// `package.json`'s contents, if it exists.
    pub package_json: Option<&'a str>,
}

/// Marker files read by [`default_verification`].
pub const MARKER_FILES: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "pytest.ini",
    "setup.py",
    "go.mod",
];

/// The verification commands a repository suggests, in a fixed order: `cargo test`
/// (`Cargo.toml`), `npm test` (a `package.json` with a `test` script other than npm's
/// placeholder), `pytest` (`pyproject.toml`, `pytest.ini` or `setup.py`), `go test ./...`
/// (`go.mod`). Empty when none applies.
pub fn default_verification(markers: &RepoMarkers<'_>) -> Vec<String> {
    let has = |name: &str| markers.files.contains(&name);
    let mut commands = Vec::new();
    if has("Cargo.toml") {
        commands.push("cargo test".to_owned());
    }
    if markers.package_json.is_some_and(has_test_script) {
        commands.push("npm test".to_owned());
    }
    if has("pyproject.toml") || has("pytest.ini") || has("setup.py") {
        commands.push("pytest".to_owned());
    }
    if has("go.mod") {
        commands.push("go test ./...".to_owned());
    }
    commands
}

/// `npm init` writes a `test` script that only fails; it is not a test suite.
fn has_test_script(package_json: &str) -> bool {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(package_json) else {
        return false;
    };
    value
        .get("scripts")
        .and_then(|s| s.get("test"))
        .and_then(|t| t.as_str())
        .is_some_and(|t| !t.trim().is_empty() && !t.contains("no test specified"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ecosystem_suggests_its_runner() {
        let pkg = r#"{"scripts": {"test": "vitest run"}}"#;
        let markers = RepoMarkers {
            files: &["Cargo.toml", "package.json", "pytest.ini", "go.mod"],
            package_json: Some(pkg),
        };
        assert_eq!(
            default_verification(&markers),
            ["cargo test", "npm test", "pytest", "go test ./..."]
        );
    }

    #[test]
    fn a_package_json_without_a_real_test_script_suggests_nothing() {
        for pkg in [
            r#"{"scripts": {"build": "tsc"}}"#,
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
            "not json",
        ] {
            let markers = RepoMarkers {
                files: &["package.json"],
                package_json: Some(pkg),
            };
            assert!(default_verification(&markers).is_empty(), "{pkg}");
        }
        assert!(default_verification(&RepoMarkers::default()).is_empty());
    }
}
