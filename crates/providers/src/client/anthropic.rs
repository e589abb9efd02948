//! Anthropic's Messages API: request body, JSON response, SSE events.

use serde_json::{json, Map, Value};

use super::sse::SseEvent;
use super::structured::{OutputSchema, SchemaMode};
use super::{ChatRequest, Fault, Parsed, Role, Target};

/// The API version header value this client speaks.
pub(crate) const API_VERSION: &str = "2023-06-01";

/// Anthropic requires `max_tokens`; this is used when the caller gives none.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

/// `POST` target of a messages call.
pub(crate) fn messages_url(target: &Target) -> String {
    format!("{}/v1/messages", target.base_url)
}

/// The request body. A native schema becomes one forced tool whose input is the answer.
pub(crate) fn body(request: &ChatRequest, stream: bool, schema: Option<&OutputSchema>) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": message.content})
        })
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert(
        "max_tokens".into(),
        json!(request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    body.insert("messages".into(), Value::Array(messages));
    if let Some(system) = &request.system {
        body.insert("system".into(), json!(system));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    if let Some(schema) = schema.filter(|s| s.mode == SchemaMode::Native) {
        body.insert(
            "tools".into(),
            json!([{
                "name": schema.name,
                "description": "Record the answer. Its input is the complete answer.",
                "input_schema": schema.schema,
            }]),
        );
        body.insert(
            "tool_choice".into(),
            json!({"type": "tool", "name": schema.name}),
        );
    }
    Value::Object(body)
}

/// Parses a non-streaming response.
pub(crate) fn parse(body: &[u8]) -> Result<Parsed, Fault> {
    let json: Value =
        serde_json::from_slice(body).map_err(|e| Fault::Malformed(format!("not JSON: {e}")))?;
    if let Some(fault) = error_in(&json) {
        return Err(fault);
    }
    let content = json
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| Fault::Malformed("no content in the response".into()))?;
    let mut parsed = Parsed {
        model: json.get("model").and_then(Value::as_str).map(str::to_owned),
        finish_reason: json
            .get("stop_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..Parsed::default()
    };
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => parsed
                .text
                .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => parsed.tool_input = block.get("input").cloned(),
            _ => {}
        }
    }
    read_usage(json.get("usage"), &mut parsed);
    Ok(parsed)
}

/// State of one streamed answer.
#[derive(Debug, Default)]
pub(crate) struct StreamState {
    parsed: Parsed,
    tool_json: String,
    stopped: bool,
}

impl StreamState {
    /// Handles one SSE event; returns new answer text, if any.
    pub fn on_event(&mut self, event: &SseEvent) -> Result<Option<String>, Fault> {
        let json: Value = serde_json::from_str(&event.data)
            .map_err(|e| Fault::Malformed(format!("stream event is not JSON: {e}")))?;
        let kind = json
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "error" => Err(error_in(&json).unwrap_or_else(|| Fault::Provider {
                message: json.to_string(),
                kind: None,
            })),
            "message_start" => {
                let message = json.get("message");
                if let Some(model) = message.and_then(|m| m.get("model")).and_then(Value::as_str) {
                    self.parsed.model = Some(model.to_owned());
                }
                read_usage(message.and_then(|m| m.get("usage")), &mut self.parsed);
                Ok(None)
            }
            "content_block_start" => {
                let block = json.get("content_block");
                let text = block.and_then(|b| b.get("text")).and_then(Value::as_str);
                Ok(self.text(text.unwrap_or("")))
            }
            "content_block_delta" => {
                let delta = json.get("delta");
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => {
                        let text = delta.and_then(|d| d.get("text")).and_then(Value::as_str);
                        Ok(self.text(text.unwrap_or("")))
                    }
                    Some("input_json_delta") => {
                        let part = delta
                            .and_then(|d| d.get("partial_json"))
                            .and_then(Value::as_str);
                        self.tool_json.push_str(part.unwrap_or(""));
                        Ok(None)
                    }
                    _ => Ok(None),
                }
            }
            "message_delta" => {
                if let Some(reason) = json.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.parsed.finish_reason = Some(reason.to_owned());
                }
                read_usage(json.get("usage"), &mut self.parsed);
                Ok(None)
            }
            "message_stop" => {
                self.stopped = true;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn text(&mut self, text: &str) -> Option<String> {
        if text.is_empty() {
            return None;
        }
        self.parsed.text.push_str(text);
        Some(text.to_owned())
    }

    /// The answer, or why the stream is incomplete (no `message_stop`, no stop reason).
    pub fn finish(mut self) -> Result<Parsed, String> {
        if !self.stopped && self.parsed.finish_reason.is_none() {
            return Err("the stream ended before message_stop".into());
        }
        if !self.tool_json.is_empty() {
            self.parsed.tool_input = serde_json::from_str(&self.tool_json).ok();
            if self.parsed.tool_input.is_none() && self.parsed.text.is_empty() {
                self.parsed.text = std::mem::take(&mut self.tool_json);
            }
        }
        Ok(self.parsed)
    }

    /// The provider marked the end of the answer; nothing more needs reading.
    pub fn is_done(&self) -> bool {
        self.stopped
    }

    /// Characters of answer text received so far.
    pub fn delivered_chars(&self) -> usize {
        self.parsed.text.chars().count()
    }

    /// Bytes of answer held so far, text and tool input together (the cap of
    /// [`super::ResponseLimits::max_answer_bytes`]).
    pub fn answer_bytes(&self) -> usize {
        self.parsed.text.len().saturating_add(self.tool_json.len())
    }
}

