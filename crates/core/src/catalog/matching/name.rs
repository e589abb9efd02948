//! Breaks a model name from any source into comparable parts: core tokens in order, the
//! trailing reasoning/effort run (strippable), a date, and the vendor prefix.
//!
//! `Anthropic: Claude Opus 4.5`, `anthropic/claude-4.5-opus-20251124`,
//! `claude-opus-4-5-20251101-thinking-32k` and `Claude Opus 4.5 (Reasoning)` all reduce to the
//! tokens `claude opus 4.5` (in some order) plus a date and a mode run. Versions stay whole
//! (`4.5` ≠ `5.4`), family names are split from their version (`qwen2.5` → `qwen 2.5`) so
//! `qwen-2.5-72b` and `qwen2.5-72b` agree, and AA's hyphenated versions (`gpt-5-1`,
//! `qwen3-5-397b`) are re-joined.

use std::borrow::Cow;

use super::date::{all_digits, extract_date, DateCode};

/// A parsed name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NameParts {
    /// Core tokens in order, dates removed, the mode run (if any) at the end.
    pub tokens: Vec<String>,
    /// Token counts to retry with after the full list, longest first: each drops one more
    /// unit of the trailing mode run (`-high-effort`, `-64k`, `-thinking`).
    pub strip_points: Vec<usize>,
    /// The first date found in the name.
    pub date: Option<DateCode>,
    /// `Some(true)` for an explicit thinking/reasoning marker, `Some(false)` for an explicit
    /// non-reasoning one (`-nothinking`, `(Non-reasoning)`, LiveBench `-base`).
    pub reasoning: Option<bool>,
    /// The vendor prefix (`anthropic` from `anthropic/…`, `Anthropic` from `Anthropic: …`).
    pub vendor: Option<String>,
}

impl NameParts {
    /// Whether the name carries a reasoning/effort suffix that can be stripped.
    pub fn has_mode_run(&self) -> bool {
        !self.strip_points.is_empty()
    }

    /// The core tokens with the whole mode run removed.
    pub fn base_tokens(&self) -> &[String] {
        let end = self
            .strip_points
            .last()
            .copied()
            .unwrap_or(self.tokens.len());
        &self.tokens[..end]
    }
}

/// Words that never carry identity once a name is otherwise equal (`gemma-3-27b-it` vs
/// "Gemma 3 27B Instruct", `gemini-3-flash` vs `gemini-3-flash-preview`); dropped only by
/// the loose tier, which ranks below the strict ones.
const LOOSE_DROP: &[&str] = &[
    "instruct", "it", "preview", "beta", "latest", "hf", "fp8", "bf16", "fp16", "001", "002",
];

/// Single mode words in a trailing run (`-thinking`, `-high`, `-adaptive`).
const MODE_WORDS: &[&str] = &[
    "thinking",
    "think",
    "reasoning",
    "nonreasoning",
    "nothinking",
    "highthinking",
    "adaptive",
    "auto",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "base",
];

/// Effort levels that may precede `effort` (`-max-effort`); bare `max` is a model name word
/// (`qwen3-max`, `gpt-5.1-codex-max`) and is only a mode inside `max effort`.
const EFFORT_LEVELS: &[&str] = &["low", "medium", "high", "xhigh", "max", "minimal"];

/// Words a parenthesized qualifier may consist of to count as a mode, e.g.
/// "(Adaptive Reasoning, Max Effort)", "(Non-reasoning)", "(xhigh)".
const PAREN_MODE_WORDS: &[&str] = &[
    "thinking",
    "think",
    "reasoning",
    "nonreasoning",
    "nothinking",
    "adaptive",
    "auto",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
    "effort",
    "non",
    "no",
];

/// Parenthesized single words that are part of the model's identity.
const PAREN_CORE_WORDS: &[&str] = &[
    "vision",
    "preview",
    "beta",
    "chatgpt",
    "fast",
    "thinking",
    "experimental",
];

