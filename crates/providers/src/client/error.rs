//! What can go wrong in a model call, and reading a provider's own error message out of the
//! JSON shapes providers use.
//!
//! No variant ever holds the key: provider messages pass through [`redact`] before they are
//! stored (a misbehaving server could echo the key back), and transport errors only name the
//! URL, which never carries a key.

use std::fmt;
use std::time::Duration;

use serde_json::Value;
use switchyard_keychain::Secret;

use crate::http::CrossOriginRedirect;

/// Which timeout fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// TCP/TLS handshake.
    Connect,
    /// Waiting for response headers.
    FirstByte,
    /// A pause between body chunks.
    Idle,
    /// The whole call, retries included.
    Total,
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connect",
            TimeoutPhase::FirstByte => "first-byte",
            TimeoutPhase::Idle => "idle",
            TimeoutPhase::Total => "total",
        })
    }
}

/// Which part of a response went past its [`crate::client::ResponseLimits`] cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponsePart {
    /// One SSE line (no line end came within the cap).
    Line,
    /// The `data:` lines of one SSE event together.
    Event,
    /// The answer text accumulated from a stream.
    Answer,
    /// The whole body of a non-streaming answer.
    Body,
}

impl fmt::Display for ResponsePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResponsePart::Line => "a stream line",
            ResponsePart::Event => "a stream event",
            ResponsePart::Answer => "the answer text",
            ResponsePart::Body => "the response body",
        })
    }
}

/// A failed model call. Messages are for people; match on the variant in code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// No connection could be made (refused, DNS, TLS, reset before an answer).
    #[error("could not reach {url}: {detail}")]
    Connect {
        /// The URL requested (never carries the key).
        url: String,
        /// The transport's innermost cause (`Connection refused (os error 111)`).
        detail: String,
    },
    /// A timeout of [`crate::client::Timeouts`] fired.
    #[error("{phase} timeout after {after:?} waiting for {url}")]
    Timeout {
        /// The URL requested (never carries the key).
        url: String,
        /// Which timeout.
        phase: TimeoutPhase,
        /// Its configured length.
        after: Duration,
    },
    /// The provider answered with an error status; `message` is its own explanation.
    #[error("{message} (HTTP {status} from {url})")]
    Status {
        /// The URL requested (never carries the key).
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The provider's message (`error.message` of either JSON shape), key redacted.
        message: String,
        /// The provider's error type or code (`invalid_api_key`, `authentication_error`).
        kind: Option<String>,
        /// What `Retry-After` asked for, when sent.
        retry_after: Option<Duration>,
    },
    /// The provider reported an error inside a stream (`event: error`, `data: {"error":…}`).
    #[error("{message} (error event in the stream from {url})")]
    StreamError {
        /// The URL requested (never carries the key).
        url: String,
        /// The provider's message, key redacted.
        message: String,
        /// The provider's error type or code.
        kind: Option<String>,
    },
    /// The answer was not in the expected format.
    #[error("unexpected answer from {url}: {detail}")]
    Malformed {
        /// The URL requested (never carries the key).
        url: String,
        /// What was wrong with it.
        detail: String,
    },
    /// A part of the response went past its size limit; reading stopped there and the call is
    /// not retried.
    #[error("{part} from {url} is larger than {limit} bytes; reading stopped there")]
    TooLarge {
        /// The URL requested (never carries the key).
        url: String,
        /// Which part.
        part: ResponsePart,
        /// The limit in bytes.
        limit: usize,
    },
    /// The stream ended before the provider said it was complete.
    #[error("the answer from {url} was cut off after {delivered_chars} characters: {detail}")]
    Interrupted {
        /// The URL requested (never carries the key).
        url: String,
        /// Characters of answer text received before the break.
        delivered_chars: usize,
        /// The transport's cause, or which end marker was missing.
        detail: String,
    },
    /// The caller canceled.
    #[error("the model call was canceled")]
    Canceled,
    /// The server redirected to another origin (scheme, host or port), where the key must
    /// not go; nothing was sent there.
    #[error("{url}: {refused}")]
    Redirected {
        /// The URL requested (never carries the key).
        url: String,
        /// Where it pointed.
        refused: CrossOriginRedirect,
    },
    /// The request cannot be sent as given (bad base URL, key not valid in a header).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// Structured output: no valid JSON after strict parsing, extraction and one repair
    /// request. `responses` holds every raw model output, in order, for the caller to keep as
    /// an artifact.
    #[error("the model's output does not match the schema: {error}")]
    Schema {
        /// The last validation or parse error.
        error: String,
        /// Every raw reply, in order.
        responses: Vec<String>,
    },
}

impl ClientError {
    /// The HTTP status, when the provider answered with one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the provider refused the key (401 or 403).
    pub fn is_auth(&self) -> bool {
        matches!(self.status(), Some(401 | 403))
    }

