//! Artificial Analysis API v2 `GET /data/llms/models`: `{status, data:[…]}`, one row per model
//! and reasoning mode/effort.
//!
//! Indices (0–100) and evaluations (0–1 fractions, kept as raw) become `aa.*` metrics. Speed
//! and latencies become metrics only when positive: AA writes `0` for "not measured". Prices
//! go to `facts` (`price_input_per_m`, `price_output_per_m`, `price_blended_per_m`), also only
//! when positive. Tolerated drift: speeds nested under `performance`, the alias
//! `median_time_to_first_answer_token_seconds`, extra top-level fields (`pagination`, `tier`,
//! `intelligence_index_version`), `evaluations.artificial_analysis_agentic_index`.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::lenient::{self, Obj, Scalar};
use super::{file_error, iso_date, json_error};
use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};

/// API evaluation key → metric id.
const EVALUATIONS: &[(&str, &str)] = &[
    (
        "artificial_analysis_intelligence_index",
        "aa.intelligence_index",
    ),
    ("artificial_analysis_coding_index", "aa.coding_index"),
    ("artificial_analysis_math_index", "aa.math_index"),
    ("artificial_analysis_agentic_index", "aa.agentic_index"),
    ("mmlu_pro", "aa.mmlu_pro"),
    ("gpqa", "aa.gpqa"),
    ("hle", "aa.hle"),
    ("livecodebench", "aa.livecodebench"),
    ("scicode", "aa.scicode"),
    ("math_500", "aa.math_500"),
    ("aime", "aa.aime"),
    ("aime_25", "aa.aime_25"),
    ("ifbench", "aa.ifbench"),
    ("lcr", "aa.lcr"),
    ("terminalbench_hard", "aa.terminalbench_hard"),
    ("terminalbench_v2_1", "aa.terminalbench_v2_1"),
    ("tau2", "aa.tau2"),
    ("tau_banking", "aa.tau_banking"),
];

/// Fact names written by this parser (USD per million tokens).
pub const FACT_PRICE_INPUT: &str = "price_input_per_m";
/// See [`FACT_PRICE_INPUT`].
pub const FACT_PRICE_OUTPUT: &str = "price_output_per_m";
/// Blended 3:1 input:output, as AA computes it.
pub const FACT_PRICE_BLENDED: &str = "price_blended_per_m";

/// Parses an AA models response. Errors only when the bytes are not JSON or hold no `data`
/// list; rows without a slug, not objects or repeating a slug are skipped and counted.
pub fn parse(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(Envelope {
            data: Some(rows), ..
        }) => {
            let mut out = super::empty();
            let mut seen = HashSet::with_capacity(rows.len());
            for (index, row) in rows.into_iter().enumerate() {
                convert(index, row.0, &mut seen, &mut out);
            }
            Ok(out)
        }
        Ok(Envelope { data: None, status }) => Err(no_data(status.as_ref())),
        Err(e) if e.classify() == serde_json::error::Category::Data => parse_value(bytes),
        Err(e) => Err(json_error(SourceId::ArtificialAnalysis, &e)),
    }
}

fn parse_value(bytes: &[u8]) -> Result<Parsed<BenchmarkRecord>, SourceError> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| json_error(SourceId::ArtificialAnalysis, &e))?;
    let Some(Value::Array(rows)) = doc.get("data") else {
        return Err(no_data(doc.get("status")));
    };
    let mut out = super::empty();
    let mut seen = HashSet::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        match Obj::<Row>::deserialize(row) {
            Ok(row) => convert(index, row.0, &mut seen, &mut out),
            Err(e) => out.skip(format!("row {index}: {e}")),
        }
    }
    Ok(out)
}

