//! The shared corpus (`../shared/corpus` next to the project), read into memory once, and
//! the refresh from those bytes: parse every source, then build the catalog. Used by the
//! corpus integration test and by the `catalog` bench (which includes this file by path).

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use switchyard_core::catalog::build::{build_catalog, BenchmarkSource, CatalogInput, SnapshotInfo};
use switchyard_core::catalog::card::Catalog;
use switchyard_core::catalog::record::{Parsed, SourceId};
use switchyard_core::catalog::sources::{
    artificial_analysis, hf_leaderboard, livebench, lmarena, openrouter,
};

/// The primary snapshot of each source as the corpus README lists it. HF: the newer,
/// more complete export; LiveBench: the 2026-01-08 release (127 models, extended until
/// 2026-07-01), not the 28-model 2026-06-25 table.
pub const FILES: &[(SourceId, &str)] = &[
    (SourceId::OpenRouter, "openrouter_models_2026-08-22.json"),
    (
        SourceId::ArtificialAnalysis,
        "aa_llms_models_2026-08-21.json",
    ),
    (
        SourceId::HfLeaderboard,
        "fboulnois_huggingface_v2_2025-03-21.csv",
    ),
    (
        SourceId::LmArena,
        "arena-catalog_leaderboard-text-style-control_2025-12-17.json",
    ),
    (SourceId::LiveBench, "table_2026_01_08.csv"),
];

/// LiveBench's category mapping for the table above.
pub const LIVEBENCH_CATEGORIES: &str = "categories_2026_01_08.json";

/// `../shared/corpus` relative to the workspace, when it exists.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    dir.join("README.md").is_file().then_some(dir)
}

/// The primary files' bytes.
pub struct CorpusBytes {
    pub files: Vec<(SourceId, Vec<u8>)>,
    pub livebench_categories: Vec<u8>,
}

impl CorpusBytes {
    /// Reads the primary files; `None` when the corpus or one of its files is missing.
    pub fn read(dir: &Path) -> Option<CorpusBytes> {
        let mut files = Vec::with_capacity(FILES.len());
        for (source, name) in FILES {
            files.push((
                *source,
                std::fs::read(dir.join(source.folder()).join(name)).ok()?,
            ));
        }
        let categories = dir
            .join(SourceId::LiveBench.folder())
            .join(LIVEBENCH_CATEGORIES);
        Some(CorpusBytes {
            files,
            livebench_categories: std::fs::read(categories).ok()?,
        })
    }

    fn bytes(&self, source: SourceId) -> &[u8] {
        self.files
            .iter()
            .find(|(s, _)| *s == source)
            .map_or(&[], |(_, b)| b.as_slice())
    }
}

/// What the refresh made of the corpus.
pub struct Refreshed {
    pub catalog: Catalog,
    pub input: CatalogInput,
}

fn info<T>(parsed: &Parsed<T>, date: &str) -> SnapshotInfo {
    SnapshotInfo {
        data_date: Some(date.to_string()),
        skipped: parsed.skipped,
        ..SnapshotInfo::default()
    }
}

/// Which HF leaderboard rows a refresh reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HfRows {
    /// Every row: the matcher itself must refuse fine-tunes and renamed repos.
    All,
    /// Only rows whose repo id is some OpenRouter model's `hugging_face_id` (the only rows
    /// that can match), as the product's refresh does.
    Listed,
}

/// Parses every source from memory and builds the catalog. Panics when a file does not
/// parse (the corpus is known-good).
pub fn refresh(bytes: &CorpusBytes, hf_rows: HfRows) -> Refreshed {
    let snapshot =
        openrouter::parse_snapshot(bytes.bytes(SourceId::OpenRouter)).expect("OpenRouter parses");
    let openrouter_info = info(&snapshot.models, "2026-08-22");
    let listed: HashSet<String> = snapshot
        .models
        .items
        .iter()
        .filter_map(|m| m.hugging_face_id.as_deref())
        .map(str::to_ascii_lowercase)
        .collect();
    let hf_bytes = bytes.bytes(SourceId::HfLeaderboard);
    let hf = match hf_rows {
        HfRows::All => hf_leaderboard::parse(hf_bytes),
        HfRows::Listed => hf_leaderboard::parse_only(hf_bytes, |repo| {
            listed.contains(&repo.trim().to_ascii_lowercase())
        }),
    };
    let parsed = [
        (
            SourceId::ArtificialAnalysis,
            artificial_analysis::parse(bytes.bytes(SourceId::ArtificialAnalysis)),
            "2026-08-21",
        ),
        (SourceId::HfLeaderboard, hf, "2025-03-13"),
        (
            SourceId::LmArena,
            lmarena::parse(bytes.bytes(SourceId::LmArena)),
            "2025-12-17",
        ),
        (
            SourceId::LiveBench,
            livebench::parse(
                bytes.bytes(SourceId::LiveBench),
                Some(&bytes.livebench_categories),
            ),
            "2026-07-01",
        ),
    ];
    let benchmarks = parsed
        .into_iter()
        .map(|(source, result, date)| {
            let parsed = result.unwrap_or_else(|e| panic!("{source:?} parses: {e}"));
            let info = info(&parsed, date);
            BenchmarkSource {
                source,
                records: parsed.items,
                info,
            }
        })
        .collect();
    let input = CatalogInput {
        openrouter: snapshot.models.items,
        openrouter_info,
        benchmarks,
        ..CatalogInput::default()
    };
    Refreshed {
        catalog: build_catalog(&input),
        input,
    }
}
