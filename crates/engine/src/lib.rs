//! The engine: one async method per user action, composing `core` (pure logic), `store`
//! (SQLite), `keychain` (secrets), `providers` (HTTP) and `runner` (processes).
//!
//! The desktop shell (`src-tauri`) and the CLI are both thin over [`Engine`]; neither holds
//! logic of its own. No dependency on `tauri`.

mod assist;
pub mod catalog;
mod doctor;
mod error;
mod keys;
pub mod paths;
mod planner;
mod roles;
mod routing;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use switchyard_core::catalog::build::LocalModel;

use switchyard_core::doctor::DoctorReport;
use switchyard_core::info::AppInfo;
use switchyard_store::{Store, DATABASE_FILE};

pub use error::EngineError;
pub use switchyard_keychain::Secret;
pub use switchyard_providers::client::CancellationToken;

/// The version of this build, shared by the app and the CLI.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How to start the engine.
#[derive(Debug, Clone, Default)]
pub struct EngineConfig {
    /// Data directory; `None` means `SWITCHYARD_HOME` or the platform app data dir.
    pub home: Option<PathBuf>,
}

/// The running engine. Cheap to share behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct Engine {
    home: PathBuf,
    store: Store,
    /// The newest doctor report, so late subscribers (a UI that loads after the start-up
    /// check finished) can read it instead of re-running every probe.
    last_doctor: Mutex<Option<DoctorReport>>,
    /// The built catalog and its index, built on first use, replaced on refresh.
    catalog: tokio::sync::RwLock<Option<Arc<catalog::CatalogState>>>,
    /// Whether a catalog refresh is running (a second one is refused).
    refreshing: AtomicBool,
    /// Models the local servers listed at the last refresh.
    local_models: Mutex<Vec<LocalModel>>,
    /// Categories the classifier fallback's model gave, per task text.
    assist_cache: Mutex<assist::AssistCache>,
}

impl Engine {
    /// Creates the data directory if needed, checks it is writable, opens the database and
    /// applies migrations. Errors name the path and the cause.
    pub async fn open(config: EngineConfig) -> Result<Self, EngineError> {
        let home = match config.home {
            Some(home) => home,
            None => paths::resolve_home()?,
        };
        paths::ensure_writable_dir(&home)?;
        let store = Store::open(&home.join(DATABASE_FILE))
            .await
            .map_err(EngineError::Startup)?;
        tracing::info!(home = %home.display(), "engine started");
        Ok(Self {
            home,
            store,
            last_doctor: Mutex::new(None),
            catalog: tokio::sync::RwLock::new(None),
            refreshing: AtomicBool::new(false),
            local_models: Mutex::new(Vec::new()),
            assist_cache: Mutex::new(assist::AssistCache::default()),
        })
    }

    /// The data directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The store, for engine modules.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Version, paths and schema.
    pub async fn app_info(&self) -> Result<AppInfo, EngineError> {
        let schema = self.store.schema_version().await?;
        let catalog = self.catalog_state().await?;
        Ok(AppInfo {
            version: VERSION.to_owned(),
            data_dir: self.home.display().to_string(),
            database_path: self.store.path().display().to_string(),
            schema_version: schema.version.to_string(),
            migrations_applied: schema.applied,
            catalog_snapshot_date: catalog.catalog.snapshot_date.clone(),
        })
    }

    /// Closes the database cleanly.
    pub async fn close(&self) {
        self.store.close().await;
    }
}