    /// The last raw model output of a [`ClientError::Schema`] failure.
    pub fn raw_output(&self) -> Option<&str> {
        match self {
            ClientError::Schema { responses, .. } => responses.last().map(String::as_str),
            _ => None,
        }
    }
}

/// Longest provider message kept in an error.
const MAX_MESSAGE_CHARS: usize = 600;

/// The provider's error message and type from an error body, key redacted.
///
/// Shapes understood: OpenAI / OpenRouter / DeepSeek `{"error": {"message", "type", "code"}}`,
/// Anthropic `{"type": "error", "error": {"type", "message"}}`, Gemini's list-wrapped
/// `[{"error": {"message", "status"}}]`, Ollama `{"error": "…"}`, and `{"message"}` /
/// `{"detail"}`. Anything else: the body text itself, shortened. `None` for an empty body.
pub(crate) fn provider_message(
    body: &[u8],
    key: Option<&Secret>,
) -> Option<(String, Option<String>)> {
    let (message, kind) = match serde_json::from_slice::<Value>(body) {
        Ok(json) => from_json(&json).unwrap_or_else(|| (json.to_string(), None)),
        Err(_) => (String::from_utf8_lossy(body).trim().to_owned(), None),
    };
    if message.is_empty() {
        return None;
    }
    Some((
        shorten(&redact(&message, key)),
        kind.map(|k| redact(&k, key)),
    ))
}

fn from_json(json: &Value) -> Option<(String, Option<String>)> {
    let json = match json {
        Value::Array(items) => items.first()?,
        other => other,
    };
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match json.get("error") {
        Some(Value::String(message)) => Some((message.clone(), None)),
        Some(error @ Value::Object(_)) => {
            let mut message = error.get("message").and_then(text)?;
            // OpenRouter wraps the upstream provider's own words in metadata.raw.
            if let Some(raw) = error.pointer("/metadata/raw").and_then(text) {
                if !raw.is_empty() && !message.contains(&raw) {
                    message = format!("{message}: {raw}");
                }
            }
            let kind = ["type", "code", "status"]
                .iter()
                .find_map(|k| error.get(*k).and_then(text));
            Some((message, kind))
        }
        _ => ["message", "detail", "error_description"]
            .iter()
            .find_map(|k| json.get(*k).and_then(text))
            .map(|message| (message, None)),
    }
}

/// Replaces every occurrence of the key in `text` with `<redacted>`. Public so that every
/// layer that turns a server's words into stored or shown text (the catalog fetchers, the
/// engine) scrubs the same way.
pub fn redact(text: &str, key: Option<&Secret>) -> String {
    match key {
        Some(key) if !key.is_empty() => text.replace(key.expose(), "<redacted>"),
        _ => text.to_owned(),
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX_MESSAGE_CHARS).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(body: &str) -> (String, Option<String>) {
        provider_message(body.as_bytes(), None).expect("a message")
    }

    #[test]
    fn openai_and_openrouter_shapes() {
        let (m, k) = message(
            r#"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
        );
        assert_eq!(m, "Incorrect API key provided.");
        assert_eq!(k.as_deref(), Some("invalid_request_error"));
        let (m, k) = message(
            r#"{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"upstream busy"}}}"#,
        );
        assert_eq!(m, "Provider returned error: upstream busy");
        assert_eq!(k.as_deref(), Some("429"));
    }

    #[test]
    fn anthropic_gemini_ollama_and_plain_shapes() {
        let (m, k) = message(
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
        );
        assert_eq!(
            (m.as_str(), k.as_deref()),
            ("invalid x-api-key", Some("authentication_error"))
        );
        let (m, k) = message(
            r#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]"#,
        );
        assert_eq!(
            (m.as_str(), k.as_deref()),
            ("API key not valid.", Some("400"))
        );
        assert_eq!(
            message(r#"{"error":"model 'x' not found"}"#).0,
            "model 'x' not found"
        );
        assert_eq!(message(r#"{"detail":"Not Found"}"#).0, "Not Found");
        assert_eq!(message("  Bad Gateway \n").0, "Bad Gateway");
        assert_eq!(provider_message(b"", None), None);
    }

    #[test]
    fn echoed_key_is_redacted_and_long_bodies_shortened() {
        let key = Secret::new("sk-echo-secret-1234");
        let body = r#"{"error":{"message":"key sk-echo-secret-1234 is revoked","type":"sk-echo-secret-1234"}}"#;
        let (m, k) = provider_message(body.as_bytes(), Some(&key)).expect("message");
        assert_eq!(m, "key <redacted> is revoked");
        assert_eq!(k.as_deref(), Some("<redacted>"));
        let long = "x".repeat(5000);
        let (m, _) = provider_message(long.as_bytes(), None).expect("message");
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}
