//! The classifier's features of a task text: word unigrams and bigrams, character n-grams of
//! Latin words, CJK character uni/bi/trigrams, a few structural cues (numbers with units,
//! percentages, currency, arithmetic, code-like tokens, file extensions, question form,
//! length, lists) and the keyword lexicon's category weights.
//!
//! One extractor serves training and inference: it hands every feature to a [`Sink`] as the
//! pieces of its name, so the trainer can build the name and the scorer can hash the same
//! bytes without allocating. Features of the three text groups are counted and scaled by
//! `1/sqrt(text features emitted)`, so long and short tasks weigh alike.

use crate::catalog::card::Category;
use crate::routing::text::{is_cjk, TokenKind, Tokens};

/// Which family a feature belongs to; text families are length-normalized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Group {
    /// `w:` word unigrams, `b:` bigrams (`b:^ word` starts a sentence), `p:` words of a
    /// payload (quoted or pasted text, which the task is about rather than asking for).
    Words = 0,
    /// `c:` character n-grams of Latin words.
    Chars = 1,
    /// `z:` CJK character n-grams (`z:^` the first two of a sentence), `y:` of a payload.
    Cjk = 2,
    /// `s:` structural cues (value 1 each).
    Structure = 3,
    /// `l:` the keyword lexicon's weights.
    Lexicon = 4,
}

/// How many groups there are.
pub(crate) const GROUPS: usize = 5;

impl Group {
    /// Whether this group's values are scaled by `1/sqrt(emitted)`.
    pub(crate) fn normalized(self) -> bool {
        matches!(self, Group::Words | Group::Chars | Group::Cjk)
    }

    /// The group of a feature name, from its prefix.
    pub(crate) fn of_name(name: &str) -> Option<Group> {
        match name.get(..2)? {
            "w:" | "b:" | "p:" => Some(Group::Words),
            "c:" => Some(Group::Chars),
            "z:" | "y:" => Some(Group::Cjk),
            "s:" => Some(Group::Structure),
            "l:" => Some(Group::Lexicon),
            _ => None,
        }
    }
}

/// Where a feature came from, to name it in an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Origin {
    /// A word and the character n-grams of it: its byte range in the lowered text.
    Word(u32, u32),
    /// Two adjacent words: the byte range from the first's start to the second's end.
    Phrase(u32, u32),
    /// A CJK n-gram: its byte range.
    Cjk(u32, u32),
    /// A structural or lexicon feature: named by itself.
    Named,
}

/// Receives features.
pub(crate) trait Sink {
    /// One occurrence of the feature whose name is the concatenation of `parts`.
    fn feature(&mut self, group: Group, parts: &[&str], origin: Origin, value: f32);
}

/// Latin character n-gram lengths (over the word padded with `<` and `>`).
const CHAR_NGRAMS: [usize; 1] = [3];
/// Longest word (in characters) whose character n-grams are taken.
const MAX_NGRAM_WORD: usize = 24;
/// Shortest word whose character n-grams are taken: a short word is all in its unigram
/// (and "the", "and", "in" would otherwise be a third of the features).
const MIN_NGRAM_WORD: usize = 4;
/// CJK n-gram lengths.
const CJK_NGRAMS: [usize; 3] = [1, 2, 3];

