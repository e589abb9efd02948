//! Code plans and swarms in real git repositories: each step is an attempt in its own
//! worktree from the run branch `switchyard/run-<id>`; Switchyard merges a step whose gates
//! pass into that branch, dependents start from it, a conflict between steps stops that
//! branch of the DAG with the files named, and one combined attempt — re-verified — goes to
//! review. Nothing reaches the user's branch before the human approves.

mod attempts_support;

use std::time::Duration;

use attempts_support::{git, Fixture};
use switchyard_core::attempt::AttemptState;
use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::routing::plan::{Plan, PlanOrigin, PlanStep};
use switchyard_core::routing::{Budget, Needs};
use switchyard_core::run::{NodeRole, NodeState, RunDetail, RunMode, RunRequest, RunState};
use switchyard_engine::Engine;

/// One worker for every step: it reads its step id from the prompt (`# Your step (<id>)`)
/// and does that step's edit. `c` needs `a.txt` and `b.txt` in its worktree, which only the
/// run branch gives it.
const STEPS: &str = r#"step=$(printf '%s\n' "$SWITCHYARD_TASK" | sed -n 's/^# Your step (\([a-z0-9]*\)).*/\1/p' | head -n 1)
case "$step" in
  a) echo alpha > a.txt ;;
  b) echo beta > b.txt ;;
  c) [ -f a.txt ] && [ -f b.txt ] || { echo "c started without a and b" >&2; exit 3; }
     cat a.txt b.txt > c.txt ;;
  x) printf '# changed by x\n' > README.md ;;
  y) printf '# changed by y\n' > README.md ;;
  *) echo "unknown step '$step'" >&2; exit 4 ;;
esac
echo "did $step"
"#;

fn step(id: &str, deps: &[&str]) -> PlanStep {
    PlanStep {
        id: id.into(),
        task: format!("do step {id}"),
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

fn request(fx: &Fixture, mode: RunMode, steps: Vec<PlanStep>) -> RunRequest {
    let task = "build the feature in steps";
    let mut req = RunRequest::new(task, mode);
    req.repo = Some(fx.repo_str());
    req.allow_write = vec![fx.probe("").display().to_string()];
    req.verify = Some(vec!["test -f README.md".into()]);
    req.worker = Some(fx.worker("steps", STEPS));
    req.launcher = "test".into();
    req.plan = Some(match mode {
        RunMode::Plan => Plan::Sequential {
            task: task.into(),
            steps,
            edges: Vec::new(),
            warnings: Vec::new(),
            origin: PlanOrigin::Deterministic,
        },
        _ => Plan::Swarm {
            task: task.into(),
            nodes: steps,
            edges: Vec::new(),
            warnings: Vec::new(),
            origin: PlanOrigin::Deterministic,
        },
    });
    req
}

async fn wait(engine: &Engine, id: &str) -> RunDetail {
    tokio::time::timeout(Duration::from_secs(180), engine.wait_run(id))
        .await
        .expect("the run ended in time")
        .expect("wait")
}

fn node<'a>(detail: &'a RunDetail, id: &str) -> &'a switchyard_core::run::NodeView {
    detail
        .nodes
        .iter()
        .find(|n| n.id == id)
        .unwrap_or_else(|| panic!("no node {id}: {:#?}", detail.nodes))
}

fn attempt_of(detail: &RunDetail, id: &str) -> String {
    node(detail, id)
        .attempts
        .last()
        .and_then(|a| a.attempt_id.clone())
        .unwrap_or_else(|| panic!("node {id} has no attempt: {:#?}", detail.nodes))
}

