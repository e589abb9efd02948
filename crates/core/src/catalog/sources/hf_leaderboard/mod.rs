//! HF Open LLM Leaderboard v2 (`open-llm-leaderboard/contents`): open-weights repos only.
//!
//! Two CSV layouts are read, told apart by their headers: the dataset's native columns
//! (`fullname`, `Average ⬆️`, `IFEval`, `MATH Lvl 5`, …, as in a pandas dump of the parquet
//! file) and the flattened fboulnois export (`model_name`, `model_average_score`,
//! `evaluations_<bench>_normalized_score`, …). The datasets-server rows API is read by
//! [`rows`]. Metrics are the normalized 0–100 scores: `hf.ifeval`, `hf.bbh`, `hf.math_lvl5`,
//! `hf.gpqa`, `hf.musr`, `hf.mmlu_pro`, `hf.average`.
//!
//! The key is the exact repo id (`fullname`, `org/name`), never normalized: it is matched only
//! against OpenRouter's `hugging_face_id`, exactly. A repo evaluated more than once (at
//! different precisions) keeps its row with the highest average. Rows flagged by the
//! maintainers are skipped.

pub mod rows;

use std::collections::{BTreeMap, HashMap};

use super::table;
use super::{file_error, iso_date};
use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};

/// Fact name: parameter count in billions, when the row states it.
pub const FACT_PARAMS_B: &str = "params_b";

/// Metric id and its column names (normalized, see `table::normalize`): native, then fboulnois.
const METRIC_COLUMNS: [(&str, [&str; 2]); 7] = [
    ("hf.average", ["average", "modelaveragescore"]),
    ("hf.ifeval", ["ifeval", "evaluationsifevalnormalizedscore"]),
    ("hf.bbh", ["bbh", "evaluationsbbhnormalizedscore"]),
    (
        "hf.math_lvl5",
        ["mathlvl5", "evaluationsmathnormalizedscore"],
    ),
    ("hf.gpqa", ["gpqa", "evaluationsgpqanormalizedscore"]),
    ("hf.musr", ["musr", "evaluationsmusrnormalizedscore"]),
    (
        "hf.mmlu_pro",
        ["mmlupro", "evaluationsmmlupronormalizedscore"],
    ),
];
const KEY_COLUMNS: [&str; 2] = ["fullname", "modelname"];
const PARAMS_COLUMNS: [&str; 2] = ["paramsb", "metadataparamsbillions"];
const UPLOAD_COLUMNS: [&str; 2] = ["uploadtohubdate", "metadatauploaddate"];
const FLAGGED_COLUMNS: [&str; 2] = ["flagged", "featuresisflagged"];

/// Which field of a row a (normalized) column name feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Key,
    Metric(usize),
    Params,
    Upload,
    Flagged,
}

fn field_of(normalized: &str) -> Option<Field> {
    if KEY_COLUMNS.contains(&normalized) {
        return Some(Field::Key);
    }
    if let Some(i) = METRIC_COLUMNS
        .iter()
        .position(|(_, names)| names.contains(&normalized))
    {
        return Some(Field::Metric(i));
    }
    [
        (PARAMS_COLUMNS, Field::Params),
        (UPLOAD_COLUMNS, Field::Upload),
        (FLAGGED_COLUMNS, Field::Flagged),
    ]
    .into_iter()
    .find_map(|(names, field)| names.contains(&normalized).then_some(field))
}

/// One leaderboard row, whichever layout it came from.
#[derive(Debug, Default)]
struct Row {
    key: Option<String>,
    metrics: [Option<f64>; 7],
    params_b: Option<f64>,
    upload_date: Option<String>,
    flagged: bool,
}

/// Parses a leaderboard CSV in either layout. Errors when the file has no header or no
/// `fullname`/`model_name` column; rows without a repo id or any score are skipped.
pub fn parse(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    parse_only(bytes, |_| true)
}

