use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::lmarena;

use super::{assert_close, assert_registered, fixture, keys, metric, record};

const JSON: &str = "arena-catalog_leaderboard-text-style-control_2026-02-20.json";
const CSV: &str = "fboulnois_lmarena_text_2025-11-04.csv";

#[test]
fn catalog_json_gives_one_record_per_model_with_category_metrics() {
    let parsed = lmarena::parse_json(&fixture(SourceId::LmArena, JSON)).expect("JSON parses");
    assert_registered(SourceId::LmArena, &parsed);
    assert_eq!(
        keys(&parsed),
        vec![
            "coder-only-preview",
            "llama-3.3-70b-instruct",
            "qwen2.5-72b-instruct",
            "rocket-2.5-thinking"
        ]
    );
    let rocket = record(&parsed, "rocket-2.5-thinking");
    assert_close(metric(rocket, "lmarena.overall"), 1471.92);
    assert_close(metric(rocket, "lmarena.coding"), 1502.7);
    assert_close(metric(rocket, "lmarena.instruction_following"), 1440.25);
    assert_close(metric(rocket, "lmarena.hard_prompts"), 1488.0);
    assert_close(metric(rocket, "lmarena.chinese"), 1455.31);
    assert_eq!(
        rocket.metrics.len(),
        5,
        "industry_*, no_tie and unknown categories are left out: {:?}",
        rocket.metrics
    );
    let coder = record(&parsed, "coder-only-preview");
    assert_eq!(metric(coder, "lmarena.overall"), None);
    assert_close(metric(coder, "lmarena.coding"), 1390.0);
}

#[test]
fn entries_without_a_numeric_rating_are_skipped_and_counted() {
    let parsed = lmarena::parse_json(&fixture(SourceId::LmArena, JSON)).expect("JSON parses");
    assert_eq!(parsed.skipped, 2, "{:?}", parsed.errors);
    assert!(parsed.errors.iter().any(|e| e.contains("broken-entry")));
    assert!(!keys(&parsed).contains(&"no-rating"));
}

#[test]
fn odd_categories_and_entries_do_not_stop_the_file() {
    let doc = br#"{"full": {"a": {"rating": 1300}, "b": [1], "c": {"rating": 1200.5, "rating": 1201.5}, "": {"rating": 1}},
                   "coding": [], "math": 5, "if": null, "expert": {"a": {"rating": "1290"}}}"#;
    let parsed = lmarena::parse_json(doc).expect("parses");
    assert_eq!(keys(&parsed), vec!["a", "c"]);
    assert_close(metric(record(&parsed, "c"), "lmarena.overall"), 1201.5);
    assert_close(metric(record(&parsed, "a"), "lmarena.expert"), 1290.0);
    // b (not an object), "" (empty key), coding, math, if (not boards).
    assert_eq!(parsed.skipped, 5, "{:?}", parsed.errors);
}

#[test]
fn fboulnois_csv_gives_overall_creator_and_votes() {
    let parsed = lmarena::parse_csv(&fixture(SourceId::LmArena, CSV)).expect("CSV parses");
    assert_registered(SourceId::LmArena, &parsed);
    assert_eq!(
        keys(&parsed),
        vec![
            "Rocket-2.5-Thinking",
            "Llama-3.3-70B-Instruct",
            "Qwen2.5-72B-Instruct"
        ]
    );
    let llama = record(&parsed, "Llama-3.3-70B-Instruct");
    assert_close(metric(llama, "lmarena.overall"), 1317.0);
    assert_eq!(llama.creator.as_deref(), Some("Meta"));
    assert_eq!(
        llama.display_name.as_deref(),
        Some("Llama-3.3-70B-Instruct")
    );
    assert_close(llama.facts.get("votes").copied(), 41012.0);
    // "pending" score, empty model, repeated model.
    assert_eq!(parsed.skipped, 3, "{:?}", parsed.errors);
}

#[test]
fn parse_sniffs_the_format() {
    let json = fixture(SourceId::LmArena, JSON);
    let csv = fixture(SourceId::LmArena, CSV);
    assert_eq!(lmarena::parse(&json), lmarena::parse_json(&json));
    assert_eq!(lmarena::parse(&csv), lmarena::parse_csv(&csv));
}

#[test]
fn unreadable_files_are_whole_file_errors() {
    let json = fixture(SourceId::LmArena, JSON);
    for bad in [
        &b"[]"[..],
        b"{\"full\": {",
        b"{} trailing",
        &json[..json.len() - 3],
    ] {
        let err = lmarena::parse_json(bad).expect_err("must not parse");
        assert_eq!(err.source_id, SourceId::LmArena);
    }
    for bad in [&b""[..], b"rank,model,votes\n1,x,3\n"] {
        assert!(lmarena::parse_csv(bad).is_err());
    }
    assert!(lmarena::parse_json(b"{}")
        .expect("no categories is empty")
        .items
        .is_empty());
}
