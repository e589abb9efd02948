//! The engine: one async method per user action, composing `core` (pure logic), `store`
//! (SQLite), `keychain` (secrets), `providers` (HTTP) and `runner` (processes).
//!
//! The desktop shell (`src-tauri`) and the CLI are both thin over [`Engine`]; neither holds
//! logic of its own. No dependency on `tauri`.
//!
//! Background work (catalog refreshes started with [`Engine::start_catalog_refresh`], the
//! schedule started with [`Engine::start_background`]) belongs to the engine's
//! [`supervisor::Supervisor`]; its progress is published as [`EngineEvent`]s to
//! [`Engine::subscribe`]rs; [`Engine::close`] cancels and awaits all of it. Attempts
//! ([`attempts`]) and runs ([`runs`]: one task across one or many models and workers, under
//! limits and a hard USD cap) execute in the same supervisor.

pub mod agents;
mod assist;
pub mod attempts;
pub mod catalog;
pub mod confinement;
mod doctor;
mod error;
pub mod events;
pub mod feed;
mod first_run;
pub mod handoff;
mod keys;
pub mod learning;
mod local;
pub mod model_worker;
mod notice;
mod outcomes;
mod owner;
mod palette;
pub mod paths;
mod planner;
mod roles;
mod routing;
pub mod runs;
pub mod supervisor;
mod workers;
mod worktree_usage;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex};

use switchyard_core::catalog::build::LocalModel;

use switchyard_core::doctor::DoctorReport;
use switchyard_core::info::AppInfo;
use switchyard_store::{Store, DATABASE_FILE};

pub use agents::AGENTS_MAY_APPROVE_SETTING;
pub use catalog::{BackgroundSchedule, RefreshFrom};
pub use error::EngineError;
pub use events::{EngineEvent, EventError};
pub use keys::binding::KEY_LAYOUT_SETTING;
pub use switchyard_keychain::{InvalidKey, ProviderKey, Secret, MAX_KEY_BYTES};
pub use switchyard_providers::client::CancellationToken;
pub use switchyard_runner::tools::{Located, ToolSearch, ToolSource};
pub use workers::WORKER_PATH_SETTING;
pub use worktree_usage::{WORKTREES_DIR, WORKTREE_RETENTION_SETTING};

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
    /// Held while a doctor runs, so a caller that only needs a report waits for the running
    /// one instead of starting a second.
    doctor_turn: tokio::sync::Mutex<()>,
    /// The built catalog and its index, built on first use, replaced on refresh.
    catalog: tokio::sync::RwLock<Option<Arc<catalog::CatalogState>>>,
    /// The running catalog refresh, if any (one at a time; a second start follows it).
    refresh: Arc<Mutex<Option<switchyard_core::catalog::view::RefreshId>>>,
    /// The id the next refresh gets.
    next_refresh: AtomicU32,
    /// Whether the background schedule was started (it runs once per engine).
    background: AtomicBool,
    /// Background tasks and the event stream.
    supervisor: supervisor::Supervisor,
    /// Models the local servers listed at the last refresh.
    local_models: Mutex<Vec<LocalModel>>,
    /// Set once this data directory's keychain entries are in the origin-bound layout.
    key_layout: tokio::sync::OnceCell<()>,
    /// Categories the classifier fallback's model gave, per task text.
    assist_cache: Mutex<assist::AssistCache>,
    /// This instance as the lease owner of the attempts and runs it runs.
    owner: owner::Owner,
    /// The attempts this instance runs, and what their review pages reuse.
    attempts: attempts::AttemptsRuntime,
    /// This instance's lease identity as a run owner and the runs it executes.
    runs: runs::RunsRuntime,
    /// Where worker CLIs are looked for; asks the login shell at most once.
    tools: Arc<switchyard_runner::tools::ToolSearch>,
    /// The model client `ask` uses, built once: building one sets up TLS (the root store)
    /// every time, milliseconds a run's every call would pay, and each would open its own
    /// connections. Keys go with each request, never into the client.
    ask_client: std::sync::OnceLock<switchyard_providers::client::ModelClient>,
}

impl Engine {
    /// Creates the data directory if needed, checks it is writable, opens the database and
    /// applies migrations. Errors name the path and the cause.
    pub async fn open(config: EngineConfig) -> Result<Self, EngineError> {
        Self::open_holding(config, None).await
    }

    /// [`Engine::open`], with a hand-off token held before the start-up checks run.
    async fn open_holding(config: EngineConfig, held: Option<&str>) -> Result<Self, EngineError> {
        let home = match config.home {
            Some(home) => home,
            None => paths::resolve_home()?,
        };
        paths::ensure_writable_dir(&home)?;
        let store = Store::open(&home.join(DATABASE_FILE))
            .await
            .map_err(EngineError::Startup)?;
        tracing::info!(home = %home.display(), "engine started");
        let engine = Self {
            home,
            store,
            last_doctor: Mutex::new(None),
            doctor_turn: tokio::sync::Mutex::new(()),
            catalog: tokio::sync::RwLock::new(None),
            refresh: Arc::new(Mutex::new(None)),
            next_refresh: AtomicU32::new(1),
            background: AtomicBool::new(false),
            supervisor: supervisor::Supervisor::new(tokio::runtime::Handle::current()),
            local_models: Mutex::new(Vec::new()),
            key_layout: tokio::sync::OnceCell::new(),
            assist_cache: Mutex::new(assist::AssistCache::default()),
            owner: owner::Owner::new(),
            attempts: attempts::AttemptsRuntime::new(),
            runs: runs::RunsRuntime::new(),
            tools: Arc::new(switchyard_runner::tools::ToolSearch::from_env()),
            ask_client: std::sync::OnceLock::new(),
        };
        if let Some(token) = held {
            engine.owner.hold(token);
        }
        engine.attempts_startup().await;
        engine.runs_startup().await;
        Ok(engine)
    }

    /// The data directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The store, for engine modules.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Every event the engine publishes from now on (catalog refreshes today). A subscriber
    /// that falls far behind gets `Lagged` and continues; see [`supervisor`].
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<EngineEvent> {
        self.supervisor.subscribe()
    }

    /// Version, paths and schema. The catalog's date is left out (and logged) when the
    /// catalog cannot be built, so the app still opens and can show why.
    pub async fn app_info(&self) -> Result<AppInfo, EngineError> {
        let schema = self.store.schema_version().await?;
        let snapshot_date = match self.catalog_state().await {
            Ok(catalog) => catalog.catalog.snapshot_date.clone(),
            Err(error) => {
                tracing::warn!(%error, "the catalog cannot be built; app info goes without its date");
                None
            }
        };
        Ok(AppInfo {
            version: VERSION.to_owned(),
            data_dir: self.home.display().to_string(),
            database_path: self.store.path().display().to_string(),
            schema_version: schema.version.to_string(),
            migrations_applied: schema.applied,
            catalog_snapshot_date: snapshot_date,
        })
    }

    /// Stops the engine: cancels every background task (a running refresh ends with a
    /// `canceled` event), waits until all have returned, then closes the database cleanly.
    pub async fn close(&self) {
        self.supervisor.shutdown().await;
        self.attempts_close().await;
        self.runs_close().await;
        self.store.close().await;
    }
}
