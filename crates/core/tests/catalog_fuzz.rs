//! Property tests: no source parser panics on any input — arbitrary bytes, JSON built from the
//! sources' own field names in arbitrary shapes and types, CSV with the real column names and
//! hostile cells, and truncated or bit-flipped copies of the fixtures. Whatever a parser
//! returns must also be well-formed (registered, finite metrics; bounded error lists).

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use switchyard_core::catalog::metrics;
use switchyard_core::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};
use switchyard_core::catalog::sources::hf_leaderboard::{self as hf, rows};
use switchyard_core::catalog::sources::{
    artificial_analysis, detect, livebench, lmarena, openrouter, parse_file, SourceFile,
};

/// Field and column names the parsers look for, so generated input reaches deep code paths.
const NAMES: &[&str] = &[
    "data",
    "body",
    "fetched_at",
    "id",
    "name",
    "canonical_slug",
    "hugging_face_id",
    "created",
    "description",
    "context_length",
    "architecture",
    "input_modalities",
    "output_modalities",
    "pricing",
    "prompt",
    "completion",
    "top_provider",
    "max_completion_tokens",
    "supported_parameters",
    "reasoning",
    "supported_efforts",
    "alias_target",
    "slug",
    "status",
    "release_date",
    "model_creator",
    "evaluations",
    "gpqa",
    "mmlu_pro",
    "artificial_analysis_intelligence_index",
    "price_1m_input_tokens",
    "price_1m_blended_3_to_1",
    "median_output_tokens_per_second",
    "median_time_to_first_token_seconds",
    "performance",
    "rows",
    "row",
    "num_rows_total",
    "fullname",
    "model_name",
    "Average ⬆️",
    "IFEval",
    "MATH Lvl 5",
    "Flagged",
    "#Params (B)",
    "Upload To Hub Date",
    "full",
    "coding",
    "if",
    "hard_6",
    "rating",
    "rating_q975",
    "error",
    "model",
    "arena_score",
    "votes",
    "organization",
    "AMPS_Hard",
    "python",
    "zebra_puzzle",
    "Reasoning",
    "Coding",
    "IF",
];

/// Strings that are numbers, near-numbers, ids and dates in the sources' spellings.
const TEXTS: &[&str] = &[
    "",
    " ",
    "-1",
    "0",
    "0.000003",
    "1e400",
    "-0",
    "NaN",
    "inf",
    "12abc",
    "True",
    "FALSE",
    "a/b:free",
    "~a/b-latest",
    ":",
    "~",
    "x/y",
    "2026-08-22",
    "2026-13-45",
    "2026-08-22T01:02:03Z",
    "\u{feff}",
    "é",
    "💬 chat",
    "\"quoted\"",
    "line\nbreak",
    "\r\n\r\n",
    "a,b",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(TEXTS).prop_map(str::to_owned),
        prop::sample::select(NAMES).prop_map(str::to_owned),
        ".{0,12}",
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        (-2.0..2000.0f64).prop_map(|f| json!(f)),
    ]
}

fn value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

/// A value in one of the sources' top-level shapes.
fn document() -> impl Strategy<Value = Value> {
    let records = prop::collection::vec(value(), 0..6).boxed();
    prop_oneof![
        value(),
        records.clone().prop_map(|r| json!({ "data": r })),
        records
            .clone()
            .prop_map(|r| json!({ "fetched_at": "2026-01-01", "body": { "data": r } })),
        records
            .clone()
            .prop_map(|r| json!({ "status": 200, "data": r, "pagination": {} })),
        records.clone().prop_map(|r| {
            let rows: Vec<Value> = r
                .into_iter()
                .map(|row| json!({ "row_idx": 0, "row": row }))
                .collect();
            json!({ "rows": rows, "num_rows_total": 3 })
        }),
        (
            prop::sample::select(&["full", "coding", "if", "no_tie"][..]),
            prop::collection::vec((text(), value()), 0..6)
        )
            .prop_map(|(category, entries)| {
                let board: Map<String, Value> = entries.into_iter().collect();
                json!({ category: board })
            }),
    ]
}

fn csv_cell() -> impl Strategy<Value = String> {
    prop_oneof![
        text(),
        number().prop_map(|n| n.to_string()),
        text().prop_map(|t| format!("\"{}\"", t.replace('"', "\"\""))),
        Just("\"unterminated".to_owned()),
    ]
}

/// CSV text with real column names mixed with others and ragged, hostile rows.
fn csv_text() -> impl Strategy<Value = String> {
    let header = prop::collection::vec(
        prop_oneof![
            prop::sample::select(NAMES).prop_map(str::to_owned),
            csv_cell()
        ],
        0..10,
    );
    let rows = prop::collection::vec(prop::collection::vec(csv_cell(), 0..12), 0..8);
    (header, rows, prop::bool::ANY).prop_map(|(header, rows, crlf)| {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut out = header.join(",");
        for row in rows {
            out.push_str(eol);
            out.push_str(&row.join(","));
        }
        out
    })
}

