//! `switchyard_models` and `switchyard_compare`: the model catalog.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::catalog::card::ModelCard;
use switchyard_core::catalog::query::{ModelQuery, SortKey};
use switchyard_core::catalog::view::ModelSummary;

use crate::inputs::{CategoryInput, SortInput, TagInput, TierInput};
use crate::reply;
use crate::server::Server;

/// Models returned when `limit` is not given.
pub(crate) const DEFAULT_MODELS: u32 = 20;
/// The most models one call returns.
pub(crate) const MAX_MODELS: u32 = 100;

/// Filters and sort of `switchyard_models`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ModelsInput {
    /// Words that must all occur in the id, name or provider.
    #[serde(default)]
    search: Option<String>,
    /// Only models scored in this category; also the category the score sort uses.
    #[serde(default)]
    category: Option<CategoryInput>,
    #[serde(default)]
    tier: Option<TierInput>,
    /// Models having every one of these tags.
    #[serde(default)]
    tags: Vec<TagInput>,
    /// Only these providers (vendor slugs such as `openai`, `anthropic`).
    #[serde(default)]
    providers: Vec<String>,
    /// Highest blended (3:1) USD per million tokens.
    #[serde(default)]
    max_price: Option<f64>,
    /// Least context length in tokens.
    #[serde(default)]
    min_context: Option<u32>,
    /// Default: score (highest first).
    #[serde(default)]
    sort: Option<SortInput>,
    /// Reverse the sort's natural direction.
    #[serde(default)]
    reverse: bool,
    /// How many to return (1–100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
}

/// One page of models.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelsPage {
    /// Models matching the filters.
    total: usize,
    /// More matched than are listed.
    truncated: bool,
    models: Vec<ModelSummary>,
}

/// `switchyard_compare`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CompareInput {
    /// Two to five catalog ids (e.g. `anthropic/claude-opus-4.5`, `openai/gpt-4o-mini`).
    #[schemars(length(min = 2, max = 5))]
    ids: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Compared {
    models: Vec<ModelCard>,
}

impl ModelsInput {
    fn query(&self) -> ModelQuery {
        let sort: SortKey = self.sort.map_or(SortKey::Score, SortKey::from);
        ModelQuery {
            search: self.search.clone(),
            category: self.category.map(Into::into),
            tier: self.tier.map(Into::into),
            tags: self.tags.iter().copied().map(Into::into).collect(),
            providers: self.providers.clone(),
            max_price: self.max_price,
            min_context: self.min_context,
            sort,
            descending: sort.natural_descending() != self.reverse,
            limit: None,
        }
    }
}

#[tool_router(router = catalog_tools, vis = "pub(crate)")]
impl Server {
    /// Lists catalog models, filtered and sorted.
    #[tool(
        name = "switchyard_models",
        description = "List models from Switchyard's catalog with prices, context, tier, tags and \
                       0-100 category scores. Filter by category, tier, tags, providers, price \
                       and context; sort by score, price, efficiency, context or speed. At most \
                       100 per call (default 20); `truncated` says more matched.",
        annotations(title = "Models", read_only_hint = true, open_world_hint = false)
    )]
    async fn models(&self, Parameters(input): Parameters<ModelsInput>) -> CallToolResult {
        let limit = input.limit.unwrap_or(DEFAULT_MODELS);
        if !(1..=MAX_MODELS).contains(&limit) {
            return reply::invalid(format!("limit must be 1 to {MAX_MODELS}, not {limit}"));
        }
        let mut models = match self.engine().models(&input.query()).await {
            Ok(models) => models,
            Err(error) => return reply::engine_error(&error),
        };
        let total = models.len();
        models.truncate(limit as usize);
        reply::ok(&ModelsPage {
            total,
            truncated: total > models.len(),
            models,
        })
    }

    /// Two to five models side by side.
    #[tool(
        name = "switchyard_compare",
        description = "Two to five catalog models side by side: prices, context, tier, tags, \
                       category scores with coverage, efficiency, benchmarks and source matches.",
        annotations(
            title = "Compare models",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn compare(&self, Parameters(input): Parameters<CompareInput>) -> CallToolResult {
        if !(2..=5).contains(&input.ids.len()) {
            return reply::invalid(format!(
                "compare takes 2 to 5 catalog ids, not {}",
                input.ids.len()
            ));
        }
        match self.engine().compare(&input.ids).await {
            Ok(models) => reply::ok(&Compared { models }),
            Err(error) => reply::engine_error(&error),
        }
    }
}
