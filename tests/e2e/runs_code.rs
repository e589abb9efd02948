//! Code swarms on the Runs page, in the real window: two runs made beforehand by the engine on
//! the same data directory against a real git repository — one whose steps all merged into
//! the run branch, one where two steps rewrote the same line — shown as the user meets them:
//! the merged steps, the conflict with its file, the combined result awaiting review; then the
//! run page's Approve integrates the combined change into the user's branch.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchyard_core::catalog::card::Category;
use switchyard_core::routing::plan::{Plan, PlanOrigin, PlanStep};
use switchyard_core::routing::{Budget, Needs};
use switchyard_core::run::{RunMode, RunRequest, RunState};
use switchyard_engine::{Engine, EngineConfig};

use crate::harness::{App, E2e, E2eResult, Launch};
use crate::review::git;
use crate::review_model::prepare_home;

/// Every step's worker: it reads its step from the prompt and makes that step's edit.
const STEPS: &str = r#"step=$(printf '%s\n' "$SWITCHYARD_TASK" | sed -n 's/^# Your step (\([a-z0-9-]*\)).*/\1/p' | head -n 1)
case "$step" in
  schema) printf 'CREATE TABLE users (id INTEGER PRIMARY KEY);\n' > schema.sql ;;
  api) printf 'GET /users\n' > api.txt ;;
  docs) cat schema.sql api.txt > docs.md ;;
  title-a) printf '# Calculator service\n' > README.md ;;
  title-b) printf '# The calculator\n' > README.md ;;
  *) echo "unknown step $step" >&2; exit 4 ;;
esac
echo "did $step"
"#;

const WAIT: Duration = Duration::from_secs(60);

fn step(id: &str, task: &str, deps: &[&str]) -> PlanStep {
    PlanStep {
        id: id.into(),
        task: task.into(),
        category: Category::General,
        budget: Budget::default(),
        model: None,
        depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
        wave: None,
        phase: None,
        artifacts: Vec::new(),
        needs: Needs::default(),
        notes: Vec::new(),
    }
}

fn swarm(repo: &Path, worker: &str, task: &str, steps: Vec<PlanStep>) -> RunRequest {
    let mut req = RunRequest::new(task, RunMode::Swarm);
    req.repo = Some(repo.display().to_string());
    req.verify = Some(vec!["test -f README.md".into()]);
    req.worker = Some(worker.to_owned());
    req.launcher = "cli".into();
    req.plan = Some(Plan::Swarm {
        task: task.into(),
        nodes: steps,
        edges: Vec::new(),
        warnings: Vec::new(),
        origin: PlanOrigin::Deterministic,
    });
    req
}

/// The repository, the two runs in review, and the data directory they are in.
struct Seeded {
    _root: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
    merged: String,
    conflicted: String,
}

/// Under `root`: a git repository `name` on `main` with one commit of a README saying
/// `readme`, and a prepared data directory `home`; an engine open on that directory.
async fn repo_and_engine(
    root: &Path,
    name: &str,
    readme: &str,
) -> (PathBuf, PathBuf, std::sync::Arc<Engine>) {
    let repo = root.join(name);
    let home = root.join("home");
    std::fs::create_dir_all(&repo).expect("repo");
    std::fs::create_dir_all(&home).expect("home");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("README.md"), readme).expect("write");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "initial"]);
    prepare_home(&home).await;
    let engine = std::sync::Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.clone()),
        })
        .await
        .expect("engine"),
    );
    (repo, home, engine)
}

