//! Engine start-up against real directories and a real SQLite file.

use switchyard_core::doctor::CheckStatus;
use switchyard_core::error::ErrorCode;
use switchyard_engine::{Engine, EngineConfig};

#[tokio::test]
async fn fresh_home_is_created_and_migrated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("nested").join("home");
    let engine = Engine::open(EngineConfig {
        home: Some(home.clone()),
    })
    .await
    .expect("open");
    let info = engine.app_info().await.expect("info");
    assert_eq!(info.data_dir, home.display().to_string());
    assert!(info.migrations_applied >= 1);
    assert!(home.join("switchyard.db").is_file());
    engine.close().await;
}

#[tokio::test]
async fn doctor_reports_data_dir_database_and_git() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(EngineConfig {
        home: Some(dir.path().to_path_buf()),
    })
    .await
    .expect("open");
    let report = engine.doctor().await;
    let status = |id: &str| report.checks.iter().find(|c| c.id == id).map(|c| c.status);
    assert_eq!(status("dataDir"), Some(CheckStatus::Ok));
    assert_eq!(status("database"), Some(CheckStatus::Ok));
    assert_eq!(status("git"), Some(CheckStatus::Ok));
    assert!(report
        .git_version
        .as_deref()
        .is_some_and(|v| v.starts_with("git version")));
    assert_eq!(report.worker_clis.len(), 5);
    assert_eq!(report.local_endpoints.len(), 2);
    assert!(status("keychain").is_some());
    engine.close().await;
}

#[tokio::test]
async fn unwritable_home_is_a_startup_error_naming_the_path() {
    // A regular file where a parent directory should be: unwritable for every user, root
    // included (permission bits would not stop root).
    let dir = tempfile::tempdir().expect("tempdir");
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, b"x").expect("write");
    let target = blocker.join("home");
    let err = Engine::open(EngineConfig {
        home: Some(target.clone()),
    })
    .await
    .expect_err("fails");
    assert_eq!(err.code(), ErrorCode::Startup);
    let message = err.to_string();
    assert!(message.contains(&target.display().to_string()), "{message}");
    assert!(message.contains("cannot create directory"), "{message}");
}

#[tokio::test]
async fn corrupt_database_is_a_startup_error_and_the_file_is_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("switchyard.db");
    std::fs::write(&db, vec![b'x'; 4096]).expect("write");
    let err = Engine::open(EngineConfig {
        home: Some(dir.path().to_path_buf()),
    })
    .await
    .expect_err("fails");
    assert_eq!(err.code(), ErrorCode::Startup);
    assert!(err.to_string().contains(&db.display().to_string()), "{err}");
    assert_eq!(std::fs::read(&db).expect("read"), vec![b'x'; 4096]);
}

#[tokio::test]
async fn the_app_preferences_survive_a_restart_and_default_to_shown_and_system() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        Engine::open(EngineConfig {
            home: Some(dir.path().to_path_buf()),
        })
    };
    let engine = open().await.expect("open");
    let fresh = engine.ui_prefs().await.expect("prefs");
    assert_eq!(fresh, switchyard_core::first_run::UiPrefs::default());
    let stored = engine.set_plot_hidden(true).await.expect("hide");
    assert!(stored.plot_hidden);
    engine
        .set_theme(switchyard_core::first_run::Theme::Dark)
        .await
        .expect("theme");
    engine.close().await;

    let engine = open().await.expect("reopen");
    let prefs = engine.ui_prefs().await.expect("prefs");
    assert!(prefs.plot_hidden, "{prefs:?}");
    assert_eq!(prefs.theme, switchyard_core::first_run::Theme::Dark);
    assert!(
        !engine
            .set_plot_hidden(false)
            .await
            .expect("show")
            .plot_hidden
    );
    engine.close().await;
}
