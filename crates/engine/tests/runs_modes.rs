//! The run modes over text nodes, end to end through the engine against the model server on
//! 127.0.0.1: single, collective (with a failed member and a merge saying what it used),
//! plan (steps in order, each told the previous outputs) and swarm (a dependent starts as
//! soon as its own dependency finishes, not when its wave does), plus preview and refusals.

mod runs_support;

use std::time::{Duration, Instant};

use runs_support::*;
use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::routing::plan::{Plan, PlanOrigin, PlanStep};
use switchyard_core::routing::{Budget, BudgetTier, Needs};
use switchyard_core::run::{NodeState, RunFilter, RunLog, RunMode, RunState};
use switchyard_engine::EngineEvent;

fn step(id: &str, task: &str, deps: &[&str]) -> PlanStep {
    PlanStep {
        id: id.into(),
        task: task.into(),
        category: Category::General,
        budget: Budget::default(),
        model: Some(MINI.into()),
        depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
        wave: None,
        phase: None,
        artifacts: Vec::new(),
        needs: Needs::default(),
        notes: Vec::new(),
    }
}

fn swarm(task: &str, nodes: Vec<PlanStep>) -> Plan {
    Plan::Swarm {
        task: task.into(),
        nodes,
        edges: Vec::new(),
        warnings: Vec::new(),
        origin: PlanOrigin::Deterministic,
    }
}

/// The id in `# Your step (<id>)` of a step's prompt.
fn step_of(prompt: &str) -> Option<String> {
    let rest = prompt.split("# Your step (").nth(1)?;
    Some(rest.split(')').next()?.to_owned())
}

#[tokio::test]
async fn a_single_run_streams_stores_and_prices_its_answer_persisting_before_broadcasting() {
    let server = model_server(|_| Behavior::Answer {
        text: "Paris is the capital of France.".into(),
        latency: Duration::from_millis(20),
        usage: (1000, 200),
        finish: "stop",
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut events = engine.subscribe();
    let started = engine
        .start_run(request(
            RunMode::Single,
            "What is the capital of France?",
            &[GPT4O],
        ))
        .await
        .expect("start");
    assert_eq!(started.state, RunState::Queued);
    assert_eq!(started.launcher, "test");
    let id = started.id.clone();

    // Every state event is readable from the stored log the moment it arrives.
    let checker = {
        let engine = engine.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let mut states = Vec::new();
            let mut streamed = String::new();
            loop {
                match events.recv().await {
                    Ok(EngineEvent::RunState { run_id, state, seq }) if run_id == id => {
                        let log = engine.run_log(&id, seq - 1).await.expect("log");
                        assert!(
                            matches!(log.first().map(|e| &e.entry), Some(RunLog::State { state: s, .. }) if *s == state),
                            "event {seq} was broadcast before it was stored"
                        );
                        states.push(state);
                        if !state.is_live() {
                            return (states, streamed);
                        }
                    }
                    Ok(EngineEvent::RunNode { run_id, seq, .. }) if run_id == id => {
                        assert!(!engine.run_log(&id, seq - 1).await.expect("log").is_empty());
                    }
                    Ok(EngineEvent::RunOutput {
                        run_id,
                        offset,
                        text,
                        ..
                    }) if run_id == id => {
                        streamed.truncate(offset as usize);
                        streamed.push_str(&text);
                    }
                    Ok(_) => {}
                    Err(error) => panic!("events: {error}"),
                }
            }
        })
    };
    let detail = wait(&engine, &id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let (states, streamed) = checker.await.expect("checker");
    assert_eq!(
        states,
        [RunState::Queued, RunState::Running, RunState::Completed]
    );
    assert_eq!(streamed, "Paris is the capital of France.");

    let node = &detail.nodes[0];
    assert_eq!(node.state, NodeState::Done);
    assert_eq!(node.model.as_deref(), Some(GPT4O));
    assert_eq!((node.tokens_in, node.tokens_out), (1000, 200));
    let cost = (1000.0 * 2.5 + 200.0 * 10.0) / 1e6;
    assert!((node.cost_usd - cost).abs() < 1e-12, "{}", node.cost_usd);
    assert!((detail.summary.cost_usd - cost).abs() < 1e-12);
    assert_eq!(detail.reserved_usd, 0.0);
    assert_eq!(node.attempts.len(), 1);
    assert!(
        node.attempts[0].reserved_usd >= cost,
        "the worst case bounds the cost"
    );
    assert_eq!(node.trace.items[0].source, "task");
    assert!(
        detail.summary.savings_usd.is_some(),
        "savings against the baseline"
    );
    assert!(detail.baseline_model.is_some());

    let output = engine.run_output(&id, None).await.expect("output");
    assert_eq!(output.text, "Paris is the capital of France.");
    assert!(output.nodes[0].complete);
    let path = home.path().join(format!("artifacts/runs/{id}/n1.md"));
    assert_eq!(
        std::fs::read_to_string(&path).expect("artifact"),
        "Paris is the capital of France."
    );

    let asked = asked(&server.requests()[0]);
    assert_eq!(asked.model, "openai/gpt-4o");
    assert_eq!(asked.max_tokens, Some(4096));
    assert!(asked.prompt.contains("What is the capital of France?"));
    assert_eq!(server.requests().len(), 1);

    let listed = engine
        .list_runs(RunFilter {
            launcher: Some("test".into()),
            ..RunFilter::default()
        })
        .await
        .expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].nodes, listed[0].nodes_done), (1, 1));
    engine.close().await;
}

