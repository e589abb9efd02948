//! "Test" on the Keys page: one real request to a provider's model-list endpoint, reporting
//! latency and model count, or the provider's own error message. Ollama and LM Studio are
//! probed by [`local::list_models`], the same probe the doctor, the catalog and the provider
//! list use.
//!
//! The key goes only to the provider's origin ([`http::keyed_client`]); bodies are read
//! against [`MAX_TEST_BODY`].

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use serde_json::Value;
use switchyard_core::providers::{self as ids, ProviderKind, ProviderTest};
use switchyard_keychain::Secret;

use crate::client::{provider_message, redact, root_cause};
use crate::http::{self, BodyError};
use crate::local::{self, LocalError};
use crate::registry::Provider;

/// How long a Test may take in total.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Largest model-list body a Test reads (OpenRouter's whole list is about 1 MiB).
pub const MAX_TEST_BODY: usize = 32 * 1024 * 1024;

/// Largest part of an error body read for the provider's message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// The model-list URL a Test requests (never carries the key).
pub fn models_url(provider: &Provider) -> String {
    if let Some(server) = provider.local_server() {
        return local::list_url(server, &provider.base_url);
    }
    let base = provider.base_url.trim_end_matches('/');
    match provider.kind {
        ProviderKind::Anthropic => format!("{base}/v1/models?limit=1000"),
        ProviderKind::DataSource => format!("{base}/data/llms/models"),
        ProviderKind::OpenaiCompatible | ProviderKind::Local => format!("{base}/models"),
    }
}

/// Requests the provider's model list with `key` (when given) and reports what happened.
/// Never fails: every problem becomes `ok: false` with the reason. For OpenRouter, whose model
/// list is public, the key is first checked against `GET /key`.
///
/// The returned `key_source` is `None`; the caller, who knows where the key came from, sets it.
pub async fn test_provider(provider: &Provider, key: Option<&Secret>) -> ProviderTest {
    let url = models_url(provider);
    let mut report = ProviderTest {
        provider_id: provider.id.clone(),
        url: url.clone(),
        ok: false,
        latency_ms: 0,
        model_count: None,
        http_status: None,
        error: None,
        key_source: None,
    };
    let started = Instant::now();
    let result = match provider.local_server() {
        Some(server) => run_local(server, &provider.base_url).await,
        None => run(provider, key, &url).await,
    };
    report.latency_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    match result {
        Ok((status, count)) => {
            report.ok = true;
            report.http_status = Some(status);
            report.model_count = Some(count);
        }
        Err((status, message)) => {
            report.http_status = status;
            report.error = Some(message);
        }
    }
    report
}

type Failure = (Option<u16>, String);

/// A local server's Test: its model list through [`local::list_models`]. A local server has no
/// key and answers 200 or an error status, nothing in between.
async fn run_local(server: local::LocalServer, base_url: &str) -> Result<(u16, u32), Failure> {
    match local::list_models(server, base_url).await {
        Ok(names) => Ok((200, u32::try_from(names.len()).unwrap_or(u32::MAX))),
        Err(error @ LocalError::Status { status, .. }) => Err((Some(status), error.to_string())),
        Err(error) => Err((None, error.to_string())),
    }
}

async fn run(provider: &Provider, key: Option<&Secret>, url: &str) -> Result<(u16, u32), Failure> {
    let client = http::keyed_client()
        .connect_timeout(Duration::from_secs(5))
        .timeout(TEST_TIMEOUT)
        .build()
        .map_err(|e| (None, format!("cannot build HTTP client: {e}")))?;
    let headers = headers(provider.kind, key)?;
    if provider.id == ids::OPENROUTER && !provider.custom {
        let key_url = format!("{}/key", provider.base_url.trim_end_matches('/'));
        get(&client, &key_url, &headers, key).await?;
    }
    let (status, body) = get(&client, url, &headers, key).await?;
    let count = count_models(&body)
        .ok_or_else(|| (Some(status), "the answer is not a model list".to_owned()))?;
    Ok((status, count))
}

