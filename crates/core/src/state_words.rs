//! How every attempt, run and node state is shown: its label, the tone of its pill, and
//! whether it is live or final. The desktop shell exports [`state_words`] into the generated
//! bindings (`STATE_WORDS`), so the UI reads the words and the live and final sets from here
//! and keeps no copy.

use std::collections::BTreeMap;

use serde::Serialize;
use specta::Type;

use crate::attempt::AttemptState;
use crate::run::{NodeState, RunState};

/// The colour family of a state's pill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Tone {
    /// Reached a good end, or waits for the user with a result.
    Ok,
    /// Stopped short without failing: canceled, interrupted, paused, skipped.
    Warn,
    /// Failed or rejected.
    Fail,
    /// Work is happening now.
    Live,
    /// Waiting: nothing has started yet.
    Idle,
}

/// One state as people see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct StateWord {
    pub label: &'static str,
    pub tone: Tone,
    /// An owner is (or should be) working on it.
    pub live: bool,
    /// Nothing more will happen to it.
    pub r#final: bool,
    /// It ended with a result the user can read: its output or diff is there to show.
    pub has_result: bool,
    /// The user can cancel it from here (a live job, and a paused or interrupted one).
    pub cancelable: bool,
    /// Its place in its machine's lifecycle, for lists of states (the table itself is keyed by
    /// name, so it has no order).
    pub rank: u8,
}

/// Every state of the three machines, by its stored name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateWords {
    pub attempt: BTreeMap<&'static str, StateWord>,
    pub run: BTreeMap<&'static str, StateWord>,
    pub node: BTreeMap<&'static str, StateWord>,
}

/// One machine's table: each state of `$state::ALL` under its stored name, ranked in that
/// order. A macro because the three state enums share these methods by name, not by a trait.
macro_rules! table {
    ($state:ident) => {
        $state::ALL
            .into_iter()
            .zip(0..)
            .map(|(s, rank)| {
                let word = StateWord {
                    label: s.label(),
                    tone: s.tone(),
                    live: s.is_live(),
                    r#final: s.is_final(),
                    has_result: s.has_result(),
                    cancelable: s.can_move_to($state::Canceled),
                    rank,
                };
                (s.as_str(), word)
            })
            .collect()
    };
}

/// The words of every state, for the UI's bindings.
pub fn state_words() -> StateWords {
    StateWords {
        attempt: table!(AttemptState),
        run: table!(RunState),
        node: table!(NodeState),
    }
}

impl AttemptState {
    pub fn label(self) -> &'static str {
        match self {
            AttemptState::Queued => "Queued",
            AttemptState::Preparing => "Preparing",
            AttemptState::Running => "Running",
            AttemptState::Verifying => "Verifying",
            AttemptState::Review => "Needs review",
            AttemptState::Approved => "Approved",
            AttemptState::Integrated => "Integrated",
            AttemptState::Rejected => "Rejected",
            AttemptState::Superseded => "Superseded",
            AttemptState::Failed => "Failed",
            AttemptState::Canceled => "Canceled",
            AttemptState::Interrupted => "Interrupted",
        }
    }

    pub fn tone(self) -> Tone {
        match self {
            AttemptState::Queued => Tone::Idle,
            AttemptState::Preparing | AttemptState::Running | AttemptState::Verifying => Tone::Live,
            AttemptState::Review | AttemptState::Approved | AttemptState::Integrated => Tone::Ok,
            AttemptState::Rejected | AttemptState::Failed => Tone::Fail,
            AttemptState::Superseded | AttemptState::Canceled | AttemptState::Interrupted => {
                Tone::Warn
            }
        }
    }
}

impl RunState {
    pub fn label(self) -> &'static str {
        match self {
            RunState::Queued => "Queued",
            RunState::Planning => "Planning",
            RunState::Paused => "Paused",
            RunState::Running => "Running",
            RunState::Review => "Needs review",
            RunState::Approved => "Approved",
            RunState::Integrated => "Integrated",
            RunState::Completed => "Completed",
            RunState::Failed => "Failed",
            RunState::Canceled => "Canceled",
            RunState::Interrupted => "Interrupted",
        }
    }

    pub fn tone(self) -> Tone {
        match self {
            RunState::Queued => Tone::Idle,
            RunState::Planning | RunState::Running => Tone::Live,
            RunState::Review | RunState::Approved | RunState::Integrated | RunState::Completed => {
                Tone::Ok
            }
            RunState::Failed => Tone::Fail,
            RunState::Paused | RunState::Canceled | RunState::Interrupted => Tone::Warn,
        }
    }
}

impl NodeState {
    pub fn label(self) -> &'static str {
        match self {
            NodeState::Pending => "Pending",
            NodeState::Running => "Running",
            NodeState::Verifying => "Verifying",
            NodeState::Review => "Review",
            NodeState::Approved => "Approved",
            NodeState::Rejected => "Rejected",
            NodeState::Done => "Done",
            NodeState::Failed => "Failed",
            NodeState::Canceled => "Canceled",
            NodeState::Interrupted => "Interrupted",
            NodeState::Skipped => "Skipped",
        }
    }

    pub fn tone(self) -> Tone {
        match self {
            NodeState::Pending => Tone::Idle,
            NodeState::Running | NodeState::Verifying => Tone::Live,
            NodeState::Review | NodeState::Approved | NodeState::Done => Tone::Ok,
            NodeState::Rejected | NodeState::Failed => Tone::Fail,
            NodeState::Canceled | NodeState::Interrupted | NodeState::Skipped => Tone::Warn,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_of_each_machine_has_its_words_under_its_stored_name() {
        let words = state_words();
        assert_eq!(words.attempt.len(), AttemptState::ALL.len());
        assert_eq!(words.run.len(), RunState::ALL.len());
        assert_eq!(words.node.len(), NodeState::ALL.len());
        assert_eq!(words.run["review"].label, "Needs review");
        assert_eq!(words.node["skipped"].tone, Tone::Warn);
    }

    #[test]
    fn live_states_read_live_and_final_states_never_do() {
        let all = state_words();
        for table in [&all.attempt, &all.run, &all.node] {
            for (name, word) in table {
                assert!(
                    !(word.live && word.r#final),
                    "{name} is both live and final"
                );
                assert_eq!(
                    word.has_result,
                    word.tone == Tone::Ok,
                    "{name}: a result reads ok, and only a result"
                );
                if word.r#final {
                    assert_ne!(word.tone, Tone::Live, "{name}");
                }
            }
        }
        // Whatever is live can be canceled; nothing final can.
        for state in RunState::ALL {
            let word = &all.run[state.as_str()];
            assert!(!word.live || word.cancelable, "{state:?}");
            assert!(!(word.r#final && word.cancelable), "{state:?}");
        }
        assert!(all.run["paused"].cancelable);
        // A live node is working now, so its pill says so.
        for state in NodeState::ALL {
            assert_eq!(state.is_live(), state.tone() == Tone::Live, "{state:?}");
        }
    }

    #[test]
    fn the_words_serialize_as_the_bindings_read_them() {
        let json = serde_json::to_value(state_words()).expect("serializes");
        assert_eq!(
            json["attempt"]["interrupted"],
            serde_json::json!({
                "label": "Interrupted", "tone": "warn", "live": false, "final": false,
                "hasResult": false, "cancelable": true, "rank": 11
            })
        );
        assert_eq!(json["run"]["running"]["tone"], "live");
        assert_eq!(json["node"]["done"]["hasResult"], true);
    }
}
