//! Catalog speed on the shared corpus (targets from the catalog issue):
//! - parse + match + score of the full corpus from bytes in memory: < 25 ms on one core
//!   (HF rows read only when their repo is some OpenRouter model's `hugging_face_id`, the
//!   only rows that can match, as the refresh pipeline does);
//! - `models` filter + sort over the full catalog: < 200 µs.
//!
//! `cargo bench -p switchyard-core --bench catalog`. Prints a note and measures nothing when
//! `../shared/corpus` is absent.
//!
//! Besides criterion's wall-clock figures, each target is also reported as CPU time of the
//! benchmark thread (Linux `/proc/thread-self/schedstat`), which a busy shared machine does
//! not inflate: time spent waiting for a core is not counted.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use switchyard_core::catalog::build::build_catalog;
use switchyard_core::catalog::card::{Category, Tag};
use switchyard_core::catalog::query::{CatalogIndex, ModelQuery, SortKey};

#[path = "../tests/catalog_support/corpus.rs"]
mod corpus;

/// Nanoseconds this thread has run on a CPU, when the kernel reports it.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Mean thread CPU time of `f` over `runs` runs, printed next to the target.
fn cpu_time<T>(label: &str, target: &str, runs: u32, mut f: impl FnMut() -> T) {
    let Some(start) = thread_cpu_ns() else {
        eprintln!("{label}: thread CPU time not available on this system");
        return;
    };
    for _ in 0..runs {
        black_box(f());
    }
    let Some(end) = thread_cpu_ns() else { return };
    let per_run = end.saturating_sub(start) as f64 / f64::from(runs);
    let (value, unit) = if per_run >= 1e6 {
        (per_run / 1e6, "ms")
    } else {
        (per_run / 1e3, "µs")
    };
    println!("{label}: {value:.2} {unit} CPU per run (mean of {runs}; target {target})");
}

fn catalog(c: &mut Criterion) {
    let Some(bytes) = corpus::corpus_dir().and_then(|dir| corpus::CorpusBytes::read(&dir)) else {
        eprintln!("note: ../shared/corpus is absent; catalog benchmarks skipped");
        return;
    };
    {
        let refreshed = corpus::refresh(&bytes, corpus::HfRows::Listed);
        let index = CatalogIndex::new(&refreshed.catalog);
        let coding = ModelQuery {
            category: Some(Category::Coding),
            ..ModelQuery::default()
        };
        cpu_time("refresh: parse + match + score", "< 25 ms", 40, || {
            corpus::refresh(&bytes, corpus::HfRows::Listed)
                .catalog
                .models
                .len()
        });
        cpu_time("match + score only", "part of the 25 ms", 40, || {
            build_catalog(&refreshed.input).models.len()
        });
        cpu_time("query: coding by score", "< 200 µs", 20_000, || {
            index.query(&coding)
        });
    }
    c.bench_function("refresh: parse + match + score, full corpus", |b| {
        b.iter(|| {
            corpus::refresh(black_box(&bytes), corpus::HfRows::Listed)
                .catalog
                .models
                .len()
        })
    });

    let refreshed = corpus::refresh(&bytes, corpus::HfRows::Listed);
    c.bench_function("match + score only, full corpus", |b| {
        b.iter(|| build_catalog(black_box(&refreshed.input)).models.len())
    });

    let index = CatalogIndex::new(&refreshed.catalog);
    let coding = ModelQuery {
        category: Some(Category::Coding),
        ..ModelQuery::default()
    };
    c.bench_function("query: coding by score", |b| {
        b.iter(|| index.query(black_box(&coding)))
    });
    let busy = ModelQuery {
        search: Some("a".to_string()),
        tags: vec![Tag::Tools],
        max_price: Some(20.0),
        min_context: Some(32_000),
        sort: SortKey::Efficiency,
        ..ModelQuery::default()
    };
    c.bench_function("query: search + filters, by efficiency", |b| {
        b.iter(|| index.query(black_box(&busy)))
    });
    let everything = ModelQuery {
        sort: SortKey::Price,
        descending: false,
        ..ModelQuery::default()
    };
    c.bench_function("query: all models by price", |b| {
        b.iter(|| index.query(black_box(&everything)))
    });
    c.bench_function("index: build over the full catalog", |b| {
        b.iter(|| CatalogIndex::new(black_box(&refreshed.catalog)).len())
    });
}

criterion_group!(benches, catalog);
criterion_main!(benches);
