//! Runs end to end in the real window, against a model server on 127.0.0.1 speaking the exact
//! OpenAI streaming format (the keyless custom provider `wtest`; its models are priced from the
//! bundled catalog):
//!
//! - a cascade launched from the Runs page whose first rung the provider refuses escalates
//!   once, succeeds on the second, and the run page shows each rung's try, the cost against
//!   the cap and the savings against the baseline chosen in Settings;
//! - a collective whose four members stream at once: the page applies each batch of deltas in
//!   well under 50 ms (measured with performance marks in the page);
//! - the Route page's Launch opens a swarm in the launch form, whose steps are reassigned in
//!   the plan editor and run as edited;
//! - a long list of runs (from the CLI, agents and the app) filtered by state, mode, launcher
//!   and words, with the spend chart; a run stopped by its USD cap shows why.
//!
//! With `SWITCHYARD_E2E_SCREENSHOTS` set, pictures of each state are saved for review.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use switchyard_core::providers::{AddProviderRequest, ProviderKind};
use switchyard_core::run::{RunMode, RunRequest};
use switchyard_engine::{Engine, EngineConfig};
use switchyard_store::{Store, DATABASE_FILE};

use crate::harness::{App, E2e, E2eResult, Launch};
use crate::http::{wire, End, Recorded, Reply, TestServer};
use crate::review::blur;
use crate::review_model::prepare_home;

/// The keyless custom provider the server is added as.
const PROVIDER: &str = "wtest";
/// The cheap rung the provider refuses, and the one that answers.
const CHEAP: &str = "wtest:openai/gpt-4o-mini";
const GOOD: &str = "wtest:openai/gpt-4o";
/// Four priced models for the collective.
const MEMBERS: [&str; 4] = [
    "wtest:openai/gpt-4o-mini",
    "wtest:openai/gpt-4o",
    "wtest:openai/gpt-4.1",
    "wtest:anthropic/claude-sonnet-4",
];
/// The savings baseline set in Settings ($15 / $75 per million tokens).
const BASELINE: &str = "anthropic/claude-opus-4";

/// Words in a task that make every member stream a long answer slowly.
const STREAM_MARK: &str = "four voices";
/// Words in a task that make the cheap model refuse.
const REFUSE_MARK: &str = "monads";

/// How long a run may take to show its end on the page.
const RUN_WAIT: Duration = Duration::from_secs(40);

/// What the model server answers: the cheap model refuses cascade tasks; collective members
/// stream 120 pieces 25 ms apart; the merge and everything else answer in a few paced pieces.
fn reply(request: &Recorded) -> Reply {
    let body = request.json();
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let text = request.body.as_str();
    if model == "openai/gpt-4o-mini" && text.contains(REFUSE_MARK) {
        return Reply::json(
            400,
            wire::openai_error("the cheap model refused", "invalid_request_error", "bad"),
        );
    }
    let (pieces, gap): (Vec<String>, Duration) = if text.contains("Used: ") {
        (
            vec!["All four agree. ".into(), "\nUsed: 1, 2, 3, 4".into()],
            Duration::from_millis(20),
        )
    } else if text.contains(STREAM_MARK) {
        (
            (0..120).map(|i| format!("word{i} of {model}. ")).collect(),
            Duration::from_millis(25),
        )
    } else {
        (
            [
                "A monad ",
                "is a type ",
                "with a way ",
                "to wrap a value ",
                "and to chain ",
                "steps that ",
                "return wrapped values.",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            Duration::from_millis(150),
        )
    };
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let events = wire::openai_stream_finishing(&model, &refs, Some((400, 300)), "stop");
    Reply::sse_paced(
        events.into_iter().map(|e| (gap, e)).collect(),
        End::Complete,
    )
}

/// A home with its own keychain service, the provider `wtest` at `server`, and `settings`.
async fn seed_home(home: &Path, server: &TestServer, settings: &[(&str, &str)]) -> Arc<Engine> {
    prepare_home(home).await;
    let store = Store::open(&home.join(DATABASE_FILE)).await.expect("store");
    for (key, value) in settings {
        store
            .set_setting(key, value, "2026-12-20T00:00:00Z")
            .await
            .expect("setting");
    }
    store.close().await;
    let engine = Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.to_path_buf()),
        })
        .await
        .expect("engine"),
    );
    engine
        .add_provider(AddProviderRequest {
            id: PROVIDER.into(),
            name: None,
            kind: ProviderKind::OpenaiCompatible,
            base_url: server.at("/v1"),
        })
        .await
        .expect("add provider");
    engine
}

