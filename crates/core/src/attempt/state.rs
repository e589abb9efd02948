//! Attempt states and the transitions between them.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Where an attempt stands.
///
/// ```text
/// queued → preparing → running → verifying → review → approved → integrated
///                                               ↘ rejected | superseded (changes requested)
/// any live state → failed | canceled | interrupted;  interrupted → verifying (recover)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum AttemptState {
    /// Recorded, waiting to start.
    Queued,
    /// Creating the worktree, resolving the worker.
    Preparing,
    /// The worker is editing the worktree.
    Running,
    /// Switchyard is capturing the diff, running the gates and the verification.
    Verifying,
    /// Waiting for the user's decision.
    Review,
    /// Approved; committed on its branch, not (yet) integrated.
    Approved,
    /// Its commit is on the target branch.
    Integrated,
    /// The user rejected it.
    Rejected,
    /// The user requested changes; a new attempt carries them.
    Superseded,
    /// The worker failed, hung or could not start, or Switchyard could not finish the gates.
    Failed,
    /// Canceled by the user or by the engine closing.
    Canceled,
    /// Its owner went away while it was live; `recover` resumes it.
    Interrupted,
}

/// A transition the state machine does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an attempt cannot go from {from:?} to {to:?}")]
pub struct InvalidTransition {
    pub from: AttemptState,
    pub to: AttemptState,
}

impl AttemptState {
    pub const ALL: [AttemptState; 12] = [
        AttemptState::Queued,
        AttemptState::Preparing,
        AttemptState::Running,
        AttemptState::Verifying,
        AttemptState::Review,
        AttemptState::Approved,
        AttemptState::Integrated,
        AttemptState::Rejected,
        AttemptState::Superseded,
        AttemptState::Failed,
        AttemptState::Canceled,
        AttemptState::Interrupted,
    ];

    /// The stable lowercase name stored in the database and printed by the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptState::Queued => "queued",
            AttemptState::Preparing => "preparing",
            AttemptState::Running => "running",
            AttemptState::Verifying => "verifying",
            AttemptState::Review => "review",
            AttemptState::Approved => "approved",
            AttemptState::Integrated => "integrated",
            AttemptState::Rejected => "rejected",
            AttemptState::Superseded => "superseded",
            AttemptState::Failed => "failed",
            AttemptState::Canceled => "canceled",
            AttemptState::Interrupted => "interrupted",
        }
    }

    /// The state named `name` (see [`AttemptState::as_str`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Someone is (or should be) working on it: it has an owner lease.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            AttemptState::Queued
                | AttemptState::Preparing
                | AttemptState::Running
                | AttemptState::Verifying
        )
    }

    /// It ended with a result the user can read (its diff, its output).
    pub fn has_result(self) -> bool {
        matches!(
            self,
            AttemptState::Review | AttemptState::Approved | AttemptState::Integrated
        )
    }

    /// Nothing more will happen to it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            AttemptState::Integrated
                | AttemptState::Rejected
                | AttemptState::Superseded
                | AttemptState::Failed
                | AttemptState::Canceled
        )
    }

    /// Its worktree is still needed (live, in review, approved but not integrated, or
    /// interrupted and recoverable).
    pub fn keeps_worktree(self) -> bool {
        !self.is_final()
    }

    /// Whether `self → to` is allowed.
    pub fn can_move_to(self, to: AttemptState) -> bool {
        use AttemptState::*;
        match (self, to) {
            (Queued, Preparing) | (Preparing, Running) | (Running, Verifying) => true,
            (Verifying, Review) => true,
            (Review, Approved | Rejected | Superseded) => true,
            // A conflict on integrate leaves the attempt approved; it can be retried or rejected.
            (Approved, Integrated | Rejected) => true,
            (Interrupted, Verifying | Failed | Canceled) => true,
            // Interrupted before its worker ever ran (a detached owner that died before
            // adopting it): recovering starts it over.
            (Interrupted, Queued) => true,
            (from, Failed | Canceled | Interrupted) => from.is_live(),
            _ => false,
        }
    }

    /// `to`, if the move is allowed.
    ///
    /// # Errors
    /// [`InvalidTransition`] otherwise.
    pub fn advance(self, to: AttemptState) -> Result<AttemptState, InvalidTransition> {
        if self.can_move_to(to) {
            Ok(to)
        } else {
            Err(InvalidTransition { from: self, to })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AttemptState::*;
    use super::*;

    #[test]
    fn the_happy_path_is_allowed_and_nothing_leaves_a_final_state() {
        let path = [
            Queued, Preparing, Running, Verifying, Review, Approved, Integrated,
        ];
        for pair in path.windows(2) {
            assert_eq!(pair[0].advance(pair[1]), Ok(pair[1]));
        }
        for from in AttemptState::ALL.into_iter().filter(|s| s.is_final()) {
            for to in AttemptState::ALL {
                assert!(!from.can_move_to(to), "{from:?} → {to:?}");
            }
        }
    }

    #[test]
    fn review_cannot_be_skipped_and_only_live_work_is_interrupted() {
        assert!(Running.advance(Review).is_err());
        assert!(Running.advance(Approved).is_err());
        assert!(Verifying.advance(Approved).is_err());
        assert!(Review.advance(Integrated).is_err());
        assert!(Review.advance(Interrupted).is_err());
        assert!(Running.can_move_to(Interrupted));
        assert!(Interrupted.can_move_to(Verifying));
        assert!(Interrupted.can_move_to(Queued));
        assert!(!Interrupted.can_move_to(Review));
        assert!(!Interrupted.can_move_to(Running));
    }

    #[test]
    fn names_round_trip() {
        for state in AttemptState::ALL {
            assert_eq!(AttemptState::parse(state.as_str()), Some(state));
            let json = serde_json::to_value(state).expect("serialize");
            assert_eq!(json, serde_json::json!(state.as_str()));
        }
    }
}
