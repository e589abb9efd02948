//! Where Switchyard keeps its data.

use std::path::{Path, PathBuf};

use crate::EngineError;

/// Environment variable that overrides the data directory (every test sets it).
pub const HOME_ENV: &str = "SWITCHYARD_HOME";

/// The app identifier; the platform data dir gets a folder of this name, the same one Tauri's
/// `app_data_dir()` uses, so the CLI and the app share one database.
pub const APP_IDENTIFIER: &str = "dev.switchyard.desktop";

/// `SWITCHYARD_HOME` when set and not empty, else `<platform data dir>/dev.switchyard.desktop`.
pub fn resolve_home() -> Result<PathBuf, EngineError> {
    if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        let home = PathBuf::from(home);
        return Ok(if home.is_absolute() {
            home
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(&home))
                .unwrap_or(home)
        });
    }
    directories::BaseDirs::new()
        .map(|dirs| dirs.data_dir().join(APP_IDENTIFIER))
        .ok_or_else(|| EngineError::Home {
            path: PathBuf::new(),
            detail: format!("no home directory found; set {HOME_ENV} to a writable directory"),
        })
}

/// Creates `dir` (and parents) and proves it is writable by creating and removing a file.
pub fn ensure_writable_dir(dir: &Path) -> Result<(), EngineError> {
    let fail = |detail: String| EngineError::Home {
        path: dir.to_path_buf(),
        detail,
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create directory: {e}")))?;
    if !dir.is_dir() {
        return Err(fail("exists but is not a directory".into()));
    }
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe")
        .map_err(|e| fail(format!("directory is not writable: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
