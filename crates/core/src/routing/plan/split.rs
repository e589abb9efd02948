//! Splitting a task into step texts: paragraphs, numbered lists, bullets, sequencing words
//! (then, next, finally, after that; 然后, 接着, 最后) and semicolons.

use serde::{Deserialize, Serialize};
use specta::Type;

/// The rule that delimited a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SplitRule {
    /// Nothing to split on: the whole task is one step.
    Whole,
    /// A paragraph of its own (blank lines around it).
    Paragraph,
    /// An item of a numbered list (`1.`, `2)`, `(3)`, `Step 4:`, `第五步`, `六、`).
    Numbered,
    /// An item of a bulleted list (`-`, `*`, `•`, `+`).
    Bullet,
    /// A clause after a sequencing word (then, next, finally, after that; 然后, 接着, 最后).
    Sequencing,
    /// A clause after a semicolon.
    Semicolon,
}

/// One step's text as split from the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct StepText {
    /// The step's text, without its list marker or sequencing word.
    pub text: String,
    /// The list number the task gave it, when numbered.
    pub label: Option<u32>,
    /// Steps it says it depends on ("after step 2", "第2步之后"), by number.
    pub refs: Vec<u32>,
    /// How it was delimited.
    pub rule: SplitRule,
}

/// Splits `task` into steps. Lists are taken as written (an item is not split further);
/// free text is split on semicolons and sequencing words. A line ending in `:` right
/// before a list is the list's heading, not a step.
pub fn split_steps(task: &str) -> Vec<StepText> {
    let normalized = task.replace("\r\n", "\n").replace('\r', "\n");
    let paragraphs: Vec<Vec<&str>> = normalized
        .split("\n\n")
        .map(|p| {
            p.lines()
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|p| !p.is_empty())
        .collect();
    let many_paragraphs = paragraphs.len() > 1;
    let mut steps: Vec<StepText> = Vec::new();
    for (index, lines) in paragraphs.iter().enumerate() {
        let next_is_list = paragraphs
            .get(index + 1)
            .and_then(|p| p.first())
            .is_some_and(|l| list_marker(l).is_some());
        split_paragraph(lines, many_paragraphs, next_is_list, &mut steps);
    }
    if steps.len() == 1 {
        if let Some(only) = steps.first_mut() {
            only.rule = SplitRule::Whole;
        }
    }
    steps
}

fn split_paragraph(lines: &[&str], many: bool, next_is_list: bool, out: &mut Vec<StepText>) {
    let has_items = lines.iter().any(|l| list_marker(l).is_some());
    if !has_items {
        let text = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        if next_is_list && text.ends_with([':', '：']) {
            return;
        }
        let rule = if many {
            SplitRule::Paragraph
        } else {
            SplitRule::Whole
        };
        split_free_text(&text, rule, out);
        return;
    }
    let mut items: Vec<StepText> = Vec::new();
    let mut current: Option<StepText> = None;
    let mut preamble: Vec<&str> = Vec::new();
    for line in lines {
        match list_marker(line) {
            Some((rule, label, rest)) => {
                if let Some(done) = current.take() {
                    push_step(&mut items, done);
                }
                current = Some(StepText {
                    text: rest.trim().to_owned(),
                    label,
                    refs: Vec::new(),
                    rule,
                });
            }
            None => match current.as_mut() {
                Some(item) => {
                    item.text.push(' ');
                    item.text.push_str(line.trim());
                }
                None => preamble.push(line.trim()),
            },
        }
    }
    if let Some(done) = current.take() {
        push_step(&mut items, done);
    }
    let heading = preamble.join(" ");
    if !heading.is_empty() && !heading.ends_with([':', '：']) {
        // Text before a list that is not its heading is a step of its own, first.
        split_free_text(&heading, SplitRule::Paragraph, out);
    }
    out.extend(items);
}

fn push_step(out: &mut Vec<StepText>, mut step: StepText) {
    // List items are taken as written; free-text clauses lose their sequencing markers.
    step.text = match step.rule {
        SplitRule::Numbered | SplitRule::Bullet => strip(&step.text).to_owned(),
        _ => clean(&step.text).to_owned(),
    };
    if has_content(&step.text) {
        step.refs = find_refs(&step.text);
        out.push(step);
    }
}

/// Splits free text on semicolons, then on sequencing words.
fn split_free_text(text: &str, rule: SplitRule, out: &mut Vec<StepText>) {
    let mut first = true;
    for part in text.split([';', '；']) {
        let part_rule = if first { rule } else { SplitRule::Semicolon };
        first = false;
        let mut clause_first = true;
        for clause in split_sequencing(part) {
            let clause_rule = if clause_first {
                part_rule
            } else {
                SplitRule::Sequencing
            };
            clause_first = false;
            push_step(
                out,
                StepText {
                    text: clause.to_owned(),
                    label: None,
                    refs: Vec::new(),
                    rule: clause_rule,
                },
            );
        }
    }
}

/// The list marker of a line: its rule, its number if numbered, and the text after it.
fn list_marker(line: &str) -> Option<(SplitRule, Option<u32>, &str)> {
    let trimmed = line.trim_start();
    for bullet in ["- ", "* ", "• ", "+ ", "· ", "– ", "— ", "-\t", "*\t"] {
        if let Some(rest) = trimmed.strip_prefix(bullet) {
            return Some((SplitRule::Bullet, None, rest));
        }
    }
    if let Some(rest) = trimmed.strip_prefix(['(', '（']) {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if (1..=3).contains(&digits) {
            let after = &rest[digits..];
            if let Some(text) = after.strip_prefix([')', '）']) {
                return Some((SplitRule::Numbered, rest[..digits].parse().ok(), text));
            }
        }
    }
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if (1..=3).contains(&digits) {
        let number = trimmed[..digits].parse().ok();
        let after = &trimmed[digits..];
        for mark in ["、", "．", "）", ": ", "：", ".", ")"] {
            let Some(text) = after.strip_prefix(mark) else {
                continue;
            };
            // `3.14` and `1.5m` are numbers, not list items.
            if !text.starts_with(|c: char| c.is_ascii_digit()) {
                return Some((SplitRule::Numbered, number, text));
            }
        }
    }
    let lower_len = trimmed.len().min(5);
    if trimmed
        .get(..lower_len)
        .is_some_and(|p| p.eq_ignore_ascii_case("step "))
    {
        let rest = &trimmed[5..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let text = rest[digits..].trim_start_matches([':', '.', ')', '-', ' ', '：']);
            return Some((SplitRule::Numbered, rest[..digits].parse().ok(), text));
        }
    }
    if let Some(rest) = trimmed.strip_prefix('第') {
        let (number, len) = leading_number(rest);
        if let (Some(number), Some(text)) =
            (number, rest.get(len..).and_then(|r| r.strip_prefix('步')))
        {
            let text = text.trim_start_matches([':', '：', ',', '，', '、', ' ', '.']);
            return Some((SplitRule::Numbered, Some(number), text));
        }
    }
    let (number, len) = leading_chinese_number(trimmed);
    if let (Some(number), Some(text)) = (
        number,
        trimmed.get(len..).and_then(|r| r.strip_prefix('、')),
    ) {
        return Some((SplitRule::Numbered, Some(number), text));
    }
    None
}

/// ASCII digits or Chinese numerals at the start of `text`, with their byte length.
fn leading_number(text: &str) -> (Option<u32>, usize) {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        return (text[..digits].parse().ok(), digits);
    }
    leading_chinese_number(text)
}

