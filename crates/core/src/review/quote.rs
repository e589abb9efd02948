//! Git's C-style path quoting (`quote_c_style` with `core.quotePath=on`), used to predict the
//! `diff --git` header of each file so the patch can be split and matched to the raw listing
//! without guessing where a path with spaces ends.

/// Quotes `prefix + path` the way git prints one side of a `diff --git` line.
pub(crate) fn quote_path(prefix: &[u8], path: &[u8]) -> Vec<u8> {
    let needs = |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f;
    if !prefix.iter().chain(path).any(|&b| needs(b)) {
        let mut out = prefix.to_vec();
        out.extend_from_slice(path);
        return out;
    }
    let mut out = vec![b'"'];
    for &b in prefix.iter().chain(path) {
        match b {
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b if needs(b) => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// The `diff --git a/OLD b/NEW` line (without its newline) git prints for a file pair.
pub(crate) fn diff_header(old: &[u8], new: &[u8]) -> Vec<u8> {
    let mut out = b"diff --git ".to_vec();
    out.extend(quote_path(b"a/", old));
    out.push(b' ');
    out.extend(quote_path(b"b/", new));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_are_not_quoted_even_with_spaces() {
        assert_eq!(quote_path(b"a/", b"my file.txt"), b"a/my file.txt");
    }

    #[test]
    fn tabs_quotes_and_non_ascii_are_escaped_like_git() {
        assert_eq!(quote_path(b"a/", b"x\ty\"z"), br#""a/x\ty\"z""#.to_vec());
        assert_eq!(
            quote_path(b"b/", "é".as_bytes()),
            br#""b/\303\251""#.to_vec()
        );
    }
}
