//! The Review page and its settings as a reader meets them, in the real window: the empty
//! state, the New task form with a folder that is not a repository and with one that is, a
//! running attempt's live output and its cancel, a long list of attempts (made beforehand by
//! the engine against the same data directory), an attempt whose gates failed, one whose
//! worker failed, and Settings → Agent CLIs and Worktrees. Each view is checked for the text a
//! reader needs (no raw error codes, the empty-state explanation, every attempt listed) and,
//! with `SWITCHYARD_E2E_SCREENSHOTS=x11` (or `=1`), saved as a picture for review.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use switchyard_core::attempt::{AttemptRequest, AttemptState};
use switchyard_engine::{Engine, EngineConfig};

use crate::harness::{App, E2e, E2eResult, Launch};
use crate::review::{blur, choose, git, wait_attr};
use crate::review_model::prepare_home;

/// Error codes the IPC layer carries; a reader should see words, not these.
const RAW_CODES: &[&str] = &[
    "invalidInput",
    "notFound",
    "workerFailed",
    "gateFailed",
    "lockedPath",
    "missingCredential",
];

/// Attempts made before the app starts: passing, blocked by verification, rejected, failed.
const PASSING: usize = 24;
const BLOCKED: usize = 4;
const REJECTED: usize = 2;
const FAILING: usize = 2;

struct Fixture {
    root: tempfile::TempDir,
    repo: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let repo = root.path().join("calculator-service");
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
        Self { root, repo }
    }

    /// A worker script outside the repository.
    fn worker(&self, name: &str, script: &str) -> String {
        let path = self.root.path().join(format!("{name}.sh"));
        std::fs::write(&path, script).expect("write worker");
        format!("exec:sh {}", path.display())
    }

    fn request(&self, task: &str, worker: &str) -> AttemptRequest {
        AttemptRequest {
            repo: self.repo.display().to_string(),
            task: task.into(),
            worker: worker.into(),
            verify: Some(vec!["sh test.sh".into()]),
            lock: Vec::new(),
            timeout_secs: Some(60),
            preset: None,
            allow_network: false,
            allow_write: Vec::new(),
            self_review: false,
        }
    }
}

/// Runs `script` in the page.
async fn js(app: &App, script: &str) -> E2eResult<Value> {
    app.client
        .execute(script, vec![])
        .await
        .map_err(|e| format!("script failed: {e}"))
}

/// Fails when `text` shows one of the IPC's error codes instead of words.
fn no_raw_code(what: &str, text: &str) -> E2eResult {
    match RAW_CODES.iter().find(|code| text.contains(*code)) {
        Some(code) => Err(format!("{what} shows the raw code {code}: {text:?}")),
        None => Ok(()),
    }
}

/// Scrolls the page's own scroller to the top (pictures start at the page head).
async fn scroll_top(app: &App) -> E2eResult {
    js(
        app,
        "const p = document.querySelector('#page'); if (p) p.scrollTop = 0;",
    )
    .await
    .map(|_| ())
}

