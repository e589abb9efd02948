//! What a desktop notification says about a job that needs the user: an attempt that reached
//! review or failed, a run that reached review or finished. The engine words it
//! (`Engine::attempt_notice`, `Engine::run_notice`); the desktop shell only decides whether
//! to show it (its window is not focused) and shows it.

use serde::Serialize;
use specta::Type;

use crate::attempt::{AttemptState, AttemptSummary};
use crate::run::{RunReason, RunState, RunSummary};

/// A notification's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
pub struct Notice {
    pub title: String,
    pub body: String,
}

impl Notice {
    fn new(title: impl Into<String>, body: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            body: body.into(),
        }
    }
}

/// Whether an attempt reaching `state` may need a notification.
pub fn attempt_needs_notice(state: AttemptState) -> bool {
    matches!(state, AttemptState::Review | AttemptState::Failed)
}

/// Whether a run reaching `state` may need a notification.
pub fn run_needs_notice(state: RunState) -> bool {
    matches!(
        state,
        RunState::Review | RunState::Completed | RunState::Failed
    )
}

/// The first line of `task`, cut to 100 characters.
fn headline(task: &str) -> String {
    let task = task.lines().next().unwrap_or_default();
    if task.chars().count() > 100 {
        task.chars().take(99).chain(['…']).collect()
    } else {
        task.to_owned()
    }
}

/// The notification for an attempt that reached `state`, or `None` when
/// the state is not one the user must act on.
pub fn attempt_notice(state: AttemptState, summary: &AttemptSummary) -> Option<Notice> {
    let task = headline(&summary.task);
    match state {
        AttemptState::Review => {
            let verdict = match summary.gates_passed {
                Some(true) => "every gate passed",
                Some(false) => "a gate blocked it",
                None => "gates not run",
            };
            Some(Notice::new(
                format!("Ready for review ({verdict})"),
                format!("{task}\n{}", summary.worker),
            ))
        }
        AttemptState::Failed => {
            let why = summary
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_else(|| "the attempt failed".to_owned());
            Some(Notice::new(format!("Attempt failed: {task}"), why))
        }
        _ => None,
    }
}

/// The words for why a run stopped.
fn reason_words(reason: RunReason) -> &'static str {
    match reason {
        RunReason::BudgetExceeded => "its USD cap was reached",
        RunReason::RunTimeout => "it ran past its time limit",
        RunReason::NodeFailed => "a node failed",
        RunReason::Canceled => "it was canceled",
        RunReason::Interrupted => "its process went away",
        RunReason::MergeConflict => "a merge conflicted",
        RunReason::AllRungsFailed => "every rung of the cascade failed",
        RunReason::Rejected => "its result was rejected",
    }
}

/// The notification for a run that reached `state`, or `None` when the
/// state is not one the user must act on or hear about.
pub fn run_notice(state: RunState, summary: &RunSummary) -> Option<Notice> {
    let task = headline(&summary.task);
    let cost = format!(
        "{} run · ${:.4} of ${:.2}",
        summary.mode.as_str(),
        summary.cost_usd,
        summary.max_usd
    );
    match state {
        RunState::Review => Some(Notice::new(
            "Run ready for review",
            format!("{task}\n{cost}"),
        )),
        RunState::Completed => Some(Notice::new("Run completed", format!("{task}\n{cost}"))),
        RunState::Failed => {
            let why = summary
                .reason
                .map(reason_words)
                .unwrap_or("it stopped with an error");
            Some(Notice::new(
                format!("Run failed: {task}"),
                format!("{why}\n{cost}"),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::AttemptError;
    use crate::error::ErrorCode;

    fn summary(task: &str) -> AttemptSummary {
        AttemptSummary {
            id: "a1".into(),
            state: AttemptState::Review,
            live: false,
            worker: "exec:./fix.sh".into(),
            worker_version: None,
            task: task.into(),
            repo: "/r".into(),
            base: "0".repeat(40),
            target_branch: Some("main".into()),
            parent: None,
            compare: None,
            launcher: "app".into(),
            created_ms: 0,
            updated_ms: 0,
            elapsed_ms: None,
            files_changed: Some(1),
            additions: Some(1),
            deletions: Some(0),
            gates_passed: Some(false),
            cost_usd: None,
            error: None,
            confinement: None,
        }
    }

    #[test]
    fn review_says_whether_the_gates_passed_and_failure_says_why() {
        let Notice { title, body } =
            attempt_notice(AttemptState::Review, &summary("Fix the pager\nmore")).expect("review");
        assert_eq!(title, "Ready for review (a gate blocked it)");
        assert!(body.starts_with("Fix the pager\n"), "{body}");
        assert!(!body.contains("more"));

        let mut failed = summary("Fix it");
        failed.error = Some(AttemptError {
            code: ErrorCode::Timeout,
            message: "the worker ran past 30 s".into(),
        });
        let Notice { title, body } = attempt_notice(AttemptState::Failed, &failed).expect("failed");
        assert_eq!(title, "Attempt failed: Fix it");
        assert_eq!(body, "the worker ran past 30 s");

        assert!(attempt_notice(AttemptState::Running, &summary("x")).is_none());
        assert!(attempt_notice(AttemptState::Integrated, &summary("x")).is_none());
    }

    fn run(task: &str) -> RunSummary {
        RunSummary {
            id: "r1".into(),
            task: task.into(),
            mode: crate::run::RunMode::Cascade,
            state: RunState::Failed,
            live: false,
            reason: Some(RunReason::BudgetExceeded),
            reason_text: Some(RunReason::BudgetExceeded.sentence().into()),
            launcher: "app".into(),
            cost_usd: 0.012_34,
            max_usd: 0.05,
            savings_usd: None,
            created_ms: 0,
            finished_ms: None,
            nodes: 1,
            nodes_done: 0,
        }
    }

    #[test]
    fn a_run_that_finished_or_awaits_review_says_so_with_its_cost() {
        let Notice { title, body } =
            run_notice(RunState::Failed, &run("Explain monads\nmore")).expect("failed");
        assert_eq!(title, "Run failed: Explain monads");
        assert_eq!(
            body,
            "its USD cap was reached\ncascade run · $0.0123 of $0.05"
        );
        let Notice { title, body } = run_notice(RunState::Review, &run("Fix it")).expect("review");
        assert_eq!(title, "Run ready for review");
        assert!(body.starts_with("Fix it\n"), "{body}");
        assert!(run_notice(RunState::Completed, &run("x")).is_some());
        assert!(run_notice(RunState::Running, &run("x")).is_none());
        assert!(run_notice(RunState::Canceled, &run("x")).is_none());
    }

    #[test]
    fn a_long_task_is_cut_on_a_character_boundary() {
        let task = "é".repeat(150);
        let Notice { title, .. } =
            attempt_notice(AttemptState::Failed, &summary(&task)).expect("failed");
        assert_eq!(title.chars().count(), "Attempt failed: ".len() + 100);
        assert!(title.ends_with('…'));
    }
}
