//! OpenAI-compatible chat completions: request body, JSON response, SSE chunks.

use serde_json::{json, Map, Value};

use super::sse::SseEvent;
use super::structured::{OutputSchema, SchemaMode};
use super::{ChatRequest, Fault, Parsed, Role, Target, TokenLimitField};

/// `POST` target of a chat call.
pub(crate) fn chat_url(target: &Target) -> String {
    format!("{}/chat/completions", target.base_url)
}

/// The request body.
pub(crate) fn body(
    target: &Target,
    request: &ChatRequest,
    stream: bool,
    schema: Option<&OutputSchema>,
) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        messages.push(json!({"role": role, "content": message.content}));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(max) = request.max_tokens {
        let field = match target.token_limit_field {
            TokenLimitField::MaxTokens => "max_tokens",
            TokenLimitField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(schema) = schema {
        match schema.mode {
            SchemaMode::Native => {
                body.insert(
                    "response_format".into(),
                    json!({
                        "type": "json_schema",
                        "json_schema": {
                            "name": schema.name,
                            "schema": schema.schema,
                            "strict": schema.strict,
                        }
                    }),
                );
            }
            SchemaMode::JsonObject => {
                body.insert("response_format".into(), json!({"type": "json_object"}));
            }
            SchemaMode::Prompt => {}
        }
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
    let choice = json
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| Fault::Malformed("no choices in the response".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| Fault::Malformed("the first choice has no message".into()))?;
    let mut parsed = Parsed {
        text: content_text(message.get("content")),
        model: json.get("model").and_then(Value::as_str).map(str::to_owned),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..Parsed::default()
    };
    if parsed.text.is_empty() {
        if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
            parsed.text = refusal.to_owned();
        }
    }
    read_usage(json.get("usage"), &mut parsed);
    Ok(parsed)
}

/// State of one streamed answer.
#[derive(Debug, Default)]
pub(crate) struct StreamState {
    parsed: Parsed,
    done: bool,
}

impl StreamState {
    /// Handles one SSE event; returns new answer text, if any.
    pub fn on_event(&mut self, event: &SseEvent) -> Result<Option<String>, Fault> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        if data.is_empty() {
            return Ok(None);
        }
        let json: Value = serde_json::from_str(data)
            .map_err(|e| Fault::Malformed(format!("stream chunk is not JSON: {e}")))?;
        if let Some(fault) = error_in(&json) {
            return Err(fault);
        }
        if let Some(model) = json.get("model").and_then(Value::as_str) {
            self.parsed.model = Some(model.to_owned());
        }
        read_usage(json.get("usage"), &mut self.parsed);
        let Some(choice) = json
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(None);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.parsed.finish_reason = Some(reason.to_owned());
        }
        let delta = content_text(choice.pointer("/delta/content"));
        if delta.is_empty() {
            return Ok(None);
        }
        self.parsed.text.push_str(&delta);
        Ok(Some(delta))
    }

    /// The answer, or why the stream is incomplete: neither `[DONE]` nor a finish reason came.
    pub fn finish(self) -> Result<Parsed, String> {
        if self.done || self.parsed.finish_reason.is_some() {
            Ok(self.parsed)
        } else {
            Err("the stream ended without a finish reason or [DONE]".into())
        }
    }

    /// The provider marked the end of the answer; nothing more needs reading.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Characters of answer text received so far.
    pub fn delivered_chars(&self) -> usize {
        self.parsed.text.chars().count()
    }

    /// Bytes of answer held so far (the cap of [`super::ResponseLimits::max_answer_bytes`]).
    pub fn answer_bytes(&self) -> usize {
        self.parsed.text.len()
    }
}

/// `content` is a string, `null`, or (some servers) a list of `{type: text, text}` parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

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
    if let Some(n) = count("prompt_tokens") {
        parsed.input_tokens = Some(n);
    }
    if let Some(n) = count("completion_tokens") {
        parsed.output_tokens = Some(n);
    }
}

/// An `{"error": …}` object in a success response (OpenRouter does this mid-stream).
fn error_in(json: &Value) -> Option<Fault> {
    let error = json.get("error")?;
    if error.is_null() {
        return None;
    }
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| error.as_str().map(str::to_owned))
        .unwrap_or_else(|| error.to_string());
    let kind = error
        .get("type")
        .or_else(|| error.get("code"))
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    Some(Fault::Provider { message, kind })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Message;

    #[test]
    fn body_has_system_first_stream_usage_and_token_field() {
        let mut request = ChatRequest::new("gpt-x", "hi");
        request.system = Some("be brief".into());
        request.messages.push(Message::assistant("hello"));
        request.max_tokens = Some(50);
        let mut target = Target::openai("http://h/v1/");
        target.token_limit_field = TokenLimitField::MaxCompletionTokens;
        let body = body(&target, &request, true, None);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "be brief"})
        );
        assert_eq!(body["messages"][2]["role"], "assistant");
        assert_eq!(body["max_completion_tokens"], 50);
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(chat_url(&target), "http://h/v1/chat/completions");
    }

    #[test]
    fn response_with_parts_content_and_usage() {
        let parsed = parse(
            br#"{"model":"m","choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}"#,
        )
        .expect("parses");
        assert_eq!(parsed.text, "ab");
        assert_eq!(
            (parsed.input_tokens, parsed.output_tokens),
            (Some(3), Some(2))
        );
        assert!(matches!(
            parse(b"{\"choices\":[]}"),
            Err(Fault::Malformed(_))
        ));
        assert!(matches!(
            parse(br#"{"error":{"message":"no credits","code":402}}"#),
            Err(Fault::Provider { .. })
        ));
    }
}
