//! Input vocabularies shared by several tools. Each is a closed list in the tool's JSON
//! Schema (`enum`), spelled as the results spell it (core's camelCase JSON: `fastCheap`,
//! `structuredOutput`), and maps onto the core type it names.

use schemars::JsonSchema;
use serde::Deserialize;
use switchyard_core::catalog::card::{Category, Tag, Tier};
use switchyard_core::catalog::query::SortKey;
use switchyard_core::routing::plan::PlanMode;
use switchyard_core::routing::BudgetTier;

/// Declares an input enum and its mapping onto a core type.
macro_rules! input_enum {
    ($(#[$meta:meta])* $name:ident => $core:ident { $($variant:ident => $target:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub(crate) enum $name {
            $($variant),+
        }

        impl From<$name> for $core {
            fn from(value: $name) -> Self {
                match value {
                    $($name::$variant => $core::$target),+
                }
            }
        }
    };
}

input_enum!(
    /// Price band on USD per million input tokens: low ($0–1), medium ($0–5), high ($2–20),
    /// any.
    Budget => BudgetTier { Low => Low, Medium => Medium, High => High, Any => Any }
);

input_enum!(
    /// A task category.
    CategoryInput => Category {
        Coding => Coding,
        Reasoning => Reasoning,
        Math => Math,
        Creative => Creative,
        Vision => Vision,
        Research => Research,
        FastCheap => FastCheap,
        General => General,
    }
);

input_enum!(
    /// A price/provider class.
    TierInput => Tier { Premium => Premium, Standard => Standard, Budget => Budget }
);

input_enum!(
    /// A model fact filters use.
    TagInput => Tag {
        Fast => Fast,
        Slow => Slow,
        Vision => Vision,
        Reasoning => Reasoning,
        Tools => Tools,
        StructuredOutput => StructuredOutput,
        LongContext => LongContext,
        Free => Free,
        Local => Local,
    }
);

input_enum!(
    /// What models are sorted by.
    SortInput => SortKey {
        Score => Score,
        Price => Price,
        Efficiency => Efficiency,
        Context => Context,
        Speed => Speed,
    }
);

input_enum!(
    /// plan: sequential steps; swarm: a DAG whose independent steps run in parallel.
    PlanModeInput => PlanMode { Plan => Plan, Swarm => Swarm }
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Agents send what results show: every core category id deserializes.
    #[test]
    fn every_category_id_is_accepted_and_maps_back() {
        for category in Category::ALL {
            let input: CategoryInput = serde_json::from_value(serde_json::json!(category.id()))
                .unwrap_or_else(|e| panic!("{}: {e}", category.id()));
            assert_eq!(Category::from(input), category);
        }
    }

    #[test]
    fn budgets_use_the_cli_words() {
        for tier in ["low", "medium", "high", "any"] {
            let input: Budget = serde_json::from_value(serde_json::json!(tier)).expect(tier);
            assert_eq!(BudgetTier::from(input).id(), tier);
        }
        assert!(serde_json::from_value::<Budget>(serde_json::json!("cheap")).is_err());
    }

    #[test]
    fn tags_are_spelled_as_model_results_spell_them() {
        for tag in [Tag::StructuredOutput, Tag::LongContext, Tag::Free] {
            let spelled = serde_json::to_value(tag).expect("tag");
            let input: TagInput = serde_json::from_value(spelled).expect("tag input");
            assert_eq!(Tag::from(input), tag);
        }
    }
}
