//! The enriched model as users see it: a [`ModelCard`] per base model, and the [`Catalog`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::matching::MatchRule;
use super::record::SourceId;

/// Task categories a model is scored in (and that routing classifies tasks into).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum Category {
    Coding,
    Reasoning,
    Math,
    Creative,
    Vision,
    Research,
    FastCheap,
    General,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Coding,
        Category::Reasoning,
        Category::Math,
        Category::Creative,
        Category::Vision,
        Category::Research,
        Category::FastCheap,
        Category::General,
    ];

    /// The id used in data files, the CLI and JSON (`fast-cheap` on the CLI is accepted too).
    pub fn id(self) -> &'static str {
        match self {
            Category::Coding => "coding",
            Category::Reasoning => "reasoning",
            Category::Math => "math",
            Category::Creative => "creative",
            Category::Vision => "vision",
            Category::Research => "research",
            Category::FastCheap => "fastCheap",
            Category::General => "general",
        }
    }

    /// Parses `coding`, `fast-cheap`, `fast_cheap`, `fastCheap`, case-insensitively.
    pub fn parse(text: &str) -> Option<Category> {
        let key: String = text
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        Category::ALL
            .into_iter()
            .find(|c| c.id().to_ascii_lowercase() == key)
    }
}

/// Price/provider class.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum Tier {
    Premium,
    Standard,
    Budget,
}

/// Facts about a model that filters use.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum Tag {
    Fast,
    Slow,
    Vision,
    Reasoning,
    Tools,
    StructuredOutput,
    LongContext,
    Free,
    Local,
}

/// USD per million tokens. `None` = unknown or dynamic (never silently zero).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Pricing {
    pub prompt_per_m: Option<f64>,
    pub completion_per_m: Option<f64>,
}

impl Pricing {
    /// Blended price per million tokens at 3:1 input:output; `None` when either is unknown.
    pub fn blended_per_m(&self) -> Option<f64> {
        Some((3.0 * self.prompt_per_m? + self.completion_per_m?) / 4.0)
    }
}

/// One metric of one source for one model: its raw value and its 0–100 normalized value
/// (`None` when the metric is not normalized: fewer than 5 values or zero spread).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkValue {
    pub source: SourceId,
    /// Source-qualified metric id, e.g. `aa.gpqa`.
    pub metric: String,
    pub raw: f64,
    pub normalized: Option<f64>,
    /// The source record (key) the value came from; for collapsed variants, the best one.
    pub record: String,
}

/// One weighted input of a category score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ScoreInput {
    pub metric: String,
    pub weight: f64,
    pub normalized: f64,
}

/// A model's score in one category, with how much of the category's evidence it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CategoryScore {
    /// 0–100.
    pub score: f64,
    /// Share (0–1) of the category's total weight that had data for this model.
    pub coverage: f64,
    pub inputs: Vec<ScoreInput>,
}

/// How a source record was tied to this model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SourceMatch {
    pub source: SourceId,
    /// The record's key in its source.
    pub name: String,
    /// The rule that made the match; on the wire its camelCase id (`exactHfId`,
    /// `normalizedName`, `wordOrder`, `manual`, ...).
    pub rule: MatchRule,
    /// Whether this record supplied the values (best variant) or is kept visible only.
    pub primary: bool,
}

/// A base model with everything Switchyard knows about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelCard {
    /// OpenRouter base id (`anthropic/claude-opus-4.5`) or `local/<server>/<name>`.
    pub id: String,
    /// Display name without the vendor prefix.
    pub name: String,
    /// Provider / vendor slug (`anthropic`, `openai`, `ollama`).
    pub provider: String,
    pub description: Option<String>,
    /// Release date `YYYY-MM-DD` when known.
    pub created: Option<String>,
    pub context_length: Option<u32>,
    pub input_modalities: Vec<String>,
    pub output_modalities: Vec<String>,
    pub supported_parameters: Vec<String>,
    pub hugging_face_id: Option<String>,
    pub pricing: Pricing,
    pub tier: Tier,
    pub tags: Vec<Tag>,
    /// Only categories with evidence appear here (no evidence, no score).
    pub categories: BTreeMap<Category, CategoryScore>,
    /// Score per blended $/M (3:1) per category; defined for free models too.
    pub efficiency: BTreeMap<Category, f64>,
    pub benchmarks: Vec<BenchmarkValue>,
    pub matches: Vec<SourceMatch>,
    /// Variant ids collapsed onto this model (`:free`, `:batch`, `~…-latest`).
    pub variants: Vec<String>,
    /// Median output tokens/s when measured.
    pub output_speed: Option<f64>,
    /// Median seconds to first token when measured.
    pub ttft_seconds: Option<f64>,
    pub local: bool,
    /// [`Pricing::blended_per_m`] of `pricing` (0 for a local model), sent so the UI shows
    /// and sorts by the same figure routing uses instead of recomputing it.
    pub blended_per_m: Option<f64>,
}

/// One source's state after the last refresh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    pub source: SourceId,
    /// RFC 3339 time of the snapshot in use.
    pub fetched_at: Option<String>,
    /// Data date of the snapshot (from the file name or content), `YYYY-MM-DD`.
    pub data_date: Option<String>,
    pub records: u32,
    pub matched: u32,
    pub unmatched: u32,
    pub skipped: u32,
    /// Error of the last attempt, when it failed (the previous snapshot is kept).
    pub error: Option<String>,
    /// Keys of records that matched no model (first 200).
    pub unmatched_keys: Vec<String>,
}

/// The whole catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// Date of the newest source snapshot, `YYYY-MM-DD`.
    pub snapshot_date: Option<String>,
    pub models: Vec<ModelCard>,
    pub sources: Vec<SourceStatus>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rule` was a free string: any text passed, and the UI typed it as `string`.
    #[test]
    fn source_match_rule_is_a_typed_enum_with_the_old_wire_ids() {
        let matched = SourceMatch {
            source: SourceId::LmArena,
            name: "claude-opus-4-5".into(),
            rule: MatchRule::WordOrder,
            primary: true,
        };
        let json = serde_json::to_value(&matched).expect("serializes");
        assert_eq!(json["rule"], "wordOrder");
        let back: SourceMatch = serde_json::from_value(json).expect("round-trips");
        assert_eq!(back, matched);
        for rule in [
            MatchRule::Manual,
            MatchRule::ExactHfId,
            MatchRule::ExactId,
            MatchRule::NormalizedName,
            MatchRule::WordOrder,
            MatchRule::VariantSuffix,
            MatchRule::ReasoningSibling,
            MatchRule::LooseName,
            MatchRule::DateCodeVersion,
            MatchRule::LocalFamilySize,
        ] {
            assert_eq!(
                serde_json::to_value(rule).expect("serializes"),
                serde_json::Value::from(rule.id())
            );
        }
        let unknown = serde_json::json!({
            "source": "lmArena", "name": "x", "rule": "vibes", "primary": true
        });
        assert!(serde_json::from_value::<SourceMatch>(unknown).is_err());
    }
}
