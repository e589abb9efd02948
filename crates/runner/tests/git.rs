//! Attempt worktrees, capture, commit, integrate and sweep against real fixture repositories.

mod support;

use std::time::Duration;

use support::{chmod_x, git, snapshot, symlink, write, Fixture};
use switchyard_core::review::diff::FileStatus;
use switchyard_runner::git::{
    integrate, orphans, sweep, sweep_keeping, Git, GitError, Identity, IntegrationKind, Repo,
    RepoLock, Worktree,
};

const RENAMED_BODY: &str = "line one\nline two\nline three\nline four\nline five\n";

fn base_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("a.txt", "alpha\n"),
        ("del.txt", "to be deleted\n"),
        ("old.txt", RENAMED_BODY),
        ("script.sh", "#!/bin/sh\necho hi\n"),
        ("kind.txt", "becomes a symlink\n"),
        ("bin.dat", "\0\x01\x02binary\0"),
        ("notes.txt", "user notes\n"),
    ]
}

async fn attempt(fx: &Fixture, id: &str) -> (Repo, Worktree) {
    let repo = fx.open().await;
    let base = repo.resolve_base().await.expect("base");
    let wt = Worktree::create(&repo, &base.commit, &fx.data, id)
        .await
        .expect("worktree");
    (repo, wt)
}

fn status_of(capture: &switchyard_runner::git::Capture, path: &str) -> FileStatus {
    capture
        .diff
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} not in the diff"))
        .status
}

