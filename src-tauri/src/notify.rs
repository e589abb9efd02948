//! Desktop notifications for attempts and runs that need the user: an attempt reached review
//! or failed; a run reached review or finished (completed, failed) — while the window was not
//! focused. Raised from Rust through tauri-plugin-notification; the
//! webview holds no notification permission.

use switchyard_core::attempt::{AttemptState, AttemptSummary};
use switchyard_core::run::{RunReason, RunState, RunSummary};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

use crate::AppState;

/// The first line of `task`, cut to 100 characters.
fn headline(task: &str) -> String {
    let task = task.lines().next().unwrap_or_default();
    if task.chars().count() > 100 {
        task.chars().take(99).chain(['…']).collect()
    } else {
        task.to_owned()
    }
}

/// Title and body of the notification for an attempt that reached `state`, or `None` when
/// the state is not one the user must act on.
pub fn message_for(state: AttemptState, summary: &AttemptSummary) -> Option<(String, String)> {
    let task = headline(&summary.task);
    match state {
        AttemptState::Review => {
            let verdict = match summary.gates_passed {
                Some(true) => "every gate passed",
                Some(false) => "a gate blocked it",
                None => "gates not run",
            };
            Some((
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
            Some((format!("Attempt failed: {task}"), why))
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

/// Title and body of the notification for a run that reached `state`, or `None` when the
/// state is not one the user must act on or hear about.
pub fn message_for_run(state: RunState, summary: &RunSummary) -> Option<(String, String)> {
    let task = headline(&summary.task);
    let cost = format!(
        "{} run · ${:.4} of ${:.2}",
        summary.mode.as_str(),
        summary.cost_usd,
        summary.max_usd
    );
    match state {
        RunState::Review => Some(("Run ready for review".to_owned(), format!("{task}\n{cost}"))),
        RunState::Completed => Some(("Run completed".to_owned(), format!("{task}\n{cost}"))),
        RunState::Failed => {
            let why = summary
                .reason
                .map(reason_words)
                .unwrap_or("it stopped with an error");
            Some((format!("Run failed: {task}"), format!("{why}\n{cost}")))
        }
        _ => None,
    }
}

/// Whether the app's main window has the focus (a notification would only interrupt).
fn focused<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false)
}

fn show<R: Runtime>(app: &AppHandle<R>, title: String, body: String) {
    if let Err(error) = app.notification().builder().title(title).body(body).show() {
        tracing::warn!(%error, "cannot show a desktop notification");
    }
}

/// Notifies when run `run_id` reached review or finished and the main window is not
/// focused. Never fails the caller.
pub fn run_state<R: Runtime>(app: &AppHandle<R>, run_id: &str, state: RunState) {
    if !matches!(
        state,
        RunState::Review | RunState::Completed | RunState::Failed
    ) || focused(app)
    {
        return;
    }
    let Some(engine) = app.try_state::<AppState>().and_then(|s| s.engine()) else {
        return;
    };
    let app = app.clone();
    let id = run_id.to_owned();
    tauri::async_runtime::spawn(async move {
        match engine.run_summary(&id).await {
            Ok(summary) => {
                if let Some((title, body)) = message_for_run(state, &summary) {
                    show(&app, title, body);
                }
            }
            Err(error) => {
                tracing::warn!(%error, run = %id, "no notification: cannot read the run");
            }
        }
    });
}

/// Notifies when `state` needs the user and the main window is not focused. Never fails the
/// caller: a missing notification daemon is only logged.
pub fn attempt_state<R: Runtime>(app: &AppHandle<R>, attempt_id: &str, state: AttemptState) {
    if !matches!(state, AttemptState::Review | AttemptState::Failed) || focused(app) {
        return;
    }
    let Some(engine) = app.try_state::<AppState>().and_then(|s| s.engine()) else {
        return;
    };
    let app = app.clone();
    let id = attempt_id.to_owned();
    tauri::async_runtime::spawn(async move {
        let summary = match engine.attempt_summary(&id).await {
            Ok(summary) => summary,
            Err(error) => {
                tracing::warn!(%error, attempt = %id, "no notification: cannot read the attempt");
                return;
            }
        };
        if let Some((title, body)) = message_for(state, &summary) {
            show(&app, title, body);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchyard_core::attempt::AttemptError;
    use switchyard_core::error::ErrorCode;

    fn summary(task: &str) -> AttemptSummary {
        AttemptSummary {
            id: "a1".into(),
            state: AttemptState::Review,
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
        let (title, body) =
            message_for(AttemptState::Review, &summary("Fix the pager\nmore")).expect("review");
        assert_eq!(title, "Ready for review (a gate blocked it)");
        assert!(body.starts_with("Fix the pager\n"), "{body}");
        assert!(!body.contains("more"));

        let mut failed = summary("Fix it");
        failed.error = Some(AttemptError {
            code: ErrorCode::Timeout,
            message: "the worker ran past 30 s".into(),
        });
        let (title, body) = message_for(AttemptState::Failed, &failed).expect("failed");
        assert_eq!(title, "Attempt failed: Fix it");
        assert_eq!(body, "the worker ran past 30 s");

        assert!(message_for(AttemptState::Running, &summary("x")).is_none());
        assert!(message_for(AttemptState::Integrated, &summary("x")).is_none());
    }

    fn run(task: &str) -> RunSummary {
        RunSummary {
            id: "r1".into(),
            task: task.into(),
            mode: switchyard_core::run::RunMode::Cascade,
            state: RunState::Failed,
            reason: Some(RunReason::BudgetExceeded),
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
        let (title, body) =
            message_for_run(RunState::Failed, &run("Explain monads\nmore")).expect("failed");
        assert_eq!(title, "Run failed: Explain monads");
        assert_eq!(
            body,
            "its USD cap was reached\ncascade run · $0.0123 of $0.05"
        );
        let (title, body) = message_for_run(RunState::Review, &run("Fix it")).expect("review");
        assert_eq!(title, "Run ready for review");
        assert!(body.starts_with("Fix it\n"), "{body}");
        assert!(message_for_run(RunState::Completed, &run("x")).is_some());
        assert!(message_for_run(RunState::Running, &run("x")).is_none());
        assert!(message_for_run(RunState::Canceled, &run("x")).is_none());
    }

    #[test]
    fn a_long_task_is_cut_on_a_character_boundary() {
        let task = "é".repeat(150);
        let (title, _) = message_for(AttemptState::Failed, &summary(&task)).expect("failed");
        assert_eq!(title.chars().count(), "Attempt failed: ".len() + 100);
        assert!(title.ends_with('…'));
    }
}
