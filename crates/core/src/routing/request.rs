//! What a pick or recommendation is asked for, and what it is chosen from.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::{Category, ModelCard, Tag};

use super::budget::Budget;
use super::classify::Classification;
use super::feedback::FeedbackIndex;
use super::learned::LearnedIndex;
use super::signals::Needs;

/// A routing request: the category, the hard needs, the stack words and the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RouteRequest {
    /// Only models scored in this category qualify.
    pub category: Category,
    /// Hard requirements (vision, context, tools, structured output).
    pub needs: Needs,
    /// Stack ids that may add a context boost.
    pub stack: Vec<String>,
    /// The price band and cap.
    pub budget: Budget,
    /// Ignore whether a key or local endpoint exists for the model.
    pub any_provider: bool,
}

impl RouteRequest {
    /// A request for `category` with no needs, the default budget and usable models only.
    pub fn new(category: Category) -> RouteRequest {
        RouteRequest {
            category,
            needs: Needs::default(),
            stack: Vec::new(),
            budget: Budget::default(),
            any_provider: false,
        }
    }

    /// The request a classified task makes at `budget`.
    pub fn from_classification(classification: &Classification, budget: Budget) -> RouteRequest {
        RouteRequest {
            category: classification.category,
            needs: classification.signals.needs,
            stack: classification.signals.stack.clone(),
            budget,
            any_provider: false,
        }
    }
}

/// What picks are made from: the catalog, the ratings and which models can be called
/// (a key, a local endpoint, or OpenRouter). Everything is loaded before ranking starts.
#[derive(Clone, Copy)]
pub struct RouteContext<'a> {
    /// Every model to choose from.
    pub catalog: &'a [ModelCard],
    /// The ratings, loaded once for the request.
    pub feedback: &'a FeedbackIndex,
    /// Recorded outcomes per (category, model), loaded once for the request
    /// ([`LearnedIndex::none`] routes on the benchmarks alone).
    pub learned: &'a LearnedIndex,
    /// Whether a model can be called now; ignored when the request says `any_provider`.
    pub usable: &'a dyn Fn(&ModelCard) -> bool,
}

impl std::fmt::Debug for RouteContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteContext")
            .field("catalog", &self.catalog.len())
            .field("feedback", &self.feedback.len())
            .field("learned", &self.learned.len())
            .finish_non_exhaustive()
    }
}

/// Why models were left out, each counted under the first filter it failed. Filters run in
/// this order: budget, category, needs (vision, context, tools, structured output), usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Rejections {
    /// Input price outside the budget (or unknown).
    pub over_budget: u32,
    /// No score in the category (not a member).
    pub not_in_category: u32,
    /// No image input when vision is needed.
    pub no_vision: u32,
    /// Context window unknown or below the estimate.
    pub short_context: u32,
    /// No tool calling when tools are needed.
    pub no_tools: u32,
    /// No structured output when it is needed.
    pub no_structured_output: u32,
    /// No key, local endpoint or OpenRouter route.
    pub unusable: u32,
}

impl Rejections {
    /// `12 not scored in coding, 3 over budget, …`, or `none` when nothing was rejected.
    pub fn describe(&self, category: Category) -> String {
        let parts = [
            (self.over_budget, "outside the budget".to_owned()),
            (
                self.not_in_category,
                format!("not scored in {}", category.id()),
            ),
            (self.no_vision, "without image input".to_owned()),
            (self.short_context, "with too short a context".to_owned()),
            (self.no_tools, "without tool calling".to_owned()),
            (
                self.no_structured_output,
                "without structured output".to_owned(),
            ),
            (self.unusable, "without a key or endpoint".to_owned()),
        ];
        let text: Vec<String> = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        if text.is_empty() {
            "none".to_owned()
        } else {
            text.join(", ")
        }
    }
}

/// Whether `card` has what `needs` asks for; counts the first failing need.
pub(crate) fn meets_needs(card: &ModelCard, needs: &Needs, rejections: &mut Rejections) -> bool {
    if needs.vision
        && !(card.input_modalities.iter().any(|m| m == "image") || card.tags.contains(&Tag::Vision))
    {
        rejections.no_vision += 1;
        return false;
    }
    if let Some(tokens) = needs.long_context {
        if card.context_length.is_none_or(|length| length < tokens) {
            rejections.short_context += 1;
            return false;
        }
    }
    if needs.tools
        && !(card.supported_parameters.iter().any(|p| p == "tools")
            || card.tags.contains(&Tag::Tools))
    {
        rejections.no_tools += 1;
        return false;
    }
    if needs.structured_output
        && !(card
            .supported_parameters
            .iter()
            .any(|p| p == "structured_outputs" || p == "response_format")
            || card.tags.contains(&Tag::StructuredOutput))
    {
        rejections.no_structured_output += 1;
        return false;
    }
    true
}
