//! Provider wire formats exactly as the real services send them (field order, ids, the
//! `usage: null` of OpenAI chunks, Anthropic's `event:` lines and `ping`s).

use serde_json::{json, Value};

/// An OpenAI chat completion.
pub fn openai_completion(model: &str, text: &str, usage: Option<(u32, u32)>) -> String {
    let mut body = json!({
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1_741_570_283,
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null, "annotations": []},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "service_tier": "default",
        "system_fingerprint": "fp_fc9f1d7035"
    });
    if let Some((input, output)) = usage {
        body["usage"] = json!({
            "prompt_tokens": input,
            "completion_tokens": output,
            "total_tokens": input + output,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}
        });
    }
    body.to_string()
}

fn openai_chunk(model: &str, delta: Value, finish: Option<&str>, with_usage_field: bool) -> String {
    let mut chunk = json!({
        "id": "chatcmpl-123",
        "object": "chat.completion.chunk",
        "created": 1_694_268_190,
        "model": model,
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    });
    if with_usage_field {
        chunk["usage"] = Value::Null;
    }
    format!("data: {chunk}\n\n")
}

/// OpenAI streaming events: a role chunk, one chunk per delta, a finish chunk, the
/// `include_usage` chunk (empty `choices`) when `usage` is given, then `data: [DONE]`.
pub fn openai_stream(model: &str, deltas: &[&str], usage: Option<(u32, u32)>) -> Vec<String> {
    openai_stream_finishing(model, deltas, usage, "stop")
}

/// [`openai_stream`] ending with `finish` (`stop`, `length`, …) as the finish reason.
pub fn openai_stream_finishing(
    model: &str,
    deltas: &[&str],
    usage: Option<(u32, u32)>,
    finish: &str,
) -> Vec<String> {
    let with_usage = usage.is_some();
    let mut events = vec![openai_chunk(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
        with_usage,
    )];
    for delta in deltas {
        events.push(openai_chunk(
            model,
            json!({"content": delta}),
            None,
            with_usage,
        ));
    }
    events.push(openai_chunk(model, json!({}), Some(finish), with_usage));
    if let Some((input, output)) = usage {
        let chunk = json!({
            "id": "chatcmpl-123",
            "object": "chat.completion.chunk",
            "created": 1_694_268_190,
            "model": model,
            "system_fingerprint": "fp_44709d6fcb",
            "choices": [],
            "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}
        });
        events.push(format!("data: {chunk}\n\n"));
    }
    events.push("data: [DONE]\n\n".into());
    events
}

/// The OpenAI error shape.
pub fn openai_error(message: &str, kind: &str, code: &str) -> String {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}}).to_string()
}

/// DeepSeek's answer to a refused key: an OpenAI-shaped 401 body that echoes the key back (a
/// provider that does this must not make Switchyard print it).
pub fn key_echo_error(key: &str) -> String {
    openai_error(
        &format!("Authentication Fails, your api key: {key} is invalid"),
        "authentication_error",
        "invalid_request_error",
    )
}

/// An Anthropic Messages response with one text block.
pub fn anthropic_message(model: &str, text: &str, usage: (u32, u32)) -> String {
    anthropic_content(
        model,
        json!([{"type": "text", "text": text}]),
        "end_turn",
        usage,
    )
}

/// An Anthropic Messages response with a forced tool's input.
pub fn anthropic_tool_message(model: &str, name: &str, input: Value, usage: (u32, u32)) -> String {
    let content = json!([{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": name, "input": input}]);
    anthropic_content(model, content, "tool_use", usage)
}

fn anthropic_content(model: &str, content: Value, stop: &str, usage: (u32, u32)) -> String {
    json!({
        "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            "input_tokens": usage.0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": usage.1
        }
    })
    .to_string()
}

fn anthropic_event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// Anthropic streaming events: `message_start` (input usage), `content_block_start`, a
/// `ping`, one `content_block_delta` per delta, `content_block_stop`, `message_delta`
/// (output usage), `message_stop`. Without `usage` the usage objects are left out.
pub fn anthropic_stream(model: &str, deltas: &[&str], usage: Option<(u32, u32)>) -> Vec<String> {
    let mut message = json!({
        "id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": null,
        "stop_sequence": null
    });
    if let Some((input, _)) = usage {
        message["usage"] = json!({"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1});
    }
    let mut events = vec![
        anthropic_event(
            "message_start",
            json!({"type": "message_start", "message": message}),
        ),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        anthropic_event("ping", json!({"type": "ping"})),
    ];
    for delta in deltas {
        events.push(anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": delta}}),
        ));
    }
    events.push(anthropic_event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    let mut delta = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}});
    if let Some((_, output)) = usage {
        delta["usage"] = json!({"output_tokens": output});
    }
    events.push(anthropic_event("message_delta", delta));
    events.push(anthropic_event(
        "message_stop",
        json!({"type": "message_stop"}),
    ));
    events
}

/// The Anthropic error shape (also the data of an `event: error`).
pub fn anthropic_error(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// An Anthropic `event: error` SSE event.
pub fn anthropic_error_event(kind: &str, message: &str) -> String {
    format!("event: error\ndata: {}\n\n", anthropic_error(kind, message))
}

/// An OpenAI-style model list with `n` models.
pub fn model_list(n: usize) -> String {
    let data: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("model-{i}"), "object": "model", "created": 1_686_935_002, "owned_by": "test"}))
        .collect();
    json!({"object": "list", "data": data}).to_string()
}
