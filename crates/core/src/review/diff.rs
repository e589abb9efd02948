//! The captured diff: what a worker changed relative to the attempt's pinned base, per file,
//! with the SHA-256 of the canonical patch.
//!
//! **Canonical patch.** The bytes git prints for
//! `git diff --cached --binary --full-index -M50% -l1000 <base>` over an index holding the whole
//! worktree (`git add -A` into a private index), with every output-shaping option pinned:
//! no color, no external diff, no textconv, `a/` and `b/` prefixes, quoted paths
//! (`core.quotePath=on`), myers with the indent heuristic, three lines of context, no
//! inter-hunk context, no order file, no relative paths, short submodule lines, zlib level 1 for
//! binary literals, git attributes read from the base commit (so the change cannot restyle
//! itself), and neither the user's global nor the system git config (the runner's
//! `git::capture` holds the exact command). The patch is complete: applied to the base it
//! yields exactly the captured tree, binary files and modes included, and every file's full blob
//! ids appear in it, so two captures hash alike exactly when they describe the same change. The
//! hash is a change detector on one machine (it depends on the installed git and zlib), not a
//! portable identity.
//!
//! Copy detection is off on purpose: a copied file is listed as added, so every line of it is
//! an added line the gates scan.

use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use specta::Type;

use super::patch::{self, Event, PatchError};
use super::quote::diff_header;
use super::raw::{is_null_oid, RawEntry};

/// Files larger than this (either side) are listed with their size and no content.
pub const CONTENT_LIMIT_BYTES: u64 = 2 * 1024 * 1024;

/// Git's mode for a symbolic link.
pub const MODE_SYMLINK: &str = "120000";
/// Git's mode for a submodule (gitlink).
pub const MODE_GITLINK: &str = "160000";

/// A worktree's change against the pinned base commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CapturedDiff {
    /// The base commit the change is measured against (full object id).
    pub base: String,
    /// Lowercase hex SHA-256 of the canonical patch bytes.
    pub sha256: String,
    /// Length of the canonical patch in bytes.
    #[specta(type = f64)]
    pub patch_bytes: u64,
    /// Changed files in git's order (by path).
    pub files: Vec<FileChange>,
    /// Added lines over all text files.
    pub additions: u32,
    /// Removed lines over all text files.
    pub deletions: u32,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum FileStatus {
    /// New file.
    Added,
    /// Content or mode changed.
    Modified,
    /// File removed.
    Deleted,
    /// Moved (with or without edits); `old_path` names the source.
    Renamed,
    /// Copied; only produced when copy detection is on, which capture never enables.
    Copied,
    /// Changed kind: a file became a symlink or a submodule, or back.
    TypeChanged,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// Path relative to the repository root (the new path of a rename). Bytes that are not
    /// UTF-8 are replaced with U+FFFD.
    pub path: String,
    /// The source path of a rename or copy.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: FileStatus,
    /// Old mode in octal (`100644`, `100755`, `120000` symlink, `160000` submodule); `None`
    /// for an added file.
    pub old_mode: Option<String>,
    /// New mode in octal; `None` for a deleted file.
    pub new_mode: Option<String>,
    /// Old blob id; `None` for an added file.
    pub old_oid: Option<String>,
    /// New blob id; `None` for a deleted file.
    pub new_oid: Option<String>,
    /// Rename similarity (0–100).
    pub similarity: Option<u8>,
    /// Git treats the content as binary (no line diff).
    pub is_binary: bool,
    /// The file is a symlink (the new side, or the old side of a deletion).
    pub is_symlink: bool,
    /// Where the new side's symlink points, verbatim.
    pub symlink_target: Option<String>,
    /// Added lines.
    pub additions: u32,
    /// Removed lines.
    pub deletions: u32,
    /// Size in bytes of the new side (the old side for a deletion).
    #[specta(type = f64)]
    pub size: u64,
    /// Size in bytes of the old side; `None` for an added file.
    #[specta(type = Option<f64>)]
    pub old_size: Option<u64>,
    /// Either side is over [`CONTENT_LIMIT_BYTES`]: `hunks` is empty on purpose.
    pub content_omitted: bool,
    /// The line diff (three lines of context), empty for binary and omitted files, and for
    /// a file whose hunks were left out of a budgeted payload (see `hunks_deferred`).
    pub hunks: Vec<Hunk>,
    /// `hunks` was emptied to keep a large review payload small; fetch this one file's
    /// change to see them. Never set in the stored diff, so absent from most JSON.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[specta(optional)]
    pub hunks_deferred: bool,
}

/// How many diff lines a budgeted review payload carries (see [`CapturedDiff::defer_hunks`]).
pub const REVIEW_LINE_BUDGET: usize = 2_000;

