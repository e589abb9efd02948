//! Refreshing the catalog: from a folder laid out like the corpus, or from the network.
//! Each source is fetched/read and parsed on its own; one that fails records its error and
//! keeps its previous snapshot, and nothing aborts the whole refresh. A source that answers
//! with zero records, or fewer than half of its previous count, is held back by
//! [`accept_refresh`]: the previous snapshot stays and the new one waits for "accept anyway".
//!
//! Every error text that leaves a refresh (stored, in events, in the report, logged) passes
//! through the refresh's [`Scrubber`] first, so a source echoing its key cannot leak it.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use switchyard_core::catalog::card::Catalog;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::record::{BenchmarkRecord, Parsed};
use switchyard_core::catalog::snapshot::{
    accept_refresh, HoldReason, SnapshotBundle, SourceSnapshot, Verdict, FORMAT_VERSION,
};
use switchyard_core::catalog::sources::{detect, livebench, parse_file_with, SourceFile};
use switchyard_core::catalog::view::{
    RefreshId, RefreshProgress, RefreshReport, RefreshStage, SourceRefresh,
};
use switchyard_core::providers::ARTIFICIAL_ANALYSIS;
use switchyard_providers::sources::{self as fetcher, FetchedSource, SourceEndpoints};

use super::background::{RefreshFrom, RefreshGuard};
use super::now;
use super::scrub::Scrubber;
use crate::events::EngineEvent;
use crate::{Engine, EngineError};

/// Settings key prefix overriding a source's URL: `catalog.endpoint.<folder>` (e.g.
/// `catalog.endpoint.openrouter`); `catalog.endpoint.livebench-releases` is a comma list.
pub const SOURCE_ENDPOINT_SETTING: &str = "catalog.endpoint.";

/// A caller's progress callback (the awaited refreshes); events go to subscribers as well.
pub type Progress<'a> = &'a (dyn Fn(RefreshProgress) + Send + Sync);

/// One refresh as it runs: its id, where progress goes, and the keys to scrub from text.
struct RefreshRun<'a> {
    id: RefreshId,
    progress: Progress<'a>,
    engine: &'a Engine,
    scrubber: Scrubber,
}

impl RefreshRun<'_> {
    /// Reports a step to the caller and to every subscriber, its message scrubbed.
    fn step(&self, source: Option<SourceId>, stage: RefreshStage, message: Option<String>) {
        let progress = RefreshProgress {
            source,
            stage,
            message: message.map(|m| self.scrubber.scrub(&m)),
        };
        self.engine
            .supervisor
            .emit(EngineEvent::CatalogRefreshProgress {
                refresh_id: self.id,
                progress: progress.clone(),
            });
        (self.progress)(progress);
    }
}

impl Engine {
    /// Imports every source from a folder laid out like the shared corpus
    /// (`DIR/openrouter/*.json`, `DIR/artificial-analysis/*.json`, …; newest file per source)
    /// and waits for it. A source that fails keeps its previous snapshot; nothing aborts the
    /// whole refresh. The refresh is published on [`Engine::subscribe`] like a started one.
    /// Errors: `InvalidInput` (not a folder), `Busy` (a refresh is running).
    pub async fn refresh_catalog_from_dir(
        &self,
        dir: &Path,
        progress: Progress<'_>,
    ) -> Result<RefreshReport, EngineError> {
        let from = RefreshFrom::Dir(dir.to_path_buf());
        from.validate()?;
        let guard = self.claim_refresh_or_busy(&from)?;
        self.run_refresh(guard, &from, progress).await
    }

    /// Fetches every source over the network (concurrently), parses and stores each that
    /// succeeds, records the error of each that fails, rebuilds the catalog, and waits for
    /// it. Errors: `Busy` (a refresh is running).
    pub async fn refresh_catalog_from_network(
        &self,
        progress: Progress<'_>,
    ) -> Result<RefreshReport, EngineError> {
        let from = RefreshFrom::Network;
        let guard = self.claim_refresh_or_busy(&from)?;
        self.run_refresh(guard, &from, progress).await
    }

