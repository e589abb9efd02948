//! Reading git's unified patch: splitting it into per-file sections at `diff --git` lines and
//! walking each section's hunks.
//!
//! Splitting at line starts is safe: every content line of a hunk starts with ` `, `+`, `-` or
//! `\`, and the base85 lines of a binary patch contain no spaces, so only a section header can
//! start with `diff --git `.

use std::ops::Range;

const SECTION_START: &[u8] = b"diff --git ";

/// One file's part of the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    /// Bytes of the whole section (header line included) within the patch.
    pub range: Range<usize>,
    /// Bytes of the `diff --git` line, newline excluded.
    pub header: Range<usize>,
}

/// Why the patch could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("git's patch is malformed near byte {offset}: {reason}")]
pub struct PatchError {
    /// Where reading stopped.
    pub offset: usize,
    /// What was wrong.
    pub reason: &'static str,
}

/// Splits a patch into sections, one per `diff --git` header.
pub(crate) fn split_sections(patch: &[u8]) -> Result<Vec<Section>, PatchError> {
    let mut sections: Vec<Section> = Vec::new();
    let mut offset = 0;
    for line in lines(patch) {
        if line.starts_with(SECTION_START) {
            if let Some(last) = sections.last_mut() {
                last.range.end = offset;
            }
            let end = offset + line.len() - usize::from(line.ends_with(b"\n"));
            sections.push(Section {
                range: offset..patch.len(),
                header: offset..end,
            });
        } else if sections.is_empty() {
            return Err(PatchError {
                offset,
                reason: "the patch does not start with a diff --git header",
            });
        }
        offset += line.len();
    }
    Ok(sections)
}

/// Lines including their trailing `\n` (the last one may lack it).
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|&b| b == b'\n')
}

/// Strips one trailing `\n`.
fn chomp(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// What a section's walk reports, in patch order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event<'a> {
    /// A hunk header: `@@ -old_start,old_lines +new_start,new_lines @@ section`.
    Hunk {
        old_start: u32,
        old_lines: u32,
        new_start: u32,
        new_lines: u32,
        section: &'a [u8],
    },
    /// An unchanged line (prefix and newline stripped).
    Context { old: u32, new: u32, text: &'a [u8] },
    /// An added line with its number on the new side.
    Added { new: u32, text: &'a [u8] },
    /// A removed line with its number on the old side.
    Removed { old: u32, text: &'a [u8] },
    /// `\ No newline at end of file`: the previous line has no newline.
    NoNewline,
    /// The section holds a binary patch (`GIT binary patch` or `Binary files … differ`).
    Binary,
}

/// Walks one section's lines, calling `on` for each hunk, line and binary marker.
pub(crate) fn walk<'a>(section: &'a [u8], mut on: impl FnMut(Event<'a>)) -> Result<(), PatchError> {
    let mut old_left = 0u32;
    let mut new_left = 0u32;
    let mut old_no = 0u32;
    let mut new_no = 0u32;
    let mut offset = 0usize;
    for (index, raw_line) in lines(section).enumerate() {
        let line = chomp(raw_line);
        let here = offset;
        offset += raw_line.len();
        if index == 0 {
            continue;
        }
        if old_left > 0 || new_left > 0 {
            match line.first() {
                Some(b'+') => {
                    on(Event::Added {
                        new: new_no,
                        text: &line[1..],
                    });
                    new_no += 1;
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') => {
                    on(Event::Removed {
                        old: old_no,
                        text: &line[1..],
                    });
                    old_no += 1;
                    old_left = old_left.saturating_sub(1);
                }
                Some(b'\\') => on(Event::NoNewline),
                // An empty line is an empty context line written by `diff.suppressBlankEmpty`.
                Some(b' ') | None => {
                    on(Event::Context {
                        old: old_no,
                        new: new_no,
                        text: line.get(1..).unwrap_or_default(),
                    });
                    old_no += 1;
                    new_no += 1;
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                Some(_) => {
                    return Err(PatchError {
                        offset: here,
                        reason: "a hunk ended before its line counts were reached",
                    })
                }
            }
            continue;
        }
        if line.starts_with(b"\\") {
            on(Event::NoNewline);
        } else if line.starts_with(b"@@ -") {
            let (old_start, old_lines, new_start, new_lines, text) = parse_hunk_header(line)
                .ok_or(PatchError {
                    offset: here,
                    reason: "unreadable hunk header",
                })?;
            on(Event::Hunk {
                old_start,
                old_lines,
                new_start,
                new_lines,
                section: text,
            });
            old_left = old_lines;
            new_left = new_lines;
            old_no = old_start.max(1);
            new_no = new_start.max(1);
        } else if line == b"GIT binary patch" || line.starts_with(b"Binary files ") {
            on(Event::Binary);
        }
    }
    if old_left > 0 || new_left > 0 {
        return Err(PatchError {
            offset,
            reason: "the patch ends inside a hunk",
        });
    }
    Ok(())
}

/// Parses `@@ -a[,b] +c[,d] @@[ section]`.
fn parse_hunk_header(line: &[u8]) -> Option<(u32, u32, u32, u32, &[u8])> {
    let rest = line.strip_prefix(b"@@ -")?;
    let close = find(rest, b" @@")?;
    let ranges = std::str::from_utf8(&rest[..close]).ok()?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_lines) = parse_range(old)?;
    let (new_start, new_lines) = parse_range(new)?;
    let after = &rest[close + 3..];
    let text = after.strip_prefix(b" ").unwrap_or(after);
    Some((old_start, old_lines, new_start, new_lines, text))
}

fn parse_range(range: &str) -> Option<(u32, u32)> {
    match range.split_once(',') {
        Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/f b/f\n\
        index 1..2 100644\n\
        --- a/f\n\
        +++ b/f\n\
        @@ -1,2 +1,2 @@ fn main()\n \
        keep\n\
        -old\n\
        +new\n\
        \\ No newline at end of file\n\
        diff --git a/b.bin b/b.bin\n\
        index 1..2 100644\n\
        GIT binary patch\n\
        literal 8\n\
        PcmYew%wtF_GO7ds3_=39\n\
        \n\
        literal 7\n\
        OcmYew%wtF_sssQD(E^45\n\
        \n";

    #[test]
    fn splits_at_headers_and_walks_hunks_with_line_numbers() {
        let sections = split_sections(PATCH.as_bytes()).expect("splits");
        assert_eq!(sections.len(), 2);
        let first = &PATCH.as_bytes()[sections[0].range.clone()];
        let mut events = Vec::new();
        walk(first, |e| events.push(format!("{e:?}"))).expect("walks");
        assert!(events[0].starts_with("Hunk { old_start: 1, old_lines: 2"));
        assert!(events.iter().any(|e| e.contains("Added { new: 2")));
        assert!(events.iter().any(|e| e.contains("Removed { old: 2")));
        assert_eq!(events.last().map(String::as_str), Some("NoNewline"));
        let second = &PATCH.as_bytes()[sections[1].range.clone()];
        let mut binary = false;
        walk(second, |e| binary |= e == Event::Binary).expect("walks");
        assert!(binary);
    }

    #[test]
    fn a_truncated_hunk_is_an_error() {
        let patch = b"diff --git a/f b/f\n@@ -1,3 +1,3 @@\n x\n";
        let sections = split_sections(patch).expect("splits");
        assert!(walk(&patch[sections[0].range.clone()], |_| {}).is_err());
    }

    #[test]
    fn text_before_the_first_header_is_an_error() {
        assert!(split_sections(b"hello\ndiff --git a/f b/f\n").is_err());
    }
}