/// Emits every feature of `raw` (already tokenized as `tokens`) with the lexicon's
/// per-category weights `lexicon` (in [`Category::ALL`] order).
pub(crate) fn extract(
    raw: &str,
    tokens: &Tokens,
    lexicon: &[f64; Category::ALL.len()],
    sink: &mut impl Sink,
) {
    let lowered_payload = payload(&tokens.lowered);
    // Lowercasing rarely changes byte offsets (ASCII and CJK never do); then one pass serves.
    let raw_payload = if raw.len() == tokens.lowered.len() {
        lowered_payload.clone()
    } else {
        payload(raw)
    };
    words(tokens, &lowered_payload, sink);
    structure(raw, &raw_payload, tokens, sink);
    let mut top: Option<(usize, f64)> = None;
    for (index, (category, weight)) in Category::ALL.iter().zip(lexicon).enumerate() {
        if *weight > 0.0 {
            sink.feature(
                Group::Lexicon,
                &["l:", category.id()],
                Origin::Named,
                weight.ln_1p() as f32,
            );
            if top.is_none_or(|(_, best)| *weight > best) {
                top = Some((index, *weight));
            }
        }
    }
    if let Some((index, _)) = top {
        sink.feature(
            Group::Lexicon,
            &["l:top ", Category::ALL[index].id()],
            Origin::Named,
            1.0,
        );
    }
}

/// Whether the text between two tokens ends a sentence or a line (bigrams do not cross it).
fn breaks(gap: &str) -> bool {
    gap.bytes()
        .any(|b| matches!(b, b'.' | b'!' | b'?' | b';' | b'\n' | b':'))
        || gap.contains(['。', '！', '？', '；', '：'])
}

/// A quote or a line break at byte `at` of `bytes`, and its width in bytes.
fn marker(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    match bytes[at] {
        b'"' => Some(('"', 1)),
        b'\'' => Some(('\'', 1)),
        b'\n' => Some(('\n', 1)),
        0xE2 if bytes.get(at + 1) == Some(&0x80) => match bytes.get(at + 2) {
            Some(0x9C) => Some(('“', 3)),
            Some(0x9D) => Some(('”', 3)),
            _ => None,
        },
        0xE3 if bytes.get(at + 1) == Some(&0x80) => match bytes.get(at + 2) {
            Some(0x8C) => Some(('「', 3)),
            Some(0x8D) => Some(('」', 3)),
            Some(0x8E) => Some(('『', 3)),
            Some(0x8F) => Some(('』', 3)),
            _ => None,
        },
        _ => None,
    }
}

/// Byte ranges of the text that are payload, not instruction: quoted spans, a list or block
/// after the first colon, and the lines after the first when the task has three or more
/// (pasted content). Sorted. Works on bytes: every marker is ASCII or a fixed UTF-8 sequence.
fn payload(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let bytes = text.as_bytes();
    let mut open: Option<(char, usize)> = None;
    let mut colon: Option<(usize, usize)> = None;
    let mut breaks: Vec<usize> = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let byte = bytes[at];
        if colon.is_none() {
            let width = match byte {
                b':' => 1,
                0xEF if bytes.get(at + 1) == Some(&0xBC) && bytes.get(at + 2) == Some(&0x9A) => 3,
                _ => 0,
            };
            if width > 0 {
                let before = at.checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(at + width).copied();
                let clock = before.is_some_and(|b| b.is_ascii_digit())
                    && after.is_some_and(|a| a.is_ascii_digit());
                if !clock && after != Some(b'/') {
                    colon = Some((at, width));
                }
            }
        }
        let Some((c, width)) = marker(bytes, at) else {
            at += 1;
            continue;
        };
        let start = at;
        at += width;
        if c == '\n' {
            breaks.push(start);
        }
        let next = bytes.get(at).copied();
        match open {
            Some((close, from)) => {
                let closes = c == close
                    && (close != '\'' || !next.is_some_and(|n| n.is_ascii_alphanumeric()));
                if closes {
                    if start > from {
                        ranges.push((from, start));
                    }
                    open = None;
                } else if c == '\n' && close != '"' {
                    open = None;
                }
            }
            None => {
                let close = match c {
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '「' => Some('」'),
                    '『' => Some('』'),
                    '\'' if !start
                        .checked_sub(1)
                        .is_some_and(|i| bytes[i].is_ascii_alphanumeric())
                        && next.is_some_and(|n| !n.is_ascii_whitespace()) =>
                    {
                        Some('\'')
                    }
                    _ => None,
                };
                if let Some(close) = close {
                    open = Some((close, at));
                }
            }
        }
    }
    // After the first colon that introduces a list (several short items) or a block.
    if let Some((at, width)) = colon {
        let start = at + width;
        let rest = &text[start..];
        let separators = rest.matches([',', '，', '、', ';', '；', '\n']).count();
        let list = separators >= 3 && rest.chars().count() <= 20 * (separators + 1);
        let opens = rest.starts_with('\n')
            || rest
                .trim_start()
                .starts_with(['[', '{', '"', '\'', '“', '「']);
        if list || opens {
            ranges.push((start, text.len()));
        }
    }
    let lines: Vec<usize> = breaks
        .into_iter()
        .filter(|at| {
            text[at + 1..]
                .lines()
                .next()
                .is_some_and(|l| !l.trim().is_empty())
        })
        .collect();
    if lines.len() >= 2 {
        ranges.push((lines[0], text.len()));
    }
    ranges.sort_unstable();
    ranges
}

