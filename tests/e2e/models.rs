//! The Models page on the bundled catalog (no network): the table and the plot agree after
//! filtering to coding, a model's details show its per-source breakdown and explain its
//! score, compare marks the best values. Prints the page's own render-time measurement.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{App, E2e, E2eResult, Launch, WAIT};

/// Runs `script` (with `args`) in the page and returns its value.
async fn js(app: &App, script: &str, args: Vec<Value>) -> E2eResult<Value> {
    app.client
        .execute(script, args)
        .await
        .map_err(|e| format!("script failed: {e}"))
}

/// An attribute of the first element matching `css`, parsed as a number.
async fn number_attr(app: &App, css: &str, name: &str) -> E2eResult<f64> {
    let text = app
        .attr(css, name)
        .await?
        .ok_or_else(|| format!("{css} has no {name}"))?;
    text.parse()
        .map_err(|_| format!("{css} {name}={text:?} is not a number"))
}

/// Waits until the table and the plot both show the answer to the same query in `category`.
async fn settled(app: &App, category: &str) -> E2eResult<f64> {
    let table = format!("#models-table[data-category='{category}']");
    let plot = format!("#models-plot[data-state='ready'][data-category='{category}']");
    let start = Instant::now();
    loop {
        app.wait_for(&table).await?;
        app.wait_for(&plot).await?;
        let table_version = number_attr(app, &table, "data-version").await?;
        let plot_version = number_attr(app, &plot, "data-version").await?;
        let busy = js(
            app,
            "return document.querySelector('#models-table').classList.contains('busy');",
            vec![],
        )
        .await?;
        if table_version == plot_version && table_version > 0.0 && busy == Value::Bool(false) {
            return Ok(table_version);
        }
        if start.elapsed() > WAIT {
            return Err(format!(
                "table (v{table_version}) and plot (v{plot_version}) never showed the same query"
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Texts of the elements matching `css`, in document order.
async fn texts(app: &App, css: &str) -> E2eResult<Vec<String>> {
    let value = js(
        app,
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent.trim());",
        vec![css.into()],
    )
    .await?;
    Ok(value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// A review artifact (the screenshots folder is git-ignored); failing to save is not a test
/// failure.
async fn save_screenshot(app: &App, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/screenshots");
    if let Ok(png) = app.client.screenshot().await {
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{name}.png"));
        if std::fs::write(&path, png).is_ok() {
            eprintln!("e2e: screenshot saved to {}", path.display());
        }
    }
}

/// Prints the page's own measurement of its latest render (data arrival → the frame after
/// table and plot rendered), with its parts.
async fn render_figures(app: &App, when: &str) -> E2eResult {
    // The measurement of the query the table shows (it is written a frame after rendering).
    let version = number_attr(app, "#models-table", "data-version").await?;
    let page = format!("#models-page[data-render-version='{version}']");
    let page = page.as_str();
    app.wait_for(page).await?;
    let ms = number_attr(app, page, "data-render-ms").await?;
    let table = number_attr(app, page, "data-render-table-ms").await?;
    let plot = number_attr(app, page, "data-render-plot-ms").await?;
    let rows = number_attr(app, page, "data-render-rows").await?;
    let first = number_attr(app, page, "data-first-render-ms").await?;
    let chart = app
        .attr("#models-plot .plot-canvas", "data-load-ms")
        .await?
        .unwrap_or_default();
    let data = app
        .attr(page, "data-first-data-ms")
        .await?
        .unwrap_or_default();
    eprintln!(
        "e2e models: render {when}: {ms:.1} ms for {rows} models (table done at {table:.1} ms, \
         plot at {plot:.1} ms); page's first render {first:.1} ms; chart ready {chart} ms after \
         it mounted; first data {data} ms after the page mounted"
    );
    let frames = app
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; const t = []; \
             const step = (now) => { t.push(now); if (t.length < 11) requestAnimationFrame(step); \
             else done((t[10] - t[0]) / 10); }; requestAnimationFrame(step);",
            vec![],
        )
        .await
        .map_err(|e| format!("frame interval: {e}"))?;
    eprintln!("e2e models: mean frame interval in this window: {frames} ms");
    if !(ms >= 0.0 && table <= ms && plot <= ms) {
        return Err(format!(
            "inconsistent render figures: {ms} ms, table {table}, plot {plot}"
        ));
    }
    Ok(())
}

/// Re-renders the full catalog a few times (flipping the score sort: a new query, every row
/// and point redrawn) and prints each of the page's measurements and their median.
async fn warm_render_figures(app: &App) -> E2eResult {
    let mut figures = Vec::new();
    // An even number of flips leaves the sort as it was: best first.
    for _ in 0..6 {
        let before = number_attr(app, "#models-table", "data-version").await?;
        app.click("#models-table button[data-sort='score']").await?;
        let start = Instant::now();
        let version = loop {
            let v = number_attr(app, "#models-table", "data-version").await?;
            if v > before {
                break v;
            }
            if start.elapsed() > WAIT {
                return Err("sorting did not re-query".into());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let page = format!("#models-page[data-render-version='{version}']");
        app.wait_for(&page).await?;
        figures.push(number_attr(app, &page, "data-render-ms").await?);
    }
    let mut sorted = figures.clone();
    sorted.sort_by(f64::total_cmp);
    eprintln!(
        "e2e models: warm re-renders of the full catalog: {figures:?} ms, median {} ms",
        sorted[sorted.len() / 2]
    );
    Ok(())
}

async fn table_and_plot_agree(app: &App) -> E2eResult<String> {
    app.goto("models").await?;
    settled(app, "general").await?;
    let all = number_attr(app, "#models-table", "data-row-count").await?;
    render_figures(app, "full catalog").await?;
    if all < 100.0 {
        return Err(format!(
            "the bundled catalog should list hundreds of models, table shows {all}"
        ));
    }
    // Virtualized: only the rows in view (and a few around) are in the DOM.
    let rendered = texts(app, "#models-table .models-row .model-name")
        .await?
        .len();
    if rendered == 0 || rendered as f64 >= all / 2.0 {
        return Err(format!(
            "{rendered} of {all} rows rendered: the table is not virtualized"
        ));
    }
    save_screenshot(app, "models_browse_all").await;
    warm_render_figures(app).await?;

    app.wait_for("#models-category")
        .await?
        .select_by_value("coding")
        .await
        .map_err(|e| format!("choose coding: {e}"))?;
    settled(app, "coding").await?;
    render_figures(app, "coding").await?;

    let rows = number_attr(app, "#models-table", "data-row-count").await?;
    let points = number_attr(app, "#models-plot", "data-points").await?;
    let skipped = number_attr(app, "#models-plot", "data-skipped").await?;
    let frontier = number_attr(app, "#models-plot", "data-frontier").await?;
    eprintln!("e2e models: coding: {rows} rows, {points} plotted, {skipped} without a price, {frontier} on the frontier");
    if rows <= 0.0 || rows >= all {
        return Err(format!(
            "coding should narrow {all} models to fewer, got {rows}"
        ));
    }
    if points + skipped != rows || points <= 0.0 {
        return Err(format!(
            "plot shows {points} + {skipped} unplotted for {rows} table rows"
        ));
    }
    if frontier < 1.0 || frontier > points {
        return Err(format!("frontier of {frontier} points out of {points}"));
    }
    // Every rendered row has a coding score, best first.
    let scores = texts(app, "#models-table .models-row .score-value").await?;
    let rendered = texts(app, "#models-table .models-row .model-name").await?;
    if scores.is_empty() || scores.len() != rendered.len() {
        return Err(format!(
            "{} rendered rows but {} coding scores",
            rendered.len(),
            scores.len()
        ));
    }
    let values: Vec<f64> = scores.iter().filter_map(|s| s.parse().ok()).collect();
    if values.len() != scores.len() || values.windows(2).any(|w| w[0] < w[1]) {
        return Err(format!("coding scores are not best first: {scores:?}"));
    }
    // The top plotted model of the table is the highest point of the plot.
    let top_row = js(
        app,
        "const r = document.querySelector(\"#models-table .models-row[data-plotted='true']\"); \
         return r ? r.getAttribute('data-model-id') : null;",
        vec![],
    )
    .await?;
    let top_point = app.attr("#models-plot", "data-top-id").await?;
    let top_row = top_row.as_str().map(str::to_owned);
    if top_row.is_none() || top_row != top_point {
        return Err(format!(
            "table's top plotted model {top_row:?}, plot's highest point {top_point:?}"
        ));
    }
    save_screenshot(app, "models_coding").await;
    top_row.ok_or_else(|| "no top row".to_owned())
}

async fn details_show_sources(app: &App, id: &str) -> E2eResult {
    let row = format!("#models-table .models-row[data-model-id='{id}']");
    let table_score = app
        .text(&format!("{row} .score-value"))
        .await?
        .unwrap_or_default();
    app.click(&format!("{row} .model-open")).await?;
    let drawer = format!("#model-drawer[data-model-id='{id}'][data-state='ready']");
    app.wait_for(&drawer).await?;
    let sources = js(
        app,
        "return Array.from(document.querySelectorAll('#model-drawer .source-group')) \
           .map(g => [g.getAttribute('data-source'), g.querySelectorAll('.bench-row').length]);",
        vec![],
    )
    .await?;
    let groups: Vec<(String, u64)> = sources
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|g| Some((g.get(0)?.as_str()?.to_owned(), g.get(1)?.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    eprintln!("e2e models: {id} per-source rows: {groups:?}");
    if groups.len() < 2 || groups.iter().any(|(_, n)| *n == 0) {
        return Err(format!(
            "expected rows for at least two sources, got {groups:?}"
        ));
    }
    let coding = "#model-drawer .score-item[data-category='coding']";
    let drawer_score = app
        .text(&format!("{coding} .score-value"))
        .await?
        .unwrap_or_default();
    if drawer_score != table_score || drawer_score.is_empty() {
        return Err(format!(
            "drawer coding score {drawer_score:?}, table {table_score:?}"
        ));
    }
    let formula = app
        .wait_text(&format!("{coding} .formula"), |t| !t.is_empty())
        .await?;
    if !formula.starts_with(&format!("coding {drawer_score} = (")) {
        return Err(format!("why-this-score formula {formula:?}"));
    }
    save_screenshot(app, "models_detail").await;
    js(
        app,
        "document.querySelector('#model-sources').scrollIntoView();",
        vec![],
    )
    .await?;
    save_screenshot(app, "models_detail_sources").await;
    edit_a_match(app).await?;
    save_screenshot(app, "models_detail_matches").await;
    app.click("#model-drawer button[aria-label='Close']")
        .await?;
    Ok(())
}

/// Removes the drawer's first match (the engine rebuilds the card without it), then undoes it.
async fn edit_a_match(app: &App) -> E2eResult {
    let first = "#model-matches tr[data-record]";
    let record = app
        .attr(first, "data-record")
        .await?
        .ok_or("a match row has no record")?;
    let source = app
        .attr(first, "data-source")
        .await?
        .ok_or("a match row has no source")?;
    let row = format!("#model-matches tr[data-source='{source}'][data-record='{record}']");
    app.click(&format!("{row} button")).await?;
    app.wait_text("#model-matches .removed", |t| t.contains(&record))
        .await?;
    let still = js(
        app,
        "return !!document.querySelector(arguments[0]);",
        vec![row.clone().into()],
    )
    .await?;
    if still != Value::Bool(false) {
        return Err(format!("{source} {record} still listed after removing it"));
    }
    app.click("#model-matches .removed button").await?;
    app.wait_for(&row).await?;
    Ok(())
}

async fn compare_marks_best(app: &App) -> E2eResult {
    let ids = js(
        app,
        "return Array.from(document.querySelectorAll('#models-table .models-row')).slice(0, 3) \
           .map(r => r.getAttribute('data-model-id'));",
        vec![],
    )
    .await?;
    let ids: Vec<String> = ids
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if ids.len() < 3 {
        return Err(format!("need three rows to compare, have {ids:?}"));
    }
    for id in &ids {
        app.click(&format!(
            "#models-table .models-row[data-model-id='{id}'] .c-select input"
        ))
        .await?;
    }
    app.click("#compare-open").await?;
    app.wait_for("#compare-view[data-state='ready'][data-models='3']")
        .await?;
    let headers = js(
        app,
        "return Array.from(document.querySelectorAll('#compare-view thead th[data-model-id]')) \
           .map(h => h.getAttribute('data-model-id'));",
        vec![],
    )
    .await?;
    let headers: Vec<String> = headers
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if headers != ids {
        return Err(format!("compare columns {headers:?}, selected {ids:?}"));
    }
    let best = texts(app, "#compare-view tr[data-row='score.coding'] td.best").await?;
    if best.is_empty() {
        return Err("no best coding score marked among three different models".into());
    }
    save_screenshot(app, "models_compare").await;
    Ok(())
}

async fn status_shows_bundled_sources(app: &App) -> E2eResult {
    app.click("#models-tab-status").await?;
    app.wait_for("#catalog-sources tr[data-source='openRouter']")
        .await?;
    let rows = js(
        app,
        "return document.querySelectorAll('#catalog-sources tbody tr[data-source]').length;",
        vec![],
    )
    .await?
    .as_u64()
    .unwrap_or(0);
    if rows != 5 {
        return Err(format!(
            "catalog status lists {rows} sources, expected the five"
        ));
    }
    // A fresh data directory serves the snapshot bundled with the app, and says so.
    app.wait_text("#catalog-bundled-note", |t| {
        t.contains("bundled with the app")
    })
    .await?;
    // No screenshot here: WebKitWebDriver's screenshot of this view can stall (the page
    // itself keeps painting; frames measured at 16 ms), which would hang the suite.
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn models_table_and_plot_agree_and_details_explain_scores() {
    let name = "models_table_and_plot_agree_and_details_explain_scores";
    E2e::run(name, Launch::fresh(), |app| async move {
        let result = async {
            let top = table_and_plot_agree(&app).await?;
            details_show_sources(&app, &top).await?;
            compare_marks_best(&app).await?;
            status_shows_bundled_sources(&app).await
        }
        .await;
        (app, result)
    })
    .await;
}

/// The script chunks of the charting library the page has loaded: a dynamic import adds a
/// `modulepreload` link for each chunk it needs (the custom protocol's loads are not in
/// resource timing).
async fn chart_chunks(app: &App) -> E2eResult<Vec<String>> {
    let value = js(
        app,
        "return [...document.querySelectorAll('link[rel=modulepreload]')].map(l => l.href)\
         .filter(n => /installCanvasRenderer|\\/chart-/.test(n));",
        vec![],
    )
    .await?;
    Ok(value
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// Hides the plot, after checking the chart chunks are found while it is drawn (so their
/// absence after the restart means something).
async fn hide_the_plot(app: &App) -> E2eResult {
    app.wait_for("#models-plot[data-state='ready']").await?;
    let loaded = chart_chunks(app).await?;
    if loaded.is_empty() {
        return Err("the drawn plot's chart chunks were not preloaded".into());
    }
    app.click("#plot-toggle").await?;
    app.wait_text("#plot-toggle", |t| t == "Show plot").await?;
    if app.text("#models-plot").await?.is_some() {
        return Err("the plot is still on the page after Hide plot".into());
    }
    // Stored before the app is closed: the next start reads it back.
    app.wait_for("#plot-toggle[data-saving='false']").await?;
    if let Some(error) = app.text("#plot-pref-error").await? {
        return Err(format!("the choice was not stored: {error}"));
    }
    Ok(())
}

/// After the restart: the table, no plot, and the charting library never fetched.
async fn plot_stays_hidden(app: &App) -> E2eResult {
    app.wait_for("#models-table .models-row").await?;
    app.wait_text("#plot-toggle", |t| t == "Show plot").await?;
    if app.text("#models-plot").await?.is_some() {
        return Err("the plot was drawn although it was hidden before the restart".into());
    }
    let loaded = chart_chunks(app).await?;
    if !loaded.is_empty() {
        return Err(format!(
            "the charting library was fetched anyway: {loaded:?}"
        ));
    }
    save_screenshot(app, "models_plot_hidden").await;
    app.click("#plot-toggle").await?;
    app.wait_for("#models-plot[data-state='ready']").await?;
    Ok(())
}

#[tokio::test]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn a_hidden_plot_stays_hidden_after_a_restart_and_its_library_is_not_loaded() {
    if !E2e::enabled("a_hidden_plot_stays_hidden_after_a_restart_and_its_library_is_not_loaded") {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    E2e::run(
        "models_hide_plot",
        Launch::with_home(home.path()),
        |app| async move {
            let result = hide_the_plot(&app).await;
            (app, result)
        },
    )
    .await;
    E2e::run(
        "models_plot_hidden_after_restart",
        Launch::with_home(home.path()),
        |app| async move {
            let result = plot_stays_hidden(&app).await;
            (app, result)
        },
    )
    .await;
}
