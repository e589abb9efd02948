use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::livebench;

use super::{assert_close, assert_registered, fixture, keys, metric, record};

const TABLE: &str = "table_2026_01_08.csv";
const CATEGORIES: &str = "categories_2026_01_08.json";

/// The category means computed the plain way: split the fixture CSV and average by hand.
fn expected_means(model: &str) -> Vec<(&'static str, f64)> {
    let table = String::from_utf8(fixture(SourceId::LiveBench, TABLE)).expect("utf-8");
    let cats: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&fixture(SourceId::LiveBench, CATEGORIES)).expect("json");
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let row: Vec<&str> = lines
        .find(|l| l.split(',').next() == Some(model))
        .expect("row")
        .split(',')
        .collect();
    let ids = [
        ("Reasoning", "livebench.reasoning"),
        ("Coding", "livebench.coding"),
        ("Agentic Coding", "livebench.agentic_coding"),
        ("Mathematics", "livebench.mathematics"),
        ("Data Analysis", "livebench.data_analysis"),
        ("Language", "livebench.language"),
        ("IF", "livebench.instruction_following"),
    ];
    ids.iter()
        .filter_map(|(name, id)| {
            let values: Vec<f64> = cats[*name]
                .as_array()
                .expect("list")
                .iter()
                .filter_map(|t| header.iter().position(|h| Some(*h) == t.as_str()))
                .filter_map(|i| row[i].parse::<f64>().ok())
                .collect();
            (!values.is_empty()).then(|| (*id, values.iter().sum::<f64>() / values.len() as f64))
        })
        .collect()
}

#[test]
fn category_means_and_global_average_follow_the_site() {
    let parsed = livebench::parse(
        &fixture(SourceId::LiveBench, TABLE),
        Some(&fixture(SourceId::LiveBench, CATEGORIES)),
    )
    .expect("table parses");
    assert_registered(SourceId::LiveBench, &parsed);
    assert_eq!(
        keys(&parsed),
        vec![
            "rocket-2.5-thinking-high-effort",
            "rocket-2.5",
            "llama-3.3-70b-instruct",
            "qwen2.5-72b-instruct",
            "pebble-1"
        ]
    );
    for key in keys(&parsed) {
        let r = record(&parsed, key);
        let expected = expected_means(key);
        assert_eq!(
            r.metrics.len(),
            expected.len() + 1,
            "{key}: {:?}",
            r.metrics
        );
        for (id, mean) in &expected {
            assert_close(metric(r, id), *mean);
        }
        let global = expected.iter().map(|(_, m)| m).sum::<f64>() / expected.len() as f64;
        assert_close(metric(r, "livebench.global_average"), global);
    }
}

#[test]
fn non_numeric_cells_are_skipped_and_empty_categories_absent() {
    let parsed = livebench::parse(
        &fixture(SourceId::LiveBench, TABLE),
        Some(&fixture(SourceId::LiveBench, CATEGORIES)),
    )
    .expect("table parses");
    let pebble = record(&parsed, "pebble-1");
    // javascript, python and typescript are all blank or "n/a": no agentic coding score.
    assert_eq!(metric(pebble, "livebench.agentic_coding"), None);
    assert!(
        metric(pebble, "livebench.coding").is_some(),
        "code_completion is still there"
    );
    // Row without a model, row without any number, and the repeated rocket-2.5.
    assert_eq!(parsed.skipped, 3, "{:?}", parsed.errors);
    assert!(
        metric(record(&parsed, "rocket-2.5"), "livebench.coding").expect("coding") > 1.0,
        "first row wins"
    );
}

#[test]
fn builtin_mapping_matches_the_categories_file() {
    let table = fixture(SourceId::LiveBench, TABLE);
    let with_file = livebench::parse(&table, Some(&fixture(SourceId::LiveBench, CATEGORIES)))
        .expect("with categories");
    let builtin = livebench::parse(&table, None).expect("built-in mapping");
    assert_eq!(with_file, builtin);
    let newer = livebench::parse(&fixture(SourceId::LiveBench, "table_2026_06_25.csv"), None)
        .expect("CRLF table parses");
    assert_eq!(
        keys(&newer),
        vec!["rocket-3-xhigh-effort", "rocket-2.5-thinking-high-effort"]
    );
    assert!(newer.items.iter().all(|r| r.metrics.len() == 8));
}

#[test]
fn newest_release_is_picked_with_its_categories_file() {
    let names = [
        "livebench/table_2025_11_25.csv",
        "livebench/categories_2025_11_25.json",
        "livebench/table_2026_01_08.csv",
        "livebench/categories_2026_01_08.json",
        "livebench/SOURCE.md",
    ];
    let release = livebench::pick_release(&names).expect("a table");
    assert_eq!(release.table, "livebench/table_2026_01_08.csv");
    assert_eq!(
        release.categories.as_deref(),
        Some("livebench/categories_2026_01_08.json")
    );
    assert_eq!(release.date.iso(), "2026-01-08");

    let newer = [&names[..], &["table_2026_06_25.csv"]].concat();
    let release = livebench::pick_release(&newer).expect("a table");
    assert_eq!(release.table, "table_2026_06_25.csv");
    assert_eq!(
        release.categories.as_deref(),
        Some("livebench/categories_2026_01_08.json"),
        "newest older one"
    );

    let only_future_categories = ["table_2025_01_01.csv", "categories_2026_01_08.json"];
    assert_eq!(
        livebench::pick_release(&only_future_categories)
            .expect("a table")
            .categories,
        None
    );
    assert_eq!(
        livebench::pick_release(&["categories_2026_01_08.json", "table.csv"]),
        None
    );
}

#[test]
fn unreadable_tables_and_categories_are_errors() {
    let table = fixture(SourceId::LiveBench, TABLE);
    assert!(livebench::parse(b"", None).is_err());
    assert!(
        livebench::parse(b"name,AMPS_Hard\nx,1\n", None).is_err(),
        "no model column"
    );
    assert!(
        livebench::parse(b"model,unknown_task\nx,1\n", None).is_err(),
        "no known task"
    );
    for bad in [
        &b"[]"[..],
        b"{\"Cooking\": [\"AMPS_Hard\"]}",
        b"{",
        b"not json",
    ] {
        assert!(
            livebench::parse(&table, Some(bad)).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
    let truncated = livebench::parse(&table[..table.len() / 2], None).expect("header survives");
    assert!(truncated.items.len() < 5);
}
