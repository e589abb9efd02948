//! The verification commands a repository suggests, from the files at its root: what the New
//! task form prefills (the user edits them). Pure: the caller lists the root and reads
//! `package.json`.

use serde_json::Value;

/// npm's placeholder `test` script (`npm init`): not a test suite.
const NPM_PLACEHOLDER: &str = "no test specified";

/// Commands for the repository whose root holds `root_entries` (file and directory names),
/// in a fixed order: `cargo test` (Cargo.toml), `npm test` (a real `scripts.test` in
/// `package.json`; `pnpm test` / `yarn test` with their lockfile), `pytest` (pytest or tox
/// configuration, or a Python project with a `tests`/`test` directory), `go test ./...`
/// (go.mod). Empty when nothing is recognized.
pub fn default_verification(root_entries: &[&str], package_json: Option<&str>) -> Vec<String> {
    let has = |name: &str| root_entries.contains(&name);
    let mut commands = Vec::new();
    if has("Cargo.toml") {
        commands.push("cargo test".to_owned());
    }
    if has("package.json") && package_json.is_some_and(has_test_script) {
        let runner = if has("pnpm-lock.yaml") {
            "pnpm"
        } else if has("yarn.lock") {
            "yarn"
        } else {
            "npm"
        };
        commands.push(format!("{runner} test"));
    }
    let pytest_config = ["pytest.ini", "conftest.py", "tox.ini"]
        .iter()
        .any(|f| has(f));
    let python_project = ["pyproject.toml", "setup.py", "setup.cfg"]
        .iter()
        .any(|f| has(f));
    if pytest_config || (python_project && (has("tests") || has("test"))) {
        commands.push("pytest".to_owned());
    }
    if has("go.mod") {
        commands.push("go test ./...".to_owned());
    }
    commands
}

fn has_test_script(package_json: &str) -> bool {
    let Ok(json) = serde_json::from_str::<Value>(package_json) else {
        return false;
    };
    json.get("scripts")
        .and_then(|s| s.get("test"))
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty() && !t.contains(NPM_PLACEHOLDER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ecosystem_suggests_its_own_runner_in_a_fixed_order() {
        let pkg = r#"{"scripts": {"test": "vitest run"}}"#;
        assert_eq!(
            default_verification(
                &["go.mod", "package.json", "Cargo.toml", "pytest.ini", "src"],
                Some(pkg)
            ),
            ["cargo test", "npm test", "pytest", "go test ./..."]
        );
        assert_eq!(
            default_verification(&["README.md", "src"], None),
            Vec::<String>::new()
        );
    }

    #[test]
    fn npm_needs_a_real_test_script_and_follows_the_lockfile() {
        let placeholder = r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#;
        assert!(default_verification(&["package.json"], Some(placeholder)).is_empty());
        assert!(default_verification(&["package.json"], Some(r#"{"name": "x"}"#)).is_empty());
        assert!(default_verification(&["package.json"], Some("{not json")).is_empty());
        assert!(default_verification(&["package.json"], None).is_empty());
        let pkg = r#"{"scripts": {"test": "jest"}}"#;
        assert_eq!(
            default_verification(&["package.json", "pnpm-lock.yaml"], Some(pkg)),
            ["pnpm test"]
        );
        assert_eq!(
            default_verification(&["package.json", "yarn.lock"], Some(pkg)),
            ["yarn test"]
        );
    }

    #[test]
    fn python_needs_pytest_configuration_or_a_tests_directory() {
        assert!(default_verification(&["pyproject.toml", "src"], None).is_empty());
        assert_eq!(
            default_verification(&["pyproject.toml", "tests"], None),
            ["pytest"]
        );
        assert_eq!(default_verification(&["conftest.py"], None), ["pytest"]);
        assert_eq!(
            default_verification(&["setup.py", "test"], None),
            ["pytest"]
        );
    }
}
