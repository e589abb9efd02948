//! One feed for following a job, attempt or run: the stored log after a sequence number,
//! then every new entry as it is stored, the job's state whenever it changes, streamed node
//! text, and an end — for a job this process runs and for one another process owns (the
//! CLI's `run --detach`, an agent's run over MCP), which is followed from the shared
//! database. The desktop's pages, the CLI's `runs log --follow` and the MCP server all read
//! it; none of them replays or de-duplicates anything itself.
//!
//! The log is always read from the store (entries are stored before they are broadcast), so
//! entries arrive in `seq` order without gaps or duplicates. Broadcast events only say *when*
//! to read; a timer says so too, which is what brings another process's entries. Streamed
//! text reaches this process's feeds as broadcasts; a run another process executes is read
//! from its running nodes' live files on the same timer. A code node's output is its
//! attempt's worker events as plain text, read from the attempt's log on the same timer.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use switchyard_core::attempt::transcript::{Transcript, TranscriptUpdate};
use switchyard_core::attempt::{AttemptLog, AttemptLogEntry, AttemptState};
use switchyard_core::feed::FeedItem;
use switchyard_core::run::{NodeKind, RunLogEntry, RunState};
use switchyard_core::worker::OutputText;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use crate::{Engine, EngineError, EngineEvent};

/// How often a feed re-reads the store without being told: the longest a job owned by
/// another process waits to show a new entry (two indexed single-job reads per tick).
pub const POLL: Duration = Duration::from_millis(250);

/// Items a feed holds for a slow reader before the follower waits for it.
const BUFFER: usize = 512;

/// A followed job's items, in order; ends after [`FeedItem::End`] (or when the engine
/// closes). Dropping it stops the follower.
#[derive(Debug)]
pub struct Feed<T> {
    items: mpsc::Receiver<T>,
}

impl<T> Feed<T> {
    /// The next item; `None` once the feed has ended.
    pub async fn next(&mut self) -> Option<T> {
        self.items.recv().await
    }
}

impl<T> futures_util::Stream for Feed<T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.items.poll_recv(cx)
    }
}

/// What a kind of job gives the follower.
trait Job: Send + Sync + 'static {
    type Entry: Send + 'static;
    type State: Copy + PartialEq + Send + Sync + 'static;
    const NAME: &'static str;

    fn seq(entry: &Self::Entry) -> u32;
    fn live(state: Self::State) -> bool;
    fn log(
        engine: &Engine,
        id: &str,
        after: u32,
    ) -> impl Future<Output = Result<Vec<Self::Entry>, EngineError>> + Send;
    fn state(
        engine: &Engine,
        id: &str,
    ) -> impl Future<Output = Result<Self::State, EngineError>> + Send;
    /// What `event` means for job `id`.
    fn wake(event: &EngineEvent, id: &str) -> Wake;
    /// What a follower keeps between reads: an attempt's transcript, a run's code panes.
    type Kept: Default + Send + 'static;
    /// What `entry` changes in the job's transcript (an attempt's), as the feed folds it.
    fn fold(kept: &mut Self::Kept, entry: &Self::Entry) -> Option<TranscriptUpdate>;
    /// The whole text so far of running parts whose text comes with no broadcast, by node: a
    /// text node of a run another process executes (its live file), a code node (its
    /// worker's output). Read on the feed's timer.
    fn polled_output(
        engine: &Engine,
        id: &str,
        kept: &mut Self::Kept,
    ) -> impl Future<Output = Result<Vec<(String, String)>, EngineError>> + Send;
    /// The text streamed so far by the job's running parts (`node` only, when given).
    fn snapshot(
        engine: &Engine,
        id: &str,
        node: Option<&str>,
    ) -> impl Future<Output = Result<Vec<(String, String)>, EngineError>> + Send;
}

/// What a broadcast event asks of a follower.
enum Wake {
    Nothing,
    /// Something of this job was stored: read the store.
    Read,
    /// A running node streamed `text` from byte `offset` on.
    Output {
        node_id: String,
        offset: u64,
        text: String,
    },
}

struct AttemptJob;

impl Job for AttemptJob {
    type Entry = AttemptLogEntry;
    type State = AttemptState;
    const NAME: &'static str = "attempt";