fn files_at(fx: &Fixture, rev: &str) -> Vec<String> {
    git(&fx.repo, &["ls-tree", "--name-only", rev])
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_code_swarm_merges_each_step_into_the_run_branch_and_reviews_the_combined_change() {
    let fx = Fixture::new();
    let before = fx.head();
    let engine = fx.engine().await;
    let req = request(
        &fx,
        RunMode::Swarm,
        vec![step("a", &[]), step("b", &[]), step("c", &["a", "b"])],
    );
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    for id in ["a", "b", "c"] {
        assert_eq!(node(&detail, id).state, NodeState::Approved, "{id}");
        let review = engine
            .attempt_review(&attempt_of(&detail, id))
            .await
            .expect("step review");
        assert_eq!(review.summary.state, AttemptState::Integrated, "{id}");
        let integration = review.integration.expect("merged");
        assert_eq!(integration.branch, format!("switchyard/run-{}", run.id));
        // Its worktree is gone once merged.
        assert!(!fx.worktree(&review.summary.id).exists(), "{id}");
    }
    // `c` started from the branch its dependencies were merged into.
    let branch = format!("switchyard/run-{}", run.id);
    let on_branch = files_at(&fx, &branch);
    for file in ["a.txt", "b.txt", "c.txt"] {
        assert!(on_branch.contains(&file.to_owned()), "{on_branch:?}");
    }
    assert_eq!(
        git(&fx.repo, &["show", &format!("{branch}:c.txt")]),
        "alpha\nbeta"
    );
    // The combined node is the one result in review: the whole change, gates re-run.
    let combined = node(&detail, "combined");
    assert_eq!(combined.role, NodeRole::Merge);
    assert_eq!(combined.state, NodeState::Review);
    // Its context trace names the run's task and the three steps it combines.
    assert_eq!(combined.trace.items.len(), 4, "{:#?}", combined.trace);
    let review = engine
        .attempt_review(&attempt_of(&detail, "combined"))
        .await
        .expect("combined review");
    assert_eq!(review.summary.state, AttemptState::Review);
    assert_eq!(review.summary.base, before);
    let mut changed: Vec<String> = review
        .diff
        .as_ref()
        .expect("diff")
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    changed.sort();
    assert_eq!(changed, ["a.txt", "b.txt", "c.txt"]);
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    assert!(review.verification.is_some(), "Switchyard re-verified");
    // Nothing reached the user's branch yet.
    assert_eq!(fx.head(), before);

    let approved = engine
        .approve_run(&run.id, None, "")
        .await
        .expect("approve");
    assert_eq!(approved.summary.state, RunState::Integrated);
    let on_main = files_at(&fx, "main");
    for file in ["a.txt", "b.txt", "c.txt"] {
        assert!(on_main.contains(&file.to_owned()), "{on_main:?}");
    }
    assert_eq!(git(&fx.repo, &["rev-parse", "main^"]), before, "one commit");
    engine.close().await;
}

#[tokio::test]
async fn a_plan_with_code_steps_runs_them_in_order_on_the_run_branch() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // Sequential: `c` runs after `b`, which runs after `a`; `c` needs both files.
    let req = request(
        &fx,
        RunMode::Plan,
        vec![step("a", &[]), step("b", &[]), step("c", &[])],
    );
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    let started = |id: &str| node(&detail, id).started_ms.expect("started");
    let finished = |id: &str| node(&detail, id).finished_ms.expect("finished");
    assert!(started("b") >= finished("a"));
    assert!(started("c") >= finished("b"));
    assert_eq!(node(&detail, "c").state, NodeState::Approved);
    engine.close().await;
}

#[tokio::test]
async fn a_conflict_between_swarm_steps_stops_that_branch_and_names_the_files() {
    let fx = Fixture::new();
    let before = fx.head();
    let engine = fx.engine().await;
    // `x` and `y` rewrite the same line of README.md in parallel; `c` needs both; `a` is
    // independent and still merges.
    let mut dependent = step("c", &["x", "y"]);
    dependent.task = "do step c".into();
    let req = request(
        &fx,
        RunMode::Swarm,
        vec![step("x", &[]), step("y", &[]), step("a", &[]), dependent],
    );
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id).await;
    let (x, y) = (node(&detail, "x"), node(&detail, "y"));
    let (merged, conflicted) = match (x.state, y.state) {
        (NodeState::Approved, NodeState::Failed) => (x, y),
        (NodeState::Failed, NodeState::Approved) => (y, x),
        other => panic!(
            "one of x and y merges, the other conflicts: {other:?} {:#?}",
            detail.nodes
        ),
    };
    let error = conflicted.error.as_ref().expect("the conflict is reported");
    assert_eq!(error.code, ErrorCode::Conflict, "{error:?}");
    assert!(error.message.contains("README.md"), "{}", error.message);
    assert_eq!(node(&detail, "c").state, NodeState::Skipped);
    assert_eq!(node(&detail, "a").state, NodeState::Approved);
    // The conflicting attempt is rejected with the reason; its diff stays on record.
    let lost = engine
        .attempt_review(&attempt_of(&detail, &conflicted.id))
        .await
        .expect("lost review");
    assert_eq!(lost.summary.state, AttemptState::Rejected);
    assert!(lost.diff.is_some());
    // The run still brings what merged to review.
    assert_eq!(detail.summary.state, RunState::Review);
    let review = engine
        .attempt_review(&attempt_of(&detail, "combined"))
        .await
        .expect("combined");
    let mut changed: Vec<String> = review
        .diff
        .expect("diff")
        .files
        .into_iter()
        .map(|f| f.path)
        .collect();
    changed.sort();
    assert_eq!(changed, ["README.md", "a.txt"]);
    assert_eq!(
        git(
            &fx.repo,
            &["show", &format!("switchyard/run-{}:README.md", run.id)]
        ),
        format!("# changed by {}", merged.id)
    );
    assert_eq!(fx.head(), before);
    // Rejecting the run leaves the user's branch alone.
    let rejected = engine.reject_run(&run.id, "not now").await.expect("reject");
    assert_eq!(rejected.summary.state, RunState::Failed);
    assert_eq!(fx.head(), before);
    engine.close().await;
}