impl CapturedDiff {
    /// Keeps the hunks of the first files, in order, while their lines fit in `budget` (the
    /// first file with hunks is always kept, so something shows at once), and empties the
    /// rest, marking them `hunks_deferred`. File list, stats and hashes are untouched.
    pub fn defer_hunks(&mut self, budget: usize) {
        let mut used = 0usize;
        let mut kept_one = false;
        for file in &mut self.files {
            if file.hunks.is_empty() {
                continue;
            }
            let lines = file.line_count();
            if kept_one && used + lines > budget {
                used = budget;
                file.hunks = Vec::new();
                file.hunks_deferred = true;
            } else {
                used += lines;
                kept_one = true;
            }
        }
    }
}

impl FileChange {
    /// Diff lines (hunk headers not counted) this change carries.
    pub fn line_count(&self) -> usize {
        self.hunks.iter().map(|h| h.lines.len()).sum()
    }

    /// The new side is a symlink (so the tree after the change holds a link at `path`).
    pub fn new_is_symlink(&self) -> bool {
        self.new_mode.as_deref() == Some(MODE_SYMLINK)
    }

    /// The paths this change touches: `path`, and `old_path` for a rename or copy.
    pub fn touched_paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.old_path.as_deref())
    }
}

/// One hunk of a file's line diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// First old line (1-based; 0 when the old side is empty).
    pub old_start: u32,
    /// Old lines covered.
    pub old_lines: u32,
    /// First new line (1-based; 0 when the new side is empty).
    pub new_start: u32,
    /// New lines covered.
    pub new_lines: u32,
    /// The function context git prints after the range, possibly empty.
    pub section: String,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum LineKind {
    /// Unchanged.
    Context,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// Context, added or removed.
    pub kind: LineKind,
    /// The text without its prefix and newline (U+FFFD for bytes that are not UTF-8).
    pub text: String,
    /// Its number on the old side.
    pub old_line: Option<u32>,
    /// Its number on the new side.
    pub new_line: Option<u32>,
    /// The line has no trailing newline (`\ No newline at end of file`).
    pub no_newline: bool,
}

/// The canonical patch with each file's byte ranges, for the gates that read added lines
/// (including lines of files whose content the model omits).
#[derive(Clone, PartialEq, Eq)]
pub struct CanonicalPatch {
    bytes: Vec<u8>,
    /// Per file of [`CapturedDiff::files`], its section(s) in `bytes` (a type change has two).
    sections: Vec<Vec<Range<usize>>>,
}

impl std::fmt::Debug for CanonicalPatch {
    // The patch may hold secrets the gates are about to report; never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CanonicalPatch")
            .field("bytes", &self.bytes.len())
            .field("files", &self.sections.len())
            .finish()
    }
}

/// One added line of one file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AddedLine<'a> {
    /// Its number in the new file (1-based).
    pub line: u32,
    /// Its bytes, without the `+` and the newline.
    pub text: &'a [u8],
}

impl CanonicalPatch {
    /// The patch bytes, exactly as hashed.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Consumes the patch, returning its bytes (e.g. to store as an artifact).
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Every added line of file `index` (of [`CapturedDiff::files`]), in order. Binary files
    /// have none.
    pub fn added_lines(&self, index: usize) -> Vec<AddedLine<'_>> {
        let mut out = Vec::new();
        for range in self.sections.get(index).into_iter().flatten() {
            // Sections were walked once during assembly, so this cannot fail.
            let _ = patch::walk(&self.bytes[range.clone()], |event| {
                if let Event::Added { new, text } = event {
                    out.push(AddedLine { line: new, text });
                }
            });
        }
        out
    }
}

