//! Per-attempt overhead on a generated 10,000-file repository: Switchyard's worktree create +
//! the repository snapshot (before the worker) and its two comparisons (after the worker, after
//! verification) + capture (diff + hash) + all gates + remove, against the same git commands
//! run back to back by hand. The simulated worker edit between create and capture is not timed
//! in either.
//!
//! `cargo bench -p switchyard-runner --bench attempt_overhead` (set `ATTEMPT_BENCH_FILES` or
//! `ATTEMPT_BENCH_ROUNDS` to change the size or the number of rounds). Prints medians and the
//! ratio; the target is at most 1.5×.
// The baseline is the same git commands run by hand.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use switchyard_core::review::gates::{GatePolicy, LockedPaths, SizeLimits};
use switchyard_runner::git::{Git, Repo, RepoSnapshot, Worktree};

fn git(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Vec<u8> {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn generate(repo: &Path, files: usize) {
    std::fs::create_dir_all(repo).expect("mkdir");
    git(repo, &["init", "-q", "-b", "main"], &[]);
    for i in 0..files {
        let dir = repo.join(format!("src/m{:03}", i / 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let body: String = (0..8)
            .map(|l| format!("pub fn f{i}_{l}(x: u64) -> u64 {{ x * {l} + {i} }}\n"))
            .collect();
        std::fs::write(dir.join(format!("f{i:05}.rs")), body).expect("write");
    }
    std::fs::write(
        repo.join("package.json"),
        "{\"scripts\":{\"test\":\"jest\"}}\n",
    )
    .expect("write");
    git(repo, &["add", "-A"], &[]);
    git(repo, &["commit", "-q", "-m", "generated"], &[]);
}

/// The simulated worker: edit 20 files, add 5, delete 2.
fn edit(worktree: &Path) {
    for i in 0..20 {
        let path = worktree.join(format!("src/m{:03}/f{:05}.rs", i, i * 100 + 7));
        let mut body = std::fs::read_to_string(&path).expect("read");
        body.push_str("// edited by the worker\n");
        std::fs::write(path, body).expect("write");
    }
    for i in 0..5 {
        std::fs::write(worktree.join(format!("src/new{i}.rs")), "pub fn new() {}\n")
            .expect("write");
    }
    for i in 0..2 {
        std::fs::remove_file(worktree.join(format!("src/m050/f{:05}.rs", 5000 + i))).expect("rm");
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let files: usize = std::env::var("ATTEMPT_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let rounds: usize = std::env::var("ATTEMPT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let root = tempfile::tempdir().expect("tempdir");
    let repo_path = root.path().join("repo");
    let data = root.path().join("data");
    let raw_dir = root.path().join("raw");
    std::fs::create_dir_all(&raw_dir).expect("mkdir");
    let started = Instant::now();
    generate(&repo_path, files);
    println!("generated {files} files in {:?}", started.elapsed());
    let base = String::from_utf8(git(&repo_path, &["rev-parse", "HEAD"], &[]))
        .expect("utf8")
        .trim()
        .to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let repo = runtime
        .block_on(Repo::open(&Git::new(), &repo_path))
        .expect("opens");
    let policy = GatePolicy {
        locked: LockedPaths::new(&[]).expect("globs"),
        size: SizeLimits::default(),
    };

    let mut ours = Vec::new();
    let mut raw = Vec::new();
    let mut phases = [Duration::ZERO; 5];
    for round in 0..=rounds {
        // Switchyard.
        let attempt = format!("bench{round}");
        let t = Instant::now();
        let wt = runtime
            .block_on(Worktree::create(&repo, &base, &data, &attempt))
            .expect("worktree");
        let create = t.elapsed();
        let t = Instant::now();
        let snapshot = runtime
            .block_on(RepoSnapshot::take(&repo, Some(&wt)))
            .expect("snapshot");
        let mut guarded = t.elapsed();
        edit(wt.path());
        let t = Instant::now();
        for _ in 0..2 {
            let changes = runtime
                .block_on(snapshot.compare(&repo, true))
                .expect("compare");
            assert!(changes.is_empty(), "{changes:?}");
        }
        guarded += t.elapsed();
        let t = Instant::now();
        let capture = runtime.block_on(wt.capture()).expect("captures");
        let captured = t.elapsed();
        let t = Instant::now();
        let results = runtime
            .block_on(wt.run_gates(&capture, &policy, &[]))
            .expect("gates");
        let gated = t.elapsed();
        assert!(results.iter().all(|r| r.passed));
        assert_eq!(capture.diff.files.len(), 27);
        let t = Instant::now();
        runtime.block_on(wt.remove()).expect("removes");
        let removed = t.elapsed();
        let total = create + guarded + captured + gated + removed;

        // The same git commands by hand.
        let path = raw_dir.join(format!("r{round}"));
        let branch = format!("raw/{round}");
        let index = raw_dir.join(format!("index{round}"));
        let path_s = path.to_str().expect("utf8");
        let t = Instant::now();
        git(
            &repo_path,
            &["worktree", "add", "-q", "-b", &branch, path_s, &base],
            &[],
        );
        let own_index = String::from_utf8(git(&path, &["rev-parse", "--git-path", "index"], &[]))
            .expect("utf8");
        std::fs::copy(path.join(own_index.trim()), &index).expect("copy index");
        let raw_create = t.elapsed();
        let t = Instant::now();
        let status = [
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
        ];
        git(&repo_path, &["for-each-ref"], &[]);
        git(&repo_path, &status, &[]);
        let mut raw_guard = t.elapsed();
        edit(&path);
        let t = Instant::now();
        for _ in 0..2 {
            git(&repo_path, &["for-each-ref"], &[]);
            git(&repo_path, &status, &[]);
        }
        raw_guard += t.elapsed();
        let t = Instant::now();
        let env = [("GIT_INDEX_FILE", index.as_path())];
        git(&path, &["add", "-A"], &env);
        let listing = git(
            &path,
            &[
                "diff",
                "--cached",
                "--raw",
                "-z",
                "--no-abbrev",
                "-M",
                &base,
            ],
            &env,
        );
        git(
            &path,
            &["diff", "--cached", "--binary", "--full-index", "-M", &base],
            &env,
        );
        let oids: Vec<String> = listing
            .split(|&b| b == 0)
            .filter(|f| f.starts_with(b":"))
            .flat_map(|f| {
                let header = String::from_utf8_lossy(f).into_owned();
                let parts: Vec<String> = header.split(' ').map(str::to_owned).collect();
                vec![parts[2].clone(), parts[3].clone()]
            })
            .filter(|o| o.bytes().any(|b| b != b'0'))
            .collect();
        let mut check = Command::new("git")
            .current_dir(&path)
            .args(["cat-file", "--batch-check"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("cat-file");
        {
            use std::io::Write;
            let mut stdin = check.stdin.take().expect("stdin");
            stdin.write_all(oids.join("\n").as_bytes()).expect("write");
        }
        check.wait_with_output().expect("cat-file output");
        let raw_capture = t.elapsed();
        let t = Instant::now();
        git(&repo_path, &["worktree", "remove", "--force", path_s], &[]);
        git(&repo_path, &["branch", "-D", "-q", &branch], &[]);
        std::fs::remove_file(&index).expect("rm index");
        let raw_remove = t.elapsed();
        let raw_total = raw_create + raw_guard + raw_capture + raw_remove;

        if round == 0 {
            continue; // warm-up: page cache, git's first run
        }
        println!(
            "round {round}: switchyard {total:?} (create {create:?}, repository {guarded:?}, \
             capture {captured:?}, gates {gated:?}, remove {removed:?}) | raw git {raw_total:?} \
             (create {raw_create:?}, repository {raw_guard:?}, capture {raw_capture:?}, remove \
             {raw_remove:?})"
        );
        for (sum, d) in phases
            .iter_mut()
            .zip([create, guarded, captured, gated, removed])
        {
            *sum += d;
        }
        ours.push(total);
        raw.push(raw_total);
    }
    let (ours, raw) = (median(ours), median(raw));
    let n = rounds as u32;
    println!(
        "median over {rounds} rounds: switchyard {ours:?}, raw git {raw:?}, ratio {:.2}x \
         (target <= 1.5x); mean phases: create {:?}, repository {:?}, capture {:?}, gates \
         {:?}, remove {:?}",
        ours.as_secs_f64() / raw.as_secs_f64(),
        phases[0] / n,
        phases[1] / n,
        phases[2] / n,
        phases[3] / n,
        phases[4] / n
    );
}
