//! The engine side of opening a 50,000-line diff in the review page: the budgeted review
//! payload (`attempt_review_budgeted`, what `attempt_review` sends) and the first deferred
//! file (`attempt_file_diff`, what the page fetches when that file's header scrolls into view),
//! on a real repository whose attempt rewrote 25 files of 1,000 lines (25,000 lines removed,
//! 25,000 added).
//!
//! Setup runs one real attempt (an `exec:` worker, no verification) through the pipeline once.
//! Each measured round starts cold: the parsed-diff cache is invalidated by touching the stored
//! diff, as a new capture would. `cargo bench -p switchyard-engine --bench review_open`.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use criterion::{criterion_group, criterion_main, Criterion};
use switchyard_core::attempt::{AttemptRequest, AttemptState, DiffAgainst};
use switchyard_core::review::diff::REVIEW_LINE_BUDGET;
use switchyard_engine::{Engine, EngineConfig};

const FILES: usize = 25;
const LINES: usize = 1_000;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// A repository of `FILES` source-like files of `LINES` lines each, committed on `main`.
fn generate(repo: &Path) {
    std::fs::create_dir_all(repo.join("src")).expect("mkdir");
    git(repo, &["init", "-q", "-b", "main"]);
    for f in 0..FILES {
        let body: String = (0..LINES)
            .map(|l| format!("    let value_{l} = compute({f}, {l}); // line {l} of file {f}\n"))
            .collect();
        std::fs::write(repo.join(format!("src/file{f:02}.rs")), body).expect("write");
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "generated"]);
}

struct Fixture {
    _dir: tempfile::TempDir,
    engine: Arc<Engine>,
    id: String,
    diff_file: std::path::PathBuf,
    first_deferred: String,
}

fn setup(rt: &tokio::runtime::Runtime) -> Fixture {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    let home = dir.path().join("home");
    generate(&repo);
    let engine = rt.block_on(async {
        Arc::new(
            Engine::open(EngineConfig {
                home: Some(home.clone()),
            })
            .await
            .expect("engine"),
        )
    });
    // Every line of every file changes: one removal and one addition per line.
    let request = AttemptRequest {
        repo: repo.display().to_string(),
        task: "rename every value".into(),
        worker: "exec:sed -i 's/let value_/let renamed_/' src/*.rs".into(),
        verify: Some(Vec::new()),
        lock: Vec::new(),
        timeout_secs: Some(600),
        preset: None,
        allow_network: false,
        allow_write: Vec::new(),
        self_review: false,
    };
    let (id, review) = rt.block_on(async {
        let summary = engine.start_attempt(request, "bench").await.expect("start");
        let review = engine.wait_attempt(&summary.id).await.expect("wait");
        (summary.id, review)
    });
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let diff = review.diff.as_ref().expect("diff");
    assert_eq!(
        (diff.additions, diff.deletions),
        ((FILES * LINES) as u32, (FILES * LINES) as u32)
    );
    let budgeted = rt
        .block_on(engine.attempt_review_budgeted(&id, REVIEW_LINE_BUDGET))
        .expect("budgeted");
    let first_deferred = budgeted
        .diff
        .as_ref()
        .and_then(|d| d.files.iter().find(|f| f.hunks_deferred))
        .map(|f| f.path.clone())
        .expect("a deferred file");
    let payload = serde_json::to_vec(&budgeted).expect("json").len();
    let full = serde_json::to_vec(&review).expect("json").len();
    eprintln!(
        "review_open: {} diff lines in {FILES} files; budgeted payload {} KiB (full review {} \
         KiB); setup {:.1} s",
        diff.additions + diff.deletions,
        payload / 1024,
        full / 1024,
        started.elapsed().as_secs_f64()
    );
    Fixture {
        diff_file: home.join("artifacts").join(&id).join("diff.json"),
        _dir: dir,
        engine,
        id,
        first_deferred,
    }
}

/// Marks the stored diff as rewritten, so the next file fetch parses it again.
fn invalidate(path: &Path, round: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("diff artifact");
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + round))
        .expect("touch");
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let fx = setup(&rt);
    let mut group = c.benchmark_group("review_open_50k_lines");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("budgeted_review_then_first_file", |b| {
        b.iter_custom(|rounds| {
            let mut total = Duration::ZERO;
            for round in 0..rounds {
                invalidate(&fx.diff_file, round);
                let start = Instant::now();
                rt.block_on(async {
                    let review = fx
                        .engine
                        .attempt_review_budgeted(&fx.id, REVIEW_LINE_BUDGET)
                        .await
                        .expect("review");
                    black_box(review);
                    let file = fx
                        .engine
                        .attempt_file_diff(&fx.id, &fx.first_deferred, DiffAgainst::Base)
                        .await
                        .expect("file");
                    black_box(file);
                });
                total += start.elapsed();
            }
            total
        });
    });
    group.bench_function("budgeted_review", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(
                    fx.engine
                        .attempt_review_budgeted(&fx.id, REVIEW_LINE_BUDGET)
                        .await
                        .expect("review"),
                )
            })
        });
    });
    group.finish();
    rt.block_on(fx.engine.close());
}

criterion_group!(benches, bench);
criterion_main!(benches);
