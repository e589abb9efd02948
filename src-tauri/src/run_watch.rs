//! One page's live view of one run: the stored event log after a sequence number, then every
//! new entry; and the streamed text of its running nodes, as "replace" and "append" pieces so
//! the page never deals in the engine's byte offsets.
//!
//! The log is always read from the store (entries are stored before they are broadcast), so a
//! page sees entries in `seq` order without gaps or duplicates. Events only say *when* to
//! read; a timer does too, so runs executed by another process (the CLI, `--detach`) are
//! followed from the shared database. Streamed text exists only in the executing process: a
//! run of another process shows its node outputs once they are stored.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use specta::Type;
use switchyard_core::run::{RunLogEntry, RunState};
use switchyard_engine::{Engine, EngineError, EngineEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;

/// How often the feed re-reads the log without being told (runs of other processes).
pub const POLL: Duration = Duration::from_millis(750);

/// What a run's watcher sends.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RunFeedItem {
    /// A stored log entry; entries arrive in `seq` order, each once.
    Log { entry: RunLogEntry },
    /// Streamed text of a running node: with `reset` it replaces the node's text (a new call,
    /// a cascade's next rung, or a resend after a gap), otherwise it is appended.
    Output {
        node_id: String,
        reset: bool,
        text: String,
    },
    /// The run is no longer live (its last entries were sent); nothing more comes.
    End { state: RunState },
}

/// Follows run `id` for one page; `sink` returns `false` once the page is gone.
pub struct RunFeed<S> {
    engine: Arc<Engine>,
    id: String,
    last: u32,
    /// Bytes of each node's text the page holds (the engine's offsets count bytes).
    sent: HashMap<String, usize>,
    sink: S,
}

impl<S: FnMut(RunFeedItem) -> bool + Send + 'static> RunFeed<S> {
    /// Sends the log after `after_seq` and the text streamed so far by running nodes. Returns
    /// the feed to [`follow`](Self::follow) with `events` (subscribed before this call, so
    /// nothing stored in between is lost), or `None` when the run is not live (its `End` is
    /// sent) or the page is gone.
    ///
    /// Errors: the engine's (`NotFound` for an unknown run).
    pub async fn start(
        engine: Arc<Engine>,
        id: &str,
        after_seq: u32,
        sink: S,
    ) -> Result<Option<Self>, EngineError> {
        let mut feed = RunFeed {
            engine,
            id: id.to_owned(),
            last: after_seq,
            sent: HashMap::new(),
            sink,
        };
        let state = feed.engine.run_summary(id).await?.state;
        if !feed.catch_up().await? || !feed.snapshot(None).await? {
            return Ok(None);
        }
        if !state.is_live() {
            feed.finish(state).await;
            return Ok(None);
        }
        Ok(Some(feed))
    }

    /// Follows the run until it is no longer live or the page is gone.
    pub async fn follow(mut self, mut events: Receiver<EngineEvent>) {
        let mut poll = tokio::time::interval(POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let keep = tokio::select! {
                event = events.recv() => self.on_event(event).await,
                _ = poll.tick() => self.on_poll().await,
            };
            match keep {
                Ok(true) => {}
                Ok(false) => return,
                Err(error) => {
                    tracing::debug!(%error, run = %self.id, "run watcher stopped");
                    return;
                }
            }
        }
    }

    async fn on_event(
        &mut self,
        event: Result<EngineEvent, RecvError>,
    ) -> Result<bool, EngineError> {
        match event {
            Ok(EngineEvent::RunOutput {
                run_id,
                node_id,
                offset,
                text,
            }) if run_id == self.id => self.output(node_id, offset, text).await,
            Ok(EngineEvent::RunState { run_id, state, .. }) if run_id == self.id => {
                if !self.catch_up().await? {
                    return Ok(false);
                }
                if state.is_live() {
                    return Ok(true);
                }
                self.finish(state).await;
                Ok(false)
            }
            Ok(EngineEvent::RunNode { run_id, .. } | EngineEvent::RunBudget { run_id, .. })
                if run_id == self.id =>
            {
                self.catch_up().await
            }
            Ok(_) => Ok(true),
            Err(RecvError::Lagged(missed)) => {
                tracing::debug!(missed, run = %self.id, "run watcher lagged; reading the store");
                Ok(self.catch_up().await? && self.snapshot(None).await?)
            }
            Err(RecvError::Closed) => Ok(false),
        }
    }

    async fn on_poll(&mut self) -> Result<bool, EngineError> {
        if !self.catch_up().await? {
            return Ok(false);
        }
        let state = self.engine.run_summary(&self.id).await?.state;
        if state.is_live() {
            return Ok(true);
        }
        self.finish(state).await;
        Ok(false)
    }

    /// The last stored entries, then `End`.
    async fn finish(&mut self, state: RunState) {
        if matches!(self.catch_up().await, Ok(true)) {
            (self.sink)(RunFeedItem::End { state });
        }
    }

    /// Sends what is stored after `last`; `false` when the page is gone.
    async fn catch_up(&mut self) -> Result<bool, EngineError> {
        loop {
            let page = self.engine.run_log(&self.id, self.last).await?;
            if page.is_empty() {
                return Ok(true);
            }
            for entry in page {
                if entry.seq <= self.last {
                    continue;
                }
                self.last = entry.seq;
                if !(self.sink)(RunFeedItem::Log { entry }) {
                    return Ok(false);
                }
            }
        }
    }

    /// Resends the text streamed so far by running nodes (or only `node`); `false` when the
    /// page is gone.
    async fn snapshot(&mut self, node: Option<&str>) -> Result<bool, EngineError> {
        let output = self.engine.run_output(&self.id, node).await?;
        for node in output.nodes {
            if node.complete || !node.state.is_live() {
                continue;
            }
            self.sent.insert(node.node_id.clone(), node.text.len());
            let item = RunFeedItem::Output {
                node_id: node.node_id,
                reset: true,
                text: node.text,
            };
            if !(self.sink)(item) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Turns an engine delta (`text` from byte `offset` on) into what the page applies.
    async fn output(
        &mut self,
        node_id: String,
        offset: u64,
        text: String,
    ) -> Result<bool, EngineError> {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        let held = self.sent.get(&node_id).copied().unwrap_or(0);
        let piece = if offset == 0 {
            Some((true, text))
        } else if offset == held {
            Some((false, text))
        } else if offset < held {
            // Part of it came with the snapshot already.
            let skip = held - offset;
            if skip >= text.len() {
                return Ok(true);
            }
            text.get(skip..).map(|rest| (false, rest.to_owned()))
        } else {
            None
        };
        let Some((reset, text)) = piece else {
            // A gap (a missed delta): resend the node's whole text.
            return self.snapshot(Some(&node_id)).await;
        };
        let total = if reset { text.len() } else { held + text.len() };
        self.sent.insert(node_id.clone(), total);
        Ok((self.sink)(RunFeedItem::Output {
            node_id,
            reset,
            text,
        }))
    }
}
