//! Why a CLI worker failed, in a domain code the UI switches on: the CLI's own final error
//! message (and the HTTP status when its output carries one) decides between the provider
//! refusing the key, the provider being out of reach, the CLI not being set up to run here,
//! and anything else.
//!
//! The CLIs word these differently and change their wording between versions, so matching is
//! by the phrases each shipping version was seen to print (recorded in the adapters' docs and
//! the transcript fixtures), never by an exit code alone.

use crate::error::ErrorCode;

/// Phrases of a refused key (any CLI, any provider), lower-case.
const AUTH: &[&str] = &[
    "invalid api key",
    "invalid x-api-key",
    "incorrect api key",
    "api key not valid",
    "api_key_invalid",
    "authentication_error",
    "authentication_failed",
    "authentication failed",
    "unauthenticated",
    "authenticationerror",
    "unauthorized",
    "permission_denied",
    "permission denied by provider",
    "invalid_api_key",
    "no api key",
    "missing api key",
    "api key is missing",
];

/// Phrases of a provider out of reach, lower-case.
const UNREACHABLE: &[&str] = &[
    "connection refused",
    "connectionrefused",
    "econnrefused",
    "unable to connect",
    "failed to connect",
    "could not connect",
    "enotfound",
    "getaddrinfo",
    "name or service not known",
    "fetch failed",
    "network error",
    "connection error",
    "apiconnectionerror",
    "econnreset",
    "etimedout",
    "stream disconnected",
    "error sending request",
    "dns error",
];

/// Phrases of a CLI that is not set up to run here, lower-case.
const MISCONFIGURED: &[&str] = &[
    "trusted director",
    "trusted folder",
    "--skip-trust",
    "invalid auth method",
    "auth method",
    "please set an auth method",
    "not logged in",
    "please run /login",
    "please log in",
    "model not found",
    "unknown model",
    "providermodelnotfounderror",
    "llm provider not provided",
    "unsupported model",
];

/// Phrases of Switchyard's egress proxy refusing or failing to reach an origin (its 403 and
/// 502 answers), lower-case: the provider is out of reach, whatever status the CLI reports.
const PROXY: &[&str] = &["is not this worker's provider", "could not be reached"];

/// The domain code of a worker failure whose cause the CLI wrote as `message`, with the HTTP
/// status of the provider's answer when the CLI's output carried one.
pub fn classify(message: &str, status: Option<u16>) -> ErrorCode {
    let lower = message.to_lowercase();
    let has = |phrases: &[&str]| phrases.iter().any(|p| lower.contains(p));
    if has(PROXY) {
        ErrorCode::ProviderUnreachable
    } else if matches!(status, Some(401 | 403)) {
        ErrorCode::ProviderAuth
    } else if has(MISCONFIGURED) {
        ErrorCode::WorkerMisconfigured
    } else if has(AUTH) || status_in_text(&lower, &[401, 403]) {
        ErrorCode::ProviderAuth
    } else if has(UNREACHABLE) {
        ErrorCode::ProviderUnreachable
    } else {
        ErrorCode::WorkerFailed
    }
}

/// Whether a failure of this code cannot get better by waiting: the worker is stopped on the
/// first such error instead of letting the CLI retry until its timeout.
pub fn is_fatal(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ProviderAuth | ErrorCode::WorkerMisconfigured
    )
}

/// Whether `lower` names one of `statuses` as an HTTP status (`status 401`, `API error 401`,
/// `(401)`, `401 Unauthorized`), not merely contains the digits.
fn status_in_text(lower: &str, statuses: &[u16]) -> bool {
    let context = [
        "status",
        "http",
        "api error",
        "error code",
        "code:",
        "request failed",
    ];
    let bytes = lower.as_bytes();
    statuses.iter().any(|status| {
        let needle = status.to_string();
        lower.match_indices(&needle).any(|(at, _)| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + needle.len()).copied();
            let standalone = !before.is_some_and(|b| b.is_ascii_alphanumeric())
                && !after.is_some_and(|b| b.is_ascii_alphanumeric());
            let near = &lower[at.saturating_sub(24)..at];
            standalone && context.iter().any(|c| near.contains(c))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_clis_messages_get_their_domain_codes() {
        let cases = [
            // Claude Code 2.1.197, against a server answering 401.
            (
                "Invalid API key · Fix external API key",
                None,
                ErrorCode::ProviderAuth,
            ),
            (
                "Claude Code would retry: authentication_failed",
                Some(401),
                ErrorCode::ProviderAuth,
            ),
            // Claude Code 2.1.197, nothing listening.
            (
                "API Error: Unable to connect to API (ConnectionRefused)",
                None,
                ErrorCode::ProviderUnreachable,
            ),
            // Gemini CLI 0.61: an untrusted folder, a base URL without an auth method.
            (
                "Gemini CLI is not running in a trusted directory. To proceed, either use \
                 `--skip-trust`",
                None,
                ErrorCode::WorkerMisconfigured,
            ),
            (
                "Invalid auth method selected.",
                None,
                ErrorCode::WorkerMisconfigured,
            ),
            (
                "[API Error: got status: 401 Unauthorized.]",
                None,
                ErrorCode::ProviderAuth,
            ),
            (
                "request failed with status 403",
                None,
                ErrorCode::ProviderAuth,
            ),
            (
                "the worker exited with code 1",
                None,
                ErrorCode::WorkerFailed,
            ),
            (
                "no edits applied at line 401 of main.rs",
                None,
                ErrorCode::WorkerFailed,
            ),
        ];
        for (message, status, code) in cases {
            assert_eq!(classify(message, status), code, "{message}");
        }
        assert!(is_fatal(ErrorCode::ProviderAuth));
        assert!(!is_fatal(ErrorCode::ProviderUnreachable));
    }
}
