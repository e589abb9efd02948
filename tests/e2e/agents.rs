//! Settings → Connect an agent in the real window: the snippet for each host names the
//! `switchyard` binary, and the approve toggle starts off and is stored.

use crate::harness::{E2e, Launch};

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn connect_an_agent_shows_snippets_and_stores_the_approve_toggle() {
    E2e::run(
        "connect_an_agent_shows_snippets_and_stores_the_approve_toggle",
        Launch::fresh(),
        |app| async move {
            let result = async {
                app.goto("settings").await?;
                app.wait_for("#agent-connect").await?;
                app.scroll_to("#agent-connect").await?;
                let snippet = app
                    .wait_text("#agent-snippet", |t| {
                        t.starts_with("claude mcp add switchyard -- ")
                    })
                    .await?;
                if !snippet.ends_with(" mcp") {
                    return Err(format!("Claude Code's command: {snippet:?}"));
                }
                let binary = app.wait_text("#agent-binary", |t| !t.is_empty()).await?;
                match binary.strip_prefix("Snippets start ") {
                    Some(rest) if !snippet.contains(rest.trim_end_matches(" mcp")) => {
                        return Err(format!("{binary:?} but the snippet is {snippet:?}"))
                    }
                    Some(_) => {}
                    None if binary.contains("not found") => {}
                    None => return Err(format!("binary line {binary:?}")),
                }
                app.click("[data-client='codex']").await?;
                app.wait_text("#agent-snippet", |t| {
                    t.starts_with("[mcp_servers.switchyard]")
                })
                .await?;
                app.save_screenshot("settings-connect-an-agent").await;

                let checked = app
                    .client
                    .execute(
                        "return document.querySelector('#agents-may-approve').checked;",
                        vec![],
                    )
                    .await
                    .map_err(|e| format!("read toggle: {e}"))?;
                if checked != serde_json::Value::Bool(false) {
                    return Err(format!("the approve toggle starts {checked}, not off"));
                }
                app.click("#agents-may-approve").await?;
                app.wait_text("#agents-approve-note", |t| t.contains("switchyard_approve"))
                    .await?;
                // Read back from Rust after leaving the page: the setting was stored.
                app.goto("models").await?;
                app.goto("settings").await?;
                app.wait_for("#agent-connect").await?;
                app.wait_text("#agents-approve-note", |t| t.contains("switchyard_approve"))
                    .await?;
                Ok(())
            }
            .await;
            (app, result)
        },
    )
    .await;
}
