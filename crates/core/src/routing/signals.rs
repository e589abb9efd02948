//! Context signals of a task: what it needs from a model, and its speed, cost and stakes
//! words.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::budget::Nudge;
use super::classify::LONG_CONTEXT_MIN_TOKENS;
use super::text::parse_quantity;

/// What a task needs from a model, beyond its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Needs {
    /// Image input.
    pub vision: bool,
    /// Estimated context in tokens, when the task needs a long one.
    pub long_context: Option<u32>,
    /// Tool / function calling.
    pub tools: bool,
    /// JSON-schema structured output.
    pub structured_output: bool,
}

impl Needs {
    /// Parses a CLI list such as `vision,tools,structured-output,long-context=200000`.
    /// `long-context` without a number means [`LONG_CONTEXT_MIN_TOKENS`].
    pub fn parse_list(list: &str) -> Result<Needs, String> {
        let mut needs = Needs::default();
        for item in list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (name, value) = item.split_once(['=', ':']).unwrap_or((item, ""));
            let key: String = name
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_ascii_lowercase();
            match key.as_str() {
                "vision" | "image" | "images" => needs.vision = true,
                "tools" | "tool" | "functioncalling" => needs.tools = true,
                "structuredoutput" | "structured" | "json" => needs.structured_output = true,
                "longcontext" | "context" => {
                    let tokens = if value.is_empty() {
                        LONG_CONTEXT_MIN_TOKENS
                    } else {
                        parse_quantity(&value.to_ascii_lowercase())
                            .filter(|v| *v >= 1.0 && *v <= f64::from(u32::MAX))
                            .map(|v| v as u32)
                            .ok_or_else(|| format!("bad context size {value:?}"))?
                    };
                    needs.long_context = Some(tokens);
                }
                _ => return Err(format!("unknown need {name:?} (vision, tools, structured-output, long-context[=tokens])")),
            }
        }
        Ok(needs)
    }

    /// Both sets of needs at once (the larger context estimate).
    pub fn union(self, other: Needs) -> Needs {
        Needs {
            vision: self.vision || other.vision,
            long_context: match (self.long_context, other.long_context) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
            tools: self.tools || other.tools,
            structured_output: self.structured_output || other.structured_output,
        }
    }
}

/// Speed, cost and stakes words in the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Hints {
    /// "quick", "asap", "尽快".
    pub speed: bool,
    /// "cheap", "on a budget", "便宜".
    pub cost: bool,
    /// "critical", "security", "关键".
    pub critical: bool,
    /// "production", "go live", "上线".
    pub production: bool,
}

impl Hints {
    /// How these hints move a budget: stakes ("critical", "production") up, cost ("cheap")
    /// down; stakes win when both appear. Speed words do not move the budget.
    pub fn nudge(&self) -> Option<Nudge> {
        if self.critical || self.production {
            Some(Nudge::Up)
        } else if self.cost {
            Some(Nudge::Down)
        } else {
            None
        }
    }
}

/// Everything a task says about what it needs, besides its category.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Signals {
    /// Hard requirements on the model.
    pub needs: Needs,
    /// Stack ids (roles library ids: `rust`, `postgresql`), in order of first mention.
    pub stack: Vec<String>,
    /// Speed, cost and stakes words.
    pub hints: Hints,
}
