//! Switchyard's gates decide, never the worker: failing verification, a worker that claims
//! success, locked paths (edit, rename into, `package.json` scripts vs dependencies), a
//! symlink escape, secrets and held keys in added lines, and a worktree changed after
//! verification.

mod attempts_support;

use attempts_support::{
    engine_with_own_keychain, gate, git, keychain_present, run, run_request, write, Fixture, FIX,
};
use switchyard_core::attempt::{AttemptLog, AttemptReview, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::gates::GateName;
use switchyard_core::worker::WorkerEvent;
use switchyard_engine::{Engine, ProviderKey};

/// The attempt reached review blocked by `name`, approve refuses with `GateFailed`, and the
/// user's branch did not move.
async fn assert_blocked(fx: &Fixture, engine: &Engine, review: &AttemptReview, name: GateName) {
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(!gate(review, name).passed, "{:?}", review.gates);
    assert_eq!(review.summary.gates_passed, Some(false));
    assert!(!review.can_approve);
    let head = fx.head();
    let error = engine
        .approve_attempt(&review.summary.id, "try", true)
        .await
        .expect_err("a blocked attempt cannot be approved");
    let code = if name == GateName::LockedPaths {
        ErrorCode::LockedPath
    } else {
        ErrorCode::GateFailed
    };
    assert_eq!(error.code(), code, "{error}");
    assert_eq!(fx.head(), head);
    assert!(fx.worktree(&review.summary.id).exists());
    let after = engine
        .attempt_review(&review.summary.id)
        .await
        .expect("review");
    assert_eq!(after.summary.state, AttemptState::Review);
}

#[tokio::test]
async fn a_wrong_fix_fails_verification_with_switchyards_own_record() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let review = run(
        &fx,
        &engine,
        &fx.worker("wrong", "sed -i 's/-/*/' calc.sh\n"),
    )
    .await;
    assert_blocked(&fx, &engine, &review, GateName::Verification).await;
    let record = review.verification.as_ref().expect("record");
    assert!(!record.passed);
    assert_eq!(record.commands[0].exit_code, Some(1));
    assert!(record.commands[0].log_tail.contains("0 passed, 1 failed"));
    assert_eq!(record.commands[0].log_sha256.len(), 64);
    assert!(gate(&review, GateName::Verification)
        .detail
        .contains("sh test.sh"));
    engine.close().await;
}

#[tokio::test]
async fn a_worker_that_claims_its_tests_pass_is_not_believed() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let review = run(
        &fx,
        &engine,
        &fx.worker(
            "liar",
            "echo '# fixed' >> calc.sh\necho 'All 12 tests passed'\nexit 0\n",
        ),
    )
    .await;
    assert_blocked(&fx, &engine, &review, GateName::Verification).await;
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    assert!(log.iter().any(|e| matches!(&e.entry,
        AttemptLog::Worker { event: WorkerEvent::Raw { line } } if line.contains("All 12 tests passed"))));
    engine.close().await;
}

#[tokio::test]
async fn locked_paths_block_edits_renames_and_the_attempts_own_globs() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let ci = run(
        &fx,
        &engine,
        &fx.worker(
            "ci",
            &format!(
                "{FIX}mkdir -p .github/workflows\necho 'on: push' > .github/workflows/ci.yml\n"
            ),
        ),
    )
    .await;
    assert_blocked(&fx, &engine, &ci, GateName::LockedPaths).await;
    assert!(gate(&ci, GateName::LockedPaths)
        .detail
        .contains(".github/workflows/ci.yml"));

    let renamed = run(
        &fx,
        &engine,
        &fx.worker(
            "rename",
            &format!("{FIX}mkdir -p .ci\nmv README.md .ci/README.md\n"),
        ),
    )
    .await;
    assert_blocked(&fx, &engine, &renamed, GateName::LockedPaths).await;
    let evidence = &gate(&renamed, GateName::LockedPaths).evidence;
    assert!(
        evidence.iter().any(|f| f.path.contains(".ci/README.md")),
        "{evidence:?}"
    );

    let mut own = fx.request(&fx.worker("own", &format!("{FIX}echo x >> README.md\n")));
    own.lock = vec!["README.md".into()];
    let own = run_request(&engine, own).await;
    assert_blocked(&fx, &engine, &own, GateName::LockedPaths).await;
    assert!(gate(&own, GateName::Verification).passed);
    engine.close().await;
}

