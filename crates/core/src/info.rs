//! Facts about the running installation shown in Settings and the status bar.

use serde::{Deserialize, Serialize};
use specta::Type;

/// What the app knows about itself and where it keeps its data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// The app's semantic version (the workspace version).
    pub version: String,
    /// Absolute path of the data directory (`SWITCHYARD_HOME` or the platform app data dir).
    pub data_dir: String,
    /// Absolute path of the SQLite database file.
    pub database_path: String,
    /// The newest migration version applied to the database.
    pub schema_version: String,
    /// Number of migrations applied.
    pub migrations_applied: u32,
    /// Date of the catalog snapshot in use (`YYYY-MM-DD`), `None` until a catalog is loaded.
    pub catalog_snapshot_date: Option<String>,
}
