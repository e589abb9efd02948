//! What the source parsers produce: OpenRouter catalog entries (the backbone) and benchmark
//! records from the four other sources, each metric qualified by its source.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;

/// The five data sources.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum SourceId {
    /// OpenRouter model list: ids, names, prices, context, modalities.
    OpenRouter,
    /// Artificial Analysis API v2: intelligence/coding/math indices, evals, speed.
    ArtificialAnalysis,
    /// Hugging Face Open LLM Leaderboard v2 (open-weights repos only).
    HfLeaderboard,
    /// LMArena (Chatbot Arena) ratings, overall and per category.
    LmArena,
    /// LiveBench per-category means.
    LiveBench,
}

impl SourceId {
    /// All sources in pipeline order.
    pub const ALL: [SourceId; 5] = [
        SourceId::OpenRouter,
        SourceId::ArtificialAnalysis,
        SourceId::HfLeaderboard,
        SourceId::LmArena,
        SourceId::LiveBench,
    ];

    /// Prefix of this source's metric ids (`aa.gpqa`, `hf.gpqa`, ...) and its folder name
    /// in an import directory.
    pub fn metric_prefix(self) -> &'static str {
        match self {
            SourceId::OpenRouter => "openrouter",
            SourceId::ArtificialAnalysis => "aa",
            SourceId::HfLeaderboard => "hf",
            SourceId::LmArena => "lmarena",
            SourceId::LiveBench => "livebench",
        }
    }

    /// Folder name in an import directory laid out like the shared corpus.
    pub fn folder(self) -> &'static str {
        match self {
            SourceId::OpenRouter => "openrouter",
            SourceId::ArtificialAnalysis => "artificial-analysis",
            SourceId::HfLeaderboard => "hf-open-llm-leaderboard",
            SourceId::LmArena => "lmarena",
            SourceId::LiveBench => "livebench",
        }
    }

    /// Human name.
    pub fn title(self) -> &'static str {
        match self {
            SourceId::OpenRouter => "OpenRouter",
            SourceId::ArtificialAnalysis => "Artificial Analysis",
            SourceId::HfLeaderboard => "HF Open LLM Leaderboard",
            SourceId::LmArena => "LMArena",
            SourceId::LiveBench => "LiveBench",
        }
    }
}

/// One OpenRouter entry as listed (variants such as `:free` are separate entries here and
/// are collapsed onto `base_id` by the catalog builder).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenRouterModel {
    /// Full id as listed, e.g. `anthropic/claude-opus-4.5:free` or `~anthropic/claude-opus-latest`.
    pub id: String,
    /// The base model id: variant suffix and `~` alias marker removed; for `~` aliases the
    /// alias target's id when the record names one.
    pub base_id: String,
    /// `free`, `batch`, `thinking`, `exacto`, ... or `latest` for `~` aliases; `None` for the base.
    pub variant: Option<String>,
    /// Display name with the vendor prefix as listed ("Anthropic: Claude Opus 4.5").
    pub name: String,
    pub canonical_slug: Option<String>,
    /// Exact Hugging Face repo id, the only join key to the HF leaderboard. Empty → `None`.
    pub hugging_face_id: Option<String>,
    /// Unix seconds.
    pub created: Option<i64>,
    pub context_length: Option<u64>,
    pub max_completion_tokens: Option<u64>,
    pub input_modalities: Vec<String>,
    pub output_modalities: Vec<String>,
    pub supported_parameters: Vec<String>,
    /// USD per million input tokens; `None` when dynamic (`-1`) or missing.
    pub prompt_per_m: Option<f64>,
    /// USD per million output tokens; `None` when dynamic (`-1`) or missing.
    pub completion_per_m: Option<f64>,
    /// `reasoning.supported_efforts`.
    pub reasoning_efforts: Vec<String>,
    /// First paragraph of the description, trimmed (facts only, for the detail view).
    pub description: Option<String>,
}

/// One row of a benchmark source (AA, HF, LMArena, LiveBench), before matching.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkRecord {
    pub source: SourceId,
    /// The source's own key: AA slug, LMArena model key, LiveBench model id, HF `fullname`.
    pub key: String,
    /// Display name when the source has one ("Claude Opus 4.5 (Reasoning)").
    pub display_name: Option<String>,
    /// Model creator / organization as the source names it.
    pub creator: Option<String>,
    /// `YYYY-MM-DD` when the source states it.
    pub release_date: Option<String>,
    /// Source-qualified metric id → raw value, e.g. `aa.gpqa` → 0.611, `lmarena.overall` →
    /// 1492.0. Missing and "not measured" values (AA's `0`) are absent, never zero.
    pub metrics: BTreeMap<String, f64>,
    /// Facts that are not scores (AA prices per million tokens, ...), by name.
    pub facts: BTreeMap<String, f64>,
}

/// What one parser made of one file: the good records, how many were skipped, and why
/// (the first few reasons; the count is exact).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed<T> {
    pub items: Vec<T>,
    pub skipped: u32,
    pub errors: Vec<String>,
}

impl<T> Parsed<T> {
    /// At most this many error messages are kept; `skipped` keeps counting past it.
    pub const MAX_ERRORS: usize = 20;

    /// Records a skipped item and, while there is room, its reason.
    pub fn skip(&mut self, reason: impl Into<String>) {
        self.skipped += 1;
        if self.errors.len() < Self::MAX_ERRORS {
            self.errors.push(reason.into());
        }
    }
}

/// A whole-file failure: the file cannot be parsed at all (not JSON, wrong top-level shape,
/// no header). The source keeps its last good snapshot when this happens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", .source_id.title())]
pub struct SourceError {
    /// The source whose file failed (named `source_id`: thiserror reserves `source`).
    pub source_id: SourceId,
    pub message: String,
}