#[tokio::test]
async fn package_json_scripts_are_locked_but_dependencies_may_change() {
    let fx = Fixture::new();
    write(
        &fx.repo,
        "package.json",
        "{\n  \"name\": \"fixture\",\n  \"scripts\": {\n    \"test\": \"sh test.sh\"\n  },\n  \"dependencies\": {\n    \"left-pad\": \"1.0.0\"\n  }\n}\n",
    );
    git(&fx.repo, &["add", "-A"]);
    git(&fx.repo, &["commit", "--quiet", "-m", "package.json"]);
    let engine = fx.engine().await;
    let scripts = run(
        &fx,
        &engine,
        &fx.worker(
            "scripts",
            &format!("{FIX}sed -i 's/sh test.sh/true/' package.json\n"),
        ),
    )
    .await;
    assert_blocked(&fx, &engine, &scripts, GateName::LockedPaths).await;
    assert!(gate(&scripts, GateName::LockedPaths)
        .detail
        .contains("scripts"));

    let deps = run(
        &fx,
        &engine,
        &fx.worker(
            "deps",
            &format!("{FIX}sed -i 's/1.0.0/1.3.0/' package.json\n"),
        ),
    )
    .await;
    assert_eq!(deps.summary.state, AttemptState::Review);
    assert!(deps.gates.iter().all(|g| g.passed), "{:?}", deps.gates);
    assert!(deps.can_approve);
    engine.close().await;
}

#[tokio::test]
async fn a_symlink_out_of_the_worktree_is_an_escape() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let review = run(
        &fx,
        &engine,
        &fx.worker("escape", &format!("{FIX}ln -s /etc/passwd leak\n")),
    )
    .await;
    assert_blocked(&fx, &engine, &review, GateName::Escape).await;
    assert!(gate(&review, GateName::Escape).detail.contains("leak"));
    engine.close().await;
}

#[tokio::test]
async fn a_secret_in_an_added_line_is_blocked_without_printing_it() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let secret = "AKIAZ7QW3RT5YU2IOPLK";
    let review = run(
        &fx,
        &engine,
        &fx.worker(
            "secret",
            &format!("{FIX}printf 'x=1\\nkey = \"{secret}\"\\n' > config.txt\n"),
        ),
    )
    .await;
    assert_blocked(&fx, &engine, &review, GateName::Secrets).await;
    let secrets = gate(&review, GateName::Secrets);
    assert!(
        secrets
            .evidence
            .iter()
            .any(|f| f.path == "config.txt" && f.line == Some(2)),
        "{secrets:?}"
    );
    let stored = serde_json::to_string(&review.gates).expect("json");
    assert!(
        !stored.contains(secret),
        "the secret leaked into the gates: {stored}"
    );
    engine.close().await;
}

#[tokio::test]
async fn a_key_held_in_the_keychain_in_an_added_line_is_blocked() {
    if !keychain_present() {
        return;
    }
    let fx = Fixture::new();
    let engine = engine_with_own_keychain(&fx, "held").await;
    let key = "sk-or-v1-attemptgatetest0123456789abcdef";
    engine
        .set_key("openrouter", ProviderKey::parse(key).expect("key"))
        .await
        .expect("store key");
    let review = run(
        &fx,
        &engine,
        &fx.worker("held", &format!("{FIX}echo 'token={key}' > notes.txt\n")),
    )
    .await;
    let result = engine.delete_key("openrouter").await;
    assert_blocked(&fx, &engine, &review, GateName::Secrets).await;
    let secrets = gate(&review, GateName::Secrets);
    assert!(
        secrets
            .evidence
            .iter()
            .any(|f| f.path == "notes.txt" && f.rule.as_deref() == Some("keychain:openrouter")),
        "{secrets:?}"
    );
    // The diff shows the file as it is; the gates' evidence never repeats the key.
    assert!(!serde_json::to_string(&review.gates)
        .expect("json")
        .contains(key));
    result.expect("key deleted");
    engine.close().await;
}

