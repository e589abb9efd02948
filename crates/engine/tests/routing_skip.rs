//! A routed cascade skips a cheap rung for the kind of task it keeps failing, not for its
//! whole category: the cheap model's recorded outcomes pass every Python task and fail every
//! Rust one, so a Rust task's launch preview leaves it out (and says why, with the feature)
//! while a Python task's keeps it. One test per file: it sets a provider key in the process
//! environment before any runtime exists.

mod runs_support;
mod support;

use runs_support::{engine, model_server, Behavior};
use switchyard_core::catalog::card::Category;
use switchyard_core::outcomes::{OutcomeKind, OutcomeRecord, TaskFeatures};
use switchyard_core::run::{RunMode, RunRequest};
use switchyard_store::journal::Journal;
use switchyard_store::outcomes::JobBehind;
use switchyard_store::{Store, DATABASE_FILE};

const RUST_TASK: &str =
    "Fix the borrow checker error in this Rust function that returns a reference to a local Vec";
const PYTHON_TASK: &str = "Fix the failing pytest in this Python function that parses ISO dates";

fn outcome(id: usize, model: &str, stack: &str, succeeded: bool, now: i64) -> OutcomeRecord {
    OutcomeRecord {
        kind: OutcomeKind::Node,
        id: format!("seed{id}/n1"),
        run_id: Some(format!("seed{id}")),
        node_id: Some("n1".into()),
        finished_ms: now - 60_000,
        task: TaskFeatures {
            stack: vec![stack.to_owned()],
            task_tokens: 20,
            ..TaskFeatures::bare(Category::Coding)
        },
        worker: None,
        model: Some(model.to_owned()),
        state: if succeeded { "done" } else { "failed" }.into(),
        verified: Some(succeeded),
        gates_passed: None,
        decision: None,
        succeeded,
        cost_usd: 0.001,
        latency_ms: Some(1000),
        tokens_in: Some(1000),
        tokens_out: Some(200),
        escalated: false,
        launcher: "cli".into(),
    }
}

fn cascade(task: &str) -> RunRequest {
    let mut request = RunRequest::new(task, RunMode::Cascade);
    request.launcher = "cli".into();
    request
}

#[test]
fn a_cheap_rung_is_skipped_for_rust_tasks_it_fails_and_kept_for_python_tasks_it_passes() {
    support::with_env_var("OPENAI_API_KEY", "sk-test-not-sent", || async {
        let server = model_server(|_| Behavior::answer("unused")).await;
        let home = tempfile::tempdir().expect("home");
        let engine = engine(home.path(), &server).await;
        for task in [RUST_TASK, PYTHON_TASK] {
            let category = switchyard_core::routing::classify(task).category;
            assert_eq!(category, Category::Coding, "{task}");
        }
        let before = engine
            .preview_run(cascade(RUST_TASK))
            .await
            .expect("preview");
        let ladder = before.ladder.expect("a routed ladder");
        assert!(ladder.rungs.len() >= 2, "{ladder:?}");
        assert!(ladder.skipped.is_empty(), "no outcomes yet: {ladder:?}");
        let cheap = ladder.rungs[0].model.clone();

        // The cheap rung's history: 12 Python tasks passed, 4 Rust ones failed — 75 % of
        // coding, so its category estimate alone keeps it the cheap pick.
        let now = chrono::Utc::now().timestamp_millis();
        let records: Vec<OutcomeRecord> = (0..16)
            .map(|i| {
                let python = i % 4 != 0;
                outcome(
                    i,
                    &cheap,
                    if python { "python" } else { "rust" },
                    python,
                    now,
                )
            })
            .collect();
        let store = Store::open(&home.path().join(DATABASE_FILE))
            .await
            .expect("store");
        store
            .replace_outcomes(
                &JobBehind {
                    journal: Journal::Run,
                    id: "seeded".into(),
                    version: 1,
                },
                &records,
            )
            .await
            .expect("seed outcomes");
        store.close().await;

        let rust = engine
            .preview_run(cascade(RUST_TASK))
            .await
            .expect("preview");
        let rust_ladder = rust.ladder.expect("ladder");
        assert!(
            rust_ladder.rungs.iter().all(|r| r.model != cheap),
            "{cheap} is still a rung: {rust_ladder:?}"
        );
        let skipped = rust_ladder
            .skipped
            .iter()
            .find(|s| s.model == cheap)
            .unwrap_or_else(|| panic!("{cheap} not skipped: {rust_ladder:?}"));
        assert!(
            skipped.reason.contains("12 of 16 verified for coding")
                && skipped.reason.contains("0 of 4 with stack:rust"),
            "{}",
            skipped.reason
        );
        assert!(skipped.estimate < 0.3, "{}", skipped.estimate);
        assert!(
            rust.warnings.iter().any(|w| w == &skipped.reason),
            "the preview says so: {:?}",
            rust.warnings
        );

        let python = engine
            .preview_run(cascade(PYTHON_TASK))
            .await
            .expect("preview");
        let python_ladder = python.ladder.expect("ladder");
        assert_eq!(python_ladder.rungs[0].model, cheap, "{python_ladder:?}");
        assert!(python_ladder.skipped.is_empty(), "{python_ladder:?}");
        engine.close().await;
    });
}
