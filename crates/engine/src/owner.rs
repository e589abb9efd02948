//! This engine instance as the owner of the jobs it runs, attempts and runs alike: a random
//! token and its process id, written on each live job's row as its lease. The owner recorded
//! on a row is gone when its process is not alive, or when it is this very process but no
//! open engine here holds the token (an engine dropped without closing). A process that is
//! alive is trusted whatever its heartbeat says: a laptop waking from sleep must not find its
//! app's jobs interrupted by a CLI command run a second earlier.
//!
//! A hand-off token (see `crate::handoff`) is held the same way by the process handing a job
//! over, and by the process adopting it, so neither takes the job for an orphan on the way.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use switchyard_runner::process::probe::pid_alive;
use switchyard_store::lease::Leased;

use crate::attempts::now_ms;
use crate::Engine;

/// How often an owner renews its lease on a live job and looks for a cancel another process
/// asked for: one indexed single-row write, so a cancel from the CLI lands within a quarter
/// of a second.
pub(crate) const LEASE_TICK: Duration = Duration::from_millis(250);

/// Tokens held by the engines open in this process.
fn open_tokens() -> &'static Mutex<HashSet<String>> {
    static TOKENS: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    TOKENS.get_or_init(|| Mutex::new(HashSet::new()))
}

fn open() -> std::sync::MutexGuard<'static, HashSet<String>> {
    open_tokens().lock().unwrap_or_else(|p| p.into_inner())
}

/// A random-enough number without a dependency: the standard library seeds each `RandomState`
/// from the OS, mixed with the time and a counter.
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_i64(now_ms());
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// A random number for ids.
pub(crate) fn random_u32() -> u32 {
    (random_u64() >> 32) as u32
}

fn new_token(prefix: &str) -> String {
    format!("{prefix}{:016x}{:016x}", random_u64(), random_u64())
}

/// Whether the owner recorded as (`pid`, `token`) is gone.
pub(crate) fn owner_gone(pid: Option<u32>, token: Option<&str>) -> bool {
    let (Some(pid), Some(token)) = (pid, token) else {
        return true;
    };
    if pid == std::process::id() {
        return !open().contains(token);
    }
    !pid_alive(pid)
}

/// This engine instance's identity as a lease owner, registered as open in this process until
/// dropped, and the hand-off tokens it holds besides.
#[derive(Debug)]
pub(crate) struct Owner {
    pub token: String,
    pub pid: u32,
    held: Mutex<Vec<String>>,
}

impl Owner {
    pub(crate) fn new() -> Self {
        let token = new_token("");
        open().insert(token.clone());
        Self {
            token,
            pid: std::process::id(),
            held: Mutex::new(Vec::new()),
        }
    }

    /// A fresh hand-off token, held by this engine until [`Owner::release`].
    pub(crate) fn new_handoff(&self) -> String {
        let token = new_token("h");
        self.hold(&token);
        token
    }

    /// Holds `token` as this process's (until released or this engine is dropped).
    pub(crate) fn hold(&self, token: &str) {
        open().insert(token.to_owned());
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(token.to_owned());
    }

    /// Stops holding `token`.
    pub(crate) fn release(&self, token: &str) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = held.iter().position(|t| t == token) {
            held.remove(at);
            open().remove(token);
        }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let held = std::mem::take(&mut *self.held.lock().unwrap_or_else(|p| p.into_inner()));
        let mut open = open();
        open.remove(&self.token);
        for token in held {
            open.remove(&token);
        }
    }
}

impl Engine {
    /// Renews this engine's lease on job `id` every [`LEASE_TICK`], calling `on_cancel` at
    /// each renewal that finds a cancel another process asked for. Returns when the lease is
    /// no longer held: the job ended and released it, or another engine took it over.
    pub(crate) async fn keep_lease(&self, kind: Leased, id: &str, mut on_cancel: impl FnMut()) {
        loop {
            tokio::time::sleep(LEASE_TICK).await;
            match self
                .store()
                .renew_lease(kind, id, &self.owner.token, now_ms())
                .await
            {
                Ok(Some(None)) => {}
                Ok(Some(Some(_))) => on_cancel(),
                Ok(None) => return,
                Err(error) => tracing::warn!(job = %id, %error, "lease renewal failed"),
            }
        }
    }
}
