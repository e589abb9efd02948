//! Model providers as the UI and the CLI see them: ids, kinds, key status, the result of a
//! "Test", token usage and cost of an answer.
//!
//! Only shapes and pure rules live here. Keys themselves never appear in any of these types:
//! the UI learns whether a key exists, where it comes from and its last four characters.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Pricing;

/// OpenRouter: one key for most cloud models.
pub const OPENROUTER: &str = "openrouter";
/// OpenAI's own API.
pub const OPENAI: &str = "openai";
/// Anthropic's Messages API.
pub const ANTHROPIC: &str = "anthropic";
/// Google Gemini through its OpenAI-compatible endpoint.
pub const GEMINI: &str = "gemini";
/// DeepSeek's own API.
pub const DEEPSEEK: &str = "deepseek";
/// A local Ollama server.
pub const OLLAMA: &str = "ollama";
/// A local LM Studio server.
pub const LMSTUDIO: &str = "lmstudio";
/// Artificial Analysis: a catalog data source, not a model provider.
pub const ARTIFICIAL_ANALYSIS: &str = "artificialanalysis";

/// Longest accepted provider id.
pub const MAX_PROVIDER_ID_LEN: usize = 40;

/// How Switchyard talks to a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI's chat-completions wire format (OpenRouter, OpenAI, Gemini, DeepSeek, custom).
    OpenaiCompatible,
    /// Anthropic's Messages API.
    Anthropic,
    /// A model server on this machine (Ollama, LM Studio); no key.
    Local,
    /// A catalog data source (Artificial Analysis); its key is used for fetching benchmarks.
    DataSource,
}

impl ProviderKind {
    /// The wire name (`openai-compatible`, `anthropic`, `local`, `data-source`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenaiCompatible => "openai-compatible",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Local => "local",
            ProviderKind::DataSource => "data-source",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider kind name that is not one of the four.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider kind {0:?}; expected openai, openai-compatible, anthropic, local or data-source")]
pub struct UnknownProviderKind(pub String);

impl FromStr for ProviderKind {
    type Err = UnknownProviderKind;

    /// Accepts the wire names plus `openai` as the CLI's short form of `openai-compatible`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" => Ok(ProviderKind::OpenaiCompatible),
            "anthropic" => Ok(ProviderKind::Anthropic),
            "local" => Ok(ProviderKind::Local),
            "data-source" => Ok(ProviderKind::DataSource),
            _ => Err(UnknownProviderKind(text.to_owned())),
        }
    }
}

/// Why a provider id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderIdError {
    /// Empty or longer than [`MAX_PROVIDER_ID_LEN`].
    #[error("provider id must be 1 to {MAX_PROVIDER_ID_LEN} characters")]
    Length,
    /// Contains something other than `a-z`, `0-9`, `-`, `_`, or does not start with a letter.
    #[error(
        "provider id {0:?} must start with a lowercase letter and contain only a-z, 0-9, '-' and '_'"
    )]
    Characters(String),
}

/// Checks a provider id: `[a-z][a-z0-9_-]*`, at most [`MAX_PROVIDER_ID_LEN`] characters.
///
/// Ids name keychain entries and appear in model references (`<id>:<model>`), so they must
/// be short, lowercase and free of `/`, `:` and whitespace.
pub fn validate_provider_id(id: &str) -> Result<(), ProviderIdError> {
    if id.is_empty() || id.len() > MAX_PROVIDER_ID_LEN {
        return Err(ProviderIdError::Length);
    }
    let mut chars = id.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if starts_with_letter && rest_ok {
        Ok(())
    } else {
        Err(ProviderIdError::Characters(id.to_owned()))
    }
}

/// Where a key in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum KeySource {
    /// The OS keychain.
    Keychain,
    /// The provider's environment variable (e.g. `OPENROUTER_API_KEY`).
    Environment,
}

