//! Which provider serves a model reference.
//!
//! The rule, in order:
//! 1. `local/<server>/<name>` (catalog ids of local models) → that local server, model `<name>`.
//! 2. `<provider>:<model>` where `<provider>` is a known provider id (built-in or custom) →
//!    exactly that provider, model passed verbatim (`openrouter:anthropic/claude-opus-4.5`,
//!    `ollama:llama3.2:3b`, `my-vllm:qwen3`).
//! 3. `<vendor>/<name>` (OpenRouter catalog ids) → the vendor's own provider when the user has
//!    a key for it (OpenAI, Anthropic, Google → Gemini, DeepSeek): no middleman fee and the
//!    vendor's own limits. The name loses OpenRouter's routing suffix (`:free`, `:thinking`)
//!    and, for Anthropic, dots become hyphens (`claude-sonnet-4.5` → `claude-sonnet-4-5`,
//!    Anthropic's alias form). Otherwise → OpenRouter with the full id, when it has a key.
//!    Vendor names that differ from OpenRouter's beyond that are not guessed: the vendor then
//!    answers "model not found", and `openrouter:<id>` forces the OpenRouter route.
//! 4. Anything else is refused with a hint.

use switchyard_core::providers as ids;

use crate::registry::Provider;

/// Where a model call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The provider that serves the call.
    pub provider_id: String,
    /// The model name that provider expects.
    pub model: String,
}

/// Why no provider can serve a model reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// A `local/<server>/…` or `<provider>:…` reference names no known provider.
    #[error("unknown provider {0:?} in the model reference")]
    UnknownProvider(String),
    /// The reference has no provider part and no vendor prefix.
    #[error(
        "cannot tell which provider serves {0:?}; use a catalog id like `openai/gpt-4o-mini` or \
         `<provider>:<model>` like `ollama:llama3.2`"
    )]
    Ambiguous(String),
    /// No key for any provider that could serve it.
    #[error("no key for {model}: add one for {}", .candidates.join(" or "))]
    NoCredential {
        /// The model reference asked for.
        model: String,
        /// Providers that could serve it with a key, best first.
        candidates: Vec<String>,
    },
    /// The reference names a data source, which does not answer prompts.
    #[error("{0} is a data source, not a model provider")]
    NotAModelProvider(String),
}

/// Picks the provider for `model` among `providers`; `has_key(id)` says whether a key is
/// available for a provider (keychain or environment).
pub fn route(
    model: &str,
    providers: &[Provider],
    has_key: impl Fn(&str) -> bool,
) -> Result<Route, RouteError> {
    let model = model.trim();
    let find = |id: &str| providers.iter().find(|p| p.id == id);
    let checked = |provider: &Provider, name: &str| {
        if provider.target().is_none() {
            return Err(RouteError::NotAModelProvider(provider.id.clone()));
        }
        Ok(Route {
            provider_id: provider.id.clone(),
            model: name.to_owned(),
        })
    };

    if let Some(rest) = model.strip_prefix("local/") {
        let (server, name) = rest
            .split_once('/')
            .ok_or_else(|| RouteError::Ambiguous(model.into()))?;
        let provider = find(server).ok_or_else(|| RouteError::UnknownProvider(server.into()))?;
        return checked(provider, name);
    }
    if let Some((prefix, name)) = model.split_once(':') {
        if let Some(provider) = find(prefix) {
            return checked(provider, name);
        }
    }
    let Some((vendor, name)) = model.split_once('/') else {
        return Err(RouteError::Ambiguous(model.into()));
    };
    let direct = providers
        .iter()
        .find(|p| p.vendor.as_deref() == Some(vendor) && !p.custom);
    if let Some(provider) = direct.filter(|p| has_key(&p.id)) {
        return checked(provider, &vendor_model_name(&provider.id, name));
    }
    if let Some(openrouter) = find(ids::OPENROUTER).filter(|p| has_key(&p.id)) {
        return checked(openrouter, model);
    }
    let mut candidates: Vec<String> = direct.map(|p| p.id.clone()).into_iter().collect();
    candidates.push(ids::OPENROUTER.to_owned());
    Err(RouteError::NoCredential {
        model: model.to_owned(),
        candidates,
    })
}