    /// Runs the refresh `guard` stands for and publishes how it ended (then frees the slot).
    pub(super) async fn run_refresh(
        &self,
        mut guard: RefreshGuard,
        from: &RefreshFrom,
        progress: Progress<'_>,
    ) -> Result<RefreshReport, EngineError> {
        let mut run = RefreshRun {
            id: guard.id(),
            progress,
            engine: self,
            scrubber: Scrubber::default(),
        };
        let result = match from {
            RefreshFrom::Dir(dir) => self.import_dir(&run, dir).await,
            RefreshFrom::Network => self.fetch_network(&mut run).await,
        };
        if let Err(error) = &result {
            tracing::warn!(refresh_id = %run.id, %error, "catalog refresh failed");
        }
        guard.finish(&result, &run.scrubber);
        result
    }

    async fn import_dir(
        &self,
        run: &RefreshRun<'_>,
        dir: &Path,
    ) -> Result<RefreshReport, EngineError> {
        run.step(None, RefreshStage::Started, None);
        let previous = self.store().source_record_counts().await?;
        let mut outcomes = Vec::new();
        for source in SourceId::ALL {
            run.step(Some(source), RefreshStage::Parsing, None);
            let hf = self.hf_filter(source).await?;
            let parsed = read_source_dir(&dir.join(source.folder()), source, hf).await;
            outcomes.push(self.settle(run, source, parsed, &previous).await?);
        }
        self.refresh_local_models().await;
        let state = self.rebuild_catalog().await?;
        run.step(None, RefreshStage::Finished, None);
        Ok(report(&state.catalog, outcomes))
    }

    async fn fetch_network(&self, run: &mut RefreshRun<'_>) -> Result<RefreshReport, EngineError> {
        run.step(None, RefreshStage::Started, None);
        let endpoints = self.source_endpoints().await?;
        let client = fetcher::http_client().map_err(|e| EngineError::Internal(e.to_string()))?;
        // The key is looked up for the origin of the endpoint it would go to.
        let aa_key = self
            .key_for_url(ARTIFICIAL_ANALYSIS, &endpoints.artificial_analysis)
            .await;
        // Whatever a source answers, the key sent to it never reaches a stored or shown text.
        run.scrubber = Scrubber::new(aa_key.iter().cloned());
        let previous = self.store().source_record_counts().await?;
        for source in SourceId::ALL {
            run.step(Some(source), RefreshStage::Fetching, None);
        }
        let fetches = SourceId::ALL.map(|source| {
            let (client, endpoints, key) = (&client, &endpoints, aa_key.as_ref());
            async move { (source, fetcher::fetch(client, endpoints, source, key).await) }
        });
        let fetched = futures_util::future::join_all(fetches).await;
        let mut outcomes = Vec::new();
        for (source, result) in fetched {
            let parsed = match result {
                Ok(file) => {
                    run.step(Some(source), RefreshStage::Parsing, None);
                    let hf = self.hf_filter(source).await?;
                    parse_fetched(source, file, hf).await
                }
                Err(error) => Err(error.to_string()),
            };
            outcomes.push(self.settle(run, source, parsed, &previous).await?);
        }
        self.refresh_local_models().await;
        let state = self.rebuild_catalog().await?;
        self.store()
            .set_setting(LAST_REFRESH_SETTING, &now(), &now())
            .await?;
        run.step(None, RefreshStage::Finished, None);
        Ok(report(&state.catalog, outcomes))
    }

    /// When the last network refresh finished (RFC 3339), if ever.
    pub async fn last_network_refresh(&self) -> Result<Option<String>, EngineError> {
        Ok(self.store().setting(LAST_REFRESH_SETTING).await?)
    }

