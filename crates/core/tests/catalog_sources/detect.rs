use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::detect;

fn newest(source: SourceId, names: &[&str]) -> Option<String> {
    detect::newest(source, names).map(|s| s.file)
}

#[test]
fn newest_file_per_source_by_the_date_in_its_name() {
    let openrouter = [
        "openrouter_models_2026-01-29_unwrapped.json",
        "openrouter_models_2026-08-22.json",
        "SOURCE.md",
    ];
    assert_eq!(
        newest(SourceId::OpenRouter, &openrouter).as_deref(),
        Some("openrouter_models_2026-08-22.json")
    );

    let hf = [
        "contents_native_2025-02.csv",
        "fboulnois_huggingface_v2_2025-03-21.csv",
        "SOURCE.md",
    ];
    assert_eq!(
        newest(SourceId::HfLeaderboard, &hf).as_deref(),
        Some("fboulnois_huggingface_v2_2025-03-21.csv")
    );

    let arena = [
        "fboulnois_lmarena_text_2025-08-04.csv",
        "arena-catalog_leaderboard-text_2025-12-11.json",
        "arena-catalog_leaderboard-text-style-control_2025-12-17.json",
    ];
    assert_eq!(
        newest(SourceId::LmArena, &arena).as_deref(),
        Some("arena-catalog_leaderboard-text-style-control_2025-12-17.json")
    );
}

#[test]
fn same_date_prefers_the_richer_form() {
    let arena = [
        "lmarena_2026-01-01.csv",
        "text_2026-01-01.json",
        "text-style-control_2026-01-01.json",
    ];
    assert_eq!(
        newest(SourceId::LmArena, &arena).as_deref(),
        Some("text-style-control_2026-01-01.json")
    );
}

#[test]
fn undated_files_lose_to_dated_ones_and_foreign_files_are_ignored() {
    let names = [
        "aa_latest.json",
        "aa_2026-08-21.json",
        ".aa_2027-01-01.json",
        "aa_2027-01-01.csv",
        "notes.txt",
    ];
    assert_eq!(
        newest(SourceId::ArtificialAnalysis, &names).as_deref(),
        Some("aa_2026-08-21.json")
    );
    assert_eq!(
        newest(SourceId::ArtificialAnalysis, &["aa_latest.json"]).as_deref(),
        Some("aa_latest.json")
    );
    assert_eq!(newest(SourceId::OpenRouter, &["SOURCE.md", "x.csv"]), None);
    assert_eq!(newest(SourceId::OpenRouter, &[] as &[&str]), None);
}

#[test]
fn livebench_selection_carries_its_categories_file() {
    let names = [
        "livebench/table_2026_01_08.csv",
        "livebench/categories_2026_01_08.json",
        "livebench/SOURCE.md",
    ];
    let selection = detect::newest(SourceId::LiveBench, &names).expect("a table");
    assert_eq!(selection.file, "livebench/table_2026_01_08.csv");
    assert_eq!(
        selection.companion.as_deref(),
        Some("livebench/categories_2026_01_08.json")
    );
    assert_eq!(
        selection.date.map(|d| d.iso()).as_deref(),
        Some("2026-01-08")
    );
}

#[test]
fn accepted_extensions_per_source() {
    assert!(detect::accepts(
        SourceId::OpenRouter,
        "dir/openrouter_models_2026-08-22.json"
    ));
    assert!(!detect::accepts(SourceId::OpenRouter, "models.csv"));
    assert!(detect::accepts(SourceId::HfLeaderboard, "contents.CSV"));
    assert!(
        detect::accepts(SourceId::LmArena, "x.csv") && detect::accepts(SourceId::LmArena, "x.json")
    );
    assert!(detect::accepts(SourceId::LiveBench, "table_2026_01_08.csv"));
    assert!(detect::accepts(
        SourceId::LiveBench,
        "categories_2026_01_08.json"
    ));
    assert!(!detect::accepts(SourceId::LiveBench, "notes.csv"));
    assert!(!detect::accepts(SourceId::ArtificialAnalysis, "SOURCE.md"));
    assert!(!detect::accepts(SourceId::ArtificialAnalysis, ".json"));
}

#[test]
fn hf_imports_whole_csv_tables_never_a_rows_page() {
    let names = [
        "contents_native_2025-02.csv",
        "rows_offset_100_2026-01-01.json",
    ];
    assert_eq!(
        newest(SourceId::HfLeaderboard, &names).as_deref(),
        Some("contents_native_2025-02.csv")
    );
}
