//! Measuring the classifier on a labeled set: accuracy overall, per category and per
//! language, the confusion matrix, how well its confidence is calibrated, and the misses.
//! The set comes as TSV text (`task`, `category`, optional `lang` columns).

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::classify::Classification;
use super::error::RoutingError;
use super::model::ModelInfo;
use super::text::is_cjk;

/// At most this many misclassified tasks are listed.
pub const MAX_LISTED_ERRORS: usize = 500;
/// Bins of the expected calibration error.
const CALIBRATION_BINS: usize = 10;

/// One task with the category it should get.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LabeledTask {
    /// The task text.
    pub task: String,
    /// Its correct category.
    pub category: Category,
    /// Its language (`en`, `zh`, …): as labeled, else detected ([`detect_lang`]).
    pub lang: String,
}

/// Accuracy over one slice of the set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct GroupAccuracy {
    /// The slice: a category id or a language.
    pub name: String,
    /// Tasks in it.
    pub total: u32,
    /// Of those, classified correctly.
    pub correct: u32,
    /// `correct / total`; `None` for an empty slice.
    pub accuracy: Option<f64>,
    /// For a category: how many tasks were classified as it.
    pub predicted: Option<u32>,
    /// For a category: of those, how many belong to it (`None` when none were).
    pub precision: Option<f64>,
}

/// Counts of expected (rows) against predicted (columns) categories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Confusion {
    /// Row and column labels, in [`Category::ALL`] order.
    pub labels: Vec<Category>,
    /// `rows[expected][predicted]`.
    pub rows: Vec<Vec<u32>>,
}

/// A task the classifier got wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Misclassified {
    /// The task text.
    pub task: String,
    /// Its language.
    pub lang: String,
    /// The labeled category.
    pub expected: Category,
    /// What the classifier said.
    pub predicted: Category,
    /// How sure it was.
    pub confidence: f64,
}

/// The classifier measured on a labeled set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Tasks in the set.
    pub total: u32,
    /// Of those, classified correctly.
    pub correct: u32,
    /// `correct / total` (0 for an empty set).
    pub accuracy: f64,
    /// Per labeled category, in [`Category::ALL`] order.
    pub categories: Vec<GroupAccuracy>,
    /// Per language, sorted by name.
    pub languages: Vec<GroupAccuracy>,
    /// Expected against predicted.
    pub confusion: Confusion,
    /// Mean confidence of the answers.
    pub mean_confidence: f64,
    /// Expected calibration error (10 equal-width confidence bins): the gap between
    /// confidence and accuracy, weighted by how many answers fall in each bin.
    pub calibration_error: f64,
    /// The misses (at most [`MAX_LISTED_ERRORS`]), in set order.
    pub errors: Vec<Misclassified>,
    /// The model that classified (from the first answer).
    pub model: Option<ModelInfo>,
}

/// `zh` when CJK characters are at least a quarter of the letters, else `en`.
pub fn detect_lang(text: &str) -> &'static str {
    let (mut cjk, mut letters) = (0usize, 0usize);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    if cjk > 0 && cjk * 4 >= cjk + letters {
        "zh"
    } else {
        "en"
    }
}

fn invalid(message: String) -> RoutingError {
    RoutingError::InvalidRequest(message)
}

/// Parses an evaluation set: tab-separated, one task per line, with a header naming the
/// `task` and `category` columns (and optionally `lang`) — without a recognizable header the
/// columns are task, category, lang in that order. Categories are ids as the CLI takes them
/// (`fast-cheap` works). Blank lines are skipped; a missing or empty `lang` is detected.
///
/// # Errors
/// [`RoutingError::InvalidRequest`] naming the line: a missing column, an unknown category,
/// an empty task.
pub fn parse_eval_tsv(text: &str) -> Result<Vec<LabeledTask>, RoutingError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim_end_matches('\r')))
        .filter(|(_, line)| !line.trim().is_empty())
        .peekable();
    let mut columns = (0usize, 1usize, Some(2usize));
    if let Some((_, first)) = lines.peek() {
        let names: Vec<String> = first
            .split('\t')
            .map(|c| c.trim().to_ascii_lowercase())
            .collect();
        let find = |name: &str| names.iter().position(|n| n == name);
        if let (Some(task), Some(category)) = (find("task"), find("category")) {
            columns = (task, category, find("lang"));
            lines.next();
        }
    }
    let (task_at, category_at, lang_at) = columns;
    let mut out = Vec::new();
    for (number, line) in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |at: usize, name: &str| {
            fields
                .get(at)
                .map(|f| f.trim())
                .ok_or_else(|| invalid(format!("line {number}: no {name} column")))
        };
        let task = field(task_at, "task")?;
        if task.is_empty() {
            return Err(invalid(format!("line {number}: the task is empty")));
        }
        let category_text = field(category_at, "category")?;
        let category = Category::parse(category_text).ok_or_else(|| {
            invalid(format!(
                "line {number}: unknown category {category_text:?} (coding, reasoning, math, \
                 creative, vision, research, fastCheap or general)"
            ))
        })?;
        let lang = lang_at
            .and_then(|at| fields.get(at))
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| detect_lang(task).to_owned());
        out.push(LabeledTask {
            task: task.to_owned(),
            category,
            lang,
        });
    }
    Ok(out)
}

fn ratio(part: u32, whole: u32) -> Option<f64> {
    (whole > 0).then(|| f64::from(part) / f64::from(whole))
}

