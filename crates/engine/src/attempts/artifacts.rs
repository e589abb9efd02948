//! Attempt artifacts: files under `<home>/artifacts/<attempt>/`, each recorded in the store
//! with its SHA-256.

use std::io::Write;
use std::path::PathBuf;

use sha2::{Digest, Sha256};
use switchyard_core::attempt::DiffAgainst;
use switchyard_store::attempts::ArtifactRecord;

use super::record::now_ms;
use crate::{Engine, EngineError};

/// The captured diff (`CapturedDiff` as JSON).
pub(crate) const DIFF_ARTIFACT: &str = "diff.json";
/// The captured change against the parent attempt's captured tree (`CapturedDiff` as JSON;
/// its `base` is that tree), for revisions only.
pub(crate) const PREVIOUS_DIFF_ARTIFACT: &str = "diff-previous.json";
/// The worker's raw stdout and stderr, in arrival order.
pub(crate) const OUTPUT_ARTIFACT: &str = "worker-output.log";
/// Switchyard's verification record (JSON).
pub(crate) const VERIFICATION_ARTIFACT: &str = "verification.json";
/// The worker's self-review (`SelfReview` as JSON), when one was asked for.
pub(crate) const SELF_REVIEW_ARTIFACT: &str = "self-review.json";

/// At most this much raw worker output is kept on disk per attempt; the rest is counted.
pub(crate) const MAX_RAW_OUTPUT: u64 = 32 * 1024 * 1024;

impl Engine {
    pub(crate) fn artifact_dir(&self, id: &str) -> PathBuf {
        self.home().join("artifacts").join(id)
    }

    /// Writes `bytes` as artifact `name` of attempt `id` and records it.
    pub(crate) async fn write_artifact(
        &self,
        id: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), EngineError> {
        let dir = self.artifact_dir(id);
        let path = dir.join(name);
        let io =
            |e: std::io::Error| EngineError::Internal(format!("writing {}: {e}", path.display()));
        std::fs::create_dir_all(&dir).map_err(io)?;
        std::fs::write(&path, bytes).map_err(io)?;
        self.record_artifact(
            id,
            name,
            hex::encode(Sha256::digest(bytes)),
            bytes.len() as u64,
        )
        .await
    }

    pub(crate) async fn record_artifact(
        &self,
        id: &str,
        name: &str,
        sha256: String,
        bytes: u64,
    ) -> Result<(), EngineError> {
        let path = self.artifact_dir(id).join(name);
        self.store()
            .put_artifact(&ArtifactRecord {
                attempt_id: id.to_owned(),
                name: name.to_owned(),
                path: path.display().to_string(),
                sha256,
                bytes,
                created_ms: now_ms(),
            })
            .await?;
        Ok(())
    }

    /// Artifact `name` of `id` parsed as JSON; `None` when missing or unreadable.
    pub(crate) async fn read_artifact_json<T: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        name: &str,
    ) -> Option<T> {
        let path = self.artifact_dir(id).join(name);
        let bytes = tokio::fs::read(&path).await.ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// A parsed diff artifact and what identifies the file it came from.
#[derive(Debug)]
pub(crate) struct CachedDiff {
    id: String,
    name: &'static str,
    len: u64,
    modified: Option<std::time::SystemTime>,
    diff: std::sync::Arc<switchyard_core::review::diff::CapturedDiff>,
}

impl Engine {
    /// The stored diff of `id` against `against`, parsed once while the file stays the same
    /// (length and mtime); `None` when missing or unreadable. Callers asking at once wait for
    /// one parse.
    pub(crate) async fn cached_diff(
        &self,
        id: &str,
        against: DiffAgainst,
    ) -> Option<std::sync::Arc<switchyard_core::review::diff::CapturedDiff>> {
        let name = match against {
            DiffAgainst::Base => DIFF_ARTIFACT,
            DiffAgainst::Previous => PREVIOUS_DIFF_ARTIFACT,
        };
        let path = self.artifact_dir(id).join(name);
        let mut cache = self.attempts.diff_cache.lock().await;
        let meta = tokio::fs::metadata(&path).await.ok()?;
        let (len, modified) = (meta.len(), meta.modified().ok());
        if let Some(hit) = cache.as_ref() {
            if hit.id == id && hit.name == name && hit.len == len && hit.modified == modified {
                return Some(hit.diff.clone());
            }
        }
        let bytes = tokio::fs::read(&path).await.ok()?;
        let diff = std::sync::Arc::new(serde_json::from_slice(&bytes).ok()?);
        *cache = Some(CachedDiff {
            id: id.to_owned(),
            name,
            len,
            modified,
            diff: std::sync::Arc::clone(&diff),
        });
        Some(diff)
    }
}

/// The raw output file, written as output arrives (from the runner's tap), hashed as written
/// and capped at [`MAX_RAW_OUTPUT`].
#[derive(Debug)]
pub(crate) struct RawOutput {
    file: Option<std::io::BufWriter<std::fs::File>>,
    hasher: Sha256,
    written: u64,
    seen: u64,
}

impl RawOutput {
    /// Creates the file; without one (a full disk) output is still counted.
    pub(crate) fn create(path: &std::path::Path) -> Self {
        let file = path
            .parent()
            .map(std::fs::create_dir_all)
            .transpose()
            .and_then(|_| std::fs::File::create(path))
            .map_err(|e| tracing::warn!(path = %path.display(), error = %e, "no raw output file"))
            .ok()
            .map(std::io::BufWriter::new);
        Self {
            file,
            hasher: Sha256::new(),
            written: 0,
            seen: 0,
        }
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        let room = MAX_RAW_OUTPUT.saturating_sub(self.written);
        let take = &bytes[..bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX))];
        if take.is_empty() {
            return;
        }
        if let Some(file) = self.file.as_mut() {
            if file.write_all(take).is_err() {
                self.file = None;
                return;
            }
        }
        self.hasher.update(take);
        self.written += take.len() as u64;
    }

    /// Flushes and returns (sha256 of what was written, bytes written, bytes seen).
    pub(crate) fn finish(&mut self) -> (String, u64, u64) {
        if let Some(file) = self.file.as_mut() {
            let _ = file.flush();
        }
        self.file = None;
        let hasher = std::mem::take(&mut self.hasher);
        (hex::encode(hasher.finalize()), self.written, self.seen)
    }
}