    /// Points a source at another URL (a mirror, or a test server).
    pub async fn set_source_endpoint(
        &self,
        source: SourceId,
        url: &str,
    ) -> Result<(), EngineError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(EngineError::InvalidInput(format!(
                "not an http(s) URL: {url}"
            )));
        }
        let key = format!("{SOURCE_ENDPOINT_SETTING}{}", source.folder());
        Ok(self.store().set_setting(&key, url, &now()).await?)
    }

    async fn source_endpoints(&self) -> Result<SourceEndpoints, EngineError> {
        let mut endpoints = SourceEndpoints::default();
        for source in SourceId::ALL {
            let key = format!("{SOURCE_ENDPOINT_SETTING}{}", source.folder());
            if let Some(url) = self.store().setting(&key).await? {
                let slot = match source {
                    SourceId::OpenRouter => &mut endpoints.openrouter,
                    SourceId::ArtificialAnalysis => &mut endpoints.artificial_analysis,
                    SourceId::HfLeaderboard => &mut endpoints.hf_rows,
                    SourceId::LmArena => &mut endpoints.lmarena,
                    SourceId::LiveBench => &mut endpoints.livebench,
                };
                *slot = url;
            }
        }
        let releases = format!("{SOURCE_ENDPOINT_SETTING}livebench-releases");
        if let Some(list) = self.store().setting(&releases).await? {
            endpoints.livebench_releases = list
                .split(',')
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty())
                .collect();
        }
        Ok(endpoints)
    }

    /// Stores a parsed source, holds it back, or records its failure (see the module doc);
    /// reports the outcome as progress. `previous` holds the stored record counts from
    /// before this refresh.
    async fn settle(
        &self,
        run: &RefreshRun<'_>,
        source: SourceId,
        parsed: Result<SourceSnapshot, String>,
        previous: &[(SourceId, usize)],
    ) -> Result<Outcome, EngineError> {
        let snapshot = match parsed {
            Ok(snapshot) => snapshot,
            Err(error) => {
                let error = run.scrubber.scrub(&error);
                self.store()
                    .record_source_failure(source, &error, &now())
                    .await?;
                run.step(Some(source), RefreshStage::Failed, Some(error.clone()));
                return Ok(Outcome {
                    source,
                    origin: None,
                    error: Some(error),
                    held: None,
                });
            }
        };
        let before = previous
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, count)| *count);
        let origin = snapshot.origin.clone();
        match accept_refresh(before, snapshot.record_count(), snapshot.skipped) {
            Verdict::Accept => {
                self.store().save_source_snapshot(&snapshot, &now()).await?;
                let message = format!("{} records from {origin}", snapshot.record_count());
                run.step(Some(source), RefreshStage::Saved, Some(message));
                Ok(Outcome {
                    source,
                    origin: Some(origin),
                    error: None,
                    held: None,
                })
            }
            Verdict::HoldBack(reason) => {
                self.store()
                    .hold_source_candidate(&snapshot, reason, before.unwrap_or(0), &now())
                    .await?;
                let message = reason.describe(source);
                tracing::warn!(source = source.folder(), %origin, "{message}");
                run.step(Some(source), RefreshStage::HeldBack, Some(message.clone()));
                Ok(Outcome {
                    source,
                    origin: Some(origin),
                    error: Some(message),
                    held: Some(reason),
                })
            }
        }
    }

    /// Parses a folder laid out like the corpus into Switchyard's own snapshot format, HF rows
    /// that no OpenRouter model can join pruned (how the bundled snapshot is made).
    pub async fn build_snapshot_bundle(&self, dir: &Path) -> Result<SnapshotBundle, EngineError> {
        let mut sources = Vec::new();
        for source in SourceId::ALL {
            match read_source_dir(&dir.join(source.folder()), source, None).await {
                Ok(mut snapshot) => {
                    snapshot.origin =
                        format!("{}/{}", source.folder(), file_name(&snapshot.origin));
                    sources.push(snapshot);
                }
                Err(error) => return Err(EngineError::InvalidInput(error)),
            }
        }
        let mut bundle = SnapshotBundle {
            format: FORMAT_VERSION,
            created_at: now(),
            sources,
        };
        bundle.prune_for_shipping();
        Ok(bundle)
    }
}

