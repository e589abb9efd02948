//! The registry of source-qualified metrics: every metric id a parser can emit, with its
//! source, label, unit and direction. `aa.gpqa` and `hf.gpqa` are different metrics (different
//! prompts, scales and populations) and are never merged.
//!
//! Chosen sets:
//! - **Artificial Analysis**: the three indices (0–100), the agentic index when the API sends
//!   it, every evaluation of API v2 (0–1 fractions, kept as raw), and the measured speed and
//!   latencies (absent when AA reports `0` = not measured).
//! - **HF Open LLM Leaderboard v2**: the six normalized (baseline-subtracted, 0–100) scores the
//!   leaderboard ranks by, and their average. The `Raw` 0–1 accuracies are not used.
//! - **LMArena**: overall (`full`), the task categories (coding, math, creative writing,
//!   instruction following, hard prompts, expert, multi-turn, long queries) and Chinese. The
//!   other languages, the `industry_*` boards and the `no_*` methodology variants are left
//!   out (see `sources::lmarena::CATEGORIES`: each category read costs parse time).
//! - **LiveBench**: the seven category means and the global average (mean of category means).
//! - **Derived from OpenRouter** ([`DERIVED`]): the blended 3:1 price and the context length,
//!   which no parser emits as a benchmark but the catalog scores like one.
//!
//! The UI gets this registry over IPC ([`MetricInfo`], through the catalog's metrics view);
//! it never keeps a copy of its own.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::record::SourceId;

/// What a metric's raw value measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum MetricUnit {
    /// A 0–100 composite index (AA indices).
    Index,
    /// A 0–1 share of questions solved (AA evaluations).
    Fraction,
    /// A 0–100 score (HF normalized scores, LiveBench).
    Score,
    /// An Elo-style rating (LMArena).
    Elo,
    /// Output tokens per second.
    TokensPerSecond,
    /// Seconds.
    Seconds,
    /// USD per million tokens (derived blended price).
    UsdPerM,
    /// Tokens (derived context length).
    Tokens,
}

impl MetricUnit {
    /// Short unit text for tables (`0–100`, `0–1`, `Elo`, `tok/s`, `s`, `$/M`, `tokens`).
    pub fn symbol(self) -> &'static str {
        match self {
            MetricUnit::Index | MetricUnit::Score => "0–100",
            MetricUnit::Fraction => "0–1",
            MetricUnit::Elo => "Elo",
            MetricUnit::TokensPerSecond => "tok/s",
            MetricUnit::Seconds => "s",
            MetricUnit::UsdPerM => "$/M",
            MetricUnit::Tokens => "tokens",
        }
    }
}

/// One metric of one source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricDef {
    /// Source-qualified id, `<source prefix>.<name>` (`aa.gpqa`).
    pub id: &'static str,
    pub source: SourceId,
    /// Human label ("GPQA Diamond").
    pub label: &'static str,
    pub unit: MetricUnit,
    /// `false` for latencies: a lower value is better.
    pub higher_is_better: bool,
}

const fn def(
    id: &'static str,
    source: SourceId,
    label: &'static str,
    unit: MetricUnit,
) -> MetricDef {
    MetricDef {
        id,
        source,
        label,
        unit,
        higher_is_better: true,
    }
}

const fn aa(id: &'static str, label: &'static str, unit: MetricUnit) -> MetricDef {
    def(id, SourceId::ArtificialAnalysis, label, unit)
}

const fn hf(id: &'static str, label: &'static str) -> MetricDef {
    def(id, SourceId::HfLeaderboard, label, MetricUnit::Score)
}

const fn arena(id: &'static str, label: &'static str) -> MetricDef {
    def(id, SourceId::LmArena, label, MetricUnit::Elo)
}

const fn livebench(id: &'static str, label: &'static str) -> MetricDef {
    def(id, SourceId::LiveBench, label, MetricUnit::Score)
}

const fn lower_is_better(mut metric: MetricDef) -> MetricDef {
    metric.higher_is_better = false;
    metric
}