fn words(tokens: &Tokens, payload: &[(usize, usize)], sink: &mut impl Sink) {
    let text = tokens.lowered.as_str();
    let in_payload = |start: usize| payload.iter().any(|(s, e)| start >= *s && start < *e);
    // The previous instruction word (for bigrams); `None` at a break.
    let mut previous: Option<(&str, u32)> = None;
    let mut sentence_start = true;
    let mut last_end = 0usize;
    for token in &tokens.tokens {
        let (start, end) = (token.start as usize, token.end as usize);
        let gap = text.get(last_end..start).unwrap_or("");
        if breaks(gap) {
            previous = None;
            sentence_start = true;
        }
        last_end = end;
        let piece = tokens.text(*token);
        let quoted = !payload.is_empty() && in_payload(start);
        match token.kind {
            TokenKind::Cjk if quoted => {
                previous = None;
                quoted_cjk(piece, token.start, sink);
            }
            TokenKind::Cjk => {
                previous = None;
                if sentence_start {
                    let first: usize = piece.chars().take(2).map(char::len_utf8).sum();
                    let head = piece.get(..first).unwrap_or("");
                    let (s, e) = (token.start, token.start + first as u32);
                    sink.feature(Group::Cjk, &["z:^", head], Origin::Cjk(s, e), 1.0);
                }
                sentence_start = false;
                cjk_ngrams(piece, token.start, sink);
            }
            TokenKind::Word | TokenKind::Number if quoted => {
                previous = None;
                let word = if token.kind == TokenKind::Number {
                    "#"
                } else {
                    piece
                };
                let origin = Origin::Word(token.start, token.end);
                sink.feature(Group::Words, &["p:", word], origin, 1.0);
            }
            TokenKind::Word | TokenKind::Number => {
                let word = if token.kind == TokenKind::Number {
                    "#"
                } else {
                    piece
                };
                let (s, e) = (token.start, token.end);
                sink.feature(Group::Words, &["w:", word], Origin::Word(s, e), 1.0);
                if token.kind == TokenKind::Word {
                    char_ngrams(word, s, e, sink);
                }
                if sentence_start {
                    sink.feature(Group::Words, &["b:^ ", word], Origin::Word(s, e), 1.0);
                }
                if let Some((before, before_start)) = previous {
                    sink.feature(
                        Group::Words,
                        &["b:", before, " ", word],
                        Origin::Phrase(before_start, e),
                        1.0,
                    );
                }
                previous = Some((word, s));
                sentence_start = false;
            }
        }
    }
}

/// Quoted CJK text: single characters and pairs, marked as payload.
fn quoted_cjk(run: &str, start: u32, sink: &mut impl Sink) {
    let mut bounds: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    bounds.push(run.len());
    let count = bounds.len() - 1;
    for n in [1usize, 2] {
        if n > count {
            continue;
        }
        for first in 0..=(count - n) {
            let (from, to) = (bounds[first], bounds[first + n]);
            let body = run.get(from..to).unwrap_or("");
            let origin = Origin::Cjk(start + from as u32, start + to as u32);
            sink.feature(Group::Cjk, &["y:", body], origin, 1.0);
        }
    }
}