/// Lowercase HF repo ids some OpenRouter model names; `None` = keep every row.
type HfFilter = Option<Arc<HashSet<String>>>;

impl Engine {
    /// For the HF leaderboard: the repos OpenRouter names (HF rows join on `hugging_face_id`
    /// only, so the thousands of other rows could never match; skipping them saves most of the
    /// parse time and storage). Taken from the stored OpenRouter snapshot, refreshed just
    /// before (OpenRouter is settled first), else the bundled one.
    async fn hf_filter(&self, source: SourceId) -> Result<HfFilter, EngineError> {
        if source != SourceId::HfLeaderboard {
            return Ok(None);
        }
        let stored = self.store().source_snapshots().await?;
        let openrouter = stored.get(SourceId::OpenRouter).cloned().or_else(|| {
            super::bundled_snapshot()
                .sources
                .iter()
                .find(|s| s.source == SourceId::OpenRouter)
                .cloned()
        });
        Ok(openrouter.map(|snapshot| {
            Arc::new(
                snapshot
                    .openrouter
                    .iter()
                    .filter_map(|m| m.hugging_face_id.as_ref().map(|id| id.to_ascii_lowercase()))
                    .collect(),
            )
        }))
    }
}

/// Settings key of the last successful network refresh time.
const LAST_REFRESH_SETTING: &str = "catalog.last_network_refresh";