/// 一 … 九十九 at the start of `text`.
fn leading_chinese_number(text: &str) -> (Option<u32>, usize) {
    let digit = |c: char| {
        "〇一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|p| p as u32)
    };
    let mut value: Option<u32> = None;
    let mut pending: Option<u32> = None;
    let mut len = 0;
    for c in text.chars() {
        if let Some(d) = digit(c) {
            pending = Some(d);
        } else if c == '十' {
            value = Some(value.unwrap_or(0) + pending.unwrap_or(1) * 10);
            pending = None;
        } else {
            break;
        }
        len += c.len_utf8();
    }
    match (value, pending) {
        (None, None) => (None, 0),
        (v, p) => (Some(v.unwrap_or(0) + p.unwrap_or(0)), len),
    }
}

/// English sequencing words allowed anywhere in a clause (unless the clause is a condition).
const ANYWHERE: [&str; 4] = ["after that", "afterwards", "afterward", "then"];
/// English sequencing words that split only at the start of a clause.
const CLAUSE_START: [&str; 9] = [
    "next",
    "finally",
    "lastly",
    "subsequently",
    "and finally",
    "second",
    "secondly",
    "third",
    "thirdly",
];
/// Chinese sequencing words allowed anywhere.
const CJK_ANYWHERE: [&str; 3] = ["然后", "随后", "再然后"];
/// Chinese sequencing words that split only at the start of a clause.
const CJK_CLAUSE_START: [&str; 4] = ["接着", "最后", "之后", "其次"];
/// Words that make a following "then" part of a condition ("if it fails then retry").
const CONDITIONS: [&str; 5] = ["if", "when", "once", "unless", "whenever"];