    fn seq(entry: &AttemptLogEntry) -> u32 {
        entry.seq
    }
    fn live(state: AttemptState) -> bool {
        state.is_live()
    }
    async fn log(
        engine: &Engine,
        id: &str,
        after: u32,
    ) -> Result<Vec<AttemptLogEntry>, EngineError> {
        engine.attempt_log(id, after).await
    }
    async fn state(engine: &Engine, id: &str) -> Result<AttemptState, EngineError> {
        Ok(engine.attempt_row(id).await?.state)
    }
    fn wake(event: &EngineEvent, id: &str) -> Wake {
        match event {
            EngineEvent::AttemptLog { attempt_id, .. }
            | EngineEvent::AttemptState { attempt_id, .. }
                if attempt_id == id =>
            {
                Wake::Read
            }
            _ => Wake::Nothing,
        }
    }
    type Kept = Transcript;
    fn fold(transcript: &mut Transcript, entry: &AttemptLogEntry) -> Option<TranscriptUpdate> {
        transcript.push(entry)
    }
    async fn polled_output(
        _: &Engine,
        _: &str,
        _: &mut Transcript,
    ) -> Result<Vec<(String, String)>, EngineError> {
        // An attempt's worker output is stored line by line: the log carries it.
        Ok(Vec::new())
    }
    async fn snapshot(
        _: &Engine,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<(String, String)>, EngineError> {
        Ok(Vec::new())
    }
}

struct RunJob;

impl Job for RunJob {
    type Entry = RunLogEntry;
    type State = RunState;
    const NAME: &'static str = "run";

    fn seq(entry: &RunLogEntry) -> u32 {
        entry.seq
    }
    fn live(state: RunState) -> bool {
        state.is_live()
    }
    async fn log(engine: &Engine, id: &str, after: u32) -> Result<Vec<RunLogEntry>, EngineError> {
        engine.run_log(id, after).await
    }
    async fn state(engine: &Engine, id: &str) -> Result<RunState, EngineError> {
        Ok(engine.run_row(id).await?.state)
    }
    fn wake(event: &EngineEvent, id: &str) -> Wake {
        match event {
            EngineEvent::RunOutput {
                run_id,
                node_id,
                offset,
                text,
            } if run_id == id => Wake::Output {
                node_id: node_id.clone(),
                offset: *offset,
                text: text.clone(),
            },
            EngineEvent::RunState { run_id, .. }
            | EngineEvent::RunNode { run_id, .. }
            | EngineEvent::RunBudget { run_id, .. }
                if run_id == id =>
            {
                Wake::Read
            }
            _ => Wake::Nothing,
        }
    }
    type Kept = HashMap<String, CodePane>;
    fn fold(_: &mut HashMap<String, CodePane>, _: &RunLogEntry) -> Option<TranscriptUpdate> {
        None
    }
    async fn polled_output(
        engine: &Engine,
        id: &str,
        panes: &mut HashMap<String, CodePane>,
    ) -> Result<Vec<(String, String)>, EngineError> {
        let nodes = engine.store().run_nodes(id).await?;
        let mut out = engine.remote_live_outputs(id, &nodes).await;
        for node in nodes {
            let (NodeKind::Code, Some(attempt)) = (node.kind, node.attempt_id) else {
                continue;
            };
            let live = node.state.is_live();
            // A node that ended is read once more: for what its worker wrote last, or, when
            // it ended before this reader came, for all of it.
            if !live && panes.get(&node.node_id).is_some_and(|p| p.done) {
                continue;
            }
            let pane = panes.entry(node.node_id.clone()).or_default();
            if pane.attempt != attempt {
                // A new try (a cascade's next rung): its text starts over.
                *pane = CodePane {
                    attempt,
                    ..CodePane::default()
                };
            }
            pane.done = !live;
            pane.read(engine, id).await;
            out.push((node.node_id, pane.text.as_str().to_owned()));
        }
        Ok(out)
    }
    async fn snapshot(
        engine: &Engine,
        id: &str,
        node: Option<&str>,
    ) -> Result<Vec<(String, String)>, EngineError> {
        let output = engine.run_output(id, node).await?;
        Ok(output
            .nodes
            .into_iter()
            .filter(|n| !n.complete && n.state.is_live())
            .map(|n| (n.node_id, n.text))
            .collect())
    }
}

/// A code node's worker output as a run's follower has read it from the node's attempt.
#[derive(Debug, Default)]
struct CodePane {
    attempt: String,
    /// The last log entry read.
    seq: u32,
    text: OutputText,
    /// The node has ended and its last output was read.
    done: bool,
}

impl CodePane {
    /// Reads what the attempt's worker wrote since the last read (of run `run`).
    async fn read(&mut self, engine: &Engine, run: &str) {
        loop {
            // One node's unreadable log (its attempt deleted meanwhile) costs that node's
            // pane, not the whole feed.
            let page = match engine.attempt_log(&self.attempt, self.seq).await {
                Ok(page) => page,
                Err(error) => {
                    tracing::debug!(%run, attempt = %self.attempt, %error, "worker output not read");
                    self.done = true;
                    return;
                }
            };
            let Some(last) = page.last() else { return };
            self.seq = last.seq;
            for entry in &page {
                if let AttemptLog::Worker { event } = &entry.entry {
                    self.text.push(event);
                }
            }
        }
    }
}

impl Engine {
    /// Follows attempt `id` from after log entry `after_seq` (0: from the start) until it is
    /// no longer live; see [`FeedItem`] for the order. Errors: `NotFound`.
    pub async fn follow_attempt(
        self: &Arc<Self>,
        id: &str,
        after_seq: u32,
    ) -> Result<Feed<FeedItem<AttemptLogEntry, AttemptState>>, EngineError> {
        self.follow::<AttemptJob>(id, after_seq).await
    }

