//! Switchyard's gates over changes captured from real fixture repositories.

mod support;

use support::{chmod_x, symlink, write, Fixture};
use switchyard_core::review::gates::{
    GateName, GatePolicy, GateResult, KnownKey, LockedPaths, SizeLimits,
};
use switchyard_runner::git::Worktree;

const PACKAGE_JSON: &str = r#"{
  "name": "demo",
  "scripts": { "test": "jest" },
  "dependencies": { "left-pad": "1.0.0" }
}
"#;

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        ),
        (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
        (".ci/run", "#!/bin/sh\ncargo test\n"),
        ("scripts/check.sh", "#!/bin/sh\nexit 0\n"),
        ("package.json", PACKAGE_JSON),
    ]
}

async fn worktree(fx: &Fixture) -> Worktree {
    let repo = fx.open().await;
    let base = repo.resolve_base().await.expect("base").commit;
    Worktree::create(&repo, &base, &fx.data, "g1")
        .await
        .expect("worktree")
}

fn policy(extra: &[&str], size: SizeLimits) -> GatePolicy {
    let extra: Vec<String> = extra.iter().map(|g| (*g).to_owned()).collect();
    GatePolicy {
        locked: LockedPaths::new(&extra).expect("globs"),
        size,
    }
}

async fn gates_with(wt: &Worktree, policy: &GatePolicy, keys: &[KnownKey<'_>]) -> Vec<GateResult> {
    let capture = wt.capture().await.expect("captures");
    wt.run_gates(&capture, policy, keys)
        .await
        .expect("gates run")
}

async fn gates(wt: &Worktree) -> Vec<GateResult> {
    gates_with(wt, &policy(&[], SizeLimits::default()), &[]).await
}

fn gate(results: &[GateResult], name: GateName) -> &GateResult {
    results
        .iter()
        .find(|r| r.name == name)
        .expect("gate present")
}

fn only_failure(results: &[GateResult]) -> &GateResult {
    let failed: Vec<&GateResult> = results.iter().filter(|r| !r.passed).collect();
    assert_eq!(failed.len(), 1, "{results:#?}");
    failed[0]
}

#[tokio::test]
async fn an_honest_change_passes_every_gate() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(
        &wt.path().join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    write(
        &wt.path().join("src/util.rs"),
        "pub const TOKEN_LEN: usize = 40;\n",
    );
    symlink("lib.rs", &wt.path().join("src/alias.rs"));
    let results = gates(&wt).await;
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r.passed), "{results:#?}");
}

#[tokio::test]
async fn editing_a_workflow_is_blocked_naming_the_path() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(
        &wt.path().join(".github/workflows/ci.yml"),
        "on: push\njobs: { skip: {} }\n",
    );
    let results = gates(&wt).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::LockedPaths);
    assert_eq!(failed.evidence[0].path, ".github/workflows/ci.yml");
    assert_eq!(
        failed.evidence[0].rule.as_deref(),
        Some(".github/workflows/**")
    );
    assert!(
        failed.detail.contains(".github/workflows/ci.yml"),
        "{}",
        failed.detail
    );
}

#[tokio::test]
async fn renaming_a_file_into_a_locked_path_is_blocked() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    std::fs::create_dir_all(wt.path().join(".ci")).expect("mkdir");
    std::fs::rename(
        wt.path().join("scripts/check.sh"),
        wt.path().join(".ci/check.sh"),
    )
    .expect("mv");
    let failed_into = gate(&gates(&wt).await, GateName::LockedPaths).clone();
    assert!(!failed_into.passed);
    assert_eq!(failed_into.evidence[0].path, ".ci/check.sh");
}

