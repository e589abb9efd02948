//! The providers Switchyard knows: built-ins with their default base URLs and key variables,
//! plus user-defined OpenAI-compatible or Anthropic endpoints.

use switchyard_core::origin::{Origin, OriginError};
use switchyard_core::providers::{self as ids, ProviderKind};

use crate::client::{Target, TokenLimitField};
use crate::local::LocalServer;

/// A built-in provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderSpec {
    /// Stable id (keychain account name, model-reference prefix).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Wire format / role.
    pub kind: ProviderKind,
    /// OpenAI-compatible and local: includes `/v1`. Anthropic: the host only.
    pub default_base_url: &'static str,
    /// Environment variable honoured when the keychain has no key.
    pub env_var: Option<&'static str>,
    /// The catalog (OpenRouter) vendor prefix this provider serves directly, e.g. `openai`
    /// for `openai/gpt-5.1`.
    pub vendor: Option<&'static str>,
}

/// Every built-in provider, in display order.
pub const BUILTIN: [ProviderSpec; 8] = [
    ProviderSpec {
        id: ids::OPENROUTER,
        name: "OpenRouter",
        kind: ProviderKind::OpenaiCompatible,
        default_base_url: "https://openrouter.ai/api/v1",
        env_var: Some("OPENROUTER_API_KEY"),
        vendor: None,
    },
    ProviderSpec {
        id: ids::OPENAI,
        name: "OpenAI",
        kind: ProviderKind::OpenaiCompatible,
        default_base_url: "https://api.openai.com/v1",
        env_var: Some("OPENAI_API_KEY"),
        vendor: Some("openai"),
    },
    ProviderSpec {
        id: ids::ANTHROPIC,
        name: "Anthropic",
        kind: ProviderKind::Anthropic,
        default_base_url: "https://api.anthropic.com",
        env_var: Some("ANTHROPIC_API_KEY"),
        vendor: Some("anthropic"),
    },
    ProviderSpec {
        id: ids::GEMINI,
        name: "Google Gemini",
        kind: ProviderKind::OpenaiCompatible,
        default_base_url: "https://generativelanguage.googleapis.com/v1beta/openai",
        env_var: Some("GEMINI_API_KEY"),
        vendor: Some("google"),
    },
    ProviderSpec {
        id: ids::DEEPSEEK,
        name: "DeepSeek",
        kind: ProviderKind::OpenaiCompatible,
        default_base_url: "https://api.deepseek.com",
        env_var: Some("DEEPSEEK_API_KEY"),
        vendor: Some("deepseek"),
    },
    ProviderSpec {
        id: ids::OLLAMA,
        name: "Ollama",
        kind: ProviderKind::Local,
        default_base_url: "http://127.0.0.1:11434/v1",
        env_var: None,
        vendor: None,
    },
    ProviderSpec {
        id: ids::LMSTUDIO,
        name: "LM Studio",
        kind: ProviderKind::Local,
        default_base_url: "http://127.0.0.1:1234/v1",
        env_var: None,
        vendor: None,
    },
    ProviderSpec {
        id: ids::ARTIFICIAL_ANALYSIS,
        name: "Artificial Analysis",
        kind: ProviderKind::DataSource,
        default_base_url: "https://artificialanalysis.ai/api/v2",
        env_var: Some("ARTIFICIAL_ANALYSIS_API_KEY"),
        vendor: None,
    },
];

/// The built-in provider with this id.
pub fn builtin(id: &str) -> Option<&'static ProviderSpec> {
    BUILTIN.iter().find(|spec| spec.id == id)
}

/// A base URL that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid base URL: {0}")]
pub struct InvalidBaseUrl(pub String);

