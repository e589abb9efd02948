//! "Did you mean …": the closest known name to an unknown one.
//!
//! Distance is the optimal-string-alignment variant of Damerau–Levenshtein (insertions,
//! deletions, substitutions and adjacent transpositions each cost 1), computed on
//! characters. A candidate is suggested when its distance to the query is small for the
//! query's length, or when one is a prefix of the other (`backend` → `backend-engineer`).
//! Ties break on the shorter name, then on the name itself, so suggestions are
//! deterministic.

/// Edit distance between `a` and `b` (optimal string alignment).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() {
        return b.len();
    }
    if b.is_empty() {
        return a.len();
    }
    let width = b.len() + 1;
    // Three rolling rows: two back (for transpositions), previous and current.
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current: Vec<usize> = vec![0; width];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// Largest distance still worth suggesting for a query of `len` characters.
fn max_distance(len: usize) -> usize {
    match len {
        0 | 1 => 0,
        _ => len.div_ceil(3).min(4),
    }
}

/// The closest candidate to `query`. Each candidate is `(value, names)`: `value` is what gets
/// suggested (an id), `names` are the spellings compared with the query (id, title,
/// aliases), compared case-insensitively.
pub fn closest<'a, I, N>(query: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = (&'a str, N)>,
    N: IntoIterator<Item = &'a str>,
{
    let query = query.to_lowercase();
    let query_len = query.chars().count();
    if query_len == 0 {
        return None;
    }
    let limit = max_distance(query_len);
    // (score, value length, value): lower is better.
    let mut best: Option<(usize, usize, &'a str)> = None;
    for (value, names) in candidates {
        let mut score: Option<usize> = None;
        for name in names {
            let name = name.to_lowercase();
            let distance = edit_distance(&query, &name);
            let candidate_score = if distance <= limit {
                Some(distance)
            } else if query_len >= 3 && (name.starts_with(&query) || query.starts_with(&name)) {
                // A prefix match is weaker evidence than a small typo.
                Some(limit + 1)
            } else {
                None
            };
            score = match (score, candidate_score) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        if let Some(score) = score {
            let key = (score, value.chars().count(), value);
            if best.is_none_or(|current| key < current) {
                best = Some(key);
            }
        }
    }
    best.map(|(_, _, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_transpositions() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ruts", "rust"), 1);
        assert_eq!(edit_distance("postgresql", "postgresql"), 0);
        assert_eq!(edit_distance("日本", "日本語"), 1);
    }

    fn ids<'a>(list: &'a [&'a str]) -> Vec<(&'a str, Vec<&'a str>)> {
        list.iter().map(|id| (*id, vec![*id])).collect()
    }

    #[test]
    fn suggests_the_nearest_typo() {
        let list = ["backend-engineer", "frontend-engineer", "sre"];
        assert_eq!(
            closest("backend-enginer", ids(&list)),
            Some("backend-engineer")
        );
        assert_eq!(
            closest("frontend-engeneer", ids(&list)),
            Some("frontend-engineer")
        );
    }

    #[test]
    fn suggests_by_prefix_and_by_alternative_names() {
        let list = ["backend-engineer", "frontend-engineer"];
        assert_eq!(closest("backend", ids(&list)), Some("backend-engineer"));
        let aliased = vec![("postgresql", vec!["postgresql", "postgres", "pg"])];
        assert_eq!(closest("postgress", aliased), Some("postgresql"));
    }

    #[test]
    fn far_names_get_no_suggestion() {
        let list = ["rust", "python", "go"];
        assert_eq!(closest("haskell", ids(&list)), None);
        assert_eq!(closest("", ids(&list)), None);
    }

    #[test]
    fn ties_break_deterministically() {
        // "ab" is one edit from both; the shorter, then the smaller, wins.
        let list = ["ac", "aab", "ad"];
        assert_eq!(closest("ab", ids(&list)), Some("ac"));
    }
}
