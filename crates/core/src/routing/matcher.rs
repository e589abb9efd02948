//! Compiled term sets: whole words, multi-word phrases and CJK phrases, matched
//! leftmost-longest over [`Tokens`] in one pass.
//!
//! Words only ever match whole tokens ("capital" never matches `api`, "improve" never `pr`);
//! a plural in the text falls back to its singular when only the singular is a known word
//! (`tests` → `test`, `queries` → `query`). CJK terms match as substrings of CJK runs,
//! longest first, without overlapping.

use crate::hash::FastMap;

use super::error::RoutingError;
use super::text::{TokenKind, Tokens};

/// A term that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TermError {
    /// The term has no letters, digits or CJK characters.
    #[error("empty term {0:?}")]
    Empty(String),
    /// The term mixes CJK and other words (`json格式`); list the parts separately.
    #[error("term {0:?} mixes CJK and other words; list its parts as separate terms")]
    Mixed(String),
}

/// The canonical form of a term: lowercase words joined by one space, or the CJK run.
pub(crate) fn normalize_term(term: &str) -> Result<String, TermError> {
    let tokens = Tokens::new(term);
    match tokens.tokens.as_slice() {
        [] => Err(TermError::Empty(term.to_owned())),
        [only] if only.kind == TokenKind::Cjk => Ok(tokens.text(*only).to_owned()),
        all if all.iter().all(|t| t.kind != TokenKind::Cjk) => Ok(all
            .iter()
            .map(|t| tokens.text(*t))
            .collect::<Vec<_>>()
            .join(" ")),
        _ => Err(TermError::Mixed(term.to_owned())),
    }
}

/// Words ending in `s` that are not plurals of a shorter word we might know.
const NOT_PLURAL: [&str; 8] = ["its", "this", "his", "has", "was", "does", "goes", "yes"];

/// Singular candidates of an English word, tried only when the word itself is unknown:
/// `apis` → `api`, `classes` → `class`, `boxes` → `box`.
fn singulars(word: &str) -> [Option<&str>; 2] {
    let len = word.len();
    let plain_s =
        len >= 3 && word.ends_with('s') && !word.ends_with("ss") && !NOT_PLURAL.contains(&word);
    let es = ["ses", "xes", "zes", "ches", "shes"]
        .iter()
        .any(|end| word.ends_with(end));
    [
        plain_s.then(|| &word[..len - 1]),
        (plain_s && es).then(|| &word[..len - 2]),
    ]
}

/// Phrases starting with one word: (the rest of their word ids, term id), longest first.
type PhraseList = Vec<(Box<[u32]>, u32)>;

/// A set of terms compiled for matching; each term has a dense id in insertion order.
#[derive(Debug, Default, Clone)]
pub(crate) struct TermMatcher {
    vocab: FastMap<Box<str>, u32>,
    /// Per word id: the single-word term it forms, if any.
    word_terms: Vec<Option<u32>>,
    /// Per first word id: phrases (rest of the word ids, term id), longest first.
    phrases: FastMap<u32, PhraseList>,
    /// Per first character: CJK terms (text, term id), longest first.
    cjk: FastMap<char, Vec<(Box<str>, u32)>>,
    by_text: FastMap<Box<str>, u32>,
    texts: Vec<Box<str>>,
}

impl TermMatcher {
    /// Adds `term` (or finds it when an equal term was added before) and returns its id.
    pub fn add(&mut self, term: &str) -> Result<u32, TermError> {
        let key = normalize_term(term)?;
        if let Some(id) = self.by_text.get(key.as_str()) {
            return Ok(*id);
        }
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        let is_cjk = key.chars().next().is_some_and(super::text::is_cjk);
        if is_cjk {
            let first = key.chars().next().unwrap_or_default();
            let list = self.cjk.entry(first).or_default();
            list.push((key.clone().into_boxed_str(), id));
            list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        } else {
            let words: Vec<u32> = key.split(' ').map(|word| self.intern(word)).collect();
            match words.as_slice() {
                [single] => {
                    if let Some(slot) = self.word_terms.get_mut(*single as usize) {
                        *slot = Some(id);
                    }
                }
                [first, rest @ ..] => {
                    let list = self.phrases.entry(*first).or_default();
                    list.push((rest.into(), id));
                    list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
                }
                [] => return Err(TermError::Empty(term.to_owned())),
            }
        }
        self.by_text.insert(key.clone().into_boxed_str(), id);
        self.texts.push(key.into_boxed_str());
        Ok(id)
    }

