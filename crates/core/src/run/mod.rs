//! Runs: one task executed across one or many models (and, for code, workers), in one of five
//! modes, under limits and a hard USD cap.
//!
//! Everything here is pure: the modes, the run and node state machines ([`state`]), the
//! limits and their settings ([`limits`]), the budget ledger and worst-case pricing
//! ([`ledger`]), DAG scheduling ([`dag`]), bounded node context with its trace
//! ([`context`]), cascade ladders and failure signals ([`cascade`]), collective merging
//! ([`collective`]), savings against a baseline ([`savings`]), the request and view types
//! the UI and CLI exchange with the engine ([`view`]), and the launch options the CLI and
//! the MCP server check the same way before they become a request ([`launch`]). The engine
//! persists every transition before it broadcasts it.
//!
//! A run has nodes. A text node's tries are model calls; a code node's tries are attempts
//! (see [`crate::attempt`]).

pub mod cascade;
pub mod collective;
pub mod context;
pub mod dag;
pub mod defaults;
pub mod launch;
pub mod ledger;
pub mod limits;
pub mod savings;
pub mod schema;
pub mod state;
pub mod view;

use serde::{Deserialize, Serialize};
use specta::Type;

pub use cascade::{FailureSignal, JudgeSpec, Ladder, Rung, RungOutcome, SkippedRung};
pub use context::{ContextItem, ContextTrace, NodeContext};
pub use dag::Join;
pub use defaults::RunDefaults;
pub use launch::{RunOption, RunOptions, RunOptionsError};
pub use ledger::{BudgetExceeded, Ledger};
pub use limits::{RunLimits, RunLimitsOverride};
pub use state::{InvalidRunTransition, NodeState, RunReason, RunState};
pub use view::*;

/// How a run executes its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum RunMode {
    /// One node, the picked model (or a chosen worker).
    Single,
    /// Several diverse models in parallel; text runs merge their answers.
    Collective,
    /// A ladder of models, escalating only on a failure signal.
    Cascade,
    /// Sequential steps, each with its own model.
    Plan,
    /// The planner's DAG; independent nodes run in parallel.
    Swarm,
}

impl RunMode {
    pub const ALL: [RunMode; 5] = [
        RunMode::Single,
        RunMode::Collective,
        RunMode::Cascade,
        RunMode::Plan,
        RunMode::Swarm,
    ];

    /// The stable lowercase name stored, printed and accepted by the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            RunMode::Single => "single",
            RunMode::Collective => "collective",
            RunMode::Cascade => "cascade",
            RunMode::Plan => "plan",
            RunMode::Swarm => "swarm",
        }
    }

    /// The mode named `name` (case-insensitive).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

/// What a node produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum NodeKind {
    /// A model's answer, stored as an artifact.
    Text,
    /// A worker's change in its own worktree, through the gates to review.
    Code,
}

impl NodeKind {
    /// The stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Text => "text",
            NodeKind::Code => "code",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        [NodeKind::Text, NodeKind::Code]
            .into_iter()
            .find(|k| k.as_str() == name)
    }
}

/// The part a node plays in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum NodeRole {
    /// The one node of a single run.
    Single,
    /// One of a collective's answers.
    Member,
    /// The collective's synthesis of its members' answers.
    Merge,
    /// The one node of a cascade; its tries climb the ladder.
    Cascade,
    /// A step of a plan or a node of a swarm.
    Step,
}

impl NodeRole {
    const ALL: [NodeRole; 5] = [
        NodeRole::Single,
        NodeRole::Member,
        NodeRole::Merge,
        NodeRole::Cascade,
        NodeRole::Step,
    ];

    /// The stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Single => "single",
            NodeRole::Member => "member",
            NodeRole::Merge => "merge",
            NodeRole::Cascade => "cascade",
            NodeRole::Step => "step",
        }
    }

    /// The role named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

/// A new run id: the attempt id format (time-ordered hex, safe in a branch name
/// `switchyard/run-<id>` and a folder name).
pub fn new_run_id(now_ms: u64, random: u32) -> String {
    crate::attempt::new_attempt_id(now_ms, random)
}

/// Whether `id` could be a run or node id: 1–64 ASCII letters, digits, `-` or `_`.
pub fn valid_id(id: &str) -> bool {
    crate::attempt::valid_attempt_id(id)
}

/// The most characters a launcher name keeps.
pub const MAX_LAUNCHER_CHARS: usize = 64;

/// Who launched a run, as recorded: `app`, `cli`, or the calling agent's name (`codex`,
/// `claude-code`, …: its MCP client's name, or its `PARENT_AGENT`). Trimmed, control
/// characters dropped, at most [`MAX_LAUNCHER_CHARS`]; empty becomes `app`.
pub fn launcher_name(given: &str) -> String {
    let name: String = given
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_LAUNCHER_CHARS)
        .collect();
    if name.is_empty() {
        "app".to_owned()
    } else {
        name
    }
}

/// The launcher a CLI process records: the calling agent's `PARENT_AGENT` when set and not
/// empty, else `fallback` (`cli`).
pub fn launcher_from_env(parent_agent: Option<&str>, fallback: &str) -> String {
    match parent_agent.map(str::trim).filter(|a| !a.is_empty()) {
        Some(agent) => launcher_name(agent),
        None => launcher_name(fallback),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_kinds_and_roles_round_trip() {
        for mode in RunMode::ALL {
            assert_eq!(RunMode::parse(mode.as_str()), Some(mode));
            assert_eq!(
                serde_json::to_value(mode).expect("json"),
                serde_json::json!(mode.as_str())
            );
        }
        assert_eq!(RunMode::parse(" Swarm "), Some(RunMode::Swarm));
        assert_eq!(RunMode::parse("wave"), None);
        assert_eq!(NodeKind::parse("code"), Some(NodeKind::Code));
        for role in NodeRole::ALL {
            assert_eq!(NodeRole::parse(role.as_str()), Some(role));
        }
    }

    #[test]
    fn launchers_prefer_the_parent_agent() {
        assert_eq!(launcher_from_env(Some("claude-code"), "cli"), "claude-code");
        assert_eq!(launcher_from_env(Some("  "), "cli"), "cli");
        assert_eq!(launcher_from_env(None, "cli"), "cli");
        assert_eq!(launcher_name(""), "app");
        assert_eq!(launcher_name("a\u{7}b"), "ab");
        assert_eq!(launcher_name(&"x".repeat(100)).len(), MAX_LAUNCHER_CHARS);
        let id = new_run_id(1_766_000_000_000, 7);
        assert!(valid_id(&id));
    }
}
