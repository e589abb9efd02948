//! Script facts and the token estimate every crate uses: one [`is_cjk`], one
//! [`estimate_tokens`].
//!
//! **Which characters are CJK.** [`is_cjk`] answers "is this a letter of a script whose words
//! are not separated by spaces in a way our word tokenizer can use", i.e. the characters the
//! routing tokenizer gathers into runs and matches phrases inside, and that tokenizers spend
//! about one token on each. It covers, per the Unicode 16 block list:
//! - Han: CJK Unified Ideographs and every extension (A, B–F, G, H, I), the compatibility
//!   ideographs and their supplement, the radicals (CJK Radicals Supplement, Kangxi), and the
//!   ideographic letters of CJK Symbols and Punctuation (`々 〆 〇`, Hangzhou numerals, kana
//!   repeat marks);
//! - kana: Hiragana, Katakana, Katakana Phonetic Extensions, half-width katakana, and the
//!   historic and small kana of the Kana Supplement / Extended blocks;
//! - Bopomofo and Bopomofo Extended;
//! - Hangul: syllables, Jamo (and Extended-A/B), compatibility Jamo and half-width Hangul.
//!
//! Kana are in because Japanese puts no spaces between words. Hangul is in although Korean
//! does put spaces between words: it glues particles to nouns (`코드를` = code + object
//! marker), so a lexicon phrase must be found *inside* a run, exactly as for Chinese, and
//! tokenizers spend about a token per syllable.
//!
//! Punctuation is not a letter: CJK punctuation (`，。「」`) and full-width forms split runs.
//! The estimate still counts them as one token each ([`is_fullwidth_symbol`]).
//!
//! **The token estimate.** Tokenizer-free, counted in quarter tokens so that the arithmetic
//! is exact and deterministic:
//! - ASCII (English prose, code, punctuation, whitespace): 1/4 token per character — the
//!   usual "four characters per token" of BPE tokenizers on English text and code;
//! - CJK letters ([`is_cjk`]) and CJK punctuation / full-width forms: 1 token per character
//!   — these scripts are denser and current tokenizers spend roughly one token per character;
//! - other characters outside the Basic Multilingual Plane (emoji, symbols): 2 tokens each
//!   (they are split into several byte-level tokens);
//! - every other character (accented Latin, Cyrillic, Greek, Arabic, …): 1/2 token.
//!
//! The sum is rounded up; any non-empty text is at least one token. Expect an error of about
//! ±20% against real tokenizers: good for budget previews, context-window checks and usage
//! a provider did not report (always flagged estimated), not for billing.

/// Whether `c` is a CJK letter: Han (every extension), kana, Bopomofo or Hangul. See the
/// module documentation for the exact set and why kana and Hangul are in.
#[inline]
pub fn is_cjk(c: char) -> bool {
    let code = u32::from(c);
    if code < 0x1100 {
        // Everything below Hangul Jamo (ASCII, Latin, Greek, Cyrillic, …) in one comparison:
        // the tokenizer asks this for every character of every task.
        return false;
    }
    matches!(code,
        0x1100..=0x11FF       // Hangul Jamo
        | 0x2E80..=0x2FDF     // CJK Radicals Supplement, Kangxi Radicals
        | 0x3005..=0x3007     // 々 〆 〇
        | 0x3021..=0x3029     // Hangzhou numerals
        | 0x3031..=0x3035     // kana repeat marks
        | 0x3038..=0x303C     // Hangzhou numerals 10–30, 〻 〼
        | 0x3041..=0x3096     // Hiragana
        | 0x3099..=0x309F     // kana voicing marks, Hiragana iteration marks, ゟ
        | 0x30A1..=0x30FA     // Katakana
        | 0x30FC..=0x30FF     // ー and Katakana iteration marks, ヿ (not the ・ middle dot)
        | 0x3105..=0x312F     // Bopomofo
        | 0x3131..=0x318E     // Hangul Compatibility Jamo
        | 0x31A0..=0x31BF     // Bopomofo Extended
        | 0x31F0..=0x31FF     // Katakana Phonetic Extensions
        | 0x3400..=0x4DBF     // CJK Extension A
        | 0x4E00..=0x9FFF     // CJK Unified Ideographs
        | 0xA960..=0xA97F     // Hangul Jamo Extended-A
        | 0xAC00..=0xD7AF     // Hangul Syllables
        | 0xD7B0..=0xD7FF     // Hangul Jamo Extended-B
        | 0xF900..=0xFAFF     // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F     // half-width katakana
        | 0xFFA0..=0xFFDC     // half-width Hangul
        | 0x1AFF0..=0x1B16F   // Kana Extended-B, Kana Supplement, Extended-A, Small Kana
        | 0x20000..=0x2FA1F   // CJK Extensions B–F, I, Compatibility Ideographs Supplement
        | 0x30000..=0x323AF   // CJK Extensions G, H
    )
}

