//! The built-in model worker end to end in the real window: a keyless OpenAI-compatible
//! endpoint added on the Keys page points at a scripted server on 127.0.0.1 speaking the exact
//! chat-completions wire format; a task sent from Review → New task to `model:<provider>:<model>`
//! streams the model's turns live, reaches review with every gate passed, and Approve lands
//! exactly the model's edit as one commit on the fixture repository's branch while the user's
//! own uncommitted work stays as it was. And a model whose edit fails Switchyard's gates: the
//! failed gates show their evidence and Approve is blocked with a reason a reader understands.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::http::{wire, End, Reply, TestServer};
use serde_json::{json, Value};
use switchyard_store::{Store, DATABASE_FILE};

use crate::harness::{App, E2e, E2eResult, Launch};
use crate::review::{blur, choose, git, wait_attr};

/// The custom endpoint's name on the Keys page, and the id the app derives from it.
const PROVIDER_NAME: &str = "Lab vLLM";
const PROVIDER_ID: &str = "lab-vllm";
/// The model the endpoint serves; the worker is `model:lab-vllm:tiny`.
const MODEL: &str = "tiny";

const CALC: &str = "add() { echo $(($1 - $2)); }\n";
const FIXED: &str = "add() { echo $(($1 + $2)); }\n";
const README: &str = "# fixture\n";
/// The user's own uncommitted work in the repository.
const LOCAL_README: &str = "# fixture\nlocal notes, not committed\n";
const SCRATCH: &str = "mine, untracked\n";

/// A repository on `main` whose `calc.sh` subtracts where `test.sh` expects it to add, with the
/// user's uncommitted edit of `README.md` and an untracked `scratch.txt`.
struct Fixture {
    _root: tempfile::TempDir,
    repo: PathBuf,
    base: String,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let repo = root.path().join("repo");
        std::fs::create_dir_all(&repo).expect("repo dir");
        git(&repo, &["init", "--quiet", "--initial-branch=main"]);
        std::fs::write(repo.join("calc.sh"), CALC).expect("write");
        std::fs::write(
            repo.join("test.sh"),
            ". ./calc.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
        )
        .expect("write");
        std::fs::write(repo.join("README.md"), README).expect("write");
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "--quiet", "-m", "initial"]);
        std::fs::write(repo.join("README.md"), LOCAL_README).expect("write");
        std::fs::write(repo.join("scratch.txt"), SCRATCH).expect("write");
        let base = git(&repo, &["rev-parse", "HEAD"]);
        Self {
            _root: root,
            repo,
            base,
        }
    }

    /// The user's working tree as `git status` sees it, plus the bytes of their own files.
    fn user_state(&self) -> (String, String, String) {
        (
            git(
                &self.repo,
                &["status", "--porcelain", "--untracked-files=all"],
            ),
            std::fs::read_to_string(self.repo.join("README.md")).expect("readme"),
            std::fs::read_to_string(self.repo.join("scratch.txt")).expect("scratch"),
        )
    }
}

/// A home whose keychain lookups go to a service of its own (inside the test's session).
pub(crate) async fn prepare_home(home: &Path) {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!("dev.switchyard.test.e2e.model.{}", std::process::id());
    store
        .set_setting("keychain.service", &service, "2026-12-03T12:00:00Z")
        .await
        .expect("keychain service setting");
    store.close().await;
}

/// One worker turn as the model answers it: the JSON text of a chat completion, usage
/// 300 in / 120 out.
fn turn(read: &[&str], edits: Value, done: bool, summary: &str) -> String {
    let answer = json!({"read": read, "edits": edits, "done": done, "summary": summary});
    wire::openai_completion(MODEL, &answer.to_string(), Some((300, 120)))
}

/// A completion that arrives after `delay` (head at once, body later): the page has time to
/// show the turns before it.
fn slow(delay: Duration, body: String) -> Reply {
    Reply::Chunked {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunks: vec![(delay, body)],
        end: End::Complete,
    }
}

/// Adds the keyless endpoint through the Keys page's own form.
async fn add_provider(app: &App, server: &TestServer) -> E2eResult {
    app.goto("keys").await?;
    app.click("#provider-add-open").await?;
    app.type_into("#provider-name", PROVIDER_NAME).await?;
    app.type_into("#provider-url", &server.at("/v1")).await?;
    app.click("#provider-add").await?;
    app.wait_text(
        &format!("[data-provider='{PROVIDER_ID}'] .key-status"),
        |t| t == "No key (optional)",
    )
    .await?;
    Ok(())
}

