//! The desktop shell: builds the engine once in `setup()`, exposes it through typed commands
//! and events (tauri-specta), and nothing else. Commands are thin: convert, delegate to the
//! engine, convert back. No SQL, no processes, no prompt assembly here.

#[cfg(test)]
mod capabilities_test;
pub mod commands;
pub mod dialog;
pub mod error;
pub mod events;
pub mod feed;
pub mod links;
pub mod notify;
pub mod startup;
mod state;

use std::sync::Arc;

use specta_typescript::Typescript;
use tauri::Manager;
use tauri_specta::Event;

pub use error::IpcError;
pub use state::AppState;

use switchyard_engine::{Engine, EngineConfig};

/// Where the generated TypeScript bindings live (relative to the repository root).
pub const BINDINGS_PATH: &str = "ui/src/ipc/bindings.ts";

#[doc(hidden)]
pub use tauri_specta as __tauri_specta;

/// The one list of typed commands and events, for a concrete runtime: `Wry` in the app,
/// `MockRuntime` in the IPC tests. A macro because commands that take an `AppHandle<R>` must
/// be named with a concrete `R` (specta's inner functions cannot see an outer generic).
#[macro_export]
macro_rules! specta_builder {
    ($runtime:ty) => {
        $crate::__tauri_specta::Builder::<$runtime>::new()
            .disable_serde_phases()
            .commands($crate::__tauri_specta::collect_commands![
                $crate::commands::app::get_app_info,
                $crate::commands::app::run_doctor::<$runtime>,
                $crate::commands::app::last_doctor_report,
                $crate::commands::app::open_link::<$runtime>,
                $crate::commands::app::record_first_paint::<$runtime>,
                $crate::commands::app::palette_entries,
                $crate::commands::app::ui_prefs,
                $crate::commands::app::set_theme,
                $crate::commands::app::first_run_checklist,
                $crate::commands::app::set_checklist_dismissed,
                $crate::commands::app::set_plot_hidden,
                $crate::commands::catalog::list_models,
                $crate::commands::catalog::get_model,
                $crate::commands::catalog::catalog_metrics,
                $crate::commands::catalog::compare_models,
                $crate::commands::catalog::catalog_status,
                $crate::commands::catalog::refresh_catalog,
                $crate::commands::catalog::accept_held_snapshot,
                $crate::commands::catalog::set_match_override,
                $crate::commands::catalog::clear_match_override,
                $crate::commands::roles::list_role_blocks,
                $crate::commands::roles::compose_role,
                $crate::commands::roles::list_role_presets,
                $crate::commands::roles::save_role_preset,
                $crate::commands::roles::rename_role_preset,
                $crate::commands::roles::duplicate_role_preset,
                $crate::commands::roles::delete_role_preset,
                $crate::commands::roles::add_custom_block,
                $crate::commands::roles::update_custom_block,
                $crate::commands::roles::delete_custom_block,
                $crate::commands::roles::export_roles,
                $crate::commands::roles::import_roles,
                $crate::commands::keys::list_providers,
                $crate::commands::keys::set_provider_key,
                $crate::commands::keys::delete_provider_key,
                $crate::commands::keys::test_provider,
                $crate::commands::keys::set_provider_base_url,
                $crate::commands::keys::add_provider,
                $crate::commands::keys::remove_provider,
                $crate::commands::keys::confirm_key_origin,
                $crate::commands::routing::classify_task,
                $crate::commands::routing::budget_tiers,
                $crate::commands::routing::classifier_settings,
                $crate::commands::routing::set_classifier_settings,
                $crate::commands::routing::pick_model,
                $crate::commands::routing::recommend_models,
                $crate::commands::routing::plan_task,
                $crate::commands::routing::revalidate_plan,
                $crate::commands::routing::rate_model,
                $crate::commands::routing::rate_pick,
                $crate::commands::routing::recent_picks,
                $crate::commands::routing::learning_settings,
                $crate::commands::routing::reset_learning,
                $crate::commands::routing::set_skip_below,
                $crate::commands::routing::agent_preferences,
                $crate::commands::routing::set_agent_start_model,
                $crate::commands::workers::list_worker_clis,
                $crate::commands::workers::set_worker_path,
                $crate::commands::workers::set_worker_account,
                $crate::commands::workers::worktree_usage,
                $crate::commands::workers::set_worktree_retention,
                $crate::commands::workers::prune_worktrees,
                $crate::commands::workers::confinement_support,
                $crate::commands::workers::set_allow_unconfined,
                $crate::commands::agents::agent_connect_configs,
                $crate::commands::agents::set_agents_may_approve,
                $crate::commands::attempts::start_attempt,
                $crate::commands::attempts::attempt_review,
                $crate::commands::attempts::attempt_file_diff,
                $crate::commands::attempts::list_attempts,
                $crate::commands::attempts::attempt_log,
                $crate::commands::attempts::watch_attempt,
                $crate::commands::attempts::cancel_attempt,
                $crate::commands::attempts::recover_attempt,
                $crate::commands::attempts::approve_attempt,
                $crate::commands::attempts::reject_attempt,
                $crate::commands::attempts::request_changes,
                $crate::commands::attempts::start_compare,
                $crate::commands::attempts::compare_group,
                $crate::commands::attempts::pick_attempt,
                $crate::commands::attempts::detect_verification,
                $crate::commands::attempts::pick_repo_folder::<$runtime>,
                $crate::commands::runs::preview_run,
                $crate::commands::runs::start_run,
                $crate::commands::runs::resume_run,
                $crate::commands::runs::approve_run,
                $crate::commands::runs::reject_run,
                $crate::commands::runs::list_runs,
                $crate::commands::runs::run_detail,
                $crate::commands::runs::run_log,
                $crate::commands::runs::run_output,
                $crate::commands::runs::watch_run,
                $crate::commands::runs::cancel_run,
                $crate::commands::runs::recover_run,
                $crate::commands::runs::rate_run_node,
                $crate::commands::runs::runs_spend,
                $crate::commands::runs::run_defaults,
                $crate::commands::runs::set_run_defaults,
            ])
            .events($crate::__tauri_specta::collect_events![
                $crate::events::DoctorUpdated,
                $crate::events::CatalogRefreshStarted,
                $crate::events::CatalogRefreshProgress,
                $crate::events::CatalogRefreshed,
                $crate::events::AttemptStateChanged,
                $crate::events::RunStateChanged,
                $crate::events::RunNodeChanged,
                $crate::events::RunBudgetChanged
            ])
            // How each state is shown, read by the UI without a round trip.
            .typ::<switchyard_core::state_words::StateWord>()
            .constant("STATE_WORDS", switchyard_core::state_words::state_words())
            // How many workers a compare group and models the Models page compares take.
            .typ::<switchyard_core::compare::CompareSize>()
            .constant("COMPARE_WORKERS", switchyard_core::compare::COMPARE_WORKERS)
            .constant("COMPARE_MODELS", switchyard_core::compare::COMPARE_MODELS)
    };
}

