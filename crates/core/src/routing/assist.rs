//! The optional model-assisted fallback: when the classifier is unsure and the user turned
//! it on, a small language model is asked for the category through the client's
//! structured-output path. What to ask, how to read the answer and when to ask live here;
//! the engine makes the call, caches answers per task text and keeps the local answer on
//! any failure.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::classify::Classification;
use super::error::RoutingError;

/// Ask when the classifier's confidence is below this (unless the user set another).
pub const DEFAULT_ASSIST_THRESHOLD: f64 = 0.6;

/// The fallback's settings, as the Settings page edits them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ClassifierSettings {
    /// Ask a model when the classifier is unsure (off by default).
    pub assist: bool,
    /// Ask when the confidence is below this (0–1).
    pub threshold: f64,
    /// The model to ask (`ollama:qwen3`, `openai/gpt-5-mini`); `None` picks the cheapest
    /// usable one (a local server first).
    pub model: Option<String>,
}

impl Default for ClassifierSettings {
    fn default() -> ClassifierSettings {
        ClassifierSettings {
            assist: false,
            threshold: DEFAULT_ASSIST_THRESHOLD,
            model: None,
        }
    }
}

impl ClassifierSettings {
    /// The settings with a trimmed model (empty means none), checked.
    ///
    /// # Errors
    /// [`RoutingError::InvalidRequest`] for a threshold outside 0–1.
    pub fn checked(mut self) -> Result<ClassifierSettings, RoutingError> {
        if !(self.threshold.is_finite() && (0.0..=1.0).contains(&self.threshold)) {
            return Err(RoutingError::InvalidRequest(format!(
                "the threshold is a confidence from 0 to 1, got {}",
                self.threshold
            )));
        }
        self.model = self
            .model
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty());
        Ok(self)
    }

    /// Whether `classification` should be checked with a model.
    pub fn wants_assist(&self, classification: &Classification) -> bool {
        self.assist && classification.confidence < self.threshold
    }
}

/// The system prompt of the fallback question.
pub const ASSIST_INSTRUCTIONS: &str = "You route tasks to AI models. Classify the user's task \
into exactly one category by the skill a model most needs to do it well, not by the words it \
contains:\n\
- coding: write, fix, review, explain or deploy software, scripts, SQL, regex, config, \
spreadsheet formulas.\n\
- reasoning: logic puzzles, constraint and scheduling problems, game strategy, step-by-step \
decisions and causal analysis, with little arithmetic.\n\
- math: calculation or proof, including everyday arithmetic in words (interest, percentages, \
tax, speeds, work rates, recipe scaling).\n\
- creative: original expressive text: stories, poems, jokes, ad scripts, slogans, names, \
social posts and captions, speeches.\n\
- vision: the user supplies an image or video that must be looked at.\n\
- research: gather and synthesize many sources or a body of literature, even when asked to \
summarize it.\n\
- fastCheap: short mechanical work: translate, fix grammar, rephrase, summarize a short \
pasted text, extract fields, tag/sort/dedupe/convert many items, one-line facts.\n\
- general: everyday questions, advice and explanations.\n\
Answer with the category id only, in the JSON shape asked for.";

/// The JSON Schema of the answer: `{"category": "<id>"}`.
pub fn assist_schema() -> serde_json::Value {
    let ids: Vec<&str> = Category::ALL.iter().map(|c| c.id()).collect();
    serde_json::json!({
        "type": "object",
        "properties": {
            "category": { "type": "string", "enum": ids }
        },
        "required": ["category"],
        "additionalProperties": false
    })
}

/// The category in a structured answer (`{"category": "math"}`); `None` when it has none
/// or an unknown one.
pub fn parse_assist_answer(value: &serde_json::Value) -> Option<Category> {
    value
        .get("category")
        .and_then(serde_json::Value::as_str)
        .and_then(Category::parse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::classify;

    #[test]
    fn answers_parse_to_categories_and_anything_else_is_none() {
        let ok = serde_json::json!({"category": "fastCheap"});
        assert_eq!(parse_assist_answer(&ok), Some(Category::FastCheap));
        assert_eq!(
            parse_assist_answer(&serde_json::json!({"category": "cooking"})),
            None
        );
        assert_eq!(parse_assist_answer(&serde_json::json!(["math"])), None);
        let schema = assist_schema();
        assert_eq!(schema["properties"]["category"]["enum"][7], "general");
    }

    #[test]
    fn assist_is_wanted_only_when_on_and_unsure() {
        let unsure = classify("");
        let mut settings = ClassifierSettings::default();
        assert!(!settings.wants_assist(&unsure), "off by default");
        settings.assist = true;
        assert!(settings.wants_assist(&unsure));
        settings.threshold = 0.05;
        assert!(!settings.wants_assist(&unsure));
    }

    #[test]
    fn settings_are_checked() {
        let bad = ClassifierSettings {
            threshold: 1.5,
            ..ClassifierSettings::default()
        };
        assert!(bad.checked().is_err());
        let spaced = ClassifierSettings {
            model: Some("  ".into()),
            ..ClassifierSettings::default()
        };
        assert_eq!(spaced.checked().expect("valid").model, None);
    }
}