/// Parses a display name, slug, id or key from any source.
pub fn parse_name(text: &str) -> NameParts {
    let lower = text.trim().to_ascii_lowercase();
    let groups = paren_groups(&lower);

    let mut date = None;
    let mut reasoning = None;
    let mut paren_words: Vec<&'static str> = Vec::new();
    for &(start, end) in &groups {
        for part in lower[start..end].split(',') {
            let mut part_tokens = raw_tokens(part);
            let part_date = extract_date(&mut part_tokens, true);
            date = date.or(part_date);
            if part_tokens.is_empty() {
                continue;
            }
            if part_tokens
                .iter()
                .all(|t| PAREN_MODE_WORDS.contains(&t.as_ref()))
            {
                reasoning = merge_reasoning(reasoning, reasoning_of(&part_tokens));
            } else if let [word] = part_tokens.as_slice() {
                if let Some(core) = PAREN_CORE_WORDS.iter().find(|w| **w == word.as_ref()) {
                    paren_words.push(core);
                }
            }
        }
    }

    let main = if groups.is_empty() {
        Cow::Borrowed(lower.as_str())
    } else {
        Cow::Owned(outside(&lower, &groups))
    };
    let (vendor, main) = split_vendor(&main);
    let mut raw = raw_tokens(main);
    // A date in the name itself comes before one in a qualifier.
    date = extract_date(&mut raw, false).or(date);
    let merged = merge_versions(raw);
    let mut tokens = split_family_versions(merged);
    tokens.extend(paren_words.into_iter().map(str::to_string));

    let (strip_points, run_reasoning) = mode_run(&tokens);
    NameParts {
        tokens,
        strip_points,
        date,
        reasoning: merge_reasoning(reasoning, run_reasoning),
        vendor,
    }
}

/// Tokens in order, joined: the `normalizedName` key.
pub fn ordered_key(tokens: &[String]) -> String {
    let mut out = String::new();
    write_ordered(tokens.iter().map(String::as_str), &mut out);
    out
}

/// Tokens sorted, joined: the `wordOrder` key (`claude 4.5 opus` = `claude opus 4.5`).
pub fn bag_key(tokens: &[String]) -> String {
    let (mut words, mut out) = (Vec::new(), String::new());
    write_bag(tokens.iter().map(String::as_str), &mut words, &mut out);
    out
}

/// Tokens sorted without [`LOOSE_DROP`] words: the `looseName` key. `None` when nothing
/// would be dropped (the key would equal the bag key) or nothing would remain.
pub fn loose_key(tokens: &[String]) -> Option<String> {
    let (mut words, mut out) = (Vec::new(), String::new());
    write_loose(tokens.iter().map(String::as_str), &mut words, &mut out).then_some(out)
}

/// Loose key that always exists (equal to the bag key when nothing is dropped); used to
/// index targets so a record's loose key finds them either way.
pub fn loose_key_always(tokens: &[String]) -> String {
    let (mut words, mut out) = (Vec::new(), String::new());
    write_loose(tokens.iter().map(String::as_str), &mut words, &mut out);
    out
}

/// Writes the ordered key into `out` (cleared first).
pub fn write_ordered<'a>(tokens: impl Iterator<Item = &'a str>, out: &mut String) {
    out.clear();
    for (i, token) in tokens.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(token);
    }
}

/// Writes the bag key of `tokens` into `out`, sorting in `words` (both reused buffers).
pub fn write_bag<'a>(
    tokens: impl Iterator<Item = &'a str>,
    words: &mut Vec<&'a str>,
    out: &mut String,
) {
    words.clear();
    words.extend(tokens);
    join_sorted(words, out);
}

/// Writes the loose key into `out`; returns whether a word was dropped and one remains
/// (otherwise `out` holds the bag key of all tokens).
pub fn write_loose<'a>(
    tokens: impl Iterator<Item = &'a str> + Clone,
    words: &mut Vec<&'a str>,
    out: &mut String,
) -> bool {
    words.clear();
    words.extend(tokens.clone().filter(|t| !LOOSE_DROP.contains(t)));
    let dropped = words.len() != tokens.clone().count();
    if !dropped || words.is_empty() {
        words.clear();
        words.extend(tokens);
        join_sorted(words, out);
        return false;
    }
    join_sorted(words, out);
    true
}