async fn seed() -> Seeded {
    let root = tempfile::tempdir().expect("tempdir");
    let (repo, home, engine) = repo_and_engine(root.path(), "users-service", "# users\n").await;
    let worker_path = root.path().join("steps.sh");
    std::fs::write(&worker_path, STEPS).expect("worker");
    let worker = format!("exec:sh {}", worker_path.display());
    let merged = engine
        .start_run(swarm(
            &repo,
            &worker,
            "Add a users table, its API and docs",
            vec![
                step("schema", "Write the users table schema", &[]),
                step("api", "Describe the users API", &[]),
                step(
                    "docs",
                    "Document the schema and the API",
                    &["schema", "api"],
                ),
            ],
        ))
        .await
        .expect("start merged");
    let conflicted = engine
        .start_run(swarm(
            &repo,
            &worker,
            "Retitle the README two ways",
            vec![
                step("title-a", "Title the README 'Calculator service'", &[]),
                step("title-b", "Title the README 'The calculator'", &[]),
                step("schema", "Write the users table schema", &[]),
            ],
        ))
        .await
        .expect("start conflicted");
    for id in [&merged.id, &conflicted.id] {
        let detail = tokio::time::timeout(WAIT, engine.wait_run(id))
            .await
            .expect("seeded run ended in time")
            .expect("wait");
        assert_eq!(
            detail.summary.state,
            RunState::Review,
            "{:#?}",
            detail.nodes
        );
    }
    engine.close().await;
    Seeded {
        _root: root,
        repo,
        home,
        merged: merged.id,
        conflicted: conflicted.id,
    }
}

async fn open_run(app: &App, id: &str) -> E2eResult {
    app.client
        .execute("location.hash = '#/runs/' + arguments[0];", vec![id.into()])
        .await
        .map_err(|e| format!("open run {id}: {e}"))?;
    app.wait_for(&format!("#run-detail[data-run='{id}']"))
        .await?;
    Ok(())
}

async fn wait_state(app: &App, id: &str, state: &str) -> E2eResult {
    let css = format!("#run-detail[data-run='{id}'][data-state='{state}']");
    let start = std::time::Instant::now();
    while start.elapsed() < WAIT {
        if app
            .client
            .find(fantoccini::Locator::Css(&css))
            .await
            .is_ok()
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("run {id} never showed {state}"))
}