/// Whether `c` is CJK punctuation or a full-width form: not a letter (it splits CJK runs), but
/// a token of its own to a tokenizer.
#[inline]
pub fn is_fullwidth_symbol(c: char) -> bool {
    matches!(u32::from(c), 0x3000..=0x303F | 0x30FB | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF)
}

/// Estimated number of tokens `text` costs a typical LLM tokenizer (see the module
/// documentation for the formula). Saturates at `u32::MAX`.
pub fn estimate_tokens(text: &str) -> u32 {
    let quarters: u64 = text.chars().map(quarter_tokens).sum();
    u32::try_from(quarters.div_ceil(4)).unwrap_or(u32::MAX)
}

fn quarter_tokens(c: char) -> u64 {
    if c.is_ascii() {
        1
    } else if is_cjk(c) || is_fullwidth_symbol(c) {
        4
    } else if u32::from(c) >= 0x1_0000 {
        8
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_zero_and_short_text_is_at_least_one() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("a"), 1);
    }

    #[test]
    fn ascii_is_four_characters_per_token() {
        assert_eq!(estimate_tokens(&"x".repeat(400)), 100);
        assert_eq!(estimate_tokens(&"x".repeat(401)), 101);
    }

    #[test]
    fn cjk_costs_about_one_token_per_character() {
        let japanese = "データベースの移行を書いてください";
        assert_eq!(estimate_tokens(japanese), japanese.chars().count() as u32);
        let chinese = "请为这个函数编写单元测试";
        // The same number of characters in English would be 4x cheaper.
        assert_eq!(
            estimate_tokens(chinese),
            4 * estimate_tokens(&"x".repeat(chinese.chars().count()))
        );
        assert_eq!(estimate_tokens("코드를 고쳐"), 5 + 1);
        assert_eq!(estimate_tokens("你好，世界。"), 6);
    }

    #[test]
    fn other_scripts_and_emoji_sit_between() {
        assert_eq!(estimate_tokens("привет"), 3);
        assert_eq!(estimate_tokens("ééééé"), 3);
        assert_eq!(estimate_tokens("🚀🚀"), 4);
    }

    #[test]
    fn cjk_extension_b_and_later_ideographs_count_as_cjk() {
        // Extension B (𠀀), E (𫠠), G (𰀀), H (𱍐), I (𮯰): rare names and place names.
        for c in [
            '\u{20000}',
            '\u{2B820}',
            '\u{30000}',
            '\u{31350}',
            '\u{2EBF0}',
        ] {
            assert!(is_cjk(c), "U+{:X} is a Han ideograph", u32::from(c));
            assert_eq!(estimate_tokens(&c.to_string()), 1, "U+{:X}", u32::from(c));
        }
        // An emoji beyond the BMP is not CJK and costs two tokens.
        assert!(!is_cjk('🚀'));
    }

    #[test]
    fn kana_hangul_and_bopomofo_are_cjk_but_punctuation_is_not() {
        for c in [
            'あ', 'カ', 'ｶ', 'ー', '々', 'ㄅ', '한', 'ᄀ', 'ㄱ', 'ﾡ', '⺀',
        ] {
            assert!(is_cjk(c), "{c} U+{:X}", u32::from(c));
        }
        for c in ['，', '。', '「', '・', '　', 'Ａ', 'a', 'é', 'я', '1'] {
            assert!(!is_cjk(c), "{c} U+{:X}", u32::from(c));
        }
        assert!(is_fullwidth_symbol('，') && is_fullwidth_symbol('。'));
        assert!(!is_fullwidth_symbol('あ'));
    }

    #[test]
    fn routing_reads_a_long_paste_with_the_roles_and_providers_estimate() {
        use crate::routing::{classify, ANSWER_RESERVE_TOKENS};
        // Cyrillic: 1/2 token a letter here, where routing once counted 1/4 and providers
        // 1/4, so the three disagreed by a factor of two on whether a paste is long.
        let paste = "Пожалуйста, проверь этот длинный текст. ".repeat(2_000);
        let estimate = estimate_tokens(&paste);
        assert_eq!(crate::roles::estimate_tokens(&paste), estimate);
        assert_eq!(crate::providers::estimate_tokens(&paste), estimate);
        assert_eq!(
            classify(&paste).signals.needs.long_context,
            Some(estimate + ANSWER_RESERVE_TOKENS)
        );
    }
}
