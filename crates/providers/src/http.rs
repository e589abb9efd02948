//! The HTTP layer under every request of this crate: the client builder for requests that
//! carry a key, key header values, byte-capped body reads, and the parsers of the response
//! headers the crate reads.
//!
//! - Keys stay on their origin. reqwest strips `Authorization` on a cross-host redirect but
//!   forwards every other header, `x-api-key` (Anthropic, Artificial Analysis) included. A
//!   client from [`keyed_client`] therefore follows a redirect only when the new URL has the
//!   scheme, host and port of the URL first requested, and fails any other with
//!   [`CrossOriginRedirect`]. Key header values come from [`key_header`], marked sensitive.
//! - Bodies are read chunk by chunk against a byte cap ([`read_body`], [`read_body_prefix`]): a
//!   body that announces (`Content-Length`) or reaches more than the cap fails with
//!   [`BodyError::TooLarge`] and is never held whole in memory.
//! - Header parsers never panic on anything a server sends ([`retry_after`],
//!   [`is_event_stream`]); the fuzz tests hold them to that.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use reqwest::header::HeaderValue;
use reqwest::redirect::{Attempt, Policy};

/// Most redirects followed in one chain (reqwest's own default).
const MAX_REDIRECTS: usize = 10;

/// The longest wait a `Retry-After` is read as; anything longer (up to `1e20` seconds or a
/// date centuries ahead) means the same: not worth waiting for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// The user agent of every request.
pub const USER_AGENT: &str = concat!("switchyard/", env!("CARGO_PKG_VERSION"));

/// A redirect a keyed client refused because it leaves the origin the key was sent to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server redirected to {to}; keys are never sent to another origin")]
pub struct CrossOriginRedirect {
    /// The origin redirected to (`https://elsewhere.example`), without path or query.
    pub to: String,
}

#[derive(Debug, thiserror::Error)]
#[error("more than {MAX_REDIRECTS} redirects")]
struct TooManyRedirects;

/// The builder every client that sends a key starts from: the user agent and the same-origin
/// redirect policy. Callers add their timeouts.
pub fn keyed_client() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .redirect(Policy::custom(same_origin))
}

/// Follows a redirect that stays on the origin of the first URL of the chain; refuses others.
fn same_origin(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let Some(first) = attempt.previous().first() else {
        return attempt.stop();
    };
    if attempt.previous().len() > MAX_REDIRECTS {
        return attempt.error(TooManyRedirects);
    }
    if attempt.url().origin() == first.origin() {
        return attempt.follow();
    }
    let to = attempt.url().origin().ascii_serialization();
    attempt.error(CrossOriginRedirect { to })
}

/// The cross-origin redirect behind a transport error, when that is what it was.
pub fn refused_redirect(error: &reqwest::Error) -> Option<&CrossOriginRedirect> {
    let mut cause: &dyn std::error::Error = error;
    loop {
        if let Some(refused) = cause.downcast_ref::<CrossOriginRedirect>() {
            return Some(refused);
        }
        cause = cause.source()?;
    }
}

/// A key that cannot go into an HTTP header (a control character, a line break inside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the key contains characters that cannot be sent in an HTTP header")]
pub struct InvalidKeyHeader;

/// A header value carrying a key (`Bearer sk-…`, or the bare key for `x-api-key`), marked
/// sensitive so that no HTTP-layer debug output prints it.
pub fn key_header(value: &str) -> Result<HeaderValue, InvalidKeyHeader> {
    let mut value = HeaderValue::from_str(value).map_err(|_| InvalidKeyHeader)?;
    value.set_sensitive(true);
    Ok(value)
}

/// Why a response body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body announced or delivered more than `limit` bytes; reading stopped there.
    #[error("the response is larger than {limit} bytes")]
    TooLarge {
        /// The cap in bytes.
        limit: usize,
    },
    /// No chunk arrived for `after`.
    #[error("no data for {after:?}")]
    Idle {
        /// The idle timeout.
        after: Duration,
    },
    /// The connection broke or a client timeout fired.
    #[error("{0}")]
    Transport(#[source] reqwest::Error),
}

/// Reads a whole body of at most `limit` bytes, each chunk within `idle` when given. A
/// `Content-Length` above the cap fails before anything is read; a body that grows past it
/// fails as the chunk that crosses it arrives.
pub async fn read_body(
    response: reqwest::Response,
    limit: usize,
    idle: Option<Duration>,
) -> Result<Vec<u8>, BodyError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(BodyError::TooLarge { limit });
    }
    read(response, limit, idle, false).await
}