/// Like [`parse`], reading only the rows whose repo id `wanted` accepts; the others are
/// passed over before any allocation and are neither kept nor counted as skipped. The HF
/// leaderboard joins the catalog only through OpenRouter's `hugging_face_id`, exactly, so the
/// pipeline can pass that set and pay for a few dozen rows instead of thousands.
pub fn parse_only(
    bytes: &[u8],
    wanted: impl Fn(&str) -> bool,
) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let mut reader = table::reader(bytes);
    let headers = table::headers(SourceId::HfLeaderboard, &mut reader)?;
    let mut columns: Vec<(usize, Field)> = Vec::new();
    for (index, name) in headers.iter().enumerate() {
        if let Some(field) = field_of(name) {
            // The first column of a field wins (a later duplicate header is ignored).
            if !columns.iter().any(|(_, f)| *f == field) {
                columns.push((index, field));
            }
        }
    }
    let Some(key_column) = columns
        .iter()
        .find(|(_, f)| *f == Field::Key)
        .map(|(i, _)| *i)
    else {
        return Err(file_error(
            SourceId::HfLeaderboard,
            "no `fullname` or `model_name` column: not a leaderboard CSV",
        ));
    };
    let mut collector = Collector::default();
    table::for_each_row(&mut reader, |index, record| {
        let record = match record {
            Ok(record) => record,
            Err(e) => return collector.out.skip(format!("row {index}: {e}")),
        };
        if table::text(record, Some(key_column)).is_some_and(|id| !wanted(id)) {
            return;
        }
        let mut row = Row::default();
        for &(column, field) in &columns {
            let cell = Some(column);
            match field {
                Field::Key => row.key = table::text(record, cell).map(str::to_owned),
                Field::Metric(i) => row.metrics[i] = table::number(record, cell),
                Field::Params => row.params_b = table::number(record, cell),
                Field::Upload => row.upload_date = table::text(record, cell).and_then(iso_date),
                Field::Flagged => {
                    row.flagged = table::text(record, cell)
                        .and_then(super::lenient::parse_bool)
                        .unwrap_or(false);
                }
            }
        }
        collector.add(index, row);
    });
    Ok(collector.out)
}

/// Joins parsed parts (rows-API pages, or several files) into one list with the same rule as
/// a single file: one record per repo, the highest average winning. Skip counts add up.
pub fn merge(parts: impl IntoIterator<Item = Parsed<BenchmarkRecord>>) -> Parsed<BenchmarkRecord> {
    let mut collector = Collector::default();
    for part in parts {
        collector.out.skipped += part.skipped;
        for reason in part.errors {
            if collector.out.errors.len() < Parsed::<BenchmarkRecord>::MAX_ERRORS {
                collector.out.errors.push(reason);
            }
        }
        for record in part.items {
            collector.keep_best(record);
        }
    }
    collector.out
}

/// Accumulates records, one per repo id.
struct Collector {
    out: Parsed<BenchmarkRecord>,
    by_key: HashMap<String, usize>,
}

impl Default for Collector {
    fn default() -> Self {
        Collector {
            out: crate::catalog::sources::empty(),
            by_key: HashMap::new(),
        }
    }
}

impl Collector {
    fn add(&mut self, index: usize, row: Row) {
        let Some(key) = row.key else {
            self.out.skip(format!("row {index}: no repo id"));
            return;
        };
        if row.flagged {
            self.out
                .skip(format!("row {index}: {key} is flagged by the leaderboard"));
            return;
        }
        let metrics: BTreeMap<String, f64> = METRIC_COLUMNS
            .iter()
            .zip(row.metrics)
            .filter_map(|((metric, _), value)| Some(((*metric).to_owned(), value?)))
            .collect();
        if metrics.is_empty() {
            self.out.skip(format!("row {index}: {key} has no scores"));
            return;
        }
        let mut facts = BTreeMap::new();
        if let Some(params) = row.params_b.filter(|p| *p > 0.0) {
            facts.insert(FACT_PARAMS_B.to_owned(), params);
        }
        self.keep_best(BenchmarkRecord {
            source: SourceId::HfLeaderboard,
            creator: key
                .split_once('/')
                .map(|(org, _)| org.to_owned())
                .filter(|o| !o.is_empty()),
            key,
            display_name: None,
            release_date: row.upload_date,
            metrics,
            facts,
        });
    }

    fn keep_best(&mut self, record: BenchmarkRecord) {
        let average = |r: &BenchmarkRecord| r.metrics.get("hf.average").copied();
        match self.by_key.get(&record.key) {
            Some(&at) => {
                if average(&record) > average(&self.out.items[at]) {
                    self.out.items[at] = record;
                }
            }
            None => {
                self.by_key.insert(record.key.clone(), self.out.items.len());
                self.out.items.push(record);
            }
        }
    }
}
