//! A worker's self-review: after Switchyard's own verification, the model that wrote a change
//! re-reads it and says what it risks, which files it touched and which tests it added. It is
//! shown beside the verification, never instead of it: nothing here gates or approves.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::review::diff::{CapturedDiff, LineKind};

/// A self-review is at most this many lines (risks, files and tests together).
pub const MAX_SELF_REVIEW_LINES: usize = 50;
/// At most this much of the diff is shown to the reviewer; the rest is summarized by name.
pub const MAX_DIFF_CHARS: usize = 60_000;
/// The longest line kept.
const MAX_LINE_CHARS: usize = 240;

/// What became of the self-review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SelfReviewState {
    Written,
    /// The call failed or the answer was not a review (`message` says which).
    Failed,
    /// This worker cannot be asked (`message` says why).
    Unavailable,
}

/// The self-review an attempt keeps as its `self-review.json` artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SelfReview {
    pub state: SelfReviewState,
    /// The model that wrote the change and re-read it.
    pub model: Option<String>,
    pub risks: Vec<String>,
    pub files_touched: Vec<String>,
    pub tests_added: Vec<String>,
    /// Lines dropped to keep the review within [`MAX_SELF_REVIEW_LINES`].
    pub truncated: u32,
    /// Why it failed or is unavailable (the provider's own message).
    pub message: Option<String>,
    pub cost_usd: Option<f64>,
}