#[tokio::test]
async fn attempt_lifecycle_captures_every_kind_of_change_and_fast_forwards() {
    let fx = Fixture::new(&base_files());
    let (repo, wt) = attempt(&fx, "a1").await;
    assert!(wt
        .path()
        .starts_with(std::fs::canonicalize(&fx.data).expect("data")));
    assert!(!wt.path().starts_with(repo.toplevel()));
    assert_eq!(
        git(wt.path(), &["branch", "--show-current"]),
        "switchyard/a1"
    );

    let w = wt.path();
    write(&w.join("a.txt"), "alpha\nbeta\n");
    write(&w.join("new dir/new file.txt"), "brand new\n");
    std::fs::remove_file(w.join("del.txt")).expect("rm");
    std::fs::rename(w.join("old.txt"), w.join("renamed.txt")).expect("mv");
    chmod_x(&w.join("script.sh"));
    symlink("a.txt", &w.join("link"));
    std::fs::remove_file(w.join("kind.txt")).expect("rm");
    symlink("a.txt", &w.join("kind.txt"));
    write(&w.join("bin.dat"), b"\0\x01\x02binary changed\0");
    write(&w.join("image.png"), [0x89u8, b'P', b'N', b'G', 0, 0, 1, 2]);
    write(&w.join("tab\there \"q\" é.txt"), "odd name\n");

    let capture = wt.capture().await.expect("captures");
    assert_eq!(status_of(&capture, "a.txt"), FileStatus::Modified);
    assert_eq!(
        status_of(&capture, "new dir/new file.txt"),
        FileStatus::Added
    );
    assert_eq!(status_of(&capture, "del.txt"), FileStatus::Deleted);
    assert_eq!(status_of(&capture, "renamed.txt"), FileStatus::Renamed);
    assert_eq!(status_of(&capture, "script.sh"), FileStatus::Modified);
    assert_eq!(status_of(&capture, "link"), FileStatus::Added);
    assert_eq!(status_of(&capture, "kind.txt"), FileStatus::TypeChanged);
    assert_eq!(status_of(&capture, "bin.dat"), FileStatus::Modified);
    assert_eq!(
        status_of(&capture, "tab\there \"q\" é.txt"),
        FileStatus::Added
    );
    let by = |p: &str| {
        capture
            .diff
            .files
            .iter()
            .find(|f| f.path == p)
            .expect("file")
    };
    assert_eq!(by("renamed.txt").old_path.as_deref(), Some("old.txt"));
    assert_eq!(by("script.sh").old_mode.as_deref(), Some("100644"));
    assert_eq!(by("script.sh").new_mode.as_deref(), Some("100755"));
    assert!(by("link").is_symlink);
    assert_eq!(by("link").symlink_target.as_deref(), Some("a.txt"));
    assert_eq!(by("kind.txt").symlink_target.as_deref(), Some("a.txt"));
    assert!(by("bin.dat").is_binary);
    assert!(by("image.png").is_binary);
    assert_eq!((by("a.txt").additions, by("a.txt").deletions), (1, 0));
    assert!(!capture.diff.files.iter().any(|f| f.path == "notes.txt"));
    assert_eq!(capture.diff.sha256.len(), 64);

    let again = wt.capture().await.expect("captures again");
    assert_eq!(
        again.diff.sha256, capture.diff.sha256,
        "same tree, same hash"
    );
    write(&w.join("a.txt"), "alpha\nbetA\n");
    let changed = wt.capture().await.expect("captures");
    assert_ne!(
        changed.diff.sha256, capture.diff.sha256,
        "one byte, new hash"
    );
    write(&w.join("a.txt"), "alpha\nbeta\n");
    let restored = wt.capture().await.expect("captures");
    assert_eq!(restored.diff.sha256, capture.diff.sha256);

    let commit = wt
        .commit("Add beta", &Identity::default(), Some(&capture.diff.sha256))
        .await
        .expect("commits");
    assert_eq!(git(w, &["rev-parse", "HEAD"]), commit);
    assert_eq!(
        git(w, &["log", "-1", "--format=%an <%ae>|%s"]),
        "Switchyard <switchyard@localhost>|Add beta"
    );

    let before = fx.head("main");
    let done = integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect("integrates");
    assert_eq!(done.kind, IntegrationKind::FastForward);
    assert_eq!(
        (done.old.as_str(), done.new.as_str()),
        (before.as_str(), commit.as_str())
    );
    assert_eq!(fx.head("main"), commit);
    assert_eq!(done.updated_worktree.as_deref(), Some(repo.toplevel()));
    assert_eq!(
        std::fs::read_to_string(fx.repo.join("a.txt")).expect("read"),
        "alpha\nbeta\n"
    );
    assert!(!fx.repo.join("del.txt").exists());
    assert_eq!(
        git(&fx.repo, &["status", "--porcelain"]),
        "",
        "user's tree follows cleanly"
    );
    assert!(git(&fx.repo, &["remote"]).is_empty(), "no remote is added");

    let again = integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect("idempotent");
    assert_eq!(again.kind, IntegrationKind::AlreadyIntegrated);

    let path = wt.path().to_path_buf();
    wt.remove().await.expect("removes");
    assert!(!path.exists());
    assert_eq!(git(&fx.repo, &["branch", "--list", "switchyard/*"]), "");
    assert_eq!(git(&fx.repo, &["worktree", "list"]).lines().count(), 1);
}

#[tokio::test]
async fn a_worker_clis_repository_map_cache_is_never_part_of_the_change() {
    let fx = Fixture::new(&base_files());
    let (_repo, wt) = attempt(&fx, "aider").await;
    // What Aider leaves at the root of the repository it works in.
    write(
        &wt.path().join(".aider.tags.cache.v4").join("cache.db"),
        "sqlite",
    );
    write(&wt.path().join("a.txt"), "alpha\nfixed\n");
    // A file of the user's own with a similar name is still a change.
    write(&wt.path().join(".aider.conf.yml"), "model: x\n");
    let capture = wt.capture().await.expect("captures");
    let paths: Vec<&str> = capture.diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, [".aider.conf.yml", "a.txt"]);
}

