//! Vendor names across sources and their renames: OpenRouter's `x-ai`, AA's "SpaceXAI" and
//! `xai` are one vendor; `meta-llama` and `meta` are one; `moonshotai` and AA's `kimi` are one.
//!
//! Used as a veto only: a match is refused when both sides name a known vendor and they
//! differ. An unknown vendor never blocks a match.

/// Known vendors: a canonical id and every spelling seen (lowercase, alphanumerics only).
const VENDORS: &[(&str, &[&str])] = &[
    ("xai", &["xai", "spacexai"]),
    ("zai", &["zai", "zhipu", "zhipuai", "thudm", "zaiorg"]),
    ("moonshot", &["moonshotai", "moonshot", "kimi"]),
    ("alibaba", &["qwen", "alibaba", "alibabacloud"]),
    ("amazon", &["amazon", "aws", "amazonnova"]),
    ("microsoft", &["microsoft", "azure"]),
    ("meta", &["meta", "metallama", "facebook", "metamodels"]),
    ("mistral", &["mistralai", "mistral"]),
    ("google", &["google", "googledeepmind", "deepmind"]),
    ("anthropic", &["anthropic"]),
    ("openai", &["openai"]),
    ("deepseek", &["deepseek", "deepseekai"]),
    ("nvidia", &["nvidia"]),
    ("ibm", &["ibm", "ibmgranite"]),
    ("ai2", &["ai2", "allenai", "allenaiinstituteforai"]),
    ("reka", &["reka", "rekaai"]),
    ("nous", &["nousresearch", "nous"]),
    ("lg", &["lg", "lgai", "lgaiexaone"]),
    ("bytedance", &["bytedance", "bytedanceseed"]),
    ("kuaishou", &["kwaipilot", "kwaikat", "kuaishou"]),
    ("stepfun", &["stepfun", "stepfunai"]),
    ("minimax", &["minimax", "minimaxai"]),
    ("xiaomi", &["xiaomi", "xiaomimimo"]),
    ("baidu", &["baidu"]),
    ("tencent", &["tencent"]),
    ("inclusionai", &["inclusionai", "antgroup"]),
    ("cohere", &["cohere", "coherelabs", "cohereforai"]),
    ("perplexity", &["perplexity"]),
    ("liquid", &["liquid", "liquidai"]),
    ("upstage", &["upstage"]),
    ("ai21", &["ai21", "ai21labs"]),
    ("servicenow", &["servicenow"]),
    ("arcee", &["arcee", "arceeai"]),
    ("thinkingmachines", &["thinkingmachines"]),
    ("inception", &["inception", "inceptionlabs"]),
    ("meituan", &["meituan", "longcat", "meituanlongcat"]),
    ("nex", &["nex", "nexagi"]),
];

/// The canonical vendor for a spelling from any source, `None` when unknown.
pub fn canonical_vendor(name: &str) -> Option<&'static str> {
    let mut key = [0u8; 48];
    let mut len = 0;
    for b in name.bytes().filter(u8::is_ascii_alphanumeric) {
        if len == key.len() {
            return None;
        }
        key[len] = b.to_ascii_lowercase();
        len += 1;
    }
    let key = std::str::from_utf8(&key[..len]).ok()?;
    VENDORS
        .iter()
        .find(|(_, spellings)| spellings.contains(&key))
        .map(|(canonical, _)| *canonical)
}

/// Whether two vendor spellings are known to name different vendors.
pub fn conflict(a: Option<&str>, b: Option<&str>) -> bool {
    match (a.and_then(canonical_vendor), b.and_then(canonical_vendor)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_vendors_agree() {
        assert!(!conflict(Some("SpaceXAI"), Some("x-ai")));
        assert!(!conflict(Some("kimi"), Some("moonshotai")));
        assert!(!conflict(Some("azure"), Some("microsoft")));
        assert!(!conflict(Some("DeepSeek AI"), Some("deepseek")));
        assert!(conflict(Some("nvidia"), Some("meta-llama")));
        assert!(!conflict(Some("some-new-lab"), Some("openai")));
        assert!(!conflict(None, Some("openai")));
    }
}
