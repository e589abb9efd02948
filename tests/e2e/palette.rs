//! The command palette and the review keys end to end, from the keyboard only: Ctrl+K finds
//! an attempt awaiting review by its task, Enter opens it, `?` lists the shortcuts, `n` focuses
//! the first hunk and `c` comments on its line, Ctrl+K again offers "Approve the attempt in
//! view", and the confirmation that names the target branch is answered with Enter. The change
//! lands on the repository's branch; the mouse is never used.
// The fixture repository is built with the real `git` binary.
#![allow(clippy::disallowed_methods)]

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;

use crate::harness::{App, E2e, E2eResult, Launch};
use crate::review::{cli_binary, git, wait_attr, Fixture};

/// Sends `keys` to whatever has the keyboard focus, as a user's typing does.
async fn keys(app: &App, keys: &str) -> E2eResult {
    app.client
        .active_element()
        .await
        .map_err(|e| format!("focused element: {e}"))?
        .send_keys(keys)
        .await
        .map_err(|e| format!("type {keys:?}: {e}"))
}

/// Presses `chord` (held in order, released in reverse) on the keyboard, wherever the focus
/// is: the window's own key handling sees it as a user's.
async fn press(app: &App, chord: &[char]) -> E2eResult {
    let mut actions = KeyActions::new("keyboard".to_owned());
    for key in chord {
        actions = actions.then(KeyAction::Down { value: *key });
    }
    for key in chord.iter().rev() {
        actions = actions.then(KeyAction::Up { value: *key });
    }
    app.client
        .perform_actions(actions)
        .await
        .map_err(|e| format!("press {chord:?}: {e}"))
}

/// Ctrl+K: the palette opens with its input focused.
async fn open_palette(app: &App) -> E2eResult {
    press(app, &[char::from(Key::Control), 'k']).await?;
    app.wait_for(".palette [cmdk-input]").await?;
    // The dialog takes the focus first and hands it to its input as it opens.
    wait_focus(app, ".palette [cmdk-input]").await?;
    Ok(())
}

/// Waits until nothing matches `css`.
async fn wait_gone(app: &App, css: &str) -> E2eResult {
    let start = std::time::Instant::now();
    while app.text(css).await?.is_some() {
        if start.elapsed() > std::time::Duration::from_secs(5) {
            return Err(format!("{css} is still there"));
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Ok(())
}

/// Waits until the focused element matches `css`.
async fn wait_focus(app: &App, css: &str) -> E2eResult {
    let start = std::time::Instant::now();
    loop {
        let focused = app
            .client
            .execute(
                "const el = document.activeElement; \
                 return el && el.matches(arguments[0]) ? true : (el ? el.outerHTML.slice(0, 120) : null);",
                vec![css.into()],
            )
            .await
            .map_err(|e| format!("focus: {e}"))?;
        if focused.as_bool() == Some(true) {
            return Ok(());
        }
        if start.elapsed() > std::time::Duration::from_secs(5) {
            return Err(format!("focus never reached {css} (it is on {focused})"));
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Types `query` and waits until the entry `key` is the selected one.
async fn select(app: &App, query: &str, key: &str) -> E2eResult {
    keys(app, query).await?;
    wait_attr(
        app,
        &format!("[data-entry='{key}']"),
        "data-selected",
        "true",
    )
    .await
}

async fn palette_to_approval(app: &App, fx: &Fixture) -> E2eResult {
    let base = git(&fx.repo, &["rev-parse", "HEAD"]);
    let out = std::process::Command::new(cli_binary()?)
        .args(["run", "--repo"])
        .arg(&fx.repo)
        .args([
            "--task",
            "Make add() add, from the palette",
            "--worker",
            &fx.fix,
        ])
        .args(["--verify", "sh test.sh", "--json"])
        .env("SWITCHYARD_HOME", &app.home)
        .output()
        .map_err(|e| format!("switchyard run: {e}"))?;
    let done: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "switchyard run printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let id = done["run"]
        .as_str()
        .ok_or_else(|| format!("no attempt id in {done}"))?
        .to_owned();
    if done["status"] != "review" {
        return Err(format!("the attempt did not reach review: {done}"));
    }

    app.wait_for("main#page").await?;
    open_palette(app).await?;
    app.save_screenshot("palette_open").await;
    select(app, "from the palette", &format!("attempt:{id}")).await?;
    app.save_screenshot("palette_attempt").await;
    press(app, &[char::from(Key::Enter)]).await?;
    app.wait_for("#attempt-detail").await?;
    wait_attr(app, "#attempt-detail", "data-state", "review").await?;
    app.wait_text("#gates-verdict", |t| t.contains("passed"))
        .await?;

    // `?` lists the shortcuts; Escape closes the list.
    press(app, &[char::from(Key::Shift), '?']).await?;
    app.wait_text("#shortcuts-dialog", |t| t.contains("Next hunk"))
        .await?;
    app.save_screenshot("shortcuts").await;
    press(app, &[char::from(Key::Escape)]).await?;
    wait_gone(app, "#shortcuts-dialog").await?;
    // `n` focuses the first hunk's first added line; `c` comments on it.
    press(app, &['n']).await?;
    app.wait_for("#attempt-detail .diff-pane[data-focus='calc.sh:1']")
        .await?;
    press(app, &['c']).await?;
    wait_focus(app, "[aria-label='Comment on calc.sh line 1']").await?;
    keys(app, "keep the sign").await?;
    // The comment shows on its line in the diff as typed, not just its first letter.
    app.wait_text("#attempt-detail .diff-comment", |t| {
        t.contains("keep the sign")
    })
    .await?;

    open_palette(app).await?;
    select(app, "approve", "decide:approve").await?;
    press(app, &[char::from(Key::Enter)]).await?;
    app.wait_text("#approve-confirm", |t| t.contains("land it on main"))
        .await?;
    let focused = app
        .client
        .execute(
            "return document.activeElement && document.activeElement.id;",
            vec![],
        )
        .await
        .map_err(|e| format!("focus: {e}"))?;
    if focused.as_str() != Some("approve-confirm-button") {
        return Err(format!(
            "the confirmation's button is not focused ({focused})"
        ));
    }
    app.save_screenshot("palette_confirm").await;
    press(app, &[char::from(Key::Enter)]).await?;
    wait_attr(app, "#attempt-detail", "data-state", "integrated").await?;
    let subjects = git(&fx.repo, &["log", "--format=%s", &format!("{base}..main")]);
    if subjects != "Make add() add, from the palette" {
        return Err(format!(
            "expected exactly the approved commit on main, found {subjects:?}"
        ));
    }
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn an_attempt_is_found_in_the_palette_and_approved_without_the_mouse() {
    E2e::enabled("an_attempt_is_found_in_the_palette_and_approved_without_the_mouse");
    let fx = Fixture::new();
    E2e::run("palette_approve", Launch::fresh(), |app| async move {
        let result = palette_to_approval(&app, &fx).await;
        (app, result)
    })
    .await;
}