/// Renders the bindings file's content (used by the freshness test and by debug builds).
pub fn render_bindings(path: &std::path::Path) -> Result<(), String> {
    specta_builder!(tauri::Wry)
        .export(Typescript::default(), path)
        .map_err(|e| e.to_string())
}

/// How long start-up work (the doctor, the catalog schedule) waits for the first paint.
const STARTUP_WORK_AT_MOST: std::time::Duration = std::time::Duration::from_secs(3);

/// Starts the engine for the app. A failure is kept and shown by the UI, never a panic.
pub fn start_engine() -> AppState {
    let opened = tauri::async_runtime::block_on(Engine::open(EngineConfig::default()));
    match opened {
        Ok(engine) => AppState::ready(Arc::new(engine)),
        Err(error) => {
            tracing::error!(%error, "engine failed to start");
            AppState::failed(IpcError::from(error))
        }
    }
}

/// Keeps every webview on the app's own origin: a link, a redirect or injected script that
/// tries to navigate elsewhere is stopped (links open in the browser through `open_link`).
pub fn navigation_guard<R: tauri::Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|_webview, url| {
            let allowed = links::is_app_origin(url);
            if !allowed {
                tracing::warn!(%url, "blocked a navigation away from the app");
            }
            allowed
        })
        .build()
}

/// Runs the desktop app.
pub fn run() {
    startup::mark_process_start();
    startup::tune_webkit();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHYARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    // The engine opens (and reads the stored preferences) while GTK and the event loop start;
    // the window waits for it in `setup`, so its page starts with the preferences.
    let opening = std::thread::spawn(|| {
        let state = start_engine();
        let prefs = state.engine().and_then(|engine| {
            tauri::async_runtime::block_on(engine.ui_prefs())
                .inspect_err(|error| tracing::warn!(%error, "cannot read the stored preferences"))
                .ok()
        });
        (state, prefs)
    });
    let builder = specta_builder!(tauri::Wry);
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_shell::init())
        .plugin(navigation_guard())
        // For dialogs raised from Rust; the webview gets no dialog permission.
        .plugin(tauri_plugin_dialog::init())
        // Raised from Rust only (attempt or run ready / finished); the webview gets no permission.
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            let waiting = std::time::Instant::now();
            let (state, prefs) = opening.join().unwrap_or_else(|_| {
                let error = IpcError::new(
                    switchyard_core::error::ErrorCode::Internal,
                    "the engine crashed while it started",
                );
                (AppState::failed(error), None)
            });
            tracing::debug!(
                since_start_ms = startup::since_process_start().as_millis(),
                waited_ms = waiting.elapsed().as_millis(),
                "the engine is open; opening the window"
            );
            startup::open_main_window(app, prefs.as_ref())?;
            let state = state.with_key_move_confirmation(Arc::new(dialog::NativeDialog::new(
                app.handle().clone(),
            )));
            if let Some(engine) = state.engine() {
                let handle = app.handle().clone();
                events::forward(handle.clone(), &engine);
                tauri::async_runtime::spawn(async move {
                    // Both compete with the webview's start (see `after_first_paint`).
                    startup::after_first_paint(STARTUP_WORK_AT_MOST).await;
                    engine.start_background();
                    let report = engine.doctor_report().await;
                    if let Err(error) = (events::DoctorUpdated { report }).emit(&handle) {
                        tracing::warn!(%error, "cannot emit DoctorUpdated");
                    }
                });
            }
            app.manage(state);
            Ok(())
        })
        .build(tauri::generate_context!());
    match result {
        Ok(app) => app.run(|handle, event| {
            if let tauri::RunEvent::Exit = event {
                // Background work (a refresh) is canceled and awaited; the database closes
                // cleanly.
                if let Some(engine) = handle.try_state::<AppState>().and_then(|s| s.engine()) {
                    tauri::async_runtime::block_on(engine.close());
                }
            }
        }),
        Err(error) => {
            tracing::error!(%error, "the app stopped with an error");
            std::process::exit(1);
        }
    }
}
