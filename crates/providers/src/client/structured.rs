//! Structured output: ask for JSON matching a JSON Schema, validate it, and recover.
//!
//! Asking: [`SchemaMode::Native`] uses `response_format: {type: json_schema}` on
//! OpenAI-compatible endpoints and one forced tool on Anthropic (the tool input is the answer);
//! [`SchemaMode::JsonObject`] uses `response_format: {type: json_object}` plus the schema in
//! the system prompt; [`SchemaMode::Prompt`] only puts the schema in the system prompt (for
//! servers that support neither).
//!
//! Recovery, in order: (1) strict parse of the whole reply and validation; (2) extract JSON
//! from fenced or surrounding text and validate each candidate; (3) one repair request that
//! quotes the validation error, whose reply again goes through (1) and (2). If all fail the
//! call fails with [`ClientError::Schema`], which keeps every raw reply for the caller to store
//! as an artifact.

use serde_json::Value;
use switchyard_keychain::Secret;

use super::extract::candidates;
use super::schema::validate;
use super::{finish, ChatAnswer, ChatRequest, ClientError, Message, ModelClient, Target};

/// How the schema is put to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaMode {
    /// `response_format: json_schema` (OpenAI-compatible) or a forced tool (Anthropic).
    #[default]
    Native,
    /// `response_format: json_object` + the schema in the system prompt.
    JsonObject,
    /// The schema in the system prompt only.
    Prompt,
}

/// The JSON Schema an answer must match.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    /// A short identifier (`plan`, `verdict`): the `json_schema.name` or the tool name.
    pub name: String,
    /// The JSON Schema (see [`super::schema`] for the keywords validated).
    pub schema: Value,
    /// How the schema is put to the model.
    pub mode: SchemaMode,
    /// OpenAI `strict: true` (the schema must then follow OpenAI's strict-mode rules).
    pub strict: bool,
}

impl OutputSchema {
    /// A native-mode, non-strict schema.
    pub fn new(name: impl Into<String>, schema: Value) -> Self {
        Self {
            name: name.into(),
            schema,
            mode: SchemaMode::Native,
            strict: false,
        }
    }
}

/// Which recovery step produced the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The reply was valid JSON matching the schema as it stood.
    Strict,
    /// Found inside fenced or surrounding text.
    Extracted,
    /// Came from the repair request.
    Repaired,
}

/// A validated structured answer.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredAnswer {
    /// The JSON value; it matches the schema.
    pub value: Value,
    /// Which recovery step produced it.
    pub recovery: Recovery,
    /// The last call's answer, with usage and cost summed over both calls when a repair was
    /// needed.
    pub answer: ChatAnswer,
    /// Every raw reply, in order (one, or two after a repair).
    pub responses: Vec<String>,
}

impl ModelClient {
    /// Asks for a JSON value matching `schema` (non-streaming) and recovers as described in
    /// the module documentation.
    pub async fn structured(
        &self,
        target: &Target,
        key: Option<&Secret>,
        request: &ChatRequest,
        schema: &OutputSchema,
    ) -> Result<StructuredAnswer, ClientError> {
        let mut request = request.clone();
        if schema.mode != SchemaMode::Native {
            let instruction = format!(
                "Reply with only one JSON value that matches this JSON Schema, with no prose and \
                 no code fences:\n{}",
                schema.schema
            );
            request.system = Some(match request.system.take() {
                Some(system) => format!("{system}\n\n{instruction}"),
                None => instruction,
            });
        }
        let first = self.structured_call(target, key, &request, schema).await?;
        let error = match interpret(&first.text, &schema.schema) {
            Ok((value, recovery)) => {
                let responses = vec![first.text.clone()];
                return Ok(StructuredAnswer {
                    value,
                    recovery,
                    answer: first,
                    responses,
                });
            }
            Err(error) => error,
        };
        tracing::info!(schema = %schema.name, %error, "structured output invalid; asking for a repair");
        let mut repair = request.clone();
        repair.messages.push(Message::assistant(first.text.clone()));
        repair.messages.push(Message::user(format!(
            "Your reply does not match the required JSON Schema: {error}. Reply again with only \
             the corrected JSON value, no prose and no code fences."
        )));
        let second = match self.structured_call(target, key, &repair, schema).await {
            Ok(answer) => answer,
            Err(ClientError::Canceled) => return Err(ClientError::Canceled),
            Err(e) => {
                return Err(ClientError::Schema {
                    error: format!("{error}; the repair request failed: {e}"),
                    responses: vec![first.text],
                })
            }
        };
        let responses = vec![first.text.clone(), second.text.clone()];
        match interpret(&second.text, &schema.schema) {
            Ok((value, _)) => {
                let answer = ChatAnswer {
                    usage: first.usage.plus(second.usage),
                    cost: match (first.cost, second.cost) {
                        (Some(a), Some(b)) => Some(a.plus(b)),
                        _ => None,
                    },
                    attempts: first.attempts + second.attempts,
                    elapsed: first.elapsed + second.elapsed,
                    ..second
                };
                Ok(StructuredAnswer {
                    value,
                    recovery: Recovery::Repaired,
                    answer,
                    responses,
                })
            }
            Err(error) => Err(ClientError::Schema { error, responses }),
        }
    }

    async fn structured_call(
        &self,
        target: &Target,
        key: Option<&Secret>,
        request: &ChatRequest,
        schema: &OutputSchema,
    ) -> Result<ChatAnswer, ClientError> {
        let started = tokio::time::Instant::now();
        let (parsed, attempts) = self.run(target, key, request, Some(schema), None).await?;
        Ok(finish(parsed, request, key, attempts, started.elapsed()))
    }
}

/// Steps (1) and (2): the value and how it was found, or the error to quote in a repair.
fn interpret(text: &str, schema: &Value) -> Result<(Value, Recovery), String> {
    let mut first_error = match serde_json::from_str::<Value>(text.trim()) {
        Ok(value) => match validate(&value, schema) {
            Ok(()) => return Ok((value, Recovery::Strict)),
            Err(violation) => Some(format!("schema violation at {violation}")),
        },
        Err(_) => None,
    };
    for candidate in candidates(text) {
        if let Ok(value) = serde_json::from_str::<Value>(candidate) {
            match validate(&value, schema) {
                Ok(()) => return Ok((value, Recovery::Extracted)),
                Err(violation) => {
                    first_error.get_or_insert_with(|| format!("schema violation at {violation}"));
                }
            }
        }
    }
    Err(first_error.unwrap_or_else(|| "the reply contains no JSON value".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}})
    }

    #[test]
    fn strict_then_extracted_then_error() {
        assert_eq!(
            interpret(" {\"ok\": true} ", &schema()),
            Ok((json!({"ok": true}), Recovery::Strict))
        );
        assert_eq!(
            interpret("Here:\n```json\n{\"ok\": false}\n```", &schema()),
            Ok((json!({"ok": false}), Recovery::Extracted))
        );
        assert_eq!(
            interpret("{\"ok\": \"yes\"}", &schema()),
            Err("schema violation at $.ok: expected boolean, got string".into())
        );
        assert_eq!(
            interpret("I think {\"ok\": 1} works", &schema()),
            Err("schema violation at $.ok: expected boolean, got number".into())
        );
        assert_eq!(
            interpret("no idea", &schema()),
            Err("the reply contains no JSON value".into())
        );
    }
}
