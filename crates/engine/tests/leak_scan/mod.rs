//! The leak tests' scan of everything Switchyard wrote to its data directory.
#![allow(dead_code)]

use std::io::ErrorKind;
use std::path::Path;

/// Every byte under `dir` (the database, its WAL, logs, anything else). A file that disappears
/// between listing and reading (SQLite's `-wal`/`-shm` at close, a log the start-up sweep
/// removes) no longer holds anything, so it is skipped rather than failing the scan.
pub fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return bytes,
        Err(e) => panic!("read dir {}: {e}", dir.display()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            bytes.extend(all_bytes(&path));
            continue;
        }
        match std::fs::read(&path) {
            Ok(content) => bytes.extend(content),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => panic!("read {}: {e}", path.display()),
        }
    }
    bytes
}
