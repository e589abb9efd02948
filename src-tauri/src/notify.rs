//! Desktop notifications for attempts that need the user: one reached review, or failed,
//! while the window was not focused. Raised from Rust through tauri-plugin-notification; the
//! webview holds no notification permission.

use switchyard_core::attempt::{AttemptState, AttemptSummary};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

use crate::AppState;

/// Title and body of the notification for an attempt that reached `state`, or `None` when
/// the state is not one the user must act on.
pub fn message_for(state: AttemptState, summary: &AttemptSummary) -> Option<(String, String)> {
    let task = summary.task.lines().next().unwrap_or_default();
    let task: String = if task.chars().count() > 100 {
        task.chars().take(99).chain(['…']).collect()
    } else {
        task.to_owned()
    };
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

/// Notifies when `state` needs the user and the main window is not focused. Never fails the
/// caller: a missing notification daemon is only logged.
pub fn attempt_state<R: Runtime>(app: &AppHandle<R>, attempt_id: &str, state: AttemptState) {
    if !matches!(state, AttemptState::Review | AttemptState::Failed) {
        return;
    }
    let focused = app
        .get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false);
    if focused {
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
            if let Err(error) = app.notification().builder().title(title).body(body).show() {
                tracing::warn!(%error, "cannot show a desktop notification");
            }
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

    #[test]
    fn a_long_task_is_cut_on_a_character_boundary() {
        let task = "é".repeat(150);
        let (title, _) = message_for(AttemptState::Failed, &summary(&task)).expect("failed");
        assert_eq!(title.chars().count(), "Attempt failed: ".len() + 100);
        assert!(title.ends_with('…'));
    }
}