/// Fills Review → New task for the model worker on `model:lab-vllm:tiny`.
async fn fill_model_task(app: &App, repo: &Path, task: &str) -> E2eResult {
    app.goto("review").await?;
    app.click("#new-task").await?;
    app.wait_for("#new-task-form").await?;
    app.type_into("#task-repo", &repo.display().to_string())
        .await?;
    blur(app, "#task-repo").await?;
    app.wait_text("#task-base", |t| t.contains("main")).await?;
    // The form says the user's uncommitted work is not part of the attempt.
    app.wait_text("#task-dirty", |t| t.contains("2 uncommitted changes"))
        .await?;
    app.type_into("#task-text", task).await?;
    choose(app, "#task-worker-0", "model:").await?;
    // The custom endpoint is suggested as a prefix for the id.
    app.wait_for(&format!(
        "#task-model-hints-0 option[value='{PROVIDER_ID}:']"
    ))
    .await?;
    app.type_into("#task-model-0", &format!("{PROVIDER_ID}:{MODEL}"))
        .await?;
    app.type_into("#task-verify", "sh test.sh").await?;
    let problem = app.text("#task-problem").await?;
    if let Some(problem) = problem {
        return Err(format!("the form still refuses to start: {problem}"));
    }
    Ok(())
}

/// The value of a form field (a property, not an attribute).
async fn value(app: &App, css: &str) -> E2eResult<String> {
    let value = app
        .client
        .execute(
            "return document.querySelector(arguments[0]).value;",
            vec![css.into()],
        )
        .await
        .map_err(|e| format!("read {css}: {e}"))?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}

