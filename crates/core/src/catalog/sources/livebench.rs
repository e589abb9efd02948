//! LiveBench: `table_<YYYY_MM_DD>.csv` (a `model` column and one 0–100 column per task) with
//! `categories_<YYYY_MM_DD>.json` (`{<Category>: [<task column>, …]}`).
//!
//! Each category score is the mean of its task columns present in the row, skipping
//! non-numeric cells; `livebench.global_average` is the mean of the category scores present —
//! the same arithmetic as the site's `Averaging.js`. Without a categories file the built-in
//! [`BUILTIN_CATEGORIES`] mapping is used. A release without its own categories file reuses
//! the newest older one (LiveBench keeps task columns stable across releases).

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::detect::{base_name, date_in_name, NameDate};
use super::{file_error, json_error, table};
use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};

/// Category metric ids, in LiveBench's order, with the category names that map to them
/// (normalized: lowercase letters and digits).
const CATEGORY_METRICS: [(&str, &[&str]); 7] = [
    ("livebench.reasoning", &["reasoning"]),
    ("livebench.coding", &["coding"]),
    ("livebench.agentic_coding", &["agenticcoding"]),
    ("livebench.mathematics", &["mathematics", "math"]),
    ("livebench.data_analysis", &["dataanalysis"]),
    ("livebench.language", &["language"]),
    (
        "livebench.instruction_following",
        &["if", "instructionfollowing"],
    ),
];

/// Metric id of the mean of the category scores.
pub const GLOBAL_AVERAGE: &str = "livebench.global_average";

/// Task columns per category when no categories file is at hand: the 2026-01-08 release's
/// mapping plus task columns of earlier releases (`web_of_lies_v2`, `house_traversal`,
/// `LCB_generation`, `coding_completion`, `AIME`, `cta`, …). Indexed like the category ids.
pub const BUILTIN_CATEGORIES: [(&str, &[&str]); 7] = [
    (
        "livebench.reasoning",
        &[
            "theory_of_mind",
            "zebra_puzzle",
            "spatial",
            "logic_with_navigation",
            "web_of_lies_v2",
            "web_of_lies_v3",
            "house_traversal",
        ],
    ),
    (
        "livebench.coding",
        &[
            "code_generation",
            "code_completion",
            "LCB_generation",
            "coding_completion",
        ],
    ),
    (
        "livebench.agentic_coding",
        &["javascript", "typescript", "python"],
    ),
    (
        "livebench.mathematics",
        &[
            "AMPS_Hard",
            "integrals_with_game",
            "math_comp",
            "olympiad",
            "AIME",
        ],
    ),
    (
        "livebench.data_analysis",
        &["consecutive_events", "tablejoin", "tablereformat", "cta"],
    ),
    (
        "livebench.language",
        &["connections", "plot_unscrambling", "typos"],
    ),
    (
        "livebench.instruction_following",
        &["paraphrase", "simplify", "story_generation", "summarize"],
    ),
];

/// The files of one LiveBench release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The `table_<date>.csv` name as given.
    pub table: String,
    /// The `categories_<date>.json` for that date, else the newest older one, else `None`.
    pub categories: Option<String>,
    pub date: NameDate,
}

/// Whether a file name (no directory) is a LiveBench table, `table_<date>.csv`.
pub fn is_table(base: &str) -> bool {
    has_form(base, "table_", ".csv")
}

/// Whether a file name (no directory) is a LiveBench categories file, `categories_<date>.json`.
pub fn is_categories(base: &str) -> bool {
    has_form(base, "categories_", ".json")
}

fn has_form(base: &str, prefix: &str, suffix: &str) -> bool {
    let lower = base.to_ascii_lowercase();
    lower.starts_with(prefix) && lower.ends_with(suffix) && date_in_name(base).is_some()
}

