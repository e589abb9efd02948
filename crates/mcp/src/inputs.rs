//! Input vocabularies shared by several tools. Each is a closed list in the tool's JSON
//! Schema (`enum`), spelled as the results spell it (core's camelCase JSON: `fastCheap`,
//! `structuredOutput`), and maps onto the core type it names.

use schemars::JsonSchema;
use serde::Deserialize;
use switchyard_core::catalog::card::{Category, Tag, Tier};
use switchyard_core::catalog::query::SortKey;
use switchyard_core::routing::plan::PlanMode;
use switchyard_core::routing::BudgetTier;
use switchyard_core::run::{RunMode, RunState};

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
    /// Price band on blended USD per million tokens (3 input : 1 output): low ($0–1), medium ($0–5), high ($2–20),
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

input_enum!(
    /// single: one node; collective: several models in parallel, then a merge; cascade:
    /// cheapest rung first, escalating on a failure signal; plan: sequential steps; swarm: a
    /// DAG whose independent steps run in parallel.
    RunModeInput => RunMode {
        Single => Single,
        Collective => Collective,
        Cascade => Cascade,
        Plan => Plan,
        Swarm => Swarm,
    }
);

input_enum!(
    /// A run's state.
    RunStateInput => RunState {
        Queued => Queued,
        Planning => Planning,
        Paused => Paused,
        Running => Running,
        Review => Review,
        Approved => Approved,
        Integrated => Integrated,
        Completed => Completed,
        Failed => Failed,
        Canceled => Canceled,
        Interrupted => Interrupted,
    }
);

/// Commands: a list, or one command alone.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Commands {
    One(String),
    Many(Vec<String>),
}

impl Commands {
    pub(crate) fn into_vec(self) -> Vec<String> {
        match self {
            Commands::One(command) => vec![command],
            Commands::Many(commands) => commands,
        }
    }
}

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
    fn modes_and_states_are_spelled_as_run_results_spell_them() {
        for mode in RunMode::ALL {
            let input: RunModeInput =
                serde_json::from_value(serde_json::json!(mode.as_str())).expect("mode");
            assert_eq!(RunMode::from(input), mode);
        }
        for state in RunState::ALL {
            let spelled = serde_json::to_value(state).expect("state");
            let input: RunStateInput = serde_json::from_value(spelled).expect("state input");
            assert_eq!(RunState::from(input), state);
        }
        assert!(serde_json::from_value::<RunModeInput>(serde_json::json!("wave")).is_err());
    }

    #[test]
    fn verification_is_a_list_or_one_command() {
        let one: Commands = serde_json::from_value(serde_json::json!("cargo test")).expect("one");
        assert_eq!(one.into_vec(), ["cargo test"]);
        let many: Commands = serde_json::from_value(serde_json::json!(["a", "b"])).expect("many");
        assert_eq!(many.into_vec(), ["a", "b"]);
        assert!(serde_json::from_value::<Commands>(serde_json::json!(3)).is_err());
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
