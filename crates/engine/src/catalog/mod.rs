//! Catalog use cases: load (stored snapshots, else the bundled one), refresh from a folder or
//! the network, query, detail, compare, status and match overrides.
//!
//! The catalog is built lazily on first use and cached with its query index; every refresh
//! or override rebuilds it from the stored snapshots (parse + match + score is milliseconds).
//! A stored snapshot that no longer decodes is replaced by the bundled one for its source,
//! with the reason shown as that source's error: one bad row never takes the catalog down.

use std::sync::Arc;

use switchyard_core::catalog::build::{build_catalog, LocalModel};
use switchyard_core::catalog::card::{Catalog, ModelCard};
use switchyard_core::catalog::matching::MatchOverride;
use switchyard_core::catalog::query::{CatalogIndex, ModelQuery};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::scoring::Weights;
use switchyard_core::catalog::snapshot::{catalog_input, SnapshotBundle};
use switchyard_core::catalog::view::{CatalogMetrics, CatalogStatus, ModelDetail, ModelSummary};

use crate::{Engine, EngineError};

mod background;
mod refresh;
mod scrub;

pub use background::{BackgroundSchedule, RefreshFrom, NO_BACKGROUND_REFRESH_ENV};
pub use refresh::{Progress, SOURCE_ENDPOINT_SETTING};

/// The snapshot shipped with the app (produced by `switchyard catalog build-snapshot`).
const BUNDLED_SNAPSHOT: &[u8] = include_bytes!("../../data/catalog-snapshot.json");

/// A built catalog with its query index.
#[derive(Debug)]
pub(crate) struct CatalogState {
    pub catalog: Catalog,
    pub index: CatalogIndex,
    /// Sources served from the bundled snapshot.
    pub bundled_sources: Vec<SourceId>,
}