#[tokio::test]
async fn renaming_out_of_or_changing_only_the_mode_of_a_locked_path_is_blocked() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    std::fs::rename(
        wt.path().join(".github/workflows/ci.yml"),
        wt.path().join("ci-disabled.yml"),
    )
    .expect("mv");
    chmod_x(&wt.path().join(".ci/run"));
    let locked = gate(&gates(&wt).await, GateName::LockedPaths).clone();
    assert!(!locked.passed);
    let paths: Vec<&str> = locked.evidence.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&".ci/run"), "{locked:#?}");
    assert!(
        locked.evidence.iter().any(|f| f
            .message
            .contains("renamed out of the locked path .github/workflows/ci.yml")),
        "{locked:#?}"
    );
}

#[tokio::test]
async fn a_symlink_into_a_locked_path_is_blocked() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    symlink(".github/workflows/ci.yml", &wt.path().join("ci.yml"));
    let locked = gate(&gates(&wt).await, GateName::LockedPaths).clone();
    assert!(!locked.passed);
    assert!(locked.evidence[0]
        .message
        .contains("symlink into the locked path"));
}

#[tokio::test]
async fn package_json_scripts_are_locked_but_dependencies_may_change() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(
        &wt.path().join("package.json"),
        PACKAGE_JSON.replace("1.0.0", "1.3.0"),
    );
    assert!(
        gates(&wt).await.iter().all(|r| r.passed),
        "dependencies only"
    );
    write(
        &wt.path().join("package.json"),
        PACKAGE_JSON.replace("\"jest\"", "\"jest --passWithNoTests || true\""),
    );
    let results = gates(&wt).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::LockedPaths);
    assert_eq!(
        failed.evidence[0].rule.as_deref(),
        Some("package.json#scripts")
    );
    assert!(
        failed.evidence[0].message.contains("scripts.test"),
        "{failed:#?}"
    );
}

#[tokio::test]
async fn symlinks_leaving_the_worktree_are_blocked() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    symlink("/etc/passwd", &wt.path().join("x"));
    symlink("../../outside", &wt.path().join("src/y"));
    let results = gates(&wt).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::Escape);
    let paths: Vec<&str> = failed.evidence.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/y", "x"]);
}

#[tokio::test]
async fn a_symlink_chain_through_an_existing_link_that_leaves_is_blocked() {
    let mut base = files();
    base.push(("d/keep", "x\n"));
    let fx = Fixture::new(&base);
    symlink("..", &fx.repo.join("d/up"));
    fx.user_commit("an in-tree link to the root");
    let wt = worktree(&fx).await;
    symlink("d/up/..", &wt.path().join("sneaky"));
    let escape = gate(&gates(&wt).await, GateName::Escape).clone();
    assert!(!escape.passed, "{escape:#?}");
    assert_eq!(escape.evidence[0].path, "sneaky");
}

const AWS_KEY: &str = "AKIAZ7QW3RT5YU2IOPLK";
const GITHUB_TOKEN: &str = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5";

#[tokio::test]
async fn vendor_secrets_in_added_lines_are_blocked_with_file_and_line_never_the_value() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(
        &wt.path().join("src/config.rs"),
        format!(
            "// settings\npub const REGION: &str = \"eu\";\npub const KEY: &str = \"{AWS_KEY}\";\n\
             pub const GH: &str = \"{GITHUB_TOKEN}\";\n"
        ),
    );
    let results = gates(&wt).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::Secrets);
    let places: Vec<(String, Option<u32>, Option<String>)> = failed
        .evidence
        .iter()
        .map(|f| (f.path.clone(), f.line, f.rule.clone()))
        .collect();
    assert_eq!(
        places,
        [
            (
                "src/config.rs".to_owned(),
                Some(3),
                Some("aws-access-token".to_owned())
            ),
            (
                "src/config.rs".to_owned(),
                Some(4),
                Some("github-pat".to_owned())
            ),
        ]
    );
    assert!(
        failed.detail.contains("src/config.rs:3"),
        "{}",
        failed.detail
    );
    let debug = format!("{results:?}");
    let json = serde_json::to_string(&results).expect("serializes");
    for secret in [AWS_KEY, GITHUB_TOKEN] {
        assert!(!debug.contains(secret) && !json.contains(secret));
        assert!(!debug.contains(&secret[4..]) && !json.contains(&secret[4..]));
    }
}

