//! The worktree as the model worker sees it: every path the model names is checked here
//! before the disk is touched (core refuses absolute paths, `..` and `.git` on the text; this
//! refuses symlinks that lead outside), and what it is shown (the file tree, the files it
//! asks to read) is bounded.

use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Component, Path, PathBuf};

use switchyard_core::worker::model::{
    checked_path, is_unlisted_dir, ContextLimits, FileBody, FileView,
};

/// Entries visited while counting paths past the listing's limit: a huge ignored folder
/// (`node_modules`) must not stall the first turn.
const MAX_VISITED: usize = 100_000;

/// A worktree, by its canonical root.
#[derive(Debug, Clone)]
pub(super) struct Worktree {
    root: PathBuf,
}

impl Worktree {
    /// The worktree at `path`, which must be an existing directory.
    pub(super) fn open(path: &Path) -> Result<Self, String> {
        let root = fs::canonicalize(path)
            .map_err(|e| format!("the worktree {} cannot be opened: {e}", path.display()))?;
        if !root.is_dir() {
            return Err(format!(
                "the worktree {} is not a directory",
                path.display()
            ));
        }
        Ok(Self { root })
    }

    /// Where `path` (as the model wrote it) is on disk, or why it is refused. Symlinks on the
    /// way are followed and must stay inside the worktree (and out of `.git`); a symlink as
    /// the last part is checked the same way but not followed, so deleting it removes the
    /// link. Parts that do not exist yet are fine (a new file).
    pub(super) fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let relative = checked_path(path).map_err(|e| e.to_string())?;
        let parts: Vec<&str> = relative.split('/').collect();
        let mut current = self.root.clone();
        for (index, part) in parts.iter().enumerate() {
            let last = index + 1 == parts.len();
            let next = current.join(part);
            match fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target = fs::canonicalize(&next).map_err(|_| {
                        format!("{relative} goes through a symlink whose target does not exist")
                    })?;
                    self.inside(&target)
                        .map_err(|why| format!("{relative} {why}"))?;
                    current = if last { next } else { target };
                }
                Ok(_) => current = next,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    // Nothing below exists either: no symlink left to check.
                    current = next;
                    for rest in &parts[index + 1..] {
                        current.push(rest);
                    }
                    break;
                }
                Err(e) => return Err(format!("{relative}: {e}")),
            }
        }
        Ok(current)
    }

    /// Whether a canonical path is inside the worktree and outside its `.git`.
    fn inside(&self, target: &Path) -> Result<(), &'static str> {
        let Ok(rest) = target.strip_prefix(&self.root) else {
            return Err("goes through a symlink that leads outside the repository");
        };
        let into_git = rest
            .components()
            .any(|c| matches!(c, Component::Normal(name) if name.eq_ignore_ascii_case(".git")));
        if into_git {
            return Err("goes through a symlink into .git");
        }
        Ok(())
    }

    /// Paths of the worktree (relative, `/`-separated, sorted per folder), without `.git`,
    /// symlinks listed but not followed, build-output folders as one line each: at most `limits.tree_entries`, and how many more
    /// there are (counted up to a bound).
    pub(super) fn tree(&self, limits: &ContextLimits) -> (Vec<String>, usize) {
        let mut listed = Vec::new();
        let mut more = 0usize;
        let mut visited = 0usize;
        let mut stack = vec![(self.root.clone(), String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(std::fs::DirEntry::file_name);
            let mut folders = Vec::new();
            for entry in entries {
                visited += 1;
                if visited > MAX_VISITED {
                    return (listed, more);
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.eq_ignore_ascii_case(".git") {
                    continue;
                }
                let path = format!("{prefix}{name}");
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !is_unlisted_dir(&name) {
                    folders.push((entry.path(), format!("{path}/")));
                } else if listed.len() < limits.tree_entries {
                    listed.push(if is_dir {
                        format!("{path}/ (contents not listed)")
                    } else {
                        path
                    });
                } else {
                    more += 1;
                }
            }
            // Reversed so the stack pops folders in name order.
            stack.extend(folders.into_iter().rev());
        }
        (listed, more)
    }

    /// A file the model asked for, at most `max_bytes` of it.
    pub(super) fn read(&self, path: &str, max_bytes: usize) -> FileView {
        let body = match self.resolve(path) {
            Ok(on_disk) => read_text(&on_disk, max_bytes),
            Err(why) => FileBody::Unavailable(why),
        };
        FileView {
            path: path.to_owned(),
            body,
        }
    }
}

/// The first `max_bytes` of a text file, cut on a character boundary.
fn read_text(path: &Path, max_bytes: usize) -> FileBody {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return FileBody::Unavailable("no such file".into())
        }
        Err(e) => return FileBody::Unavailable(format!("cannot be read: {e}")),
    };
    if meta.is_dir() {
        return FileBody::Unavailable(
            "a directory; the files in it are in the tree listing".into(),
        );
    }
    let size = meta.len();
    let mut bytes = Vec::new();
    let limit = u64::try_from(max_bytes).unwrap_or(u64::MAX);
    let read = fs::File::open(path).and_then(|file| file.take(limit).read_to_end(&mut bytes));
    if let Err(e) = read {
        return FileBody::Unavailable(format!("cannot be read: {e}"));
    }
    if bytes.contains(&0) {
        return FileBody::Unavailable(format!("a binary file ({size} bytes), not shown"));
    }
    let cut = u64::try_from(bytes.len()).unwrap_or(u64::MAX) < size;
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text.to_owned(),
        // Cut in the middle of a character: drop the partial one.
        Err(e) if e.error_len().is_none() && cut => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        Err(_) => {
            return FileBody::Unavailable(format!("not UTF-8 text ({size} bytes), not shown"))
        }
    };
    FileBody::Text {
        content: text,
        cut_from: cut.then_some(size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worktree() -> (tempfile::TempDir, Worktree) {
        let dir = tempfile::tempdir().expect("tempdir");
        let worktree = Worktree::open(dir.path()).expect("open");
        (dir, worktree)
    }

    #[test]
    fn paths_resolve_inside_and_new_files_are_allowed() {
        let (dir, wt) = worktree();
        fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        assert_eq!(wt.resolve("src/new.rs"), Ok(root.join("src/new.rs")));
        assert_eq!(wt.resolve("a/b/c.txt"), Ok(root.join("a/b/c.txt")));
        assert!(wt.resolve("../x").is_err());
        assert!(wt.resolve("/etc/passwd").is_err());
        assert!(wt.resolve(".git/config").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_worktree_are_refused_and_inside_ones_followed() {
        let (dir, wt) = worktree();
        let outside = tempfile::tempdir().expect("outside");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("symlink");
        fs::create_dir(dir.path().join("real")).expect("mkdir");
        std::os::unix::fs::symlink("real", dir.path().join("alias")).expect("symlink");
        std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).expect("symlink");
        let root = fs::canonicalize(dir.path()).expect("canonical");

        let refused = wt.resolve("out/x.txt").expect_err("refused");
        assert!(
            refused.contains("leads outside the repository"),
            "{refused}"
        );
        assert!(wt.resolve("out").is_err(), "the link itself points outside");
        assert_eq!(wt.resolve("alias/x.txt"), Ok(root.join("real/x.txt")));
        assert_eq!(
            wt.resolve("alias"),
            Ok(root.join("alias")),
            "last part not followed"
        );
        assert!(wt.resolve("dangling").is_err());
    }

    #[test]
    fn the_tree_skips_git_and_counts_what_it_leaves_out() {
        let (dir, wt) = worktree();
        for file in [
            "b.txt",
            "a.txt",
            "src/lib.rs",
            ".git/HEAD",
            "node_modules/left-pad/index.js",
        ] {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, "x").expect("write");
        }
        let (paths, more) = wt.tree(&ContextLimits::default());
        assert_eq!(
            paths,
            [
                "a.txt",
                "b.txt",
                "node_modules/ (contents not listed)",
                "src/lib.rs"
            ]
        );
        assert_eq!(more, 0);
        let limits = ContextLimits {
            tree_entries: 1,
            ..ContextLimits::default()
        };
        let (paths, more) = wt.tree(&limits);
        assert_eq!(paths, ["a.txt"]);
        assert_eq!(more, 3);
    }

    #[test]
    fn reads_are_cut_binary_is_withheld() {
        let (dir, wt) = worktree();
        fs::write(dir.path().join("long.txt"), "héllo world").expect("write");
        fs::write(dir.path().join("bin"), [1u8, 0, 2]).expect("write");
        assert_eq!(
            wt.read("long.txt", 2).body,
            FileBody::Text {
                content: "h".into(),
                cut_from: Some(12)
            }
        );
        assert_eq!(
            wt.read("long.txt", 100).body,
            FileBody::Text {
                content: "héllo world".into(),
                cut_from: None
            }
        );
        assert!(
            matches!(wt.read("bin", 100).body, FileBody::Unavailable(why) if why.contains("binary"))
        );
        assert!(
            matches!(wt.read("missing", 100).body, FileBody::Unavailable(why) if why == "no such file")
        );
        fs::create_dir(dir.path().join("d")).expect("mkdir");
        assert!(
            matches!(wt.read("d", 100).body, FileBody::Unavailable(why) if why.contains("directory"))
        );
    }
}