impl SelfReview {
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::empty(SelfReviewState::Unavailable, None, Some(message.into()))
    }

    pub fn failed(model: &str, message: impl Into<String>, cost_usd: Option<f64>) -> Self {
        Self {
            cost_usd,
            ..Self::empty(
                SelfReviewState::Failed,
                Some(model.to_owned()),
                Some(message.into()),
            )
        }
    }

    fn empty(state: SelfReviewState, model: Option<String>, message: Option<String>) -> Self {
        Self {
            state,
            model,
            risks: Vec::new(),
            files_touched: Vec::new(),
            tests_added: Vec::new(),
            truncated: 0,
            message,
            cost_usd: None,
        }
    }

    /// Reads the reviewer's answer: one JSON object `{risks, filesTouched, testsAdded}` (each a
    /// list of strings; snake_case keys and a surrounding code fence or prose are accepted),
    /// cut to [`MAX_SELF_REVIEW_LINES`] lines.
    ///
    /// # Errors
    /// A message for people when the answer holds no such object.
    pub fn parse(model: &str, answer: &str, cost_usd: Option<f64>) -> Result<Self, String> {
        let object = json_object(answer)
            .ok_or_else(|| "the answer holds no JSON object with the review".to_owned())?;
        let list = |keys: &[&str]| -> Vec<String> {
            keys.iter()
                .find_map(|key| object.get(*key))
                .and_then(serde_json::Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|item| match item {
                            serde_json::Value::String(text) => Some(text.clone()),
                            serde_json::Value::Null => None,
                            other => Some(other.to_string()),
                        })
                        .flat_map(|text| {
                            text.lines()
                                .map(|line| clip(line.trim()))
                                .filter(|line| !line.is_empty())
                                .collect::<Vec<_>>()
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut review = Self {
            risks: list(&["risks"]),
            files_touched: list(&["filesTouched", "files_touched", "files"]),
            tests_added: list(&["testsAdded", "tests_added", "tests"]),
            cost_usd,
            ..Self::empty(SelfReviewState::Written, Some(model.to_owned()), None)
        };
        if [
            "risks",
            "filesTouched",
            "files_touched",
            "files",
            "testsAdded",
            "tests_added",
            "tests",
        ]
        .iter()
        .all(|key| !object.contains_key(*key))
        {
            return Err("the answer's JSON has none of risks, filesTouched, testsAdded".into());
        }
        review.truncate(MAX_SELF_REVIEW_LINES);
        Ok(review)
    }

    /// Keeps the first `max` lines, risks first.
    fn truncate(&mut self, max: usize) {
        let mut left = max;
        let mut dropped = 0usize;
        for list in [
            &mut self.risks,
            &mut self.files_touched,
            &mut self.tests_added,
        ] {
            let keep = list.len().min(left);
            dropped += list.len() - keep;
            list.truncate(keep);
            left -= keep;
        }
        self.truncated = u32::try_from(dropped).unwrap_or(u32::MAX);
    }
}

fn clip(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// The first `{…}` in `text` that parses as a JSON object.
fn json_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    text.match_indices('{').find_map(|(start, _)| {
        let mut stream = serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<serde_json::Map<String, serde_json::Value>>();
        stream.next().and_then(Result::ok)
    })
}

/// The system text and the prompt that ask the model to re-read its change.
pub fn prompt(task: &str, diff: &CapturedDiff) -> (String, String) {
    let system = format!(
        "You wrote the change below for the task. Re-read it critically as its reviewer. \
         Answer with one JSON object and nothing else: {{\"risks\": [..], \"filesTouched\": \
         [..], \"testsAdded\": [..]}} — each a list of short strings: what could be wrong or \
         break, each file you changed with a few words on why, each test you added or changed. \
         At most {MAX_SELF_REVIEW_LINES} items in all. Empty lists are fine."
    );
    let mut text = String::new();
    let mut left_out = Vec::new();
    for file in &diff.files {
        let mut part = format!("--- {} ({:?})\n", file.path, file.status);
        for hunk in &file.hunks {
            part.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ));
            for line in &hunk.lines {
                let sign = match line.kind {
                    LineKind::Context => ' ',
                    LineKind::Added => '+',
                    LineKind::Removed => '-',
                };
                part.push(sign);
                part.push_str(&line.text);
                part.push('\n');
            }
        }
        if text.len() + part.len() > MAX_DIFF_CHARS {
            left_out.push(file.path.as_str());
        } else {
            text.push_str(&part);
        }
    }
    if !left_out.is_empty() {
        text.push_str(&format!(
            "\n({} more changed file(s) not shown: {})\n",
            left_out.len(),
            left_out.join(", ")
        ));
    }
    (system, format!("Task:\n{task}\n\nYour change:\n{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_object_inside_a_fence_and_prose() {
        let answer = "Here it is:\n```json\n{\"risks\": [\"the parser panics on empty input\"], \
                      \"files_touched\": [\"src/lib.rs: new parse()\"], \"testsAdded\": []}\n```";
        let review = SelfReview::parse("m", answer, Some(0.01)).expect("review");
        assert_eq!(review.state, SelfReviewState::Written);
        assert_eq!(review.risks, ["the parser panics on empty input"]);
        assert_eq!(review.files_touched, ["src/lib.rs: new parse()"]);
        assert!(review.tests_added.is_empty());
        assert_eq!(review.cost_usd, Some(0.01));
    }

    #[test]
    fn an_answer_without_a_review_is_an_error_with_a_reason() {
        let error = SelfReview::parse("m", "Looks good to me!", None).expect_err("no json");
        assert!(error.contains("no JSON object"), "{error}");
        let error = SelfReview::parse("m", "{\"verdict\": \"ok\"}", None).expect_err("no keys");
        assert!(error.contains("none of risks"), "{error}");
    }

    #[test]
    fn a_long_review_is_cut_to_fifty_lines_risks_first() {
        let risks: Vec<String> = (0..40).map(|i| format!("risk {i}")).collect();
        let files: Vec<String> = (0..30).map(|i| format!("f{i}.rs")).collect();
        let answer =
            serde_json::json!({"risks": risks, "filesTouched": files, "testsAdded": ["t"]});
        let review = SelfReview::parse("m", &answer.to_string(), None).expect("review");
        assert_eq!(review.risks.len(), 40);
        assert_eq!(review.files_touched.len(), 10);
        assert!(review.tests_added.is_empty());
        assert_eq!(review.truncated, 21);
        assert_eq!(
            review.risks.len() + review.files_touched.len() + review.tests_added.len(),
            MAX_SELF_REVIEW_LINES
        );
    }
}