fn char_ngrams(word: &str, start: u32, end: u32, sink: &mut impl Sink) {
    // Byte offsets of the word's characters, plus its end.
    let mut bounds = [0usize; MAX_NGRAM_WORD + 1];
    let mut count = 0usize;
    for (offset, _) in word.char_indices() {
        if count == MAX_NGRAM_WORD {
            return;
        }
        bounds[count] = offset;
        count += 1;
    }
    if count < MIN_NGRAM_WORD {
        return;
    }
    bounds[count] = word.len();
    // Padded positions: 0 is `<`, 1..=count the characters, count + 1 is `>`.
    let padded = count + 2;
    let origin = Origin::Word(start, end);
    for n in CHAR_NGRAMS {
        if n > padded {
            continue;
        }
        for first in 0..=(padded - n) {
            let last = first + n; // exclusive
            let lead = if first == 0 { "<" } else { "" };
            let tail = if last == padded { ">" } else { "" };
            let from = bounds[first.saturating_sub(1).min(count)];
            let to = bounds[(last - 1).min(count)];
            let body = word.get(from..to).unwrap_or("");
            sink.feature(Group::Chars, &["c:", lead, body, tail], origin, 1.0);
        }
    }
}

fn cjk_ngrams(run: &str, start: u32, sink: &mut impl Sink) {
    let mut bounds: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    bounds.push(run.len());
    let count = bounds.len() - 1;
    for n in CJK_NGRAMS {
        if n > count {
            continue;
        }
        for first in 0..=(count - n) {
            let (from, to) = (bounds[first], bounds[first + n]);
            let body = run.get(from..to).unwrap_or("");
            let origin = Origin::Cjk(start + from as u32, start + to as u32);
            sink.feature(Group::Cjk, &["z:", body], origin, 1.0);
        }
    }
}

/// Unit words that make a preceding number a measured quantity.
const UNIT_WORDS: &[&str] = &[
    "km",
    "kms",
    "kilometers",
    "kilometres",
    "mile",
    "miles",
    "mph",
    "kph",
    "kmh",
    "m",
    "meter",
    "meters",
    "metres",
    "cm",
    "mm",
    "kg",
    "kgs",
    "g",
    "gram",
    "grams",
    "lb",
    "lbs",
    "pound",
    "pounds",
    "oz",
    "ounce",
    "ounces",
    "hour",
    "hours",
    "hr",
    "hrs",
    "h",
    "minute",
    "minutes",
    "min",
    "mins",
    "second",
    "seconds",
    "sec",
    "secs",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "yr",
    "yrs",
    "percent",
    "dollar",
    "dollars",
    "bucks",
    "cents",
    "euro",
    "euros",
    "yuan",
    "usd",
    "eur",
    "gbp",
    "rmb",
    "liter",
    "liters",
    "litre",
    "litres",
    "ml",
    "gallon",
    "gallons",
    "cup",
    "cups",
    "tbsp",
    "tsp",
    "foot",
    "feet",
    "ft",
    "inch",
    "inches",
    "degrees",
    "kwh",
    "mb",
    "gb",
    "tb",
    "x",
];

/// CJK units that make a preceding number a measured quantity.
const CJK_UNITS: &[&str] = &[
    "公里", "千米", "米", "厘米", "毫米", "公斤", "千克", "克", "斤", "小时", "分钟", "秒", "天",
    "周", "个月", "月", "年", "岁", "元", "块", "美元", "万", "亿", "升", "毫升", "倍", "折", "度",
    "平方", "立方", "吨", "千瓦", "人", "个", "道", "次", "页", "%",
];

