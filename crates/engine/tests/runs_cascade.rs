//! Cascades against the model server: escalate to the next rung exactly on a failure signal
//! (the provider failed, a judge scored below the threshold), never because of the answer's
//! length; stop at the first success; each escalation is told the previous failure; every
//! rung's cost is visible.

mod runs_support;

use std::time::Duration;

use runs_support::*;
use switchyard_core::run::{
    FailureSignal, JudgeSpec, NodeState, RunMode, RunReason, RunRequest, RunState,
};

fn cascade(task: &str, ladder: &[&str]) -> RunRequest {
    let mut req = request(RunMode::Cascade, task, &[]);
    req.ladder = Some(ladder.iter().map(|m| (*m).to_owned()).collect());
    req
}

#[tokio::test]
async fn a_failed_rung_escalates_with_its_failure_and_a_long_answer_does_not() {
    let server = model_server(|asked| match asked.model.as_str() {
        "openai/gpt-4o-mini" => Behavior::fail(400, "the cheap model refused"),
        // Cut off at its length limit: not a failure signal.
        "openai/gpt-4.1" => Behavior::Answer {
            text: "a long answer that ran out of room".into(),
            latency: Duration::ZERO,
            usage: (300, 4096),
            finish: "length",
        },
        _ => Behavior::answer("premium answer"),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(cascade("Explain monads", &[MINI, GPT41, GPT4O]))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let node = &detail.nodes[0];
    assert_eq!(node.state, NodeState::Done);
    assert_eq!(node.rung, Some(2), "the second rung succeeded");
    assert_eq!(node.model.as_deref(), Some(GPT41));
    let models: Vec<String> = server.requests().iter().map(|r| asked(r).model).collect();
    assert_eq!(
        models,
        ["openai/gpt-4o-mini", "openai/gpt-4.1"],
        "the premium rung was never asked"
    );
    assert_eq!(node.attempts.len(), 2);
    assert!(matches!(
        &node.attempts[0].signal,
        Some(FailureSignal::ProviderFailed { message, .. }) if message.contains("the cheap model refused")
    ));
    assert_eq!(node.attempts[0].rung, Some(1));
    assert_eq!(node.attempts[1].signal, None);
    let second_cost = (300.0 * 2.0 + 4096.0 * 8.0) / 1e6;
    assert!(
        (node.attempts[1].cost_usd - second_cost).abs() < 1e-12,
        "each rung's cost is recorded"
    );
    let second = asked(&server.requests()[1]).prompt;
    assert!(
        second.contains("An earlier attempt failed (rung 1)"),
        "{second}"
    );
    assert!(second.contains("the cheap model refused"), "{second}");
    let sources: Vec<&str> = node.trace.items.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(sources, ["task", "failure:1"]);
    engine.close().await;
}

#[tokio::test]
async fn the_first_successful_rung_ends_the_cascade() {
    let server = model_server(|_| Behavior::answer("good enough")).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(cascade("Say hi", &[MINI, GPT4O]))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    assert_eq!(detail.nodes[0].rung, Some(1));
    assert_eq!(server.requests().len(), 1);
    engine.close().await;
}

#[tokio::test]
async fn a_judge_score_below_the_threshold_escalates_and_the_next_rung_is_told() {
    let server = model_server(|asked| {
        if asked.prompt.starts_with("You review answers.") {
            if asked.prompt.contains("weak answer") {
                Behavior::answer("Vague.\nScore: 3")
            } else {
                Behavior::answer("Solid.\nScore: 9")
            }
        } else if asked.model == "openai/gpt-4o-mini" {
            Behavior::answer("weak answer")
        } else {
            Behavior::answer("strong answer")
        }
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = cascade("Design a cache", &[MINI, GPT4O]);
    req.judge = Some(JudgeSpec {
        model: GPT41.into(),
        threshold: 7,
    });
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let node = &detail.nodes[0];
    assert_eq!(node.rung, Some(2));
    assert_eq!(
        engine.run_output(&run.id, None).await.expect("output").text,
        "strong answer"
    );
    let models: Vec<String> = server.requests().iter().map(|r| asked(r).model).collect();
    assert_eq!(
        models,
        [
            "openai/gpt-4o-mini",
            "openai/gpt-4.1",
            "openai/gpt-4o",
            "openai/gpt-4.1"
        ]
    );
    assert_eq!(
        node.attempts[0].signal,
        Some(FailureSignal::JudgeBelow {
            score: 3,
            threshold: 7
        })
    );
    let rung_two = asked(&server.requests()[2]).prompt;
    assert!(
        rung_two.contains("scored the previous answer 3/10"),
        "{rung_two}"
    );
    assert_eq!(
        node.attempts.len(),
        4,
        "answers and judge calls are all in the ledger"
    );
    engine.close().await;
}

#[tokio::test]
async fn when_every_rung_fails_the_run_fails_with_all_rungs_failed() {
    let server =
        model_server(|asked| Behavior::fail(400, &format!("{} cannot", asked.model))).await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let run = engine
        .start_run(cascade("Impossible", &[MINI, GPT41, GPT4O]))
        .await
        .expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Failed);
    assert_eq!(detail.summary.reason, Some(RunReason::AllRungsFailed));
    assert_eq!(server.requests().len(), 3, "each rung once");
    let error = detail.nodes[0].error.as_ref().expect("error");
    assert!(
        error.message.contains("openai/gpt-4o cannot"),
        "{}",
        error.message
    );
    engine.close().await;
}
