//! Switchyard's own snapshot format: the parsed records of each source, facts only (ids,
//! names, prices, context, modalities, benchmark values). The same format is stored per
//! source in SQLite after every successful refresh and shipped with the app as the bundled
//! snapshot, so the first start works offline and a failing source keeps its last good data.

use serde::{Deserialize, Serialize};
use specta::Type;

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

/// Why a refreshed snapshot was held back instead of replacing the one in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum HoldReason {
    /// The source answered with no records at all.
    Empty,
    /// The source sent records, but the parser skipped every one.
    AllSkipped {
        /// Records skipped.
        skipped: u32,
    },
    /// The source answered with fewer than half the records of the snapshot in use.
    Dropped {
        /// Records in the snapshot in use.
        previous: u32,
        /// Records in the refreshed snapshot.
        candidate: u32,
    },
}

impl HoldReason {
    /// One sentence for people: what the source sent and that the previous data stays.
    pub fn describe(self, source: SourceId) -> String {
        let what = match self {
            HoldReason::Empty => format!("{} answered with no records", source.title()),
            HoldReason::AllSkipped { skipped } => format!(
                "{} sent {skipped} records and every one was skipped",
                source.title()
            ),
            HoldReason::Dropped {
                previous,
                candidate,
            } => format!(
                "{} answered with {candidate} records, down from {previous}",
                source.title()
            ),
        };
        format!("held back: {what}; the previous data stays in use until it is accepted anyway")
    }
}

/// What to do with a refreshed snapshot of one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Replace the stored snapshot.
    Accept,
    /// Keep the stored snapshot; keep the candidate aside for an explicit "accept anyway".
    HoldBack(HoldReason),
}

/// The rule that keeps an empty or collapsed refresh from wiping good data: a candidate with
/// zero records is held back, and so is one with fewer than half the records of the stored
/// snapshot it would replace (`previous`; `None` when the source was never refreshed, so
/// only the zero rule applies — the bundled snapshot is a starting point, not a baseline).
/// `skipped` is how many records the parser dropped, which tells "empty" from "all skipped".
pub fn accept_refresh(previous: Option<usize>, candidate: usize, skipped: u32) -> Verdict {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    if candidate == 0 {
        return Verdict::HoldBack(if skipped > 0 {
            HoldReason::AllSkipped { skipped }
        } else {
            HoldReason::Empty
        });
    }
    match previous {
        Some(previous) if candidate.saturating_mul(2) < previous => {
            Verdict::HoldBack(HoldReason::Dropped {
                previous: count(previous),
                candidate: count(candidate),
            })
        }
        _ => Verdict::Accept,
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
    fn zero_records_are_held_back_even_without_a_previous_snapshot() {
        assert_eq!(
            accept_refresh(None, 0, 0),
            Verdict::HoldBack(HoldReason::Empty)
        );
        assert_eq!(
            accept_refresh(Some(400), 0, 0),
            Verdict::HoldBack(HoldReason::Empty)
        );
        assert_eq!(
            accept_refresh(Some(400), 0, 12),
            Verdict::HoldBack(HoldReason::AllSkipped { skipped: 12 })
        );
    }

    #[test]
    fn a_drop_of_more_than_half_is_held_back() {
        assert_eq!(
            accept_refresh(Some(421), 210, 0),
            Verdict::HoldBack(HoldReason::Dropped {
                previous: 421,
                candidate: 210
            })
        );
        // Exactly half, growth, and a first refresh of any size are accepted.
        assert_eq!(accept_refresh(Some(400), 200, 0), Verdict::Accept);
        assert_eq!(accept_refresh(Some(10), 400, 3), Verdict::Accept);
        assert_eq!(accept_refresh(None, 1, 0), Verdict::Accept);
        assert_eq!(accept_refresh(Some(0), 1, 0), Verdict::Accept);
    }

    #[test]
    fn hold_reasons_say_what_the_source_sent() {
        let text = HoldReason::Dropped {
            previous: 421,
            candidate: 3,
        }
        .describe(SourceId::OpenRouter);
        assert!(text.contains("OpenRouter") && text.contains("3") && text.contains("421"));
        assert!(HoldReason::Empty
            .describe(SourceId::LmArena)
            .contains("no records"));
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