/// What the Keys page shows about a provider's key. Never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum KeyStatus {
    /// The provider needs a key and none is stored or set in the environment.
    Missing,
    /// A key is stored in the keychain for the origin requests go to now; the UI may show its
    /// last four characters.
    Stored {
        /// Last four characters of the key.
        last4: String,
        /// The origin the key is held for (`scheme://host[:port]`), which is where requests go.
        origin: String,
    },
    /// A key exists but is bound to another origin than the one requests go to now (the base
    /// URL changed): it is not sent there until the user moves it (a native confirmation in
    /// the app, `providers set --keep-key` in the CLI) or stores a key for the new origin.
    OriginMismatch {
        /// Last four characters of the key.
        last4: String,
        /// The origin the key is held for: where it was entered, or for an environment
        /// variable the provider's built-in default origin.
        origin: String,
        /// Where requests go now (the origin of the base URL).
        #[serde(rename = "targetOrigin")]
        target_origin: String,
        /// Set when the key is an environment variable's rather than the keychain's; such a
        /// key goes only to the default origin or to loopback and cannot be moved.
        variable: Option<String>,
    },
    /// A key is stored for a plain-`http` origin that is not this machine (a key entered
    /// before keys were bound to origins): it is never sent. Use `https`, or delete the key.
    InsecureOrigin {
        /// Last four characters of the key.
        last4: String,
        /// The `http://` origin the key is held for.
        origin: String,
    },
    /// No key in the keychain, but the provider's environment variable is set.
    Environment {
        /// The variable's name, e.g. `OPENROUTER_API_KEY`.
        variable: String,
        /// Last four characters of its value.
        last4: String,
    },
    /// The provider takes no key (local servers).
    NotNeeded,
    /// The keychain could not be read; the message says why and how to fix it.
    Unavailable {
        /// Reason and fix, e.g. "no keychain available: no D-Bus session bus …".
        message: String,
    },
}

impl KeyStatus {
    /// Whether a call to this provider would find a key (or needs none).
    pub fn is_usable(&self) -> bool {
        matches!(
            self,
            KeyStatus::Stored { .. } | KeyStatus::Environment { .. } | KeyStatus::NotNeeded
        )
    }
}

/// A stored key that would move from the origin it is held for to the provider's current
/// origin: what the app's native confirmation dialog names before the user allows the move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOriginChange {
    /// Provider id.
    pub provider: String,
    /// Provider display name.
    pub provider_name: String,
    /// Last four characters of the key.
    pub last4: String,
    /// The origin the key is held for now.
    pub from: String,
    /// The origin of the provider's current base URL.
    pub to: String,
}

/// Whether a local server answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalReachability {
    /// It answered with a model list.
    pub reachable: bool,
    /// Number of models it lists when reachable.
    pub model_count: Option<u32>,
    /// Why not (connection refused, timeout, unexpected body).
    pub error: Option<String>,
}

/// One row of the Keys page / `switchyard providers list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderStatus {
    /// Stable id (`openrouter`, `ollama`, or a custom id).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire format / role.
    pub kind: ProviderKind,
    /// The base URL in use (override or default).
    pub base_url: String,
    /// The origin of `base_url` (`scheme://host[:port]`): where requests, and so keys, go.
    /// A stored key is bound to one origin; [`KeyStatus`] says whether it is this one.
    pub origin: Option<String>,
    /// The built-in default base URL; `None` for custom providers.
    pub default_base_url: Option<String>,
    /// Added by the user rather than built in.
    pub custom: bool,
    /// Environment variable honoured when the keychain has no key.
    pub env_var: Option<String>,
    /// Key presence.
    pub key: KeyStatus,
    /// For local servers: whether they answered just now.
    pub local: Option<LocalReachability>,
}

/// The outcome of "Test": one real request to the provider's model-list endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTest {
    /// Which provider was tested.
    pub provider_id: String,
    /// The URL requested (never carries the key).
    pub url: String,
    /// The provider answered with a model list.
    pub ok: bool,
    /// Round-trip time of the request in milliseconds.
    pub latency_ms: u32,
    /// Number of models listed when `ok`.
    pub model_count: Option<u32>,
    /// HTTP status when the server answered.
    pub http_status: Option<u16>,
    /// The provider's own error message, or why no answer came.
    pub error: Option<String>,
    /// Which key was sent; `None` when none was needed.
    pub key_source: Option<KeySource>,
}

