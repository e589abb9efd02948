//! The model client: every model call in Switchyard goes through [`ModelClient`].
//!
//! - Wire formats: OpenAI-compatible chat completions ([`Api::OpenAi`]: OpenRouter, OpenAI,
//!   Gemini, DeepSeek, Ollama, LM Studio, custom) and Anthropic's Messages API
//!   ([`Api::Anthropic`]), both non-streaming ([`ModelClient::chat`]) and streaming over SSE
//!   ([`ModelClient::chat_streaming`] with a callback, [`ModelClient::stream`] as a `Stream`).
//! - Timeouts, retries with backoff and `Retry-After`: see [`Timeouts`] and [`RetryPolicy`].
//!   A stream that already delivered text is never retried unless
//!   [`ChatRequest::retry_after_partial`] is set; the caller then receives
//!   [`StreamEvent::Restarted`] and must discard the partial text.
//! - Cancellation, two ways: trigger [`ChatRequest::cancel`] (the call returns
//!   [`ClientError::Canceled`] at once, also during a retry wait), or drop the future / the
//!   [`ChatStream`] (the connection is closed and nothing more happens).
//! - Usage comes from the response (OpenAI `usage`, the stream's `include_usage` chunk,
//!   Anthropic `message_start` / `message_delta`); counts the provider did not send are
//!   estimated from text length and flagged [`Usage::estimated`]. Cost is computed from the
//!   caller's per-million [`Pricing`] and returned with every answer.
//! - Structured output: [`ModelClient::structured`], see [`structured`].
//!
//! - Bounded: lines, events, answer text and bodies are capped by [`ResponseLimits`]; past a
//!   cap the call fails with [`ClientError::TooLarge`].
//!
//! Keys come in as `&Secret` arguments and go only into request headers marked sensitive, and
//! only to the origin of the base URL: a redirect elsewhere fails with
//! [`ClientError::Redirected`] (see [`crate::http`]).

pub(crate) mod anthropic;
mod call;
mod config;
mod error;
mod extract;
mod openai;
mod retry;
pub mod schema;
mod sse;
mod stream;
pub mod structured;

use std::time::Duration;

use serde_json::Value;
use switchyard_core::catalog::card::Pricing;
use switchyard_core::providers::{Cost, Usage};
use switchyard_keychain::Secret;

pub use config::{ClientConfig, ResponseLimits, RetryPolicy, Timeouts};
pub use error::{redact, ClientError, ResponsePart, TimeoutPhase};
pub use stream::ChatStream;
pub use structured::{OutputSchema, Recovery, SchemaMode, StructuredAnswer};
pub use tokio_util::sync::CancellationToken;

pub(crate) use call::root_cause;
pub(crate) use error::provider_message;

/// Which wire format an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST {base}/chat/completions`, `Authorization: Bearer`.
    OpenAi,
    /// `POST {base}/v1/messages`, `x-api-key` + `anthropic-version`.
    Anthropic,
}

/// The name of the answer-length parameter in OpenAI-compatible requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenLimitField {
    /// `max_tokens`: OpenRouter, DeepSeek, Gemini, local servers.
    #[default]
    MaxTokens,
    /// `max_completion_tokens`: OpenAI's own API (its reasoning models refuse `max_tokens`).
    MaxCompletionTokens,
}

/// Where a call goes. Built by the provider registry from a provider and its base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The wire format.
    pub api: Api,
    /// Base URL without a trailing slash: `https://openrouter.ai/api/v1` (OpenAI-compatible,
    /// `/v1` included) or `https://api.anthropic.com` (Anthropic, no `/v1`).
    pub base_url: String,
    /// OpenAI-compatible only.
    pub token_limit_field: TokenLimitField,
}

impl Target {
    /// An OpenAI-compatible endpoint.
    pub fn openai(base_url: &str) -> Self {
        Self {
            api: Api::OpenAi,
            base_url: base_url.trim_end_matches('/').to_owned(),
            token_limit_field: TokenLimitField::MaxTokens,
        }
    }

    /// An Anthropic Messages endpoint.
    pub fn anthropic(base_url: &str) -> Self {
        Self {
            api: Api::Anthropic,
            base_url: base_url.trim_end_matches('/').to_owned(),
            token_limit_field: TokenLimitField::MaxTokens,
        }
    }
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The person (or the orchestrator) asking.
    User,
    /// The model's earlier reply.
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// Plain text.
    pub content: String,
}

impl Message {
    /// A user turn.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant turn.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// One model call.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    /// The provider's model name (`gpt-4o-mini`, `anthropic/claude-sonnet-4.5`).
    pub model: String,
    /// System prompt (OpenAI: a leading `system` message; Anthropic: the `system` field).
    pub system: Option<String>,
    /// The conversation, oldest first; normally one user message.
    pub messages: Vec<Message>,
    /// Answer-length cap; Anthropic requires one and gets 4096 when `None`.
    pub max_tokens: Option<u32>,
    /// Sampling temperature; the provider default when `None`.
    pub temperature: Option<f32>,
    /// Per-million prices for the cost; `None` = unknown, no cost reported.
    pub pricing: Option<Pricing>,
    /// Cancels the call when triggered.
    pub cancel: Option<CancellationToken>,
    /// Allow retrying a stream that already delivered text (the caller handles
    /// [`StreamEvent::Restarted`]).
    pub retry_after_partial: bool,
}

