//! The command palette's entries that Rust knows: every catalog model, the newest runs and
//! the newest attempts.

use switchyard_core::catalog::query::ModelQuery;
use switchyard_core::palette::{first_line, PaletteEntry, PaletteKind, PALETTE_RECENT};
use switchyard_core::run::RunFilter;

use crate::{Engine, EngineError};

/// Longest title shown for a task.
const TITLE_CHARS: usize = 90;

impl Engine {
    /// Models (best first), then runs and attempts (newest first, at most
    /// [`PALETTE_RECENT`] each). A catalog that cannot be read yet lists no models rather than
    /// failing the whole palette.
    ///
    /// # Errors
    /// [`EngineError::Store`] when runs or attempts cannot be read.
    pub async fn palette_entries(&self) -> Result<Vec<PaletteEntry>, EngineError> {
        let models = self
            .models(&ModelQuery::default())
            .await
            .unwrap_or_default();
        let runs = self
            .list_runs(RunFilter {
                limit: Some(PALETTE_RECENT),
                ..RunFilter::default()
            })
            .await?;
        let attempts = self.list_standalone_attempts().await?;
        let mut entries = Vec::with_capacity(models.len() + runs.len() + attempts.len());
        entries.extend(models.into_iter().map(|m| PaletteEntry {
            kind: PaletteKind::Model,
            detail: match m.blended_per_m {
                Some(price) => format!("{} · ${price:.2}/M", m.provider),
                None => m.provider,
            },
            title: m.name,
            id: m.id,
        }));
        entries.extend(runs.into_iter().map(|r| PaletteEntry {
            kind: PaletteKind::Run,
            title: first_line(&r.task, TITLE_CHARS),
            detail: format!("{} run · {}", r.mode.as_str(), r.state.as_str()),
            id: r.id,
        }));
        entries.extend(
            attempts
                .into_iter()
                .take(PALETTE_RECENT as usize)
                .map(|a| PaletteEntry {
                    kind: PaletteKind::Attempt,
                    title: first_line(&a.task, TITLE_CHARS),
                    detail: format!("{} · {}", a.worker, a.state.as_str()),
                    id: a.id,
                }),
        );
        Ok(entries)
    }
}
