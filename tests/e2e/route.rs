//! The Route page: type a task, rank the whole catalog (no keys in e2e), Pick and see the pick
//! with a reason that quotes numbers; switch to swarm and see a graph with parallel steps and
//! dependency arrows.

use crate::harness::{App, E2e, E2eResult, Launch};

const TASK: &str = "Write a Rust function that parses RFC 3339 timestamps, then add unit tests";

/// Independent branches (the component does not wait for the schema) that meet in the tests.
const BRANCHING_TASK: &str = "Design the database schema. Then set up the project config. \
    Implement the REST api for users; implement the React component for the profile page; \
    write tests for the api and the component; finally write the docs";

/// A numeric data attribute of `css`.
async fn count(app: &App, css: &str, name: &str) -> E2eResult<u64> {
    let value = app.attr(css, name).await?.unwrap_or_default();
    value
        .parse()
        .map_err(|_| format!("{css} {name}={value:?} is not a count"))
}

async fn pick_explains(app: &App) -> E2eResult {
    app.goto("route").await?;
    app.type_into("#route-task", TASK).await?;
    app.click("#route-any-provider-label").await?;
    let scope = app
        .client
        .execute(
            "return document.querySelector('#route-any-provider').checked;",
            vec![],
        )
        .await
        .map_err(|e| format!("read any-provider: {e}"))?;
    if scope.as_bool() != Some(true) {
        return Err("the any-provider switch did not turn on".into());
    }
    app.click("#route-pick").await?;
    let name = app.wait_text("#route-pick-name", |t| !t.is_empty()).await?;
    let reason = app
        .wait_text("#route-pick-reason", |t| {
            t.chars().any(|c| c.is_ascii_digit())
        })
        .await?;
    if !reason.contains("coverage") {
        return Err(format!(
            "reason for {name} does not quote coverage: {reason}"
        ));
    }
    let category = app
        .attr("#route-classification [data-category]", "data-category")
        .await?;
    if category.as_deref() != Some("coding") {
        return Err(format!("task classified as {category:?}, expected coding"));
    }
    // A coding task: the worker that would run the pick here (no agent CLI in this home's
    // reach is ready, so the built-in model worker).
    let worker = app
        .wait_text("#route-pick-worker code", |t| !t.is_empty())
        .await?;
    if !worker.contains(':') {
        return Err(format!("the pick's worker is not a worker spec: {worker}"));
    }
    // Cost per verified success and the (empty) outcome evidence, from Rust's reason.
    let facts = app
        .wait_text("#route-pick-card .reason-facts", |t| {
            t.contains("Per verified success")
        })
        .await?;
    if !facts.contains("no outcomes yet") {
        return Err(format!("a fresh profile's pick shows outcomes: {facts}"));
    }
    app.save_screenshot("route_pick").await;

    // Rating the pick reaches the store: the past picks list shows it rated.
    app.scroll_to("#route-pick-card .rate-row").await?;
    app.click("#route-pick-card .stars button[aria-label='4 stars']")
        .await?;
    app.wait_for("#route-past-picks [data-pick] .stars[data-rating='4']")
        .await?;
    let past = app
        .text("#route-past-picks [data-pick] .past-task")
        .await?
        .unwrap_or_default();
    if past != TASK {
        return Err(format!("past pick reads {past:?}"));
    }
    app.save_screenshot("route_pick_rated").await;
    Ok(())
}

async fn swarm_draws_graph(app: &App) -> E2eResult {
    app.click("#route-swarm").await?;
    app.wait_for("#route-plan-card[data-mode='swarm'] #route-graph")
        .await?;
    let nodes = count(app, "#route-graph", "data-nodes").await?;
    let edges = count(app, "#route-graph", "data-edges").await?;
    if nodes < 2 || edges < 1 {
        return Err(format!("swarm graph has {nodes} nodes and {edges} edges"));
    }
    let drawn = app
        .client
        .execute(
            "return [document.querySelectorAll('#route-graph .plan-node').length, \
                     document.querySelectorAll('#route-graph path.edge').length];",
            vec![],
        )
        .await
        .map_err(|e| format!("count drawn nodes: {e}"))?;
    if drawn != serde_json::json!([nodes, edges]) {
        return Err(format!("drew {drawn}, expected [{nodes}, {edges}]"));
    }
    app.scroll_to("#route-plan-card").await?;
    app.click("#route-graph .plan-node").await?;
    app.wait_for("#route-step-editor").await?;
    app.save_screenshot("route_swarm").await;
    Ok(())
}

/// Steps whose wave is `wave`.
async fn in_wave(app: &App, wave: u32) -> E2eResult<Vec<String>> {
    let value = app
        .client
        .execute(
            "return Array.from(document.querySelectorAll(arguments[0])) \
               .map(el => el.getAttribute('data-step'));",
            vec![format!("#route-graph .plan-node[data-wave='{wave}']").into()],
        )
        .await
        .map_err(|e| format!("read wave {wave}: {e}"))?;
    Ok(value
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// A swarm with parallel branches; making the last step wait for another moves it a wave
/// later once the engine has re-checked the edited plan.
async fn swarm_edit_recomputes_waves(app: &App) -> E2eResult {
    app.type_into("#route-task", BRANCHING_TASK).await?;
    app.click("#route-swarm").await?;
    app.wait_for("#route-plan-card[data-task*='database schema']")
        .await?;
    let first = in_wave(app, 0).await?;
    if first.len() < 2 {
        return Err(format!("first wave holds {first:?}: no parallel branches"));
    }
    let edges = count(app, "#route-graph", "data-edges").await?;
    if edges < 2 {
        return Err(format!("branching swarm has {edges} edges"));
    }
    // The last step in the first wave waits for a step of a later wave after the edit.
    let moved = first.last().cloned().unwrap_or_default();
    let later = in_wave(app, 1).await?;
    let Some(target) = later.first().cloned() else {
        return Err("no second wave".into());
    };
    app.click(&format!("#route-graph .plan-node[data-step='{moved}']"))
        .await?;
    app.click(&format!("#route-step-editor input[data-dep='{target}']"))
        .await?;
    let start = std::time::Instant::now();
    loop {
        let wave = app
            .attr(
                &format!("#route-graph .plan-node[data-step='{moved}']"),
                "data-wave",
            )
            .await?;
        if wave.as_deref() == Some("2") {
            break;
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            return Err(format!(
                "{moved} still in wave {wave:?} after waiting for {target}"
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    if count(app, "#route-graph", "data-edges").await? != edges + 1 {
        return Err("the new dependency was not drawn".into());
    }
    app.scroll_to("#route-plan-card").await?;
    app.save_screenshot("route_swarm_edited").await;
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn route_picks_with_a_reason_and_draws_a_swarm() {
    let name = "route_picks_with_a_reason_and_draws_a_swarm";
    E2e::run(name, Launch::fresh(), |app| async move {
        let result = async {
            pick_explains(&app).await?;
            swarm_draws_graph(&app).await?;
            swarm_edit_recomputes_waves(&app).await
        }
        .await;
        (app, result)
    })
    .await;
}