#[tokio::test]
async fn a_worker_gitattributes_cannot_turn_its_secret_into_an_unscanned_binary() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(&wt.path().join(".gitattributes"), "* -diff -text\n");
    write(
        &wt.path().join("src/leak.rs"),
        format!("const T: &str = \"{GITHUB_TOKEN}\";\n"),
    );
    let capture = wt.capture().await.expect("captures");
    let leak = capture
        .diff
        .files
        .iter()
        .find(|f| f.path == "src/leak.rs")
        .expect("listed");
    assert!(!leak.is_binary);
    let results = wt
        .run_gates(&capture, &policy(&[], SizeLimits::default()), &[])
        .await
        .expect("gates run");
    assert!(!gate(&results, GateName::Secrets).passed, "{results:#?}");
}

#[tokio::test]
async fn a_secret_in_a_file_too_large_to_show_is_still_found() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    let mut body = "filler line of generated data, nothing to see here\n".repeat(60_000);
    body.push_str(&format!("token = {GITHUB_TOKEN}\n"));
    write(&wt.path().join("data/dump.txt"), &body);
    let capture = wt.capture().await.expect("captures");
    assert!(capture.diff.files[0].content_omitted);
    let results = wt
        .run_gates(&capture, &policy(&[], SizeLimits::default()), &[])
        .await
        .expect("gates run");
    let secrets = gate(&results, GateName::Secrets);
    assert!(!secrets.passed);
    assert_eq!(secrets.evidence[0].line, Some(60_001));
}

#[tokio::test]
async fn a_key_switchyard_holds_in_an_added_line_is_blocked() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    let held = "local-model-key-7f3a9c2e1b";
    write(
        &wt.path().join("src/client.rs"),
        format!("fn key() -> &'static str {{\n    \"{held}\"\n}}\n"),
    );
    let keys = [KnownKey {
        label: "openrouter",
        value: held,
    }];
    let results = gates_with(&wt, &policy(&[], SizeLimits::default()), &keys).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::Secrets);
    assert_eq!(failed.evidence[0].line, Some(2));
    assert_eq!(
        failed.evidence[0].rule.as_deref(),
        Some("keychain:openrouter")
    );
    let json = serde_json::to_string(&results).expect("serializes");
    assert!(!json.contains(held) && !format!("{results:?}").contains(held));
}

#[tokio::test]
async fn size_limits_block_too_many_files_or_bytes() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    for i in 0..6 {
        write(&wt.path().join(format!("gen/{i}.txt")), "x\n".repeat(50));
    }
    let tight = SizeLimits {
        max_files: 5,
        max_changed_lines: 1_000,
        max_patch_bytes: 1_000_000,
        max_file_bytes: 1_000,
    };
    let results = gates_with(&wt, &policy(&[], tight), &[]).await;
    let failed = only_failure(&results);
    assert_eq!(failed.name, GateName::Size);
    assert!(
        failed.detail.contains("6 changed files, the limit is 5"),
        "{}",
        failed.detail
    );
    let roomy = SizeLimits {
        max_files: 10,
        ..tight
    };
    assert!(gates_with(&wt, &policy(&[], roomy), &[])
        .await
        .iter()
        .all(|r| r.passed));
    let small_files = SizeLimits {
        max_file_bytes: 10,
        ..roomy
    };
    let results = gates_with(&wt, &policy(&[], small_files), &[]).await;
    assert_eq!(only_failure(&results).evidence.len(), 6);
}

#[tokio::test]
async fn the_attempts_own_globs_are_locked_too() {
    let fx = Fixture::new(&files());
    let wt = worktree(&fx).await;
    write(&wt.path().join("src/lib.rs"), "// rewritten\n");
    let results = gates_with(&wt, &policy(&["src/**"], SizeLimits::default()), &[]).await;
    let failed = only_failure(&results);
    assert_eq!(failed.evidence[0].rule.as_deref(), Some("src/**"));
}