/// A source's outcome: where it came from, or why it failed or was held back.
struct Outcome {
    source: SourceId,
    origin: Option<String>,
    error: Option<String>,
    held: Option<HoldReason>,
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads and parses the newest file of one source folder.
async fn read_source_dir(
    folder: &Path,
    source: SourceId,
    hf: HfFilter,
) -> Result<SourceSnapshot, String> {
    let mut names = Vec::new();
    let mut entries = tokio::fs::read_dir(folder)
        .await
        .map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    while let Ok(Some(entry)) = entries.next_entry().await {
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    if source == SourceId::LiveBench {
        return read_livebench_dir(folder, &names).await;
    }
    let selection = detect::newest(source, &names)
        .ok_or_else(|| format!("no {} data file in {}", source.title(), folder.display()))?;
    let path = folder.join(&selection.file);
    let bytes = read_file(&path).await?;
    let companion = match &selection.companion {
        Some(name) => Some(read_file(&folder.join(name)).await?),
        None => None,
    };
    let origin = path.display().to_string();
    let data_date = selection.date.as_ref().map(detect::NameDate::iso);
    let parsed = tokio::task::spawn_blocking(move || {
        let wanted = hf
            .as_ref()
            .map(|ids| move |id: &str| ids.contains(&id.to_ascii_lowercase()));
        parse_file_with(
            source,
            &selection.file,
            &bytes,
            companion.as_deref(),
            wanted.as_ref().map(|w| w as &dyn Fn(&str) -> bool),
        )
    })
    .await
    .map_err(|e| format!("parser crashed: {e}"))?
    .map_err(|e| format!("{}: {}", path.display(), e.message))?;
    Ok(SourceSnapshot::from_parsed(
        source,
        parsed,
        origin,
        Some(now()),
        data_date,
    ))
}

async fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    tokio::fs::read(path)
        .await
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// LiveBench releases are partial, so every release in the folder is read and each model
/// keeps its newest row (`livebench::merge_newest_first`). The newest table must parse; an
/// older one that does not is skipped with its error counted.
async fn read_livebench_dir(folder: &Path, names: &[String]) -> Result<SourceSnapshot, String> {
    let releases = livebench::releases(names);
    let newest = releases.first().ok_or_else(|| {
        format!(
            "no {} data file in {}",
            SourceId::LiveBench.title(),
            folder.display()
        )
    })?;
    let origin = folder.join(&newest.table).display().to_string();
    let data_date = Some(newest.date.iso());
    let mut files = Vec::new();
    for release in &releases {
        let table = read_file(&folder.join(&release.table)).await?;
        let categories = match &release.categories {
            Some(name) => Some(read_file(&folder.join(name)).await?),
            None => None,
        };
        files.push((
            folder.join(&release.table).display().to_string(),
            table,
            categories,
        ));
    }
    let parsed = tokio::task::spawn_blocking(move || merge_livebench(files))
        .await
        .map_err(|e| format!("parser crashed: {e}"))??;
    Ok(SourceSnapshot::from_parsed(
        SourceId::LiveBench,
        SourceFile::Benchmarks(parsed),
        origin,
        Some(now()),
        data_date,
    ))
}

/// Parses LiveBench files given newest first and merges them; the newest must parse.
fn merge_livebench(
    files: Vec<(String, Vec<u8>, Option<Vec<u8>>)>,
) -> Result<Parsed<BenchmarkRecord>, String> {
    let mut parts = Vec::new();
    let mut older_failures = Vec::new();
    for (index, (label, table, categories)) in files.into_iter().enumerate() {
        match livebench::parse(&table, categories.as_deref()) {
            Ok(part) => parts.push(part),
            Err(error) if index == 0 => return Err(format!("{label}: {}", error.message)),
            Err(error) => older_failures.push(format!("{label}: {}", error.message)),
        }
    }
    let mut merged = livebench::merge_newest_first(parts);
    for failure in older_failures {
        merged.skip(failure);
    }
    Ok(merged)
}

async fn parse_fetched(
    source: SourceId,
    file: FetchedSource,
    hf: HfFilter,
) -> Result<SourceSnapshot, String> {
    if source == SourceId::LiveBench {
        let origin = file.origin.clone();
        let data_date = file.data_date.clone();
        let files = std::iter::once(&file)
            .chain(file.older.iter())
            .map(|f| (f.origin.clone(), f.bytes.clone(), f.companion.clone()))
            .collect();
        let parsed = tokio::task::spawn_blocking(move || merge_livebench(files))
            .await
            .map_err(|e| format!("parser crashed: {e}"))??;
        return Ok(SourceSnapshot::from_parsed(
            source,
            SourceFile::Benchmarks(parsed),
            origin,
            Some(now()),
            data_date,
        ));
    }
    let FetchedSource {
        name,
        bytes,
        companion,
        origin,
        data_date,
        ..
    } = file;
    let label = origin.clone();
    tokio::task::spawn_blocking(move || {
        let wanted = hf
            .as_ref()
            .map(|ids| move |id: &str| ids.contains(&id.to_ascii_lowercase()));
        let wanted = wanted.as_ref().map(|w| w as &dyn Fn(&str) -> bool);
        parse_file_with(source, &name, &bytes, companion.as_deref(), wanted).map(|parsed| {
            SourceSnapshot::from_parsed(source, parsed, origin, Some(now()), data_date)
        })
    })
    .await
    .map_err(|e| format!("parser crashed: {e}"))?
    .map_err(|e| format!("{label}: {}", e.message))
}

fn report(catalog: &Catalog, outcomes: Vec<Outcome>) -> RefreshReport {
    let sources = outcomes
        .into_iter()
        .map(|outcome| {
            let Outcome {
                source,
                origin,
                error,
                held,
            } = outcome;
            let status = catalog.sources.iter().find(|s| s.source == source);
            SourceRefresh {
                source,
                origin,
                records: status.map_or(0, |s| s.records),
                matched: status.map_or(0, |s| s.matched),
                unmatched: status.map_or(0, |s| s.unmatched),
                skipped: status.map_or(0, |s| s.skipped),
                error,
                held,
            }
        })
        .collect();
    RefreshReport {
        sources,
        model_count: u32::try_from(catalog.models.len()).unwrap_or(u32::MAX),
        snapshot_date: catalog.snapshot_date.clone(),
    }
}