#[tokio::test]
async fn pause_before_integration_stops_with_the_steps_merged_and_resume_combines_them() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = request(&fx, RunMode::Swarm, vec![step("a", &[]), step("b", &[])]);
    req.pause_before_integration = true;
    let run = engine.start_run(req).await.expect("start");
    let paused = wait(&engine, &run.id).await;
    assert_eq!(
        paused.summary.state,
        RunState::Paused,
        "{:#?}",
        paused.nodes
    );
    assert_eq!(node(&paused, "a").state, NodeState::Approved);
    assert_eq!(node(&paused, "b").state, NodeState::Approved);
    let combined = node(&paused, "combined");
    assert_eq!(combined.state, NodeState::Pending);
    assert!(combined.attempts.is_empty(), "not started");
    let branch = format!("switchyard/run-{}", run.id);
    let on_branch = files_at(&fx, &branch);
    assert!(on_branch.contains(&"a.txt".to_owned()) && on_branch.contains(&"b.txt".to_owned()));

    engine.resume_run(&run.id).await.expect("resume");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "resuming does not pause again: {:#?}",
        detail.nodes
    );
    assert_eq!(node(&detail, "combined").state, NodeState::Review);
    // The steps were not run again.
    assert_eq!(node(&detail, "a").attempts.len(), 1);
    engine.close().await;
}

#[tokio::test]
async fn an_interrupted_code_swarm_recovers_keeping_merged_steps_and_starting_from_the_run_branch()
{
    let fx = Fixture::new();
    // `b` hangs on its first try (until the engine closes), then does its edit; it depends on
    // `a`, which merges first and must not run again.
    let marker = fx.probe("b-first-try");
    let count = fx.probe("a-runs");
    let seconds = attempts_support::own_seconds("977.5");
    let body = format!(
        r#"step=$(printf '%s\n' "$SWITCHYARD_TASK" | sed -n 's/^# Your step (\([a-z0-9]*\)).*/\1/p' | head -n 1)
case "$step" in
  a) echo run >> {count}; echo alpha > a.txt ;;
  b) [ -f a.txt ] || exit 3
     if [ -f {marker} ]; then echo beta > b.txt; else touch {marker}; sleep {seconds}; fi ;;
esac
"#,
        count = count.display(),
        marker = marker.display(),
    );
    let engine = fx.engine().await;
    let mut req = request(&fx, RunMode::Swarm, vec![step("a", &[]), step("b", &["a"])]);
    req.worker = Some(fx.worker("hangs", &body));
    let run = engine.start_run(req).await.expect("start");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !attempts_support::process_with(&seconds) {
        assert!(std::time::Instant::now() < deadline, "b never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    engine.close().await;
    drop(engine);
    assert!(
        !attempts_support::process_with(&seconds),
        "closing stopped b's worker"
    );

    let engine = fx.engine().await;
    assert_eq!(
        engine.run_summary(&run.id).await.expect("summary").state,
        RunState::Interrupted
    );
    engine.recover_run(&run.id).await.expect("recover");
    let detail = wait(&engine, &run.id).await;
    assert_eq!(
        detail.summary.state,
        RunState::Review,
        "{:#?}",
        detail.nodes
    );
    assert_eq!(node(&detail, "a").state, NodeState::Approved);
    assert_eq!(
        node(&detail, "b").state,
        NodeState::Approved,
        "{:#?}",
        node(&detail, "b")
    );
    assert_eq!(
        std::fs::read_to_string(&count)
            .expect("a ran")
            .lines()
            .count(),
        1,
        "the merged step was not run again"
    );
    let branch = format!("switchyard/run-{}", run.id);
    let on_branch = files_at(&fx, &branch);
    assert!(on_branch.contains(&"a.txt".to_owned()) && on_branch.contains(&"b.txt".to_owned()));
    // No worktree is orphaned: besides the combined attempt's (in review), only b's
    // canceled first try keeps its worktree, for the retention the user set.
    let combined = attempt_of(&detail, "combined");
    let worktrees = std::fs::read_dir(fx.home.join("worktrees"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    assert!(worktrees.contains(&combined), "{worktrees:?}");
    for id in worktrees.iter().filter(|w| **w != combined) {
        let state = engine
            .attempt_summary(id)
            .await
            .expect("a known attempt")
            .state;
        assert_eq!(state, AttemptState::Canceled, "{id}");
    }
    assert!(worktrees.len() <= 2, "{worktrees:?}");
    engine.close().await;
}
