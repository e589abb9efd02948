//! Catalog views sent to the UI and the CLI: a light per-model summary for tables and plots,
//! a model's detail with its score breakdowns, the metric registry and category weights, the
//! catalog status, refresh reports and progress.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::card::{Catalog, Category, ModelCard, Pricing, SourceStatus, Tag, Tier};
use super::metrics::MetricInfo;
use super::record::SourceId;
use super::scoring::{explain_card, ScoreBreakdown, Weights};
use super::snapshot::HoldReason;

/// Score and coverage of one category, without the inputs (those are in the detail).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBrief {
    pub score: f64,
    pub coverage: f64,
}

/// What the table and the plot need of a model (the detail view fetches the full card).
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelSummary {
    pub id: String,
    pub name: String,
    pub provider: String,
    pub pricing: Pricing,
    /// Blended 3:1 price per million tokens when both prices are known.
    pub blended_per_m: Option<f64>,
    pub context_length: Option<u32>,
    pub tier: Tier,
    pub tags: Vec<Tag>,
    pub categories: BTreeMap<Category, ScoreBrief>,
    pub efficiency: BTreeMap<Category, f64>,
    pub output_speed: Option<f64>,
    pub local: bool,
    /// Number of sources (besides OpenRouter) that supplied values.
    pub sources: u32,
    pub variants: u32,
    /// The model as a picker lists it: `name (provider, $x.xx/M)`, the price when known.
    pub label: String,
}

impl From<&ModelCard> for ModelSummary {
    fn from(card: &ModelCard) -> Self {
        let mut sources: Vec<SourceId> = card
            .matches
            .iter()
            .filter(|m| m.primary)
            .map(|m| m.source)
            .collect();
        sources.sort();
        sources.dedup();
        let blended_per_m = card.pricing.blended_per_m();
        let label = match blended_per_m {
            Some(price) => format!("{} ({}, ${price:.2}/M)", card.name, card.provider),
            None => format!("{} ({})", card.name, card.provider),
        };
        ModelSummary {
            id: card.id.clone(),
            name: card.name.clone(),
            provider: card.provider.clone(),
            pricing: card.pricing,
            blended_per_m,
            context_length: card.context_length,
            tier: card.tier,
            tags: card.tags.clone(),
            categories: card
                .categories
                .iter()
                .map(|(c, s)| {
                    (
                        *c,
                        ScoreBrief {
                            score: s.score,
                            coverage: s.coverage,
                        },
                    )
                })
                .collect(),
            efficiency: card.efficiency.clone(),
            output_speed: card.output_speed,
            local: card.local,
            sources: u32::try_from(sources.len()).unwrap_or(u32::MAX),
            variants: u32::try_from(card.variants.len()).unwrap_or(u32::MAX),
            label,
        }
    }
}

/// One model in full, with each category score taken apart (the drawer's "why this score").
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelDetail {
    /// The card.
    pub card: ModelCard,
    /// One breakdown per scored category, in category order.
    pub breakdown: Vec<ScoreBreakdown>,
}

impl ModelDetail {
    /// `card` with its breakdowns under `weights` (the weights it was scored with).
    pub fn new(card: ModelCard, weights: &Weights) -> ModelDetail {
        let breakdown = explain_card(&card, weights);
        ModelDetail { card, breakdown }
    }
}

/// One metric's weight in a category.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MetricWeight {
    /// Source-qualified metric id.
    pub metric: String,
    /// Its weight.
    pub weight: f64,
}

/// What a category is scored from.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CategoryWeighting {
    /// The category.
    pub category: Category,
    /// Its metrics, heaviest first.
    pub weights: Vec<MetricWeight>,
    /// Σ of the weights: the denominator of coverage.
    pub total_weight: f64,
    /// A score needs at least one of these metrics (empty: any).
    pub require_any: Vec<String>,
    /// Only models that take image input are scored.
    pub requires_image_input: bool,
}

/// The metric registry and the category weights, as the engine scores with them.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogMetrics {
    /// Every metric (parsers' then derived), with label, unit and direction.
    pub metrics: Vec<MetricInfo>,
    /// Every category's weighting, in category order.
    pub categories: Vec<CategoryWeighting>,
    /// The least coverage a category score may rest on.
    pub min_coverage: f64,
}