/// Classifies every task with `classify` and measures the answers.
pub fn evaluate(
    items: &[LabeledTask],
    mut classify: impl FnMut(&str) -> Classification,
) -> Evaluation {
    let n = Category::ALL.len();
    let index = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap_or(n - 1);
    let mut rows = vec![vec![0u32; n]; n];
    let mut languages: Vec<(String, u32, u32)> = Vec::new();
    let mut errors = Vec::new();
    let mut model = None;
    let mut bins = [(0u32, 0u32, 0f64); CALIBRATION_BINS];
    let mut confidence_sum = 0.0;
    let mut correct = 0u32;
    for item in items {
        let answer = classify(&item.task);
        if model.is_none() {
            model = answer.model.clone();
        }
        let hit = answer.category == item.category;
        rows[index(item.category)][index(answer.category)] += 1;
        match languages.iter_mut().find(|(name, _, _)| *name == item.lang) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += u32::from(hit);
            }
            None => languages.push((item.lang.clone(), 1, u32::from(hit))),
        }
        let confidence = answer.confidence.clamp(0.0, 1.0);
        confidence_sum += confidence;
        let bin = ((confidence * CALIBRATION_BINS as f64) as usize).min(CALIBRATION_BINS - 1);
        bins[bin].0 += 1;
        bins[bin].1 += u32::from(hit);
        bins[bin].2 += confidence;
        if hit {
            correct += 1;
        } else if errors.len() < MAX_LISTED_ERRORS {
            errors.push(Misclassified {
                task: item.task.clone(),
                lang: item.lang.clone(),
                expected: item.category,
                predicted: answer.category,
                confidence: answer.confidence,
            });
        }
    }
    let total = items.len() as u32;
    let categories = Category::ALL
        .iter()
        .enumerate()
        .map(|(k, category)| {
            let row_total: u32 = rows[k].iter().sum();
            let predicted: u32 = rows.iter().map(|r| r[k]).sum();
            GroupAccuracy {
                name: category.id().to_owned(),
                total: row_total,
                correct: rows[k][k],
                accuracy: ratio(rows[k][k], row_total),
                predicted: Some(predicted),
                precision: ratio(rows[k][k], predicted),
            }
        })
        .collect();
    languages.sort_by(|a, b| a.0.cmp(&b.0));
    let languages = languages
        .into_iter()
        .map(|(name, total, correct)| GroupAccuracy {
            name,
            total,
            correct,
            accuracy: ratio(correct, total),
            predicted: None,
            precision: None,
        })
        .collect();
    let calibration_error = if total == 0 {
        0.0
    } else {
        bins.iter()
            .filter(|(count, _, _)| *count > 0)
            .map(|(count, hits, confidence)| {
                let count_f = f64::from(*count);
                (f64::from(*hits) / count_f - confidence / count_f).abs() * count_f
            })
            .sum::<f64>()
            / f64::from(total)
    };
    Evaluation {
        total,
        correct,
        accuracy: ratio(correct, total).unwrap_or(0.0),
        categories,
        languages,
        confusion: Confusion {
            labels: Category::ALL.to_vec(),
            rows,
        },
        mean_confidence: if total == 0 {
            0.0
        } else {
            confidence_sum / f64::from(total)
        },
        calibration_error,
        errors,
        model,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::classify;

    #[test]
    fn tsv_with_a_header_in_any_column_order_and_detected_languages() {
        let text = "lang\tcategory\ttask\nen\tmath\tWhat is 15% of 80?\n\n\tfast-cheap\t把这句话翻译成英文\n";
        let items = parse_eval_tsv(text).expect("parses");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].category, Category::Math);
        assert_eq!(items[0].lang, "en");
        assert_eq!(items[1].category, Category::FastCheap);
        assert_eq!(items[1].lang, "zh", "an empty lang is detected");
    }

    #[test]
    fn tsv_without_a_header_is_task_category_lang() {
        let items = parse_eval_tsv("write a poem\tcreative\n").expect("parses");
        assert_eq!(items[0].task, "write a poem");
        assert_eq!(items[0].category, Category::Creative);
    }

    #[test]
    fn tsv_errors_name_the_line() {
        let err = parse_eval_tsv("task\tcategory\nhello\tcooking\n").expect_err("unknown");
        assert!(err.to_string().contains("line 2"), "{err}");
        let err = parse_eval_tsv("task\tcategory\nonly a task\n").expect_err("missing");
        assert!(err.to_string().contains("no category"), "{err}");
    }

    #[test]
    fn evaluation_counts_per_category_language_and_confusion() {
        let items = vec![
            LabeledTask {
                task: "a".into(),
                category: Category::Math,
                lang: "en".into(),
            },
            LabeledTask {
                task: "b".into(),
                category: Category::Math,
                lang: "zh".into(),
            },
        ];
        let mut calls = 0;
        let eval = evaluate(&items, |_| {
            calls += 1;
            let mut c = classify("x");
            c.category = if calls == 1 {
                Category::Math
            } else {
                Category::General
            };
            c.confidence = 0.8;
            c
        });
        assert_eq!((eval.total, eval.correct), (2, 1));
        assert_eq!(eval.accuracy, 0.5);
        let math = &eval.categories[2];
        assert_eq!(
            (math.name.as_str(), math.total, math.correct),
            ("math", 2, 1)
        );
        assert_eq!(math.precision, Some(1.0));
        assert_eq!(eval.confusion.rows[2][2], 1);
        assert_eq!(eval.confusion.rows[2][7], 1);
        assert_eq!(eval.languages.len(), 2);
        assert_eq!(eval.errors.len(), 1);
        assert_eq!(eval.errors[0].predicted, Category::General);
        assert!((eval.calibration_error - 0.3).abs() < 1e-9);
    }

    #[test]
    fn languages_are_detected_by_script() {
        assert_eq!(detect_lang("用Python写一个API接口"), "zh");
        assert_eq!(detect_lang("fix the 登录 bug in the parser please"), "en");
    }
}
