//! Structured output: a run may require its answer to be JSON matching a JSON Schema. An
//! answer is recovered before it is judged — the JSON is taken out of a code fence or the
//! prose around it — and checked against the schema (the `jsonschema` crate: drafts 4 to
//! 2020-12; references to other documents are not fetched). An answer that still fails gets
//! one repair request with the errors; failing again is the `SchemaFailed` signal a cascade
//! escalates on.

use serde_json::Value;

/// Validation errors named in a failure, at most.
const ERRORS_SHOWN: usize = 3;

/// A compiled output schema.
pub struct OutputSchema {
    text: String,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema").finish_non_exhaustive()
    }
}

/// Why a schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the JSON schema {0}")]
pub struct SchemaError(pub String);

impl OutputSchema {
    /// Parses and compiles `text`, a JSON Schema document.
    ///
    /// # Errors
    /// [`SchemaError`] when it is not JSON or not a valid schema.
    pub fn parse(text: &str) -> Result<Self, SchemaError> {
        let schema: Value =
            serde_json::from_str(text).map_err(|e| SchemaError(format!("is not JSON: {e}")))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| SchemaError(format!("is not valid: {e}")))?;
        Ok(Self {
            text: text.trim().to_owned(),
            validator,
        })
    }

    /// The JSON in `answer` if it matches the schema (pretty-printed), else what is wrong.
    ///
    /// # Errors
    /// A description of the failure: no JSON found, or the first validation errors.
    pub fn check(&self, answer: &str) -> Result<String, String> {
        let Some(value) = extract_json(answer) else {
            return Err("the answer holds no JSON document".to_owned());
        };
        let errors: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(ERRORS_SHOWN + 1)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_owned() } else { at };
                format!("at {at}: {e}")
            })
            .collect();
        if errors.is_empty() {
            return Ok(serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()));
        }
        let more = if errors.len() > ERRORS_SHOWN {
            "; and more"
        } else {
            ""
        };
        let shown: Vec<&str> = errors
            .iter()
            .take(ERRORS_SHOWN)
            .map(String::as_str)
            .collect();
        Err(format!("{}{more}", shown.join("; ")))
    }

    /// The request that asks the model to fix `answer`, which failed with `problem`.
    pub fn repair_prompt(&self, task: &str, answer: &str, problem: &str) -> String {
        format!(
            "# Task\n{task}\n\n# Your previous answer\n{answer}\n\n# What is wrong with it\n\
             It must be one JSON document matching the JSON Schema below, and it is not: \
             {problem}\n\n# The JSON Schema\n{}\n\nReply with the corrected JSON document only, \
             no prose and no code fence.",
            self.text
        )
    }

    /// The instruction added to a prompt so the model answers in the schema's shape.
    pub fn instruction(&self) -> String {
        format!(
            "Answer with one JSON document matching this JSON Schema, and nothing else:\n{}",
            self.text
        )
    }
}

/// The JSON document in `text`: all of it, else the first fenced block that parses, else the
/// span from the first `{` or `[` to the last matching bracket.
pub fn extract_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        return Some(value);
    }
    let mut rest = trimmed;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let Some(end) = after[body_start..].find("```") else {
            break;
        };
        let body = &after[body_start..body_start + end];
        if let Ok(value) = serde_json::from_str::<Value>(body.trim()) {
            return Some(value);
        }
        rest = &after[body_start + end + 3..];
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(start), Some(end)) = (trimmed.find(open), trimmed.rfind(close)) {
            if start < end {
                if let Ok(value) = serde_json::from_str::<Value>(&trimmed[start..=end]) {
                    return Some(value);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERSON: &str = r#"{"type":"object","required":["name","age"],"properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"additionalProperties":false}"#;

    #[test]
    fn json_is_recovered_from_fences_and_prose() {
        assert_eq!(
            extract_json(" {\"a\": 1} "),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(
            extract_json("Here it is:\n```json\n{\"a\": 2}\n```\nDone."),
            Some(serde_json::json!({"a": 2}))
        );
        assert_eq!(
            extract_json("```\nnot json\n```\n```json\n[1, 2]\n```"),
            Some(serde_json::json!([1, 2]))
        );
        assert_eq!(
            extract_json("The answer is {\"a\": 3}. Thanks"),
            Some(serde_json::json!({"a": 3}))
        );
        assert_eq!(extract_json("no json here"), None);
        assert_eq!(extract_json("{ broken"), None);
    }

    #[test]
    fn an_answer_matching_the_schema_passes_and_one_that_does_not_names_the_errors() {
        let schema = OutputSchema::parse(PERSON).expect("schema");
        let ok = schema
            .check("```json\n{\"name\": \"Ada\", \"age\": 36}\n```")
            .expect("valid");
        assert!(ok.contains("\"name\": \"Ada\""), "{ok}");
        let bad = schema
            .check("{\"name\": 7, \"age\": -1}")
            .expect_err("invalid");
        assert!(bad.contains("/name"), "{bad}");
        assert!(bad.contains("/age"), "{bad}");
        let missing = schema.check("{\"name\": \"Ada\"}").expect_err("missing");
        assert!(missing.contains("age"), "{missing}");
        assert_eq!(
            schema.check("I cannot do that").expect_err("no json"),
            "the answer holds no JSON document"
        );
    }

    #[test]
    fn a_schema_that_is_not_json_or_not_a_schema_is_refused() {
        assert!(OutputSchema::parse("{")
            .expect_err("not json")
            .0
            .contains("not JSON"));
        let invalid = OutputSchema::parse(r#"{"type": 12}"#).expect_err("not a schema");
        assert!(invalid.0.contains("not valid"), "{invalid}");
    }

    #[test]
    fn the_repair_prompt_carries_the_answer_the_problem_and_the_schema() {
        let schema = OutputSchema::parse(PERSON).expect("schema");
        let prompt = schema.repair_prompt("Describe Ada", "Ada is 36", "no JSON");
        assert!(prompt.contains("Describe Ada"));
        assert!(prompt.contains("Ada is 36"));
        assert!(prompt.contains("no JSON"));
        assert!(prompt.contains("\"required\""));
    }
}