/// Token counts of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens (including cached prompt tokens when the provider reports them).
    pub input_tokens: u32,
    /// Completion tokens.
    pub output_tokens: u32,
    /// Some count was missing from the response and was estimated from text length.
    pub estimated: bool,
}

impl Usage {
    /// Sums two usages (e.g. an answer and its repair request); estimated if either was.
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            estimated: self.estimated || other.estimated,
        }
    }
}

/// The token estimate used when a provider reports no usage (the result is always flagged
/// `estimated`): the one estimate of [`crate::text::estimate_tokens`], re-exported here.
pub use crate::text::estimate_tokens;

/// What an answer cost in USD, from per-million prices.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Total: input plus output.
    pub usd: f64,
    /// Prompt part.
    pub input_usd: f64,
    /// Completion part.
    pub output_usd: f64,
    /// Computed from estimated token counts.
    pub estimated: bool,
}

impl Cost {
    /// Prices `usage`; `None` when either price is unknown (never silently zero).
    pub fn compute(usage: &Usage, pricing: &Pricing) -> Option<Cost> {
        let input_usd = f64::from(usage.input_tokens) * pricing.prompt_per_m? / 1_000_000.0;
        let output_usd = f64::from(usage.output_tokens) * pricing.completion_per_m? / 1_000_000.0;
        Some(Cost {
            usd: input_usd + output_usd,
            input_usd,
            output_usd,
            estimated: usage.estimated,
        })
    }

    /// Sums two costs; estimated if either was.
    pub fn plus(self, other: Cost) -> Cost {
        Cost {
            usd: self.usd + other.usd,
            input_usd: self.input_usd + other.input_usd,
            output_usd: self.output_usd + other.output_usd,
            estimated: self.estimated || other.estimated,
        }
    }
}

/// Adds a user-defined provider (`switchyard providers add`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AddProviderRequest {
    /// New id; must pass [`validate_provider_id`] and not be a built-in id.
    pub id: String,
    /// Display name; defaults to the id.
    pub name: Option<String>,
    /// `openai-compatible` or `anthropic`.
    pub kind: ProviderKind,
    /// Base URL, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
}

/// One streamed answer (`switchyard ask`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AskRequest {
    /// Catalog model id (`anthropic/claude-sonnet-4.5`, `local/ollama/llama3.2:3b`) or an
    /// explicit `<provider>:<model>` reference.
    pub model: String,
    /// The user's prompt.
    pub prompt: String,
    /// Optional system prompt.
    pub system: Option<String>,
    /// Cap on answer tokens; the provider default when `None` (4096 for Anthropic).
    pub max_tokens: Option<u32>,
    /// Per-million prices for the cost line; `None` means unknown (no cost is reported) unless
    /// the model is local (free).
    pub pricing: Option<Pricing>,
}