#[tokio::test]
async fn files_over_two_megabytes_are_listed_with_their_size_and_no_content() {
    let fx = Fixture::new(&base_files());
    let (_repo, wt) = attempt(&fx, "big").await;
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    let body = line.repeat(40_000);
    write(&wt.path().join("big.txt"), &body);
    write(&wt.path().join("a.txt"), "alpha\nsmall\n");
    let capture = wt.capture().await.expect("captures");
    let big = capture
        .diff
        .files
        .iter()
        .find(|f| f.path == "big.txt")
        .expect("listed");
    assert_eq!(big.size, body.len() as u64);
    assert!(big.size > 2 * 1024 * 1024);
    assert!(big.content_omitted && big.hunks.is_empty());
    assert_eq!(big.additions, 40_000);
    let small = capture
        .diff
        .files
        .iter()
        .find(|f| f.path == "a.txt")
        .expect("listed");
    assert!(!small.content_omitted && !small.hunks.is_empty());
    assert_eq!(capture.diff.patch_bytes, capture.patch.bytes().len() as u64);
}

#[tokio::test]
async fn hash_ignores_diff_and_color_config_in_the_users_repository() {
    let fx = Fixture::new(&base_files());
    write(&fx.repo.join("blank.txt"), "one\n\nthree\n");
    fx.user_commit("a file with an empty line for context");
    let (_repo, wt) = attempt(&fx, "cfg").await;
    let w = wt.path();
    write(&w.join("blank.txt"), "one\n\n3\n");
    write(&w.join("a.txt"), "alpha\n\nbeta\n");
    std::fs::rename(w.join("old.txt"), w.join("moved.txt")).expect("mv");
    write(&w.join("ünïcode name.txt"), "x\n");
    write(&w.join("bin.dat"), vec![7u8; 4096]);
    let plain = wt.capture().await.expect("captures").diff.sha256;
    for (key, value) in [
        ("diff.mnemonicPrefix", "true"),
        ("diff.noprefix", "true"),
        ("color.ui", "always"),
        ("color.diff", "always"),
        ("diff.algorithm", "patience"),
        ("diff.context", "10"),
        ("diff.interHunkContext", "5"),
        ("diff.renames", "false"),
        ("diff.suppressBlankEmpty", "true"),
        ("diff.external", "/bin/false"),
        ("diff.relative", "true"),
        ("core.quotePath", "false"),
        ("core.compression", "9"),
        ("diff.indentHeuristic", "false"),
    ] {
        git(&fx.repo, &["config", key, value]);
    }
    let configured = wt.capture().await.expect("captures with config");
    assert_eq!(configured.diff.sha256, plain);
    assert!(configured
        .diff
        .files
        .iter()
        .any(|f| f.status == FileStatus::Renamed));
}

#[tokio::test]
async fn clean_merge_when_the_target_moved_keeps_the_users_unrelated_change() {
    let fx = Fixture::new(&base_files());
    let (repo, wt) = attempt(&fx, "m1").await;
    write(&wt.path().join("a.txt"), "alpha from the worker\n");
    let commit = wt
        .commit("Worker change", &Identity::default(), None)
        .await
        .expect("commits");

    write(&fx.repo.join("user.txt"), "user's committed file\n");
    let moved = fx.user_commit("User moves main");
    write(
        &fx.repo.join("notes.txt"),
        "user notes, edited but not committed\n",
    );
    write(&fx.repo.join("scratch.txt"), "untracked\n");

    let done = integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect("merges");
    assert_eq!(done.kind, IntegrationKind::Merged);
    assert_eq!(done.old, moved);
    assert_eq!(
        git(
            &fx.repo,
            &["rev-list", "--count", &format!("{moved}..main")]
        ),
        "1"
    );
    assert_eq!(git(&fx.repo, &["rev-parse", "main^"]), moved);
    assert_eq!(
        git(&fx.repo, &["log", "-1", "--format=%s", "main"]),
        "Worker change"
    );
    let tree_file = |p: &str| git(&fx.repo, &["show", &format!("main:{p}")]);
    assert_eq!(tree_file("a.txt"), "alpha from the worker");
    assert_eq!(tree_file("user.txt"), "user's committed file");
    assert_eq!(
        std::fs::read_to_string(fx.repo.join("a.txt")).expect("read"),
        "alpha from the worker\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.repo.join("notes.txt")).expect("read"),
        "user notes, edited but not committed\n"
    );
    assert!(fx.repo.join("scratch.txt").exists());
    let status = git(&fx.repo, &["status", "--porcelain"]);
    assert_eq!(status, "M notes.txt\n?? scratch.txt");
}

