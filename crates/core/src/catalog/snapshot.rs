//! Switchyard's own snapshot format: the parsed records of each source, facts only (ids,
//! names, prices, context, modalities, benchmark values). The same format is stored per
//! source in SQLite after every successful refresh and shipped with the app as the bundled
//! snapshot, so the first start works offline and a failing source keeps its last good data.

use serde::{Deserialize, Serialize};

use super::build::{BenchmarkSource, CatalogInput, LocalModel, SnapshotInfo};
use super::matching::MatchOverride;
use super::record::{BenchmarkRecord, OpenRouterModel, Parsed, SourceId};
use super::sources::SourceFile;

/// Version of the format; bump when a change is not backwards compatible.
pub const FORMAT_VERSION: u32 = 1;

/// One source's parsed records and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSnapshot {
    pub source: SourceId,
    /// RFC 3339 time the data was fetched or imported.
    pub fetched_at: Option<String>,
    /// Data date (`YYYY-MM-DD`) from the file's name or content.
    pub data_date: Option<String>,
    /// The file (or URL) the records were parsed from.
    pub origin: String,
    /// Records the parser skipped, and the first reasons.
    pub skipped: u32,
    #[serde(default)]
    pub errors: Vec<String>,
    /// OpenRouter only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openrouter: Vec<OpenRouterModel>,
    /// The four benchmark sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<BenchmarkRecord>,
}

impl SourceSnapshot {
    /// Wraps what a parser produced.
    pub fn from_parsed(
        source: SourceId,
        file: SourceFile,
        origin: String,
        fetched_at: Option<String>,
        data_date: Option<String>,
    ) -> Self {
        let (openrouter, benchmarks, skipped, errors, content_date) = match file {
            SourceFile::OpenRouter(snapshot) => {
                let date = snapshot.date();
                let Parsed {
                    items,
                    skipped,
                    errors,
                } = snapshot.models;
                (items, Vec::new(), skipped, errors, date)
            }
            SourceFile::Benchmarks(Parsed {
                items,
                skipped,
                errors,
            }) => (Vec::new(), items, skipped, errors, None),
        };
        Self {
            source,
            fetched_at,
            data_date: data_date.or(content_date),
            origin,
            skipped,
            errors,
            openrouter,
            benchmarks,
        }
    }

    /// Number of records held.
    pub fn record_count(&self) -> usize {
        self.openrouter.len() + self.benchmarks.len()
    }

    fn info(&self) -> SnapshotInfo {
        SnapshotInfo {
            fetched_at: self.fetched_at.clone(),
            data_date: self.data_date.clone(),
            skipped: self.skipped,
            error: None,
        }
    }
}

/// The bundled snapshot file: every source's records at one point in time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotBundle {
    pub format: u32,
    /// RFC 3339 time the bundle was produced.
    pub created_at: String,
    pub sources: Vec<SourceSnapshot>,
}

impl SnapshotBundle {
    /// Makes the bundle fit to ship: facts only (free-text descriptions dropped) and only the
    /// HF leaderboard rows whose repo some OpenRouter model names (the leaderboard holds
    /// thousands of fine-tunes that can never match; shipping them would only add size).
    pub fn prune_for_shipping(&mut self) {
        for snapshot in &mut self.sources {
            for model in &mut snapshot.openrouter {
                model.description = None;
            }
        }
        let hf_ids: std::collections::HashSet<String> = self
            .sources
            .iter()
            .flat_map(|s| s.openrouter.iter())
            .filter_map(|m| m.hugging_face_id.as_ref().map(|id| id.to_ascii_lowercase()))
            .collect();
        for snapshot in &mut self.sources {
            if snapshot.source == SourceId::HfLeaderboard {
                snapshot
                    .benchmarks
                    .retain(|r| hf_ids.contains(&r.key.to_ascii_lowercase()));
            }
        }
    }
}

/// The catalog's inputs from one snapshot per source (later duplicates of a source are
/// ignored), the user's match overrides and the local models.
pub fn catalog_input(
    snapshots: &[SourceSnapshot],
    errors: &[(SourceId, String)],
    overrides: Vec<MatchOverride>,
    local_models: Vec<LocalModel>,
) -> CatalogInput {
    let error_of = |source: SourceId| {
        errors
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, message)| message.clone())
    };
    let mut input = CatalogInput {
        overrides,
        local_models,
        ..CatalogInput::default()
    };
    let mut seen = Vec::new();
    for snapshot in snapshots {
        if seen.contains(&snapshot.source) {
            continue;
        }
        seen.push(snapshot.source);
        let mut info = snapshot.info();
        info.error = error_of(snapshot.source);
        if snapshot.source == SourceId::OpenRouter {
            input.openrouter = snapshot.openrouter.clone();
            input.openrouter_info = info;
        } else {
            input.benchmarks.push(BenchmarkSource {
                source: snapshot.source,
                records: snapshot.benchmarks.clone(),
                info,
            });
        }
    }
    // A source that never had a good snapshot still reports its error.
    for (source, message) in errors {
        if seen.contains(source) {
            continue;
        }
        let info = SnapshotInfo {
            error: Some(message.clone()),
            ..SnapshotInfo::default()
        };
        if *source == SourceId::OpenRouter {
            input.openrouter_info = info;
        } else {
            input.benchmarks.push(BenchmarkSource {
                source: *source,
                records: Vec::new(),
                info,
            });
        }
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn record(source: SourceId, key: &str) -> BenchmarkRecord {
        BenchmarkRecord {
            source,
            key: key.into(),
            display_name: None,
            creator: None,
            release_date: None,
            metrics: BTreeMap::from([("hf.ifeval".to_owned(), 80.0)]),
            facts: BTreeMap::new(),
        }
    }

    fn snapshot(source: SourceId, benchmarks: Vec<BenchmarkRecord>) -> SourceSnapshot {
        SourceSnapshot {
            source,
            fetched_at: Some("2026-11-29T00:00:00Z".into()),
            data_date: Some("2026-11-01".into()),
            origin: "test".into(),
            skipped: 2,
            errors: vec![],
            openrouter: vec![],
            benchmarks,
        }
    }

    #[test]
    fn snapshot_round_trips_through_json() {
        let original = snapshot(SourceId::LiveBench, vec![record(SourceId::LiveBench, "m")]);
        let json = serde_json::to_string(&original).expect("serialize");
        let back: SourceSnapshot = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, original);
    }

    #[test]
    fn input_takes_the_first_snapshot_per_source_and_carries_errors() {
        let first = snapshot(SourceId::LmArena, vec![record(SourceId::LmArena, "a")]);
        let second = snapshot(SourceId::LmArena, vec![record(SourceId::LmArena, "b")]);
        let errors = vec![
            (SourceId::LmArena, "HTTP 503".to_owned()),
            (SourceId::LiveBench, "not JSON".to_owned()),
        ];
        let input = catalog_input(&[first, second], &errors, vec![], vec![]);
        let arena = input
            .benchmarks
            .iter()
            .find(|b| b.source == SourceId::LmArena)
            .expect("arena");
        assert_eq!(arena.records.len(), 1);
        assert_eq!(arena.records[0].key, "a");
        assert_eq!(arena.info.error.as_deref(), Some("HTTP 503"));
        assert_eq!(arena.info.skipped, 2);
        let live = input
            .benchmarks
            .iter()
            .find(|b| b.source == SourceId::LiveBench)
            .expect("lb");
        assert!(live.records.is_empty());
        assert_eq!(live.info.error.as_deref(), Some("not JSON"));
    }
}
