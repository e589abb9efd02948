//! The HF datasets-server rows API for `open-llm-leaderboard/contents`:
//! `GET /rows?dataset=…&config=default&split=train&offset=O&length=L` answers
//! `{features:[…], rows:[{row_idx, row:{<native columns>}, truncated_cells:[]}],
//! num_rows_total, num_rows_per_page, partial}`. Each page parses to the same records as the
//! CSV; [`super::merge`] joins pages; [`page_offsets`] plans the requests.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::{field_of, Collector, Field, Row};
use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};
use crate::catalog::sources::lenient::{self, Obj, Scalar};
use crate::catalog::sources::{file_error, iso_date, json_error, table};

/// The datasets-server refuses pages longer than this.
pub const MAX_PAGE_SIZE: u32 = 100;

/// Row counts above this are treated as this (the leaderboard has under 5,000 rows; a wild
/// `num_rows_total` must not plan millions of requests).
pub const MAX_ROWS: u64 = 100_000;

/// One parsed rows-API page.
#[derive(Debug, Clone, PartialEq)]
pub struct RowsPage {
    pub records: Parsed<BenchmarkRecord>,
    /// `num_rows_total` of the whole split, when the page states it.
    pub num_rows_total: Option<u64>,
}

/// Parses one rows-API page. Errors when the bytes are not JSON or hold no `rows` list (an
/// API error body `{error: "…"}` is reported with its message).
pub fn parse_page(bytes: &[u8]) -> Result<RowsPage, SourceError> {
    match serde_json::from_slice::<Page>(bytes) {
        Ok(Page {
            rows: Some(rows),
            num_rows_total,
            ..
        }) => {
            let mut collector = Collector::default();
            for (index, wrapper) in rows.into_iter().enumerate() {
                add(
                    &mut collector,
                    index,
                    wrapper.0.and_then(|w| w.row.0).map(|r| r.0),
                );
            }
            Ok(RowsPage {
                records: collector.out,
                num_rows_total,
            })
        }
        Ok(Page {
            rows: None, error, ..
        }) => Err(no_rows(error)),
        Err(e) if e.classify() == serde_json::error::Category::Data => parse_value(bytes),
        Err(e) => Err(json_error(SourceId::HfLeaderboard, &e)),
    }
}

/// Offsets of the pages to request for a split of `num_rows_total` rows, `page_size` rows
/// per page (pass at most [`MAX_PAGE_SIZE`]): `0, page_size, 2·page_size, …` below the total,
/// which is capped at [`MAX_ROWS`]. Empty when either is zero.
pub fn page_offsets(num_rows_total: u64, page_size: u32) -> Vec<u64> {
    if page_size == 0 {
        return Vec::new();
    }
    (0..num_rows_total.min(MAX_ROWS))
        .step_by(page_size as usize)
        .collect()
}

fn add(collector: &mut Collector, index: usize, row: Option<Row>) {
    match row {
        Some(row) => collector.add(index, row),
        None => collector.out.skip(format!("row {index}: no `row` object")),
    }
}

fn parse_value(bytes: &[u8]) -> Result<RowsPage, SourceError> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| json_error(SourceId::HfLeaderboard, &e))?;
    let Some(Value::Array(rows)) = doc.get("rows") else {
        return Err(no_rows(
            doc.get("error").and_then(Value::as_str).map(str::to_owned),
        ));
    };
    let mut collector = Collector::default();
    for (index, wrapper) in rows.iter().enumerate() {
        match wrapper.get("row").map(Obj::<JsonRow>::deserialize) {
            Some(Ok(row)) => add(&mut collector, index, row.0.map(|r| r.0)),
            Some(Err(e)) => collector.out.skip(format!("row {index}: {e}")),
            None => add(&mut collector, index, None),
        }
    }
    let num_rows_total = doc.get("num_rows_total").and_then(Value::as_u64);
    Ok(RowsPage {
        records: collector.out,
        num_rows_total,
    })
}

fn no_rows(error: Option<String>) -> SourceError {
    let detail = error.map(|e| format!(": {e}")).unwrap_or_default();
    file_error(
        SourceId::HfLeaderboard,
        format!("expected a rows page {{rows:[…]}}{detail}"),
    )
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    rows: Option<Vec<Obj<Wrapper>>>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    num_rows_total: Option<u64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Wrapper {
    #[serde(default)]
    row: Obj<JsonRow>,
}

/// A row object read column by column through the same name table as the CSV headers.
struct JsonRow(Row);

impl<'de> Deserialize<'de> for JsonRow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(JsonRowVisitor)
    }
}

struct JsonRowVisitor;

impl<'de> Visitor<'de> for JsonRowVisitor {
    type Value = JsonRow;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a leaderboard row object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut row = Row::default();
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            let field = match &key {
                Scalar::Text(name) => field_of(&table::normalize(name.as_bytes())),
                _ => None,
            };
            let Some(field) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let value = map.next_value::<Scalar<'de>>()?;
            match field {
                Field::Key => row.key = value.into_text().map(|t| t.into_owned()),
                Field::Metric(i) => row.metrics[i] = value.as_f64(),
                Field::Params => row.params_b = value.as_f64(),
                Field::Upload => row.upload_date = value.into_text().and_then(|t| iso_date(&t)),
                Field::Flagged => row.flagged = value.as_bool().unwrap_or(false),
            }
        }
        Ok(JsonRow(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_cover_the_split_in_pages() {
        assert_eq!(page_offsets(250, 100), vec![0, 100, 200]);
        assert_eq!(page_offsets(200, 100), vec![0, 100]);
        assert_eq!(page_offsets(1, 100), vec![0]);
        assert!(page_offsets(0, 100).is_empty());
        assert!(page_offsets(500, 0).is_empty());
        assert_eq!(page_offsets(u64::MAX, 100).len() as u64, MAX_ROWS / 100);
    }
}
