//! Worker output on its way to the store: the runner's tap feeds raw bytes to the artifact
//! file and lines to the CLI's parser; parsed events wait in a sink bounded in count
//! ([`MAX_STORED_EVENTS`], then one marker) and bytes, and are stored then broadcast.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use switchyard_core::attempt::AttemptLog;
use switchyard_core::confinement::refused_write;
use switchyard_core::error::ErrorCode;
use switchyard_core::worker::{failure, TranscriptParser, Usage, WorkerCli, WorkerEvent};
use switchyard_runner::process::lines::LineAssembler;
use switchyard_runner::process::Stream;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::artifacts::RawOutput;
use crate::Engine;

/// Worker events stored per attempt; later ones are counted and one marker says so.
pub(crate) const MAX_STORED_EVENTS: usize = 5_000;
/// Bytes of parsed-but-unstored events held in memory at most (a flood drops, never grows).
const MAX_QUEUED_BYTES: usize = 8 * 1024 * 1024;

/// Parsed events on their way to the store, bounded in count and bytes.
#[derive(Debug, Default)]
pub(super) struct SinkState {
    pub(super) queue: VecDeque<WorkerEvent>,
    pub(super) queued_bytes: usize,
    pub(super) accepted: usize,
    pub(super) dropped: u64,
    pub(super) closed: bool,
    pub(super) last_usage: Option<Usage>,
    pub(super) final_ok: Option<bool>,
    pub(super) final_summary: Option<String>,
    pub(super) model: Option<String>,
    /// The last error the worker's output reported.
    pub(super) last_error: Option<String>,
    /// The first error that cannot get better by waiting (a refused key, a CLI not set up to
    /// run here), with its code: the worker is stopped on it.
    pub(super) fatal: Option<(ErrorCode, String)>,
    /// The worker was stopped on `fatal` before it gave its own verdict.
    pub(super) stopped_on_fatal: bool,
    /// The worker's last few non-empty stderr lines (where CLIs print why they gave up).
    pub(super) stderr_tail: VecDeque<String>,
}

/// Stderr lines kept for explaining a failure.
const STDERR_TAIL: usize = 6;

impl SinkState {
    /// The CLI's own account of why it failed: its fatal error, its final verdict's summary,
    /// the last error its output reported, or the stderr line that names a cause (else the
    /// last one). `None` when it said nothing.
    pub(super) fn failure_cause(&self) -> Option<(ErrorCode, String)> {
        if let Some(fatal) = &self.fatal {
            return Some(fatal.clone());
        }
        // What the CLI said, most telling first: its verdict, its last error event, then its
        // stderr newest line first. The first that names a cause wins; else the first said.
        let verdict = self
            .final_summary
            .clone()
            .filter(|_| self.final_ok == Some(false));
        let said: Vec<String> = verdict
            .into_iter()
            .chain(self.last_error.clone())
            .chain(self.stderr_tail.iter().rev().cloned())
            .filter(|m| !m.trim().is_empty())
            .collect();
        said.iter()
            .map(|m| (failure::classify(m, None), m))
            .find(|(code, _)| *code != ErrorCode::WorkerFailed)
            .or_else(|| said.first().map(|m| (ErrorCode::WorkerFailed, m)))
            .map(|(code, m)| (code, m.clone()))
    }
}

#[derive(Debug, Default)]
pub(super) struct EventSink {
    state: Mutex<SinkState>,
    pub(super) notify: Notify,
}

impl EventSink {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, SinkState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn push(&self, event: WorkerEvent, size: usize) {
        let mut state = self.lock();
        match &event {
            WorkerEvent::Usage(usage) => state.last_usage = Some(*usage),
            WorkerEvent::Final { ok, summary } => {
                state.final_ok = Some(*ok);
                state.final_summary.clone_from(summary);
            }
            WorkerEvent::Started { model: Some(m), .. } => state.model = Some(m.clone()),
            WorkerEvent::Error { message } => {
                state.last_error = Some(message.clone());
                let code = failure::classify(message, None);
                if state.fatal.is_none() && failure::is_fatal(code) {
                    state.fatal = Some((code, message.clone()));
                }
            }
            _ => {}
        }
        if state.accepted >= MAX_STORED_EVENTS || state.queued_bytes + size > MAX_QUEUED_BYTES {
            state.dropped += 1;
            return;
        }
        state.accepted += 1;
        state.queued_bytes += size;
        state.queue.push_back(event);
        drop(state);
        self.notify.notify_one();
    }

    pub(super) fn close(&self) {
        let mut state = self.lock();
        if state.dropped > 0 {
            let dropped = state.dropped;
            state.queue.push_back(WorkerEvent::Raw {
                line: format!(
                    "[switchyard] {dropped} more worker events were not stored (limit \
                     {MAX_STORED_EVENTS}); the raw output artifact keeps the output"
                ),
            });
        }
        state.closed = true;
        drop(state);
        self.notify.notify_one();
    }

    pub(super) fn take(&self) -> (Vec<WorkerEvent>, bool) {
        let mut state = self.lock();
        state.queued_bytes = 0;
        let batch: Vec<WorkerEvent> = state.queue.drain(..).collect();
        (batch, state.closed)
    }
}