async fn get(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    key: Option<&Secret>,
) -> Result<(u16, Vec<u8>), Failure> {
    let response = client
        .get(url)
        .headers(headers.clone())
        .send()
        .await
        .map_err(|e| {
            if let Some(refused) = http::refused_redirect(&e) {
                return (None, format!("{url}: {refused}"));
            }
            let what = if e.is_timeout() {
                "timed out".to_owned()
            } else {
                root_cause(&e)
            };
            (
                None,
                format!("could not reach {url}: {}", redact(&what, key)),
            )
        })?;
    let status = response.status();
    if !status.is_success() {
        let body = http::read_body_prefix(response, MAX_ERROR_BODY, None)
            .await
            .unwrap_or_default();
        let message = provider_message(&body, key)
            .map(|(message, _)| message)
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned());
        return Err((Some(status.as_u16()), message));
    }
    let body = http::read_body(response, MAX_TEST_BODY, None)
        .await
        .map_err(|error| {
            let message = match error {
                BodyError::TooLarge { limit } => {
                    format!("the answer from {url} is larger than {limit} bytes")
                }
                BodyError::Transport(e) => {
                    format!("the answer broke off: {}", redact(&root_cause(&e), key))
                }
                other => format!("the answer broke off: {other}"),
            };
            (Some(status.as_u16()), message)
        })?;
    Ok((status.as_u16(), body))
}

fn headers(kind: ProviderKind, key: Option<&Secret>) -> Result<HeaderMap, Failure> {
    let mut headers = HeaderMap::new();
    if kind == ProviderKind::Anthropic {
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(crate::client::anthropic::API_VERSION),
        );
    }
    let Some(key) = key else {
        return Ok(headers);
    };
    let (name, value) = match kind {
        ProviderKind::Anthropic | ProviderKind::DataSource => (
            HeaderName::from_static("x-api-key"),
            key.expose().to_owned(),
        ),
        ProviderKind::OpenaiCompatible | ProviderKind::Local => {
            (AUTHORIZATION, format!("Bearer {}", key.expose()))
        }
    };
    let value = http::key_header(&value).map_err(|e| (None, e.to_string()))?;
    headers.insert(name, value);
    Ok(headers)
}

/// Length of `data` (OpenAI-compatible, Anthropic, Artificial Analysis) or `models` (Ollama,
/// Gemini's native list).
fn count_models(body: &[u8]) -> Option<u32> {
    let json: Value = serde_json::from_slice(body).ok()?;
    let list = json
        .get("data")
        .or_else(|| json.get("models"))?
        .as_array()?;
    Some(u32::try_from(list.len()).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{builtin, Provider};

    #[test]
    fn model_list_urls_per_kind() {
        let url = |id: &str| models_url(&Provider::from_spec(builtin(id).expect(id), None));
        assert_eq!(url("openrouter"), "https://openrouter.ai/api/v1/models");
        assert_eq!(
            url("anthropic"),
            "https://api.anthropic.com/v1/models?limit=1000"
        );
        assert_eq!(url("ollama"), "http://127.0.0.1:11434/api/tags");
        assert_eq!(url("lmstudio"), "http://127.0.0.1:1234/v1/models");
        assert_eq!(
            url("artificialanalysis"),
            "https://artificialanalysis.ai/api/v2/data/llms/models"
        );
        assert_eq!(
            url("gemini"),
            "https://generativelanguage.googleapis.com/v1beta/openai/models"
        );
    }

    #[test]
    fn model_counts_from_both_list_shapes() {
        assert_eq!(
            count_models(br#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#),
            Some(2)
        );
        assert_eq!(count_models(br#"{"models":[{"name":"llama3"}]}"#), Some(1));
        assert_eq!(count_models(br#"{"status":200}"#), None);
        assert_eq!(count_models(b"<html>"), None);
    }
}
