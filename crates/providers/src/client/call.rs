//! One model call on the wire: headers, attempts, retries, timeouts, cancellation, and
//! reading JSON or SSE bodies.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;
use switchyard_keychain::Secret;
use tokio::time::Instant;

use super::error::{provider_message, redact, ResponsePart};
use super::sse::{SseDecoder, SseEvent};
use super::structured::OutputSchema;
use super::{anthropic, openai, retry};
use super::{Api, ChatRequest, ClientError, Fault, ModelClient, Parsed, StreamEvent, Target};
use super::{RetryPolicy, TimeoutPhase};
use crate::http::{self, BodyError};

/// Largest part of an error body kept.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// Whether and how a failed attempt may be tried again.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Retry {
    No,
    Backoff,
    After(Duration),
}

struct Failure {
    error: ClientError,
    retry: Retry,
}

impl Failure {
    fn stop(error: ClientError) -> Self {
        Self {
            error,
            retry: Retry::No,
        }
    }
}

/// The callback a streaming call reports to: borrowed for `'r`, capturing data that lives
/// for `'f` (two lifetimes, so that it can be re-borrowed for each attempt).
pub(crate) type OnEvent<'r, 'f> = &'r mut (dyn FnMut(StreamEvent) + Send + 'f);

/// Request headers for `api`; the key header is marked sensitive so that no HTTP-layer debug
/// output can print it.
pub(crate) fn auth_headers(api: Api, key: Option<&Secret>) -> Result<HeaderMap, ClientError> {
    let mut headers = HeaderMap::new();
    let sensitive = |value: String| {
        http::key_header(&value).map_err(|e| ClientError::InvalidRequest(e.to_string()))
    };
    match api {
        Api::OpenAi => {
            if let Some(key) = key {
                headers.insert(
                    AUTHORIZATION,
                    sensitive(format!("Bearer {}", key.expose()))?,
                );
            }
        }
        Api::Anthropic => {
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(anthropic::API_VERSION),
            );
            if let Some(key) = key {
                headers.insert(
                    HeaderName::from_static("x-api-key"),
                    sensitive(key.expose().into())?,
                );
            }
        }
    }
    Ok(headers)
}

/// The innermost cause of a transport error, without the URL prefix reqwest adds.
pub(crate) fn root_cause(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

impl ModelClient {
    /// Runs a call with retries; returns what the wire parser extracted and the attempt count.
    pub(crate) async fn run<'f>(
        &self,
        target: &Target,
        key: Option<&Secret>,
        request: &ChatRequest,
        schema: Option<&OutputSchema>,
        mut on_event: Option<OnEvent<'_, 'f>>,
    ) -> Result<(Parsed, u32), ClientError> {
        let streaming = on_event.is_some();
        let (url, body) = match target.api {
            Api::OpenAi => (
                openai::chat_url(target),
                openai::body(target, request, streaming, schema),
            ),
            Api::Anthropic => (
                anthropic::messages_url(target),
                anthropic::body(request, streaming, schema),
            ),
        };
        let mut headers = auth_headers(target.api, key)?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let accept = if streaming {
            "text/event-stream"
        } else {
            "application/json"
        };
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        let call = Call {
            client: self,
            api: target.api,
            url: &url,
            headers,
            body,
            key,
        };

        let cancel = request.cancel.clone().unwrap_or_default();
        let total = self.config.timeouts.total;
        let policy: RetryPolicy = self.config.retry;
        let deadline = Instant::now() + total;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut delivered = false;
            tracing::debug!(url = %url, model = %request.model, attempt, streaming, "model call");
            let outcome = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(ClientError::Canceled),
                outcome = tokio::time::timeout_at(
                    deadline,
                    call.attempt(on_event.as_deref_mut(), &mut delivered),
                ) => outcome,
            };
            let failure = match outcome {
                Ok(Ok(parsed)) => return Ok((parsed, attempt)),
                Ok(Err(failure)) => failure,
                Err(_) => {
                    return Err(ClientError::Timeout {
                        url,
                        phase: TimeoutPhase::Total,
                        after: total,
                    })
                }
            };
            let delay = match failure.retry {
                Retry::No => return Err(failure.error),
                _ if attempt > policy.max_retries => return Err(failure.error),
                _ if delivered && !request.retry_after_partial => return Err(failure.error),
                Retry::Backoff => retry::backoff(&policy, attempt),
                Retry::After(wait) if wait > policy.max_retry_after => return Err(failure.error),
                Retry::After(wait) => wait,
            };
            if Instant::now() + delay >= deadline {
                return Err(failure.error);
            }
            tracing::warn!(
                url = %url,
                attempt,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error = %failure.error,
                "model call failed; retrying"
            );
            tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(ClientError::Canceled),
                () = tokio::time::sleep(delay) => {}
            }
            if delivered {
                if let Some(on_event) = on_event.as_deref_mut() {
                    let reason = failure.error.to_string();
                    on_event(StreamEvent::Restarted {
                        attempt: attempt + 1,
                        reason,
                    });
                }
            }
        }
    }
}

