//! Source parser tests on the fixtures under `tests/fixtures/catalog/<source folder>/` (our
//! own small files in the real formats), plus a pass over the shared corpus of real snapshots
//! when it is present next to the project.

#[path = "catalog_sources/artificial_analysis.rs"]
mod artificial_analysis;
#[path = "catalog_sources/corpus.rs"]
mod corpus;
#[path = "catalog_sources/detect.rs"]
mod detect;
#[path = "catalog_sources/hf_leaderboard.rs"]
mod hf_leaderboard;
#[path = "catalog_sources/livebench.rs"]
mod livebench;
#[path = "catalog_sources/lmarena.rs"]
mod lmarena;
#[path = "catalog_sources/openrouter.rs"]
mod openrouter;

use std::path::{Path, PathBuf};

use switchyard_core::catalog::metrics;
use switchyard_core::catalog::record::{BenchmarkRecord, Parsed, SourceId};

/// Bytes of a fixture file.
pub fn fixture(source: SourceId, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalog")
        .join(source.folder())
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {} unreadable: {e}", path.display()))
}

/// The shared corpus of real snapshots, when it exists.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    dir.is_dir().then_some(dir)
}

/// The record with `key`, failing the test when absent.
pub fn record<'a>(parsed: &'a Parsed<BenchmarkRecord>, key: &str) -> &'a BenchmarkRecord {
    parsed
        .items
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no record {key:?} among {:?}", keys(parsed)))
}

/// All record keys, in order.
pub fn keys(parsed: &Parsed<BenchmarkRecord>) -> Vec<&str> {
    parsed.items.iter().map(|r| r.key.as_str()).collect()
}

/// A metric value of a record.
pub fn metric(record: &BenchmarkRecord, id: &str) -> Option<f64> {
    record.metrics.get(id).copied()
}

/// Asserts two floats agree to 1e-9.
#[track_caller]
pub fn assert_close(actual: Option<f64>, expected: f64) {
    let actual = actual.unwrap_or_else(|| panic!("expected {expected}, got nothing"));
    assert!(
        (actual - expected).abs() < 1e-9,
        "expected {expected}, got {actual}"
    );
}

/// Every metric of every record is registered for `source`, finite, and the record is of
/// `source`.
#[track_caller]
pub fn assert_registered(source: SourceId, parsed: &Parsed<BenchmarkRecord>) {
    for r in &parsed.items {
        assert_eq!(r.source, source, "{} has source {:?}", r.key, r.source);
        assert!(!r.key.is_empty());
        for (id, value) in &r.metrics {
            let def = metrics::metric(id).unwrap_or_else(|| panic!("unregistered metric {id}"));
            assert_eq!(def.source, source, "{id} registered under {:?}", def.source);
            assert!(value.is_finite(), "{}: {id} = {value}", r.key);
        }
        for (name, value) in &r.facts {
            assert!(value.is_finite(), "{}: fact {name} = {value}", r.key);
        }
    }
    assert!(parsed.errors.len() <= Parsed::<BenchmarkRecord>::MAX_ERRORS);
    assert!(parsed.errors.len() as u32 <= parsed.skipped);
}