async fn review_the_swarms(app: &App, seeded: &Seeded) -> E2eResult {
    // The user opens the Runs page and finds both runs there. (Changing the hash while the
    // window is still loading its first page has stalled WebKitWebDriver's session for good.)
    app.goto("runs").await?;
    app.wait_for("#runs-list[data-count='2']").await?;
    // The conflict: the step that lost is failed with its file named; the rest goes on.
    open_run(app, &seeded.conflicted).await?;
    wait_state(app, &seeded.conflicted, "review").await?;
    let page = app.text("#run-detail").await?.unwrap_or_default();
    for needed in [
        "title-a",
        "title-b",
        "combined",
        "Approve combined and integrate",
    ] {
        if !page.contains(needed) {
            return Err(format!(
                "the conflicted run's page lacks {needed:?}: {page}"
            ));
        }
    }
    app.save_screenshot("runs_code_conflict").await;
    let failed = app
        .client
        .execute(
            "const nodes = Array.from(document.querySelectorAll('[data-node][data-state=\"failed\"]')); \
             return nodes.map(n => n.getAttribute('data-node'));",
            vec![],
        )
        .await
        .map_err(|e| format!("failed nodes: {e}"))?;
    let failed: Vec<String> = serde_json::from_value(failed).unwrap_or_default();
    let Some(lost) = failed.first() else {
        return Err("no step is shown failed".into());
    };
    app.click(&format!("[data-node='{lost}']")).await?;
    let panel = app
        .wait_text(".node-panel", |t| t.contains("README.md"))
        .await
        .map_err(|e| format!("the conflict's file is not shown: {e}"))?;
    if !panel.contains("conflict") {
        return Err(format!(
            "the node panel does not say it conflicted: {panel}"
        ));
    }
    app.scroll_to(".node-panel").await?;
    app.save_screenshot("runs_code_conflict_node").await;

    // The merged swarm: approve its combined change from the run page.
    open_run(app, &seeded.merged).await?;
    wait_state(app, &seeded.merged, "review").await?;
    app.save_screenshot("runs_code_swarm_review").await;
    app.click("#run-approve").await?;
    wait_state(app, &seeded.merged, "integrated").await?;
    app.save_screenshot("runs_code_swarm_integrated").await;
    let on_main = git(&seeded.repo, &["ls-tree", "--name-only", "main"]);
    for file in ["schema.sql", "api.txt", "docs.md"] {
        if !on_main.lines().any(|l| l == file) {
            return Err(format!("{file} is not on main after approving: {on_main}"));
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_code_swarm_shows_its_merged_steps_and_conflict_and_approves_the_combined_change() {
    if !E2e::enabled("runs_code") {
        return;
    }
    let seeded = seed().await;
    let home = seeded.home.clone();
    E2e::run("runs_code", Launch::with_home(&home), |app| async move {
        let result = review_the_swarms(&app, &seeded).await;
        (app, result)
    })
    .await;
}

/// A code run another process executes (this test's engine, as for the CLI or an agent's MCP
/// server) shows its worker's output in the run page while the worker runs: the node's pane
/// has a line within a second of the worker printing it, and the run ends in review.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_code_runs_worker_output_streams_into_the_open_run_page() {
    E2e::enabled("a_code_runs_worker_output_streams_into_the_open_run_page");
    let root = tempfile::tempdir().expect("tempdir");
    let (repo, home, engine) = repo_and_engine(root.path(), "calc", "# calc\n").await;
    // 12 lines, 400 ms apart: "line 3" leaves the worker about 3.6 s before it ends.
    let chatty: String = (1..=12)
        .map(|n| format!("echo 'worker line {n}'\nsleep 0.4\n"))
        .collect();
    let worker_path = root.path().join("chatty.sh");
    std::fs::write(&worker_path, format!("{chatty}echo done > NOTES.md\n")).expect("worker");
    let owner = engine.clone();
    E2e::run(
        "runs_code_live",
        Launch::with_home(&home),
        |app| async move {
            let result = async {
                app.goto("runs").await?;
                let mut req = RunRequest::new("Write the notes", RunMode::Single);
                req.repo = Some(repo.display().to_string());
                req.verify = Some(vec!["test -f NOTES.md".into()]);
                req.worker = Some(format!("exec:sh {}", worker_path.display()));
                req.launcher = "cli".into();
                let run = owner
                    .start_run(req)
                    .await
                    .map_err(|e| format!("start: {e}"))?;
                open_run(&app, &run.id).await?;
                app.wait_text(".live-text", |t| t.contains("worker line 3"))
                    .await
                    .map_err(|e| format!("the worker's output never showed while it ran: {e}"))?;
                let line3 = std::time::Instant::now();
                app.save_screenshot("runs_code_live").await;
                wait_state(&app, &run.id, "review").await?;
                let before = line3.elapsed();
                // Line 3 leaves the worker ~3.6 s before its end (9 more lines 400 ms apart), and
                // the gates and verification come after: shown 2.6 s or more before review, it was
                // on the page within a second of being printed.
                if before < Duration::from_millis(2600) {
                    return Err(format!(
                        "\"worker line 3\" showed only {before:?} before review"
                    ));
                }
                eprintln!("a code run's worker output: line 3 showed {before:?} before review");
                // Opened again after the node ended: its worker output is still there.
                app.goto("runs").await?;
                open_run(&app, &run.id).await?;
                app.wait_text("#run-node-worker-output", |t| t.contains("worker line 12"))
                    .await
                    .map_err(|e| format!("the ended node's worker output was not shown: {e}"))?;
                app.client
                    .execute(
                        "document.querySelector('#run-node-worker-output').scrollIntoView();",
                        vec![],
                    )
                    .await
                    .map_err(|e| format!("scroll: {e}"))?;
                app.save_screenshot("runs_code_ended_output").await;
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
    engine.close().await;
}
