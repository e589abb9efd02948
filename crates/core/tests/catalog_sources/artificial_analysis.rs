use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::artificial_analysis as aa;

use super::{assert_close, assert_registered, fixture, keys, metric, record};

fn parsed(
) -> switchyard_core::catalog::record::Parsed<switchyard_core::catalog::record::BenchmarkRecord> {
    aa::parse(&fixture(
        SourceId::ArtificialAnalysis,
        "aa_llms_models_2026-03-01.json",
    ))
    .expect("AA fixture parses")
}

#[test]
fn rows_become_records_keyed_by_slug() {
    let parsed = parsed();
    assert_eq!(
        keys(&parsed),
        vec![
            "rocket-2-5",
            "rocket-2-5-non-reasoning",
            "llama-3-3-instruct-70b",
            "pebble-1"
        ]
    );
    assert_eq!(parsed.skipped, 1, "the row with an empty slug");
    assert_registered(SourceId::ArtificialAnalysis, &parsed);
    let rocket = record(&parsed, "rocket-2-5");
    assert_eq!(rocket.display_name.as_deref(), Some("Rocket 2.5 (high)"));
    assert_eq!(rocket.creator.as_deref(), Some("Acme"));
    assert_eq!(rocket.release_date.as_deref(), Some("2026-03-01"));
}

#[test]
fn indices_are_0_to_100_and_evaluations_keep_their_fraction_scale() {
    let parsed = parsed();
    let rocket = record(&parsed, "rocket-2-5");
    assert_close(metric(rocket, "aa.intelligence_index"), 61.2);
    assert_close(metric(rocket, "aa.coding_index"), 58.0);
    assert_close(metric(rocket, "aa.math_index"), 90.3);
    assert_close(metric(rocket, "aa.gpqa"), 0.812);
    assert_close(metric(rocket, "aa.mmlu_pro"), 0.861);
    assert_close(metric(rocket, "aa.livecodebench"), 0.803);
    assert_close(metric(rocket, "aa.tau2"), 0.812865497076023);
    assert_eq!(metric(rocket, "aa.math_500"), None, "null is absent");
    assert_close(metric(rocket, "aa.terminalbench_hard"), 0.0);
}

#[test]
fn zero_speed_and_price_mean_not_measured() {
    let parsed = parsed();
    let rocket = record(&parsed, "rocket-2-5");
    assert_close(metric(rocket, "aa.output_speed"), 92.41);
    assert_close(metric(rocket, "aa.ttft"), 1.12);
    assert_close(metric(rocket, "aa.ttfa"), 21.7);
    assert_close(rocket.facts.get("price_input_per_m").copied(), 3.0);
    assert_close(rocket.facts.get("price_output_per_m").copied(), 15.0);
    assert_close(rocket.facts.get("price_blended_per_m").copied(), 6.0);

    let unmeasured = record(&parsed, "rocket-2-5-non-reasoning");
    for id in ["aa.output_speed", "aa.ttft", "aa.ttfa"] {
        assert_eq!(metric(unmeasured, id), None, "{id}");
    }
    assert!(unmeasured.facts.is_empty(), "{:?}", unmeasured.facts);
    assert_close(metric(unmeasured, "aa.lcr"), 0.0);
    assert_close(metric(unmeasured, "aa.intelligence_index"), 44.9);
}

#[test]
fn nested_performance_alias_names_and_new_evaluations_are_read() {
    let parsed = parsed();
    let llama = record(&parsed, "llama-3-3-instruct-70b");
    assert_close(metric(llama, "aa.output_speed"), 71.25);
    assert_close(metric(llama, "aa.ttft"), 0.51);
    assert_close(metric(llama, "aa.ttfa"), 0.51);
    assert_close(metric(llama, "aa.agentic_index"), 9.8);
    assert_close(metric(llama, "aa.math_500"), 0.773);
    assert!(
        llama.metrics.keys().all(|k| !k.contains("future")),
        "unknown evaluations are skipped"
    );
}

#[test]
fn wrong_types_inside_a_row_lose_only_that_value() {
    let parsed = parsed();
    let pebble = record(&parsed, "pebble-1");
    assert_eq!(
        pebble.creator, None,
        "model_creator as a string is not an object"
    );
    assert_eq!(pebble.release_date, None, "not a date");
    assert_eq!(metric(pebble, "aa.output_speed"), None);
    assert_close(metric(pebble, "aa.ttft"), 0.2);
    assert!(
        pebble.metrics.keys().all(|k| !k.ends_with("_index")),
        "evaluations: null"
    );
    assert_close(pebble.facts.get("price_blended_per_m").copied(), 0.05);
    assert_eq!(
        pebble.facts.get("price_input_per_m"),
        None,
        "negative price"
    );
    assert_close(pebble.facts.get("price_output_per_m").copied(), 0.1);
}

#[test]
fn odd_rows_are_skipped_and_counted_without_losing_the_rest() {
    let doc = br#"{"status": 200, "data": [
        {"slug": "ok-1", "evaluations": {"gpqa": 0.5}},
        [1, 2],
        null,
        {"name": "no slug"},
        {"slug": "ok-1", "name": "repeat"},
        {"slug": "dup-key", "slug": "dup-key-2", "evaluations": {"gpqa": 0.4, "gpqa": 0.45}}
    ]}"#;
    let parsed = aa::parse(doc).expect("parses");
    assert_eq!(keys(&parsed), vec!["ok-1", "dup-key-2"]);
    assert_eq!(parsed.skipped, 4, "{:?}", parsed.errors);
    assert_close(metric(record(&parsed, "dup-key-2"), "aa.gpqa"), 0.45);
}

#[test]
fn error_bodies_and_garbage_are_whole_file_errors() {
    let bytes = fixture(
        SourceId::ArtificialAnalysis,
        "aa_llms_models_2026-03-01.json",
    );
    let unauthorized =
        aa::parse(br#"{"status": 401, "message": "Invalid API key"}"#).expect_err("no data");
    assert!(
        unauthorized.message.contains("401"),
        "{}",
        unauthorized.message
    );
    for bad in [
        &b""[..],
        b"null",
        b"[{\"slug\":\"x\"}]",
        b"{\"data\": {}}",
        &bytes[..bytes.len() - 40],
    ] {
        let err = aa::parse(bad).expect_err("must not parse");
        assert_eq!(err.source_id, SourceId::ArtificialAnalysis);
    }
}
