//! Store test helpers shared by the migration tests.

use std::path::{Path, PathBuf};

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use switchyard_store::DATABASE_FILE;

/// A database in `dir` migrated up to just before `migration` (a file name in `migrations/`),
/// as an older Switchyard left it, with a one-connection pool on it for writing old rows.
pub async fn database_before(dir: &Path, migration: &str) -> (PathBuf, SqlitePool) {
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let older = dir.join("older-migrations");
    std::fs::create_dir_all(&older).expect("dir");
    let mut found = false;
    for entry in std::fs::read_dir(&migrations).expect("migrations") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        found |= name == migration;
        if name.as_str() < migration {
            std::fs::copy(entry.path(), older.join(&name)).expect("copy");
        }
    }
    assert!(found, "no migration named {migration}");
    let path = dir.join(DATABASE_FILE);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(
            SqliteConnectOptions::new()
                .filename(&path)
                .create_if_missing(true),
        )
        .await
        .expect("pool");
    sqlx::migrate::Migrator::new(older.as_path())
        .await
        .expect("migrator")
        .run(&pool)
        .await
        .expect("older migrations");
    (path, pool)
}