async fn model_attempt_approved(app: &App, fx: &Fixture, server: &TestServer) -> E2eResult {
    let before = fx.user_state();
    add_provider(app, server).await?;
    fill_model_task(app, &fx.repo, "Make add() add").await?;
    app.click("#task-start").await?;
    app.wait_for("#attempt-detail").await?;
    let id = app
        .attr("#attempt-detail", "data-attempt")
        .await?
        .ok_or("no attempt id")?;

    // Live: the first turn's read and summary show while the second turn is still on its way.
    app.wait_text("#attempt-log", |t| {
        t.contains("read calc.sh") && t.contains("Reading calc.sh first")
    })
    .await?;
    let state = app.attr("#attempt-detail", "data-state").await?;
    if state.as_deref() != Some("running") {
        return Err(format!(
            "the first turn showed only once the attempt was {state:?}, not while it ran"
        ));
    }
    app.wait_text("#attempt-elapsed", |t| !t.is_empty()).await?;
    app.save_screenshot("review_model_running").await;

    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.wait_text("#attempt-log", |t| {
        t.contains("edited calc.sh") && t.contains("Fixed the sign in add()")
    })
    .await?;
    app.wait_text("#usage", |t| t.contains("600 in") && t.contains("240 out"))
        .await?;
    // The review: the file tree, the diff, every gate passed, Switchyard's own verification.
    app.wait_text("#gates-verdict", |t| t == "all 6 passed")
        .await?;
    let sha = app.text("#diff-sha256").await?.unwrap_or_default();
    if sha.len() != 64 {
        return Err(format!("diff sha256 shown as {sha:?}"));
    }
    let tree = app
        .client
        .execute(
            "return Array.from(document.querySelectorAll('[data-tree-file]')).map(e => e.dataset.treeFile);",
            vec![],
        )
        .await
        .map_err(|e| format!("read the file tree: {e}"))?;
    if tree != json!(["calc.sh"]) {
        return Err(format!("the file tree lists {tree}, not just calc.sh"));
    }
    // The counts sit beside the file's button in its tree row.
    app.wait_text(".file-tree .tree-file", |t| {
        t.contains("calc.sh") && t.contains("+1") && t.contains("−1")
    })
    .await?;
    app.wait_for(".diff-view").await?;
    app.wait_text("#verification-log", |t| {
        t.contains("sh test.sh") && t.contains("passed") && t.contains("1 passed, 0 failed")
    })
    .await?;
    app.save_screenshot("review_model_review").await;

    let message = value(app, "#approve-message").await?;
    if message != "Make add() add" {
        return Err(format!(
            "the commit message is not prefilled from the task: {message:?}"
        ));
    }
    app.type_into("#approve-message", "Fix add() (model worker)")
        .await?;
    app.click("#approve-button").await?;
    wait_attr(app, "#attempt-detail", "data-state", "integrated").await?;
    let landed = app.text("#integrated-commit").await?.unwrap_or_default();

    // Exactly one commit on main, with exactly the model's edit.
    let log = git(
        &fx.repo,
        &["log", "--format=%H %s", &format!("{}..main", fx.base)],
    );
    let (commit, subject) = log.split_once(' ').ok_or("no commit on main")?;
    if subject != "Fix add() (model worker)" || log.lines().count() != 1 {
        return Err(format!(
            "expected exactly the approved commit on main, found {log:?}"
        ));
    }
    if landed.is_empty() || !commit.starts_with(&landed) {
        return Err(format!(
            "the page says {landed:?} landed, main has {commit}"
        ));
    }
    let changed = git(&fx.repo, &["diff", "--name-only", &fx.base, "main"]);
    if changed != "calc.sh" {
        return Err(format!("the commit changes {changed:?}, not just calc.sh"));
    }
    let calc = git(&fx.repo, &["show", "main:calc.sh"]);
    if format!("{calc}\n") != FIXED {
        return Err(format!("main's calc.sh is not the model's edit: {calc:?}"));
    }
    let parent = git(&fx.repo, &["rev-parse", "main^"]);
    if parent != fx.base {
        return Err(format!("the commit's parent is {parent}, not the base"));
    }
    // The user's own work is as it was; the fix arrived in their checkout.
    let after = fx.user_state();
    if after != before {
        return Err(format!(
            "the user's working tree changed: {before:?} → {after:?}"
        ));
    }
    let checkout = std::fs::read_to_string(fx.repo.join("calc.sh")).map_err(|e| e.to_string())?;
    if checkout != FIXED {
        return Err(format!("the checkout's calc.sh is {checkout:?}"));
    }
    let branches = git(&fx.repo, &["branch", "--list", "switchyard/*"]);
    if !branches.is_empty() || !git(&fx.repo, &["remote"]).is_empty() {
        return Err(format!(
            "left behind branches {branches:?} or a remote after integrating {id}"
        ));
    }
    Ok(())
}

/// What the scripted server was asked: two turns to `/v1/chat/completions` for `tiny`
/// through the structured-output path, the second carrying the file the first asked for.
fn check_requests(server: &TestServer) {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "two turns reached the endpoint");
    for request in &requests {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.header("authorization"),
            None,
            "a keyless endpoint gets no key"
        );
        let body = request.json();
        assert_eq!(body["model"], MODEL);
        assert_eq!(body["response_format"]["type"], "json_schema");
        assert_eq!(
            body["response_format"]["json_schema"]["name"],
            "worker_turn"
        );
    }
    let first = requests[0].json().to_string();
    assert!(first.contains("Make add() add"), "{first}");
    let second = requests[1].json();
    let last = second["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(
        last.contains(&format!(
            "===== BEGIN FILE calc.sh =====\n{CALC}===== END FILE calc.sh ====="
        )),
        "the second turn carries calc.sh: {last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_model_worker_task_from_the_form_is_watched_reviewed_and_approved() {
    if !E2e::enabled("a_model_worker_task_from_the_form_is_watched_reviewed_and_approved") {
        return;
    }
    let fx = Fixture::new();
    let home = tempfile::tempdir().expect("home");
    prepare_home(home.path()).await;
    let server = TestServer::start(vec![
        Reply::json(
            200,
            turn(&["calc.sh"], json!([]), false, "Reading calc.sh first"),
        ),
        slow(
            Duration::from_secs(3),
            turn(
                &[],
                json!([{"path": "calc.sh", "search": "$(($1 - $2))", "replace": "$(($1 + $2))"}]),
                true,
                "Fixed the sign in add()",
            ),
        ),
    ])
    .await;
    let (fx_ref, server_ref) = (&fx, &server);
    E2e::run(
        "review_model_worker",
        Launch::with_home(home.path()),
        |app| async move {
            let result = model_attempt_approved(&app, fx_ref, server_ref).await;
            (app, result)
        },
    )
    .await;
    check_requests(&server);
}