/// Splits free text at sequencing words; the words themselves are dropped.
fn split_sequencing(text: &str) -> Vec<&str> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let words = word_spans(text);
    // A condition ("if …, then …", "when …, then …") runs to the end of its sentence.
    let mut sentence_start_word = 0;
    let mut index = 0;
    while index < words.len() {
        let (start, _) = words[index];
        let at_clause_start = is_clause_start(text, start, &words, index);
        if text[..start].trim_end().ends_with(is_sentence_break) {
            sentence_start_word = index;
        }
        let mut matched = None;
        for (list, needs_start) in [(&ANYWHERE[..], false), (&CLAUSE_START[..], true)] {
            if needs_start && !at_clause_start {
                continue;
            }
            for phrase in list {
                if let Some(count) = match_words(text, &words, index, phrase) {
                    matched = Some(count);
                    break;
                }
            }
            if matched.is_some() {
                break;
            }
        }
        if let Some(count) = matched {
            let is_then = match_words(text, &words, index, "then").is_some();
            let conditional = is_then
                && words[sentence_start_word..index].iter().any(|(s, e)| {
                    CONDITIONS
                        .iter()
                        .any(|c| text[*s..*e].eq_ignore_ascii_case(c))
                });
            if !conditional && index > 0 {
                let end = words[index + count - 1].1;
                cuts.push((start, end));
                sentence_start_word = index + count;
            }
            index += count;
            continue;
        }
        index += 1;
    }
    for (list, needs_start) in [(&CJK_ANYWHERE[..], false), (&CJK_CLAUSE_START[..], true)] {
        for word in list {
            for (at, _) in text.match_indices(word) {
                let before = text[..at].trim_end();
                let starts = before.is_empty() || before.ends_with(|c: char| is_clause_break(c));
                if at > 0 && !before.is_empty() && (!needs_start || starts) {
                    cuts.push((at, at + word.len()));
                }
            }
        }
    }
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for (start, end) in cuts {
        if start < from {
            continue;
        }
        pieces.push(&text[from..start]);
        from = end;
    }
    pieces.push(&text[from..]);
    pieces
}

fn is_sentence_break(c: char) -> bool {
    matches!(c, '.' | ';' | '!' | '?' | '。' | '；' | '！' | '？' | '\n')
}

fn is_clause_break(c: char) -> bool {
    matches!(
        c,
        '.' | ',' | ';' | ':' | '!' | '?' | '。' | '，' | '；' | '：' | '！' | '？' | '、' | '\n'
    )
}

/// Whether word `index` starts a clause: the text start, after punctuation, or after "and".
fn is_clause_start(text: &str, start: usize, words: &[(usize, usize)], index: usize) -> bool {
    let before = text[..start].trim_end();
    if before.is_empty() || before.ends_with(is_clause_break) {
        return true;
    }
    index > 0 && {
        let (s, e) = words[index - 1];
        text[s..e].eq_ignore_ascii_case("and")
    }
}

/// Byte spans of ASCII-alphanumeric words.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                spans.push((s, at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

