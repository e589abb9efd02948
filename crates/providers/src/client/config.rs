//! Timeouts, the retry policy and the response size limits of the model client.

use std::time::Duration;

/// How long each phase of a call may take.
///
/// - `connect`: TCP + TLS handshake of one attempt.
/// - `first_byte`: from sending the request until the response headers arrive. For
///   non-streaming calls many providers send headers only once the answer is complete, so this
///   is generous by default.
/// - `idle`: longest pause between two chunks of a response body (streams stall silently
///   otherwise).
/// - `total`: the whole call, every retry and every wait included. A retry whose wait would
///   end after this deadline is not attempted; the last error is returned instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP + TLS handshake.
    pub connect: Duration,
    /// Until response headers.
    pub first_byte: Duration,
    /// Between two body chunks.
    pub idle: Duration,
    /// The whole call including retries.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(120),
            total: Duration::from_secs(600),
        }
    }
}

/// When and how long to wait before trying again.
///
/// Retried: HTTP 408, 429, 500, 502, 503, 504 and 529 (Anthropic "overloaded"), connection
/// failures, and streams that broke before delivering anything. Every other 4xx fails at once
/// with the provider's message. The wait is the server's `Retry-After` when it sent one
/// (seconds or an HTTP date), else exponential backoff `base * 2^(n-1)` capped at `max_delay`,
/// with "equal jitter" (a random point in its upper half) so that parallel callers spread out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// First backoff step.
    pub base_delay: Duration,
    /// Cap of a backoff step.
    pub max_delay: Duration,
    /// A `Retry-After` longer than this is not waited for; the error is returned.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// How much of a response the client holds at most. Past a limit the call fails with
/// [`crate::client::ClientError::TooLarge`] (not retried): a server streaming without end, or
/// a line without end, costs bounded memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseLimits {
    /// Longest SSE line, and most `data:` bytes of one SSE event.
    pub max_event_bytes: usize,
    /// Most answer text of a stream (text and tool input together), and the largest body of a
    /// non-streaming answer.
    pub max_answer_bytes: usize,
}

impl Default for ResponseLimits {
    fn default() -> Self {
        Self {
            max_event_bytes: 1024 * 1024,
            max_answer_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Everything the client needs besides the request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientConfig {
    /// Connect, first-byte, idle and total timeouts.
    pub timeouts: Timeouts,
    /// Retries and their waits.
    pub retry: RetryPolicy,
    /// Size caps of lines, events, answers and bodies.
    pub limits: ResponseLimits,
}
