//! Tokenizing task text once: lowercase words and numbers on word boundaries, and runs of
//! CJK characters (which have no spaces, so the lexicon matches phrases inside them).
//!
//! Which characters form CJK runs is [`crate::text::is_cjk`], the one definition every crate
//! uses.

pub(crate) use crate::text::is_cjk;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// Letters and digits starting with a letter, plus a `++` or `#` suffix (`c++`, `c#`).
    Word,
    /// Digits, with `.`/`,` between digits and letter suffixes kept (`200,000`, `1.5m`, `32k`).
    Number,
    /// A run of Han, kana, Bopomofo or Hangul characters ([`is_cjk`]).
    Cjk,
}

/// One token: its kind and byte range in [`Tokens::lowered`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
}

/// A lowercased text and its tokens.
#[derive(Debug, Clone)]
pub(crate) struct Tokens {
    pub lowered: String,
    pub tokens: Vec<Token>,
}

impl Tokens {
    /// Lowercases `text` once and splits it.
    pub fn new(text: &str) -> Tokens {
        let lowered = if text.is_ascii() {
            text.to_ascii_lowercase()
        } else {
            text.to_lowercase()
        };
        let mut tokens = Vec::with_capacity(lowered.len() / 5 + 1);
        split(&lowered, &mut tokens);
        Tokens { lowered, tokens }
    }

    /// The text of one token.
    #[inline]
    pub fn text(&self, token: Token) -> &str {
        self.lowered
            .get(token.start as usize..token.end as usize)
            .unwrap_or("")
    }
}

#[inline]
fn char_at(text: &str, at: usize) -> Option<char> {
    text.get(at..).and_then(|rest| rest.chars().next())
}

#[inline]
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

fn split(text: &str, out: &mut Vec<Token>) {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut at = 0;
    while at < len {
        let Some(c) = char_at(text, at) else { break };
        let start = at;
        at += c.len_utf8();
        if is_cjk(c) {
            while let Some(next) = char_at(text, at).filter(|next| is_cjk(*next)) {
                at += next.len_utf8();
            }
            push(out, TokenKind::Cjk, start, at);
        } else if is_word_char(c) {
            let numeric = c.is_ascii_digit();
            while let Some(next) = char_at(text, at) {
                if is_word_char(next) {
                    at += next.len_utf8();
                } else if numeric
                    && (next == '.' || next == ',')
                    && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                {
                    at += 1;
                } else {
                    break;
                }
            }
            let ends_here = |end: usize| !char_at(text, end).is_some_and(is_word_char);
            if !numeric {
                if text[at..].starts_with("++") && ends_here(at + 2) {
                    at += 2;
                } else if text[at..].starts_with('#') && ends_here(at + 1) {
                    at += 1;
                }
            }
            let kind = if numeric {
                TokenKind::Number
            } else {
                TokenKind::Word
            };
            push(out, kind, start, at);
        }
    }
}

#[inline]
fn push(out: &mut Vec<Token>, kind: TokenKind, start: usize, end: usize) {
    // Task texts are far below 4 GiB; longer input is cut at the u32 boundary.
    let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(end)) else {
        return;
    };
    out.push(Token { kind, start, end });
}

/// Parses a number token: `200,000` → 200000, `1.5m` → 1_500_000, `32k` → 32000.
/// `None` for anything else (`1,2,3`, `3rd`, `gpt4`).
pub(crate) fn parse_quantity(token: &str) -> Option<f64> {
    let digits_end = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(token.len());
    let (number, suffix) = token.split_at(digits_end);
    let multiplier = match suffix {
        "" => 1.0,
        "k" => 1e3,
        "m" | "mm" => 1e6,
        _ => return None,
    };
    let mut groups = number.split(',');
    let first = groups.next()?;
    let mut plain = String::with_capacity(number.len());
    plain.push_str(first);
    for group in groups {
        // Thousands separators only: `1,2,3` is a list, not a number.
        let whole = group.split('.').next().unwrap_or("");
        if whole.len() != 3 {
            return None;
        }
        plain.push_str(group);
    }
    plain.parse::<f64>().ok().map(|value| value * multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<(TokenKind, String)> {
        let tokens = Tokens::new(text);
        tokens
            .tokens
            .iter()
            .map(|t| (t.kind, tokens.text(*t).to_owned()))
            .collect()
    }

    #[test]
    fn splits_words_on_boundaries_and_keeps_language_suffixes() {
        let got = words("Fix the C++ and C# code; node.js API, capital!");
        let texts: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            ["fix", "the", "c++", "and", "c#", "code", "node", "js", "api", "capital"]
        );
        assert!(got.iter().all(|(kind, _)| *kind == TokenKind::Word));
    }

    #[test]
    fn cjk_runs_are_separate_from_ascii_words() {
        let got = words("用Python写一个API接口，然后测试");
        assert_eq!(
            got,
            vec![
                (TokenKind::Cjk, "用".to_owned()),
                (TokenKind::Word, "python".to_owned()),
                (TokenKind::Cjk, "写一个".to_owned()),
                (TokenKind::Word, "api".to_owned()),
                (TokenKind::Cjk, "接口".to_owned()),
                (TokenKind::Cjk, "然后测试".to_owned()),
            ]
        );
    }

    #[test]
    fn rare_ideographs_and_half_width_kana_join_their_cjk_run() {
        // Extension G (U+30000…) and half-width katakana were word characters here once,
        // which split a Japanese run in two and hid its phrases from the lexicon.
        assert_eq!(
            words("\u{30000}\u{30001}を翻訳"),
            vec![(TokenKind::Cjk, "\u{30000}\u{30001}を翻訳".to_owned())]
        );
        assert_eq!(
            words("ｶﾀｶﾅで書く"),
            vec![(TokenKind::Cjk, "ｶﾀｶﾅで書く".to_owned())]
        );
    }

    #[test]
    fn numbers_keep_separators_and_suffixes() {
        let got = words("read 200,000 tokens or 1.5m chars, 32k context. End 2024.");
        let numbers: Vec<&str> = got
            .iter()
            .filter(|(kind, _)| *kind == TokenKind::Number)
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(numbers, ["200,000", "1.5m", "32k", "2024"]);
    }

    #[test]
    fn quantities_parse_thousands_and_suffixes_only() {
        assert_eq!(parse_quantity("200,000"), Some(200_000.0));
        assert_eq!(parse_quantity("1.5m"), Some(1_500_000.0));
        assert_eq!(parse_quantity("32k"), Some(32_000.0));
        assert_eq!(parse_quantity("12"), Some(12.0));
        assert_eq!(parse_quantity("1,2,3"), None);
        assert_eq!(parse_quantity("3rd"), None);
    }
}
