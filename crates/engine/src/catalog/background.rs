//! Catalog refreshes as background work: one refresh at a time, each with an id carried by
//! every event it publishes; started on request ([`Engine::start_catalog_refresh`], returns
//! at once) or by the engine's schedule ([`Engine::start_background`]). Both run under the
//! engine's supervisor, so `Engine::close` cancels and awaits them.
//!
//! The one-at-a-time rule lives in [`Engine::claim_refresh`]: a second start while one runs
//! gets the running refresh's id and starts nothing, so it can never publish an outcome that
//! a view would mistake for the running refresh's.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use switchyard_core::catalog::view::{
    RefreshId, RefreshProgress, RefreshReport, RefreshTicket, RefreshTrigger,
};
use switchyard_core::error::ErrorCode;
use tokio::sync::broadcast;

use super::scrub::Scrubber;
use crate::events::{EngineEvent, EventError};
use crate::{Engine, EngineError};

/// Environment variable that turns the background schedule off when set to `1` (tests,
/// metered connections).
pub const NO_BACKGROUND_REFRESH_ENV: &str = "SWITCHYARD_NO_BACKGROUND_REFRESH";

/// Where a refresh reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshFrom {
    /// Every source's own URL (or the endpoint settings).
    Network,
    /// A folder laid out like the corpus.
    Dir(PathBuf),
}

impl RefreshFrom {
    /// `InvalidInput` when the folder is not a directory.
    pub(super) fn validate(&self) -> Result<(), EngineError> {
        match self {
            RefreshFrom::Dir(dir) if !dir.is_dir() => Err(EngineError::InvalidInput(format!(
                "{} is not a directory",
                dir.display()
            ))),
            _ => Ok(()),
        }
    }

    fn dir(&self) -> Option<&Path> {
        match self {
            RefreshFrom::Dir(dir) => Some(dir),
            RefreshFrom::Network => None,
        }
    }
}

/// When the background schedule refreshes from the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackgroundSchedule {
    /// A refresh is due when the last network refresh (or the schedule's last attempt) is
    /// this old.
    pub interval: Duration,
    /// Nothing happens this soon after start (the app's first seconds belong to the UI).
    pub first_delay: Duration,
}

impl Default for BackgroundSchedule {
    /// Every six hours, not in the first 30 seconds.
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(6 * 60 * 60),
            first_delay: Duration::from_secs(30),
        }
    }
}

/// The claim on the one refresh slot. Finishing (or dropping: a canceled task) frees the slot
/// and then publishes the refresh's one `CatalogRefreshFinished` event.
pub(crate) struct RefreshGuard {
    id: RefreshId,
    slot: Arc<Mutex<Option<RefreshId>>>,
    events: broadcast::Sender<EngineEvent>,
    finished: bool,
}

impl RefreshGuard {
    pub(crate) fn id(&self) -> RefreshId {
        self.id
    }

    /// Frees the slot, then publishes the outcome (errors scrubbed).
    pub(super) fn finish(
        &mut self,
        result: &Result<RefreshReport, EngineError>,
        scrubber: &Scrubber,
    ) {
        let (report, error) = match result {
            Ok(report) => (Some(report.clone()), None),
            Err(error) => {
                let mut error = EventError::from(error);
                error.message = scrubber.scrub(&error.message);
                (None, Some(error))
            }
        };
        self.publish(report, error);
    }

    fn publish(&mut self, report: Option<RefreshReport>, error: Option<EventError>) {
        self.finished = true;
        release(&self.slot, self.id);
        // Nobody listening is fine.
        let _ = self.events.send(EngineEvent::CatalogRefreshFinished {
            refresh_id: self.id,
            report,
            error,
        });
    }
}

impl Drop for RefreshGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.publish(
                None,
                Some(EventError {
                    code: ErrorCode::Canceled,
                    message: "the catalog refresh was canceled (the engine is closing)".into(),
                }),
            );
        }
    }
}

fn release(slot: &Mutex<Option<RefreshId>>, id: RefreshId) {
    let mut slot = slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *slot == Some(id) {
        *slot = None;
    }
}

/// The outcome of asking for the refresh slot.
pub(crate) enum Claim {
    /// This caller runs a new refresh.
    Started(RefreshGuard),
    /// One is running already: follow it.
    Running(RefreshId),
}

