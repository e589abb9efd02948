use switchyard_core::catalog::record::{OpenRouterModel, SourceId};
use switchyard_core::catalog::sources::openrouter::{self, DESCRIPTION_MAX_CHARS};

use super::fixture;

fn live() -> Vec<u8> {
    fixture(SourceId::OpenRouter, "openrouter_models_live.json")
}

fn model<'a>(models: &'a [OpenRouterModel], id: &str) -> &'a OpenRouterModel {
    models
        .iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("no model {id}"))
}

#[test]
fn live_shape_reads_every_entry_with_prices_per_million() {
    let parsed = openrouter::parse(&live()).expect("live fixture parses");
    assert_eq!(parsed.items.len(), 7);
    assert_eq!(parsed.skipped, 0, "{:?}", parsed.errors);
    let rocket = model(&parsed.items, "acme/rocket-2.5");
    assert_eq!(rocket.base_id, "acme/rocket-2.5");
    assert_eq!(rocket.variant, None);
    assert_eq!(rocket.name, "Acme: Rocket 2.5");
    assert_eq!(
        rocket.canonical_slug.as_deref(),
        Some("acme/rocket-2.5-20260301")
    );
    assert_eq!(rocket.prompt_per_m, Some(3.0));
    assert_eq!(rocket.completion_per_m, Some(15.0));
    assert_eq!(rocket.created, Some(1_772_323_200));
    assert_eq!(rocket.context_length, Some(400_000));
    assert_eq!(rocket.max_completion_tokens, Some(128_000));
    assert_eq!(rocket.input_modalities, vec!["text", "image"]);
    assert_eq!(rocket.output_modalities, vec!["text"]);
    assert!(rocket.supported_parameters.iter().any(|p| p == "tools"));
    assert_eq!(rocket.reasoning_efforts, vec!["high", "medium", "low"]);
    let llama = model(&parsed.items, "meta-llama/llama-3.3-70b-instruct");
    assert_eq!(llama.prompt_per_m, Some(0.1));
    assert_eq!(llama.completion_per_m, Some(0.32));
}

#[test]
fn dynamic_prices_are_unknown_and_free_is_zero() {
    let parsed = openrouter::parse(&live()).expect("live fixture parses");
    let auto = model(&parsed.items, "openrouter/auto");
    assert_eq!((auto.prompt_per_m, auto.completion_per_m), (None, None));
    assert_eq!(auto.max_completion_tokens, None);
    let free = model(&parsed.items, "meta-llama/llama-3.3-70b-instruct:free");
    assert_eq!(
        (free.prompt_per_m, free.completion_per_m),
        (Some(0.0), Some(0.0))
    );
}

#[test]
fn variants_and_aliases_point_at_their_base_model() {
    let parsed = openrouter::parse(&live()).expect("live fixture parses");
    let expect = [
        ("acme/rocket-2.5:batch", "acme/rocket-2.5", Some("batch")),
        ("~acme/rocket-latest", "acme/rocket-2.5", Some("latest")),
        (
            "meta-llama/llama-3.3-70b-instruct:free",
            "meta-llama/llama-3.3-70b-instruct",
            Some("free"),
        ),
        (
            "qwen/qwen-plus-2025-07-28:thinking",
            "qwen/qwen-plus-2025-07-28",
            Some("thinking"),
        ),
        ("openrouter/auto", "openrouter/auto", None),
    ];
    for (id, base, variant) in expect {
        let m = model(&parsed.items, id);
        assert_eq!(m.base_id, base, "{id}");
        assert_eq!(m.variant.as_deref(), variant, "{id}");
    }
}

#[test]
fn empty_and_null_hugging_face_ids_are_none() {
    let parsed = openrouter::parse(&live()).expect("live fixture parses");
    assert_eq!(
        model(&parsed.items, "acme/rocket-2.5").hugging_face_id,
        None
    );
    assert_eq!(
        model(&parsed.items, "~acme/rocket-latest").hugging_face_id,
        None
    );
    assert_eq!(
        model(&parsed.items, "meta-llama/llama-3.3-70b-instruct")
            .hugging_face_id
            .as_deref(),
        Some("meta-llama/Llama-3.3-70B-Instruct")
    );
}