fn no_data(status: Option<&Value>) -> SourceError {
    let status = status.map(|s| format!(" (status {s})")).unwrap_or_default();
    file_error(
        SourceId::ArtificialAnalysis,
        format!("expected {{data:[…]}}{status}"),
    )
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    data: Option<Vec<Obj<Row>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Row {
    #[serde(deserialize_with = "lenient::opt_string")]
    slug: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    name: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    release_date: Option<String>,
    model_creator: Obj<Creator>,
    evaluations: Obj<Evaluations>,
    pricing: Obj<Pricing>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_output_tokens_per_second: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_token_seconds: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_answer_token: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_answer_token_seconds: Option<f64>,
    performance: Obj<Speed>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Creator {
    #[serde(deserialize_with = "lenient::opt_string")]
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Pricing {
    #[serde(deserialize_with = "lenient::opt_f64")]
    price_1m_blended_3_to_1: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    price_1m_input_tokens: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    price_1m_output_tokens: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Speed {
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_output_tokens_per_second: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_token_seconds: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_answer_token: Option<f64>,
    #[serde(deserialize_with = "lenient::opt_f64")]
    median_time_to_first_answer_token_seconds: Option<f64>,
}

/// The evaluations object reduced to known metrics; unknown keys are skipped unread.
#[derive(Default)]
struct Evaluations(Vec<(&'static str, f64)>);

impl<'de> Deserialize<'de> for Evaluations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EvaluationsVisitor)
    }
}

struct EvaluationsVisitor;

impl<'de> Visitor<'de> for EvaluationsVisitor {
    type Value = Evaluations;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an evaluations object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(EVALUATIONS.len());
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            let metric = match &key {
                Scalar::Text(k) => EVALUATIONS.iter().find(|(name, _)| name == k),
                _ => None,
            };
            match metric {
                Some((_, metric)) => {
                    if let Some(v) = map.next_value::<Scalar<'de>>()?.as_f64() {
                        out.retain(|(m, _)| m != metric);
                        out.push((*metric, v));
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Evaluations(out))
    }
}

fn positive(value: Option<f64>) -> Option<f64> {
    value.filter(|v| *v > 0.0)
}

fn convert(
    index: usize,
    row: Option<Row>,
    seen: &mut HashSet<String>,
    out: &mut Parsed<BenchmarkRecord>,
) {
    let Some(row) = row else {
        out.skip(format!("row {index}: not an object"));
        return;
    };
    let Some(slug) = row.slug else {
        out.skip(format!("row {index}: no slug"));
        return;
    };
    if !seen.insert(slug.clone()) {
        out.skip(format!("row {index}: duplicate slug {slug:?}"));
        return;
    }
    let mut metrics: BTreeMap<String, f64> = row
        .evaluations
        .0
        .map(|e| e.0.into_iter().map(|(m, v)| (m.to_owned(), v)).collect())
        .unwrap_or_default();
    let top = Speed {
        median_output_tokens_per_second: row.median_output_tokens_per_second,
        median_time_to_first_token_seconds: row.median_time_to_first_token_seconds,
        median_time_to_first_answer_token: row.median_time_to_first_answer_token,
        median_time_to_first_answer_token_seconds: row.median_time_to_first_answer_token_seconds,
    };
    let nested = row.performance.0.unwrap_or_default();
    let speed = [&top, &nested];
    let first = |pick: fn(&Speed) -> Option<f64>| speed.iter().find_map(|s| positive(pick(s)));
    let timings = [
        (
            "aa.output_speed",
            first(|s| s.median_output_tokens_per_second),
        ),
        ("aa.ttft", first(|s| s.median_time_to_first_token_seconds)),
        (
            "aa.ttfa",
            first(|s| {
                positive(s.median_time_to_first_answer_token)
                    .or(s.median_time_to_first_answer_token_seconds)
            }),
        ),
    ];
    for (metric, value) in timings {
        if let Some(value) = value {
            metrics.insert(metric.to_owned(), value);
        }
    }
    let mut facts = BTreeMap::new();
    if let Some(pricing) = row.pricing.0 {
        let prices = [
            (FACT_PRICE_INPUT, pricing.price_1m_input_tokens),
            (FACT_PRICE_OUTPUT, pricing.price_1m_output_tokens),
            (FACT_PRICE_BLENDED, pricing.price_1m_blended_3_to_1),
        ];
        for (fact, value) in prices {
            if let Some(value) = positive(value) {
                facts.insert(fact.to_owned(), value);
            }
        }
    }
    out.items.push(BenchmarkRecord {
        source: SourceId::ArtificialAnalysis,
        key: slug,
        display_name: row.name,
        creator: row.model_creator.0.and_then(|c| c.name),
        release_date: row.release_date.as_deref().and_then(iso_date),
        metrics,
        facts,
    });
}
