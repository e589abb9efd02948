//! The app shell: Settings shows what Rust reports; start-up failures show a clear window.

use crate::harness::{E2e, Launch};

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn settings_shows_schema_and_doctor_from_rust() {
    E2e::run(
        "settings_shows_schema_and_doctor_from_rust",
        Launch::fresh(),
        |app| async move {
            let result = async {
                app.goto("settings").await?;
                // The data dir is the SWITCHYARD_HOME this test chose: it can only be on screen if
                // the typed command reached the engine.
                let home = app.home.display().to_string();
                app.wait_text("#info-datadir", |t| t == home).await?;
                let expected_migrations = switchyard_store::Store::known_migrations();
                let schema = app
                    .wait_text("#info-schema", |t| t.contains("migrations applied"))
                    .await?;
                if !schema.ends_with(&format!("({expected_migrations} migrations applied)")) {
                    return Err(format!(
                        "schema line {schema:?}, expected {expected_migrations} migrations"
                    ));
                }
                let version: String = schema.chars().take_while(|c| c.is_ascii_digit()).collect();
                if version.len() != 14 {
                    return Err(format!(
                        "schema version should be a migration timestamp: {schema:?}"
                    ));
                }
                app.wait_text("#info-version", |t| t == env!("CARGO_PKG_VERSION"))
                    .await?;
                // Doctor rows rendered from the DoctorReport.
                let database = "#doctor-checks tr[data-check='database']";
                let status = app.attr(database, "data-status").await?;
                if status.as_deref() != Some("ok") {
                    return Err(format!("database check status {status:?}"));
                }
                app.wait_text("#doctor-checks tr[data-check='git'] .detail", |t| {
                    t.starts_with("git version")
                })
                .await?;
                app.wait_text("#doctor-endpoints", |t| {
                    t.contains("Ollama") && t.contains("LM Studio")
                })
                .await?;
                // The engine's summary of the agent CLIs, as it words it.
                app.wait_text("#doctor-workers", |t| {
                    t.contains("worker CLIs installed") || t.contains(" installed: ")
                })
                .await?;
                app.scroll_to("#doctor-workers").await?;
                app.save_screenshot("settings_doctor").await;
                // Status bar shows the data dir too, and the DoctorUpdated event set its badge.
                app.wait_text("#status-datadir", |t| t.ends_with(&home))
                    .await?;
                app.wait_text("#status-health", |t| t != "checking…")
                    .await?;
                // Routing learns: nothing yet on a fresh profile; a reset is confirmed first.
                app.scroll_to("#learning-settings").await?;
                app.wait_text("#learning-count", |t| t.contains("from 0 outcomes"))
                    .await?;
                app.save_screenshot("settings_learning").await;
                app.click("#learning-reset").await?;
                app.click("#learning-reset-confirm").await?;
                app.wait_text("#learning-count", |t| t.contains(" since "))
                    .await?;
                // The dark theme, chosen in Settings, is on the page at once.
                app.scroll_to("#appearance").await?;
                app.click("#appearance [data-theme-choice='dark']").await?;
                let mut theme = None;
                for _ in 0..50 {
                    theme = app.attr("html", "data-theme").await?;
                    if theme.as_deref() == Some("dark") {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                if theme.as_deref() != Some("dark") {
                    return Err(format!("the page's theme is {theme:?} after choosing dark"));
                }
                app.save_screenshot("settings_dark").await;
                app.goto("route").await?;
                app.wait_for("#route-task").await?;
                app.save_screenshot("route_dark").await;
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn unusable_data_dir_shows_a_startup_error_window() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let blocker = scratch.path().join("not-a-dir");
    std::fs::write(&blocker, b"x").expect("write");
    let home = blocker.join("home");
    let expected = home.display().to_string();
    E2e::run(
        "unusable_data_dir_shows_a_startup_error_window",
        Launch::with_home(&home),
        |app| async move {
            let result = async {
                let message = app
                    .wait_text("#startup-error-message", |t| !t.is_empty())
                    .await?;
                if !message.contains(&expected) || !message.contains("cannot create directory") {
                    return Err(format!(
                        "startup error should name {expected} and the cause: {message:?}"
                    ));
                }
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn the_window_never_navigates_away_from_the_app() {
    E2e::run(
        "the_window_never_navigates_away_from_the_app",
        Launch::fresh(),
        |app| async move {
            let result = async {
                app.goto("settings").await?;
                let origin = app
                    .client
                    .execute("return window.location.origin;", vec![])
                    .await
                    .map_err(|e| format!("read origin: {e}"))?;
                // Injected script (or a link that slipped past the UI) tries to leave.
                app.client
                    .execute(
                        "window.location.href = 'https://example.invalid/phish'; return null;",
                        vec![],
                    )
                    .await
                    .map_err(|e| format!("navigate: {e}"))?;
                tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
                let now = app
                    .client
                    .execute("return window.location.origin;", vec![])
                    .await
                    .map_err(|e| format!("read origin again: {e}"))?;
                if now != origin {
                    return Err(format!("the window left the app: {origin} -> {now}"));
                }
                // Still the live app: the page answers and typed commands still work.
                app.goto("models").await?;
                app.goto("settings").await?;
                app.wait_text("#info-version", |t| t == env!("CARGO_PKG_VERSION"))
                    .await?;
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn the_first_run_checklist_shows_on_an_empty_profile_until_dismissed() {
    E2e::run(
        "the_first_run_checklist_shows_on_an_empty_profile_until_dismissed",
        Launch::fresh(),
        |app| async move {
            let result = async {
                // An empty profile: nothing is set up, so nothing is done but what this
                // machine has (its keychain, an agent CLI) and the bundled catalog's date.
                app.wait_for("#first-run [data-item='model'][data-done='no']")
                    .await?;
                let text = app
                    .wait_text("#first-run", |t| t.contains("of 5 done"))
                    .await?;
                for item in [
                    "Keychain reachable",
                    "A provider key or a local model server",
                    "Agent CLIs that can run",
                    "A recent model catalog",
                    "Connect an agent",
                ] {
                    if !text.contains(item) {
                        return Err(format!("no {item:?} in the checklist: {text}"));
                    }
                }
                app.wait_for("#first-run [data-item='model'] [data-fix='openKeys']")
                    .await?;
                app.save_screenshot("first_run").await;
                // Its fix leads to the Keys page.
                app.click("#first-run [data-item='model'] [data-fix='openKeys']")
                    .await?;
                app.wait_for("main#page[data-page='keys']").await?;
                app.goto("models").await?;
                app.click("#first-run-dismiss").await?;
                let start = std::time::Instant::now();
                while app.text("#first-run").await?.is_some() {
                    if start.elapsed() > std::time::Duration::from_secs(5) {
                        return Err("the checklist stayed after Dismiss".into());
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                // Gone, also after a page change; still in Settings with a way back.
                app.goto("runs").await?;
                app.goto("models").await?;
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                if app.text("#first-run").await?.is_some() {
                    return Err("the dismissed checklist came back on Models".into());
                }
                app.goto("settings").await?;
                app.wait_text("#first-run-settings", |t| t.contains("of 5 done"))
                    .await?;
                app.click("#first-run-show").await?;
                app.goto("models").await?;
                app.wait_for("#first-run").await?;
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
}