/// The finished answer of `ask`, after its text was streamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AskAnswer {
    /// The model reference as asked.
    pub model: String,
    /// Provider that served it.
    pub provider_id: String,
    /// Model name sent to that provider.
    pub provider_model: String,
    /// Where the key came from; `None` for providers without a key.
    pub key_source: Option<KeySource>,
    /// The whole answer text.
    pub text: String,
    /// Why generation stopped, as the provider said (`stop`, `end_turn`, `length`).
    pub finish_reason: Option<String>,
    /// Token counts, from the provider or estimated.
    pub usage: Usage,
    /// `None` when the price is unknown.
    pub cost: Option<Cost>,
    /// Wall time of the call in milliseconds, retries included.
    pub latency_ms: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_ids_are_validated() {
        assert!(validate_provider_id("openrouter").is_ok());
        assert!(validate_provider_id("my-vllm_2").is_ok());
        assert_eq!(validate_provider_id(""), Err(ProviderIdError::Length));
        assert_eq!(
            validate_provider_id(&"a".repeat(41)),
            Err(ProviderIdError::Length)
        );
        for bad in ["Open", "9lives", "a/b", "a:b", "a b", "-x", "é"] {
            assert!(
                matches!(
                    validate_provider_id(bad),
                    Err(ProviderIdError::Characters(_))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn kinds_parse_and_serialize() {
        assert_eq!("openai".parse(), Ok(ProviderKind::OpenaiCompatible));
        assert_eq!(" Anthropic ".parse(), Ok(ProviderKind::Anthropic));
        assert!("grpc".parse::<ProviderKind>().is_err());
        let json = serde_json::to_value(ProviderKind::OpenaiCompatible).expect("serializes");
        assert_eq!(json, "openai-compatible");
        for kind in [
            ProviderKind::OpenaiCompatible,
            ProviderKind::Anthropic,
            ProviderKind::Local,
            ProviderKind::DataSource,
        ] {
            assert_eq!(kind.as_str().parse(), Ok(kind));
            assert_eq!(
                serde_json::to_value(kind).expect("serializes"),
                kind.as_str()
            );
        }
    }

    #[test]
    fn key_status_is_tagged_and_never_holds_more_than_last4() {
        let json = serde_json::to_value(KeyStatus::Environment {
            variable: "OPENAI_API_KEY".into(),
            last4: "abcd".into(),
        })
        .expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"state": "environment", "variable": "OPENAI_API_KEY", "last4": "abcd"})
        );
        assert_eq!(
            serde_json::to_value(KeyStatus::Missing).expect("ok"),
            serde_json::json!({"state": "missing"})
        );
        assert_eq!(
            serde_json::to_value(KeyStatus::OriginMismatch {
                last4: "abcd".into(),
                origin: "https://api.openai.com".into(),
                target_origin: "http://127.0.0.1:9".into(),
                variable: None,
            })
            .expect("ok"),
            serde_json::json!({"state": "originMismatch", "last4": "abcd",
                "origin": "https://api.openai.com", "targetOrigin": "http://127.0.0.1:9",
                "variable": null})
        );
        assert!(KeyStatus::NotNeeded.is_usable());
        assert!(!KeyStatus::OriginMismatch {
            last4: "abcd".into(),
            origin: "https://a".into(),
            target_origin: "https://b".into(),
            variable: None,
        }
        .is_usable());
        assert!(!KeyStatus::InsecureOrigin {
            last4: "abcd".into(),
            origin: "http://10.0.0.5".into(),
        }
        .is_usable());
        assert!(!KeyStatus::Unavailable {
            message: "x".into()
        }
        .is_usable());
    }

    #[test]
    fn cost_is_priced_per_million_and_unknown_price_is_none() {
        let usage = Usage {
            input_tokens: 2_000,
            output_tokens: 500,
            estimated: false,
        };
        let pricing = Pricing {
            prompt_per_m: Some(3.0),
            completion_per_m: Some(15.0),
        };
        let cost = Cost::compute(&usage, &pricing).expect("priced");
        assert!((cost.input_usd - 0.006).abs() < 1e-12);
        assert!((cost.output_usd - 0.0075).abs() < 1e-12);
        assert!((cost.usd - 0.0135).abs() < 1e-12);
        assert!(!cost.estimated);
        let half = Pricing {
            prompt_per_m: Some(3.0),
            completion_per_m: None,
        };
        assert_eq!(Cost::compute(&usage, &half), None);
        let estimated = Usage {
            estimated: true,
            ..usage
        };
        assert!(
            Cost::compute(&estimated, &pricing)
                .expect("priced")
                .estimated
        );
    }

    #[test]
    fn usage_sums_and_estimates() {
        let a = Usage {
            input_tokens: 10,
            output_tokens: 5,
            estimated: false,
        };
        let b = Usage {
            input_tokens: 1,
            output_tokens: 2,
            estimated: true,
        };
        assert_eq!(
            a.plus(b),
            Usage {
                input_tokens: 11,
                output_tokens: 7,
                estimated: true
            }
        );
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        // Not four characters per token for every script: accented Latin is denser.
        assert_eq!(estimate_tokens("ééééé"), 3);
    }
}
