//! The Review page end to end: a task sent from the New task form to an `exec:` worker against
//! a real git repository built here, its output watched live, the diff and gates reviewed, and
//! Approve landing exactly one commit on the repository's branch; and a compare of two workers
//! where "Pick this one" integrates the winner.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::{App, E2e, E2eResult, Launch};

/// Attempts run a worker, git and verification: allow more than a UI wait.
pub(crate) const ATTEMPT_WAIT: Duration = Duration::from_secs(60);

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.com")
        .env("GIT_COMMITTER_NAME", "Fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository on `main` whose `calc.sh` subtracts where `test.sh` expects it to add, plus
/// worker scripts outside it. `fix` repairs the bug; `wrong` multiplies (verification fails);
/// `large` writes a 50,000-line change.
pub(crate) struct Fixture {
    _root: tempfile::TempDir,
    pub(crate) repo: PathBuf,
    pub(crate) fix: String,
    wrong: String,
    /// Writes 50 new files of 1,000 lines each: a 50,000-line diff.
    large: String,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let repo = root.path().join("repo");
        std::fs::create_dir_all(&repo).expect("repo dir");
        git(&repo, &["init", "--quiet", "--initial-branch=main"]);
        std::fs::write(repo.join("calc.sh"), "add() { echo $(($1 - $2)); }\n").expect("write");
        std::fs::write(
            repo.join("test.sh"),
            ". ./calc.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
        )
        .expect("write");
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "--quiet", "-m", "initial"]);
        let fix = root.path().join("fix.sh");
        std::fs::write(
            &fix,
            "echo 'reading calc.sh'\nsleep 1\nprintf 'add() { echo $(($1 + $2)); }\\n' > calc.sh\necho 'fixed the sign'\n",
        )
        .expect("write worker");
        let wrong = root.path().join("wrong.sh");
        std::fs::write(
            &wrong,
            "printf 'add() { echo $(($1 * $2)); }\\n' > calc.sh\necho 'multiplied'\n",
        )
        .expect("write worker");
        let large = root.path().join("large.sh");
        std::fs::write(
            &large,
            "for f in $(seq -w 1 50); do mkdir -p gen/m$f; seq 1 1000 | sed \"s/.*/pub const V&: u32 = &; \\/\\/ table $f/\" > gen/m$f/mod.rs; done\n",
        )
        .expect("write worker");
        Self {
            large: format!("exec:sh {}", large.display()),
            repo,
            fix: format!("exec:sh {}", fix.display()),
            wrong: format!("exec:sh {}", wrong.display()),
            _root: root,
        }
    }
}

/// Sets a `<select>` the way a user's choice does (React listens for `change`).
pub(crate) async fn choose(app: &App, css: &str, value: &str) -> E2eResult {
    // The options may arrive after the select does (the worker list comes from Rust): a value
    // set before its option exists is dropped silently.
    app.wait_for(&format!("{css} option[value=\"{value}\"]"))
        .await?;
    app.client
        .execute(
            "const el = document.querySelector(arguments[0]); \
             Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, arguments[1]); \
             el.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![css.into(), value.into()],
        )
        .await
        .map(|_| ())
        .map_err(|e| format!("choose {value} in {css}: {e}"))
}

/// Blurs an input so the form probes the repository.
pub(crate) async fn blur(app: &App, css: &str) -> E2eResult {
    app.client
        .execute(
            "const el = document.querySelector(arguments[0]); el.focus(); el.blur();",
            vec![css.into()],
        )
        .await
        .map(|_| ())
        .map_err(|e| format!("blur {css}: {e}"))
}