/// The bundled snapshot, parsed once per process. A broken bundle is a build defect,
/// reported as empty rather than taking the app down (a test asserts it parses).
pub fn bundled_snapshot() -> &'static SnapshotBundle {
    static BUNDLE: std::sync::OnceLock<SnapshotBundle> = std::sync::OnceLock::new();
    BUNDLE.get_or_init(|| {
        serde_json::from_slice(BUNDLED_SNAPSHOT).unwrap_or_else(|error| {
            tracing::error!(%error, "the bundled catalog snapshot does not parse");
            SnapshotBundle {
                format: 0,
                created_at: String::new(),
                sources: Vec::new(),
            }
        })
    })
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl Engine {
    /// The current catalog, built on first use.
    pub(crate) async fn catalog_state(&self) -> Result<Arc<CatalogState>, EngineError> {
        if let Some(state) = self.catalog.read().await.as_ref() {
            return Ok(state.clone());
        }
        self.rebuild_catalog().await
    }

    /// Rebuilds the catalog from the stored snapshots (the bundled one for sources never
    /// refreshed), the overrides and the known local models, and caches it.
    pub(crate) async fn rebuild_catalog(&self) -> Result<Arc<CatalogState>, EngineError> {
        let mut guard = self.catalog.write().await;
        let stored = self.store().source_snapshots().await?;
        let mut errors = self.store().source_errors().await?;
        for (source, detail) in &stored.unreadable {
            tracing::warn!(
                source = source.folder(),
                detail,
                "a stored catalog snapshot cannot be read; serving the bundled one"
            );
            let note = format!(
                "the stored snapshot cannot be read ({detail}); the bundled data is in use \
                 until the next successful refresh"
            );
            match errors.iter_mut().find(|(s, _)| s == source) {
                Some((_, last)) => *last = format!("{note}; last refresh: {last}"),
                None => errors.push((*source, note)),
            }
        }
        let stored = stored.snapshots;
        let overrides = self.store().match_overrides().await?;
        let local_models = self
            .local_models
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default();
        let state = tokio::task::spawn_blocking(move || {
            let bundle = bundled_snapshot();
            let mut bundled_sources = Vec::new();
            let mut snapshots = stored;
            for snapshot in &bundle.sources {
                if !snapshots.iter().any(|s| s.source == snapshot.source) {
                    bundled_sources.push(snapshot.source);
                    snapshots.push(snapshot.clone());
                }
            }
            let input = catalog_input(&snapshots, &errors, overrides, local_models);
            let catalog = build_catalog(&input);
            let index = CatalogIndex::new(&catalog);
            CatalogState {
                catalog,
                index,
                bundled_sources,
            }
        })
        .await
        .map_err(|e| EngineError::Internal(format!("catalog build crashed: {e}")))?;
        let state = Arc::new(state);
        *guard = Some(state.clone());
        Ok(state)
    }

    /// Models matching `query`, as summaries, in the query's order.
    pub async fn models(&self, query: &ModelQuery) -> Result<Vec<ModelSummary>, EngineError> {
        let state = self.catalog_state().await?;
        Ok(state
            .index
            .query(query)
            .into_iter()
            .filter_map(|i| state.catalog.models.get(i))
            .map(ModelSummary::from)
            .collect())
    }

    /// The full card of one model (its id, or a variant id such as `…:free`).
    pub async fn model(&self, id: &str) -> Result<ModelCard, EngineError> {
        let state = self.catalog_state().await?;
        find_model(&state.catalog, id)
            .cloned()
            .ok_or_else(|| EngineError::NotFound(format!("no model {id} in the catalog")))
    }

    /// The full card of one model with each category score taken apart (the weights are the
    /// bundled ones the catalog is scored with).
    pub async fn model_detail(&self, id: &str) -> Result<ModelDetail, EngineError> {
        Ok(ModelDetail::new(self.model(id).await?, Weights::bundled()))
    }

    /// The metric registry (labels, units, direction) and the category weights the catalog
    /// is scored with.
    pub fn catalog_metrics(&self) -> CatalogMetrics {
        CatalogMetrics::of(Weights::bundled())
    }

    /// Two to five models side by side, in the order asked.
    pub async fn compare(&self, ids: &[String]) -> Result<Vec<ModelCard>, EngineError> {
        let size = switchyard_core::compare::COMPARE_MODELS;
        if !size.admits(ids.len()) {
            return Err(EngineError::InvalidInput(format!(
                "compare takes {} to {} models, got {}",
                size.min,
                size.max,
                ids.len()
            )));
        }
        let state = self.catalog_state().await?;
        ids.iter()
            .map(|id| {
                find_model(&state.catalog, id)
                    .cloned()
                    .ok_or_else(|| EngineError::NotFound(format!("no model {id} in the catalog")))
            })
            .collect()
    }

    /// Whether a refresh is running now.
    pub fn catalog_refreshing(&self) -> bool {
        self.catalog_refresh_running().is_some()
    }

    /// Where each source stands, the running refresh, and what is held back.
    pub async fn catalog_status(&self) -> Result<CatalogStatus, EngineError> {
        let state = self.catalog_state().await?;
        let bundled_date = Some(bundled_snapshot().created_at.clone()).filter(|d| !d.is_empty());
        let refresh_id = self.catalog_refresh_running();
        let mut status = CatalogStatus::of(
            &state.catalog,
            state.bundled_sources.clone(),
            bundled_date.map(|d| d.chars().take(10).collect()),
            refresh_id.is_some(),
        );
        status.refresh_id = refresh_id;
        status.held = self.store().held_source_candidates().await?;
        Ok(status)
    }

    /// "Accept anyway": replaces `source`'s snapshot with the one held back for it (zero
    /// records, or a drop of more than half), without refetching, and rebuilds the catalog.
    /// Errors: `NotFound` when nothing is held back for `source`.
    pub async fn accept_held_snapshot(
        &self,
        source: SourceId,
    ) -> Result<CatalogStatus, EngineError> {
        let candidate = self
            .store()
            .source_candidate(source)
            .await?
            .ok_or_else(|| {
                EngineError::NotFound(format!("no {} snapshot is held back", source.title()))
            })?;
        self.store()
            .save_source_snapshot(&candidate, &now())
            .await?;
        tracing::info!(
            source = source.folder(),
            records = candidate.record_count(),
            "a held-back catalog snapshot was accepted"
        );
        self.rebuild_catalog().await?;
        self.catalog_status().await
    }

    /// Asks the local model servers (at their configured base URLs) what they have; they join
    /// the catalog as free local models on the next rebuild.
    pub(crate) async fn refresh_local_models(&self) {
        let mut found = Vec::new();
        for probe in self.probe_local_servers().await {
            if let Ok(names) = probe.models {
                found.extend(names.into_iter().map(|name| LocalModel {
                    server: probe.server.id().to_owned(),
                    name,
                    context_length: None,
                }));
            }
        }
        if let Ok(mut models) = self.local_models.lock() {
            *models = found;
        }
    }

    /// Ties a source record to a model (or unties it), stored and applied on every refresh;
    /// returns the model rebuilt, with its score breakdowns.
    pub async fn set_match_override(
        &self,
        correction: MatchOverride,
    ) -> Result<ModelDetail, EngineError> {
        let state = self.catalog_state().await?;
        if find_model(&state.catalog, &correction.model_id).is_none() {
            return Err(EngineError::NotFound(format!(
                "no model {} in the catalog",
                correction.model_id
            )));
        }
        if correction.key.trim().is_empty() {
            return Err(EngineError::InvalidInput(
                "the record name must not be empty".into(),
            ));
        }
        self.store().put_match_override(&correction, &now()).await?;
        let state = self.rebuild_catalog().await?;
        find_model(&state.catalog, &correction.model_id)
            .cloned()
            .map(|card| ModelDetail::new(card, Weights::bundled()))
            .ok_or_else(|| EngineError::NotFound(correction.model_id.clone()))
    }

    /// Drops a stored override (the automatic matcher decides again).
    pub async fn clear_match_override(
        &self,
        source: SourceId,
        key: &str,
        model_id: &str,
    ) -> Result<bool, EngineError> {
        let existed = self
            .store()
            .delete_match_override(source, key, model_id)
            .await?;
        if existed {
            self.rebuild_catalog().await?;
        }
        Ok(existed)
    }

    /// Every stored override.
    pub async fn match_overrides(&self) -> Result<Vec<MatchOverride>, EngineError> {
        Ok(self.store().match_overrides().await?)
    }
}

pub(crate) fn find_model<'a>(catalog: &'a Catalog, id: &str) -> Option<&'a ModelCard> {
    catalog.models.iter().find(|m| m.id == id).or_else(|| {
        catalog
            .models
            .iter()
            .find(|m| m.variants.iter().any(|v| v == id))
    })
}
