//! LMArena (Chatbot Arena) text leaderboard.
//!
//! - arena-catalog JSON `{<category>: {<model key>: {rating, rating_q975, rating_q025}}}`: one
//!   record per model key, one metric per category kept (the table below; `full` is
//!   `lmarena.overall`). Other categories are skipped unread. An entry without a numeric
//!   `rating` is skipped and counted (per category entry).
//! - fboulnois CSV (`rank, rank_stylectrl, model, arena_score, 95_pct_ci, votes,
//!   organization, …`): `lmarena.overall` from `arena_score`, key and display name = `model`,
//!   creator = `organization`, fact `votes`.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::lenient::Scalar;
use super::{file_error, json_error, table};
use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};

/// Arena category key → metric id: overall and the task categories that can feed category
/// scores. Skipped unread, because every category read costs parse time (≈0.2 ms each) and
/// none of them feeds a score yet: the other languages, `english` and `hard_english_6`
/// (near-duplicates of overall and hard prompts for English-only routing), the eight
/// `industry_*` boards, and `no_refusal`/`no_short`/`no_tie` (methodology variants of overall).
pub const CATEGORIES: &[(&str, &str)] = &[
    ("full", "lmarena.overall"),
    ("coding", "lmarena.coding"),
    ("math", "lmarena.math"),
    ("creative_writing", "lmarena.creative_writing"),
    ("if", "lmarena.instruction_following"),
    ("hard_6", "lmarena.hard_prompts"),
    ("expert", "lmarena.expert"),
    ("multiturn", "lmarena.multiturn"),
    ("long_user", "lmarena.long_query"),
    ("chinese", "lmarena.chinese"),
];

/// Fact name: votes behind the overall rating (CSV only).
pub const FACT_VOTES: &str = "votes";

/// Parses either format, told apart by the first non-blank byte (`{` = JSON).
pub fn parse(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let first = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .map_or(first, |rest| rest.iter().find(|b| !b.is_ascii_whitespace()));
    match first {
        Some(b'{') | Some(b'[') => parse_json(bytes),
        _ => parse_csv(bytes),
    }
}

/// Parses the arena-catalog JSON. Errors when the bytes are not JSON or the top level is not
/// an object of categories; records are sorted by key.
pub fn parse_json(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let mut state = Boards {
        records: BTreeMap::new(),
        out: super::empty(),
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    (&mut state)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end())
        .map_err(|e| json_error(SourceId::LmArena, &e))?;
    let Boards { records, mut out } = state;
    out.items = records.into_values().collect();
    Ok(out)
}

/// Accumulates the per-category ratings into one record per model key.
struct Boards {
    records: BTreeMap<String, BenchmarkRecord>,
    out: Parsed<BenchmarkRecord>,
}

impl Boards {
    fn insert(&mut self, metric: &str, key: &str, rating: f64) {
        let record = match self.records.get_mut(key) {
            Some(record) => record,
            None => self
                .records
                .entry(key.to_owned())
                .or_insert_with(|| BenchmarkRecord {
                    source: SourceId::LmArena,
                    key: key.to_owned(),
                    display_name: None,
                    creator: None,
                    release_date: None,
                    metrics: BTreeMap::new(),
                    facts: BTreeMap::new(),
                }),
        };
        record.metrics.insert(metric.to_owned(), rating);
    }
}

impl<'de> DeserializeSeed<'de> for &mut Boards {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Boards {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of categories {category: {model: {rating}}}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(category) = map.next_key::<Scalar<'de>>()? {
            let known = match &category {
                Scalar::Text(name) => CATEGORIES.iter().find(|(c, _)| c == name),
                _ => None,
            };
            match known {
                Some(&(name, metric)) => map.next_value_seed(Board {
                    boards: self,
                    name,
                    metric,
                })?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One category's `{model: {rating, …}}` object.
struct Board<'b> {
    boards: &'b mut Boards,
    name: &'static str,
    metric: &'static str,
}

impl<'de> DeserializeSeed<'de> for Board<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Board<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of model ratings")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(model) = map.next_key::<Scalar<'de>>()? {
            let rating = map.next_value::<Rating>()?.0;
            let model = match &model {
                Scalar::Text(text) => Some(text.trim()).filter(|t| !t.is_empty()),
                _ => None,
            };
            match (model, rating) {
                (Some(model), Some(rating)) => self.boards.insert(self.metric, model, rating),
                (Some(model), None) => {
                    self.boards
                        .out
                        .skip(format!("{}/{model}: no numeric rating", self.name));
                }
                (None, _) => self
                    .boards
                    .out
                    .skip(format!("{}: empty model key", self.name)),
            }
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.skip_board();
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.skip_board();
        Ok(())
    }
}

impl Board<'_> {
    fn skip_board(self) {
        self.boards
            .out
            .skip(format!("category {}: not an object of ratings", self.name));
    }
}

/// An entry's `rating`; `None` when the entry is not an object or has no finite rating.
/// Other fields (the confidence bounds) are skipped unread.
struct Rating(Option<f64>);

impl<'de> serde::Deserialize<'de> for Rating {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Rating(deserializer.deserialize_any(RatingVisitor)?))
    }
}

struct RatingVisitor;

impl<'de> Visitor<'de> for RatingVisitor {
    type Value = Option<f64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a rating object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<f64>, A::Error> {
        let mut rating = None;
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            if matches!(&key, Scalar::Text(k) if k == "rating") {
                rating = map.next_value::<Scalar<'de>>()?.as_f64();
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(rating)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Option<f64>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<f64>, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<f64>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<f64>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<f64>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<f64>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<f64>, E> {
        Ok(None)
    }
}

/// Parses the fboulnois CSV. Errors when the file has no header with `model` and
/// `arena_score`; rows without a model name or a numeric score are skipped, as are repeated
/// model names (the first row wins).
pub fn parse_csv(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let mut reader = table::reader(bytes);
    let headers = table::headers(SourceId::LmArena, &mut reader)?;
    let model = table::find(&headers, &["model"]);
    let score = table::find(&headers, &["arenascore", "rating", "score"]);
    if model.is_none() || score.is_none() {
        return Err(file_error(
            SourceId::LmArena,
            "no `model` and `arena_score` columns",
        ));
    }
    let organization = table::find(&headers, &["organization", "organisation"]);
    let votes = table::find(&headers, &["votes"]);
    let mut out = super::empty();
    let mut seen = HashSet::new();
    table::for_each_row(&mut reader, |index, record| {
        let record = match record {
            Ok(record) => record,
            Err(e) => return out.skip(format!("row {index}: {e}")),
        };
        let Some(name) = table::text(record, model) else {
            out.skip(format!("row {index}: no model name"));
            return;
        };
        let Some(rating) = table::number(record, score) else {
            out.skip(format!("row {index}: {name} has no numeric arena_score"));
            return;
        };
        if !seen.insert(name.to_owned()) {
            out.skip(format!("row {index}: duplicate model {name:?}"));
            return;
        }
        let mut facts = BTreeMap::new();
        if let Some(votes) = table::number(record, votes).filter(|v| *v >= 0.0) {
            facts.insert(FACT_VOTES.to_owned(), votes);
        }
        out.items.push(BenchmarkRecord {
            source: SourceId::LmArena,
            key: name.to_owned(),
            display_name: Some(name.to_owned()),
            creator: table::text(record, organization).map(str::to_owned),
            release_date: None,
            metrics: BTreeMap::from([("lmarena.overall".to_owned(), rating)]),
            facts,
        });
    });
    Ok(out)
}
