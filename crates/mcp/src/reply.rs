//! Tool results: a value as structured content (and the same JSON as text), or an error as
//! `{"error": {"code", "message"}}` with `isError`, the shape the CLI prints with `--json`.

use rmcp::model::{CallToolResponse, CallToolResult};
use serde::Serialize;
use switchyard_core::error::ErrorCode;
use switchyard_engine::EngineError;

/// `value` as the tool's structured result.
pub(crate) fn ok<T: Serialize>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(value) => CallToolResult::structured(value),
        Err(error) => fail(
            ErrorCode::Internal,
            format!("the result could not be serialized: {error}"),
        ),
    }
}

/// An error result the caller reads: its code (what to switch on) and a message for people.
pub(crate) fn fail(code: ErrorCode, message: impl Into<String>) -> CallToolResult {
    CallToolResult::structured_error(serde_json::json!({
        "error": { "code": code, "message": message.into() }
    }))
}

/// Bad input the schema cannot express (a range, an empty list).
pub(crate) fn invalid(message: impl Into<String>) -> CallToolResult {
    fail(ErrorCode::InvalidInput, message)
}

/// An engine error as an error result. Engine messages never carry a key.
pub(crate) fn engine_error(error: &EngineError) -> CallToolResult {
    let code = error.code();
    if code == ErrorCode::Internal || code == ErrorCode::Database {
        tracing::warn!(%error, "a tool failed");
    }
    fail(code, error.to_string())
}

/// What the SDK says before a tool runs when the input does not fit its type.
const SDK_INPUT_PREFIX: &str = "failed to deserialize parameters: ";

/// `response`, with the SDK's refusal of input that does not fit the tool's schema (a
/// missing or unknown field, a value outside an enum: a text-only error result) given the
/// code and shape of every other error here. Tools themselves never return an error
/// without structured content.
pub(crate) fn coded(response: CallToolResponse) -> CallToolResponse {
    match response {
        CallToolResponse::Complete(result)
            if result.is_error == Some(true) && result.structured_content.is_none() =>
        {
            let text: Vec<&str> = result
                .content
                .iter()
                .filter_map(|c| c.as_text())
                .map(|t| t.text.as_str())
                .collect();
            let text = text.join("\n");
            let detail = text.strip_prefix(SDK_INPUT_PREFIX).unwrap_or(&text);
            invalid(format!(
                "the input does not fit the tool's schema: {detail}"
            ))
            .into()
        }
        other => other,
    }
}

/// The value, or the engine's error.
pub(crate) fn reply<T: Serialize>(result: Result<T, EngineError>) -> CallToolResult {
    match result {
        Ok(value) => ok(&value),
        Err(error) => engine_error(&error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_engine_code_and_message_and_is_error() {
        let result = engine_error(&EngineError::NotFound("no attempt a1".into()));
        assert_eq!(result.is_error, Some(true));
        let value = result.structured_content.expect("structured");
        assert_eq!(value["error"]["code"], "notFound");
        assert_eq!(value["error"]["message"], "no attempt a1");
    }

    #[test]
    fn the_sdks_input_refusals_get_the_invalid_input_code() {
        let refused = CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            "failed to deserialize parameters: missing field `task`",
        )]);
        let CallToolResponse::Complete(result) = coded(refused.into()) else {
            panic!("still a complete result");
        };
        assert_eq!(result.is_error, Some(true));
        let value = result.structured_content.expect("structured");
        assert_eq!(value["error"]["code"], "invalidInput");
        assert_eq!(
            value["error"]["message"],
            "the input does not fit the tool's schema: missing field `task`"
        );
        let own = engine_error(&EngineError::NotFound("no run r1".into()));
        let CallToolResponse::Complete(kept) = coded(own.clone().into()) else {
            panic!("still a complete result");
        };
        assert_eq!(kept, own);
    }

    #[test]
    fn values_are_structured_and_mirrored_as_text() {
        let result = ok(&serde_json::json!({ "a": 1 }));
        assert_eq!(result.is_error, Some(false));
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({ "a": 1 }))
        );
        let text = result.content[0].as_text().expect("text").text.clone();
        assert_eq!(text, r#"{"a":1}"#);
    }
}