#[test]
fn description_keeps_the_first_paragraph_only() {
    let parsed = openrouter::parse(&live()).expect("live fixture parses");
    assert_eq!(
        model(&parsed.items, "acme/rocket-2.5").description.as_deref(),
        Some("Rocket 2.5 is Acme's flagship reasoning model, tuned for long agentic coding sessions.")
    );
    assert_eq!(
        model(&parsed.items, "openrouter/auto")
            .description
            .as_deref(),
        Some(
            "Your prompt will be processed by a meta-model and routed to one of dozens of models."
        )
    );
    assert_eq!(
        model(&parsed.items, "qwen/qwen-plus-2025-07-28:thinking").description,
        None
    );
    let long = format!(
        r#"{{"data":[{{"id":"a/b","description":"{}"}}]}}"#,
        "lorem ipsum ".repeat(100)
    );
    let parsed = openrouter::parse(long.as_bytes()).expect("parses");
    let text = parsed.items[0]
        .description
        .as_deref()
        .expect("has a description");
    assert!(
        text.chars().count() <= DESCRIPTION_MAX_CHARS + 1 && text.ends_with('…'),
        "{text}"
    );
}

#[test]
fn archive_shape_gives_the_same_models_and_its_date() {
    let live = live();
    let wrapped = [
        br#"{"fetched_at":"2026-03-02T06:15:09+00:00","url":"https://openrouter.ai/api/v1/models","body":"#
            .as_slice(),
        &live,
        b"}",
    ]
    .concat();
    let snapshot = openrouter::parse_snapshot(&wrapped).expect("archive parses");
    assert_eq!(
        snapshot.models,
        openrouter::parse(&live).expect("live parses")
    );
    assert_eq!(
        snapshot.fetched_at.as_deref(),
        Some("2026-03-02T06:15:09+00:00")
    );
    assert_eq!(snapshot.date().as_deref(), Some("2026-03-02"));
    assert_eq!(
        openrouter::snapshot_date(&wrapped).as_deref(),
        Some("2026-03-02")
    );
    assert_eq!(openrouter::snapshot_date(&live), None);
    assert_eq!(
        openrouter::parse_snapshot(&live)
            .expect("live parses")
            .fetched_at,
        None
    );
}

#[test]
fn archive_fixture_with_exacto_and_free_variants() {
    let bytes = fixture(SourceId::OpenRouter, "openrouter_models_2026-03-02.json");
    let snapshot = openrouter::parse_snapshot(&bytes).expect("archive fixture parses");
    assert_eq!(snapshot.date().as_deref(), Some("2026-03-02"));
    let variants: Vec<_> = snapshot
        .models
        .items
        .iter()
        .map(|m| (m.base_id.as_str(), m.variant.as_deref()))
        .collect();
    assert_eq!(
        variants,
        vec![
            ("acme/pebble-1", Some("free")),
            ("acme/pebble-1", Some("exacto"))
        ]
    );
    assert_eq!(snapshot.models.items[1].prompt_per_m, Some(0.05));
}

#[test]
fn body_stored_as_a_json_string_is_read() {
    let doc = serde_json::json!({
        "fetched_at": "2026-01-01T00:00:00Z",
        "body": serde_json::to_string(&serde_json::json!({"data": [{"id": "a/b:free", "name": "A: B"}]}))
            .expect("serializes"),
    });
    let snapshot = openrouter::parse_snapshot(doc.to_string().as_bytes()).expect("parses");
    assert_eq!(snapshot.models.items.len(), 1);
    assert_eq!(snapshot.models.items[0].base_id, "a/b");
    assert_eq!(snapshot.date().as_deref(), Some("2026-01-01"));
}