#[tokio::test]
async fn a_worktree_changed_after_verification_cannot_be_approved() {
    let fx = Fixture::new();
    let base = fx.head();
    let engine = fx.engine().await;
    let review = run(&fx, &engine, &fx.worker("fix", FIX)).await;
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    write(
        &fx.worktree(&review.summary.id),
        "calc.sh",
        "add() { rm -rf /; }\n",
    );
    let error = engine
        .approve_attempt(&review.summary.id, "Fix add()", true)
        .await
        .expect_err("changed");
    assert_eq!(error.code(), ErrorCode::Changed, "{error}");
    assert_eq!(fx.head(), base);
    let after = engine
        .attempt_review(&review.summary.id)
        .await
        .expect("review");
    assert_eq!(after.summary.state, AttemptState::Review);
    assert_eq!(
        git(
            &fx.repo,
            &["rev-parse", &format!("switchyard/{}", review.summary.id)]
        ),
        base,
        "nothing was committed on the attempt's branch"
    );
    engine.close().await;
}

#[tokio::test]
async fn verification_that_leaves_files_behind_blocks_instead_of_changing_the_hash() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut request = fx.request(&fx.worker("fix", FIX));
    request.verify = Some(vec![
        "sh test.sh && mkdir -p build && echo out > build/artifact.o".into(),
    ]);
    let review = run_request(&engine, request).await;
    assert_blocked(&fx, &engine, &review, GateName::Verification).await;
    let verification = gate(&review, GateName::Verification);
    assert!(
        verification
            .evidence
            .iter()
            .any(|f| f.path == "build/artifact.o"),
        "{verification:?}"
    );
    assert!(
        review.verification.as_ref().is_some_and(|v| v.passed),
        "the commands passed"
    );
    engine.close().await;
}

#[tokio::test]
async fn bad_requests_are_refused_before_anything_is_recorded() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let not_a_repo = fx.root.path().join("plain");
    std::fs::create_dir_all(&not_a_repo).expect("dir");
    let cases = [
        switchyard_core::attempt::AttemptRequest {
            repo: not_a_repo.display().to_string(),
            ..fx.request("exec:true")
        },
        fx.request("cursor"),
        switchyard_core::attempt::AttemptRequest {
            task: "   ".into(),
            ..fx.request("exec:true")
        },
        switchyard_core::attempt::AttemptRequest {
            lock: vec!["[".into()],
            ..fx.request("exec:true")
        },
        switchyard_core::attempt::AttemptRequest {
            timeout_secs: Some(0),
            ..fx.request("exec:true")
        },
    ];
    for request in cases {
        let error = engine
            .start_attempt(request.clone(), "cli")
            .await
            .expect_err("refused");
        assert_eq!(
            error.code(),
            ErrorCode::InvalidInput,
            "{request:?}: {error}"
        );
    }
    assert!(engine.list_attempts().await.expect("list").is_empty());
    let probe = engine
        .detect_verification(&fx.repo_str())
        .await
        .expect("probe");
    assert_eq!(probe.branch.as_deref(), Some("main"));
    assert_eq!(probe.head, fx.head());
    assert!(probe.verify.is_empty(), "{:?}", probe.verify);
    write(&fx.repo, "Cargo.toml", "[package]\nname = \"x\"\n");
    let probe = engine
        .detect_verification(&fx.repo_str())
        .await
        .expect("probe");
    assert_eq!(probe.verify, ["cargo test"]);
    assert_eq!(probe.dirty, ["Cargo.toml"]);
    engine.close().await;
}