/// Everything one attempt needs, prepared once per call.
struct Call<'a> {
    client: &'a ModelClient,
    api: Api,
    url: &'a str,
    headers: HeaderMap,
    body: Value,
    key: Option<&'a Secret>,
}

impl Call<'_> {
    async fn attempt<'f>(
        &self,
        on_event: Option<OnEvent<'_, 'f>>,
        delivered: &mut bool,
    ) -> Result<Parsed, Failure> {
        let timeouts = self.client.config.timeouts;
        let send = self
            .client
            .http
            .post(self.url)
            .headers(self.headers.clone())
            .json(&self.body);
        let response = match tokio::time::timeout(timeouts.first_byte, send.send()).await {
            Err(_) => {
                return Err(Failure::stop(ClientError::Timeout {
                    url: self.url.to_owned(),
                    phase: TimeoutPhase::FirstByte,
                    after: timeouts.first_byte,
                }))
            }
            Ok(Err(error)) => return Err(self.transport_failure(&error)),
            Ok(Ok(response)) => response,
        };
        if !response.status().is_success() {
            return Err(self.status_failure(response).await);
        }
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| http::is_event_stream(v.as_bytes()));
        match on_event {
            Some(on_event) if is_sse => self.read_stream(response, on_event, delivered).await,
            on_event => {
                let limit = self.client.config.limits.max_answer_bytes;
                let body = self.read_body(response, limit).await?;
                let parsed = match self.api {
                    Api::OpenAi => openai::parse(&body),
                    Api::Anthropic => anthropic::parse(&body),
                }
                .map_err(|fault| self.fault(fault))?;
                // A server that ignored `stream: true` still gets its answer delivered.
                if let Some(on_event) = on_event {
                    if !parsed.text.is_empty() {
                        on_event(StreamEvent::Delta(redact(&parsed.text, self.key)));
                        *delivered = true;
                    }
                }
                Ok(parsed)
            }
        }
    }

    async fn read_stream<'f>(
        &self,
        response: reqwest::Response,
        on_event: OnEvent<'_, 'f>,
        delivered: &mut bool,
    ) -> Result<Parsed, Failure> {
        let idle = self.client.config.timeouts.idle;
        let limits = self.client.config.limits;
        let mut wire = match self.api {
            Api::OpenAi => Wire::OpenAi(openai::StreamState::default()),
            Api::Anthropic => Wire::Anthropic(anthropic::StreamState::default()),
        };
        let mut decoder = SseDecoder::new(limits.max_event_bytes);
        let mut chunks = response.bytes_stream();
        let mut handle = |event: SseEvent, wire: &mut Wire| -> Result<(), Failure> {
            let text = wire.on_event(&event).map_err(|fault| self.fault(fault))?;
            if wire.answer_bytes() > limits.max_answer_bytes {
                return Err(self.too_large(ResponsePart::Answer, limits.max_answer_bytes));
            }
            if let Some(text) = text {
                // Per delta: a key split across two deltas would pass, the final text is
                // scrubbed whole in `finish`.
                on_event(StreamEvent::Delta(redact(&text, self.key)));
                *delivered = true;
            }
            Ok(())
        };
        while !wire.is_done() {
            let chunk = match tokio::time::timeout(idle, chunks.next()).await {
                Err(_) => {
                    return Err(Failure::stop(ClientError::Timeout {
                        url: self.url.to_owned(),
                        phase: TimeoutPhase::Idle,
                        after: idle,
                    }))
                }
                Ok(None) => break,
                Ok(Some(Err(error))) => {
                    return Err(Failure {
                        error: ClientError::Interrupted {
                            url: self.url.to_owned(),
                            delivered_chars: wire.delivered_chars(),
                            detail: redact(&root_cause(&error), self.key),
                        },
                        retry: Retry::Backoff,
                    })
                }
                Ok(Some(Ok(chunk))) => chunk,
            };
            let events = decoder
                .push(&chunk)
                .map_err(|part| self.too_large(part, limits.max_event_bytes))?;
            for event in events {
                handle(event, &mut wire)?;
            }
        }
        let last = decoder
            .finish()
            .map_err(|part| self.too_large(part, limits.max_event_bytes))?;
        if let Some(event) = last {
            handle(event, &mut wire)?;
        }
        let delivered_chars = wire.delivered_chars();
        wire.finish().map_err(|detail| Failure {
            error: ClientError::Interrupted {
                url: self.url.to_owned(),
                delivered_chars,
                detail,
            },
            retry: Retry::Backoff,
        })
    }

    /// Reads a whole answer body of at most `limit` bytes, each chunk within the idle timeout.
    async fn read_body(
        &self,
        response: reqwest::Response,
        limit: usize,
    ) -> Result<Vec<u8>, Failure> {
        let idle = self.client.config.timeouts.idle;
        http::read_body(response, limit, Some(idle))
            .await
            .map_err(|error| self.body_failure(error))
    }

    fn body_failure(&self, error: BodyError) -> Failure {
        match error {
            BodyError::TooLarge { limit } => self.too_large(ResponsePart::Body, limit),
            BodyError::Idle { after } => Failure::stop(ClientError::Timeout {
                url: self.url.to_owned(),
                phase: TimeoutPhase::Idle,
                after,
            }),
            BodyError::Transport(error) => self.transport_failure(&error),
        }
    }

    fn too_large(&self, part: ResponsePart, limit: usize) -> Failure {
        Failure::stop(ClientError::TooLarge {
            url: self.url.to_owned(),
            part,
            limit,
        })
    }

    async fn status_failure(&self, response: reqwest::Response) -> Failure {
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| http::retry_after(v, chrono::Utc::now()));
        let idle = self.client.config.timeouts.idle;
        let body = http::read_body_prefix(response, MAX_ERROR_BYTES, Some(idle))
            .await
            .unwrap_or_default();
        let (message, kind) = provider_message(&body, self.key).unwrap_or_else(|| {
            (
                status.canonical_reason().unwrap_or("no message").to_owned(),
                None,
            )
        });
        let retry = if retry::is_retryable_status(status.as_u16()) {
            retry_after.map_or(Retry::Backoff, Retry::After)
        } else {
            Retry::No
        };
        let error = ClientError::Status {
            url: self.url.to_owned(),
            status: status.as_u16(),
            message,
            kind,
            retry_after,
        };
        Failure { error, retry }
    }

    fn transport_failure(&self, error: &reqwest::Error) -> Failure {
        let url = self.url.to_owned();
        if let Some(refused) = http::refused_redirect(error) {
            return Failure::stop(ClientError::Redirected {
                url,
                refused: refused.clone(),
            });
        }
        let error = if error.is_timeout() {
            let after = self.client.config.timeouts.connect;
            ClientError::Timeout {
                url,
                phase: TimeoutPhase::Connect,
                after,
            }
        } else {
            ClientError::Connect {
                url,
                detail: redact(&root_cause(error), self.key),
            }
        };
        Failure {
            error,
            retry: Retry::Backoff,
        }
    }

    fn fault(&self, fault: Fault) -> Failure {
        match fault {
            Fault::Malformed(detail) => Failure::stop(ClientError::Malformed {
                url: self.url.to_owned(),
                detail,
            }),
            Fault::Provider { message, kind } => {
                let transient = kind.as_deref().is_some_and(|kind| {
                    matches!(kind, "overloaded_error" | "rate_limit_error" | "api_error")
                        || kind.parse::<u16>().is_ok_and(retry::is_retryable_status)
                });
                Failure {
                    error: ClientError::StreamError {
                        url: self.url.to_owned(),
                        message: redact(&message, self.key),
                        kind: kind.map(|k| redact(&k, self.key)),
                    },
                    retry: if transient { Retry::Backoff } else { Retry::No },
                }
            }
        }
    }
}

/// The stream parser of the wire format in use.
enum Wire {
    OpenAi(openai::StreamState),
    Anthropic(anthropic::StreamState),
}

impl Wire {
    fn on_event(&mut self, event: &SseEvent) -> Result<Option<String>, Fault> {
        match self {
            Wire::OpenAi(state) => state.on_event(event),
            Wire::Anthropic(state) => state.on_event(event),
        }
    }

    fn is_done(&self) -> bool {
        match self {
            Wire::OpenAi(state) => state.is_done(),
            Wire::Anthropic(state) => state.is_done(),
        }
    }

    fn delivered_chars(&self) -> usize {
        match self {
            Wire::OpenAi(state) => state.delivered_chars(),
            Wire::Anthropic(state) => state.delivered_chars(),
        }
    }

    fn answer_bytes(&self) -> usize {
        match self {
            Wire::OpenAi(state) => state.answer_bytes(),
            Wire::Anthropic(state) => state.answer_bytes(),
        }
    }

    fn finish(self) -> Result<Parsed, String> {
        match self {
            Wire::OpenAi(state) => state.finish(),
            Wire::Anthropic(state) => state.finish(),
        }
    }
}