/// Input counts include prompt-cache reads and writes, which Anthropic reports separately.
fn read_usage(usage: Option<&Value>, parsed: &mut Parsed) {
    let Some(usage) = usage.filter(|u| u.is_object()) else {
        return;
    };
    let count = |name: &str| {
        usage
            .get(name)
            .and_then(Value::as_u64)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    if let Some(input) = count("input_tokens") {
        let cached = count("cache_creation_input_tokens")
            .unwrap_or(0)
            .saturating_add(count("cache_read_input_tokens").unwrap_or(0));
        parsed.input_tokens = Some(input.saturating_add(cached));
    }
    if let Some(output) = count("output_tokens") {
        parsed.output_tokens = Some(output);
    }
}

fn error_in(json: &Value) -> Option<Fault> {
    if json.get("type").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let error = json.get("error");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map_or_else(|| json.to_string(), str::to_owned);
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(Fault::Provider { message, kind })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn body_has_required_max_tokens_system_and_forced_tool() {
        let mut request = ChatRequest::new("claude-x", "hi");
        request.system = Some("be brief".into());
        let schema = OutputSchema::new("answer", json!({"type": "object"}));
        let body = body(&request, false, Some(&schema));
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
        assert_eq!(body["tools"][0]["input_schema"], json!({"type": "object"}));
        assert_eq!(
            body["tool_choice"],
            json!({"type": "tool", "name": "answer"})
        );
    }

    #[test]
    fn response_text_tool_input_and_cached_usage() {
        let parsed = parse(
            br#"{"model":"claude-x","content":[{"type":"text","text":"Hi"},{"type":"tool_use","id":"t","name":"answer","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":7}}"#,
        )
        .expect("parses");
        assert_eq!(parsed.text, "Hi");
        assert_eq!(parsed.tool_input, Some(json!({"a": 1})));
        assert_eq!(
            (parsed.input_tokens, parsed.output_tokens),
            (Some(15), Some(7))
        );
        let fault = parse(
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            fault,
            Err(Fault::Provider {
                message: "Overloaded".into(),
                kind: Some("overloaded_error".into())
            })
        );
    }

    #[test]
    fn streamed_tool_input_is_assembled() {
        let mut state = StreamState::default();
        for (event, data) in [
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"answer","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"2}"}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            let event = SseEvent {
                event: event.into(),
                data: data.into(),
            };
            assert_eq!(state.on_event(&event).expect("event"), None);
        }
        assert_eq!(
            state.finish().expect("complete").tool_input,
            Some(json!({"a": 2}))
        );
    }
}