/// Waits (up to [`ATTEMPT_WAIT`]) until `css`'s attribute `name` is `value`.
pub(crate) async fn wait_attr(app: &App, css: &str, name: &str, value: &str) -> E2eResult {
    let start = Instant::now();
    let mut last = None;
    while start.elapsed() < ATTEMPT_WAIT {
        if let Ok(element) = app.client.find(fantoccini::Locator::Css(css)).await {
            last = element.attr(name).await.ok().flatten();
            if last.as_deref() == Some(value) {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(format!(
        "{css} [{name}] never became {value:?}; last {last:?}"
    ))
}

/// Fills the New task form for `repo` and `workers` (compare when there are several).
async fn fill_task(app: &App, repo: &Path, task: &str, workers: &[&str]) -> E2eResult {
    app.goto("review").await?;
    app.click("#new-task").await?;
    app.wait_for("#new-task-form").await?;
    app.type_into("#task-repo", &repo.display().to_string())
        .await?;
    blur(app, "#task-repo").await?;
    app.wait_text("#task-base", |t| t.contains("main")).await?;
    app.type_into("#task-text", task).await?;
    if workers.len() > 1 {
        app.click("#task-compare").await?;
    }
    for (i, worker) in workers.iter().enumerate() {
        let command = worker.strip_prefix("exec:").ok_or("an exec: worker")?;
        choose(app, &format!("#task-worker-{i}"), "exec:").await?;
        app.type_into(&format!("#task-exec-{i}"), command).await?;
    }
    app.type_into("#task-verify", "sh test.sh").await?;
    Ok(())
}

async fn single_attempt(app: &App, fx: &Fixture) -> E2eResult {
    let base = git(&fx.repo, &["rev-parse", "HEAD"]);
    fill_task(app, &fx.repo, "Make add() add", &[&fx.fix]).await?;
    app.click("#task-start").await?;
    app.wait_for("#attempt-detail").await?;
    // Live output: the worker's lines stream in before the attempt reaches review.
    app.wait_text("#attempt-log", |t| t.contains("reading calc.sh"))
        .await?;
    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.wait_text("#attempt-log", |t| t.contains("fixed the sign"))
        .await?;
    app.wait_text("#gates-verdict", |t| {
        t.contains("all") && t.contains("passed")
    })
    .await?;
    let sha = app.text("#diff-sha256").await?.unwrap_or_default();
    if sha.len() != 64 {
        return Err(format!("diff sha256 shown as {sha:?}"));
    }
    app.wait_text("[data-tree-file='calc.sh']", |t| t.contains("calc.sh"))
        .await?;
    app.wait_text("#verification-log", |t| t.contains("sh test.sh"))
        .await?;
    // The worker ran confined, and the page says so.
    wait_attr(app, "#attempt-confinement", "data-mode", "bwrap").await?;
    app.wait_text("#confinement-panel", |t| {
        t.contains("Sandboxed (bubblewrap)") && t.contains("no network")
    })
    .await?;
    app.save_screenshot("review_attempt").await;
    let message = app.attr("#approve-message", "value").await?;
    if message.as_deref() != Some("Make add() add") {
        // The textarea's value is a property; read it through script when the attribute is empty.
        let value = app
            .client
            .execute(
                "return document.querySelector('#approve-message').value;",
                vec![],
            )
            .await
            .map_err(|e| format!("read message: {e}"))?;
        if value.as_str() != Some("Make add() add") {
            return Err(format!(
                "commit message not prefilled from the task: {value:?}"
            ));
        }
    }
    app.click("#approve-button").await?;
    wait_attr(app, "#attempt-detail", "data-state", "integrated").await?;
    app.wait_for("#integrated-commit").await?;
    let subjects = git(&fx.repo, &["log", "--format=%s", &format!("{base}..main")]);
    if subjects != "Make add() add" {
        return Err(format!(
            "expected exactly the approved commit on main, found {subjects:?}"
        ));
    }
    let calc = git(&fx.repo, &["show", "main:calc.sh"]);
    if !calc.contains("$1 + $2") {
        return Err(format!("main's calc.sh is not the reviewed change: {calc}"));
    }
    Ok(())
}

async fn compare_two(app: &App, fx: &Fixture) -> E2eResult {
    let base = git(&fx.repo, &["rev-parse", "HEAD"]);
    fill_task(app, &fx.repo, "Fix add", &[&fx.wrong, &fx.fix]).await?;
    app.click("#task-start").await?;
    app.wait_for("#compare-view").await?;
    let columns = app
        .client
        .execute(
            "return Array.from(document.querySelectorAll('.compare-column')).map(c => c.dataset.attempt);",
            vec![],
        )
        .await
        .map_err(|e| format!("read columns: {e}"))?;
    let ids: Vec<String> = columns
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let [wrong, fix] = ids.as_slice() else {
        return Err(format!("expected two columns, got {ids:?}"));
    };
    for id in [wrong, fix] {
        wait_attr(
            app,
            &format!(".compare-column[data-attempt='{id}']"),
            "data-state",
            "review",
        )
        .await?;
    }
    // The multiplying worker fails Switchyard's own verification; it cannot be picked.
    app.wait_text(&format!("[data-gates='{wrong}']"), |t| {
        t.contains("verification")
    })
    .await?;
    app.wait_text(&format!("[data-gates='{fix}']"), |t| t == "all passed")
        .await?;
    let disabled = app
        .attr(&format!("button[data-pick='{wrong}']"), "disabled")
        .await?;
    if disabled.is_none() {
        return Err("the attempt whose verification failed could be picked".into());
    }
    app.save_screenshot("review_compare").await;
    app.click(&format!("button[data-pick='{fix}']")).await?;
    wait_attr(
        app,
        &format!(".compare-column[data-attempt='{fix}']"),
        "data-state",
        "integrated",
    )
    .await?;
    wait_attr(
        app,
        &format!(".compare-column[data-attempt='{wrong}']"),
        "data-state",
        "rejected",
    )
    .await?;
    let subjects = git(&fx.repo, &["log", "--format=%s", &format!("{base}..main")]);
    if subjects != "Fix add" {
        return Err(format!(
            "expected exactly the picked commit on main, found {subjects:?}"
        ));
    }
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn an_exec_attempt_from_the_form_is_watched_reviewed_and_approved() {
    if !E2e::enabled("an_exec_attempt_from_the_form_is_watched_reviewed_and_approved") {
        return;
    }
    let fx = Fixture::new();
    E2e::run("review_single_attempt", Launch::fresh(), |app| async move {
        let result = single_attempt(&app, &fx).await;
        (app, result)
    })
    .await;
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn compare_two_workers_and_pick_the_one_that_passes() {
    if !E2e::enabled("compare_two_workers_and_pick_the_one_that_passes") {
        return;
    }
    let fx = Fixture::new();
    E2e::run("review_compare", Launch::fresh(), |app| async move {
        let result = compare_two(&app, &fx).await;
        (app, result)
    })
    .await;
}

/// Milliseconds from opening the attempt's page until the first diff line is drawn (the
/// library draws inside shadow roots), measured in the page.
async fn time_to_first_line(app: &App, id: &str) -> E2eResult<f64> {
    let value = app
        .client
        .execute_async(
            "const [id, done] = [arguments[0], arguments[arguments.length - 1]]; \
             const start = performance.now(); \
             location.hash = '#/review/' + id; \
             const drawn = () => Array.from(document.querySelectorAll('.diff-view *')) \
               .some(el => el.shadowRoot && el.shadowRoot.querySelector('[data-line]')); \
             let pane = -1; \
             const poll = () => { \
               if (pane < 0 && document.querySelector('[data-diff-sha]')) pane = performance.now() - start; \
               if (drawn()) { window.__paneMs = pane; done(performance.now() - start); return; } \
               if (performance.now() - start > 20000) { done(-1); return; } \
               requestAnimationFrame(poll); }; \
             requestAnimationFrame(poll);",
            vec![id.into()],
        )
        .await
        .map_err(|e| format!("measure first line: {e}"))?;
    value
        .as_f64()
        .ok_or_else(|| format!("no timing: {value:?}"))
}

async fn large_diff(app: &App, fx: &Fixture) -> E2eResult {
    fill_task(app, &fx.repo, "Generate the tables", &[&fx.large]).await?;
    app.click("#task-start").await?;
    app.wait_for("#attempt-detail").await?;
    let id = app
        .attr("#attempt-detail", "data-attempt")
        .await?
        .ok_or("no attempt id")?;
    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.goto("review").await?;
    app.wait_for(&format!("tr[data-attempt='{id}']")).await?;
    let ms = time_to_first_line(app, &id).await?;
    let pane = app
        .client
        .execute("return window.__paneMs;", vec![])
        .await
        .map_err(|e| format!("read pane time: {e}"))?;
    let pane = pane.as_f64().ok_or("no pane time")?;
    eprintln!("e2e review_large_diff: review loaded and diff pane mounted after {pane:.0} ms");
    eprintln!(
        "e2e review_large_diff: first diff line drawn {ms:.0} ms after opening a 50,000-line diff"
    );
    app.save_screenshot("review_large_diff").await;
    // The target (issue 9): the first file visible within a second of opening the page. The
    // review payload carries only the first files' hunks; the rest load as they come into view.
    if !(0.0..1000.0).contains(&ms) {
        return Err(format!(
            "the first line of a 50,000-line diff was drawn {ms:.0} ms after opening the page \
             (review loaded after {pane:.0} ms); the target is under 1,000 ms"
        ));
    }
    // Scroll through the whole diff, a screen at a time, so the deferred files load as they
    // come into view; then weigh the webview.
    for _ in 0..40 {
        app.client
            .execute(
                "const v = document.querySelector('.diff-codeview'); \
                 if (v) { v.scrollTop += v.clientHeight * 2; }",
                vec![],
            )
            .await
            .map_err(|e| format!("scroll: {e}"))?;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let waiting = app
        .client
        .execute(
            "return Array.from(document.querySelectorAll('[data-diff-deferred]')).map(e => e.dataset.diffDeferred).join(',');",
            vec![],
        )
        .await
        .map_err(|e| format!("count deferred: {e}"))?;
    eprintln!("e2e review_large_diff: after scrolling to the end, file headers still waiting for lines: [{waiting}]");
    let (pss_kib, count) = crate::procs::webview_pss_kib(&app.home)
        .ok_or("no WebKitWebProcess of the app found to measure")?;
    let pss_mb = pss_kib as f64 / 1024.0;
    eprintln!(
        "e2e review_large_diff: webview PSS {pss_mb:.0} MB over {count} WebKitWebProcess while showing it"
    );
    if pss_mb >= 500.0 {
        return Err(format!(
            "the webview uses {pss_mb:.0} MB PSS showing a 50,000-line diff; the target is under 500 MB"
        ));
    }
    let files = app
        .client
        .execute(
            "return document.querySelectorAll('[data-tree-file]').length;",
            vec![],
        )
        .await
        .map_err(|e| format!("count files: {e}"))?;
    if files.as_u64() != Some(50) {
        return Err(format!("the file tree lists {files:?} files, not 50"));
    }
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_50000_line_diff_shows_its_first_file_within_a_second_in_under_500_mb() {
    if !E2e::enabled("a_50000_line_diff_shows_its_first_file_within_a_second_in_under_500_mb") {
        return;
    }
    let fx = Fixture::new();
    E2e::run("review_large_diff", Launch::fresh(), |app| async move {
        let result = large_diff(&app, &fx).await;
        (app, result)
    })
    .await;
}

/// The `switchyard` CLI built beside the app (the test command builds the workspace first).
pub(crate) fn cli_binary() -> E2eResult<PathBuf> {
    let app = PathBuf::from(env!("CARGO_BIN_EXE_switchyard-desktop"));
    let cli = app.with_file_name("switchyard");
    if cli.exists() {
        Ok(cli)
    } else {
        Err(format!(
            "no CLI at {} (build the workspace first: cargo test --workspace --no-run)",
            cli.display()
        ))
    }
}

/// An attempt another process owns (`switchyard run --detach`) streams into the open Review
/// page: each worker line shows within a second of the worker printing it, and the page
/// says `review` once the attempt gets there.
async fn detached_attempt_streams(app: &App, fx: &Fixture) -> E2eResult {
    // Each line carries the moment the worker printed it (ms since the epoch).
    let ticker = fx.repo.with_file_name("ticker.sh");
    std::fs::write(
        &ticker,
        "for n in $(seq 1 12); do echo \"tick $n at $(date +%s%3N)\"; sleep 0.5; done\n\
         printf 'add() { echo $(($1 + $2)); }\\n' > calc.sh\necho 'fixed the sign'\n",
    )
    .map_err(|e| format!("write worker: {e}"))?;
    let out = std::process::Command::new(cli_binary()?)
        .args(["run", "--repo"])
        .arg(&fx.repo)
        .args(["--task", "Make add() add, ticking", "--worker"])
        .arg(format!("exec:sh {}", ticker.display()))
        .args(["--verify", "sh test.sh", "--detach", "--json"])
        .env("SWITCHYARD_HOME", &app.home)
        .output()
        .map_err(|e| format!("switchyard run: {e}"))?;
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "switchyard run --detach printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let id = started["run"]
        .as_str()
        .ok_or_else(|| format!("no attempt id in {started}"))?
        .to_owned();
    // Open its page while it runs (from the Review page, so the app is up and routing), and
    // note when each tick first shows in the log.
    app.goto("review").await?;
    app.click(&format!("a[href='#/review/{id}']")).await?;
    app.wait_for("#attempt-log").await?;
    let seen = app
        .client
        .execute_async(
            "const [id, done] = [arguments[0], arguments[arguments.length - 1]]; \
             const seen = {}; const start = Date.now(); \
             const poll = () => { \
               const log = document.querySelector('#attempt-log'); \
               const text = log ? log.textContent : ''; \
               for (const m of text.matchAll(/tick (\\d+) at (\\d+)/g)) { \
                 if (!(m[1] in seen)) seen[m[1]] = [Number(m[2]), Date.now()]; } \
               if (Object.keys(seen).length >= 12 || Date.now() - start > 20000) { \
                 done({ start, seen, log: text.slice(0, 600) }); return; } \
               setTimeout(poll, 25); }; \
             poll();",
            vec![id.clone().into()],
        )
        .await
        .map_err(|e| format!("watch the log: {e}"))?;
    // (printed, shown) in ms since the epoch, by tick.
    let ticks: std::collections::BTreeMap<String, (f64, f64)> =
        serde_json::from_value(seen["seen"].clone()).map_err(|e| format!("ticks {seen}: {e}"))?;
    let watching = seen["start"].as_f64().unwrap_or(f64::MAX);
    // Ticks printed before the page was watching arrive with the replay; the rest stream.
    let lags: Vec<f64> = ticks
        .values()
        .filter(|(printed, _)| *printed >= watching)
        .map(|(printed, shown)| shown - printed)
        .collect();
    if ticks.len() != 12 || lags.len() < 4 || lags.iter().any(|lag| *lag > 1000.0) {
        return Err(format!(
            "every line, each printed while watching shown within 1 s; lags {lags:?} ({seen})"
        ));
    }
    eprintln!("detached attempt: each tick shown this many ms after it was printed: {lags:?}");
    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.wait_text("#attempt-log", |t| t.contains("fixed the sign"))
        .await?;
    app.save_screenshot("review_detached_attempt").await;
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn an_attempt_another_process_runs_streams_into_the_open_review_page() {
    E2e::enabled("an_attempt_another_process_runs_streams_into_the_open_review_page");
    let fx = Fixture::new();
    E2e::run(
        "review_detached_attempt",
        Launch::fresh(),
        |app| async move {
            let result = detached_attempt_streams(&app, &fx).await;
            (app, result)
        },
    )
    .await;
}
