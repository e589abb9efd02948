//! Fixtures shared by the catalog matching, scoring and query tests: OpenRouter entries and
//! benchmark records written by hand in the shapes the parsers produce.

#![allow(dead_code)]

pub mod corpus;

use std::collections::BTreeMap;

use switchyard_core::catalog::record::{BenchmarkRecord, OpenRouterModel, SourceId};
use switchyard_core::catalog::sources::openrouter::split_variant;

/// Unix seconds of midnight UTC of a `YYYY-MM-DD` date.
pub fn unix(date: &str) -> i64 {
    let mut parts = date
        .split('-')
        .map(|p| p.parse::<i64>().expect("numeric date part"));
    let (y, m, d) = (
        parts.next().expect("year"),
        parts.next().expect("month"),
        parts.next().expect("day"),
    );
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * 86_400
}

/// An OpenRouter entry: `(id, name, canonical slug, Hugging Face id, created date)`.
pub fn or_model(
    id: &str,
    name: &str,
    canonical: Option<&str>,
    hf: Option<&str>,
    created: &str,
) -> OpenRouterModel {
    let (base_id, variant) = split_variant(id, None).expect("valid OpenRouter id");
    OpenRouterModel {
        id: id.to_string(),
        base_id,
        variant,
        name: name.to_string(),
        canonical_slug: canonical.map(str::to_string),
        hugging_face_id: hf.map(str::to_string),
        created: Some(unix(created)),
        context_length: Some(128_000),
        max_completion_tokens: None,
        input_modalities: vec!["text".to_string()],
        output_modalities: vec!["text".to_string()],
        supported_parameters: vec!["tools".to_string()],
        prompt_per_m: Some(1.0),
        completion_per_m: Some(4.0),
        reasoning_efforts: Vec::new(),
        description: None,
    }
}

/// A benchmark record.
pub fn record(
    source: SourceId,
    key: &str,
    display_name: Option<&str>,
    creator: Option<&str>,
    release_date: Option<&str>,
    metrics: &[(&str, f64)],
) -> BenchmarkRecord {
    BenchmarkRecord {
        source,
        key: key.to_string(),
        display_name: display_name.map(str::to_string),
        creator: creator.map(str::to_string),
        release_date: release_date.map(str::to_string),
        metrics: metrics
            .iter()
            .map(|(m, v)| (m.to_string(), *v))
            .collect::<BTreeMap<_, _>>(),
        facts: BTreeMap::new(),
    }
}

/// An AA row (slug, display name, creator slug, release date).
pub fn aa(slug: &str, name: &str, creator: &str, released: &str) -> BenchmarkRecord {
    record(
        SourceId::ArtificialAnalysis,
        slug,
        Some(name),
        Some(creator),
        Some(released),
        &[],
    )
}

/// An LMArena JSON row (key only).
pub fn arena(key: &str) -> BenchmarkRecord {
    record(SourceId::LmArena, key, None, None, None, &[])
}

/// A LiveBench row (model id only).
pub fn livebench(key: &str) -> BenchmarkRecord {
    record(SourceId::LiveBench, key, None, None, None, &[])
}

/// An HF leaderboard row (`fullname`).
pub fn hf(fullname: &str) -> BenchmarkRecord {
    record(SourceId::HfLeaderboard, fullname, None, None, None, &[])
}

/// `(id, name, canonical slug, Hugging Face id, created date)`.
type ListingRow = (
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    &'static str,
);