/// Picks the newest dated `table_*.csv` among `names` (bare names or paths) and its
/// categories file. `None` when there is no dated table.
pub fn pick_release<S: AsRef<str>>(names: &[S]) -> Option<Release> {
    let dated = |pred: fn(&str) -> bool| {
        names.iter().map(AsRef::as_ref).filter_map(move |name| {
            let base = base_name(name);
            pred(base).then(|| date_in_name(base).map(|d| (d, name)))?
        })
    };
    let (date, table) = dated(is_table).max_by_key(|(d, name)| (*d, base_name(name)))?;
    let categories = dated(is_categories)
        .filter(|(d, _)| *d <= date)
        .max_by_key(|(d, name)| (*d, base_name(name)))
        .map(|(_, name)| name.to_owned());
    Some(Release {
        table: table.to_owned(),
        categories,
        date,
    })
}

/// Every dated release among `names`, newest first, each with its categories file (the same
/// date's, else the newest older one).
pub fn releases<S: AsRef<str>>(names: &[S]) -> Vec<Release> {
    let mut remaining: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    let mut out = Vec::new();
    while let Some(release) = pick_release(&remaining) {
        remaining.retain(|name| *name != release.table);
        out.push(release);
    }
    out
}

/// Merges releases parsed newest first: a model keeps the row of the newest release that
/// lists it. LiveBench releases are partial (a release re-runs some models and adds new
/// ones), so the newest table alone would drop most models.
pub fn merge_newest_first(parts: Vec<Parsed<BenchmarkRecord>>) -> Parsed<BenchmarkRecord> {
    let mut merged = super::empty();
    let mut seen = HashSet::new();
    for part in parts {
        merged.skipped += part.skipped;
        for error in part.errors {
            if merged.errors.len() < Parsed::<BenchmarkRecord>::MAX_ERRORS {
                merged.errors.push(error);
            }
        }
        for record in part.items {
            if seen.insert(record.key.clone()) {
                merged.items.push(record);
            }
        }
    }
    merged
}