/// Why a capture could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    /// The patch could not be read.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// The patch and the raw listing disagree (a git bug or mixed options).
    #[error("the patch does not match git's file listing at {path}: {reason}")]
    Mismatch {
        /// The path where they diverged.
        path: String,
        /// What differed.
        reason: &'static str,
    },
    /// An unexpected status letter (e.g. an unmerged entry).
    #[error("git reported status {status} for {path}, which a capture cannot contain")]
    Status {
        /// The letter.
        status: char,
        /// The path.
        path: String,
    },
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl CapturedDiff {
    /// Builds the model from git's raw listing and canonical patch (same diff options, same
    /// order) and the blob sizes (by object id; missing ids count as size 0).
    ///
    /// # Errors
    /// [`DiffError`] when the patch is malformed or does not line up with the listing.
    pub fn assemble(
        base: &str,
        entries: &[RawEntry],
        patch_bytes: Vec<u8>,
        sizes: &HashMap<String, u64>,
    ) -> Result<(CapturedDiff, CanonicalPatch), DiffError> {
        let sections = patch::split_sections(&patch_bytes)?;
        let mut next = sections.into_iter();
        let mut files = Vec::with_capacity(entries.len());
        let mut ranges = Vec::with_capacity(entries.len());
        for entry in entries {
            let path = lossy(&entry.path);
            let status = match entry.status {
                'A' => FileStatus::Added,
                'M' => FileStatus::Modified,
                'D' => FileStatus::Deleted,
                'R' => FileStatus::Renamed,
                'C' => FileStatus::Copied,
                'T' => FileStatus::TypeChanged,
                other => {
                    return Err(DiffError::Status {
                        status: other,
                        path,
                    })
                }
            };
            let old_path_bytes = entry.old_path.as_deref().unwrap_or(&entry.path);
            let expected = diff_header(old_path_bytes, &entry.path);
            // Git prints a change between a file and a symlink (or submodule) as a deletion
            // followed by an addition.
            let count = if status == FileStatus::TypeChanged {
                2
            } else {
                1
            };
            let mut own = Vec::with_capacity(count);
            for _ in 0..count {
                let section = next.next().ok_or(DiffError::Mismatch {
                    path: path.clone(),
                    reason: "the patch has fewer files than the listing",
                })?;
                if patch_bytes[section.header.clone()] != expected[..] {
                    return Err(DiffError::Mismatch {
                        path: path.clone(),
                        reason: "its diff --git header differs",
                    });
                }
                own.push(section.range);
            }
            let old_size = (!is_null_oid(&entry.old_oid))
                .then(|| sizes.get(&entry.old_oid).copied().unwrap_or(0));
            let new_size = (!is_null_oid(&entry.new_oid))
                .then(|| sizes.get(&entry.new_oid).copied().unwrap_or(0));
            let omitted = old_size.max(new_size).unwrap_or(0) > CONTENT_LIMIT_BYTES;
            let mut file = FileChange {
                path,
                old_path: entry.old_path.as_deref().map(lossy),
                status,
                old_mode: mode(&entry.old_mode),
                new_mode: mode(&entry.new_mode),
                old_oid: oid(&entry.old_oid),
                new_oid: oid(&entry.new_oid),
                similarity: entry.score.filter(|_| entry.old_path.is_some()),
                is_binary: false,
                is_symlink: false,
                symlink_target: None,
                additions: 0,
                deletions: 0,
                size: new_size.or(old_size).unwrap_or(0),
                old_size,
                content_omitted: omitted,
                hunks: Vec::new(),
                hunks_deferred: false,
            };
            file.is_symlink = file.new_is_symlink()
                || (file.new_mode.is_none() && file.old_mode.as_deref() == Some(MODE_SYMLINK));
            for range in &own {
                read_section(&patch_bytes[range.clone()], &mut file)?;
            }
            if file.new_is_symlink() {
                file.symlink_target = Some(symlink_target(&patch_bytes, &own));
            }
            files.push(file);
            ranges.push(own);
        }
        if next.next().is_some() {
            return Err(DiffError::Mismatch {
                path: String::new(),
                reason: "the patch has more files than the listing",
            });
        }
        let diff = CapturedDiff {
            base: base.to_owned(),
            sha256: sha256_hex(&patch_bytes),
            patch_bytes: patch_bytes.len() as u64,
            additions: files.iter().map(|f| f.additions).sum(),
            deletions: files.iter().map(|f| f.deletions).sum(),
            files,
        };
        Ok((
            diff,
            CanonicalPatch {
                bytes: patch_bytes,
                sections: ranges,
            },
        ))
    }
}

fn read_section(section: &[u8], file: &mut FileChange) -> Result<(), PatchError> {
    let keep = !file.content_omitted;
    let mut hunks = std::mem::take(&mut file.hunks);
    let mut binary = false;
    let (mut additions, mut deletions) = (0u32, 0u32);
    patch::walk(section, |event| match event {
        Event::Binary => binary = true,
        Event::Hunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
            section,
        } => {
            if keep {
                hunks.push(Hunk {
                    old_start,
                    old_lines,
                    new_start,
                    new_lines,
                    section: lossy(section),
                    lines: Vec::new(),
                });
            }
        }
        Event::NoNewline => {
            if let Some(line) = hunks.last_mut().and_then(|h| h.lines.last_mut()) {
                line.no_newline = true;
            }
        }
        Event::Context { old, new, text } => push_line(
            keep,
            &mut hunks,
            LineKind::Context,
            text,
            Some(old),
            Some(new),
        ),
        Event::Added { new, text } => {
            additions += 1;
            push_line(keep, &mut hunks, LineKind::Added, text, None, Some(new));
        }
        Event::Removed { old, text } => {
            deletions += 1;
            push_line(keep, &mut hunks, LineKind::Removed, text, Some(old), None);
        }
    })?;
    file.hunks = hunks;
    file.is_binary |= binary;
    file.additions += additions;
    file.deletions += deletions;
    Ok(())
}