use MetricUnit::{Fraction, Index, Seconds, TokensPerSecond};

/// Every metric the parsers emit, grouped by source.
pub const METRICS: &[MetricDef] = &[
    aa("aa.intelligence_index", "AA Intelligence Index", Index),
    aa("aa.coding_index", "AA Coding Index", Index),
    aa("aa.math_index", "AA Math Index", Index),
    aa("aa.agentic_index", "AA Agentic Index", Index),
    aa("aa.mmlu_pro", "MMLU-Pro (AA)", Fraction),
    aa("aa.gpqa", "GPQA Diamond (AA)", Fraction),
    aa("aa.hle", "Humanity's Last Exam (AA)", Fraction),
    aa("aa.livecodebench", "LiveCodeBench (AA)", Fraction),
    aa("aa.scicode", "SciCode (AA)", Fraction),
    aa("aa.math_500", "MATH-500 (AA)", Fraction),
    aa("aa.aime", "AIME 2024 (AA)", Fraction),
    aa("aa.aime_25", "AIME 2025 (AA)", Fraction),
    aa("aa.ifbench", "IFBench (AA)", Fraction),
    aa("aa.lcr", "AA Long Context Reasoning", Fraction),
    aa(
        "aa.terminalbench_hard",
        "Terminal-Bench Hard (AA)",
        Fraction,
    ),
    aa("aa.terminalbench_v2_1", "Terminal-Bench 2.1 (AA)", Fraction),
    aa("aa.tau2", "τ²-Bench Telecom (AA)", Fraction),
    aa("aa.tau_banking", "τ-Bench Banking (AA)", Fraction),
    aa(
        "aa.output_speed",
        "Output speed (AA, median)",
        TokensPerSecond,
    ),
    lower_is_better(aa("aa.ttft", "Time to first token (AA, median)", Seconds)),
    lower_is_better(aa(
        "aa.ttfa",
        "Time to first answer token (AA, median)",
        Seconds,
    )),
    hf("hf.ifeval", "IFEval (HF)"),
    hf("hf.bbh", "BBH (HF)"),
    hf("hf.math_lvl5", "MATH Lvl 5 (HF)"),
    hf("hf.gpqa", "GPQA (HF)"),
    hf("hf.musr", "MuSR (HF)"),
    hf("hf.mmlu_pro", "MMLU-Pro (HF)"),
    hf("hf.average", "Open LLM Leaderboard average"),
    arena("lmarena.overall", "LMArena overall"),
    arena("lmarena.coding", "LMArena coding"),
    arena("lmarena.math", "LMArena math"),
    arena("lmarena.creative_writing", "LMArena creative writing"),
    arena(
        "lmarena.instruction_following",
        "LMArena instruction following",
    ),
    arena("lmarena.hard_prompts", "LMArena hard prompts"),
    arena("lmarena.expert", "LMArena expert"),
    arena("lmarena.multiturn", "LMArena multi-turn"),
    arena("lmarena.long_query", "LMArena longer query"),
    arena("lmarena.chinese", "LMArena Chinese"),
    livebench("livebench.reasoning", "LiveBench reasoning"),
    livebench("livebench.coding", "LiveBench coding"),
    livebench("livebench.agentic_coding", "LiveBench agentic coding"),
    livebench("livebench.mathematics", "LiveBench mathematics"),
    livebench("livebench.data_analysis", "LiveBench data analysis"),
    livebench("livebench.language", "LiveBench language"),
    livebench(
        "livebench.instruction_following",
        "LiveBench instruction following",
    ),
    livebench("livebench.global_average", "LiveBench global average"),
];

/// Derived metric: blended 3:1 price per million tokens (lower is better, scored on log10).
pub const PRICE_METRIC: &str = "openrouter.price";
/// Derived metric: context length in tokens (higher is better, scored on log2).
pub const CONTEXT_METRIC: &str = "openrouter.context";

