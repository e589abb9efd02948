//! Model-card fixtures for the routing tests: small, hand-written, no corpus needed.

#![allow(dead_code)]

pub mod corpus;

use std::collections::BTreeMap;

use switchyard_core::catalog::card::{
    BenchmarkValue, Category, CategoryScore, ModelCard, Pricing, Tag, Tier,
};
use switchyard_core::catalog::record::SourceId;

/// A text-only model of `provider` at `price` $/M input (output at 4×), with no scores.
pub fn card(id: &str, price: Option<f64>) -> ModelCard {
    let provider = id.split('/').next().unwrap_or("unknown").to_owned();
    ModelCard {
        id: id.to_owned(),
        name: id.rsplit('/').next().unwrap_or(id).to_owned(),
        provider,
        description: None,
        created: None,
        context_length: Some(128_000),
        input_modalities: vec!["text".into()],
        output_modalities: vec!["text".into()],
        supported_parameters: vec!["max_tokens".into(), "temperature".into()],
        hugging_face_id: None,
        pricing: Pricing {
            prompt_per_m: price,
            completion_per_m: price.map(|p| p * 4.0),
        },
        tier: Tier::Standard,
        tags: Vec::new(),
        categories: BTreeMap::new(),
        efficiency: BTreeMap::new(),
        benchmarks: Vec::new(),
        matches: Vec::new(),
        variants: Vec::new(),
        output_speed: None,
        ttft_seconds: None,
        local: false,
        blended_per_m: Pricing {
            prompt_per_m: price,
            completion_per_m: price.map(|p| p * 4.0),
        }
        .blended_per_m(),
    }
}

/// Adds a category score with full coverage.
pub fn scored(card: ModelCard, category: Category, score: f64) -> ModelCard {
    with_coverage(card, category, score, 1.0)
}

/// Adds a category score with `coverage`.
pub fn with_coverage(
    mut card: ModelCard,
    category: Category,
    score: f64,
    coverage: f64,
) -> ModelCard {
    card.categories.insert(
        category,
        CategoryScore {
            score,
            coverage,
            inputs: Vec::new(),
        },
    );
    card
}

/// Adds image input.
pub fn vision(mut card: ModelCard) -> ModelCard {
    card.input_modalities.push("image".into());
    card.tags.push(Tag::Vision);
    card
}

/// Adds tool calling and structured output.
pub fn tools(mut card: ModelCard) -> ModelCard {
    card.supported_parameters.extend([
        "tools".into(),
        "tool_choice".into(),
        "structured_outputs".into(),
    ]);
    card
}

/// Sets the context window.
pub fn context(mut card: ModelCard, tokens: u32) -> ModelCard {
    card.context_length = Some(tokens);
    card
}

/// Adds a normalized benchmark value.
pub fn metric(mut card: ModelCard, metric: &str, normalized: f64) -> ModelCard {
    card.benchmarks.push(BenchmarkValue {
        source: SourceId::ArtificialAnalysis,
        metric: metric.to_owned(),
        raw: normalized,
        normalized: Some(normalized),
        record: card.id.clone(),
    });
    card
}

/// Every model is usable.
pub fn all_usable(_: &ModelCard) -> bool {
    true
}

/// A deterministic synthetic catalog of `n` models across 40 providers, every one scored
/// in coding and most in the other categories, with varied prices, modalities and tools.
pub fn synthetic_catalog(n: usize) -> Vec<ModelCard> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            let provider = format!("vendor{:02}", i % 40);
            let price = match next() % 10 {
                0 => None,
                1 => Some(0.0),
                r => Some((r as f64) * 0.9 + (next() % 100) as f64 / 50.0),
            };
            let mut model = card(&format!("{provider}/model-{i}"), price);
            for category in Category::ALL {
                if category == Category::Coding || next() % 4 != 0 {
                    let score = (next() % 10_000) as f64 / 100.0;
                    let coverage = 0.2 + (next() % 80) as f64 / 100.0;
                    model = with_coverage(model, category, score, coverage);
                }
            }
            if next() % 2 == 0 {
                model = vision(model);
            }
            if next() % 3 != 0 {
                model = tools(model);
            }
            for name in [
                "aa.livecodebench",
                "livebench.coding",
                "lmarena.coding",
                "aa.gpqa",
                "aa.hle",
            ] {
                if next() % 3 != 0 {
                    model = metric(model, name, (next() % 10_000) as f64 / 100.0);
                }
            }
            context(
                model,
                [8_192, 32_768, 128_000, 200_000, 1_000_000][(next() % 5) as usize],
            )
        })
        .collect()
}
