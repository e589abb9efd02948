use switchyard_core::catalog::record::{BenchmarkRecord, Parsed, SourceId};
use switchyard_core::catalog::sources::hf_leaderboard::{self as hf, rows};

use super::{assert_close, assert_registered, fixture, keys, metric, record};

fn native() -> Parsed<BenchmarkRecord> {
    hf::parse(&fixture(
        SourceId::HfLeaderboard,
        "contents_native_2025-02.csv",
    ))
    .expect("native CSV parses")
}

fn flattened() -> Parsed<BenchmarkRecord> {
    hf::parse(&fixture(
        SourceId::HfLeaderboard,
        "fboulnois_huggingface_v2_2025-03-21.csv",
    ))
    .expect("fboulnois CSV parses")
}

const QWEN: &str = "Qwen/Qwen2.5-72B-Instruct";
const METRICS: [&str; 7] = [
    "hf.average",
    "hf.ifeval",
    "hf.bbh",
    "hf.math_lvl5",
    "hf.gpqa",
    "hf.musr",
    "hf.mmlu_pro",
];

#[test]
fn native_layout_reads_normalized_scores_keyed_by_exact_repo_id() {
    let parsed = native();
    assert_registered(SourceId::HfLeaderboard, &parsed);
    assert_eq!(
        keys(&parsed),
        vec![
            QWEN,
            "huihui-ai/Qwen2.5-72B-Instruct-abliterated",
            "meta-llama/Llama-3.3-70B-Instruct",
            "acme-labs/Pebble-1-8B"
        ]
    );
    let qwen = record(&parsed, QWEN);
    assert_close(metric(qwen, "hf.ifeval"), 84.2);
    assert_close(metric(qwen, "hf.bbh"), 60.1);
    assert_close(metric(qwen, "hf.math_lvl5"), 30.4);
    assert_close(metric(qwen, "hf.gpqa"), 17.9);
    assert_close(metric(qwen, "hf.musr"), 15.2);
    assert_close(metric(qwen, "hf.mmlu_pro"), 50.0);
    let mean = (84.2 + 60.1 + 30.4 + 17.9 + 15.2 + 50.0) / 6.0;
    assert!((metric(qwen, "hf.average").expect("average") - mean).abs() < 1e-9);
    assert_eq!(qwen.creator.as_deref(), Some("Qwen"));
    assert_eq!(qwen.release_date.as_deref(), Some("2024-09-16"));
    assert_close(qwen.facts.get("params_b").copied(), 72.706);
}

#[test]
fn a_repo_evaluated_twice_keeps_its_best_row_and_bad_rows_are_counted() {
    let parsed = native();
    assert_eq!(parsed.items.iter().filter(|r| r.key == QWEN).count(), 1);
    assert_close(metric(record(&parsed, QWEN), "hf.ifeval"), 84.2);
    // Flagged row, row without a repo id, row without any score.
    assert_eq!(parsed.skipped, 3, "{:?}", parsed.errors);
    assert!(parsed.errors.iter().any(|e| e.contains("flagged")));
}

#[test]
fn partly_empty_rows_keep_the_scores_they_have() {
    let parsed = native();
    let pebble = record(&parsed, "acme-labs/Pebble-1-8B");
    assert_close(metric(pebble, "hf.ifeval"), 70.5);
    assert_eq!(metric(pebble, "hf.bbh"), None);
    assert_eq!(metric(pebble, "hf.gpqa"), None);
    assert_close(metric(pebble, "hf.math_lvl5"), 12.25);
}

#[test]
fn both_layouts_give_the_same_records_for_the_same_rows() {
    let native = native();
    let flattened = flattened();
    assert_registered(SourceId::HfLeaderboard, &flattened);
    assert_eq!(keys(&flattened), keys(&native));
    assert_eq!(flattened.skipped, 1, "the flagged row");
    for key in keys(&native) {
        let (a, b) = (record(&native, key), record(&flattened, key));
        for id in METRICS {
            match (metric(a, id), metric(b, id)) {
                (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "{key} {id}: {x} vs {y}"),
                (x, y) => assert_eq!(x, y, "{key} {id}"),
            }
        }
        assert_eq!(a.release_date, b.release_date, "{key}");
        assert_eq!(a.facts, b.facts, "{key}");
    }
}

