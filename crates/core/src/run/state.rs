//! Run and node states, the reasons a run stops, and the transitions between states.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Where a run stands.
///
/// ```text
/// queued → planning → running → completed (text)  |  review → approved → integrated (code)
/// queued | planning → paused → queued (resume)
/// any live state → failed | canceled | interrupted;  interrupted → queued (recover)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum RunState {
    /// Recorded, waiting for a run slot.
    Queued,
    /// The plan, DAG or ladder is being worked out.
    Planning,
    /// Stopped at a pause point; resuming queues it again.
    Paused,
    /// Nodes are executing.
    Running,
    /// A code run's results await the user's review.
    Review,
    /// The user approved the result; not integrated yet.
    Approved,
    /// The approved result is on the target branch.
    Integrated,
    /// A text run finished with its output(s).
    Completed,
    /// Stopped by a failure; `reason` says which (budget, timeout, a node, …).
    Failed,
    /// Canceled by the user or by the engine closing.
    Canceled,
    /// Its owner went away while it was live; `recover` resumes it.
    Interrupted,
}

/// Why a run stopped where it did (stored and printed in snake_case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum RunReason {
    /// A call's worst case did not fit under the USD cap; partial results are kept.
    BudgetExceeded,
    /// The run ran longer than its run timeout.
    RunTimeout,
    /// A node failed (and with it the nodes that needed it).
    NodeFailed,
    /// The user (or the engine closing) canceled it.
    Canceled,
    /// Its owner process went away.
    Interrupted,
    /// Merging a node's result into the run's integration branch conflicted.
    MergeConflict,
    /// Every rung of the cascade failed.
    AllRungsFailed,
    /// The user rejected the result in review.
    Rejected,
}

/// Where one node of a run stands.
///
/// ```text
/// pending → running → done (text)  |  running → verifying → review → approved | rejected (code)
/// pending → skipped (a dependency failed);  live → failed | canceled | interrupted
/// interrupted → pending (recover) | verifying (recover re-gates a code node)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum NodeState {
    /// Waiting for its dependencies or a slot.
    Pending,
    /// A model call or a worker is producing its result.
    Running,
    /// A code node's gates and verification are running.
    Verifying,
    /// A code node's result awaits review.
    Review,
    /// A code node's result was approved (or merged into the run's branch).
    Approved,
    /// A code node's result was rejected.
    Rejected,
    /// A text node's output is stored.
    Done,
    /// It failed; dependents are skipped.
    Failed,
    /// Canceled with its run.
    Canceled,
    /// Its owner went away while it was live.
    Interrupted,
    /// Not run: a dependency failed, or the run stopped first.
    Skipped,
}

/// A transition a state machine does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cannot go from {from} to {to}")]
pub struct InvalidRunTransition {
    pub from: &'static str,
    pub to: &'static str,
}

impl RunState {
    pub const ALL: [RunState; 11] = [
        RunState::Queued,
        RunState::Planning,
        RunState::Paused,
        RunState::Running,
        RunState::Review,
        RunState::Approved,
        RunState::Integrated,
        RunState::Completed,
        RunState::Failed,
        RunState::Canceled,
        RunState::Interrupted,
    ];