/// The metrics the catalog derives from OpenRouter facts and scores like benchmarks.
pub const DERIVED: &[MetricDef] = &[
    lower_is_better(def(
        PRICE_METRIC,
        SourceId::OpenRouter,
        "Blended price (3:1)",
        MetricUnit::UsdPerM,
    )),
    def(
        CONTEXT_METRIC,
        SourceId::OpenRouter,
        "Context length",
        MetricUnit::Tokens,
    ),
];

/// The definition of a metric id (emitted by a parser or [`DERIVED`]), `None` for unknown
/// ids.
pub fn metric(id: &str) -> Option<&'static MetricDef> {
    all().find(|m| m.id == id)
}

/// Every metric: the parsers' ([`METRICS`]) then the derived ones ([`DERIVED`]).
pub fn all() -> impl Iterator<Item = &'static MetricDef> {
    METRICS.iter().chain(DERIVED)
}

/// The metrics a parser of `source` emits, in registry order.
pub fn of_source(source: SourceId) -> impl Iterator<Item = &'static MetricDef> {
    METRICS.iter().filter(move |m| m.source == source)
}

/// One metric as the UI and the CLI see it: the registry entry plus its unit symbol.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MetricInfo {
    /// Source-qualified id (`aa.gpqa`).
    pub id: String,
    /// The source that publishes it (OpenRouter for derived metrics).
    pub source: SourceId,
    /// Human label ("GPQA Diamond (AA)").
    pub label: String,
    /// What the raw value measures.
    pub unit: MetricUnit,
    /// Short unit text ([`MetricUnit::symbol`]).
    pub symbol: String,
    /// `false` for latencies and prices: a lower raw value is better.
    pub higher_is_better: bool,
    /// Derived from OpenRouter facts rather than published by a benchmark.
    pub derived: bool,
}

impl MetricInfo {
    /// The whole registry, parsers' metrics first, in registry order.
    pub fn registry() -> Vec<MetricInfo> {
        all()
            .map(|m| MetricInfo {
                id: m.id.to_owned(),
                source: m.source,
                label: m.label.to_owned(),
                unit: m.unit,
                symbol: m.unit.symbol().to_owned(),
                higher_is_better: m.higher_is_better,
                derived: DERIVED.iter().any(|d| d.id == m.id),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn ids_are_unique_and_prefixed_by_their_source() {
        let mut seen = HashSet::new();
        for m in all() {
            assert!(seen.insert(m.id), "duplicate metric id {}", m.id);
            let prefix = format!("{}.", m.source.metric_prefix());
            assert!(
                m.id.starts_with(&prefix),
                "{} is not prefixed by {prefix}",
                m.id
            );
        }
    }

    #[test]
    fn latencies_are_lower_is_better_and_scores_are_not() {
        assert_eq!(metric("aa.ttft").map(|m| m.higher_is_better), Some(false));
        assert_eq!(
            metric("aa.output_speed").map(|m| m.higher_is_better),
            Some(true)
        );
        assert_eq!(metric("hf.gpqa").map(|m| m.unit), Some(MetricUnit::Score));
        assert!(metric("gpqa").is_none());
    }

    #[test]
    fn derived_metrics_are_in_the_registry_sent_to_the_ui() {
        let registry = MetricInfo::registry();
        assert_eq!(registry.len(), METRICS.len() + DERIVED.len());
        let price = registry
            .iter()
            .find(|m| m.id == PRICE_METRIC)
            .expect("price listed");
        assert!(price.derived && !price.higher_is_better);
        assert_eq!(price.symbol, "$/M");
        assert_eq!(
            metric(CONTEXT_METRIC).map(|m| m.unit),
            Some(MetricUnit::Tokens)
        );
        assert!(registry
            .iter()
            .filter(|m| !m.derived)
            .all(|m| m.source != SourceId::OpenRouter));
    }

    #[test]
    fn every_source_but_openrouter_has_metrics() {
        for source in SourceId::ALL {
            let count = of_source(source).count();
            assert_eq!(
                count == 0,
                source == SourceId::OpenRouter,
                "{source:?} has {count}"
            );
        }
    }
}