#[test]
fn unreadable_files_are_whole_file_errors() {
    let live = live();
    let cases: [&[u8]; 8] = [
        b"",
        b"   ",
        b"<html>rate limited</html>",
        &live[..live.len() / 2],
        b"[]",
        br#"{"data": "nope"}"#,
        br#"{"models": []}"#,
        br#"{"body": {"data": 5}}"#,
    ];
    for bytes in cases {
        let err = openrouter::parse(bytes).expect_err("must not parse");
        assert_eq!(err.source_id, SourceId::OpenRouter);
        assert!(!err.message.is_empty());
    }
    assert!(openrouter::parse(br#"{"data": []}"#)
        .expect("empty list is fine")
        .items
        .is_empty());
}

#[test]
fn bad_records_are_skipped_and_counted() {
    let doc = br#"{"data": [
        {"id": "good/one", "name": "Good: One", "pricing": {"prompt": "0.000001", "completion": "0.000002"}},
        42,
        "text",
        {"name": "no id"},
        {"id": "", "name": "blank id"},
        {"id": 7},
        {"id": "vendor/model:", "name": "empty variant"},
        {"id": "dup/keys", "id": "dup/keys-2", "name": "Duplicate key"},
        {"id": "good/two"}
    ]}"#;
    let parsed = openrouter::parse(doc).expect("parses");
    let ids: Vec<_> = parsed.items.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, vec!["good/one", "dup/keys-2", "good/two"]);
    assert_eq!(parsed.skipped, 6, "{:?}", parsed.errors);
    assert_eq!(parsed.errors.len(), 6);
    assert_eq!(
        parsed.items[2].name, "good/two",
        "a missing name falls back to the id"
    );
}

#[test]
fn wrong_typed_fields_are_absent_not_fatal() {
    let doc = br#"{"data": [{
        "id": "odd/types", "name": ["x"], "created": "1700000000", "context_length": "abc",
        "hugging_face_id": 12, "description": {"text": "x"},
        "architecture": "text->text", "pricing": {"prompt": 0.000002, "completion": true},
        "top_provider": {"context_length": 8192.0, "max_completion_tokens": -5},
        "supported_parameters": "tools", "reasoning": {"supported_efforts": ["high", 3]}
    }]}"#;
    let parsed = openrouter::parse(doc).expect("parses");
    assert_eq!(parsed.skipped, 0);
    let m = &parsed.items[0];
    assert_eq!(m.name, "odd/types");
    assert_eq!(m.created, Some(1_700_000_000));
    assert_eq!(m.context_length, Some(8192), "falls back to top_provider");
    assert_eq!(m.max_completion_tokens, None);
    assert_eq!(m.hugging_face_id, None);
    assert_eq!(m.description, None);
    assert!(m.input_modalities.is_empty() && m.supported_parameters.is_empty());
    assert_eq!(m.prompt_per_m, Some(2.0));
    assert_eq!(m.completion_per_m, None);
    assert_eq!(m.reasoning_efforts, vec!["high"]);
}

#[test]
fn huge_lists_and_deep_nesting_do_not_break_the_parser() {
    let mut doc = String::from(r#"{"data":["#);
    for i in 0..20_000 {
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(&format!(
            r#"{{"id":"v/m-{i}:free","pricing":{{"prompt":"0.000001","completion":"-1"}}}}"#
        ));
    }
    doc.push_str("]}");
    let parsed = openrouter::parse(doc.as_bytes()).expect("parses");
    assert_eq!(parsed.items.len(), 20_000);
    assert!(parsed
        .items
        .iter()
        .all(|m| m.variant.as_deref() == Some("free")));

    // Unknown and wrong-typed fields are skipped without recursion, however deep.
    let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep = format!(
        r#"{{"data":[{{"id":"a/b","extra":{},"pricing":{}}}]}}"#,
        nest(5000),
        nest(5000)
    );
    let parsed = openrouter::parse(deep.as_bytes()).expect("deep values are skipped");
    assert_eq!(parsed.items.len(), 1);
    assert_eq!(parsed.items[0].prompt_per_m, None);
    // A duplicate key sends the file down the `Value` path, where nesting past serde_json's
    // recursion limit is refused as a whole-file error rather than overflowing the stack.
    let deep_and_odd = format!(
        r#"{{"data":[{{"id":"a/b","id":"a/c","extra":{}}}]}}"#,
        nest(5000)
    );
    assert!(openrouter::parse(deep_and_odd.as_bytes()).is_err());
}