async fn empty_form_running_settings(app: &App, fx: &Fixture) -> E2eResult {
    // Empty state: says what the page is for and offers the first step.
    app.goto("review").await?;
    let empty = app
        .wait_text("#review-empty", |t| t.contains("No attempts yet"))
        .await?;
    if !empty.contains("approve") {
        return Err(format!(
            "the empty state does not explain review: {empty:?}"
        ));
    }
    app.save_screenshot("gallery_review_empty").await;

    // New task with a folder that is not a git repository, then with one that does not exist.
    app.click("#empty-new-task").await?;
    app.wait_for("#new-task-form").await?;
    let plain = fx.root.path().join("just-a-folder");
    std::fs::create_dir_all(&plain).map_err(|e| e.to_string())?;
    app.type_into("#task-repo", &plain.display().to_string())
        .await?;
    blur(app, "#task-repo").await?;
    let error = app.wait_text("#task-repo-error", |t| !t.is_empty()).await?;
    eprintln!("e2e gallery: a folder that is not a repository: {error:?}");
    no_raw_code("the repository error", &error)?;
    if !error.to_lowercase().contains("git") {
        return Err(format!("the repository error does not say git: {error:?}"));
    }
    app.type_into("#task-text", "Make add() add").await?;
    app.save_screenshot("gallery_new_task_not_a_repo").await;
    let missing = fx.root.path().join("no-such-folder");
    app.type_into("#task-repo", &missing.display().to_string())
        .await?;
    blur(app, "#task-repo").await?;
    let error = app
        .wait_text("#task-repo-error", |t| t.contains("no-such-folder"))
        .await?;
    eprintln!("e2e gallery: a folder that does not exist: {error:?}");
    no_raw_code("the repository error", &error)?;

    // A repository: its base, and the error gone.
    app.type_into("#task-repo", &fx.repo.display().to_string())
        .await?;
    blur(app, "#task-repo").await?;
    app.wait_text("#task-base", |t| t.contains("main")).await?;
    if app.text("#task-repo-error").await?.is_some() {
        return Err("the error stayed after choosing a repository".into());
    }
    let slow = fx.worker(
        "slow",
        "for i in $(seq 1 40); do echo \"step $i: reading the calculator\"; sleep 0.25; done\n\
         printf 'add() { echo $(($1 + $2)); }\\n' > calc.sh\n",
    );
    choose(app, "#task-worker-0", "exec:").await?;
    app.type_into(
        "#task-exec-0",
        slow.strip_prefix("exec:").ok_or("exec worker")?,
    )
    .await?;
    app.save_screenshot("gallery_new_task_repo").await;

    // A running attempt: its output streams in, the clock runs, Cancel stops it.
    app.click("#task-start").await?;
    app.wait_for("#attempt-detail").await?;
    app.wait_text("#attempt-log", |t| t.contains("step 6:"))
        .await?;
    let state = app.attr("#attempt-detail", "data-state").await?;
    if state.as_deref() != Some("running") {
        return Err(format!("expected the attempt running, it is {state:?}"));
    }
    app.save_screenshot("gallery_attempt_running").await;
    app.click("#cancel-attempt").await?;
    wait_attr(app, "#attempt-detail", "data-state", "canceled").await?;
    let failure = app.text("#attempt-failure").await?.unwrap_or_default();
    no_raw_code("the canceled attempt", &failure)?;
    app.save_screenshot("gallery_attempt_canceled").await;

    // Settings: the agent CLIs and the worktrees.
    app.goto("settings").await?;
    app.wait_for("#agent-clis-table").await?;
    app.scroll_to("#agent-clis").await?;
    // Every CLI says whether it can run here, and what to do when it cannot.
    let unexplained = js(
        app,
        "return Array.from(document.querySelectorAll('#agent-clis tr[data-cli]')) \
           .filter(r => r.dataset.ready !== 'yes' && !r.querySelector('.cli-fix')) \
           .map(r => r.dataset.cli);",
    )
    .await?;
    if unexplained.as_array().is_some_and(|a| !a.is_empty()) {
        return Err(format!("agent CLIs not ready without a fix: {unexplained}"));
    }
    app.save_screenshot("gallery_settings_agent_clis").await;
    app.wait_text("#worktrees-usage", |t| t.contains("worktree"))
        .await?;
    app.scroll_to("#worktrees").await?;
    app.save_screenshot("gallery_settings_worktrees").await;
    app.wait_text("#confinement-bwrap", |t| t.starts_with("works"))
        .await?;
    app.scroll_to("#confinement").await?;
    app.save_screenshot("gallery_settings_confinement").await;

    // With the real Claude Code (installed by the test command): found, but with no key and no
    // login it is not ready and says how to fix it; the task form routes it to a model.
    let Some(claude) = std::env::var_os("SWITCHYARD_AGENT_CLIS")
        .map(|dir| Path::new(&dir).join("claude"))
        .filter(|p| p.is_file())
    else {
        eprintln!("e2e gallery: the real claude is not installed; skipping its screenshots");
        return Ok(());
    };
    app.scroll_to("#agent-clis").await?;
    app.type_into(
        "#agent-clis input[aria-label='claude path']",
        &claude.display().to_string(),
    )
    .await?;
    js(
        app,
        "Array.from(document.querySelectorAll('#agent-clis tr[data-cli=\"claude\"] button')) \
           .find(b => b.textContent === 'Save').click(); return null;",
    )
    .await?;
    wait_attr(
        app,
        "#agent-clis tr[data-cli='claude']",
        "data-installed",
        "yes",
    )
    .await?;
    let fix = app
        .wait_text("#agent-clis tr[data-cli='claude'] .cli-fix", |t| {
            t.contains("key")
        })
        .await?;
    eprintln!("e2e gallery: claude found, not ready: {fix:?}");
    app.save_screenshot("gallery_settings_cli_not_ready").await;
    // "Use the CLI's own account": kept by the engine, and the fix now asks for its login.
    app.click("#cli-own-claude").await?;
    let own = app
        .wait_text("#agent-clis tr[data-cli='claude'] .cli-fix", |t| {
            t.contains("let Switchyard pass its key")
        })
        .await?;
    eprintln!("e2e gallery: claude on its own account: {own:?}");
    app.save_screenshot("gallery_settings_cli_own_account")
        .await;
    app.click("#cli-own-claude").await?;
    app.wait_text("#agent-clis tr[data-cli='claude'] .cli-fix", |t| {
        t.contains("add a key")
    })
    .await?;
    app.goto("review").await?;
    app.click("#new-task").await?;
    app.wait_for("#new-task-form").await?;
    choose(app, "#task-worker-0", "claude").await?;
    app.wait_for("#task-cli-model-0").await?;
    let listed = js(
        app,
        "return Array.from(document.querySelectorAll('#task-model-hints-0-cli option')) \
           .map(o => o.value);",
    )
    .await?;
    if !listed.as_array().is_some_and(|models| {
        models
            .iter()
            .any(|m| m.as_str().is_some_and(|m| m.starts_with("claude-")))
    }) {
        return Err(format!("no Claude models offered for the CLI: {listed}"));
    }
    app.type_into("#task-cli-model-0", "claude-haiku-4-5")
        .await?;
    app.save_screenshot("gallery_new_task_cli_model").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn the_review_pages_read_well_empty_with_a_form_error_running_and_in_settings() {
    if !E2e::enabled("the_review_pages_read_well_empty_with_a_form_error_running_and_in_settings") {
        return;
    }
    let fx = Fixture::new();
    let fx_ref = &fx;
    E2e::run("review_gallery_first", Launch::fresh(), |app| async move {
        let result = empty_form_running_settings(&app, fx_ref).await;
        (app, result)
    })
    .await;
}

/// Makes the attempts of the long list with the engine itself, against `home`, and closes it
/// before the app opens the same data directory. Returns (a blocked id, a failed id).
async fn make_attempts(home: &Path, fx: &Fixture) -> (String, String) {
    let engine = Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.to_path_buf()),
        })
        .await
        .expect("engine"),
    );
    let fix = fx.worker(
        "fix",
        "echo 'reading calc.sh'\nprintf 'add() { echo $(($1 + $2)); }\\n' > calc.sh\necho 'fixed the sign'\n",
    );
    // The wrong fix also tries to write outside its worktree: the sandbox refuses each.
    let wrong = fx.worker(
        "wrong",
        "echo hook > \"$(git rev-parse --git-common-dir)/hooks/pre-commit\"\n\
         echo x >> \"$HOME/.switchyard-gallery-probe\"\necho x > /tmp/switchyard-gallery-probe\n\
         printf 'add() { echo $(($1 * $2)); }\\n' > calc.sh\necho 'multiplied'\n",
    );
    let broken = fx.worker("broken", "echo 'cannot find the calculator'\nexit 3\n");
    let mut plan: Vec<(String, &str)> = Vec::new();
    for i in 0..PASSING {
        let task = if i % 5 == 0 {
            format!(
                "Task {i}: make add() add, keep the shell functions POSIX, and write the change \
                 up in the commit message so the next reader knows why the sign flipped"
            )
        } else {
            format!("Task {i}: make add() add")
        };
        plan.push((task, fix.as_str()));
    }
    for i in 0..BLOCKED {
        plan.push((format!("Blocked {i}: multiply instead"), wrong.as_str()));
    }
    for i in 0..REJECTED {
        plan.push((format!("Rejected {i}: make add() add"), fix.as_str()));
    }
    for i in 0..FAILING {
        plan.push((
            format!("Failing {i}: a worker that exits 3"),
            broken.as_str(),
        ));
    }
    let mut blocked = String::new();
    let mut failed = String::new();
    // A few at a time: two cores, and every attempt runs git and the verification.
    for batch in plan.chunks(4) {
        let mut ids = Vec::new();
        for (task, worker) in batch {
            let started = engine
                .start_attempt(fx.request(task, worker), "cli")
                .await
                .expect("start");
            ids.push((started.id, task.clone()));
        }
        for (id, task) in ids {
            let review = engine.wait_attempt(&id).await.expect("wait");
            if task.starts_with("Rejected") {
                engine
                    .reject_attempt(&id, "not the approach we want")
                    .await
                    .expect("reject");
            } else if task.starts_with("Blocked") {
                assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
                assert!(!review.can_approve);
                blocked = id;
            } else if task.starts_with("Failing") {
                assert_eq!(review.summary.state, AttemptState::Failed, "{review:?}");
                failed = id;
            } else {
                assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
            }
        }
    }
    engine.close().await;
    (blocked, failed)
}

