//! Parses every real snapshot of the shared corpus and checks the counts its README states.
//! Ignored by a plain `cargo test` (they need the corpus next to the project); the test command
//! runs them when it is there, and each fails when asked for without it.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use switchyard_core::catalog::record::{BenchmarkRecord, Parsed, SourceId};
use switchyard_core::catalog::sources::hf_leaderboard as hf;
use switchyard_core::catalog::sources::{
    artificial_analysis, detect, livebench, lmarena, openrouter,
};

use super::{assert_registered, corpus_dir, metric, record};

fn read(dir: &Path, source: SourceId, name: &str) -> Vec<u8> {
    let path = dir.join(source.folder()).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{} unreadable: {e}", path.display()))
}

/// Runs `f`, printing how long it took (figures are meaningful in release builds only).
fn timed<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    eprintln!(
        "parse {label}: {:.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    out
}

macro_rules! corpus_or_skip {
    () => {
        match corpus_dir() {
            Some(dir) => dir,
            None => panic!(
                "../shared/corpus is absent or incomplete: this test reads it (a plain \
                 `cargo test` lists it as ignored)"
            ),
        }
    };
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn openrouter_snapshots() {
    let dir = corpus_or_skip!();
    let bytes = read(
        &dir,
        SourceId::OpenRouter,
        "openrouter_models_2026-08-22.json",
    );
    let snapshot =
        timed("openrouter 2026-08", || openrouter::parse_snapshot(&bytes)).expect("parses");
    let models = &snapshot.models.items;
    assert_eq!(models.len(), 421);
    assert_eq!(snapshot.models.skipped, 0);
    assert_eq!(snapshot.date().as_deref(), Some("2026-08-22"));
    let count = |variant: &str| {
        models
            .iter()
            .filter(|m| m.variant.as_deref() == Some(variant))
            .count()
    };
    assert_eq!(
        (
            count("batch"),
            count("free"),
            count("thinking"),
            count("latest")
        ),
        (61, 18, 1, 12)
    );
    let bases: HashSet<_> = models
        .iter()
        .filter(|m| m.variant.is_none())
        .map(|m| &m.base_id)
        .collect();
    assert_eq!(bases.len(), 329);
    let all_bases: HashSet<_> = models.iter().map(|m| &m.base_id).collect();
    assert!(
        all_bases.len() >= 329 && all_bases.len() <= 337,
        "{}",
        all_bases.len()
    );
    assert_eq!(
        models.iter().filter(|m| m.prompt_per_m.is_none()).count(),
        5,
        "the routers' -1"
    );
    assert!(models
        .iter()
        .all(|m| m.prompt_per_m.is_none_or(|p| p >= 0.0)));
    assert_eq!(
        models
            .iter()
            .filter(|m| m.hugging_face_id.is_some())
            .count(),
        421 - 138 - 115
    );
    let aliases: Vec<_> = models.iter().filter(|m| m.id.starts_with('~')).collect();
    assert!(aliases
        .iter()
        .all(|m| !m.base_id.starts_with('~') && !m.base_id.ends_with("-latest")));

    let older = read(
        &dir,
        SourceId::OpenRouter,
        "openrouter_models_2026-01-29_unwrapped.json",
    );
    let older = timed("openrouter 2026-01", || openrouter::parse_snapshot(&older)).expect("parses");
    assert_eq!(older.models.items.len(), 347);
    assert_eq!(older.models.skipped, 0);
    assert_eq!(older.fetched_at, None);
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn artificial_analysis_snapshot() {
    let dir = corpus_or_skip!();
    let bytes = read(
        &dir,
        SourceId::ArtificialAnalysis,
        "aa_llms_models_2026-08-21.json",
    );
    let parsed =
        timed("artificial analysis", || artificial_analysis::parse(&bytes)).expect("parses");
    assert_registered(SourceId::ArtificialAnalysis, &parsed);
    assert_eq!(parsed.items.len(), 610);
    assert_eq!(parsed.skipped, 0);
    let with = |id: &str| {
        parsed
            .items
            .iter()
            .filter(|r| r.metrics.contains_key(id))
            .count()
    };
    assert_eq!(with("aa.intelligence_index"), 597);
    assert_eq!(with("aa.output_speed"), 610 - 440, "0 = not measured");
    let priced = parsed
        .items
        .iter()
        .filter(|r| r.facts.contains_key("price_input_per_m"))
        .count();
    assert_eq!(priced, 610 - 222);
    let first = record(&parsed, "gpt-oss-20b-low");
    assert_eq!(first.creator.as_deref(), Some("OpenAI"));
    assert_eq!(metric(first, "aa.gpqa"), Some(0.611));
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn hf_leaderboard_snapshots() {
    let dir = corpus_or_skip!();
    let native = read(&dir, SourceId::HfLeaderboard, "contents_native_2025-02.csv");
    let native = timed("hf native", || hf::parse(&native)).expect("parses");
    assert_registered(SourceId::HfLeaderboard, &native);
    // 3,753 distinct repos; one flagged row is dropped.
    assert!(
        (3750..=3753).contains(&native.items.len()),
        "{}",
        native.items.len()
    );
    let flat = read(
        &dir,
        SourceId::HfLeaderboard,
        "fboulnois_huggingface_v2_2025-03-21.csv",
    );
    let flat = timed("hf fboulnois", || hf::parse(&flat)).expect("parses");
    assert_registered(SourceId::HfLeaderboard, &flat);
    assert!(
        flat.items.len() > 4400 && flat.items.len() <= 4576,
        "{}",
        flat.items.len()
    );
    for parsed in [&native, &flat] {
        let qwen = record(parsed, "Qwen/Qwen2.5-72B-Instruct");
        assert!(metric(qwen, "hf.ifeval").is_some_and(|v| v > 80.0));
        assert!(
            parsed.items.iter().all(|r| r.metrics.len() == 7),
            "every real row has all scores"
        );
    }
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn lmarena_snapshots() {
    let dir = corpus_or_skip!();
    let style = read(
        &dir,
        SourceId::LmArena,
        "arena-catalog_leaderboard-text-style-control_2025-12-17.json",
    );
    let style = timed("lmarena style control", || lmarena::parse(&style)).expect("parses");
    assert_registered(SourceId::LmArena, &style);
    assert_eq!(style.skipped, 0);
    assert_eq!(
        style
            .items
            .iter()
            .filter(|r| r.metrics.contains_key("lmarena.overall"))
            .count(),
        283
    );
    assert_eq!(
        style.items.len(),
        283,
        "every model of a category is in full"
    );
    assert_eq!(
        metric(record(&style, "gemini-3-pro"), "lmarena.overall").map(f64::round),
        Some(1492.0)
    );
    let plain = read(
        &dir,
        SourceId::LmArena,
        "arena-catalog_leaderboard-text_2025-12-11.json",
    );
    assert_eq!(lmarena::parse(&plain).expect("parses").items.len(), 282);
    let csv = read(
        &dir,
        SourceId::LmArena,
        "fboulnois_lmarena_text_2025-08-04.csv",
    );
    let csv = timed("lmarena csv", || lmarena::parse(&csv)).expect("parses");
    assert_eq!(csv.items.len() + csv.skipped as usize, 266);
    assert!(csv.items.len() >= 260);
    assert_eq!(
        record(&csv, "Gemini-2.5-Pro").creator.as_deref(),
        Some("Google")
    );
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn livebench_snapshots() {
    let dir = corpus_or_skip!();
    let table = read(&dir, SourceId::LiveBench, "table_2026_01_08.csv");
    let categories = read(&dir, SourceId::LiveBench, "categories_2026_01_08.json");
    let parsed =
        timed("livebench", || livebench::parse(&table, Some(&categories))).expect("parses");
    assert_registered(SourceId::LiveBench, &parsed);
    assert_eq!(parsed.items.len(), 127);
    assert_eq!(parsed.skipped, 0);
    assert!(parsed.items.iter().all(|r| r.metrics.len() == 8));
    assert_eq!(
        livebench::parse(&table, None).expect("built-in mapping"),
        parsed
    );
    let newer = read(&dir, SourceId::LiveBench, "table_2026_06_25.csv");
    assert_eq!(
        livebench::parse(&newer, Some(&categories))
            .expect("parses")
            .items
            .len(),
        28
    );
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn detect_picks_the_newest_file_of_every_corpus_folder() {
    let dir = corpus_or_skip!();
    for source in SourceId::ALL {
        let names: Vec<String> = std::fs::read_dir(dir.join(source.folder()))
            .expect("folder")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        let selection = detect::newest(source, &names).expect("a file");
        let bytes = read(&dir, source, &selection.file);
        let companion = selection.companion.map(|c| read(&dir, source, &c));
        let parsed = switchyard_core::catalog::sources::parse_file(
            source,
            &selection.file,
            &bytes,
            companion.as_deref(),
        );
        assert!(parsed.is_ok(), "{source:?} {}: {parsed:?}", selection.file);
        eprintln!(
            "{source:?}: {} ({:?})",
            selection.file,
            selection.date.map(|d| d.iso())
        );
    }
}

/// Parse speed over the corpus: the best and median of several runs per file, dropping the
/// result outside the timed region. Run with
/// `cargo test --release -p switchyard-core --test catalog_sources parse_speed -- --ignored --nocapture`
/// (`SWITCHYARD_BENCH_ONLY=<part of a file name>` narrows it to one file).
#[test]
#[ignore = "benchmark; run in release"]
fn parse_speed() {
    let dir = corpus_or_skip!();
    let or_bytes = read(
        &dir,
        SourceId::OpenRouter,
        "openrouter_models_2026-08-22.json",
    );
    let hf_ids: HashSet<String> = openrouter::parse(&or_bytes)
        .expect("parses")
        .items
        .into_iter()
        .filter_map(|m| m.hugging_face_id)
        .collect();
    type Parse<'a> = Box<dyn Fn(&[u8], Option<&[u8]>) -> (usize, Box<dyn std::any::Any>) + 'a>;
    fn benchmark(result: Parsed<BenchmarkRecord>) -> (usize, Box<dyn std::any::Any>) {
        (result.items.len(), Box::new(result))
    }
    let files: Vec<(SourceId, &str, Option<&str>, Parse)> = vec![
        (
            SourceId::OpenRouter,
            "openrouter_models_2026-08-22.json",
            None,
            Box::new(|b, _| {
                let parsed = openrouter::parse(b).expect("parses");
                (parsed.items.len(), Box::new(parsed))
            }),
        ),
        (
            SourceId::ArtificialAnalysis,
            "aa_llms_models_2026-08-21.json",
            None,
            Box::new(|b, _| benchmark(artificial_analysis::parse(b).expect("parses"))),
        ),
        (
            SourceId::HfLeaderboard,
            "fboulnois_huggingface_v2_2025-03-21.csv",
            None,
            Box::new(|b, _| benchmark(hf::parse(b).expect("parses"))),
        ),
        (
            SourceId::HfLeaderboard,
            "fboulnois_huggingface_v2_2025-03-21.csv (OpenRouter's HF ids only)",
            None,
            Box::new(|b, _| {
                benchmark(hf::parse_only(b, |id| hf_ids.contains(id)).expect("parses"))
            }),
        ),
        (
            SourceId::HfLeaderboard,
            "contents_native_2025-02.csv",
            None,
            Box::new(|b, _| benchmark(hf::parse(b).expect("parses"))),
        ),
        (
            SourceId::LmArena,
            "arena-catalog_leaderboard-text-style-control_2025-12-17.json",
            None,
            Box::new(|b, _| benchmark(lmarena::parse(b).expect("parses"))),
        ),
        (
            SourceId::LmArena,
            "fboulnois_lmarena_text_2025-08-04.csv",
            None,
            Box::new(|b, _| benchmark(lmarena::parse(b).expect("parses"))),
        ),
        (
            SourceId::LiveBench,
            "table_2026_01_08.csv",
            Some("categories_2026_01_08.json"),
            Box::new(|b, c| benchmark(livebench::parse(b, c).expect("parses"))),
        ),
    ];
    let only = std::env::var("SWITCHYARD_BENCH_ONLY").unwrap_or_default();
    for (source, label, companion, parse) in files {
        if !label.contains(only.as_str()) {
            continue;
        }
        let name = label.split(' ').next().unwrap_or(label);
        let bytes = read(&dir, source, name);
        let companion = companion.map(|c| read(&dir, source, c));
        let rounds = if only.is_empty() { 25 } else { 200 };
        let mut runs: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                let (count, result) = parse(&bytes, companion.as_deref());
                let elapsed = start.elapsed().as_secs_f64() * 1e3;
                assert!(count > 0, "{label} parsed to nothing");
                drop(result);
                elapsed
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        eprintln!(
            "{label}: {:.0} KB, best {:.3} ms, median {:.3} ms",
            bytes.len() as f64 / 1024.0,
            runs[0],
            runs[runs.len() / 2]
        );
    }
}
