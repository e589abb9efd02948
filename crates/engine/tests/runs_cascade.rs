//! Cascades against the model server: escalate to the next rung exactly on a failure signal
//! (the provider failed, a judge scored below the threshold), never because of the answer's
//! length; stop at the first success; each escalation is told the previous failure; every
//! rung's cost is visible.

mod runs_support;

use std::time::Duration;

use runs_support::*;
use switchyard_core::outcomes::{OutcomeFilter, OutcomeKind};
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

    // Routing learns from both rungs: the cheap one failed (a rung outcome of its own), the
    // second succeeded after an escalation (the node's outcome).
    let outcomes = engine
        .outcomes(&OutcomeFilter::default(), 10)
        .await
        .expect("outcomes");
    let of = |kind: OutcomeKind| {
        outcomes
            .iter()
            .find(|o| o.kind == kind && o.run_id.as_deref() == Some(run.id.as_str()))
            .unwrap_or_else(|| panic!("a {kind:?} outcome in {outcomes:#?}"))
    };
    let failed = of(OutcomeKind::Rung);
    assert_eq!(failed.model.as_deref(), Some(MINI));
    assert!(!failed.succeeded && !failed.escalated);
    assert_eq!(failed.state, "escalated");
    let node_outcome = of(OutcomeKind::Node);
    assert_eq!(node_outcome.model.as_deref(), Some(GPT41));
    assert!(node_outcome.succeeded && node_outcome.escalated);
    assert_eq!(
        outcomes.len(),
        2,
        "the premium rung never ran: {outcomes:#?}"
    );
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

/// A person: a name and a non-negative age, nothing else.
const PERSON: &str = r#"{"type":"object","required":["name","age"],"properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"additionalProperties":false}"#;

#[tokio::test]
async fn a_cascade_escalates_when_the_answer_fails_its_schema_after_the_repair_request() {
    // The cheap model answers in prose, and again when asked to repair; the next rung
    // answers in a fenced block, which is recovered without a repair request.
    let server = model_server(|asked| match asked.model.as_str() {
        "openai/gpt-4o-mini" => Behavior::answer("Ada Lovelace was thirty-six."),
        _ => Behavior::answer("Sure:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```"),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = cascade("Describe Ada Lovelace as JSON", &[MINI, GPT41]);
    req.schema = Some(PERSON.into());
    let run = engine.start_run(req).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    let node = &detail.nodes[0];
    assert_eq!(node.rung, Some(2), "escalated once");
    let asked_models: Vec<String> = server.requests().iter().map(|r| asked(r).model).collect();
    assert_eq!(
        asked_models,
        ["openai/gpt-4o-mini", "openai/gpt-4o-mini", "openai/gpt-4.1"],
        "answer, repair request, next rung"
    );
    let repair = asked(&server.requests()[1]).prompt;
    assert!(repair.contains("Ada Lovelace was thirty-six."), "{repair}");
    assert!(repair.contains("no JSON document"), "{repair}");
    let first_prompt = asked(&server.requests()[0]).prompt;
    assert!(
        first_prompt.contains("\"required\""),
        "the schema is in the prompt"
    );
    assert!(
        node.attempts
            .iter()
            .any(|a| matches!(&a.signal, Some(FailureSignal::SchemaFailed { .. }))),
        "{:#?}",
        node.attempts
    );
    let escalated = asked(&server.requests()[2]).prompt;
    assert!(
        escalated.contains("did not match the required JSON schema"),
        "{escalated}"
    );
    // The stored result is the recovered JSON document.
    let output = engine.run_output(&run.id, None).await.expect("output");
    let value: serde_json::Value = serde_json::from_str(&output.text).expect("JSON result");
    assert_eq!(value, serde_json::json!({"name": "Ada", "age": 36}));
    engine.close().await;
}

#[tokio::test]
async fn a_repaired_answer_ends_a_single_run_and_a_schema_that_is_not_one_is_refused() {
    let server = model_server(|asked| {
        if asked
            .prompt
            .contains("Reply with the corrected JSON document only")
        {
            Behavior::answer("{\"name\": \"Ada\", \"age\": 36}")
        } else {
            Behavior::answer("{\"name\": \"Ada\", \"age\": \"thirty-six\"}")
        }
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let engine = engine(home.path(), &server).await;
    let mut req = request(RunMode::Single, "Describe Ada as JSON", &[MINI]);
    req.schema = Some(PERSON.into());
    let run = engine.start_run(req.clone()).await.expect("start");
    let detail = wait(&engine, &run.id, Duration::from_secs(20)).await;
    assert_state(&detail, RunState::Completed);
    assert_eq!(server.requests().len(), 2, "one repair request");
    let repair = asked(&server.requests()[1]).prompt;
    assert!(
        repair.contains("/age"),
        "the validation error is named: {repair}"
    );
    let output = engine.run_output(&run.id, None).await.expect("output");
    assert!(output.text.contains("\"age\": 36"), "{}", output.text);

    req.schema = Some("{\"type\": 12}".into());
    let refused = engine.start_run(req).await.expect_err("not a schema");
    assert_eq!(
        refused.code(),
        switchyard_core::error::ErrorCode::InvalidInput
    );
    assert!(refused.to_string().contains("JSON schema"), "{refused}");
    engine.close().await;
}
