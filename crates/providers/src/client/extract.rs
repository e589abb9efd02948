//! Finding a JSON value inside prose: fenced code blocks first, then balanced `{…}` / `[…]`
//! spans, in order of appearance.

/// Most bracket positions tried as the start of a JSON value (keeps a long answer cheap).
const MAX_STARTS: usize = 64;

/// Candidate JSON texts in `text`, best first: the contents of fenced blocks (```` ```json ````
/// or plain ```` ``` ````), then every balanced object or array span. Duplicates are dropped.
pub(crate) fn candidates(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for block in fenced_blocks(text) {
        push_unique(&mut found, block);
    }
    let starts = text
        .char_indices()
        .filter(|(_, c)| *c == '{' || *c == '[')
        .take(MAX_STARTS);
    for (start, _) in starts {
        if let Some(end) = balanced_end(&text[start..]) {
            push_unique(&mut found, &text[start..start + end]);
        }
    }
    found
}

fn push_unique<'t>(found: &mut Vec<&'t str>, candidate: &'t str) {
    let candidate = candidate.trim();
    if !candidate.is_empty() && !found.contains(&candidate) {
        found.push(candidate);
    }
}

fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The rest of the opening line is a language tag (`json`, `JSON`, nothing).
        let Some(newline) = after.find('\n') else {
            break;
        };
        let body = &after[newline + 1..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    blocks
}

/// Byte length of the balanced value starting at `text[0]` (`{` or `[`), honouring strings
/// and escapes; `None` when it never closes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_block_comes_first() {
        let text = "Sure! {\"draft\":1}\n```json\n{\"a\": \"}\"}\n```\nDone.";
        let found = candidates(text);
        assert_eq!(found[0], "{\"a\": \"}\"}");
        assert!(found.contains(&"{\"draft\":1}"));
    }

    #[test]
    fn balanced_spans_respect_strings_and_nesting() {
        let text = r#"The plan is {"steps": [{"t": "a ] b"}, {"t": "c \" }"}]} as requested."#;
        assert_eq!(
            candidates(text)[0],
            r#"{"steps": [{"t": "a ] b"}, {"t": "c \" }"}]}"#
        );
        assert!(candidates("no json here").is_empty());
        assert!(candidates("{ never closed").is_empty());
        assert_eq!(candidates("list: [1, 2] end"), vec!["[1, 2]"]);
    }
}
