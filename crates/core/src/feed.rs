//! What following a job sends: one item type for attempts and runs, so the desktop's pages,
//! the CLI's `runs log --follow` and the MCP server read the same shapes from the same feed
//! (`switchyard_engine::Engine::follow_attempt` and `follow_run`).

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::attempt::transcript::TranscriptUpdate;
use crate::attempt::{AttemptLogEntry, AttemptState};
use crate::run::{RunLogEntry, RunState};

/// One item of a followed job's feed. `E` is the job's stored log entry, `S` its state.
///
/// Order: one `State` first (where the job stands), then stored entries in `seq` order, each
/// once, streamed text, a `State` whenever the stored state changes (also when another
/// process owns the job), and `End` last when the job is no longer live.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FeedItem<E, S> {
    /// A stored log entry; entries arrive in `seq` order, each once. For an attempt, what
    /// the entry changed in its transcript, counted from the feed's first entry (a reader
    /// applies it and folds nothing itself).
    Log {
        entry: E,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        transcript: Option<TranscriptUpdate>,
    },
    /// Streamed text of a running run node: with `reset` it replaces the node's text (a new
    /// call, a cascade's next rung, or a resend after a gap), otherwise it is appended.
    Output {
        node_id: String,
        reset: bool,
        text: String,
    },
    /// The job's stored state; `live` is whether more can follow.
    State { state: S, live: bool },
    /// The job is no longer live and its last entries were sent; nothing more comes.
    End { state: S },
}

/// An attempt's feed item.
pub type AttemptFeedItem = FeedItem<AttemptLogEntry, AttemptState>;
/// A run's feed item.
pub type RunFeedItem = FeedItem<RunLogEntry, RunState>;

impl<E, S> FeedItem<E, S> {
    /// Whether this is the feed's last item.
    pub fn is_end(&self) -> bool {
        matches!(self, Self::End { .. })
    }
}