/// Currency words and symbols.
const CURRENCY_WORDS: &[&str] = &[
    "dollar", "dollars", "usd", "eur", "euro", "euros", "gbp", "yuan", "rmb", "bucks", "cents",
    "salary", "price",
];

/// Code file extensions.
const EXT_CODE: &[&str] = &[
    "py", "rs", "js", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cpp", "hpp", "cs", "rb",
    "php", "swift", "sh", "bash", "ps1", "sql", "yaml", "yml", "toml", "ini", "cfg", "html", "css",
    "scss", "vue", "lock", "gradle", "env", "ipynb", "lua", "dart", "scala",
];
/// Data file extensions.
const EXT_DATA: &[&str] = &[
    "csv", "tsv", "json", "jsonl", "xml", "xlsx", "xls", "txt", "log", "parquet", "srt", "vcf",
    "ics",
];
/// Image and video file extensions.
const EXT_IMAGE: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "heic", "bmp", "tiff", "svg", "mp4", "mov", "avi", "mkv",
];
/// Document file extensions.
const EXT_DOC: &[&str] = &[
    "pdf", "docx", "doc", "pptx", "ppt", "md", "epub", "odt", "rtf",
];

/// Facts gathered in one pass over the raw text.
#[derive(Default)]
struct RawFacts {
    chars: usize,
    cjk: usize,
    letters: usize,
    percent: bool,
    currency: bool,
    arithmetic: bool,
    code: u32,
    code_payload: u32,
    question: bool,
    lines: u32,
    list_items: u32,
    separators: u32,
    quotes: u32,
    book_title: bool,
    url: bool,
    pasted: bool,
}

