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

#[tokio::test]
async fn data_dir_with_url_metacharacters_opens_exactly_that_file() {
    // The path used to be pasted into a `sqlite://` URL, so `?` started a query string, `#` a
    // fragment and `%41` decoded to `A`: another file (or an error) instead of this one.
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("we?ird #dir%41");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join(DATABASE_FILE);
    let store = Store::open(&path).await.expect("open");
    store
        .set_setting("probe", "here", "2026-12-01T00:00:00Z")
        .await
        .expect("write");
    store.close().await;
    assert!(path.is_file(), "the database must be at {}", path.display());
    let again = Store::open(&path).await.expect("reopen");
    assert_eq!(
        again.setting("probe").await.expect("read").as_deref(),
        Some("here")
    );
    again.close().await;
    // Nothing was created beside the intended directory.
    let mut names: Vec<String> = std::fs::read_dir(root.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["we?ird #dir%41".to_owned()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_opens_of_a_new_database_all_migrate_once() {
    // The app and the CLI starting at the same moment on a new database raced on the
    // migrations: one of them failed to start. Several rounds, several openers each.
    for round in 0..8 {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DATABASE_FILE);
        let opens = (0..4).map(|_| {
            let path = path.clone();
            tokio::spawn(async move { Store::open(&path).await })
        });
        let results = futures_join(opens).await;
        for (i, result) in results.into_iter().enumerate() {
            let store = result.unwrap_or_else(|e| panic!("round {round}, opener {i}: {e}"));
            let version = store.schema_version().await.expect("version");
            assert_eq!(version.applied as usize, Store::known_migrations());
            store.close().await;
        }
    }
}

async fn futures_join<T>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        out.push(handle.await.expect("task"));
    }
    out
}