/// A listing modelled on the 2026 OpenRouter catalog, with the neighbours that make the
/// matching traps real (re-released checkpoints, instruct/thinking twins, previews).
pub fn listing() -> Vec<OpenRouterModel> {
    let rows: &[ListingRow] = &[
        (
            "anthropic/claude-opus-4.5",
            "Anthropic: Claude Opus 4.5",
            Some("anthropic/claude-4.5-opus-20251124"),
            None,
            "2025-11-24",
        ),
        (
            "anthropic/claude-sonnet-4.5",
            "Anthropic: Claude Sonnet 4.5",
            Some("anthropic/claude-4.5-sonnet-20250929"),
            None,
            "2025-09-29",
        ),
        (
            "anthropic/claude-opus-4.8",
            "Anthropic: Claude Opus 4.8",
            Some("anthropic/claude-4.8-opus-20260528"),
            None,
            "2026-05-27",
        ),
        (
            "openai/gpt-5.1",
            "OpenAI: GPT-5.1",
            Some("openai/gpt-5.1-20251113"),
            None,
            "2025-11-13",
        ),
        (
            "openai/gpt-5.4",
            "OpenAI: GPT-5.4",
            Some("openai/gpt-5.4-20260305"),
            None,
            "2026-03-05",
        ),
        (
            "openai/gpt-4o-mini",
            "OpenAI: GPT-4o-mini",
            Some("openai/gpt-4o-mini"),
            None,
            "2024-07-18",
        ),
        (
            "openai/gpt-4o-mini-2024-07-18",
            "OpenAI: GPT-4o-mini (2024-07-18)",
            Some("openai/gpt-4o-mini-2024-07-18"),
            None,
            "2024-07-18",
        ),
        (
            "openai/gpt-3.5-turbo",
            "OpenAI: GPT-3.5 Turbo",
            Some("openai/gpt-3.5-turbo"),
            None,
            "2023-05-28",
        ),
        (
            "openai/gpt-3.5-turbo-instruct",
            "OpenAI: GPT-3.5 Turbo Instruct",
            Some("openai/gpt-3.5-turbo-instruct"),
            None,
            "2023-09-28",
        ),
        (
            "openai/o1",
            "OpenAI: o1",
            Some("openai/o1-2024-12-17"),
            None,
            "2024-12-17",
        ),
        (
            "openai/o3-mini-high",
            "OpenAI: o3 Mini High",
            Some("openai/o3-mini-high-2025-01-31"),
            None,
            "2025-02-10",
        ),
        (
            "openai/gpt-5.1-codex",
            "OpenAI: GPT-5.1-Codex",
            Some("openai/gpt-5.1-codex-20251113"),
            None,
            "2025-11-13",
        ),
        (
            "openai/gpt-5.1-codex-max",
            "OpenAI: GPT-5.1-Codex-Max",
            Some("openai/gpt-5.1-codex-max-20251204"),
            None,
            "2025-12-04",
        ),
        (
            "google/gemini-2.5-pro",
            "Google: Gemini 2.5 Pro",
            Some("google/gemini-2.5-pro"),
            None,
            "2025-06-17",
        ),
        (
            "google/gemini-2.5-pro-preview-05-06",
            "Google: Gemini 2.5 Pro Preview 05-06",
            Some("google/gemini-2.5-pro-preview-03-25"),
            None,
            "2025-05-07",
        ),
        (
            "google/gemini-3-flash-preview",
            "Google: Gemini 3 Flash Preview",
            Some("google/gemini-3-flash-preview-20251217"),
            None,
            "2025-12-17",
        ),
        (
            "google/gemini-3-pro-image-preview",
            "Google: Nano Banana Pro (Gemini 3 Pro Image Preview)",
            Some("google/gemini-3-pro-image-preview-20251120"),
            None,
            "2025-11-20",
        ),
        (
            "google/gemma-3-27b-it",
            "Google: Gemma 3 27B",
            Some("google/gemma-3-27b-it"),
            Some("google/gemma-3-27b-it"),
            "2025-03-12",
        ),
        (
            "qwen/qwen3-235b-a22b-2507",
            "Qwen: Qwen3 235B A22B Instruct 2507",
            Some("qwen/qwen3-235b-a22b-07-25"),
            Some("Qwen/Qwen3-235B-A22B-Instruct-2507"),
            "2025-07-21",
        ),
        (
            "qwen/qwen3-235b-a22b-thinking-2507",
            "Qwen: Qwen3 235B A22B Thinking 2507",
            Some("qwen/qwen3-235b-a22b-thinking-2507"),
            Some("Qwen/Qwen3-235B-A22B-Thinking-2507"),
            "2025-07-25",
        ),
        (
            "qwen/qwen3-235b-a22b",
            "Qwen: Qwen3 235B A22B",
            Some("qwen/qwen3-235b-a22b-04-28"),
            Some("Qwen/Qwen3-235B-A22B"),
            "2025-04-28",
        ),
        (
            "qwen/qwen-2.5-72b-instruct",
            "Qwen2.5 72B Instruct",
            Some("qwen/qwen-2.5-72b-instruct"),
            Some("Qwen/Qwen2.5-72B-Instruct"),
            "2024-09-19",
        ),
        (
            "qwen/qwen3-vl-32b-instruct",
            "Qwen: Qwen3 VL 32B Instruct",
            Some("qwen/qwen3-vl-32b-instruct"),
            Some("Qwen/Qwen3-VL-32B-Instruct"),
            "2025-10-23",
        ),
        (
            "qwen/qwen3-max",
            "Qwen: Qwen3 Max",
            Some("qwen/qwen3-max"),
            None,
            "2025-09-23",
        ),
        (
            "meta-llama/llama-3.3-70b-instruct",
            "Meta: Llama 3.3 70B Instruct",
            Some("meta-llama/llama-3.3-70b-instruct"),
            Some("meta-llama/Llama-3.3-70B-Instruct"),
            "2024-12-06",
        ),
        (
            "meta-llama/llama-3.1-70b-instruct",
            "Meta: Llama 3.1 70B Instruct",
            Some("meta-llama/llama-3.1-70b-instruct"),
            Some("meta-llama/Meta-Llama-3.1-70B-Instruct"),
            "2024-07-23",
        ),
        (
            "deepseek/deepseek-r1",
            "DeepSeek: R1",
            Some("deepseek/deepseek-r1"),
            Some("deepseek-ai/DeepSeek-R1"),
            "2025-01-20",
        ),
        (
            "deepseek/deepseek-r1-0528",
            "DeepSeek: R1 0528",
            Some("deepseek/deepseek-r1-0528"),
            Some("deepseek-ai/DeepSeek-R1-0528"),
            "2025-05-28",
        ),
        (
            "deepseek/deepseek-v4-pro",
            "DeepSeek: DeepSeek V4 Pro 0423",
            Some("deepseek/deepseek-v4-pro-20260423"),
            Some("deepseek-ai/DeepSeek-V4-Pro"),
            "2026-04-24",
        ),
        (
            "deepseek/deepseek-v3.2",
            "DeepSeek: DeepSeek V3.2",
            Some("deepseek/deepseek-v3.2-20251201"),
            Some("deepseek-ai/DeepSeek-V3.2"),
            "2025-12-01",
        ),
        (
            "deepseek/deepseek-v3.2-exp",
            "DeepSeek: DeepSeek V3.2 Exp",
            Some("deepseek/deepseek-v3.2-exp"),
            Some("deepseek-ai/DeepSeek-V3.2-Exp"),
            "2025-09-29",
        ),
        (
            "x-ai/grok-4.20",
            "SpaceXAI: Grok 4.20",
            Some("x-ai/grok-4.20-20260309"),
            None,
            "2026-03-31",
        ),
        (
            "mistralai/mistral-medium-3",
            "Mistral: Mistral Medium 3",
            Some("mistralai/mistral-medium-3"),
            None,
            "2025-05-07",
        ),
        (
            "mistralai/mistral-medium-3.1",
            "Mistral: Mistral Medium 3.1",
            Some("mistralai/mistral-medium-3.1"),
            None,
            "2025-08-13",
        ),
        (
            "mistralai/mistral-large-2512",
            "Mistral: Mistral Large 3 2512",
            Some("mistralai/mistral-large-2512"),
            None,
            "2025-12-02",
        ),
        (
            "mistralai/mistral-large-2407",
            "Mistral Large 2407",
            Some("mistralai/mistral-large-2407"),
            None,
            "2024-11-19",
        ),
        (
            "moonshotai/kimi-k2-thinking",
            "MoonshotAI: Kimi K2 Thinking",
            Some("moonshotai/kimi-k2-thinking-20251106"),
            Some("moonshotai/Kimi-K2-Thinking"),
            "2025-11-06",
        ),
        (
            "moonshotai/kimi-k2",
            "MoonshotAI: Kimi K2 0711",
            Some("moonshotai/kimi-k2"),
            Some("moonshotai/Kimi-K2-Instruct"),
            "2025-07-11",
        ),
        (
            "moonshotai/kimi-k2-0905",
            "MoonshotAI: Kimi K2 0905",
            Some("moonshotai/kimi-k2-0905"),
            Some("moonshotai/Kimi-K2-Instruct-0905"),
            "2025-09-05",
        ),
        (
            "amazon/nova-pro-v1",
            "Amazon: Nova Pro 1.0",
            Some("amazon/nova-pro-v1"),
            None,
            "2024-12-03",
        ),
    ];
    rows.iter()
        .map(|(id, name, canonical, hf, created)| or_model(id, name, *canonical, *hf, created))
        .collect()
}