fn scan(raw: &str, payload: &[(usize, usize)]) -> RawFacts {
    let mut facts = RawFacts::default();
    let chars: Vec<char> = raw.chars().collect();
    facts.chars = chars.len();
    let mut line_start = true;
    let mut line_has_text = false;
    let mut colon_at: Option<usize> = None;
    let mut word_start = 0usize;
    let mut byte = 0usize;
    let mut code = 0u32;
    let mut code_payload = 0u32;
    let mut range = 0usize;
    for (i, &c) in chars.iter().enumerate() {
        let at = byte;
        byte += c.len_utf8();
        while payload.get(range).is_some_and(|(_, end)| at >= *end) {
            range += 1;
        }
        let quoted = payload.get(range).is_some_and(|(start, _)| at >= *start);
        let code_before = code;
        let prev = if i > 0 {
            chars.get(i - 1).copied()
        } else {
            None
        };
        let next = chars.get(i + 1).copied();
        // Fast path: letters, digits and spaces (most of any task) only count.
        if c.is_ascii_alphanumeric() {
            if !prev.is_some_and(|p| p.is_ascii_alphanumeric()) {
                word_start = i;
            }
            if c.is_ascii_alphabetic() {
                facts.letters += 1;
            }
            // camelCase starts lowercase with a hump after two letters (`getUser`,
            // `useEffect`); brand names (`YouTube`, `iPhone`, `eBay`) do not count.
            if c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase())
                && next.is_some_and(|n| n.is_ascii_lowercase())
                && i >= word_start + 2
                && chars[word_start].is_ascii_lowercase()
            {
                if quoted {
                    code_payload += 1;
                } else {
                    code += 1;
                }
            }
            if line_start {
                line_start = false;
                let item = c.is_ascii_digit()
                    && chars[i..]
                        .iter()
                        .take(4)
                        .any(|ch| matches!(ch, '.' | ')' | '、'));
                if item {
                    facts.list_items += 1;
                }
            }
            line_has_text = true;
            continue;
        }
        if c == ' ' {
            continue;
        }
        if is_cjk(c) {
            facts.cjk += 1;
        } else if c.is_alphabetic() {
            facts.letters += 1;
        }
        match c {
            '%' | '％' | '‰' => facts.percent = true,
            '$' | '€' | '£' | '¥' | '￥' => facts.currency = true,
            '`' | '{' | '}' => code += 1,
            ',' | '，' | '、' | ';' | '；' | '|' => facts.separators += 1,
            '"' | '“' | '”' | '「' | '」' | '『' | '』' => facts.quotes += 1,
            '《' => facts.book_title = true,
            ':' | '：' if colon_at.is_none() => colon_at = Some(i),
            _ => {}
        }
        if matches!(c, '+' | '*' | '/' | '×' | '÷' | '=' | '^' | '-' | '<' | '>') {
            let spaced = prev == Some(' ') && next == Some(' ');
            if c != '-' || spaced {
                let left = chars[..i].iter().rev().find(|ch| **ch != ' ').copied();
                let right = chars[i + 1..].iter().find(|ch| **ch != ' ').copied();
                let operand = |ch: Option<char>| {
                    ch.is_some_and(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '(' | ')'))
                };
                let digit = |ch: Option<char>| ch.is_some_and(|ch| ch.is_ascii_digit());
                if operand(left) && operand(right) && (digit(left) || digit(right)) {
                    facts.arithmetic = true;
                }
            }
        }
        // Code-like: `name(`, `snake_case`, `camelCase`, `=>`, `->`, `::`, `</`, `/>`, `==`.
        if c == '(' && prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_') {
            code += 1;
        }
        if c == '_'
            && prev.is_some_and(|p| p.is_ascii_alphanumeric())
            && next.is_some_and(|n| n.is_ascii_alphanumeric())
        {
            code += 1;
        }
        if let Some(n) = next {
            if matches!(
                (c, n),
                ('=', '>') | ('-', '>') | (':', ':') | ('<', '/') | ('/', '>')
            ) || (matches!(c, '=' | '!') && n == '=')
                || (c == '&' && n == '&')
                || (c == '|' && n == '|')
            {
                code += 1;
            }
        }
        if c == ';' && matches!(next, None | Some('\n')) {
            code += 1;
        }
        if quoted && code > code_before {
            code_payload += code - code_before;
            code = code_before;
        }
        if c == '\n' {
            if line_has_text {
                facts.lines += 1;
            }
            line_start = true;
            line_has_text = false;
            continue;
        }
        if line_start && !c.is_whitespace() {
            line_start = false;
            let item = matches!(c, '-' | '*' | '•' | '·')
                || (c.is_ascii_digit()
                    && chars[i..]
                        .iter()
                        .take(4)
                        .any(|ch| matches!(ch, '.' | ')' | '、')));
            if item {
                facts.list_items += 1;
            }
        }
        if !c.is_whitespace() {
            line_has_text = true;
        }
    }
    if line_has_text {
        facts.lines += 1;
    }
    facts.code = code;
    facts.code_payload = code_payload;
    let lowered_tail: String = chars
        .iter()
        .rev()
        .skip_while(|c| c.is_whitespace() || matches!(c, '。' | '.' | '!' | '！'))
        .take(1)
        .collect();
    facts.question = matches!(lowered_tail.as_str(), "?" | "？" | "吗" | "呢" | "么");
    if let Some(at) = colon_at {
        facts.pasted = chars.len().saturating_sub(at) >= 80;
    }
    facts.url = raw.contains("http://") || raw.contains("https://") || raw.contains("www.");
    facts
}

