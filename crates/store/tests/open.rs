//! Opening the real SQLite file: fresh, existing, corrupt, unwritable.

use switchyard_store::{Store, StoreError, DATABASE_FILE};

#[tokio::test]
async fn fresh_file_gets_every_migration_and_wal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    let version = store.schema_version().await.expect("version");
    assert_eq!(version.applied as usize, Store::known_migrations());
    assert!(version.version >= 20261129090000);
    store.close().await;
    assert!(path.exists());
    // WAL mode is persistent in the file header: byte 18/19 == 2 means WAL.
    let header = std::fs::read(&path).expect("read db");
    assert_eq!((header[18], header[19]), (2, 2), "journal mode must be WAL");
}

#[tokio::test]
async fn second_open_keeps_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    store
        .set_setting("theme", "dark", "2026-11-29T00:00:00Z")
        .await
        .expect("set");
    store.close().await;

    let again = Store::open(&path).await.expect("reopen");
    assert_eq!(
        again.setting("theme").await.expect("get").as_deref(),
        Some("dark")
    );
    assert_eq!(
        again.schema_version().await.expect("v").applied as usize,
        Store::known_migrations()
    );
}

#[tokio::test]
async fn corrupt_file_is_a_clear_error_naming_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(DATABASE_FILE);
    std::fs::write(
        &path,
        b"this is not a sqlite database, just text that is long enough to be read",
    )
    .expect("write");
    let err = Store::open(&path).await.expect_err("must fail");
    assert!(
        matches!(err, StoreError::Open { .. } | StoreError::Migrate { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("not a database"), "{message}");
    // The bad file is left alone: nothing the user had is destroyed.
    assert!(std::fs::read(&path)
        .expect("read")
        .starts_with(b"this is not a sqlite"));
}