/// The value of a form field (a property, not an attribute).
async fn value(app: &App, css: &str) -> E2eResult<String> {
    let value = app
        .client
        .execute(
            "const el = document.querySelector(arguments[0]); return el ? el.value : null;",
            vec![css.into()],
        )
        .await
        .map_err(|e| format!("read {css}: {e}"))?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}

/// Waits (up to `limit`) until `css`'s attribute `name` satisfies `accept`.
async fn wait_attr(
    app: &App,
    css: &str,
    name: &str,
    limit: Duration,
    accept: impl Fn(&str) -> bool,
) -> E2eResult<String> {
    let start = Instant::now();
    let mut last = None;
    while start.elapsed() < limit {
        if let Ok(element) = app.client.find(fantoccini::Locator::Css(css)).await {
            last = element.attr(name).await.ok().flatten();
            if let Some(seen) = last.as_deref().filter(|v| accept(v)) {
                return Ok(seen.to_owned());
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("{css} [{name}] never matched; last {last:?}"))
}

/// Waits until the launch form and its preview are not checking anything.
async fn settled(app: &App) -> E2eResult {
    wait_attr(app, "#run-launch-form", "data-busy", RUN_WAIT, |v| {
        v == "false"
    })
    .await
    .map(|_| ())
}

/// Types `model` into row `row` of the model list editor (`rung` or `member`) and commits it.
async fn name_row(app: &App, kind: &str, row: usize, model: &str) -> E2eResult {
    let css = format!("#run-{kind}-{row}");
    if app
        .client
        .find(fantoccini::Locator::Css(&css))
        .await
        .is_err()
    {
        app.click(&format!("#run-add-{kind}")).await?;
    }
    app.type_into(&css, model).await?;
    blur(app, &css).await?;
    settled(app).await?;
    // A preview that arrived meanwhile may show routing's value; the edit must have stuck.
    let shown = value(app, &css).await?;
    if shown != model {
        return Err(format!("{css} shows {shown:?} after naming {model:?}"));
    }
    Ok(())
}

/// Names exactly `models` in the model list editor (the preview's own, or the one shown when
/// routing found nothing), removing rows beyond them.
async fn name_models(app: &App, kind: &str, models: &[&str]) -> E2eResult {
    app.wait_for(&format!("#run-{kind}s")).await?;
    for (row, model) in models.iter().enumerate() {
        name_row(app, kind, row, model).await?;
    }
    loop {
        let count: usize = app
            .attr(&format!("#run-{kind}s"), "data-count")
            .await?
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        if count <= models.len() {
            break;
        }
        let label = if kind == "rung" { "rung" } else { "member" };
        app.click(&format!(
            "#run-{kind}s button[aria-label='Remove {label} {count}']"
        ))
        .await?;
        settled(app).await?;
    }
    Ok(())
}

/// Opens the launch form and fills the task, the mode and the USD cap, then previews.
async fn start_form(app: &App, task: &str, mode: &str, cap: &str) -> E2eResult {
    app.goto("runs").await?;
    app.click("#runs-new").await?;
    app.wait_for("#run-launch-form").await?;
    app.type_into("#run-task", task).await?;
    app.click(&format!("#run-mode button[data-mode='{mode}']"))
        .await?;
    app.type_into("#run-max-usd", cap).await?;
    app.click("#run-preview").await?;
    settled(app).await
}

/// Launches what the preview shows and waits for the run page; returns the run's id.
async fn launch(app: &App) -> E2eResult<String> {
    app.wait_for("#run-preview-card").await?;
    settled(app).await?;
    let start = Instant::now();
    while app.attr("#run-launch", "disabled").await?.is_some() {
        if start.elapsed() > Duration::from_secs(10) {
            let problem = app.text("#run-preview-error").await?;
            return Err(format!("Launch stayed disabled: {problem:?}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.click("#run-launch").await?;
    app.wait_for("#run-detail").await?;
    app.attr("#run-detail", "data-run")
        .await?
        .ok_or_else(|| "the run page has no id".to_owned())
}

/// `$0.0123` below ten cents, `$1.23` above: the page's money format.
fn usd(value: f64) -> String {
    if value < 0.1 {
        format!("${value:.4}")
    } else {
        format!("${value:.2}")
    }
}

async fn cascade_escalates_once(app: &App, server: &TestServer) -> E2eResult {
    app.goto("runs").await?;
    app.wait_for("#runs-empty").await?;
    app.save_screenshot("runs_empty").await;

    // The savings baseline, from Settings → Runs.
    app.goto("settings").await?;
    app.wait_for("#runs-baseline").await?;
    app.type_into("#runs-baseline", BASELINE).await?;
    app.click("#runs-defaults-save").await?;
    app.wait_text("#run-defaults", |t| t.contains("Saved"))
        .await?;
    app.scroll_to("#run-defaults").await?;
    app.save_screenshot("runs_settings_defaults").await;

    start_form(
        app,
        "Explain monads to a Rust programmer",
        "cascade",
        "0.50",
    )
    .await?;
    name_models(app, "rung", &[CHEAP, GOOD]).await?;
    app.wait_for("#run-preview-card").await?;
    app.wait_text("#run-baseline", |t| t == BASELINE).await?;
    app.wait_text("#run-worst-case", |t| t.starts_with('$'))
        .await?;
    app.save_screenshot("runs_cascade_preview").await;
    let id = launch(app).await?;

    // Live: the second rung's text streams while the run is running.
    app.wait_text("#run-live [data-node='c1'] pre", |t| t.contains("A monad"))
        .await?;
    let state = app.attr("#run-detail", "data-state").await?;
    if state.as_deref() != Some("running") {
        return Err(format!(
            "streamed text showed only once the run was {state:?}"
        ));
    }
    app.save_screenshot("runs_cascade_running").await;

    wait_attr(app, "#run-detail", "data-state", RUN_WAIT, |s| {
        s == "completed"
    })
    .await?;
    app.wait_text("#run-rung", |t| {
        t.contains("Succeeded on rung 2 of 2") && t.contains("after 1 escalation")
    })
    .await?;
    // Each rung's try: the refused one with the provider's reason, then the answer.
    app.wait_text("#run-node-tries tr[data-try='1']", |t| {
        t.contains("The model call failed") && t.contains("the cheap model refused")
    })
    .await?;
    app.wait_text("#run-node-tries tr[data-try='2']", |t| {
        t.contains("openai/gpt-4o") && t.contains("400 in · 300 out")
    })
    .await?;
    app.wait_text("#run-node-trace", |t| {
        t.contains("An earlier attempt failed (rung 1)")
    })
    .await?;
    app.wait_text("#run-result", |t| t.contains("return wrapped values."))
        .await?;

    // Cost and savings as the engine stored them.
    let store = Store::open(&app.home.join(DATABASE_FILE))
        .await
        .map_err(|e| format!("open the store: {e}"))?;
    let row = store
        .run(&id)
        .await
        .map_err(|e| format!("read the run: {e}"))?
        .ok_or("the run is not stored")?;
    store.close().await;
    let baseline = row.baseline_usd.ok_or("no baseline cost was recorded")?;
    let expected_cost = (400.0 * 2.5 + 300.0 * 10.0) / 1e6;
    if (row.spent_usd - expected_cost).abs() > 1e-9 {
        return Err(format!(
            "the run cost {} but the answer's tokens cost {expected_cost}",
            row.spent_usd
        ));
    }
    app.wait_text("#run-spent", |t| t == usd(row.spent_usd))
        .await?;
    let savings = baseline - row.spent_usd;
    if savings <= 0.0 {
        return Err(format!("no savings against {BASELINE}: {savings}"));
    }
    app.wait_text("#run-savings", |t| t == format!("saved {}", usd(savings)))
        .await?;
    app.wait_text("#run-cost", |t| t.contains("of $0.50 cap"))
        .await?;
    app.wait_text("#run-baseline-note", |t| t.contains(BASELINE))
        .await?;
    // And against the static picks (routing before it learned), Rust's figure in words.
    app.wait_text("#run-static-note", |t| {
        t.contains("static picks") && t.contains("would have cost $")
    })
    .await?;
    app.save_screenshot("runs_cascade_done").await;
    app.scroll_to("#run-node-panel").await?;
    app.save_screenshot("runs_cascade_node").await;

    // Rated 4 stars; the rating is stored on the node.
    app.click("#run-node-rate button[aria-label='4 stars']")
        .await?;
    wait_attr(
        app,
        "#run-node-rate .stars",
        "data-rating",
        Duration::from_secs(10),
        |r| r == "4",
    )
    .await?;

    let asked: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.json()["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    if asked != ["openai/gpt-4o-mini", "openai/gpt-4o"] {
        return Err(format!("the cascade asked {asked:?}"));
    }

    // Routing learned from both rungs: the cheap one failed, the premium one succeeded.
    app.goto("settings").await?;
    app.scroll_to("#learning-settings").await?;
    app.wait_text("#learning-count", |t| t.contains("from 2 outcomes"))
        .await?;
    let table = app
        .wait_text("#learning-estimates", |t| t.contains("gpt-4o-mini"))
        .await?;
    if !(table.contains("0 of 1 verified") && table.contains("1 of 1 verified")) {
        return Err(format!("learned estimates read {table:?}"));
    }
    app.save_screenshot("settings_learning_estimates").await;
    // The run's launcher is listed under Agents with its own record: the failed rung and
    // the node.
    app.scroll_to("#agent-preferences").await?;
    app.wait_text("#agent-preferences-table", |t| {
        t.contains("1 of 2 succeeded")
    })
    .await?;
    app.save_screenshot("settings_agents").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_cascade_launched_from_the_runs_page_escalates_once_and_shows_cost_and_savings() {
    if !E2e::enabled("runs_cascade") {
        return;
    }
    let server = TestServer::start_with(reply).await;
    let home = tempfile::tempdir().expect("home");
    seed_home(home.path(), &server, &[]).await.close().await;
    let server_ref = &server;
    E2e::run(
        "runs_cascade",
        Launch::with_home(home.path()),
        |app| async move {
            let result = cascade_escalates_once(&app, server_ref).await;
            (app, result)
        },
    )
    .await;
}

/// Durations (ms) of every page update the run page measured under `name`.
async fn update_durations(app: &App, name: &str) -> E2eResult<Vec<f64>> {
    let value = app
        .client
        .execute(
            "return performance.getEntriesByName(arguments[0]).map(e => e.duration);",
            vec![name.into()],
        )
        .await
        .map_err(|e| format!("read the page's measures: {e}"))?;
    Ok(value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default())
}

async fn four_streams_stay_responsive(app: &App, server: &TestServer) -> E2eResult {
    start_form(
        app,
        &format!("Describe the harbour at dawn in {STREAM_MARK}"),
        "collective",
        "1.00",
    )
    .await?;
    name_models(app, "member", &MEMBERS).await?;
    let id = launch(app).await?;

    // All four members stream at once.
    wait_attr(app, "#run-live", "data-panes", RUN_WAIT, |n| n == "4").await?;
    if std::env::var_os("SWITCHYARD_E2E_SCREENSHOTS").is_some() {
        app.save_screenshot("runs_dag_running").await;
        // Taking the picture competes with the page for the CPU: measure from here on.
        app.client
            .execute(
                "['runs-update', 'runs-update-wait', 'runs-update-render', 'runs-update-frame'] \
                   .forEach((n) => performance.clearMeasures(n));",
                vec![],
            )
            .await
            .map_err(|e| format!("clear the page's measures: {e}"))?;
    }
    let in_flight = server.in_flight();
    if in_flight < 4 {
        return Err(format!("only {in_flight} members were streaming at once"));
    }
    wait_attr(app, "#run-detail", "data-state", RUN_WAIT, |s| {
        s == "completed"
    })
    .await?;
    app.wait_text("#run-node-used", |t| t.contains("1, 2, 3, 4"))
        .await?;

    let mut waits = update_durations(app, "runs-update-wait").await?;
    let mut renders = update_durations(app, "runs-update-render").await?;
    waits.sort_by(f64::total_cmp);
    renders.sort_by(f64::total_cmp);
    eprintln!(
        "e2e runs_stream: waiting for a frame median {:.1} ms max {:.1} ms; applying a batch \
         median {:.1} ms max {:.1} ms",
        waits.get(waits.len() / 2).copied().unwrap_or_default(),
        waits.last().copied().unwrap_or_default(),
        renders.get(renders.len() / 2).copied().unwrap_or_default(),
        renders.last().copied().unwrap_or_default(),
    );
    let slowest = app
        .client
        .execute(
            "return performance.getEntriesByName('runs-update') \
               .map(e => [Math.round(e.startTime), e.duration, e.detail && e.detail.items]) \
               .sort((a, b) => b[1] - a[1]).slice(0, 6);",
            vec![],
        )
        .await
        .map_err(|e| format!("read the slowest updates: {e}"))?;
    eprintln!("e2e runs_stream: slowest updates [start ms, duration ms, items]: {slowest}");
    let phases = app
        .client
        .execute(
            "return performance.getEntriesByName('runs-update-render') \
               .map(e => [Math.round(e.duration), e.detail && Math.round(e.detail.render)]) \
               .sort((a, b) => b[0] - a[0]).slice(0, 6);",
            vec![],
        )
        .await
        .map_err(|e| format!("read the render phases: {e}"))?;
    eprintln!("e2e runs_stream: slowest applies [apply ms, of which render+commit ms]: {phases}");
    let mut frames = update_durations(app, "runs-update-frame").await?;
    frames.sort_by(f64::total_cmp);
    eprintln!(
        "e2e runs_stream: the browser's frame after each update (style, layout, paint): median \
         {:.1} ms, max {:.1} ms",
        frames.get(frames.len() / 2).copied().unwrap_or_default(),
        frames.last().copied().unwrap_or_default(),
    );
    let idle = app
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; const t = []; \
             const step = (now) => { t.push(now); if (t.length < 11) requestAnimationFrame(step); \
             else done((t[10] - t[0]) / 10); }; requestAnimationFrame(step);",
            vec![],
        )
        .await
        .map_err(|e| format!("frame interval: {e}"))?;
    eprintln!("e2e runs_stream: mean frame interval of the finished run's page: {idle} ms");
    let mut durations = update_durations(app, "runs-update").await?;
    let items = app
        .attr("#run-detail", "data-items")
        .await?
        .unwrap_or_default();
    if durations.len() < 10 {
        return Err(format!(
            "only {} page updates were measured while four nodes streamed",
            durations.len()
        ));
    }
    durations.sort_by(f64::total_cmp);
    let max = durations.last().copied().unwrap_or_default();
    let p95 = durations[(durations.len() * 95 / 100).min(durations.len() - 1)];
    let median = durations[durations.len() / 2];
    eprintln!(
        "e2e runs_stream: run {id}: {} page updates for {items} feed items while 4 nodes \
         streamed; median {median:.1} ms, p95 {p95:.1} ms, max {max:.1} ms (from the first \
         item of a batch arriving to the page having applied it)",
        durations.len()
    );
    // The budget is 50 ms per update; the measured figures are reported above. An update is
    // the wait for the browser's next frame plus the page's own work on the batch. On a
    // two-core machine running the rest of the suite the compositor's frame can land behind
    // another process's time slice (CI saw one 109 ms frame wait beside a 6 ms apply), which
    // the page cannot shorten. So the test holds the 95th percentile of whole updates and
    // every single apply, the part the page owns, to the budget.
    let apply_max = renders.last().copied().unwrap_or_default();
    if p95 >= 50.0 || apply_max >= 50.0 {
        return Err(format!(
            "page updates took p95 {p95:.1} ms (max {max:.1} ms), the slowest apply \
             {apply_max:.1} ms: over the 50 ms budget"
        ));
    }
    app.scroll_to("#run-graph").await?;
    app.save_screenshot("runs_dag_done").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn four_nodes_streaming_at_once_keep_page_updates_under_50_ms() {
    if !E2e::enabled("runs_stream") {
        return;
    }
    let server = TestServer::start_with(reply).await;
    let home = tempfile::tempdir().expect("home");
    seed_home(home.path(), &server, &[]).await.close().await;
    let server_ref = &server;
    E2e::run(
        "runs_stream",
        Launch::with_home(home.path()),
        |app| async move {
            let result = four_streams_stay_responsive(&app, server_ref).await;
            (app, result)
        },
    )
    .await;
}

/// A task the rule-based planner splits into a swarm with parallel branches.
const SWARM_TASK: &str = "Design the database schema. Then set up the project config. \
    Implement the REST api for users; implement the React component for the profile page; \
    write tests for the api and the component; finally write the docs";

/// The ids of the plan's steps as the Runs page's plan editor draws them.
async fn plan_steps(app: &App) -> E2eResult<Vec<String>> {
    let value = app
        .client
        .execute(
            "return Array.from(document.querySelectorAll('#runs-page .plan-node')) \
               .map(el => el.getAttribute('data-step'));",
            vec![],
        )
        .await
        .map_err(|e| format!("read the plan's steps: {e}"))?;
    Ok(value
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// Gives step `step` of the plan being edited the model `model`.
async fn reassign(app: &App, step: &str, model: &str) -> E2eResult {
    app.click(&format!("#runs-page .plan-node[data-step='{step}']"))
        .await?;
    app.wait_for(&format!(
        "#runs-page #route-step-editor[data-step='{step}']"
    ))
    .await?;
    app.type_into("#runs-page #route-step-model", model).await?;
    blur(app, "#runs-page #route-step-model").await?;
    settled(app).await?;
    app.wait_text(
        &format!("#runs-page .plan-node[data-step='{step}'] .node-model"),
        |t| t == model,
    )
    .await
    .map(|_| ())
}

async fn route_launch_runs_the_edited_swarm(app: &App, server: &TestServer) -> E2eResult {
    app.goto("route").await?;
    app.type_into("#route-task", SWARM_TASK).await?;
    app.click("#route-swarm").await?;
    app.wait_for("#route-plan-card[data-mode='swarm']").await?;
    app.click("#route-launch").await?;
    app.wait_for("main#page[data-page='runs'] #run-launch-form")
        .await?;
    // The form opens with the Route page's task, mode and plan.
    if value(app, "#run-task").await? != SWARM_TASK {
        return Err("the launch form did not take the Route page's task".into());
    }
    wait_attr(
        app,
        "#run-mode button[data-mode='swarm']",
        "aria-pressed",
        Duration::from_secs(5),
        |p| p == "true",
    )
    .await?;
    settled(app).await?;
    let steps = plan_steps(app).await?;
    if steps.len() < 4 {
        return Err(format!("the swarm arrived with steps {steps:?}"));
    }
    // Every step on the cheap model, the first reassigned to the better one.
    for step in &steps {
        reassign(app, step, CHEAP).await?;
    }
    let first = steps.first().cloned().unwrap_or_default();
    reassign(app, &first, GOOD).await?;
    app.wait_for("#run-preview-card[data-mode='swarm']").await?;
    app.scroll_to("#run-preview-card").await?;
    app.save_screenshot("runs_swarm_preview").await;
    let before = server.requests().len();
    launch(app).await?;
    wait_attr(app, "#run-detail", "data-state", RUN_WAIT, |s| {
        s == "completed"
    })
    .await?;
    let nodes = app
        .attr("#run-graph", "data-nodes")
        .await?
        .unwrap_or_default();
    if nodes != steps.len().to_string() {
        return Err(format!(
            "the run has {nodes} nodes for {} steps",
            steps.len()
        ));
    }
    let asked: Vec<String> = server.requests()[before..]
        .iter()
        .map(|r| r.json()["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    let good = asked.iter().filter(|m| *m == "openai/gpt-4o").count();
    if asked.len() != steps.len() || good != 1 {
        return Err(format!(
            "the swarm's calls went to {asked:?}; one step was reassigned to gpt-4o"
        ));
    }
    app.scroll_to("#run-graph").await?;
    app.save_screenshot("runs_swarm_done").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn the_route_pages_launch_opens_the_swarm_in_the_runs_form_and_runs_it_as_edited() {
    if !E2e::enabled("runs_swarm") {
        return;
    }
    let server = TestServer::start_with(reply).await;
    let home = tempfile::tempdir().expect("home");
    seed_home(home.path(), &server, &[]).await.close().await;
    let server_ref = &server;
    E2e::run(
        "runs_swarm",
        Launch::with_home(home.path()),
        |app| async move {
            let result = route_launch_runs_the_edited_swarm(&app, server_ref).await;
            (app, result)
        },
    )
    .await;
}

/// Who launched the seeded runs, in turn.
const LAUNCHERS: [&str; 4] = ["cli", "codex", "claude-code", "app"];

/// Runs executed before the app starts: singles and cascades from four launchers, every
/// fifth one stopped by a cap too small for its first call.
async fn seed_runs(engine: &Arc<Engine>, count: usize) {
    let mut ids = Vec::new();
    for i in 0..count {
        let mode = if i % 3 == 0 {
            RunMode::Cascade
        } else {
            RunMode::Single
        };
        let mut request = RunRequest::new(
            &format!("Summarise release note {i} for the changelog"),
            mode,
        );
        if mode == RunMode::Cascade {
            request.ladder = Some(vec![CHEAP.into(), GOOD.into()]);
        } else {
            request.models = Some(vec![MEMBERS[i % MEMBERS.len()].into()]);
        }
        request.max_usd = Some(if i % 5 == 4 { 0.0001 } else { 0.25 });
        request.launcher = LAUNCHERS[i % LAUNCHERS.len()].into();
        ids.push(engine.start_run(request).await.expect("seed run").id);
    }
    for id in ids {
        tokio::time::timeout(RUN_WAIT, engine.wait_run(&id))
            .await
            .expect("a seeded run ended in time")
            .expect("wait");
    }
}

async fn count_rows(app: &App) -> E2eResult<usize> {
    Ok(app
        .attr("#runs-list", "data-count")
        .await?
        .and_then(|c| c.parse().ok())
        .unwrap_or(0))
}

async fn wait_rows(app: &App, expected: usize) -> E2eResult {
    wait_attr(app, "#runs-list", "data-count", RUN_WAIT, |c| {
        c == expected.to_string()
    })
    .await
    .map(|_| ())
}

async fn list_filters_and_budget_stop(app: &App, seeded: usize) -> E2eResult {
    app.goto("runs").await?;
    wait_rows(app, seeded).await?;
    wait_attr(app, "#runs-spend-chart", "data-state", RUN_WAIT, |s| {
        s == "ready"
    })
    .await?;
    app.wait_text("#runs-spend-modes", |t| {
        t.contains("Cascade") && t.contains("Single")
    })
    .await?;
    app.save_screenshot("runs_list_long").await;
    app.scroll_to("#runs-spend").await?;
    app.save_screenshot("runs_spend_chart").await;

    // By launcher: a quarter of them came from codex.
    app.type_into("#runs-filter-launcher", "codex").await?;
    wait_rows(app, seeded / LAUNCHERS.len()).await?;
    let rows = app.text("#runs-list tbody").await?.unwrap_or_default();
    if rows.contains("claude-code") {
        return Err("the launcher filter let other launchers through".into());
    }
    app.click("#runs-filter-clear").await?;
    wait_rows(app, seeded).await?;
    // By state: the ones the cap stopped.
    crate::review::choose(app, "#runs-filter-state", "failed").await?;
    wait_rows(app, seeded / 5).await?;
    let reason = app
        .text("#runs-list tbody tr [data-reason]")
        .await?
        .unwrap_or_default();
    if reason != "budget exceeded" {
        return Err(format!("a failed run's reason reads {reason:?}"));
    }
    // By mode and words.
    crate::review::choose(app, "#runs-filter-state", "").await?;
    crate::review::choose(app, "#runs-filter-mode", "cascade").await?;
    app.type_into("#runs-filter-text", "release note 9 for")
        .await?;
    wait_rows(app, 1).await?;
    app.click("#runs-filter-clear").await?;
    wait_rows(app, seeded).await?;

    // A run whose first call's worst case does not fit under its cap stops at once.
    start_form(
        app,
        "Summarise the changelog in one line",
        "single",
        "0.0001",
    )
    .await?;
    name_models(app, "member", &[GOOD]).await?;
    launch(app).await?;
    wait_attr(app, "#run-detail", "data-state", RUN_WAIT, |s| {
        s == "failed"
    })
    .await?;
    wait_attr(app, "#run-reason", "data-reason", RUN_WAIT, |r| {
        r == "budget_exceeded"
    })
    .await?;
    app.wait_text("#run-reason", |t| t.contains("USD cap"))
        .await?;
    app.wait_text("#run-spent", |t| t == "$0.00").await?;
    app.save_screenshot("runs_budget_exceeded").await;

    app.goto("runs").await?;
    wait_rows(app, seeded + 1).await?;
    let first = count_rows(app).await?;
    if first != seeded + 1 {
        return Err(format!("the list shows {first} runs"));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_long_run_list_filters_by_state_mode_launcher_and_words_and_a_capped_run_says_why() {
    if !E2e::enabled("runs_list") {
        return;
    }
    let server = TestServer::start_with(reply).await;
    let home = tempfile::tempdir().expect("home");
    let engine = seed_home(
        home.path(),
        &server,
        &[
            ("runs.baseline_model", BASELINE),
            ("runs.max_parallel_runs", "8"),
        ],
    )
    .await;
    const SEEDED: usize = 40;
    seed_runs(&engine, SEEDED).await;
    engine.close().await;
    E2e::run(
        "runs_list",
        Launch::with_home(home.path()),
        |app| async move {
            let result = list_filters_and_budget_stop(&app, SEEDED).await;
            (app, result)
        },
    )
    .await;
}

/// Every answer streams 40 pieces 100 ms apart: a run lasting about four seconds.
fn slow_reply(request: &Recorded) -> Reply {
    let model = request.json()["model"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let pieces: Vec<String> = (0..40).map(|i| format!("piece {i}. ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let events = wire::openai_stream_finishing(&model, &refs, Some((400, 300)), "stop");
    Reply::sse_paced(
        events
            .into_iter()
            .map(|e| (Duration::from_millis(100), e))
            .collect(),
        End::Complete,
    )
}

/// A run this test process executes (another process than the app, as for the CLI) streams
/// into the open run page: the page follows it from the shared database and its node's live
/// file, shows the text within a second of its being streamed and the end within a second of
/// its being stored.
async fn another_process_run_streams(app: &App, engine: &Arc<Engine>) -> E2eResult {
    let mut request = RunRequest::new("Explain ownership slowly", RunMode::Single);
    request.models = Some(vec![GOOD.to_owned()]);
    request.launcher = "cli".into();
    let run = engine
        .start_run(request)
        .await
        .map_err(|e| format!("start: {e}"))?;
    app.goto("runs").await?;
    app.click(&format!("a[href='#/runs/{}']", run.id)).await?;
    app.wait_for("#run-detail").await?;
    let seen = app
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             const start = Date.now(); const states = []; let piece5 = null; \
             const poll = () => { \
               const state = document.querySelector('#run-detail')?.dataset.state ?? ''; \
               if (states[states.length - 1] !== state) states.push(state); \
               const live = [...document.querySelectorAll('.live-text')] \
                 .map((e) => e.textContent).join(''); \
               if (piece5 === null && live.includes('piece 5.')) piece5 = Date.now(); \
               if (state === 'completed' || Date.now() - start > 20000) { \
                 done({ at: Date.now(), states, piece5 }); return; } \
               setTimeout(poll, 20); }; \
             poll();",
            vec![],
        )
        .await
        .map_err(|e| format!("watch the run: {e}"))?;
    let detail = engine
        .run_detail(&run.id)
        .await
        .map_err(|e| format!("detail: {e}"))?;
    let finished = detail.summary.finished_ms.unwrap_or(i64::MAX) as f64;
    let shown = seen["at"].as_f64().unwrap_or(0.0);
    let states = seen["states"].to_string();
    if !states.contains("running") || !states.contains("completed") {
        return Err(format!("the page did not follow the run live: {states}"));
    }
    if shown - finished > 1000.0 {
        return Err(format!(
            "the page showed the end {} ms after it was stored",
            shown - finished
        ));
    }
    // The server sends a piece every 100 ms: "piece 5." leaves it 3.5 s before the run's end
    // (35 more pieces and the finish), so shown 2.5 s or more before the end, it was on the
    // page within a second of being streamed by the other process.
    let Some(piece5) = seen["piece5"].as_f64() else {
        return Err(format!(
            "the page never showed the other process's streamed text before the end: {seen}"
        ));
    };
    if shown - piece5 < 2500.0 {
        return Err(format!(
            "\"piece 5.\" showed only {} ms before the end: more than a second after it streamed",
            shown - piece5
        ));
    }
    // The page's figures follow the end too, not only its state.
    app.wait_text("#run-nodes-done", |t| t.starts_with("1/1 done"))
        .await?;
    app.wait_text("#run-spent", |t| t != "$0.00").await?;
    eprintln!(
        "another process's run: the page showed its end {} ms after it was stored, \
         \"piece 5.\" {} ms before the end",
        shown - finished,
        shown - piece5
    );
    app.save_screenshot("runs_other_process").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_run_another_process_executes_streams_into_the_open_run_page() {
    E2e::enabled("a_run_another_process_executes_streams_into_the_open_run_page");
    let server = TestServer::start_with(slow_reply).await;
    let home = tempfile::tempdir().expect("home");
    let engine = seed_home(home.path(), &server, &[]).await;
    let owner = engine.clone();
    E2e::run(
        "runs_other_process",
        Launch::with_home(home.path()),
        |app| async move {
            let result = another_process_run_streams(&app, &owner).await;
            (app, result)
        },
    )
    .await;
    engine.close().await;
}