fn structure(raw: &str, payload: &[(usize, usize)], tokens: &Tokens, sink: &mut impl Sink) {
    let facts = scan(raw, payload);
    let mut emit = |name: &str| sink.feature(Group::Structure, &["s:", name], Origin::Named, 1.0);
    let text = tokens.lowered.as_str();
    let mut numbers = 0u32;
    let mut with_unit = false;
    let mut currency_word = facts.currency;
    let mut extensions = [false; 4];
    for (index, token) in tokens.tokens.iter().enumerate() {
        let piece = tokens.text(*token);
        match token.kind {
            TokenKind::Number => {
                numbers += 1;
                let after = text.get(token.end as usize..).unwrap_or("");
                if after.starts_with('%') || after.starts_with('％') {
                    with_unit = true;
                }
                if let Some(next) = tokens.tokens.get(index + 1) {
                    let next_text = tokens.text(*next);
                    let adjacent = text
                        .get(token.end as usize..next.start as usize)
                        .is_some_and(|gap| gap.len() <= 1 && !gap.contains(['.', ',', '，']));
                    let unit = match next.kind {
                        TokenKind::Word => UNIT_WORDS.contains(&next_text),
                        TokenKind::Cjk => CJK_UNITS.iter().any(|u| next_text.starts_with(u)),
                        TokenKind::Number => false,
                    };
                    if unit && adjacent {
                        with_unit = true;
                    }
                }
                // A suffix glued to the number: `5km`, `30min`.
                let suffix =
                    piece.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
                if !suffix.is_empty() && UNIT_WORDS.contains(&suffix) {
                    with_unit = true;
                }
            }
            TokenKind::Word => {
                if CURRENCY_WORDS.contains(&piece) {
                    currency_word = true;
                }
                if piece == "percent" || piece == "percentage" || piece == "pct" {
                    emit("percentage");
                }
                let before = token.start as usize;
                if before > 0 && text.as_bytes().get(before - 1) == Some(&b'.') {
                    let glued = before >= 2
                        && text
                            .as_bytes()
                            .get(before - 2)
                            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
                    if glued {
                        for (slot, list) in
                            [EXT_CODE, EXT_DATA, EXT_IMAGE, EXT_DOC].iter().enumerate()
                        {
                            if list.contains(&piece) {
                                extensions[slot] = true;
                            }
                        }
                    }
                }
            }
            TokenKind::Cjk => {
                if piece.contains("百分之") || piece.contains("百分比") {
                    emit("percentage");
                }
                if piece.contains("美元") || piece.contains("人民币") || piece.contains("块钱")
                {
                    currency_word = true;
                }
            }
        }
    }
    if numbers > 0 {
        emit("number");
    }
    if numbers >= 3 {
        emit("several numbers");
    }
    if with_unit {
        emit("number with unit");
    }
    if facts.percent {
        emit("percentage");
    }
    if currency_word {
        emit("currency");
    }
    if facts.arithmetic {
        emit("arithmetic");
    }
    if facts.code > 0 {
        emit("code-like token");
    }
    if facts.code >= 3 {
        emit("code-like text");
    }
    if facts.code_payload > 0 {
        emit("code-like quoted text");
    }
    for (found, name) in extensions.iter().zip([
        "code file name",
        "data file name",
        "image or video file name",
        "document file name",
    ]) {
        if *found {
            emit(name);
        }
    }
    if facts.question {
        emit("question");
    }
    // A CJK character carries about as much as three Latin ones.
    let length = facts.chars + 2 * facts.cjk;
    emit(match length {
        0..40 => "length under 40",
        40..120 => "length under 120",
        120..300 => "length under 300",
        300..800 => "length under 800",
        _ => "length 800 or more",
    });
    if facts.lines >= 4 {
        emit("many lines");
    }
    if facts.list_items >= 3 {
        emit("list of items");
    }
    if facts.separators >= 6 {
        emit("many separators");
    }
    if facts.quotes >= 2 {
        emit("quoted text");
    }
    if facts.book_title {
        emit("book title");
    }
    if facts.url {
        emit("url");
    }
    if facts.pasted {
        emit("text after a colon");
    }
    let script = facts.cjk + facts.letters;
    if script > 0 {
        let share = facts.cjk as f64 / script as f64;
        emit(if share >= 0.5 {
            "chinese"
        } else if facts.cjk > 0 {
            "english with chinese"
        } else {
            "english"
        });
    }
}
