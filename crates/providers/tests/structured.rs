//! Structured output: each recovery step against the scripted server.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{wire, Reply, TestServer};
use switchyard_core::catalog::card::Pricing;
use switchyard_providers::client::{
    ChatRequest, ClientConfig, ClientError, ModelClient, OutputSchema, Recovery, RetryPolicy,
    SchemaMode, Target,
};

fn client() -> ModelClient {
    let retry = RetryPolicy {
        base_delay: Duration::from_millis(20),
        ..RetryPolicy::default()
    };
    ModelClient::new(ClientConfig {
        retry,
        ..ClientConfig::default()
    })
    .expect("client")
}

fn schema() -> OutputSchema {
    OutputSchema::new(
        "verdict",
        json!({
            "type": "object",
            "required": ["approve", "reasons"],
            "additionalProperties": false,
            "properties": {
                "approve": {"type": "boolean"},
                "reasons": {"type": "array", "items": {"type": "string"}, "minItems": 1}
            }
        }),
    )
}

fn request() -> ChatRequest {
    let mut request = ChatRequest::new("m", "Review this diff.");
    request.pricing = Some(Pricing {
        prompt_per_m: Some(1.0),
        completion_per_m: Some(1.0),
    });
    request
}

fn reply(text: &str, usage: (u32, u32)) -> Reply {
    Reply::json(200, wire::openai_completion("m", text, Some(usage)))
}

fn valid() -> Value {
    json!({"approve": true, "reasons": ["tests pass"]})
}

#[tokio::test]
async fn strict_json_passes_and_the_schema_is_sent_as_response_format() {
    let server = TestServer::start(vec![reply(&valid().to_string(), (10, 5))]).await;
    let answer = client()
        .structured(&Target::openai(&server.url), None, &request(), &schema())
        .await
        .expect("valid");
    assert_eq!(answer.value, valid());
    assert_eq!(answer.recovery, Recovery::Strict);
    assert_eq!(answer.responses.len(), 1);
    let body = server.requests()[0].json();
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "verdict");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        schema().schema
    );
}

#[tokio::test]
async fn json_inside_prose_and_fences_is_extracted() {
    let text = format!(
        "Sure, here is my verdict:\n```json\n{}\n```\nLet me know!",
        valid()
    );
    let server = TestServer::start(vec![reply(&text, (10, 5))]).await;
    let answer = client()
        .structured(&Target::openai(&server.url), None, &request(), &schema())
        .await
        .expect("extracted");
    assert_eq!(
        (answer.value, answer.recovery),
        (valid(), Recovery::Extracted)
    );
    assert_eq!(server.requests().len(), 1, "no repair request needed");
}

#[tokio::test]
async fn one_repair_request_quotes_the_validation_error() {
    let wrong = json!({"approve": "yes", "reasons": ["ok"]}).to_string();
    let server = TestServer::start(vec![
        reply(&wrong, (100, 20)),
        reply(&valid().to_string(), (130, 10)),
    ])
    .await;
    let answer = client()
        .structured(&Target::openai(&server.url), None, &request(), &schema())
        .await
        .expect("repaired");
    assert_eq!(
        (answer.value.clone(), answer.recovery),
        (valid(), Recovery::Repaired)
    );
    assert_eq!(answer.responses, vec![wrong.clone(), valid().to_string()]);
    assert_eq!(
        (
            answer.answer.usage.input_tokens,
            answer.answer.usage.output_tokens
        ),
        (230, 30)
    );
    assert!((answer.answer.cost.expect("priced").usd - 0.00026).abs() < 1e-12);

    let repair = server.requests()[1].json();
    let messages = repair["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1], json!({"role": "assistant", "content": wrong}));
    let quoted = messages[2]["content"].as_str().expect("text");
    assert!(
        quoted.contains("$.approve: expected boolean, got string"),
        "{quoted}"
    );
    assert_eq!(repair["response_format"]["type"], "json_schema");
}

#[tokio::test]
async fn failure_keeps_every_raw_reply() {
    let server = TestServer::start(vec![
        reply("I cannot decide.", (10, 4)),
        reply("{\"approve\": true}", (20, 4)),
    ])
    .await;
    let err = client()
        .structured(&Target::openai(&server.url), None, &request(), &schema())
        .await
        .expect_err("still invalid");
    match &err {
        ClientError::Schema { error, responses } => {
            assert_eq!(
                error,
                "schema violation at $: missing required property \"reasons\""
            );
            assert_eq!(
                responses,
                &vec![
                    "I cannot decide.".to_owned(),
                    "{\"approve\": true}".to_owned()
                ]
            );
        }
        other => panic!("expected Schema, got {other:?}"),
    }
    assert_eq!(err.raw_output(), Some("{\"approve\": true}"));
    let first_repair = server.requests()[1].json();
    let quoted = first_repair["messages"][2]["content"]
        .as_str()
        .expect("text")
        .to_owned();
    assert!(
        quoted.contains("the reply contains no JSON value"),
        "{quoted}"
    );
    assert_eq!(server.requests().len(), 2, "exactly one repair request");
}

#[tokio::test]
async fn anthropic_gets_a_forced_tool_and_its_input_is_the_value() {
    let server = TestServer::start(vec![Reply::json(
        200,
        wire::anthropic_tool_message("claude", "verdict", valid(), (50, 20)),
    )])
    .await;
    let answer = client()
        .structured(&Target::anthropic(&server.url), None, &request(), &schema())
        .await
        .expect("tool input");
    assert_eq!((answer.value, answer.recovery), (valid(), Recovery::Strict));
    let body = server.requests()[0].json();
    assert_eq!(body["tools"][0]["name"], "verdict");
    assert_eq!(body["tools"][0]["input_schema"], schema().schema);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "verdict"})
    );
}

#[tokio::test]
async fn prompt_mode_puts_the_schema_in_the_system_prompt() {
    let server = TestServer::start(vec![reply(&valid().to_string(), (1, 1))]).await;
    let mut schema = schema();
    schema.mode = SchemaMode::Prompt;
    let mut request = request();
    request.system = Some("You review code.".into());
    client()
        .structured(&Target::openai(&server.url), None, &request, &schema)
        .await
        .expect("ok");
    let body = server.requests()[0].json();
    assert!(body.get("response_format").is_none());
    let system = body["messages"][0]["content"].as_str().expect("system");
    assert!(
        system.starts_with("You review code.\n\nReply with only one JSON value"),
        "{system}"
    );
    assert!(system.contains("\"reasons\""), "{system}");
}