/// What the runner's tap feeds: raw file, line assembly, the CLI's parser.
pub(super) struct TapState {
    pub(super) raw: RawOutput,
    pub(super) stdout: LineAssembler,
    pub(super) stderr: LineAssembler,
    pub(super) parser: Box<dyn TranscriptParser>,
    pub(super) sink: Arc<EventSink>,
    /// The key values the worker was given: a worker that prints its key must not put it
    /// into the store or the events.
    pub(super) secrets: Vec<String>,
    /// Paths the worker reported it could not write (read-only in its sandbox).
    pub(super) refused: Vec<String>,
    /// Stops the worker: canceled on its first fatal error.
    pub(super) stop: CancellationToken,
    /// The CLI whose stderr is its error log (a refused key there is fatal too).
    pub(super) log_of: Option<WorkerCli>,
}

/// Paths kept per attempt from the worker's own reports of refused writes.
const MAX_REFUSED: usize = 200;

fn note_refused(refused: &mut Vec<String>, bytes: &[u8]) {
    if refused.len() >= MAX_REFUSED {
        return;
    }
    if let Some(path) = refused_write(&String::from_utf8_lossy(bytes)) {
        let path = path.trim_end_matches(['\\', '"']).to_owned();
        if !refused.contains(&path) {
            refused.push(path);
        }
    }
}

/// `text` with every value of `secrets` replaced.
fn redact(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= 8) {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "<redacted>");
        }
    }
    text
}

fn stdout_line(
    parser: &mut dyn TranscriptParser,
    sink: &EventSink,
    bytes: &[u8],
    secrets: &[String],
) {
    let text = redact(&String::from_utf8_lossy(bytes), secrets);
    for event in parser.parse_line(&text) {
        sink.push(event, bytes.len());
    }
}

/// `log_of`: the CLI whose stderr is its error log; a refused key there stops the worker.
fn stderr_line(sink: &EventSink, bytes: &[u8], secrets: &[String], log_of: Option<WorkerCli>) {
    let line = redact(&String::from_utf8_lossy(bytes), secrets);
    let trimmed = line.trim();
    if !trimmed.is_empty() {
        let mut state = sink.lock();
        if state.stderr_tail.len() == STDERR_TAIL {
            state.stderr_tail.pop_front();
        }
        let kept: String = trimmed.chars().take(500).collect();
        // A refused key on stderr (OpenCode logs its title request's 401 before its build
        // request fails) stops the worker as one in its events does.
        if let Some(cli) = log_of.filter(|_| state.fatal.is_none()) {
            if failure::classify(&kept, None) == ErrorCode::ProviderAuth {
                state.fatal = Some((ErrorCode::ProviderAuth, cli.log_error(&kept)));
            }
        }
        state.stderr_tail.push_back(kept);
    }
    sink.push(WorkerEvent::Raw { line }, bytes.len());
}

impl TapState {
    pub(super) fn feed(&mut self, stream: Stream, bytes: &[u8]) {
        let TapState {
            raw,
            stdout,
            stderr,
            parser,
            sink,
            secrets,
            refused,
            stop,
            log_of,
        } = self;
        if secrets.is_empty() {
            raw.write(bytes);
        } else {
            // A key split across two chunks would slip through; chunks are pipe reads of up
            // to 64 KiB, and the events (what the UI and the store get) are redacted by line.
            raw.write(redact(&String::from_utf8_lossy(bytes), secrets).as_bytes());
        }
        match stream {
            Stream::Stdout => stdout.push(bytes, |line| {
                note_refused(refused, line.bytes);
                stdout_line(parser.as_mut(), sink, line.bytes, secrets);
            }),
            Stream::Stderr => stderr.push(bytes, |line| {
                note_refused(refused, line.bytes);
                stderr_line(sink, line.bytes, secrets, *log_of);
            }),
        }
        let mut state = sink.lock();
        if state.fatal.is_some() && !stop.is_cancelled() {
            // Stopped before it gave its own verdict (not merely after it).
            state.stopped_on_fatal = state.final_ok.is_none();
            stop.cancel();
        }
    }

    pub(super) fn finish(&mut self, exit_code: Option<i32>) {
        let TapState {
            stdout,
            stderr,
            parser,
            sink,
            secrets,
            ..
        } = self;
        stdout.finish(|line| stdout_line(parser.as_mut(), sink, line.bytes, secrets));
        stderr.finish(|line| stderr_line(sink, line.bytes, secrets, None));
        for event in parser.finish(exit_code) {
            sink.push(event, 0);
        }
        if let Some(model) = parser.model() {
            sink.lock().model = Some(model);
        }
    }
}

impl Engine {
    /// Stores and broadcasts the sink's events until it is closed and drained.
    pub(super) async fn store_events(&self, id: &str, sink: &EventSink) {
        loop {
            let (batch, closed) = sink.take();
            if batch.is_empty() {
                if closed {
                    return;
                }
                sink.notify.notified().await;
                continue;
            }
            for event in batch {
                if let Err(error) = self.log_attempt(id, AttemptLog::Worker { event }).await {
                    tracing::warn!(attempt = %id, %error, "worker event not stored");
                }
            }
        }
    }
}