#[tokio::test]
async fn a_collective_merges_the_answers_it_got_and_says_which_it_used() {
    let server = model_server(|asked| {
        if asked.prompt.contains("Synthesize") {
            Behavior::answer("Use a B-tree.\nUsed: 1, 2")
        } else if asked.model == "openai/gpt-4o-mini" {
            Behavior::fail(400, "this member is broken")
        } else {
            Behavior::answer(&format!("answer from {}", asked.model))
        }
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(request(
            RunMode::Collective,
            "Which index suits range queries?",
            &[GPT4O, MINI, GPT41],
        ))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let states: Vec<(&str, NodeState)> = detail
        .nodes
        .iter()
        .map(|n| (n.id.as_str(), n.state))
        .collect();
    assert_eq!(
        states,
        [
            ("m1", NodeState::Done),
            ("m2", NodeState::Failed),
            ("m3", NodeState::Done),
            ("merge", NodeState::Done)
        ]
    );
    let merge = &detail.nodes[3];
    assert_eq!(merge.used_inputs.as_deref(), Some(&[1, 2][..]));
    let sources: Vec<&str> = merge
        .trace
        .items
        .iter()
        .map(|i| i.source.as_str())
        .collect();
    assert_eq!(sources, ["task", "node:m1", "node:m3"]);
    let merge_prompt = server
        .requests()
        .iter()
        .map(asked)
        .find(|a| a.prompt.contains("Synthesize"))
        .expect("merge request")
        .prompt;
    assert!(
        merge_prompt.contains("# Answer 1 (from wtest:openai/gpt-4o)\nanswer from openai/gpt-4o")
    );
    assert!(
        merge_prompt.contains("# Answer 2 (from wtest:openai/gpt-4.1)\nanswer from openai/gpt-4.1")
    );
    assert!(!merge_prompt.contains("broken"));
    assert_eq!(
        detail.nodes[1].error.as_ref().map(|e| e.code),
        Some(ErrorCode::Provider)
    );
    let output = engine.run_output(&run.id, None).await.expect("output");
    assert!(output.text.starts_with("Use a B-tree."));
    engine.close().await;
}

#[tokio::test]
async fn plan_steps_run_in_order_and_each_is_told_the_previous_outputs() {
    let server = model_server(|asked| match step_of(&asked.prompt) {
        Some(id) => Behavior::answer(&format!("result of {id}")),
        None => Behavior::fail(400, "not a step"),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let plan = Plan::Sequential {
        task: "Write a short story".into(),
        steps: vec![
            step("s1", "Outline the story", &[]),
            step("s2", "Write the draft", &["s1"]),
            step("s3", "Proofread the draft", &["s2"]),
        ],
        edges: Vec::new(),
        warnings: Vec::new(),
        origin: PlanOrigin::Deterministic,
    };
    let mut req = request(RunMode::Plan, "Write a short story", &[]);
    req.plan = Some(plan);
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let order: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| step_of(&asked(r).prompt))
        .collect();
    assert_eq!(order, ["s1", "s2", "s3"]);
    let last = asked(&server.requests()[2]).prompt;
    assert!(
        last.contains("result of s1") && last.contains("result of s2"),
        "{last}"
    );
    assert!(last.contains("# Plan\n- s1: Outline the story"), "{last}");
    let sources: Vec<&str> = detail.nodes[2]
        .trace
        .items
        .iter()
        .map(|i| i.source.as_str())
        .collect();
    assert_eq!(sources, ["task", "plan", "step", "node:s1", "node:s2"]);
    assert_eq!(
        engine.run_output(&run.id, None).await.expect("output").text,
        "result of s3"
    );
    engine.close().await;
}

#[tokio::test]
async fn a_swarm_starts_each_dependent_as_soon_as_its_own_dependencies_finish() {
    let server = model_server(|asked| match step_of(&asked.prompt).as_deref() {
        // Long enough that "c started before b finished" holds on a loaded two-core machine,
        // where the engine's own steps have been seen to take hundreds of milliseconds.
        Some("b") => Behavior::after("b done", Duration::from_millis(2500)),
        Some(id) => Behavior::after(&format!("{id} done"), Duration::from_millis(30)),
        None => Behavior::fail(400, "not a step"),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let plan = swarm(
        "Build the feature",
        vec![
            step("a", "Design the schema", &[]),
            step("b", "Research the API", &[]),
            step("c", "Write the migration", &["a"]),
            step("d", "Write the client", &["b"]),
            step("e", "Integrate", &["c", "d"]),
        ],
    );
    let mut req = request(RunMode::Swarm, "Build the feature", &[]);
    req.plan = Some(plan);
    let begun = Instant::now();
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let arrivals: Vec<(String, Duration)> = server
        .requests()
        .iter()
        .filter_map(|r| Some((step_of(&asked(r).prompt)?, r.at.duration_since(begun))))
        .collect();
    let at = |id: &str| {
        arrivals
            .iter()
            .find(|(n, _)| n == id)
            .map(|(_, t)| *t)
            .expect("requested")
    };
    assert!(
        at("c") < at("b") + Duration::from_millis(2500),
        "c waited for b's wave: {arrivals:?}"
    );
    assert!(
        at("d") >= at("b") + Duration::from_millis(2500),
        "d started before b ended: {arrivals:?}"
    );
    assert!(at("e") > at("d"), "{arrivals:?}");
    let e_prompt = server
        .requests()
        .iter()
        .map(asked)
        .find(|a| step_of(&a.prompt).as_deref() == Some("e"))
        .expect("e")
        .prompt;
    assert!(e_prompt.contains("c done") && e_prompt.contains("d done"));
    assert!(
        !e_prompt.contains("a done"),
        "swarm nodes get their own dependencies only"
    );
    let output = engine.run_output(&run.id, None).await.expect("output");
    assert_eq!(output.text, "## e\n\ne done");
    engine.close().await;
}

#[tokio::test]
async fn a_failed_swarm_node_skips_its_dependents_and_the_run_fails_keeping_the_rest() {
    let server = model_server(|asked| match step_of(&asked.prompt).as_deref() {
        Some("a") => Behavior::fail(400, "a cannot be done"),
        Some(id) => Behavior::answer(&format!("{id} done")),
        None => Behavior::fail(400, "?"),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = request(RunMode::Swarm, "Two branches", &[]);
    req.plan = Some(swarm(
        "Two branches",
        vec![
            step("a", "First", &[]),
            step("b", "After first", &["a"]),
            step("c", "After b", &["b"]),
            step("x", "Independent", &[]),
        ],
    ));
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Failed);
    assert_eq!(
        detail.summary.reason,
        Some(switchyard_core::run::RunReason::NodeFailed)
    );
    let states: Vec<NodeState> = detail.nodes.iter().map(|n| n.state).collect();
    assert_eq!(
        states,
        [
            NodeState::Failed,
            NodeState::Skipped,
            NodeState::Skipped,
            NodeState::Done
        ]
    );
    let called: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| step_of(&asked(r).prompt))
        .collect();
    assert!(
        !called.contains(&"b".to_owned()) && !called.contains(&"c".to_owned()),
        "{called:?}"
    );
    engine.close().await;
}

#[tokio::test]
async fn preview_resolves_without_recording_and_bad_requests_are_refused() {
    let server = model_server(|_| Behavior::answer("x")).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = request(RunMode::Cascade, "Prove the lemma", &[]);
    req.ladder = Some(vec![MINI.into(), GPT4O.into()]);
    let preview = engine.preview_run(req.clone()).await.expect("preview");
    assert_eq!(preview.nodes.len(), 1);
    let ladder = preview.ladder.expect("ladder");
    assert_eq!(ladder.rungs[0].tier, BudgetTier::Low);
    assert_eq!(ladder.rungs[1].model, GPT4O);
    // Two rungs at the 4096-token output cap: at least 4096 * ($0.60 + $10) / 1M.
    let worst = preview.worst_case_usd.expect("priced");
    assert!(worst > 4096.0 * 10.6 / 1e6, "{worst}");
    assert!(engine
        .list_runs(RunFilter::default())
        .await
        .expect("list")
        .is_empty());

    let empty = engine
        .start_run(request(RunMode::Single, "  ", &[GPT4O]))
        .await
        .expect_err("empty");
    assert_eq!(empty.code(), ErrorCode::InvalidInput);
    let unpriced = engine
        .start_run(request(RunMode::Single, "hi", &["wtest:no-such-model"]))
        .await
        .expect_err("unpriced");
    assert_eq!(unpriced.code(), ErrorCode::InvalidInput);
    assert!(unpriced.to_string().contains("price"), "{unpriced}");
    let mut code_swarm = request(RunMode::Swarm, "Refactor", &[MINI]);
    code_swarm.repo = Some(home.path().display().to_string());
    // Code swarms run (see runs_combine.rs), but only in a git repository.
    let refused = engine.start_run(code_swarm).await.expect_err("not a repo");
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert!(refused.to_string().contains("git"), "{refused}");
    let cyclic = {
        let mut req = request(RunMode::Swarm, "Loop", &[]);
        req.plan = Some(swarm(
            "Loop",
            vec![step("a", "A", &["b"]), step("b", "B", &["a"])],
        ));
        engine.start_run(req).await.expect_err("cycle")
    };
    assert_eq!(cyclic.code(), ErrorCode::InvalidInput);
    assert!(server.requests().is_empty(), "nothing was called");
    engine.close().await;
}

#[tokio::test]
async fn an_agents_starting_model_starts_its_runs_that_name_none_and_only_its_own() {
    let server = model_server(|_| Behavior::answer("from the starting model")).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let agents = engine
        .set_agent_start_model("claude-code", Some(&format!("  {MINI} ")))
        .await
        .expect("set");
    let set = agents
        .iter()
        .find(|a| a.agent == "claude-code")
        .expect("listed");
    assert_eq!(set.start_model.as_deref(), Some(MINI), "trimmed and stored");
    assert_eq!((set.outcomes, set.succeeded), (0, 0));

    // A cascade with no ladder starts at it; routing finds nothing usable here (no keys),
    // so it is the whole ladder.
    let mut cascade = request(RunMode::Cascade, "Explain monads", &[]);
    cascade.launcher = "claude-code".into();
    let preview = engine.preview_run(cascade).await.expect("preview");
    let ladder = preview.ladder.expect("ladder");
    assert_eq!(ladder.rungs[0].model, MINI);
    assert!(
        preview
            .warnings
            .iter()
            .any(|w| w.contains("starting model set for claude-code")),
        "{:?}",
        preview.warnings
    );
    // A named model or ladder wins over it.
    let mut named = request(RunMode::Single, "Say hi", &[GPT4O]);
    named.launcher = "claude-code".into();
    let preview = engine.preview_run(named).await.expect("preview");
    assert_eq!(preview.nodes[0].model.as_deref(), Some(GPT4O));
    assert!(preview
        .warnings
        .iter()
        .all(|w| !w.contains("starting model")));

    // A single run naming no model runs on it, and its outcome counts for the agent.
    let mut single = request(RunMode::Single, "Say hi", &[]);
    single.launcher = "claude-code".into();
    let run = engine.start_run(single).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    assert_eq!(detail.nodes[0].model.as_deref(), Some(MINI));
    let agents = engine.agent_preferences().await.expect("agents");
    let claude = agents
        .iter()
        .find(|a| a.agent == "claude-code")
        .expect("listed");
    assert_eq!((claude.outcomes, claude.succeeded), (1, 1));

    // Another agent has none: routing decides, and finds no usable model here.
    let mut other = request(RunMode::Single, "Say hi", &[]);
    other.launcher = "codex".into();
    let refused = engine.preview_run(other).await.expect_err("nothing routed");
    assert_eq!(refused.code(), ErrorCode::NotFound, "{refused}");

    // Cleared, and bad input refused.
    let cleared = engine
        .set_agent_start_model("claude-code", None)
        .await
        .expect("clear");
    assert!(cleared
        .iter()
        .all(|a| a.agent != "claude-code" || a.start_model.is_none()));
    let blank = engine
        .set_agent_start_model(" ", Some(MINI))
        .await
        .expect_err("blank agent");
    assert_eq!(blank.code(), ErrorCode::InvalidInput);
    engine.close().await;
}