/// Records are well-formed whatever the input was.
fn check_records(source: SourceId, parsed: &Parsed<BenchmarkRecord>) {
    assert!(parsed.errors.len() <= Parsed::<BenchmarkRecord>::MAX_ERRORS);
    assert!(parsed.errors.len() as u32 <= parsed.skipped);
    for record in &parsed.items {
        assert_eq!(record.source, source);
        assert!(!record.key.is_empty());
        for (id, value) in &record.metrics {
            assert!(
                metrics::metric(id).is_some_and(|m| m.source == source),
                "{id}"
            );
            assert!(value.is_finite());
        }
        assert!(record.facts.values().all(|v| v.is_finite()));
    }
}

fn check(source: SourceId, result: Result<Parsed<BenchmarkRecord>, SourceError>) {
    match result {
        Ok(parsed) => check_records(source, &parsed),
        Err(e) => assert_eq!(e.source_id, source),
    }
}

/// Runs every parser on `bytes`.
fn parse_everything(bytes: &[u8]) {
    if let Ok(snapshot) = openrouter::parse_snapshot(bytes) {
        let models = &snapshot.models;
        assert!(models.errors.len() as u32 <= models.skipped);
        for m in &models.items {
            assert!(!m.id.is_empty() && !m.base_id.is_empty());
            for price in [m.prompt_per_m, m.completion_per_m].into_iter().flatten() {
                assert!(price.is_finite() && price >= 0.0, "{price}");
            }
            if let Some(d) = &m.description {
                assert!(d.chars().count() <= openrouter::DESCRIPTION_MAX_CHARS + 1);
            }
        }
    }
    let _ = openrouter::snapshot_date(bytes);
    check(
        SourceId::ArtificialAnalysis,
        artificial_analysis::parse(bytes),
    );
    check(SourceId::HfLeaderboard, hf::parse(bytes));
    check(
        SourceId::HfLeaderboard,
        hf::parse_only(bytes, |id| id.len() % 2 == 0),
    );
    check(
        SourceId::HfLeaderboard,
        rows::parse_page(bytes).map(|p| p.records),
    );
    check(SourceId::LmArena, lmarena::parse(bytes));
    check(SourceId::LmArena, lmarena::parse_json(bytes));
    check(SourceId::LmArena, lmarena::parse_csv(bytes));
    check(SourceId::LiveBench, livebench::parse(bytes, None));
    check(SourceId::LiveBench, livebench::parse(bytes, Some(bytes)));
    let _ = livebench::parse_categories(bytes);
    for source in SourceId::ALL {
        for name in ["x.json", "x.csv"] {
            match parse_file(source, name, bytes, Some(bytes)) {
                Ok(SourceFile::Benchmarks(parsed)) => check_records(source, &parsed),
                Ok(SourceFile::OpenRouter(_)) => assert_eq!(source, SourceId::OpenRouter),
                Err(e) => assert_eq!(e.source_id, source),
            }
        }
    }
}

fn fixtures() -> &'static [Vec<u8>] {
    static FIXTURES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    FIXTURES.get_or_init(read_fixtures)
}

fn read_fixtures() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalog");
    let mut out = Vec::new();
    for source in SourceId::ALL {
        let dir = root.join(source.folder());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if let Ok(bytes) = std::fs::read(entry.path()) {
                out.push(bytes);
            }
        }
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        parse_everything(&bytes);
    }

    #[test]
    fn json_in_the_sources_shapes_never_panics(doc in document()) {
        parse_everything(doc.to_string().as_bytes());
    }

    #[test]
    fn csv_with_real_columns_never_panics(table in csv_text(), categories in document()) {
        parse_everything(table.as_bytes());
        let categories = categories.to_string();
        check(SourceId::LiveBench, livebench::parse(table.as_bytes(), Some(categories.as_bytes())));
    }

    #[test]
    fn truncated_and_corrupted_fixtures_never_panic(
        pick in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
    ) {
        let all = fixtures();
        prop_assume!(!all.is_empty());
        let mut bytes = pick.get(all).clone();
        bytes.truncate(cut.index(bytes.len() + 1));
        for (at, byte) in flips {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
        }
        parse_everything(&bytes);
    }

    #[test]
    fn helpers_never_panic(name in ".{0,40}", total in any::<u64>(), size in any::<u32>()) {
        let _ = detect::date_in_name(&name);
        for source in SourceId::ALL {
            let _ = detect::accepts(source, &name);
            let _ = detect::newest(source, &[name.as_str(), "table_2026_01_08.csv"]);
        }
        let _ = livebench::pick_release(&[name.as_str()]);
        let _ = openrouter::first_paragraph(&name);
        let _ = openrouter::split_variant(&name, Some(&name));
        if let Some(price) = openrouter::per_token_text_to_per_million(&name) {
            prop_assert!(price.is_finite() && price >= 0.0);
        }
        let offsets = rows::page_offsets(total, size);
        prop_assert!(offsets.len() as u64 <= rows::MAX_ROWS);
        prop_assert!(offsets.windows(2).all(|w| w[0] < w[1]));
    }
}
