//! Node outputs as files: `<home>/artifacts/runs/<run>/<node>.md`, written whole (temporary
//! file, then rename) and recorded with their SHA-256, which is checked whenever the file is
//! read back — a changed or missing file is not a finished node's output.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::EngineError;

/// Where node `node` of run `run` keeps its output.
pub(crate) fn output_path(home: &Path, run: &str, node: &str) -> PathBuf {
    home.join("artifacts")
        .join("runs")
        .join(run)
        .join(format!("{node}.md"))
}

/// Where the text node `node` of run `run` streams to while it runs, so another process
/// following the run (the app, for a run the CLI or an agent's MCP server executes) can show
/// it as it arrives. Appended by the executing process, removed once the node has ended.
pub(crate) fn live_path(home: &Path, run: &str, node: &str) -> PathBuf {
    home.join("artifacts")
        .join("runs")
        .join(run)
        .join(format!("{node}.live"))
}

/// The streamed text at `path` so far, up to its last whole character (an append may be
/// read half written); `None` when there is no such file.
pub(crate) async fn read_live(path: &Path) -> Option<String> {
    let mut bytes = tokio::fs::read(path).await.ok()?;
    let whole = match std::str::from_utf8(&bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    bytes.truncate(whole);
    String::from_utf8(bytes).ok()
}

/// The hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes `text` to `path` (creating its folder) and returns its SHA-256. Errors: `Internal`
/// naming the path.
pub(crate) async fn write_output(path: &Path, text: &str) -> Result<String, EngineError> {
    let io = |e: std::io::Error| EngineError::Internal(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(io)?;
    }
    let partial = path.with_extension("md.partial");
    tokio::fs::write(&partial, text.as_bytes())
        .await
        .map_err(io)?;
    tokio::fs::rename(&partial, path).await.map_err(io)?;
    Ok(sha256_hex(text.as_bytes()))
}

/// The text at `path` if it is there and its SHA-256 is `sha256`.
pub(crate) async fn read_output(path: &str, sha256: &str) -> Option<String> {
    let bytes = tokio::fs::read(path).await.ok()?;
    if sha256_hex(&bytes) != sha256 {
        tracing::warn!(%path, "a run output does not match its recorded SHA-256");
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn outputs_round_trip_and_a_changed_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = output_path(dir.path(), "r1", "n1");
        let sha = write_output(&path, "héllo").await.expect("write");
        let text = path.display().to_string();
        assert_eq!(read_output(&text, &sha).await.as_deref(), Some("héllo"));
        std::fs::write(&path, "changed").expect("tamper");
        assert_eq!(read_output(&text, &sha).await, None);
        assert_eq!(read_output("/nonexistent/x.md", &sha).await, None);
    }
}