    /// The stable lowercase name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Queued => "queued",
            RunState::Planning => "planning",
            RunState::Paused => "paused",
            RunState::Running => "running",
            RunState::Review => "review",
            RunState::Approved => "approved",
            RunState::Integrated => "integrated",
            RunState::Completed => "completed",
            RunState::Failed => "failed",
            RunState::Canceled => "canceled",
            RunState::Interrupted => "interrupted",
        }
    }

    /// The state named `name` (see [`RunState::as_str`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// An owner is (or should be) working on it: it carries a lease.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            RunState::Queued | RunState::Planning | RunState::Running
        )
    }

    /// It ended with a result the user can read.
    pub fn has_result(self) -> bool {
        matches!(
            self,
            RunState::Review | RunState::Approved | RunState::Integrated | RunState::Completed
        )
    }

    /// Nothing more will happen to it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            RunState::Integrated | RunState::Completed | RunState::Failed | RunState::Canceled
        )
    }

    /// Whether `self → to` is allowed.
    pub fn can_move_to(self, to: RunState) -> bool {
        use RunState::*;
        match (self, to) {
            (Queued, Planning | Running | Paused) => true,
            (Planning, Running | Paused) => true,
            (Paused, Queued | Canceled) => true,
            (Running, Review | Completed | Paused) => true,
            (Review, Approved | Failed) => true,
            (Approved, Integrated | Failed) => true,
            (Interrupted, Queued | Failed | Canceled) => true,
            (from, Failed | Canceled | Interrupted) => from.is_live(),
            _ => false,
        }
    }

    /// `to`, if the move is allowed.
    ///
    /// # Errors
    /// [`InvalidRunTransition`] otherwise.
    pub fn advance(self, to: RunState) -> Result<RunState, InvalidRunTransition> {
        if self.can_move_to(to) {
            Ok(to)
        } else {
            Err(InvalidRunTransition {
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

impl RunReason {
    pub const ALL: [RunReason; 8] = [
        RunReason::BudgetExceeded,
        RunReason::RunTimeout,
        RunReason::NodeFailed,
        RunReason::Canceled,
        RunReason::Interrupted,
        RunReason::MergeConflict,
        RunReason::AllRungsFailed,
        RunReason::Rejected,
    ];

    /// Why the run stopped, in a sentence for people (the run page says it).
    pub fn sentence(self) -> &'static str {
        match self {
            RunReason::BudgetExceeded => {
                "The USD cap was reached: the next call's worst case did not fit."
            }
            RunReason::RunTimeout => "The run ran past its time limit.",
            RunReason::NodeFailed => "A node failed, and the nodes that needed it were skipped.",
            RunReason::Canceled => "Canceled.",
            RunReason::Interrupted => "Its process went away; recover it to continue.",
            RunReason::MergeConflict => "Merging a node's result into the run's branch conflicted.",
            RunReason::AllRungsFailed => "Every rung of the cascade failed.",
            RunReason::Rejected => "Its result was rejected in review.",
        }
    }

    /// The stable snake_case name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RunReason::BudgetExceeded => "budget_exceeded",
            RunReason::RunTimeout => "run_timeout",
            RunReason::NodeFailed => "node_failed",
            RunReason::Canceled => "canceled",
            RunReason::Interrupted => "interrupted",
            RunReason::MergeConflict => "merge_conflict",
            RunReason::AllRungsFailed => "all_rungs_failed",
            RunReason::Rejected => "rejected",
        }
    }

    /// The reason named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl NodeState {
    pub const ALL: [NodeState; 11] = [
        NodeState::Pending,
        NodeState::Running,
        NodeState::Verifying,
        NodeState::Review,
        NodeState::Approved,
        NodeState::Rejected,
        NodeState::Done,
        NodeState::Failed,
        NodeState::Canceled,
        NodeState::Interrupted,
        NodeState::Skipped,
    ];

    /// The stable lowercase name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeState::Pending => "pending",
            NodeState::Running => "running",
            NodeState::Verifying => "verifying",
            NodeState::Review => "review",
            NodeState::Approved => "approved",
            NodeState::Rejected => "rejected",
            NodeState::Done => "done",
            NodeState::Failed => "failed",
            NodeState::Canceled => "canceled",
            NodeState::Interrupted => "interrupted",
            NodeState::Skipped => "skipped",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// A call or a worker is working on it now.
    pub fn is_live(self) -> bool {
        matches!(self, NodeState::Running | NodeState::Verifying)
    }

    /// It ended with a result the user can read (its output, its diff).
    pub fn has_result(self) -> bool {
        matches!(
            self,
            NodeState::Review | NodeState::Approved | NodeState::Done
        )
    }

    /// The user can rate its output: it has one, or had one and rejected it.
    pub fn can_be_rated(self) -> bool {
        self.has_result() || self == NodeState::Rejected
    }

    /// Nothing more will happen to it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            NodeState::Approved
                | NodeState::Rejected
                | NodeState::Done
                | NodeState::Failed
                | NodeState::Canceled
                | NodeState::Skipped
        )
    }

    /// Its result is there for dependents to build on.
    pub fn satisfies_dependents(self) -> bool {
        matches!(self, NodeState::Done | NodeState::Approved)
    }

    /// Dependents can never start (they are skipped).
    pub fn blocks_dependents(self) -> bool {
        matches!(
            self,
            NodeState::Failed | NodeState::Canceled | NodeState::Skipped | NodeState::Rejected
        )
    }

    /// Whether `self → to` is allowed.
    pub fn can_move_to(self, to: NodeState) -> bool {
        use NodeState::*;
        match (self, to) {
            (Pending, Running | Skipped | Canceled | Failed) => true,
            (Running, Verifying | Review | Done) => true,
            (Verifying, Review | Done | Approved) => true,
            (Review, Approved | Rejected) => true,
            (Interrupted, Pending | Verifying | Failed | Canceled | Skipped) => true,
            (from, Failed | Canceled | Interrupted) => from.is_live(),
            _ => false,
        }
    }

    /// `to`, if the move is allowed.
    ///
    /// # Errors
    /// [`InvalidRunTransition`] otherwise.
    pub fn advance(self, to: NodeState) -> Result<NodeState, InvalidRunTransition> {
        if self.can_move_to(to) {
            Ok(to)
        } else {
            Err(InvalidRunTransition {
                from: self.as_str(),
                to: to.as_str(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_node_that_had_a_result_can_be_rated() {
        let rateable: Vec<NodeState> = NodeState::ALL
            .into_iter()
            .filter(|s| s.can_be_rated())
            .collect();
        assert_eq!(
            rateable,
            [
                NodeState::Review,
                NodeState::Approved,
                NodeState::Rejected,
                NodeState::Done
            ]
        );
    }

    #[test]
    fn text_and_code_paths_are_allowed_and_final_states_stay() {
        use RunState::*;
        for path in [
            &[Queued, Planning, Running, Completed][..],
            &[Queued, Running, Review, Approved, Integrated],
            &[Queued, Paused, Queued, Running, Failed],
            &[Queued, Running, Interrupted, Queued, Running, Canceled],
        ] {
            for pair in path.windows(2) {
                assert_eq!(pair[0].advance(pair[1]), Ok(pair[1]), "{pair:?}");
            }
        }
        for from in RunState::ALL.into_iter().filter(|s| s.is_final()) {
            for to in RunState::ALL {
                assert!(!from.can_move_to(to), "{from:?} → {to:?}");
            }
        }
        assert!(!Completed.can_move_to(Running));
        assert!(!Review.can_move_to(Interrupted), "review has no owner");
        assert!(!Paused.can_move_to(Running), "resume queues first");
        assert!(!Running.can_move_to(Approved), "review is not skipped");
    }

    #[test]
    fn node_paths_and_what_dependents_see() {
        use NodeState::*;
        for path in [
            &[Pending, Running, Done][..],
            &[Pending, Running, Verifying, Review, Approved],
            &[Pending, Running, Interrupted, Pending, Running, Failed],
            &[Pending, Skipped],
        ] {
            for pair in path.windows(2) {
                assert_eq!(pair[0].advance(pair[1]), Ok(pair[1]), "{pair:?}");
            }
        }
        for from in NodeState::ALL.into_iter().filter(|s| s.is_final()) {
            for to in NodeState::ALL {
                assert!(!from.can_move_to(to), "{from:?} → {to:?}");
            }
        }
        assert!(!Pending.can_move_to(Done), "a node runs before it is done");
        assert!(
            !Pending.can_move_to(Interrupted),
            "only live nodes are interrupted"
        );
        for state in NodeState::ALL {
            assert!(
                !(state.satisfies_dependents() && state.blocks_dependents()),
                "{state:?}"
            );
        }
        assert!(Done.satisfies_dependents() && Approved.satisfies_dependents());
        assert!(Failed.blocks_dependents() && Skipped.blocks_dependents());
        assert!(!Running.blocks_dependents() && !Review.satisfies_dependents());
    }

    #[test]
    fn names_round_trip_through_the_store_and_serde() {
        for state in RunState::ALL {
            assert_eq!(RunState::parse(state.as_str()), Some(state));
            assert_eq!(
                serde_json::to_value(state).expect("json"),
                serde_json::json!(state.as_str())
            );
        }
        for state in NodeState::ALL {
            assert_eq!(NodeState::parse(state.as_str()), Some(state));
            assert_eq!(
                serde_json::to_value(state).expect("json"),
                serde_json::json!(state.as_str())
            );
        }
        for reason in RunReason::ALL {
            assert_eq!(RunReason::parse(reason.as_str()), Some(reason));
            assert_eq!(
                serde_json::to_value(reason).expect("json"),
                serde_json::json!(reason.as_str())
            );
        }
    }
}