fn join_sorted(words: &mut [&str], out: &mut String) {
    words.sort_unstable();
    out.clear();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// Whether a token list is specific enough to identify a model on its own: two tokens, or
/// one that carries a digit (`o3`, never `mistral`).
pub fn specific_enough<T: AsRef<str>>(tokens: &[T]) -> bool {
    match tokens {
        [] => false,
        [only] => only.as_ref().bytes().any(|b| b.is_ascii_digit()),
        _ => true,
    }
}

/// Byte ranges of the outermost `(…)` and `[…]` groups (contents only).
fn paren_groups(lower: &str) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut depth = 0u32;
    let mut start = 0;
    for (i, b) in lower.bytes().enumerate() {
        match b {
            b'(' | b'[' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            b')' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    groups.push((start, i));
                }
            }
            _ => {}
        }
    }
    if depth > 0 {
        groups.push((start, lower.len()));
    }
    groups
}

/// The text outside the groups (each group with its brackets replaced by a space).
fn outside(lower: &str, groups: &[(usize, usize)]) -> String {
    let mut main = String::with_capacity(lower.len());
    let mut from = 0;
    for &(start, end) in groups {
        main.push_str(&lower[from..start.saturating_sub(1)]);
        main.push(' ');
        from = (end + 1).min(lower.len());
    }
    main.push_str(&lower[from.min(lower.len())..]);
    main
}

fn split_vendor(main: &str) -> (Option<String>, &str) {
    let main = main.trim();
    let (vendor, rest) = if let Some((vendor, rest)) = main.split_once(": ") {
        (Some(vendor), rest)
    } else if let Some((vendor, rest)) = main.rsplit_once('/') {
        (Some(vendor), rest)
    } else {
        (None, main)
    };
    let rest = rest.trim().trim_start_matches('~');
    // `:free`, `:batch` on ids; display names ("Mi:dm K 2.5") keep their colon.
    let rest = if rest.contains(' ') {
        rest
    } else {
        rest.split(':').next().unwrap_or(rest)
    };
    let vendor = vendor.map(|v| v.trim().trim_start_matches('~').to_string());
    (vendor.filter(|v| !v.is_empty()), rest)
}

/// Splits on every non-alphanumeric character except a `.` between two digits; `+` reads
/// as the word `plus` (Command R+).
fn raw_tokens(text: &str) -> Vec<Cow<'_, str>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::with_capacity(8);
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || (b == b'.'
                && i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        if keep {
            start.get_or_insert(i);
            continue;
        }
        if let Some(from) = start.take() {
            tokens.push(Cow::Borrowed(&text[from..i]));
        }
        if b == b'+' {
            tokens.push(Cow::Borrowed("plus"));
        }
    }
    if let Some(from) = start {
        tokens.push(Cow::Borrowed(&text[from..]));
    }
    tokens
}

/// Re-joins hyphenated versions: `gpt 5 1` → `gpt 5.1`, `qwen3 5 397b` → `qwen3.5 397b`,
/// `lfm2.5 1 2b` → `lfm2.5 1.2b`.
fn merge_versions(tokens: Vec<Cow<'_, str>>) -> Vec<Cow<'_, str>> {
    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Some(prev) = out.last_mut() {
            let prev_versionable =
                prev.ends_with(|c: char| c.is_ascii_digit()) && !prev.contains('.');
            let minor =
                all_digits(&token) && token.len() <= 2 && (token == "0" || !token.starts_with('0'));
            if prev_versionable && minor {
                let prev = prev.to_mut();
                prev.push('.');
                prev.push_str(&token);
                continue;
            }
        }
        if out.len() >= 2 && is_size(&token) && token.len() <= 3 {
            let n = out.len();
            let (before, prev) = (&out[n - 2], &out[n - 1]);
            let before_is_version =
                before.contains('.') || before.ends_with(|c: char| c.is_ascii_digit());
            if before_is_version && all_digits(prev) && prev.len() <= 2 {
                out[n - 1] = Cow::Owned(format!("{prev}.{token}"));
                continue;
            }
        }
        out.push(token);
    }
    out
}