/// How many words of `phrase` match at word `index`, case-insensitively.
fn match_words(text: &str, words: &[(usize, usize)], index: usize, phrase: &str) -> Option<usize> {
    let mut count = 0;
    for (offset, want) in phrase.split(' ').enumerate() {
        let (s, e) = *words.get(index + offset)?;
        if !text[s..e].eq_ignore_ascii_case(want) {
            return None;
        }
        count += 1;
    }
    Some(count)
}

/// Leading markers a clause may keep after a split ("and", "first,", "首先").
const LEADING: [&str; 12] = [
    "first of all",
    "firstly",
    "first",
    "to begin",
    "and",
    "also",
    "then",
    "finally",
    "next",
    "after that",
    "afterwards",
    "afterward",
];

/// Trims whitespace and punctuation.
fn strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || is_clause_break(c) || c == '-')
}

/// Trims whitespace, punctuation and leading markers from a step text.
fn clean(text: &str) -> &str {
    let mut current = strip(text);
    loop {
        let mut changed = false;
        for marker in LEADING {
            let len = marker.len();
            if current.len() > len
                && current
                    .get(..len)
                    .is_some_and(|p| p.eq_ignore_ascii_case(marker))
                && current[len..].starts_with(|c: char| c.is_whitespace() || c == ',')
            {
                current = strip(&current[len..]);
                changed = true;
            }
        }
        for marker in ["首先", "第一", "然后", "接着", "最后", "再"] {
            if let Some(rest) = current.strip_prefix(marker) {
                if !rest.is_empty() {
                    current = strip(rest);
                    changed = true;
                }
            }
        }
        for marker in ["and", "then"] {
            let len = marker.len();
            if current.len() > len
                && current
                    .get(current.len() - len..)
                    .is_some_and(|s| s.eq_ignore_ascii_case(marker))
                && current[..current.len() - len].ends_with(|c: char| !c.is_ascii_alphanumeric())
            {
                current = strip(&current[..current.len() - len]);
                changed = true;
            }
        }
        if !changed {
            return current;
        }
    }
}

fn has_content(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// Step numbers a step says it depends on: "after step 2", "after steps 1 and 3",
/// "depends on step 4", "requires steps 2, 3", "第2步之后", "依赖第3步", "依赖步骤3".
pub(crate) fn find_refs(text: &str) -> Vec<u32> {
    let mut refs = Vec::new();
    let words = word_spans(text);
    let lower = |i: usize| words.get(i).map(|(s, e)| text[*s..*e].to_ascii_lowercase());
    for index in 0..words.len() {
        let keyword_len = match (lower(index).as_deref(), lower(index + 1).as_deref()) {
            (Some("after" | "requires" | "require" | "following" | "once"), _) => 1,
            (Some("depends" | "depend" | "dependent"), Some("on")) => 2,
            _ => continue,
        };
        let mut at = index + keyword_len;
        if !matches!(lower(at).as_deref(), Some("step" | "steps")) {
            continue;
        }
        at += 1;
        while let Some(word) = lower(at) {
            if let Ok(number) = word.parse::<u32>() {
                if !refs.contains(&number) {
                    refs.push(number);
                }
            } else if word != "and" && word != "or" && word != "step" {
                break;
            }
            at += 1;
        }
    }
    for (at, _) in text.match_indices('第') {
        let rest = &text[at + '第'.len_utf8()..];
        let (number, len) = leading_number(rest);
        let Some(number) = number else { continue };
        let Some(after) = rest.get(len..).and_then(|r| r.strip_prefix('步')) else {
            continue;
        };
        let before = &text[..at];
        let names_a_dependency = after.starts_with("之后")
            || after.starts_with("完成后")
            || after.starts_with('后')
            || before.ends_with("依赖");
        if names_a_dependency && !refs.contains(&number) {
            refs.push(number);
        }
    }
    for (at, _) in text.match_indices("依赖步骤") {
        let (number, _) = leading_number(text[at + "依赖步骤".len()..].trim_start());
        if let Some(number) = number.filter(|n| !refs.contains(n)) {
            refs.push(number);
        }
    }
    refs
}
