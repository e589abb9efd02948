//! Local model names (Ollama `qwen2.5-coder:7b`, `llama3.1:8b-instruct-q4_K_M`; LM Studio
//! `lmstudio-community/Qwen2.5-Coder-7B-Instruct-GGUF`) reduced to family + size so they can
//! be matched to benchmark rows of the same open-weights model.
//!
//! Only names that state a parameter count are matchable: `deepseek-r1:latest` could be any
//! distill, so it gets no benchmark data rather than the 671B model's.

use super::index::{is_size, MatchTarget};
use super::name::parse_name;

/// Quantization and packaging words that say nothing about which model it is.
const PACKAGING: &[&str] = &[
    "gguf", "mlx", "awq", "gptq", "exl2", "fp16", "f16", "bf16", "fp8", "int4", "int8", "4bit",
    "8bit", "latest", "qat",
];

/// The matchable form of a local model name: the Ollama tag joined to the family
/// (`qwen2.5-coder:7b` → `qwen2.5-coder-7b`), the publisher folder dropped, quantization
/// suffixes (`q4_K_M`, `Q8_0`, `GGUF`, `mlx-4bit`) removed.
pub fn matchable_name(name: &str) -> String {
    let tail = name
        .trim()
        .rsplit_once('/')
        .map_or(name.trim(), |(_, tail)| tail);
    let tail = match tail.len().checked_sub(5) {
        Some(cut)
            if tail
                .get(cut..)
                .is_some_and(|ext| ext.eq_ignore_ascii_case(".gguf")) =>
        {
            &tail[..cut]
        }
        _ => tail,
    };
    let joined = tail.replace(':', "-");
    let mut kept: Vec<&str> = Vec::new();
    let mut after_quantization = false;
    for part in joined.split(['-', '_', ' ']) {
        let lower = part.to_ascii_lowercase();
        // `q8_0`, `q4_K_M`: the level's trailing pieces belong to it.
        let level_piece = after_quantization
            && (lower.bytes().all(|b| b.is_ascii_digit())
                || ["k", "m", "s", "l"].contains(&lower.as_str()));
        after_quantization = is_quantization(&lower) || level_piece;
        if after_quantization || PACKAGING.contains(&lower.as_str()) {
            continue;
        }
        kept.push(part);
    }
    kept.join("-")
}

/// `q4`, `q8`, `iq3`: quantization levels.
fn is_quantization(part: &str) -> bool {
    let stem = part.strip_prefix("iq").or_else(|| part.strip_prefix('q'));
    stem.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the name states a parameter count, which local matching requires.
pub fn has_size(name: &str) -> bool {
    parse_name(&matchable_name(name))
        .tokens
        .iter()
        .any(|t| is_size(t))
}

/// A match target for a local model (matched by family and size only); `card_id` is what
/// matches and overrides refer to.
pub fn target(card_id: &str, name: &str) -> MatchTarget {
    MatchTarget {
        id: card_id.to_string(),
        name: matchable_name(name),
        local: true,
        ..MatchTarget::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_quantizations_reduce_to_family_and_size() {
        assert_eq!(matchable_name("qwen2.5-coder:7b"), "qwen2.5-coder-7b");
        assert_eq!(
            matchable_name("llama3.1:8b-instruct-q4_K_M"),
            "llama3.1-8b-instruct"
        );
        assert_eq!(
            matchable_name("lmstudio-community/Qwen2.5-Coder-7B-Instruct-GGUF"),
            "Qwen2.5-Coder-7B-Instruct"
        );
        assert_eq!(matchable_name("gemma3:27b-it-qat"), "gemma3-27b-it");
        assert_eq!(
            matchable_name("Meta-Llama-3-8B-Instruct-Q8_0.gguf"),
            "Meta-Llama-3-8B-Instruct"
        );
        assert!(has_size("llama3.2:3b"));
        assert!(!has_size("deepseek-r1:latest"));
    }
}