#[test]
fn rows_api_pages_parse_to_the_same_records() {
    let page = rows::parse_page(&fixture(SourceId::HfLeaderboard, "rows_offset_100.json"))
        .expect("rows page parses");
    assert_eq!(page.num_rows_total, Some(4576));
    assert_registered(SourceId::HfLeaderboard, &page.records);
    assert_eq!(
        keys(&page.records),
        vec![QWEN, "meta-llama/Llama-3.3-70B-Instruct"]
    );
    let native = native();
    for key in keys(&page.records) {
        assert_eq!(record(&page.records, key), record(&native, key), "{key}");
    }
}

#[test]
fn merged_pages_keep_one_record_per_repo() {
    let page = rows::parse_page(&fixture(SourceId::HfLeaderboard, "rows_offset_100.json"))
        .expect("rows page parses")
        .records;
    let merged = hf::merge([page.clone(), native(), page]);
    assert_eq!(merged.items.len(), 4);
    assert_eq!(merged.skipped, 3);
    assert_close(metric(record(&merged, QWEN), "hf.ifeval"), 84.2);
}

#[test]
fn page_offsets_plan_every_page_once() {
    let offsets = rows::page_offsets(4576, 100);
    assert_eq!(offsets.len(), 46);
    assert_eq!(offsets.first(), Some(&0));
    assert_eq!(offsets.last(), Some(&4500));
    assert!(offsets.windows(2).all(|w| w[1] - w[0] == 100));
}

#[test]
fn rows_api_errors_and_odd_rows() {
    let err =
        rows::parse_page(br#"{"error": "The dataset does not exist."}"#).expect_err("no rows");
    assert!(err.message.contains("does not exist"), "{}", err.message);
    let page = rows::parse_page(
        br#"{"rows": [{"row": {"fullname": "a/b", "IFEval": "71.5", "Flagged": false}}, {"row_idx": 3}, 7,
            {"row": {"fullname": "c/d", "fullname": "c/e", "GPQA": 3.25, "Flagged": "False"}}],
           "num_rows_total": "12"}"#,
    )
    .expect("parses");
    assert_eq!(keys(&page.records), vec!["a/b", "c/e"]);
    assert_eq!(page.records.skipped, 2);
    assert_eq!(page.num_rows_total, Some(12));
    assert_close(metric(record(&page.records, "a/b"), "hf.ifeval"), 71.5);
}

#[test]
fn files_without_a_repo_column_are_errors_and_truncation_is_tolerated() {
    for bad in [&b""[..], b"\n\n", b"a,b,c\n1,2,3\n", b"\xff\xfe\x00garbage"] {
        let err = hf::parse(bad).expect_err("no repo column");
        assert_eq!(err.source_id, SourceId::HfLeaderboard);
    }
    let bytes = fixture(SourceId::HfLeaderboard, "contents_native_2025-02.csv");
    let full = native();
    for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 7] {
        let parsed = hf::parse(&bytes[..cut]).expect("a truncated file keeps its header");
        assert!(parsed.items.len() <= full.items.len());
        assert_registered(SourceId::HfLeaderboard, &parsed);
    }
    let bom = [b"\xEF\xBB\xBF".as_slice(), b"fullname,IFEval\nx/y,50\n"].concat();
    assert_eq!(
        keys(&hf::parse(&bom).expect("BOM is tolerated")),
        vec!["x/y"]
    );
}

#[test]
fn parse_only_reads_just_the_wanted_repos() {
    let bytes = fixture(SourceId::HfLeaderboard, "contents_native_2025-02.csv");
    let wanted = ["meta-llama/Llama-3.3-70B-Instruct", QWEN, "not/listed"];
    let parsed = hf::parse_only(&bytes, |id| wanted.contains(&id)).expect("parses");
    assert_eq!(
        keys(&parsed),
        vec![QWEN, "meta-llama/Llama-3.3-70B-Instruct"]
    );
    assert_eq!(
        parsed.skipped, 1,
        "unwanted rows are not counted; the row without a repo id is"
    );
    let full = native();
    for key in keys(&parsed) {
        assert_eq!(record(&parsed, key), record(&full, key));
    }
}

#[test]
fn parse_file_with_filters_both_hf_forms() {
    use switchyard_core::catalog::sources::{parse_file_with, SourceFile};
    let wanted = |id: &str| id == QWEN;
    for name in ["contents_native_2025-02.csv", "rows_offset_100.json"] {
        let bytes = fixture(SourceId::HfLeaderboard, name);
        let parsed = parse_file_with(SourceId::HfLeaderboard, name, &bytes, None, Some(&wanted));
        let Ok(SourceFile::Benchmarks(parsed)) = parsed else {
            panic!("{name}: {parsed:?}");
        };
        assert_eq!(keys(&parsed), vec![QWEN], "{name}");
    }
}