    fn intern(&mut self, word: &str) -> u32 {
        if let Some(id) = self.vocab.get(word) {
            return *id;
        }
        let id = u32::try_from(self.word_terms.len()).unwrap_or(u32::MAX);
        self.vocab.insert(word.into(), id);
        self.word_terms.push(None);
        id
    }

    /// Number of terms.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// The canonical text of a term.
    pub fn text(&self, term: u32) -> &str {
        self.texts.get(term as usize).map(|t| &**t).unwrap_or("")
    }

    /// The word id of `word`, falling back to its singular when only that is known.
    pub fn word_id(&self, word: &str) -> Option<u32> {
        if let Some(id) = self.vocab.get(word) {
            return Some(*id);
        }
        if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() >= 2) {
            let mut singular = String::with_capacity(stem.len() + 1);
            singular.push_str(stem);
            singular.push('y');
            if let Some(id) = self.vocab.get(singular.as_str()) {
                return Some(*id);
            }
        }
        singulars(word)
            .into_iter()
            .flatten()
            .find_map(|s| self.vocab.get(s).copied())
    }

    #[cfg(test)]
    /// Known words that are plurals of other known words (`docs` next to `doc`): such a
    /// pair splits one concept over two ids, so data files list singulars only.
    pub fn plural_duplicates(&self) -> Vec<String> {
        let mut found: Vec<String> = self
            .vocab
            .keys()
            .filter(|word| {
                singulars(word)
                    .into_iter()
                    .flatten()
                    .any(|s| self.vocab.contains_key(s))
            })
            .map(|word| word.to_string())
            .collect();
        found.sort();
        found
    }

    /// Calls `on_match(term, token_index)` for every match, left to right, longest first,
    /// never overlapping.
    pub fn scan(&self, tokens: &Tokens, mut on_match: impl FnMut(u32, usize)) {
        let ids: Vec<Option<u32>> = tokens
            .tokens
            .iter()
            .map(|t| match t.kind {
                TokenKind::Cjk => None,
                TokenKind::Word | TokenKind::Number => self.word_id(tokens.text(*t)),
            })
            .collect();
        let mut at = 0;
        while at < ids.len() {
            let token = tokens.tokens[at];
            if token.kind == TokenKind::Cjk {
                self.scan_cjk(tokens.text(token), at, &mut on_match);
                at += 1;
                continue;
            }
            let Some(word) = ids[at] else {
                at += 1;
                continue;
            };
            let phrase = self.phrases.get(&word).and_then(|list| {
                list.iter().find(|(rest, _)| {
                    rest.iter()
                        .enumerate()
                        .all(|(offset, want)| ids.get(at + 1 + offset) == Some(&Some(*want)))
                })
            });
            if let Some((rest, term)) = phrase {
                on_match(*term, at);
                at += 1 + rest.len();
            } else {
                if let Some(Some(term)) = self.word_terms.get(word as usize) {
                    on_match(*term, at);
                }
                at += 1;
            }
        }
    }

    fn scan_cjk(&self, run: &str, token: usize, on_match: &mut impl FnMut(u32, usize)) {
        if self.cjk.is_empty() {
            return;
        }
        let mut at = 0;
        while let Some(c) = run.get(at..).and_then(|rest| rest.chars().next()) {
            let rest = &run[at..];
            let hit = self
                .cjk
                .get(&c)
                .and_then(|list| list.iter().find(|(term, _)| rest.starts_with(&**term)));
            match hit {
                Some((term, id)) => {
                    on_match(*id, token);
                    at += term.len();
                }
                None => at += c.len_utf8(),
            }
        }
    }
}