#[tokio::test]
async fn merge_conflict_leaves_the_branch_and_the_users_tree_byte_identical() {
    let fx = Fixture::new(&base_files());
    let (repo, wt) = attempt(&fx, "c1").await;
    write(&wt.path().join("a.txt"), "the worker's alpha\n");
    let commit = wt
        .commit("Worker edit", &Identity::default(), None)
        .await
        .expect("commits");
    write(&fx.repo.join("a.txt"), "the user's alpha\n");
    let moved = fx.user_commit("User edit");
    write(&fx.repo.join("notes.txt"), "uncommitted\n");

    let before = snapshot(&fx.repo);
    let err = integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect_err("conflicts");
    match err {
        GitError::Conflict { branch, files } => {
            assert_eq!(branch, "main");
            assert_eq!(files, vec!["a.txt".to_owned()]);
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(fx.head("main"), moved);
    assert!(before == snapshot(&fx.repo), "user's repository changed");
}

#[tokio::test]
async fn uncommitted_change_to_a_file_the_commit_changes_is_refused_untouched() {
    let fx = Fixture::new(&base_files());
    let (repo, wt) = attempt(&fx, "d1").await;
    write(&wt.path().join("a.txt"), "worker\n");
    let commit = wt
        .commit("Worker edit", &Identity::default(), None)
        .await
        .expect("commits");
    write(&fx.repo.join("a.txt"), "user's uncommitted edit\n");
    let main = fx.head("main");
    let before = snapshot(&fx.repo);
    let err = integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect_err("refuses");
    assert!(
        matches!(&err, GitError::Dirty { files, .. } if files == &["a.txt".to_owned()]),
        "{err:?}"
    );
    assert_eq!(fx.head("main"), main);
    assert!(before == snapshot(&fx.repo), "user's repository changed");
}

#[tokio::test]
async fn commit_refuses_when_the_worktree_changed_since_the_verified_hash() {
    let fx = Fixture::new(&base_files());
    let (_repo, wt) = attempt(&fx, "h1").await;
    write(&wt.path().join("a.txt"), "verified\n");
    let verified = wt.capture().await.expect("captures").diff.sha256;
    write(&wt.path().join("a.txt"), "tampered after verification\n");
    let err = wt
        .commit("x", &Identity::default(), Some(&verified))
        .await
        .expect_err("refuses");
    assert!(matches!(err, GitError::Changed { .. }), "{err:?}");
    assert_eq!(git(wt.path(), &["rev-parse", "HEAD"]), wt.base());
}

#[tokio::test]
async fn hooks_never_run_for_switchyards_git_operations() {
    let fx = Fixture::new(&base_files());
    let marker = fx.root.path().join("hook-ran");
    let hook = format!("#!/bin/sh\necho \"$0\" >> '{}'\n", marker.display());
    let hooks_dir = fx.root.path().join("hooks");
    for name in [
        "pre-commit",
        "post-commit",
        "post-checkout",
        "reference-transaction",
        "post-index-change",
        "post-merge",
        "pre-auto-gc",
    ] {
        for dir in [fx.repo.join(".git/hooks"), hooks_dir.clone()] {
            write(&dir.join(name), &hook);
            chmod_x(&dir.join(name));
        }
    }
    git(
        &fx.repo,
        &["config", "core.hooksPath", &hooks_dir.display().to_string()],
    );
    let (repo, wt) = attempt(&fx, "hk").await;
    write(&wt.path().join("a.txt"), "hooked?\n");
    wt.capture().await.expect("captures");
    let commit = wt
        .commit("No hooks", &Identity::default(), None)
        .await
        .expect("commits");
    write(&fx.repo.join("user.txt"), "moves main\n");
    git(&fx.repo, &["-c", "core.hooksPath=/dev/null", "add", "-A"]);
    git(
        &fx.repo,
        &[
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "-m",
            "user",
        ],
    );
    integrate(&repo, &fx.data, "main", &commit, &Identity::default())
        .await
        .expect("integrates");
    wt.remove().await.expect("removes");
    assert!(
        !marker.exists(),
        "a hook ran: {:?}",
        std::fs::read_to_string(&marker)
    );
}

#[tokio::test]
async fn orphan_sweep_removes_worktrees_and_branches_without_a_live_attempt() {
    let fx = Fixture::new(&base_files());
    let repo = fx.open().await;
    let base = repo.resolve_base().await.expect("base").commit;
    for id in ["o1", "o2", "o3"] {
        Worktree::create(&repo, &base, &fx.data, id)
            .await
            .expect("worktree");
    }
    git(&fx.repo, &["branch", "switchyard/zombie"]);
    let found = orphans(&fx.data, &repo, &["o2"]).await.expect("lists");
    assert_eq!(found.worktrees, ["o1", "o3"]);
    assert_eq!(found.branches, ["o1", "o3", "zombie"]);

    // A worktree whose registration was lost is still found by its directory.
    std::fs::remove_dir_all(fx.repo.join(".git/worktrees/o3")).expect("unregister");
    let swept = sweep(&fx.data, &repo, &["o2"]).await.expect("sweeps");
    assert_eq!(swept.attempts().len(), 3);
    let left = orphans(&fx.data, &repo, &["o2"]).await.expect("lists");
    assert!(left.is_empty(), "{left:?}");
    assert!(fx.data.join("worktrees/o2").exists());
    assert!(!fx.data.join("worktrees/o1").exists());
    assert!(!fx.data.join("worktrees/o3").exists());
    assert_eq!(
        git(
            &fx.repo,
            &[
                "for-each-ref",
                "--format=%(refname:short)",
                "refs/heads/switchyard/"
            ]
        ),
        "switchyard/o2"
    );
    let everything = orphans(&fx.data, &repo, &[]).await.expect("lists");
    assert_eq!(everything.worktrees, ["o2"]);
}

#[tokio::test]
async fn a_sweep_reads_what_to_keep_under_the_repository_lock() {
    let fx = Fixture::new(&base_files());
    let repo = fx.open().await;
    let base = repo.resolve_base().await.expect("base").commit;
    for id in ["k1", "k2"] {
        Worktree::create(&repo, &base, &fx.data, id)
            .await
            .expect("worktree");
    }
    let swept = sweep_keeping(&fx.data, &repo, || async {
        // Nobody can create a worktree (or take the lock) while the list is read.
        let busy = RepoLock::acquire(&fx.data, &repo, Duration::from_millis(50)).await;
        assert!(matches!(busy, Err(GitError::Busy { .. })), "{busy:?}");
        Some(vec!["k2".to_owned()])
    })
    .await
    .expect("sweeps");
    assert_eq!(swept.worktrees, ["k1"]);
    assert!(fx.data.join("worktrees/k2").exists());
    // A keep list that cannot be read removes nothing.
    let none = sweep_keeping(&fx.data, &repo, || async { None })
        .await
        .expect("sweeps");
    assert!(none.is_empty(), "{none:?}");
    assert!(fx.data.join("worktrees/k2").exists());
}

#[tokio::test]
async fn the_repository_lock_is_exclusive_until_dropped() {
    let fx = Fixture::new(&base_files());
    let repo = fx.open().await;
    let held = RepoLock::acquire(&fx.data, &repo, Duration::from_millis(10))
        .await
        .expect("locks");
    let err = RepoLock::acquire(&fx.data, &repo, Duration::from_millis(100))
        .await
        .expect_err("busy");
    assert!(matches!(err, GitError::Busy { .. }), "{err:?}");
    drop(held);
    RepoLock::acquire(&fx.data, &repo, Duration::from_millis(10))
        .await
        .expect("free again");
    // The same repository opened through a subdirectory shares the lock.
    std::fs::create_dir_all(fx.repo.join("sub")).expect("mkdir");
    let via_sub = Repo::open(&Git::new(), &fx.repo.join("sub"))
        .await
        .expect("opens");
    assert_eq!(
        RepoLock::path_for(&fx.data, &via_sub),
        RepoLock::path_for(&fx.data, &repo)
    );
}

#[tokio::test]
async fn base_is_the_branch_head_and_a_dirty_tree_is_reported_not_included() {
    let fx = Fixture::new(&base_files());
    let repo = fx.open().await;
    let clean = repo.resolve_base().await.expect("base");
    assert_eq!(clean.commit, fx.head("HEAD"));
    assert_eq!(clean.branch.as_deref(), Some("main"));
    assert!(!clean.dirty);
    write(&fx.repo.join("notes.txt"), "dirty\n");
    write(&fx.repo.join("untracked.txt"), "new\n");
    let dirty = repo.resolve_base().await.expect("base");
    assert!(dirty.dirty);
    assert_eq!(dirty.dirty_files, ["notes.txt", "untracked.txt"]);
    assert_eq!(dirty.commit, clean.commit);
    let wt = Worktree::create(&repo, &dirty.commit, &fx.data, "dirty")
        .await
        .expect("worktree");
    let capture = wt.capture().await.expect("captures");
    assert!(
        capture.diff.files.is_empty(),
        "the user's dirty files are not included"
    );
    assert!(!wt.path().join("untracked.txt").exists());
}

#[tokio::test]
async fn refusals_name_the_problem() {
    let fx = Fixture::new(&base_files());
    let plain = tempfile::tempdir().expect("tempdir");
    let err = Repo::open(&Git::new(), plain.path())
        .await
        .expect_err("not a repo");
    assert!(matches!(err, GitError::NotARepo { .. }), "{err:?}");
    let repo = fx.open().await;
    let base = fx.head("HEAD");
    let inside = Worktree::create(&repo, &base, &fx.repo.join("data"), "x").await;
    assert!(
        matches!(inside, Err(GitError::InsideRepo { .. })),
        "{inside:?}"
    );
    let missing = Worktree::create(&repo, &"1".repeat(40), &fx.data, "x").await;
    assert!(
        matches!(missing, Err(GitError::BaseMissing { .. })),
        "{missing:?}"
    );
    let bad_id = Worktree::create(&repo, &base, &fx.data, "../escape").await;
    assert!(
        matches!(bad_id, Err(GitError::InvalidAttemptId { .. })),
        "{bad_id:?}"
    );
    Worktree::create(&repo, &base, &fx.data, "twice")
        .await
        .expect("first");
    let twice = Worktree::create(&repo, &base, &fx.data, "twice").await;
    assert!(
        matches!(twice, Err(GitError::WorktreeExists { .. })),
        "{twice:?}"
    );
    let no_branch = integrate(&repo, &fx.data, "nope", &base, &Identity::default()).await;
    assert!(
        matches!(no_branch, Err(GitError::BranchMissing { .. })),
        "{no_branch:?}"
    );
}

#[tokio::test]
async fn a_git_that_hangs_is_killed_at_the_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("git");
    let pid_file = dir.path().join("child.pid");
    write(
        &fake,
        format!(
            "#!/bin/sh\nsleep 30 &\necho $! > '{}'\nwait\n",
            pid_file.display()
        ),
    );
    chmod_x(&fake);
    let git = Git::new()
        .with_program(&fake)
        .with_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = Repo::open(&git, dir.path()).await.expect_err("times out");
    assert!(matches!(err, GitError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let child = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .to_owned();
    let proc_dir = std::path::Path::new("/proc").join(&child);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    // Killed, then reaped by init; a zombie entry may linger briefly.
    while proc_dir.exists() && std::time::Instant::now() < deadline {
        let stat = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
        if stat.split(' ').nth(2) == Some("Z") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let stat = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
    assert!(
        stat.is_empty() || stat.split(' ').nth(2) == Some("Z"),
        "git's child {child} outlived the timeout: {stat}"
    );
}
