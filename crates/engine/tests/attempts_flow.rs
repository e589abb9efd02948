//! Attempts end to end with real git and real `exec:` workers: an honest fix approved and
//! integrated, a merge conflict on integrate, request changes, and a compare of three.

mod attempts_support;

use attempts_support::{git, settle, write, Fixture, FIX};
use switchyard_core::attempt::{AttemptLog, AttemptState, ReviewDecision};
use switchyard_core::error::ErrorCode;
use switchyard_core::review::diff::FileStatus;
use switchyard_core::review::gates::GateName;

#[tokio::test]
async fn an_honest_fix_is_verified_approved_and_lands_as_exactly_one_commit() {
    let fx = Fixture::new();
    let base = fx.head();
    // The user's identity, as git resolves it for this repository.
    git(&fx.repo, &["config", "user.name", "Ada Reviewer"]);
    git(&fx.repo, &["config", "user.email", "ada@example.org"]);
    // The user's own uncommitted work: a modified tracked file and an untracked one.
    write(&fx.repo, "README.md", "# fixture\nlocal notes\n");
    write(&fx.repo, "scratch.txt", "mine\n");
    let engine = fx.engine().await;
    let started = engine
        .start_attempt(fx.request(&fx.worker("fix", FIX)), "cli")
        .await
        .expect("start");
    assert_eq!(started.base, base);
    assert_eq!(started.target_branch.as_deref(), Some("main"));
    let review = settle(&engine, &started.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    let diff = review.diff.as_ref().expect("diff");
    assert_eq!(
        diff.files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["calc.sh"]
    );
    assert_eq!((diff.additions, diff.deletions), (1, 1));
    let names: Vec<GateName> = review.gates.iter().map(|g| g.name).collect();
    assert_eq!(
        names,
        [
            GateName::LockedPaths,
            GateName::Escape,
            GateName::Secrets,
            GateName::Size,
            GateName::Repository,
            GateName::Verification
        ]
    );
    assert!(review.gates.iter().all(|g| g.passed), "{:?}", review.gates);
    let verification = review.verification.as_ref().expect("verification");
    assert!(verification.passed);
    assert_eq!(verification.commands[0].exit_code, Some(0));
    // The log holds the worker's output and the path through the states, numbered from 1.
    let log = engine.attempt_log(&started.id, 0).await.expect("log");
    assert_eq!(log[0].seq, 1);
    assert!(log.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    let states: Vec<AttemptState> = log
        .iter()
        .filter_map(|e| match &e.entry {
            AttemptLog::State { state, .. } => Some(*state),
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        [
            AttemptState::Queued,
            AttemptState::Preparing,
            AttemptState::Running,
            AttemptState::Verifying,
            AttemptState::Review
        ]
    );
    assert!(log.iter().any(|e| matches!(&e.entry,
        AttemptLog::Worker { event: switchyard_core::worker::WorkerEvent::Raw { line } } if line == "fixed add")));
    let tail = engine
        .attempt_log(&started.id, log[2].seq)
        .await
        .expect("tail");
    assert_eq!(tail.len(), log.len() - 3);

    let approved = engine
        .approve_attempt(&started.id, "Fix add()", true)
        .await
        .expect("approve");
    assert_eq!(approved.summary.state, AttemptState::Integrated);
    let integration = approved.integration.expect("integration");
    assert!(integration.fast_forward);
    assert_eq!(integration.old, base);
    let head = fx.head();
    assert_eq!(integration.new, head);
    assert_eq!(git(&fx.repo, &["rev-parse", "HEAD^"]), base);
    assert_eq!(git(&fx.repo, &["log", "-1", "--format=%s"]), "Fix add()");
    // The user is the author and committer; trailers say where the change came from.
    assert_eq!(
        git(&fx.repo, &["log", "-1", "--format=%an <%ae>|%cn <%ce>"]),
        "Ada Reviewer <ada@example.org>|Ada Reviewer <ada@example.org>"
    );
    let trailers = git(&fx.repo, &["log", "-1", "--format=%(trailers:only,unfold)"]);
    let verified = diff.sha256.clone();
    assert!(
        trailers.contains(&format!("Switchyard-Attempt: {}", started.id))
            && trailers.contains("Switchyard-Worker: exec:")
            && trailers.contains(&format!("Switchyard-Diff-SHA256: {verified}")),
        "{trailers}"
    );
    assert_eq!(
        git(&fx.repo, &["diff", "--name-only", &base, &head]),
        "calc.sh"
    );
    assert!(matches!(
        approved.decision,
        Some(ReviewDecision::Approved { commit: Some(ref c), .. }) if *c == head
    ));
    // The user's working tree: the fix arrived, their own changes are as they were.
    assert!(std::fs::read_to_string(fx.repo.join("calc.sh"))
        .expect("calc")
        .contains("$1 + $2"));
    assert_eq!(
        std::fs::read_to_string(fx.repo.join("README.md")).expect("readme"),
        "# fixture\nlocal notes\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.repo.join("scratch.txt")).expect("scratch"),
        "mine\n"
    );
    // The worktree and its branch are gone; nothing was pushed (there is no remote at all).
    assert!(!fx.worktree(&started.id).exists());
    assert!(fx.attempt_branches().is_empty());
    assert_eq!(git(&fx.repo, &["remote"]), "");
    let listed = engine.list_attempts().await.expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, AttemptState::Integrated);
    engine.close().await;
}

#[tokio::test]
async fn a_conflicting_integration_is_reported_and_changes_nothing() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let started = engine
        .start_attempt(fx.request(&fx.worker("fix", FIX)), "cli")
        .await
        .expect("start");
    let review = settle(&engine, &started.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    // Meanwhile the user commits a different change to the same line.
    write(&fx.repo, "calc.sh", "add() { echo $(($1 * $2)); }\n");
    git(&fx.repo, &["commit", "--quiet", "-am", "mine"]);
    let moved = fx.head();
    let error = engine
        .approve_attempt(&started.id, "Fix add()", true)
        .await
        .expect_err("conflict");
    assert_eq!(error.code(), ErrorCode::Conflict, "{error}");
    assert!(error.to_string().contains("calc.sh"), "{error}");
    assert_eq!(fx.head(), moved);
    assert_eq!(git(&fx.repo, &["status", "--porcelain"]), "");
    let after = engine.attempt_review(&started.id).await.expect("review");
    assert_eq!(after.summary.state, AttemptState::Approved);
    assert!(fx.worktree(&started.id).exists(), "kept for a retry");
    // Rejecting it now removes the worktree and its branch.
    let rejected = engine
        .reject_attempt(&started.id, "conflicts with my change")
        .await
        .expect("reject");
    assert_eq!(rejected.summary.state, AttemptState::Rejected);
    assert!(!fx.worktree(&started.id).exists());
    assert!(fx.attempt_branches().is_empty());
    engine.close().await;
}

#[tokio::test]
async fn request_changes_continues_in_the_same_worktree_with_the_comments() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // First pass: the fix, plus a stray file. Second pass (the prompt now carries the
    // comments): removes the stray file and records what it was told.
    let seen = fx.probe("prompt-seen.txt");
    let worker = fx.worker(
        "revise",
        &format!(
            "if grep -q 'Review comments' ; then rm -f stray.txt; printf '%s' \"$SWITCHYARD_TASK\" > {}; else {FIX} echo x > stray.txt; fi\n",
            seen.display()
        ),
    );
    let first = engine
        .start_attempt(fx.request(&worker), "cli")
        .await
        .expect("start");
    let review = settle(&engine, &first.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert_eq!(review.diff.as_ref().map(|d| d.files.len()), Some(2));
    let lines = vec![switchyard_core::attempt::LineComment {
        path: "stray.txt".into(),
        line: 1,
        text: "delete this file".into(),
    }];
    let second = engine
        .request_changes(&first.id, "Only touch calc.sh", lines)
        .await
        .expect("request changes");
    assert_eq!(second.parent.as_deref(), Some(first.id.as_str()));
    let old = engine.attempt_review(&first.id).await.expect("old");
    assert_eq!(old.summary.state, AttemptState::Superseded);
    assert!(
        matches!(old.decision, Some(ReviewDecision::ChangesRequested { ref next_attempt, .. }) if *next_attempt == second.id)
    );
    let revised = settle(&engine, &second.id).await;
    assert_eq!(revised.summary.state, AttemptState::Review, "{revised:?}");
    let files: Vec<String> = revised
        .diff
        .as_ref()
        .expect("diff")
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(files, ["calc.sh"], "the diff is still against the base");
    let since = revised
        .previous
        .as_ref()
        .expect("diff against the previous attempt");
    let since: Vec<(String, FileStatus)> = since
        .files
        .iter()
        .map(|f| (f.path.clone(), f.status))
        .collect();
    assert_eq!(since, [("stray.txt".to_owned(), FileStatus::Deleted)]);
    let seen = std::fs::read_to_string(&seen).expect("prompt");
    assert!(
        seen.contains("Only touch calc.sh") && seen.contains("stray.txt:1: delete this file"),
        "{seen}"
    );
    // One worktree, the first attempt's, serves both.
    assert!(fx.worktree(&first.id).exists());
    assert!(!fx.worktree(&second.id).exists());
    let approved = engine
        .approve_attempt(&second.id, "Fix add()", true)
        .await
        .expect("approve");
    assert_eq!(approved.summary.state, AttemptState::Integrated);
    assert!(!fx.worktree(&first.id).exists());
    assert!(fx.attempt_branches().is_empty());
    engine.close().await;
}

#[tokio::test]
async fn a_revision_is_shown_against_the_base_and_against_the_previous_attempt() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // First pass: the fix. Second pass: keeps the fix and adds a note, nothing else.
    let worker = fx.worker(
        "revise-note",
        &format!("if grep -q 'Review comments' ; then printf 'why\\n' > NOTES.md; else {FIX} fi\n"),
    );
    let first = engine
        .start_attempt(fx.request(&worker), "cli")
        .await
        .expect("start");
    let review = settle(&engine, &first.id).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert!(review.previous.is_none(), "a first attempt has no previous");
    let base_commit = review.diff.as_ref().expect("diff").base.clone();
    let second = engine
        .request_changes(&first.id, "Explain the fix in NOTES.md", Vec::new())
        .await
        .expect("request changes");
    let revised = settle(&engine, &second.id).await;
    assert_eq!(revised.summary.state, AttemptState::Review, "{revised:?}");
    let paths = |diff: &switchyard_core::review::diff::CapturedDiff| -> Vec<String> {
        diff.files.iter().map(|f| f.path.clone()).collect()
    };
    let against_base = revised.diff.as_ref().expect("diff");
    assert_eq!(paths(against_base), ["NOTES.md", "calc.sh"]);
    let since = revised.previous.as_ref().expect("previous");
    assert_eq!(paths(since), ["NOTES.md"], "only what the revision changed");
    assert_eq!(since.files[0].status, FileStatus::Added);
    assert_eq!((since.additions, since.deletions), (1, 0));
    assert_ne!(
        since.base, base_commit,
        "measured from the first attempt's tree"
    );
    // The same view survives a reload (read from what was recorded, not recomputed).
    let again = engine.attempt_review(&second.id).await.expect("review");
    assert_eq!(again.previous.as_ref(), Some(since));
    engine.close().await;
}

#[tokio::test]
async fn a_compare_of_three_workers_picks_one_and_discards_the_others() {
    let fx = Fixture::new();
    let base = fx.head();
    let engine = fx.engine().await;
    let workers = vec![
        fx.worker("honest", FIX),
        fx.worker("noop", "echo 'I changed nothing but all tests pass'\n"),
        fx.worker("other", &format!("{FIX}echo more >> README.md\n")),
    ];
    // A group smaller or larger than the bindings' COMPARE_WORKERS is refused before anything
    // starts.
    for size in [1, 6] {
        let refused = engine
            .start_compare(fx.request("ignored"), vec![workers[0].clone(); size], "cli")
            .await
            .expect_err("out of range");
        assert_eq!(refused.code(), ErrorCode::InvalidInput, "{size}: {refused}");
    }
    let group = engine
        .start_compare(fx.request("ignored"), workers.clone(), "cli")
        .await
        .expect("compare");
    assert_eq!(group.attempts.len(), 3);
    for (attempt, worker) in group.attempts.iter().zip(&workers) {
        assert_eq!(&attempt.worker, worker);
        assert_eq!(attempt.base, base);
        assert_eq!(attempt.compare.as_deref(), Some(group.id.as_str()));
    }
    let mut reviews = Vec::new();
    for attempt in &group.attempts {
        reviews.push(settle(&engine, &attempt.id).await);
    }
    assert!(reviews
        .iter()
        .all(|r| r.summary.state == AttemptState::Review));
    assert!(reviews[0].can_approve);
    assert!(
        !reviews[1].can_approve,
        "verification fails without the fix"
    );
    assert_eq!(reviews[2].diff.as_ref().map(|d| d.files.len()), Some(2));
    let winner = &group.attempts[2].id;
    let picked = engine
        .pick_attempt(&group.id, winner, "Fix add() and note it")
        .await
        .expect("pick");
    assert_eq!(picked.summary.state, AttemptState::Integrated);
    assert_eq!(git(&fx.repo, &["rev-parse", "HEAD^"]), base);
    for loser in [&group.attempts[0].id, &group.attempts[1].id] {
        let review = engine.attempt_review(loser).await.expect("loser");
        assert_eq!(review.summary.state, AttemptState::Rejected);
        assert!(
            matches!(review.decision, Some(ReviewDecision::Rejected { ref reason }) if reason == "another attempt was picked")
        );
        assert!(!fx.worktree(loser).exists());
    }
    assert!(fx.attempt_branches().is_empty());
    engine.close().await;
}
