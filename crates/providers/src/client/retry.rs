//! Which failures are retried, and how long to wait: `Retry-After` or backoff with jitter.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::config::RetryPolicy;

/// Statuses worth another try: request timeout, rate limit, server-side failures and
/// Anthropic's 529 "overloaded". 501 and 505 are permanent, so they are not here.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// Parses a `Retry-After` value: delay-seconds (`"2"`, also a decimal such as `"1.5"` some
/// proxies send) or an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`), relative to `now`.
/// A date in the past means "now" (zero). Anything else is ignored.
pub(crate) fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    Some((date - now).to_std().unwrap_or(Duration::ZERO))
}

/// The backoff before retry number `retry` (1-based): `base * 2^(retry-1)` capped at
/// `max_delay`, then a random point in its upper half.
pub(crate) fn backoff(policy: &RetryPolicy, retry: u32) -> Duration {
    let factor = 2u32.saturating_pow(retry.saturating_sub(1));
    let step = policy
        .base_delay
        .saturating_mul(factor)
        .min(policy.max_delay);
    let half = step / 2;
    half + half.mul_f64(fastrand::f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
            .expect("date")
            .to_utc();
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 29 Nov 2026 10:00:07 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after("Sun, 29 Nov 2026 09:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            max_retry_after: Duration::from_secs(1),
        };
        for _ in 0..50 {
            let first = backoff(&policy, 1);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let second = backoff(&policy, 2);
            assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(200));
            let capped = backoff(&policy, 30);
            assert!(capped >= Duration::from_millis(175) && capped <= Duration::from_millis(350));
        }
    }

    #[test]
    fn retryable_statuses() {
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [400, 401, 403, 404, 422, 501, 505] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }
}