/// Reads a categories file into `(metric id, task columns)` pairs. Errors when it is not a
/// JSON object or names none of the known categories (unknown ones are ignored).
pub fn parse_categories(bytes: &[u8]) -> Result<Vec<(&'static str, Vec<String>)>, SourceError> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| json_error(SourceId::LiveBench, &e))?;
    let Value::Object(map) = doc else {
        return Err(file_error(
            SourceId::LiveBench,
            "categories file is not an object",
        ));
    };
    let mut out: Vec<(&'static str, Vec<String>)> = Vec::new();
    for (name, tasks) in &map {
        let normalized = table::normalize(name.as_bytes());
        let Some((metric, _)) = CATEGORY_METRICS
            .iter()
            .find(|(_, names)| names.contains(&normalized.as_str()))
        else {
            continue;
        };
        let tasks = match tasks {
            Value::Array(items) => items.iter().filter_map(Value::as_str).map(str::to_owned),
            _ => continue,
        };
        match out.iter_mut().find(|(m, _)| m == metric) {
            Some((_, existing)) => existing.extend(tasks),
            None => out.push((metric, tasks.collect())),
        }
    }
    if out.is_empty() {
        return Err(file_error(
            SourceId::LiveBench,
            "categories file names no known category",
        ));
    }
    Ok(out)
}

fn builtin() -> Vec<(&'static str, Vec<String>)> {
    BUILTIN_CATEGORIES
        .iter()
        .map(|(metric, tasks)| (*metric, tasks.iter().map(|t| (*t).to_owned()).collect()))
        .collect()
}

/// Parses a table with its categories file (or the built-in mapping when `None`). Errors when
/// the table has no `model` column, no column of a known task, or the categories file is
/// unreadable. Rows without a model, repeating a model (the first wins) or without any
/// numeric task value are skipped and counted.
pub fn parse(
    table: &[u8],
    categories: Option<&[u8]>,
) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let categories = match categories {
        Some(bytes) => parse_categories(bytes)?,
        None => builtin(),
    };
    let mut reader = table::reader(table);
    let headers = table::headers(SourceId::LiveBench, &mut reader)?;
    let model = table::find(&headers, &["model"])
        .ok_or_else(|| file_error(SourceId::LiveBench, "no `model` column"))?;
    let raw_headers = reader
        .byte_headers()
        .map_err(|e| file_error(SourceId::LiveBench, format!("unreadable CSV header: {e}")))?;
    // Column index → category index, for the task columns the mapping knows.
    let columns: Vec<(usize, usize)> = raw_headers
        .iter()
        .enumerate()
        .filter(|(index, _)| *index != model)
        .filter_map(|(index, name)| {
            let name = std::str::from_utf8(name).ok()?.trim();
            let category = categories
                .iter()
                .position(|(_, tasks)| tasks.iter().any(|t| t == name))?;
            Some((index, category))
        })
        .collect();
    if columns.is_empty() {
        return Err(file_error(
            SourceId::LiveBench,
            "no task column of a known category",
        ));
    }
    let mut out = super::empty();
    let mut seen = HashSet::new();
    let mut sums = vec![(0.0_f64, 0_u32); categories.len()];
    table::for_each_row(&mut reader, |index, record| {
        let record = match record {
            Ok(record) => record,
            Err(e) => return out.skip(format!("row {index}: {e}")),
        };
        let Some(name) = table::text(record, Some(model)) else {
            return out.skip(format!("row {index}: no model"));
        };
        sums.iter_mut().for_each(|s| *s = (0.0, 0));
        for &(column, category) in &columns {
            if let Some(value) = table::number(record, Some(column)) {
                sums[category].0 += value;
                sums[category].1 += 1;
            }
        }
        let mut metrics = BTreeMap::new();
        for ((metric, _), (sum, count)) in categories.iter().zip(&sums) {
            if *count > 0 {
                metrics.insert((*metric).to_owned(), sum / f64::from(*count));
            }
        }
        if metrics.is_empty() {
            return out.skip(format!("row {index}: {name} has no numeric task value"));
        }
        if !seen.insert(name.to_owned()) {
            return out.skip(format!("row {index}: duplicate model {name:?}"));
        }
        let global = metrics.values().sum::<f64>() / metrics.len() as f64;
        metrics.insert(GLOBAL_AVERAGE.to_owned(), global);
        out.items.push(BenchmarkRecord {
            source: SourceId::LiveBench,
            key: name.to_owned(),
            display_name: None,
            creator: None,
            release_date: None,
            metrics,
            facts: BTreeMap::new(),
        });
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATEGORIES: &[u8] = br#"{"Coding": ["code_generation", "code_completion"]}"#;

    #[test]
    fn releases_are_listed_newest_first_with_their_categories() {
        let names = [
            "table_2026_01_08.csv",
            "categories_2026_01_08.json",
            "table_2026_06_25.csv",
            "table_2025_04_02.csv",
            "notes.txt",
        ];
        let found = releases(&names);
        let tables: Vec<&str> = found.iter().map(|r| r.table.as_str()).collect();
        assert_eq!(
            tables,
            [
                "table_2026_06_25.csv",
                "table_2026_01_08.csv",
                "table_2025_04_02.csv"
            ]
        );
        // The June table has no categories of its own: the newest older one serves it.
        assert_eq!(
            found[0].categories.as_deref(),
            Some("categories_2026_01_08.json")
        );
        assert_eq!(found[2].categories, None);
    }

    #[test]
    fn merge_keeps_each_models_newest_row() {
        let newer = parse(
            b"model,code_generation,code_completion\nm-a,90,80\nm-b,70,60\n",
            Some(CATEGORIES),
        )
        .expect("newer");
        let older = parse(
            b"model,code_generation,code_completion\nm-b,10,20\nm-c,50,50\n",
            Some(CATEGORIES),
        )
        .expect("older");
        let merged = merge_newest_first(vec![newer, older]);
        let coding = |key: &str| {
            merged
                .items
                .iter()
                .find(|r| r.key == key)
                .and_then(|r| r.metrics.get("livebench.coding").copied())
        };
        assert_eq!(merged.items.len(), 3);
        assert_eq!(
            coding("m-b"),
            Some(65.0),
            "m-b keeps the newer release's row"
        );
        assert_eq!(
            coding("m-c"),
            Some(50.0),
            "m-c only in the older release is kept"
        );
    }
}
