//! Parsing `git diff --raw -z --full-index` output: one entry per changed path with both
//! modes, both blob ids, the status letter and the path(s), verbatim (NUL-separated, no quoting).

/// The all-zero object id git prints for the missing side of an addition or deletion.
pub fn is_null_oid(oid: &str) -> bool {
    !oid.is_empty() && oid.bytes().all(|b| b == b'0')
}

/// One changed path as git's raw format lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// Old mode in octal (`000000` for an addition).
    pub old_mode: String,
    /// New mode in octal (`000000` for a deletion).
    pub new_mode: String,
    /// Old blob id (all zeros for an addition).
    pub old_oid: String,
    /// New blob id (all zeros for a deletion).
    pub new_oid: String,
    /// The status letter: `A`, `C`, `D`, `M`, `R`, `T`, `U` or `X`.
    pub status: char,
    /// The similarity score of a rename or copy (0–100).
    pub score: Option<u8>,
    /// The source path of a rename or copy.
    pub old_path: Option<Vec<u8>>,
    /// The path (the destination of a rename or copy).
    pub path: Vec<u8>,
}

/// Why the raw listing could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("git's raw diff listing is malformed near byte {offset}: {reason}")]
pub struct RawParseError {
    /// Where parsing stopped.
    pub offset: usize,
    /// What was wrong.
    pub reason: &'static str,
}

/// Parses `git diff --raw -z` output (requires `--full-index` or `--abbrev=40` for full ids).
///
/// # Errors
/// [`RawParseError`] when a record is truncated or its header is not `:mode mode oid oid X`.
pub fn parse_raw(bytes: &[u8]) -> Result<Vec<RawEntry>, RawParseError> {
    let mut entries = Vec::new();
    let mut fields = NulFields { bytes, offset: 0 };
    while let Some((offset, header)) = fields.next_field() {
        if header.is_empty() {
            continue;
        }
        let header = std::str::from_utf8(header).map_err(|_| RawParseError {
            offset,
            reason: "header is not ASCII",
        })?;
        let header = header.strip_prefix(':').ok_or(RawParseError {
            offset,
            reason: "record does not start with ':'",
        })?;
        let parts: Vec<&str> = header.split(' ').collect();
        let [old_mode, new_mode, old_oid, new_oid, status] = parts[..] else {
            return Err(RawParseError {
                offset,
                reason: "header does not have five fields",
            });
        };
        let mut letters = status.chars();
        let letter = letters.next().ok_or(RawParseError {
            offset,
            reason: "empty status",
        })?;
        let digits: String = letters.collect();
        let score = if digits.is_empty() {
            None
        } else {
            Some(digits.parse::<u8>().map_err(|_| RawParseError {
                offset,
                reason: "status score is not a number",
            })?)
        };
        let missing = RawParseError {
            offset,
            reason: "record ends before its path",
        };
        let first = fields.next_field().ok_or(missing.clone())?.1.to_vec();
        let (old_path, path) = if matches!(letter, 'R' | 'C') {
            let second = fields.next_field().ok_or(missing)?.1.to_vec();
            (Some(first), second)
        } else {
            (None, first)
        };
        entries.push(RawEntry {
            old_mode: old_mode.to_owned(),
            new_mode: new_mode.to_owned(),
            old_oid: old_oid.to_owned(),
            new_oid: new_oid.to_owned(),
            status: letter,
            score,
            old_path,
            path,
        });
    }
    Ok(entries)
}

struct NulFields<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> NulFields<'a> {
    fn next_field(&mut self) -> Option<(usize, &'a [u8])> {
        if self.offset >= self.bytes.len() {
            return None;
        }
        let start = self.offset;
        let rest = &self.bytes[start..];
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        self.offset = start + end + 1;
        Some((start, &rest[..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modify_rename_and_typechange_records() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let raw = format!(
            ":100644 100644 {a} {b} M\0src/x y.rs\0:100644 100755 {a} {b} R086\0old\0new\0\
             :000000 100644 {z} {b} A\0added\0:100644 120000 {a} {b} T\0link\0"
        );
        let entries = parse_raw(raw.as_bytes()).expect("parses");
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[0].path, b"src/x y.rs");
        assert_eq!(entries[1].status, 'R');
        assert_eq!(entries[1].score, Some(86));
        assert_eq!(entries[1].old_path.as_deref(), Some(&b"old"[..]));
        assert_eq!(entries[1].path, b"new");
        assert!(is_null_oid(&entries[2].old_oid));
        assert_eq!(entries[3].status, 'T');
    }

    #[test]
    fn truncated_rename_is_an_error() {
        let a = "a".repeat(40);
        let raw = format!(":100644 100644 {a} {a} R100\0only-one\0");
        assert!(parse_raw(raw.as_bytes()).is_err());
    }
}
