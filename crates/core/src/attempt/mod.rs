//! Attempts: one try of a coding task by one worker in its own worktree, from a pinned base
//! commit, through Switchyard's gates to the user's review.
//!
//! Everything here is pure: the states and their transitions ([`AttemptState::advance`]),
//! and the shapes the engine persists, the desktop UI renders and the CLI prints. The engine
//! persists every transition (through `store`) before anything else happens and before it is
//! broadcast.

mod id;
pub mod retention;
pub mod self_review;
mod state;
pub mod transcript;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::confinement::{ConfinementMode, ConfinementReport, Denial};
use crate::error::ErrorCode;
use crate::review::diff::{CapturedDiff, FileStatus};
use crate::review::gates::{GateName, GateResult, GateTitle};
use crate::verify::VerificationRecord;
use crate::worker::{Usage, WorkerEvent};

pub use id::{new_attempt_id, valid_attempt_id};
pub use state::{AttemptState, InvalidTransition};

pub use crate::compare::{CompareSize, COMPARE_WORKERS};

/// What a user asks for when starting an attempt (the New task form, `switchyard run`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRequest {
    /// A folder inside a local git repository.
    pub repo: String,
    /// What to do, in the user's words.
    pub task: String,
    /// `model:<id>`, `claude`, `codex`, `gemini`, `opencode`, `aider` or `exec:<command>`.
    pub worker: String,
    /// Verification commands run by Switchyard in the worktree (`sh -c`), in order. `None`:
    /// detected from the repository ([`AttemptRequest::verify`] empty = none at all).
    pub verify: Option<Vec<String>>,
    /// Globs locked in addition to the defaults.
    pub lock: Vec<String>,
    /// Seconds the worker may run; `None`: the default.
    pub timeout_secs: Option<u32>,
    /// A saved role preset whose composed prompt is prepended to the task.
    pub preset: Option<String>,
    /// Lets the worker's and the verification's processes reach the network (by default an
    /// `exec:` worker and verification have none, and a CLI worker reaches only its provider).
    #[serde(default)]
    pub allow_network: bool,
    /// More folders the worker and the verification may write (absolute paths: a build cache,
    /// a shared fixture folder). Never the repository's git directory or the user's checkout.
    #[serde(default)]
    pub allow_write: Vec<String>,
    /// After verification, the model that wrote the change re-reads it and writes a short
    /// self-review (risks, files touched, tests added), shown beside the verification.
    #[serde(default)]
    pub self_review: bool,
}

/// A comment on one line of the new side of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LineComment {
    pub path: String,
    pub line: u32,
    pub text: String,
}

/// What the user decided in review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ReviewDecision {
    Approved {
        message: String,
        /// The commit made on `switchyard/<attempt>` from the verified tree.
        commit: Option<String>,
    },
    Rejected {
        reason: String,
    },
    ChangesRequested {
        comment: String,
        lines: Vec<LineComment>,
        /// The attempt that carries the revision.
        next_attempt: String,
    },
}

/// Where an approved attempt landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationRecord {
    /// The target branch (short name).
    pub branch: String,
    /// Its commit before.
    pub old: String,
    /// Its commit after.
    pub new: String,
    /// `true` for a fast-forward, `false` for a clean merge onto a moved branch.
    pub fast_forward: bool,
}

/// An error as an attempt records it: the code the UI switches on, a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttemptError {
    pub code: ErrorCode,
    pub message: String,
}

/// One attempt as lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttemptSummary {
    pub id: String,
    pub state: AttemptState,
    /// Whether the attempt can still change on its own (queued through verifying).
    pub live: bool,
    /// The worker as given (`model:…`, `claude`, `exec:…`).
    pub worker: String,
    /// The worker CLI's `--version` output, when it has one.
    pub worker_version: Option<String>,
    pub task: String,
    /// The repository's top-level folder.
    pub repo: String,
    /// The pinned base commit (full id).
    pub base: String,
    /// The branch approve integrates into (the branch checked out when the attempt started).
    pub target_branch: Option<String>,
    /// The attempt this one revises (request changes), if any.
    pub parent: Option<String>,
    /// The compare group this attempt belongs to, if any.
    pub compare: Option<String>,
    /// Who started it: `app`, `cli`, or an agent's name.
    pub launcher: String,
    /// Milliseconds since the Unix epoch.
    #[specta(type = f64)]
    pub created_ms: i64,
    #[specta(type = f64)]
    pub updated_ms: i64,
    /// Worker start to the end of verification (or to now while running).
    #[specta(type = Option<f64>)]
    pub elapsed_ms: Option<i64>,
    /// Diff totals once captured.
    pub files_changed: Option<u32>,
    pub additions: Option<u32>,
    pub deletions: Option<u32>,
    /// All gates (verification included) passed; `None` before the gates ran.
    pub gates_passed: Option<bool>,
    pub cost_usd: Option<f64>,
    pub error: Option<AttemptError>,
    /// What confined the worker (`None` until it starts, and for attempts from before
    /// confinement existed).
    pub confinement: Option<ConfinementMode>,
}