/// Checks and normalizes a base URL: `http` or `https`, a host, no user name or password (keys
/// never go into URLs), no query or fragment, no trailing slash.
pub fn normalize_base_url(url: &str) -> Result<String, InvalidBaseUrl> {
    let parsed = reqwest::Url::parse(url.trim())
        .map_err(|e| InvalidBaseUrl(format!("{e}; expected e.g. http://127.0.0.1:8000/v1")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(InvalidBaseUrl(format!(
            "scheme {:?} is not http or https",
            parsed.scheme()
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(InvalidBaseUrl("no host".into()));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(InvalidBaseUrl(
            "credentials in the URL are not allowed; store the key with `keys set`".into(),
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(InvalidBaseUrl("a base URL has no query or fragment".into()));
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

/// A provider ready to call: a built-in or a custom one, with the base URL in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire format / role.
    pub kind: ProviderKind,
    /// The URL in use: the user's override, a custom provider's URL, or the default.
    pub base_url: String,
    /// `None` for custom providers.
    pub default_base_url: Option<String>,
    /// Added by the user.
    pub custom: bool,
    /// Environment variable honoured when the keychain has no key.
    pub env_var: Option<String>,
    /// See [`ProviderSpec::vendor`].
    pub vendor: Option<String>,
}

impl Provider {
    /// A built-in provider, with the user's base URL override if any.
    pub fn from_spec(spec: &ProviderSpec, base_url_override: Option<&str>) -> Self {
        Self {
            id: spec.id.to_owned(),
            name: spec.name.to_owned(),
            kind: spec.kind,
            base_url: base_url_override
                .unwrap_or(spec.default_base_url)
                .to_owned(),
            default_base_url: Some(spec.default_base_url.to_owned()),
            custom: false,
            env_var: spec.env_var.map(str::to_owned),
            vendor: spec.vendor.map(str::to_owned),
        }
    }

    /// A user-defined endpoint.
    pub fn custom(id: &str, name: &str, kind: ProviderKind, base_url: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            kind,
            base_url: base_url.to_owned(),
            default_base_url: None,
            custom: true,
            env_var: None,
            vendor: None,
        }
    }

    /// Whether calls fail without a key. Custom endpoints may or may not want one (a local
    /// vLLM usually does not), so for them a key is optional: sent when stored.
    pub fn needs_key(&self) -> bool {
        self.kind != ProviderKind::Local && !self.custom
    }

    /// Whether a key can be stored for it at all (local servers take none).
    pub fn takes_key(&self) -> bool {
        self.kind != ProviderKind::Local
    }

    /// The origin every request to this provider goes to (model list, chat, Test): the
    /// origin of [`Provider::base_url`]. Keys are looked up for this origin only. Errors only
    /// for a base URL that was never normalized (a corrupt database).
    pub fn origin(&self) -> Result<Origin, OriginError> {
        Origin::of_url(&self.base_url)
    }

    /// The origin of the built-in default base URL; `None` for custom providers.
    pub fn default_origin(&self) -> Option<Origin> {
        self.default_base_url
            .as_deref()
            .and_then(|url| Origin::of_url(url).ok())
    }

    /// Whether a built-in provider is pointed elsewhere than its default origin (a proxy, a
    /// local server); never for a custom provider, which has no default.
    pub fn moved(&self) -> bool {
        self.default_origin()
            .is_some_and(|default| self.origin().ok() != Some(default))
    }

    /// Where model calls go; `None` for a data source.
    pub fn target(&self) -> Option<Target> {
        let mut target = match self.kind {
            ProviderKind::OpenaiCompatible | ProviderKind::Local => Target::openai(&self.base_url),
            ProviderKind::Anthropic => Target::anthropic(&self.base_url),
            ProviderKind::DataSource => return None,
        };
        if self.id == ids::OPENAI && !self.custom {
            target.token_limit_field = TokenLimitField::MaxCompletionTokens;
        }
        Some(target)
    }

    /// The local server type, for Ollama and LM Studio.
    pub fn local_server(&self) -> Option<LocalServer> {
        match (self.kind, self.id.as_str()) {
            (ProviderKind::Local, ids::OLLAMA) => Some(LocalServer::Ollama),
            (ProviderKind::Local, ids::LMSTUDIO) => Some(LocalServer::LmStudio),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_unique_valid_ids_and_urls() {
        for (i, spec) in BUILTIN.iter().enumerate() {
            assert!(ids::validate_provider_id(spec.id).is_ok(), "{}", spec.id);
            assert_eq!(
                normalize_base_url(spec.default_base_url).as_deref(),
                Ok(spec.default_base_url)
            );
            assert!(BUILTIN[i + 1..].iter().all(|other| other.id != spec.id));
            assert_eq!(builtin(spec.id), Some(spec));
            // Environment keys go to the default origin: it must be https for every provider
            // that takes a key.
            let default = Origin::of_url(spec.default_base_url).expect("origin");
            assert!(
                spec.kind == ProviderKind::Local || default.is_https(),
                "{}",
                spec.id
            );
        }
        let env: Vec<_> = BUILTIN.iter().filter_map(|s| s.env_var).collect();
        assert_eq!(
            env,
            [
                "OPENROUTER_API_KEY",
                "OPENAI_API_KEY",
                "ANTHROPIC_API_KEY",
                "GEMINI_API_KEY",
                "DEEPSEEK_API_KEY",
                "ARTIFICIAL_ANALYSIS_API_KEY"
            ]
        );
    }

    #[test]
    fn base_urls_are_normalized_and_checked() {
        assert_eq!(
            normalize_base_url(" http://127.0.0.1:8080/v1/ ").as_deref(),
            Ok("http://127.0.0.1:8080/v1")
        );
        assert_eq!(
            normalize_base_url("https://example.com").as_deref(),
            Ok("https://example.com")
        );
        for bad in [
            "ftp://x",
            "not a url",
            "http://user:pw@h/v1",
            "http://h/v1?key=1",
            "http://",
        ] {
            assert!(normalize_base_url(bad).is_err(), "{bad}");
        }
        let err = normalize_base_url("https://me:sk-secret@h").expect_err("credentials");
        assert!(!err.to_string().contains("sk-secret"));
    }

    #[test]
    fn targets_follow_the_kind() {
        let openai = Provider::from_spec(builtin("openai").expect("openai"), None);
        let target = openai.target().expect("target");
        assert_eq!(
            target.token_limit_field,
            TokenLimitField::MaxCompletionTokens
        );
        let anthropic =
            Provider::from_spec(builtin("anthropic").expect("a"), Some("http://127.0.0.1:9"));
        assert_eq!(
            anthropic.target().expect("t").base_url,
            "http://127.0.0.1:9"
        );
        assert_eq!(
            anthropic.origin().expect("origin").as_str(),
            "http://127.0.0.1:9"
        );
        assert_eq!(
            anthropic.default_origin().map(|o| o.to_string()).as_deref(),
            Some("https://api.anthropic.com")
        );
        let aa = Provider::from_spec(builtin("artificialanalysis").expect("aa"), None);
        assert!(aa.target().is_none() && aa.needs_key());
        let ollama = Provider::from_spec(builtin("ollama").expect("o"), None);
        assert!(!ollama.needs_key() && !ollama.takes_key());
        assert_eq!(ollama.local_server(), Some(LocalServer::Ollama));
        let custom = Provider::custom(
            "vllm",
            "vLLM",
            ProviderKind::OpenaiCompatible,
            "http://h/v1",
        );
        assert!(custom.custom && !custom.needs_key() && custom.takes_key());
        assert_eq!(custom.default_origin(), None);
    }
}