/// The term-table builder both lexicons (classification and planning) use: adds `term` to
/// `matcher` (or finds the equal term added before) and returns the facts slot of its id in
/// `table`, growing `table` with `T::default()` so that ids and slots stay in step.
///
/// # Errors
/// [`RoutingError::Term`] naming `file` when the term cannot be compiled (empty, or mixing
/// CJK with other words).
pub(crate) fn term_slot<'t, T: Default>(
    matcher: &mut TermMatcher,
    table: &'t mut Vec<T>,
    term: &str,
    file: &'static str,
) -> Result<&'t mut T, RoutingError> {
    let id = matcher
        .add(term)
        .map_err(|source| RoutingError::Term { file, source })?;
    let index = id as usize;
    if table.len() <= index {
        table.resize_with(index + 1, T::default);
    }
    table.get_mut(index).ok_or_else(|| RoutingError::Data {
        file,
        message: "term table out of step".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(terms: &[&str]) -> TermMatcher {
        let mut m = TermMatcher::default();
        for term in terms {
            m.add(term).expect("valid test term");
        }
        m
    }

    fn hits(m: &TermMatcher, text: &str) -> Vec<String> {
        let tokens = Tokens::new(text);
        let mut out = Vec::new();
        m.scan(&tokens, |term, _| out.push(m.text(term).to_owned()));
        out
    }

    #[test]
    fn whole_words_only() {
        let m = matcher(&["api", "pr", "ci"]);
        assert!(hits(&m, "The capital will improve; decide quickly").is_empty());
        assert_eq!(
            hits(&m, "Open a PR after CI passes on the API"),
            ["pr", "ci", "api"]
        );
    }

    #[test]
    fn longest_phrase_wins_and_consumes_its_words() {
        let m = matcher(&["test", "unit test", "unit test suite"]);
        assert_eq!(hits(&m, "add unit tests"), ["unit test"]);
        assert_eq!(
            hits(&m, "a unit test suite and a test"),
            ["unit test suite", "test"]
        );
    }

    #[test]
    fn plurals_fall_back_to_known_singulars() {
        let m = matcher(&["query", "schema", "class", "api"]);
        assert_eq!(
            hits(&m, "queries schemas classes APIs"),
            ["query", "schema", "class", "api"]
        );
    }

    #[test]
    fn cjk_terms_match_inside_runs_leftmost_longest() {
        let m = matcher(&["代码", "写代码", "翻译"]);
        assert_eq!(
            hits(&m, "帮我写代码然后翻译这段代码"),
            ["写代码", "翻译", "代码"]
        );
    }

    #[test]
    fn mixed_and_empty_terms_are_rejected() {
        let mut m = TermMatcher::default();
        assert!(matches!(m.add("json格式"), Err(TermError::Mixed(_))));
        assert!(matches!(m.add(" - "), Err(TermError::Empty(_))));
        assert_eq!(
            m.add("Node.js").expect("valid"),
            m.add("node js").expect("valid")
        );
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn plural_duplicates_are_reported() {
        let m = matcher(&["doc", "docs", "test"]);
        assert_eq!(m.plural_duplicates(), ["docs"]);
    }

    #[test]
    fn term_slots_follow_term_ids_and_name_the_file_on_error() {
        let mut m = TermMatcher::default();
        let mut table: Vec<Vec<&str>> = Vec::new();
        term_slot(&mut m, &mut table, "Node.js", "a.json")
            .expect("valid")
            .push("first");
        term_slot(&mut m, &mut table, "unit test", "a.json")
            .expect("valid")
            .push("second");
        // The same term spelled differently lands in the same slot.
        term_slot(&mut m, &mut table, "node js", "a.json")
            .expect("valid")
            .push("again");
        assert_eq!(table, vec![vec!["first", "again"], vec!["second"]]);
        let error = term_slot(&mut m, &mut table, "json格式", "b.json").expect_err("mixed");
        assert!(
            matches!(
                error,
                RoutingError::Term {
                    file: "b.json",
                    source: TermError::Mixed(_)
                }
            ),
            "{error:?}"
        );
        assert_eq!(table.len(), 2);
    }
}