/// `70b`, `2b`, `4t`, `270m`: a parameter count.
fn is_size(token: &str) -> bool {
    let Some(last) = token.chars().last() else {
        return false;
    };
    matches!(last, 'b' | 't' | 'm')
        && token.len() > 1
        && token[..token.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
}

/// Splits letters from a following version (`qwen2.5` → `qwen`, `2.5`; `v3` → `v`, `3`;
/// `a22b` → `a`, `22b`) and drops a `.0` minor (`4.0` = `4`).
fn split_family_versions(raw: Vec<Cow<'_, str>>) -> Vec<String> {
    let mut out = Vec::with_capacity(raw.len() + 4);
    let is_split =
        |bytes: &[u8], i: usize| bytes[i - 1].is_ascii_alphabetic() && bytes[i].is_ascii_digit();
    for token in raw {
        let bytes = token.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            if is_split(bytes, i) {
                out.push(normalize_version(token[start..i].to_string()));
                start = i;
            }
        }
        let rest = if start == 0 {
            token.into_owned()
        } else {
            token[start..].to_string()
        };
        out.push(normalize_version(rest));
    }
    out
}

fn normalize_version(mut token: String) -> String {
    if let Some(major) = token.strip_suffix(".0") {
        if all_digits(major) {
            let len = major.len();
            token.truncate(len);
        }
    }
    token
}