impl ChatRequest {
    /// A single-prompt request.
    pub fn new(model: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            messages: vec![Message::user(prompt)],
            ..Self::default()
        }
    }

    /// All prompt text, for estimating input tokens when the provider reports none.
    fn prompt_text(&self) -> String {
        let mut text = self.system.clone().unwrap_or_default();
        for message in &self.messages {
            text.push('\n');
            text.push_str(&message.content);
        }
        text
    }
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatAnswer {
    /// The answer text (for an Anthropic forced-tool answer: the tool input as JSON text).
    pub text: String,
    /// The model the provider says answered, when it said.
    pub model: Option<String>,
    /// `stop`, `length`, `end_turn`, `tool_use`, …
    pub finish_reason: Option<String>,
    /// Token counts, from the provider or estimated.
    pub usage: Usage,
    /// `None` when the request carried no (complete) pricing.
    pub cost: Option<Cost>,
    /// Attempts made, the successful one included.
    pub attempts: u32,
    /// Wall time of the whole call.
    pub elapsed: Duration,
}

/// What a streaming call reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More answer text.
    Delta(String),
    /// The stream broke after delivering text and is being retried from the start
    /// (only with [`ChatRequest::retry_after_partial`]); discard the text received so far.
    Restarted {
        /// The attempt now starting (2 for the first retry).
        attempt: u32,
        /// Why the previous attempt failed.
        reason: String,
    },
    /// The answer is complete ([`ChatStream`] only; the callback API returns it instead).
    Done(ChatAnswer),
}

/// What one wire-format parser extracted from a response.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parsed {
    pub text: String,
    /// Anthropic `tool_use` input (structured output).
    pub tool_input: Option<Value>,
    pub model: Option<String>,
    pub finish_reason: Option<String>,
    pub input_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
}

/// A problem inside a response body the provider sent with a success status.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fault {
    /// The provider put an error object where the answer should be.
    Provider {
        message: String,
        kind: Option<String>,
    },
    /// Not the expected shape.
    Malformed(String),
}

/// The client. Cheap to clone (one shared connection pool).
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    config: ClientConfig,
}

impl ModelClient {
    /// A client with the given timeouts and retry policy.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let http = crate::http::keyed_client()
            .connect_timeout(config.timeouts.connect)
            .build()
            .map_err(|e| ClientError::InvalidRequest(format!("cannot build HTTP client: {e}")))?;
        Ok(Self { http, config })
    }

    /// The configuration in use.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// One non-streaming answer.
    pub async fn chat(
        &self,
        target: &Target,
        key: Option<&Secret>,
        request: &ChatRequest,
    ) -> Result<ChatAnswer, ClientError> {
        let started = tokio::time::Instant::now();
        let (parsed, attempts) = self.run(target, key, request, None, None).await?;
        Ok(finish(parsed, request, key, attempts, started.elapsed()))
    }

    /// One streamed answer: `on_event` receives [`StreamEvent::Delta`]s (and
    /// [`StreamEvent::Restarted`] when allowed) as they arrive; the full answer is returned.
    pub async fn chat_streaming(
        &self,
        target: &Target,
        key: Option<&Secret>,
        request: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<ChatAnswer, ClientError> {
        let started = tokio::time::Instant::now();
        let (parsed, attempts) = self.run(target, key, request, None, Some(on_event)).await?;
        Ok(finish(parsed, request, key, attempts, started.elapsed()))
    }

    /// One streamed answer as a `Stream` of [`StreamEvent`]s ending in
    /// [`StreamEvent::Done`] or an error. Dropping the stream cancels the call.
    pub fn stream(&self, target: Target, key: Option<Secret>, request: ChatRequest) -> ChatStream {
        ChatStream::spawn(self.clone(), target, key, request)
    }
}

/// Turns a parsed response into an answer: fills missing token counts with estimates, prices
/// the usage, and scrubs the key should a misbehaving server have echoed it into the text.
fn finish(
    parsed: Parsed,
    request: &ChatRequest,
    key: Option<&Secret>,
    attempts: u32,
    elapsed: Duration,
) -> ChatAnswer {
    // With a forced tool (structured output on Anthropic) the tool input is the answer and
    // any prose around it is dropped.
    let text = match &parsed.tool_input {
        Some(input) => input.to_string(),
        None => parsed.text,
    };
    let text = redact(&text, key);
    let estimated = parsed.input_tokens.is_none() || parsed.output_tokens.is_none();
    let usage = Usage {
        input_tokens: parsed
            .input_tokens
            .unwrap_or_else(|| switchyard_core::providers::estimate_tokens(&request.prompt_text())),
        output_tokens: parsed
            .output_tokens
            .unwrap_or_else(|| switchyard_core::providers::estimate_tokens(&text)),
        estimated,
    };
    let cost = request
        .pricing
        .as_ref()
        .and_then(|pricing| Cost::compute(&usage, pricing));
    ChatAnswer {
        text,
        model: parsed.model,
        finish_reason: parsed.finish_reason,
        usage,
        cost,
        attempts,
        elapsed,
    }
}