/// Everything review shows for one attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttemptReview {
    pub summary: AttemptSummary,
    /// The change against the base, captured from the worktree by Switchyard.
    pub diff: Option<CapturedDiff>,
    /// For a revision (an attempt with a parent): the change against the parent attempt's
    /// captured tree, i.e. what this revision changed (`base` is that tree's id). `None`
    /// without a parent, before capture, or when the parent's tree is not known.
    pub previous: Option<CapturedDiff>,
    /// Each gate's verdict with evidence; verification is the last one.
    pub gates: Vec<GateResult>,
    /// The gates not (yet) run, in the order they run.
    pub gates_not_run: Vec<GateName>,
    /// Every gate with what pages call it, in the order they run.
    pub gate_titles: Vec<GateTitle>,
    /// Switchyard's own verification record.
    pub verification: Option<VerificationRecord>,
    pub usage: Option<Usage>,
    /// What the user decided, once they did.
    pub decision: Option<ReviewDecision>,
    pub integration: Option<IntegrationRecord>,
    /// Approve is possible now (state `review`, every gate passed).
    pub can_approve: bool,
    /// Why approve is not possible, for people.
    pub approve_blocked: Option<String>,
    /// The verification commands as configured.
    pub verify_commands: Vec<String>,
    /// How the worker and the verification were confined, and what was refused.
    pub confinement: Option<ConfinementReport>,
    /// The worker's own review of its change, when one was asked for (never a gate).
    pub self_review: Option<self_review::SelfReview>,
}

impl AttemptReview {
    /// Keeps the hunks of the first files of each diff (against the base, and against the
    /// previous attempt) up to `line_budget` diff lines each, deferring the rest (see
    /// [`CapturedDiff::defer_hunks`]): what a page that must open a large change at once gets.
    pub fn defer_hunks(&mut self, line_budget: usize) {
        for diff in [self.diff.as_mut(), self.previous.as_mut()]
            .into_iter()
            .flatten()
        {
            diff.defer_hunks(line_budget);
        }
    }
}

/// Which of an attempt's diffs a file is read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum DiffAgainst {
    /// The change against the pinned base ([`AttemptReview::diff`]).
    #[default]
    Base,
    /// A revision's change against the attempt it revises ([`AttemptReview::previous`]).
    Previous,
}

/// One entry of an attempt's event log: state changes, gate results and the worker's
/// normalized output, numbered per attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttemptLogEntry {
    pub seq: u32,
    #[specta(type = f64)]
    pub at_ms: i64,
    pub entry: AttemptLog,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum AttemptLog {
    State {
        state: AttemptState,
        note: Option<String>,
    },
    Worker {
        event: WorkerEvent,
    },
    Gate {
        result: GateResult,
    },
    /// A write or connection the sandbox refused, or a repository change undone.
    Denied {
        denial: Denial,
    },
}

/// Short machine names for a file status, as the CLI prints them.
pub fn file_status_name(status: FileStatus) -> &'static str {
    match status {
        FileStatus::Added => "added",
        FileStatus::Modified => "modified",
        FileStatus::Deleted => "deleted",
        FileStatus::Renamed => "renamed",
        FileStatus::Copied => "copied",
        FileStatus::TypeChanged => "type_changed",
    }
}

/// A compare group: the same task sent to several workers, one attempt each, same base.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CompareSummary {
    pub id: String,
    pub attempts: Vec<AttemptSummary>,
}

/// What the New task form shows about a repository before starting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RepoProbe {
    /// The repository's top-level folder.
    pub toplevel: String,
    /// The branch checked out (`None`: detached `HEAD`).
    pub branch: Option<String>,
    /// The commit a new attempt would be pinned to.
    pub head: String,
    /// Uncommitted or untracked paths (not part of the base), the first few.
    pub dirty: Vec<String>,
    /// The detected default verification commands.
    pub verify: Vec<String>,
}
