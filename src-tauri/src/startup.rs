//! Start-up: when the process started (for the first-paint measurement) and WebKit tuning.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tokio::sync::SetOnce;

static PROCESS_START: OnceLock<Instant> = OnceLock::new();
/// Set once the UI has drawn its first page: work that competes with the webview for the CPU
/// at start-up waits for it.
static FIRST_PAINT: SetOnce<()> = SetOnce::const_new();

/// Records that the UI has painted its first page (see [`after_first_paint`]).
pub fn mark_first_paint() {
    // A second report (a reload) changes nothing.
    let _ = FIRST_PAINT.set(());
}

/// Returns once the UI has painted its first page, or after `at_most` (a window that never
/// reports it must not hold start-up work back for ever).
///
/// The start-up doctor waits for this: it probes every agent CLI, and a CLI not on the app's
/// `PATH` is looked up through the user's login shell, whose profile (`nvm`, `pyenv`,
/// `conda`…) can spawn dozens of processes (about 60 on the test machine, for a second). Run
/// beside WebKit's own start on two cores, they competed with the first paint, and when the
/// app quit early they went on into the next process's start.
pub async fn after_first_paint(at_most: Duration) {
    let _ = tokio::time::timeout(at_most, FIRST_PAINT.wait()).await;
}

/// Marks the process start; call first thing in `main`.
pub fn mark_process_start() {
    PROCESS_START.get_or_init(Instant::now);
}

/// Time since [`mark_process_start`] (zero if it was never called).
pub fn since_process_start() -> Duration {
    PROCESS_START
        .get()
        .map(Instant::elapsed)
        .unwrap_or_default()
}

/// Turns WebKitGTK's accelerated compositing off unless the user chose otherwise
/// (`WEBKIT_DISABLE_COMPOSITING_MODE=0` keeps it on). Measured with
/// `scripts/bench-startup.sh`: the web process drops from ~280 MB to ~145 MB PSS and the first
/// paint comes ~40% sooner; Switchyard draws tables, forms and one canvas chart, none of which
/// needs GPU compositing. Must run before any thread starts (it sets an environment variable).
pub fn tune_webkit() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}

/// The global the page reads its stored preferences from before its first render.
const PREFS_GLOBAL: &str = "__SWITCHYARD_PREFS__";

/// Creates the main window (`create: false` in `tauri.conf.json`, which holds the rest of its
/// settings) with a script, run before the page's own, that sets
/// `window.__SWITCHYARD_PREFS__` to `prefs` (the theme and whether the checklist was
/// dismissed): the first frame is drawn in the stored theme without waiting for Rust.
///
/// This replaces a copy in `localStorage`: its first read is a synchronous request from the
/// web process to WebKit's network process (which opens the storage database) before the
/// page can render, and the copy could disagree with the database. The page still asks Rust
/// (`ui_prefs`) after it starts; a reload sees what was stored at start-up until that
/// answers.
pub fn open_main_window(
    app: &tauri::App,
    prefs: Option<&switchyard_core::first_run::UiPrefs>,
) -> Result<(), Box<dyn std::error::Error>> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == "main")
        .ok_or("tauri.conf.json has no main window")?
        .clone();
    tauri::WebviewWindowBuilder::from_config(app.handle(), &config)?
        .initialization_script(prefs_script(prefs))
        .build()?;
    Ok(())
}

/// The script of [`open_main_window`]: JSON is a JavaScript expression, so nothing stored can
/// break out of it.
fn prefs_script(prefs: Option<&switchyard_core::first_run::UiPrefs>) -> String {
    let json = prefs
        .and_then(|p| serde_json::to_string(p).ok())
        .unwrap_or_else(|| "null".to_owned());
    format!("window.{PREFS_GLOBAL} = {json};")
}

#[cfg(test)]
mod tests {
    use switchyard_core::first_run::{Theme, UiPrefs};

    use super::*;

    #[test]
    fn the_page_gets_the_stored_preferences_as_the_ui_reads_them() {
        let prefs = UiPrefs {
            theme: Theme::Dark,
            checklist_dismissed: true,
            plot_hidden: true,
        };
        assert_eq!(
            prefs_script(Some(&prefs)),
            r#"window.__SWITCHYARD_PREFS__ = {"theme":"dark","checklistDismissed":true,"plotHidden":true};"#
        );
        assert_eq!(prefs_script(None), "window.__SWITCHYARD_PREFS__ = null;");
    }
}