fn push_line(
    keep: bool,
    hunks: &mut [Hunk],
    kind: LineKind,
    text: &[u8],
    old_line: Option<u32>,
    new_line: Option<u32>,
) {
    if !keep {
        return;
    }
    if let Some(hunk) = hunks.last_mut() {
        hunk.lines.push(DiffLine {
            kind,
            text: lossy(text),
            old_line,
            new_line,
            no_newline: false,
        });
    }
}

/// A symlink's blob is its target; the new side's added lines spell it.
fn symlink_target(patch_bytes: &[u8], ranges: &[Range<usize>]) -> String {
    let mut parts: Vec<&[u8]> = Vec::new();
    // For a type change the addition is the second section.
    if let Some(range) = ranges.last() {
        let _ = patch::walk(&patch_bytes[range.clone()], |event| {
            if let Event::Added { text, .. } = event {
                parts.push(text);
            }
        });
    }
    lossy(&parts.join(&b'\n'))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn mode(mode: &str) -> Option<String> {
    (mode.bytes().any(|b| b != b'0')).then(|| mode.to_owned())
}

fn oid(oid: &str) -> Option<String> {
    (!is_null_oid(oid)).then(|| oid.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::raw::parse_raw;

    fn oid_of(c: char) -> String {
        c.to_string().repeat(40)
    }

    fn fixture() -> (Vec<RawEntry>, Vec<u8>) {
        let (a, b, c, z) = (oid_of('a'), oid_of('b'), oid_of('c'), oid_of('0'));
        let raw = format!(":100644 120000 {a} {b} T\0f\0:100644 100755 {a} {c} R050\0g\0h\0");
        let patch = format!(
            "diff --git a/f b/f\ndeleted file mode 100644\nindex {a}..{z}\n--- a/f\n+++ /dev/null\n\
             @@ -1 +0,0 @@\n-hi\n\
             diff --git a/f b/f\nnew file mode 120000\nindex {z}..{b}\n--- /dev/null\n+++ b/f\n\
             @@ -0,0 +1 @@\n+g\n\\ No newline at end of file\n\
             diff --git a/g b/h\nold mode 100644\nnew mode 100755\nsimilarity index 50%\n\
             rename from g\nrename to h\nindex {a}..{c}\n--- a/g\n+++ b/h\n@@ -1 +1,2 @@\n x\n+y\n"
        );
        (parse_raw(raw.as_bytes()).expect("raw"), patch.into_bytes())
    }

    #[test]
    fn assembles_typechange_and_rename_with_counts_and_target() {
        let (entries, patch) = fixture();
        let sizes = HashMap::from([(oid_of('a'), 3), (oid_of('b'), 1), (oid_of('c'), 4)]);
        let (diff, canonical) =
            CapturedDiff::assemble("base", &entries, patch.clone(), &sizes).expect("assembles");
        assert_eq!(diff.sha256, sha256_hex(&patch));
        let f = &diff.files[0];
        assert_eq!(f.status, FileStatus::TypeChanged);
        assert!(f.is_symlink);
        assert_eq!(f.symlink_target.as_deref(), Some("g"));
        assert_eq!((f.additions, f.deletions), (1, 1));
        let h = &diff.files[1];
        assert_eq!(h.status, FileStatus::Renamed);
        assert_eq!(h.old_path.as_deref(), Some("g"));
        assert_eq!(h.new_mode.as_deref(), Some("100755"));
        assert_eq!(h.size, 4);
        assert_eq!(h.hunks[0].lines[1].new_line, Some(2));
        assert_eq!((diff.additions, diff.deletions), (2, 1));
        let added = canonical.added_lines(1);
        assert_eq!(added.len(), 1);
        assert_eq!((added[0].line, added[0].text), (2, &b"y"[..]));
    }

    #[test]
    fn large_files_keep_counts_but_omit_hunks() {
        let (entries, patch) = fixture();
        let sizes = HashMap::from([(oid_of('c'), CONTENT_LIMIT_BYTES + 1)]);
        let (diff, canonical) =
            CapturedDiff::assemble("base", &entries, patch, &sizes).expect("assembles");
        let h = &diff.files[1];
        assert!(h.content_omitted);
        assert!(h.hunks.is_empty());
        assert_eq!(h.additions, 1);
        assert_eq!(
            canonical.added_lines(1).len(),
            1,
            "gates still see omitted lines"
        );
    }

    #[test]
    fn a_patch_that_does_not_match_the_listing_is_rejected() {
        let (mut entries, patch) = fixture();
        entries[1].path = b"other".to_vec();
        assert!(matches!(
            CapturedDiff::assemble("base", &entries, patch, &HashMap::new()),
            Err(DiffError::Mismatch { .. })
        ));
    }
}