    /// Follows run `id` from after log entry `after_seq` (0: from the start) until it is no
    /// longer live, with its running nodes' streamed text; see [`FeedItem`] for the order.
    /// Errors: `NotFound`.
    pub async fn follow_run(
        self: &Arc<Self>,
        id: &str,
        after_seq: u32,
    ) -> Result<Feed<FeedItem<RunLogEntry, RunState>>, EngineError> {
        self.follow::<RunJob>(id, after_seq).await
    }

    async fn follow<J: Job>(
        self: &Arc<Self>,
        id: &str,
        after_seq: u32,
    ) -> Result<Feed<FeedItem<J::Entry, J::State>>, EngineError> {
        // Subscribed before the first read, so nothing stored in between is missed (the seq
        // check drops what the read already sent).
        let events = self.subscribe();
        let state = J::state(self, id).await?;
        let (tx, items) = mpsc::channel(BUFFER);
        let follower = Follower::<J> {
            engine: Arc::clone(self),
            id: id.to_owned(),
            last: after_seq,
            state,
            sent: HashMap::new(),
            kept: J::Kept::default(),
            tx,
        };
        // Not the supervisor's: a feed is a reader, and must end with its engine's channel
        // rather than hold the engine's shutdown for a page that is still open.
        tokio::spawn(follower.run(events));
        Ok(Feed { items })
    }
}

struct Follower<J: Job> {
    engine: Arc<Engine>,
    id: String,
    last: u32,
    state: J::State,
    /// Bytes of each running node's text the reader holds (the engine's offsets count bytes).
    sent: HashMap<String, usize>,
    kept: J::Kept,
    tx: mpsc::Sender<FeedItem<J::Entry, J::State>>,
}

/// Whether the follower goes on: `Ok(false)` when the reader is gone or the job ended.
type Step = Result<bool, EngineError>;

impl<J: Job> Follower<J> {
    async fn run(mut self, mut events: tokio::sync::broadcast::Receiver<EngineEvent>) {
        let first = FeedItem::State {
            state: self.state,
            live: J::live(self.state),
        };
        let started = async {
            Ok::<_, EngineError>(
                self.send(first).await && self.catch_up().await? && self.snapshot(None).await?,
            )
        }
        .await;
        let mut going = match started {
            Ok(true) => self.check_state().await,
            other => other,
        };
        let mut poll = tokio::time::interval(POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        poll.reset();
        while let Ok(true) = going {
            going = tokio::select! {
                event = events.recv() => self.on_event(event).await,
                _ = poll.tick() => self.on_tick().await,
                () = self.tx.closed() => Ok(false),
            };
        }
        if let Err(error) = going {
            tracing::debug!(%error, job = J::NAME, id = %self.id, "feed stopped");
        }
    }

    async fn on_event(&mut self, event: Result<EngineEvent, RecvError>) -> Step {
        match event {
            Ok(event) => match J::wake(&event, &self.id) {
                Wake::Nothing => Ok(true),
                Wake::Read => self.on_poll().await,
                Wake::Output {
                    node_id,
                    offset,
                    text,
                } => self.output(node_id, offset, text).await,
            },
            Err(RecvError::Lagged(missed)) => {
                tracing::debug!(missed, job = J::NAME, id = %self.id, "feed lagged; reading the store");
                Ok(self.catch_up().await? && self.snapshot(None).await?)
            }
            // The engine is closing: what it stored is read one last time.
            Err(RecvError::Closed) => {
                self.catch_up().await?;
                Ok(false)
            }
        }
    }

    /// Reads new entries, then what another process's running nodes streamed, then the state.
    async fn on_poll(&mut self) -> Step {
        if !self.catch_up().await? {
            return Ok(false);
        }
        self.check_state().await
    }

    /// The timer's read: what running parts wrote that no broadcast brings, then as
    /// [`Follower::on_poll`].
    async fn on_tick(&mut self) -> Step {
        if !self.polled_output().await? {
            return Ok(false);
        }
        self.on_poll().await
    }

    /// Sends what [`Job::polled_output`] found new: the new end of a node's text, or all of
    /// it when it started over (a new rung, or a snapshot the reader got meanwhile).
    async fn polled_output(&mut self) -> Step {
        for (node_id, text) in J::polled_output(&self.engine, &self.id, &mut self.kept).await? {
            let held = self.sent.get(&node_id).copied().unwrap_or(0);
            let step = if text.len() < held || !text.is_char_boundary(held) {
                self.output(node_id, 0, text).await?
            } else if text.len() > held {
                let rest = text[held..].to_owned();
                self.output(node_id, held as u64, rest).await?
            } else {
                true
            };
            if !step {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Sends a changed state; at a final one, the last entries and `End`.
    async fn check_state(&mut self) -> Step {
        let state = J::state(&self.engine, &self.id).await?;
        if state != self.state {
            self.state = state;
            let live = J::live(state);
            if !live && !self.catch_up().await? {
                return Ok(false);
            }
            if !self.send(FeedItem::State { state, live }).await {
                return Ok(false);
            }
        }
        if J::live(state) {
            return Ok(true);
        }
        // Entries are stored before the state that ends the job: one last read closes any gap.
        if self.catch_up().await? && self.polled_output().await? {
            self.send(FeedItem::End { state }).await;
        }
        Ok(false)
    }

    async fn send(&mut self, item: FeedItem<J::Entry, J::State>) -> bool {
        self.tx.send(item).await.is_ok()
    }

    /// Sends what is stored after `last`; `false` when the reader is gone.
    async fn catch_up(&mut self) -> Step {
        loop {
            let page = J::log(&self.engine, &self.id, self.last).await?;
            if page.is_empty() {
                return Ok(true);
            }
            for entry in page {
                let seq = J::seq(&entry);
                if seq <= self.last {
                    continue;
                }
                self.last = seq;
                let transcript = J::fold(&mut self.kept, &entry);
                if !self.send(FeedItem::Log { entry, transcript }).await {
                    return Ok(false);
                }
            }
        }
    }

    /// Resends the text streamed so far by running nodes (or only `node`).
    async fn snapshot(&mut self, node: Option<&str>) -> Step {
        for (node_id, text) in J::snapshot(&self.engine, &self.id, node).await? {
            self.sent.insert(node_id.clone(), text.len());
            let item = FeedItem::Output {
                node_id,
                reset: true,
                text,
            };
            if !self.send(item).await {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Turns an engine delta (`text` from byte `offset` on) into what a reader applies.
    async fn output(&mut self, node_id: String, offset: u64, text: String) -> Step {
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
        Ok(self
            .send(FeedItem::Output {
                node_id,
                reset,
                text,
            })
            .await)
    }
}