fn is_budget(token: &str) -> bool {
    token.len() >= 2
        && token.ends_with('k')
        && token[..token.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

/// Finds the trailing reasoning/effort run; returns the strip points and the reasoning flag
/// it implies.
fn mode_run(tokens: &[String]) -> (Vec<usize>, Option<bool>) {
    let mut end = tokens.len();
    let mut points = Vec::new();
    let mut reasoning = None;
    while end > 1 {
        let last = tokens[end - 1].as_str();
        let prev = if end >= 2 {
            Some(tokens[end - 2].as_str())
        } else {
            None
        };
        let unit = match (last, prev) {
            ("effort", Some(level)) if EFFORT_LEVELS.contains(&level) => 2,
            ("effort", _) => 1,
            ("reasoning" | "thinking", Some("non" | "no")) => {
                reasoning = Some(false);
                2
            }
            (budget, Some("thinking")) if is_budget(budget) => 1,
            (word, _) if MODE_WORDS.contains(&word) => {
                reasoning = merge_reasoning(reasoning, reasoning_of(&tokens[end - 1..end]));
                1
            }
            _ => break,
        };
        if end - unit < 1 {
            break;
        }
        end -= unit;
        points.push(end);
    }
    (points, reasoning)
}

fn reasoning_of<T: AsRef<str>>(words: &[T]) -> Option<bool> {
    let mut negated = false;
    let mut result = None;
    for word in words {
        match word.as_ref() {
            "non" | "no" => negated = true,
            "nonreasoning" | "nothinking" | "base" => result = Some(false),
            "thinking" | "think" | "reasoning" | "highthinking" | "adaptive" => {
                result = Some(!negated);
            }
            _ => {}
        }
    }
    result
}

fn merge_reasoning(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), _) | (_, Some(true)) => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> String {
        ordered_key(&parse_name(text).tokens)
    }

    #[test]
    fn versions_survive_every_separator() {
        assert_eq!(tokens("anthropic/claude-opus-4.5"), "claude opus 4.5");
        assert_eq!(tokens("claude-opus-4-5"), "claude opus 4.5");
        assert_eq!(tokens("gpt-5-1"), "gpt 5.1");
        assert_eq!(tokens("qwen3-5-397b-a17b"), "qwen 3.5 397b a 17b");
        assert_eq!(tokens("Qwen: Qwen3.5 397B A17B"), "qwen 3.5 397b a 17b");
        assert_eq!(
            tokens("qwen/qwen-2.5-72b-instruct"),
            "qwen 2.5 72b instruct"
        );
        assert_eq!(tokens("qwen2-5-72b-instruct"), "qwen 2.5 72b instruct");
        assert_eq!(tokens("qwen3-8-2-4t-a95b"), "qwen 3.8 2.4t a 95b");
        assert_eq!(tokens("lfm2-5-1-2b-instruct"), "lfm 2.5 1.2b instruct");
        assert_eq!(tokens("llama-3-8b"), "llama 3 8b");
        assert_eq!(tokens("granite-4-0-h-micro"), "granite 4 h micro");
        assert_eq!(tokens("grok-4-20-0309"), "grok 4.20");
    }

    #[test]
    fn dates_in_every_encoding_are_found_and_removed() {
        let day = |y, m, d| DateCode::day(y, m, d);
        let cases = [
            ("claude-opus-4-5-20251101", day(2025, 11, 1)),
            ("gpt-5.1-2025-11-13-high", day(2025, 11, 13)),
            ("GPT-4o (2024-05-13)", day(2024, 5, 13)),
        ];
        for (name, expected) in cases {
            assert_eq!(parse_name(name).date, expected, "{name}");
        }
        let month = |year, month| Some(DateCode::Month { year, month });
        assert_eq!(
            parse_name("gemini-3-pro-preview-11-2025-high").date,
            month(2025, 11)
        );
        assert_eq!(parse_name("mistral-medium-2508").date, month(2025, 8));
        assert_eq!(parse_name("DeepSeek R1 (Jan '25)").date, month(2025, 1));
        assert_eq!(
            parse_name("Gemini 2.5 Pro Preview (May' 25)").date,
            month(2025, 5)
        );
        let md = |month, day| Some(DateCode::MonthDay { month, day });
        assert_eq!(parse_name("grok-4-0709").date, md(7, 9));
        assert_eq!(parse_name("qwen/qwen3-235b-a22b-07-25").date, md(7, 25));
        assert_eq!(parse_name("r1-1776").date, None);
        assert_eq!(tokens("r1-1776"), "r 1 1776");
        assert_eq!(
            tokens("gemini-3-pro-preview-11-2025-high"),
            "gemini 3 pro preview high"
        );
    }

    #[test]
    fn mode_runs_strip_one_unit_at_a_time() {
        let parts = parse_name("claude-opus-4-5-20251101-thinking-64k-high-effort");
        assert_eq!(
            ordered_key(&parts.tokens),
            "claude opus 4.5 thinking 64k high effort"
        );
        assert_eq!(parts.strip_points, vec![5, 4, 3]);
        assert_eq!(ordered_key(parts.base_tokens()), "claude opus 4.5");
        assert_eq!(parts.reasoning, Some(true));
        let codex = parse_name("gpt-5.1-codex-max-high");
        assert_eq!(ordered_key(codex.base_tokens()), "gpt 5.1 codex max");
        assert_eq!(
            parse_name("gpt-5.1-2025-11-13-nothinking").reasoning,
            Some(false)
        );
        assert_eq!(
            parse_name("DeepSeek V3.2 (Non-reasoning)").reasoning,
            Some(false)
        );
        assert_eq!(
            parse_name("Claude 4.5 Sonnet (Reasoning)").reasoning,
            Some(true)
        );
        assert!(!parse_name("qwen3-max").has_mode_run());
    }

    #[test]
    fn word_order_and_loose_keys() {
        let a = parse_name("anthropic/claude-4.5-opus-20251124");
        let b = parse_name("Anthropic: Claude Opus 4.5");
        assert_eq!(bag_key(&a.tokens), bag_key(&b.tokens));
        assert_ne!(
            bag_key(&parse_name("gpt-4.5").tokens),
            bag_key(&parse_name("gpt-5.4").tokens)
        );
        let it = parse_name("google/gemma-3-27b-it");
        let instruct = parse_name("Gemma 3 27B Instruct");
        assert_eq!(loose_key(&it.tokens), loose_key(&instruct.tokens));
        assert_eq!(loose_key(&parse_name("gpt-5").tokens), None);
    }

    #[test]
    fn vendor_prefixes_are_split_off() {
        assert_eq!(
            parse_name("DeepSeek: R1").vendor.as_deref(),
            Some("deepseek")
        );
        assert_eq!(
            parse_name("~anthropic/claude-opus-latest")
                .vendor
                .as_deref(),
            Some("anthropic")
        );
        assert_eq!(tokens("openai/gpt-4o-mini:free"), "gpt 4o mini");
        assert_eq!(
            tokens("Llama 3.2 Instruct 90B (Vision)"),
            "llama 3.2 instruct 90b vision"
        );
        assert_eq!(tokens("Command R+ (08-2024)"), "command r plus");
    }
}
