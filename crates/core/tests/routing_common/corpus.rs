//! The real catalog, built with the public catalog API from the shared corpus
//! (`../shared/corpus` next to the project). `None` when the corpus is absent.

use std::path::Path;

use switchyard_core::catalog::build::{build_catalog, BenchmarkSource, CatalogInput, SnapshotInfo};
use switchyard_core::catalog::card::ModelCard;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::{
    artificial_analysis, hf_leaderboard, livebench, lmarena, openrouter,
};

/// Every model of the catalog the corpus makes, or `None` without the corpus.
pub fn real_catalog() -> Option<Vec<ModelCard>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let read =
        |source: SourceId, name: &str| std::fs::read(dir.join(source.folder()).join(name)).ok();
    let files = (|| {
        Some((
            read(SourceId::OpenRouter, "openrouter_models_2026-08-22.json")?,
            read(
                SourceId::ArtificialAnalysis,
                "aa_llms_models_2026-08-21.json",
            )?,
            read(
                SourceId::HfLeaderboard,
                "fboulnois_huggingface_v2_2025-03-21.csv",
            )?,
            read(
                SourceId::LmArena,
                "arena-catalog_leaderboard-text-style-control_2025-12-17.json",
            )?,
            read(SourceId::LiveBench, "table_2026_01_08.csv")?,
            read(SourceId::LiveBench, "categories_2026_01_08.json")?,
        ))
    })();
    let (or, aa, hf, arena, live, live_categories) = files?;
    let snapshot = openrouter::parse_snapshot(&or).ok()?;
    let benchmarks = [
        (
            SourceId::ArtificialAnalysis,
            artificial_analysis::parse(&aa),
        ),
        (SourceId::HfLeaderboard, hf_leaderboard::parse(&hf)),
        (SourceId::LmArena, lmarena::parse(&arena)),
        (
            SourceId::LiveBench,
            livebench::parse(&live, Some(&live_categories)),
        ),
    ]
    .into_iter()
    .filter_map(|(source, parsed)| {
        let parsed = parsed.ok()?;
        Some(BenchmarkSource {
            source,
            records: parsed.items,
            info: SnapshotInfo::default(),
        })
    })
    .collect();
    let input = CatalogInput {
        openrouter: snapshot.models.items,
        benchmarks,
        ..CatalogInput::default()
    };
    Some(build_catalog(&input).models)
}