impl Engine {
    /// The running refresh, if any.
    pub fn catalog_refresh_running(&self) -> Option<RefreshId> {
        *self
            .refresh
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes the refresh slot under a new id and publishes `CatalogRefreshStarted`, or names
    /// the refresh already holding it.
    pub(crate) fn claim_refresh(&self, trigger: RefreshTrigger, from: &RefreshFrom) -> Claim {
        let id = {
            let mut slot = self
                .refresh
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(running) = *slot {
                return Claim::Running(running);
            }
            let id = RefreshId(self.next_refresh.fetch_add(1, Ordering::Relaxed));
            *slot = Some(id);
            id
        };
        self.supervisor.emit(EngineEvent::CatalogRefreshStarted {
            refresh_id: id,
            trigger,
            from_dir: from.dir().map(|d| d.display().to_string()),
        });
        Claim::Started(RefreshGuard {
            id,
            slot: self.refresh.clone(),
            events: self.supervisor.sender(),
            finished: false,
        })
    }

    /// [`Engine::claim_refresh`] for the awaited refreshes: `Busy` when one is running.
    pub(super) fn claim_refresh_or_busy(
        &self,
        from: &RefreshFrom,
    ) -> Result<RefreshGuard, EngineError> {
        if self.supervisor.is_closing() {
            return Err(closing());
        }
        match self.claim_refresh(RefreshTrigger::User, from) {
            Claim::Started(guard) => Ok(guard),
            Claim::Running(id) => Err(EngineError::Busy(format!(
                "a catalog refresh is already running (refresh {id})"
            ))),
        }
    }

    /// Starts a refresh in the background and returns at once with its id; progress and the
    /// outcome arrive as [`EngineEvent`]s carrying that id. When a refresh is already running
    /// nothing new starts: the ticket names the running one (`already_running`), whatever
    /// `from` asked for. Errors: `InvalidInput` (not a folder), `Canceled` (the engine is
    /// closing).
    pub fn start_catalog_refresh(
        self: &Arc<Self>,
        from: RefreshFrom,
    ) -> Result<RefreshTicket, EngineError> {
        from.validate()?;
        if self.supervisor.is_closing() {
            return Err(closing());
        }
        let guard = match self.claim_refresh(RefreshTrigger::User, &from) {
            Claim::Running(id) => {
                return Ok(RefreshTicket {
                    refresh_id: id,
                    already_running: true,
                })
            }
            Claim::Started(guard) => guard,
        };
        let refresh_id = guard.id();
        let engine = self.clone();
        let started = self.supervisor.spawn("catalog refresh", async move {
            let quiet = |_: RefreshProgress| {};
            // The outcome is published (and a failure logged) by run_refresh.
            let _ = engine.run_refresh(guard, &from, &quiet).await;
        });
        if !started {
            // The unspawned task (and its guard) was dropped: a `canceled` event went out.
            return Err(closing());
        }
        Ok(RefreshTicket {
            refresh_id,
            already_running: false,
        })
    }

    /// Starts the engine's own background work: today, refreshing the catalog from the
    /// network on [`BackgroundSchedule::default`] (due when the last network refresh is six
    /// hours old; never in the first 30 s). The app calls this once after start-up; the CLI
    /// does not. Off when `SWITCHYARD_NO_BACKGROUND_REFRESH=1`. Returns whether it started
    /// (also `false` when it already runs).
    pub fn start_background(self: &Arc<Self>) -> bool {
        if std::env::var(NO_BACKGROUND_REFRESH_ENV).as_deref() == Ok("1") {
            tracing::info!("background catalog refresh is off ({NO_BACKGROUND_REFRESH_ENV}=1)");
            return false;
        }
        self.start_background_with(BackgroundSchedule::default())
    }

    /// [`Engine::start_background`] on a schedule of the caller's (tests), regardless of the
    /// environment.
    pub fn start_background_with(self: &Arc<Self>, schedule: BackgroundSchedule) -> bool {
        if self.background.swap(true, Ordering::SeqCst) {
            return false;
        }
        // A weak handle: the schedule must not keep an engine alive that its owner dropped.
        let engine = Arc::downgrade(self);
        self.supervisor.spawn(
            "catalog refresh schedule",
            scheduled_refreshes(engine, schedule),
        )
    }

    /// How long until the schedule's next refresh is due: `interval` after the last network
    /// refresh (from anyone) and after the schedule's own last attempt.
    async fn refresh_due_in(&self, interval: Duration, attempted: Option<Instant>) -> Duration {
        let by_last = match self.last_network_refresh().await {
            Ok(Some(last)) => chrono::DateTime::parse_from_rfc3339(&last)
                .ok()
                .and_then(|t| chrono::Utc::now().signed_duration_since(t).to_std().ok())
                .map_or(Duration::ZERO, |age| interval.saturating_sub(age)),
            Ok(None) => Duration::ZERO,
            Err(error) => {
                tracing::warn!(%error, "cannot read when the catalog was last refreshed");
                Duration::ZERO
            }
        };
        let by_attempt = attempted.map_or(Duration::ZERO, |t| interval.saturating_sub(t.elapsed()));
        by_last.max(by_attempt)
    }
}

fn closing() -> EngineError {
    EngineError::Canceled("the engine is closing; no refresh was started".into())
}

/// The schedule's loop; canceled with the supervisor. Offline machines just record each
/// source's failure (the previous data stays) and try again an interval later.
async fn scheduled_refreshes(engine: Weak<Engine>, schedule: BackgroundSchedule) {
    tokio::time::sleep(schedule.first_delay).await;
    let mut attempted = None;
    loop {
        let Some(strong) = engine.upgrade() else {
            return;
        };
        let wait = strong.refresh_due_in(schedule.interval, attempted).await;
        if !wait.is_zero() {
            drop(strong);
            tokio::time::sleep(wait).await;
            continue;
        }
        attempted = Some(Instant::now());
        match strong.claim_refresh(RefreshTrigger::Schedule, &RefreshFrom::Network) {
            Claim::Started(guard) => {
                let quiet = |_: RefreshProgress| {};
                let _ = strong
                    .run_refresh(guard, &RefreshFrom::Network, &quiet)
                    .await;
            }
            Claim::Running(id) => {
                tracing::debug!(refresh_id = %id, "a refresh is running; the schedule skips a turn");
            }
        }
    }
}