impl CatalogMetrics {
    /// The registry with `weights`.
    pub fn of(weights: &Weights) -> CatalogMetrics {
        CatalogMetrics {
            metrics: MetricInfo::registry(),
            categories: weights
                .categories
                .iter()
                .map(|(category, w)| CategoryWeighting {
                    category: *category,
                    weights: w
                        .weights
                        .iter()
                        .map(|(metric, weight)| MetricWeight {
                            metric: metric.clone(),
                            weight: *weight,
                        })
                        .collect(),
                    total_weight: w.total,
                    require_any: w.require_any.clone(),
                    requires_image_input: w.requires_image_input,
                })
                .collect(),
            min_coverage: weights.min_coverage,
        }
    }
}

/// Where the catalog's data stands.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogStatus {
    /// Date of the newest source snapshot in use, `YYYY-MM-DD`.
    pub snapshot_date: Option<String>,
    pub model_count: u32,
    /// Sources currently served from the snapshot bundled with the app (never refreshed).
    pub bundled_sources: Vec<SourceId>,
    /// Date the bundled snapshot was produced.
    pub bundled_date: Option<String>,
    pub sources: Vec<SourceStatus>,
    /// Whether a refresh is running now.
    pub refreshing: bool,
    /// The running refresh, so a view that opens late can follow its events.
    pub refresh_id: Option<RefreshId>,
    /// Refreshed snapshots held back instead of replacing the data in use (zero records, or
    /// fewer than half the previous count); each can be accepted anyway.
    pub held: Vec<HeldSnapshot>,
}

impl CatalogStatus {
    /// Builds the status of a catalog.
    pub fn of(
        catalog: &Catalog,
        bundled_sources: Vec<SourceId>,
        bundled_date: Option<String>,
        refreshing: bool,
    ) -> Self {
        CatalogStatus {
            snapshot_date: catalog.snapshot_date.clone(),
            model_count: u32::try_from(catalog.models.len()).unwrap_or(u32::MAX),
            bundled_sources,
            bundled_date,
            sources: catalog.sources.clone(),
            refreshing,
            refresh_id: None,
            held: Vec::new(),
        }
    }
}

/// A refreshed snapshot kept aside because [`crate::catalog::snapshot::accept_refresh`] held
/// it back; the previous snapshot of its source stays in use until it is accepted anyway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct HeldSnapshot {
    pub source: SourceId,
    pub reason: HoldReason,
    /// Records in the held snapshot.
    pub records: u32,
    /// Records in the snapshot in use when it was held back.
    pub previous_records: u32,
    /// The file or URL it was read from.
    pub origin: String,
    /// RFC 3339 time it was held back.
    pub held_at: String,
    /// [`HoldReason::describe`], for people.
    pub message: String,
}

/// Identifies one catalog refresh within a running engine; every refresh event carries it,
/// so a view follows the refresh it started and ignores others.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(transparent)]
pub struct RefreshId(pub u32);

impl std::fmt::Display for RefreshId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Who started a refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum RefreshTrigger {
    /// A person (the app's button, the CLI).
    User,
    /// The engine's background schedule.
    Schedule,
}

/// The answer to "start a refresh": the refresh to follow. When one was already running, it
/// is that one (`already_running`), and no new refresh starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RefreshTicket {
    pub refresh_id: RefreshId,
    pub already_running: bool,
}

/// One source's outcome in a refresh.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SourceRefresh {
    pub source: SourceId,
    /// The file or URL read.
    pub origin: Option<String>,
    pub records: u32,
    pub matched: u32,
    pub unmatched: u32,
    pub skipped: u32,
    /// Why this source failed; its previous snapshot stays in use.
    pub error: Option<String>,
    /// Set when the refreshed snapshot was held back (then `error` says why in words).
    pub held: Option<HoldReason>,
}

/// What a refresh did, per source.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RefreshReport {
    pub sources: Vec<SourceRefresh>,
    pub model_count: u32,
    pub snapshot_date: Option<String>,
}

/// Stage of one source during a refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum RefreshStage {
    Started,
    Fetching,
    Parsing,
    Saved,
    Failed,
    /// The source answered, but with zero records or fewer than half the previous count:
    /// the previous snapshot stays in use and the new one is held back.
    HeldBack,
    /// The catalog was rebuilt from every source; the refresh is over.
    Finished,
}

/// Progress of a refresh, one event per source stage.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RefreshProgress {
    /// `None` for the whole refresh (`started` / `finished`).
    pub source: Option<SourceId>,
    pub stage: RefreshStage,
    pub message: Option<String>,
}