/// The providers whose keys [`route`] may consult for `model`, best first: none for local
/// references, the named provider for `<provider>:<model>`, the vendor's own provider and
/// OpenRouter for catalog ids. Lets a caller look up only the keys that matter.
pub fn key_candidates(model: &str, providers: &[Provider]) -> Vec<String> {
    let model = model.trim();
    if model.starts_with("local/") {
        return Vec::new();
    }
    if let Some((prefix, _)) = model.split_once(':') {
        if providers.iter().any(|p| p.id == prefix) {
            return vec![prefix.to_owned()];
        }
    }
    let Some((vendor, _)) = model.split_once('/') else {
        return Vec::new();
    };
    let mut ids: Vec<String> = providers
        .iter()
        .filter(|p| p.vendor.as_deref() == Some(vendor) && !p.custom)
        .map(|p| p.id.clone())
        .collect();
    if providers.iter().any(|p| p.id == ids::OPENROUTER) {
        ids.push(ids::OPENROUTER.to_owned());
    }
    ids
}

/// The vendor's own name for an OpenRouter model name.
fn vendor_model_name(provider_id: &str, name: &str) -> String {
    let base = name.split_once(':').map_or(name, |(base, _variant)| base);
    if provider_id == ids::ANTHROPIC {
        base.replace('.', "-")
    } else {
        base.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{builtin, BUILTIN};
    use switchyard_core::providers::ProviderKind;

    fn providers() -> Vec<Provider> {
        let mut all: Vec<Provider> = BUILTIN
            .iter()
            .map(|s| Provider::from_spec(s, None))
            .collect();
        all.push(Provider::custom(
            "my-vllm",
            "vLLM",
            ProviderKind::OpenaiCompatible,
            "http://h/v1",
        ));
        all
    }

    fn routed(model: &str, keys: &[&str]) -> Result<(String, String), RouteError> {
        route(model, &providers(), |id| keys.contains(&id)).map(|r| (r.provider_id, r.model))
    }

    fn ok(provider: &str, model: &str) -> Result<(String, String), RouteError> {
        Ok((provider.to_owned(), model.to_owned()))
    }

    #[test]
    fn vendor_key_wins_over_openrouter() {
        let both = ["openrouter", "anthropic", "openai"];
        assert_eq!(
            routed("anthropic/claude-sonnet-4.5", &both),
            ok("anthropic", "claude-sonnet-4-5")
        );
        assert_eq!(
            routed("openai/gpt-5.1:free", &both),
            ok("openai", "gpt-5.1")
        );
        assert_eq!(
            routed("google/gemini-2.5-pro", &both),
            ok("openrouter", "google/gemini-2.5-pro")
        );
        assert_eq!(
            routed("qwen/qwen3-235b-a22b-2507", &both),
            ok("openrouter", "qwen/qwen3-235b-a22b-2507")
        );
        assert_eq!(
            routed("google/gemini-2.5-pro", &["gemini"]),
            ok("gemini", "gemini-2.5-pro")
        );
    }

    #[test]
    fn explicit_and_local_references() {
        assert_eq!(
            routed("openrouter:anthropic/claude-opus-4.5", &[]),
            ok("openrouter", "anthropic/claude-opus-4.5")
        );
        assert_eq!(
            routed("ollama:llama3.2:3b", &[]),
            ok("ollama", "llama3.2:3b")
        );
        assert_eq!(
            routed("local/lmstudio/qwen2.5-7b-instruct", &[]),
            ok("lmstudio", "qwen2.5-7b-instruct")
        );
        assert_eq!(routed("my-vllm:qwen3", &[]), ok("my-vllm", "qwen3"));
        assert!(builtin("ollama").is_some());
    }

    #[test]
    fn key_candidates_are_the_providers_route_may_use() {
        let all = providers();
        assert_eq!(
            key_candidates("anthropic/claude-x", &all),
            ["anthropic", "openrouter"]
        );
        assert_eq!(key_candidates("qwen/qwen3", &all), ["openrouter"]);
        assert_eq!(key_candidates("my-vllm:qwen3", &all), ["my-vllm"]);
        assert!(key_candidates("local/ollama/x", &all).is_empty());
        assert!(key_candidates("gpt-4o", &all).is_empty());
    }

    #[test]
    fn failures_say_what_to_do() {
        let err = routed("anthropic/claude-sonnet-4.5", &[]).expect_err("no key");
        assert_eq!(
            err.to_string(),
            "no key for anthropic/claude-sonnet-4.5: add one for anthropic or openrouter"
        );
        let err = routed("qwen/qwen3", &["anthropic"]).expect_err("no key");
        assert_eq!(
            err,
            RouteError::NoCredential {
                model: "qwen/qwen3".into(),
                candidates: vec!["openrouter".into()]
            }
        );
        assert!(matches!(
            routed("gpt-4o", &["openai"]),
            Err(RouteError::Ambiguous(_))
        ));
        assert!(matches!(
            routed("local/nope/x", &[]),
            Err(RouteError::UnknownProvider(_))
        ));
        assert!(matches!(
            routed("artificialanalysis:x", &[]),
            Err(RouteError::NotAModelProvider(_))
        ));
    }
}