async fn gates_block_approve(app: &App, fx: &Fixture, server: &TestServer) -> E2eResult {
    let before = fx.user_state();
    add_provider(app, server).await?;
    fill_model_task(app, &fx.repo, "Make add() add").await?;
    app.click("#task-self-review").await?;
    app.click("#task-start").await?;
    app.wait_for("#attempt-detail").await?;
    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.wait_text("#gates-verdict", |t| t == "2 of 6 blocked")
        .await?;
    // The model's own reading sits beside the gates, labelled as its own; it decides nothing.
    wait_attr(app, "#self-review", "data-state", "written").await?;
    app.wait_text("#self-review-risks", |t| {
        t.contains("touches the CI workflow")
    })
    .await?;
    app.wait_text("#self-review", |t| t.contains("not a check"))
        .await?;
    app.scroll_to("#self-review").await?;
    app.save_screenshot("review_model_self_review").await;
    // Each failed gate says why, with its evidence.
    app.wait_text("[data-gate='lockedPaths'][data-passed='false']", |t| {
        t.contains(".github/workflows/ci.yml")
    })
    .await?;
    app.wait_text("[data-gate='verification'][data-passed='false']", |t| {
        !t.is_empty()
    })
    .await?;
    app.wait_text("[data-gate='escape'][data-passed='true']", |t| {
        !t.is_empty()
    })
    .await?;
    app.wait_text(
        "#verification-log .verify-command[data-passed='false']",
        |t| t.contains("sh test.sh") && t.contains("exit 1") && t.contains("0 passed, 1 failed"),
    )
    .await?;
    // Approve is blocked, and the page says why in words.
    let disabled = app.attr("#approve-button", "disabled").await?;
    if disabled.is_none() {
        return Err("Approve is enabled although two gates failed".into());
    }
    let reason = app.wait_text("#approve-blocked", |t| !t.is_empty()).await?;
    if !(reason.contains("Locked paths") && reason.contains("Verification"))
        || reason.contains("LockedPaths")
    {
        return Err(format!(
            "the blocked reason does not name the failed gates plainly: {reason:?}"
        ));
    }
    app.scroll_to("#gates-panel").await?;
    app.save_screenshot("review_model_gates_failed").await;
    // Nothing reached the repository.
    let main = git(&fx.repo, &["rev-parse", "main"]);
    if main != fx.base {
        return Err(format!("main moved to {main} although approve was blocked"));
    }
    if fx.user_state() != before {
        return Err("the user's working tree changed".into());
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn failed_gates_show_their_evidence_and_block_approve() {
    if !E2e::enabled("failed_gates_show_their_evidence_and_block_approve") {
        return;
    }
    let fx = Fixture::new();
    let home = tempfile::tempdir().expect("home");
    prepare_home(home.path()).await;
    // The model multiplies (verification fails) and edits the CI workflow (a locked path),
    // then, asked for a self-review, names one of its risks.
    let self_review = json!({
        "risks": ["touches the CI workflow, which the task did not ask for"],
        "filesTouched": ["calc.sh: add() rewritten", ".github/workflows/ci.yml: emptied"],
        "testsAdded": [],
    })
    .to_string();
    let server = TestServer::start(vec![
        Reply::json(
            200,
            turn(
                &[],
                json!([
                    {"path": "calc.sh", "content": "add() { echo $(($1 * $2)); }\n"},
                    {"path": ".github/workflows/ci.yml", "content": "on: push\njobs: {}\n"}
                ]),
                true,
                "Fixed add() and the tests pass",
            ),
        ),
        Reply::sse(wire::openai_stream(MODEL, &[&self_review], Some((400, 60)))),
    ])
    .await;
    let (fx_ref, server_ref) = (&fx, &server);
    E2e::run(
        "review_model_gates_failed",
        Launch::with_home(home.path()),
        |app| async move {
            let result = gates_block_approve(&app, fx_ref, server_ref).await;
            (app, result)
        },
    )
    .await;
    // The worker's one turn, and its self-review.
    assert_eq!(server.requests().len(), 2);
}
