//! Which failures are retried, and how long to back off between tries (`Retry-After` itself
//! is parsed in [`crate::http::retry_after`]).

use std::time::Duration;

use super::config::RetryPolicy;

/// Statuses worth another try: request timeout, rate limit, server-side failures and
/// Anthropic's 529 "overloaded". 501 and 505 are permanent, so they are not here.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504 | 529)
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