/// Reads the first `limit` bytes of a body and stops quietly there (error bodies, where the
/// start says enough).
pub async fn read_body_prefix(
    response: reqwest::Response,
    limit: usize,
    idle: Option<Duration>,
) -> Result<Vec<u8>, BodyError> {
    read(response, limit, idle, true).await
}

async fn read(
    response: reqwest::Response,
    limit: usize,
    idle: Option<Duration>,
    truncate: bool,
) -> Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    loop {
        let next = match idle {
            Some(after) => tokio::time::timeout(after, chunks.next())
                .await
                .map_err(|_| BodyError::Idle { after })?,
            None => chunks.next().await,
        };
        let chunk = match next {
            None => return Ok(body),
            Some(Err(error)) => return Err(BodyError::Transport(error)),
            Some(Ok(chunk)) => chunk,
        };
        let room = limit.saturating_sub(body.len());
        if chunk.len() > room {
            if truncate {
                body.extend_from_slice(&chunk[..room]);
                return Ok(body);
            }
            return Err(BodyError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
}

/// Parses a `Retry-After` value: delay-seconds (`"2"`, also a decimal such as `"1.5"` some
/// proxies send) or an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`), relative to `now`. A
/// date in the past means zero; any wait is clamped to [`MAX_RETRY_AFTER`]. Negative, NaN,
/// infinite and unparseable values are ignored (`None`). Never panics.
pub fn retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds).min(MAX_RETRY_AFTER));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        if !seconds.is_finite() || seconds < 0.0 {
            return None;
        }
        if seconds == 0.0 {
            // `-0` lands here too.
            return Some(Duration::ZERO);
        }
        // Past u64::MAX seconds `try_from_secs_f64` refuses, and any such wait is "too long".
        return Some(
            Duration::try_from_secs_f64(seconds)
                .unwrap_or(MAX_RETRY_AFTER)
                .min(MAX_RETRY_AFTER),
        );
    }
    let date = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    let wait = date
        .signed_duration_since(now)
        .to_std()
        .unwrap_or(Duration::ZERO);
    Some(wait.min(MAX_RETRY_AFTER))
}

/// Whether a `Content-Type` value names a server-sent-events stream (`text/event-stream`,
/// parameters and letter case ignored).
pub fn is_event_stream(content_type: &[u8]) -> bool {
    let Ok(value) = std::str::from_utf8(content_type) else {
        return false;
    };
    value
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/event-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
            .expect("date")
            .to_utc()
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = now();
        assert_eq!(retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(retry_after("1.5", now), Some(Duration::from_millis(1500)));
        assert_eq!(
            retry_after("Sun, 29 Nov 2026 10:00:07 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after("Sun, 29 Nov 2026 09:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-3", now), None);
    }

    #[test]
    fn retry_after_1e20_nan_inf_and_huge_values_do_not_panic() {
        let now = now();
        for huge in [
            "1e20",
            "1e300",
            "18446744073709551616",
            "99999999999999999999999999",
            "18446744073709551615",
            "18446744073709551615.5",
            "Fri, 31 Dec 9999 23:59:59 GMT",
        ] {
            assert_eq!(retry_after(huge, now), Some(MAX_RETRY_AFTER), "{huge}");
        }
        for ignored in [
            "NaN", "nan", "inf", "-inf", "infinity", "-1", "-1e20", "-0.5",
        ] {
            assert_eq!(retry_after(ignored, now), None, "{ignored}");
        }
        assert_eq!(retry_after("-0", now), Some(Duration::ZERO));
    }

    #[test]
    fn event_stream_content_types() {
        assert!(is_event_stream(b"text/event-stream"));
        assert!(is_event_stream(b"text/event-stream; charset=utf-8"));
        assert!(is_event_stream(b"Text/Event-Stream"));
        assert!(!is_event_stream(b"application/json"));
        assert!(!is_event_stream(b"text/event-streamx"));
        assert!(!is_event_stream(b"\xff\xfe"));
    }

    #[test]
    fn key_headers_are_sensitive_and_line_breaks_refused() {
        let value = key_header("Bearer sk-1").expect("valid");
        assert!(value.is_sensitive());
        assert_eq!(key_header("sk-1\r\nx-evil: 1"), Err(InvalidKeyHeader));
    }
}