async fn long_list(app: &App, blocked: &str, failed: &str) -> E2eResult {
    let total = PASSING + BLOCKED + REJECTED + FAILING;
    app.goto("review").await?;
    app.wait_for(&format!("tr[data-attempt='{blocked}']"))
        .await?;
    let rows = js(
        app,
        "return document.querySelectorAll('tr[data-attempt]').length;",
    )
    .await?;
    if rows.as_u64() != Some(total as u64) {
        return Err(format!("the list shows {rows} attempts, not {total}"));
    }
    let awaiting = app.text("#attempts-awaiting h2").await?.unwrap_or_default();
    if !awaiting.contains(&(PASSING + BLOCKED).to_string()) {
        return Err(format!("awaiting review says {awaiting:?}"));
    }
    // Nothing spills out of the page sideways.
    let overflow = js(
        app,
        "const p = document.querySelector('#page'); return p.scrollWidth - p.clientWidth;",
    )
    .await?;
    if overflow.as_i64().unwrap_or(0) > 0 {
        return Err(format!(
            "the list is {overflow} px wider than the page: it scrolls sideways"
        ));
    }
    app.save_screenshot("gallery_list_top").await;
    js(
        app,
        "const p = document.querySelector('#page'); p.scrollTop = p.scrollHeight;",
    )
    .await?;
    app.save_screenshot("gallery_list_bottom").await;

    // An attempt whose verification failed.
    app.click(&format!("tr[data-attempt='{blocked}'] a"))
        .await?;
    wait_attr(app, "#attempt-detail", "data-attempt", blocked).await?;
    app.wait_text("[data-gate='verification'][data-passed='false']", |t| {
        !t.is_empty()
    })
    .await?;
    let reason = app.wait_text("#approve-blocked", |t| !t.is_empty()).await?;
    no_raw_code("the blocked reason", &reason)?;
    if !reason.contains("Verification") {
        return Err(format!(
            "the blocked reason does not name the gate: {reason:?}"
        ));
    }
    scroll_top(app).await?;
    app.save_screenshot("gallery_attempt_gate_failed").await;
    // Its confinement: sandboxed, and each write it tried outside the worktree refused.
    app.wait_text("#confinement-denied", |t| {
        t.contains("hooks/pre-commit") && t.contains("/tmp/switchyard-gallery-probe")
    })
    .await?;
    wait_attr(app, "#attempt-confinement", "data-mode", "bwrap").await?;
    app.scroll_to("#confinement-panel").await?;
    app.save_screenshot("gallery_attempt_confinement").await;

    // An attempt whose worker failed: the failure in words, the worker's own output kept.
    app.goto("review").await?;
    app.click(&format!("tr[data-attempt='{failed}'] a")).await?;
    wait_attr(app, "#attempt-detail", "data-attempt", failed).await?;
    let failure = app.wait_text("#attempt-failure", |t| !t.is_empty()).await?;
    eprintln!("e2e gallery: a failed worker: {failure:?}");
    no_raw_code("the failed attempt", &failure)?;
    app.wait_text("#attempt-log", |t| t.contains("cannot find the calculator"))
        .await?;
    app.save_screenshot("gallery_attempt_failed").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_long_attempt_list_and_the_blocked_and_failed_attempts_in_it() {
    if !E2e::enabled("a_long_attempt_list_and_the_blocked_and_failed_attempts_in_it") {
        return;
    }
    let fx = Fixture::new();
    let home = tempfile::tempdir().expect("home");
    prepare_home(home.path()).await;
    let (blocked, failed) = make_attempts(home.path(), &fx).await;
    let (blocked, failed) = (&blocked, &failed);
    E2e::run(
        "review_gallery_list",
        Launch::with_home(home.path()),
        |app| async move {
            let result = long_list(&app, blocked, failed).await;
            (app, result)
        },
    )
    .await;
}
