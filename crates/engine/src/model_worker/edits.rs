//! Applying the model's edits to the worktree. Each edit stands alone: a refused path or a
//! search that does not match once fails that edit (the reason goes back to the model next
//! turn) and the others still apply.

use std::fs;
use std::io::ErrorKind;

use switchyard_core::worker::model::{replace_once, Edit};

use super::context::Worktree;

/// Applies one edit; `Err` says why it was not applied (nothing was written then).
pub(super) fn apply(worktree: &Worktree, edit: &Edit) -> Result<(), String> {
    let on_disk = worktree.resolve(edit.path())?;
    match edit {
        Edit::Write { content, .. } => {
            if on_disk.is_dir() {
                return Err("is a directory; name a file".into());
            }
            if let Some(parent) = on_disk.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| format!("its folder cannot be created: {e}"))?;
            }
            fs::write(&on_disk, content).map_err(|e| format!("cannot be written: {e}"))
        }
        Edit::Replace {
            search, replace, ..
        } => {
            let text = match fs::read(&on_disk) {
                Ok(bytes) => String::from_utf8(bytes)
                    .map_err(|_| "is not UTF-8 text; write the whole file instead".to_owned())?,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Err("no such file; write the whole file to create it".into())
                }
                Err(e) => return Err(format!("cannot be read: {e}")),
            };
            let changed = replace_once(&text, search, replace).map_err(|e| e.to_string())?;
            fs::write(&on_disk, changed).map_err(|e| format!("cannot be written: {e}"))
        }
        Edit::Delete { .. } => match fs::symlink_metadata(&on_disk) {
            Ok(meta) if meta.is_dir() => Err("is a directory; delete its files one by one".into()),
            Ok(_) => fs::remove_file(&on_disk).map_err(|e| format!("cannot be deleted: {e}")),
            Err(e) if e.kind() == ErrorKind::NotFound => Err("no such file".into()),
            Err(e) => Err(format!("cannot be deleted: {e}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Worktree) {
        let dir = tempfile::tempdir().expect("tempdir");
        let worktree = Worktree::open(dir.path()).expect("open");
        (dir, worktree)
    }

    #[test]
    fn write_replace_delete() {
        let (dir, wt) = setup();
        let write = Edit::Write {
            path: "src/new.rs".into(),
            content: "fn a() -> u8 { 1 }\n".into(),
        };
        apply(&wt, &write).expect("write");
        let file = dir.path().join("src/new.rs");
        assert_eq!(
            fs::read_to_string(&file).expect("read"),
            "fn a() -> u8 { 1 }\n"
        );

        let replace = Edit::Replace {
            path: "src/new.rs".into(),
            search: "{ 1 }".into(),
            replace: "{ 2 }".into(),
        };
        apply(&wt, &replace).expect("replace");
        assert_eq!(
            fs::read_to_string(&file).expect("read"),
            "fn a() -> u8 { 2 }\n"
        );

        let missing = Edit::Replace {
            path: "src/new.rs".into(),
            search: "{ 1 }".into(),
            replace: "{ 3 }".into(),
        };
        let why = apply(&wt, &missing).expect_err("no match");
        assert!(why.contains("not found"), "{why}");
        assert_eq!(
            fs::read_to_string(&file).expect("read"),
            "fn a() -> u8 { 2 }\n"
        );

        apply(
            &wt,
            &Edit::Delete {
                path: "src/new.rs".into(),
            },
        )
        .expect("delete");
        assert!(!file.exists());
        assert_eq!(
            apply(
                &wt,
                &Edit::Delete {
                    path: "src/new.rs".into()
                }
            ),
            Err("no such file".into())
        );
        assert!(apply(&wt, &Edit::Delete { path: "src".into() }).is_err());
    }

    #[test]
    fn escapes_write_nothing() {
        let (dir, wt) = setup();
        let outside = tempfile::tempdir().expect("outside");
        let escape = outside.path().join("x.txt");
        for path in ["../x.txt", escape.to_str().expect("utf-8"), ".git/config"] {
            let edit = Edit::Write {
                path: path.into(),
                content: "owned".into(),
            };
            assert!(apply(&wt, &edit).is_err(), "{path} refused");
        }
        assert!(!escape.exists());
        assert!(!dir.path().join(".git").exists());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).expect("link");
            let edit = Edit::Write {
                path: "link/x.txt".into(),
                content: "owned".into(),
            };
            assert!(apply(&wt, &edit).is_err());
            assert!(!escape.exists());
        }
    }
}
