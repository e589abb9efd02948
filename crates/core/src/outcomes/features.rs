//! What the failure predictor sees of a prompt: its words and word pairs (hashed, weighted by
//! TF-IDF and normalized to unit length) and a few shape facts (length, digits, lines) that
//! say how hard a prompt looks before anyone reads it.

use std::collections::HashMap;

/// Feature space size: collisions among 2^20 buckets are rare at tens of thousands of
/// prompts.
pub const BUCKETS: u32 = 1 << 20;

/// A sparse vector: sorted, unique bucket indices with their weights.
pub type Sparse = Vec<(u32, f32)>;

/// Counts of every feature of one prompt, before weighting.
pub fn raw_features(prompt: &str) -> HashMap<u32, f32> {
    let mut counts: HashMap<u32, f32> = HashMap::new();
    let mut add = |name: &[u8], salt: u64| {
        *counts.entry(bucket(name, salt)).or_default() += 1.0;
    };
    let words = words(prompt);
    for word in &words {
        add(word.as_bytes(), 1);
    }
    for pair in words.windows(2) {
        add(format!("{} {}", pair[0], pair[1]).as_bytes(), 2);
    }
    for (name, value) in shape(prompt) {
        add(format!("{name}={value}").as_bytes(), 3);
    }
    counts
}

/// Lowercased runs of letters and digits; each CJK character is a word of its own.
fn words(prompt: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in prompt.chars() {
        if crate::text::is_cjk(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            words.push(c.to_string());
        } else if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// How many dense shape facts [`shape_facts`] gives.
pub const SHAPE_FACTS: usize = 5;

/// A prompt's size and numbers on a log scale: how long and how numeric a task is says
/// much about how hard it is, whatever its words.
pub fn shape_facts(prompt: &str) -> [f32; SHAPE_FACTS] {
    let chars = prompt.chars().count();
    let words = words(prompt).len();
    let digits = prompt.chars().filter(char::is_ascii_digit).count();
    let lines = prompt.lines().count();
    let numbers = numbers(prompt);
    [chars, words, digits, lines, numbers].map(|n| (1.0 + n as f32).ln())
}

fn numbers(prompt: &str) -> usize {
    prompt
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter(|part| part.chars().any(|c| c.is_ascii_digit()))
        .count()
}

/// Coarse, log-scaled shape buckets: a long prompt with many numbers reads differently from a
/// short definition question, whatever its words.
fn shape(prompt: &str) -> [(&'static str, u32); 4] {
    let chars = prompt.chars().count();
    let digits = prompt.chars().filter(char::is_ascii_digit).count();
    let lines = prompt.lines().count();
    let numbers = numbers(prompt);
    let log2 = |n: usize| usize::BITS - n.leading_zeros();
    [
        ("chars", log2(chars)),
        ("digits", log2(digits)),
        ("lines", log2(lines)),
        ("numbers", log2(numbers)),
    ]
}

fn bucket(name: &[u8], salt: u64) -> u32 {
    // FNV-1a: stable across builds and platforms, so a fitted model means the same tomorrow.
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ salt.wrapping_mul(0x100_0000_01b3);
    for &byte in name {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x100_0000_01b3);
    }
    (hash % u64::from(BUCKETS)) as u32
}

/// Inverse document frequencies learned from the training prompts.
#[derive(Debug, Clone, Default)]
pub struct Idf {
    weights: HashMap<u32, f32>,
}

impl Idf {
    pub fn fit<'a>(documents: impl IntoIterator<Item = &'a HashMap<u32, f32>>) -> Idf {
        let mut frequency: HashMap<u32, u32> = HashMap::new();
        let mut n = 0_u32;
        for document in documents {
            n += 1;
            for &feature in document.keys() {
                *frequency.entry(feature).or_default() += 1;
            }
        }
        let idf = |df: u32| ((1.0 + n as f32) / (1.0 + df as f32)).ln() + 1.0;
        Idf {
            weights: frequency
                .into_iter()
                .map(|(feature, df)| (feature, idf(df)))
                .collect(),
        }
    }

    /// Sublinear TF × IDF, unit length. Features never seen in training carry no weight:
    /// nothing learned can use them, and they would only shrink the rest.
    pub fn weigh(&self, counts: &HashMap<u32, f32>) -> Sparse {
        let mut vector: Sparse = counts
            .iter()
            .filter_map(|(&feature, &count)| {
                self.weights
                    .get(&feature)
                    .map(|idf| (feature, (1.0 + count.ln()) * idf))
            })
            .collect();
        vector.sort_unstable_by_key(|&(feature, _)| feature);
        let norm = vector.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, weight) in &mut vector {
                *weight /= norm;
            }
        }
        vector
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_cjk_is_split_per_character() {
        assert_eq!(
            words("Hello, World42! 你好"),
            ["hello", "world42", "你", "好"]
        );
    }

    #[test]
    fn weighted_vectors_have_unit_length_and_drop_unseen_features() {
        let train = [raw_features("a cat sat"), raw_features("a dog ran")];
        let idf = Idf::fit(&train);
        let vector = idf.weigh(&raw_features("a cat flew"));
        let norm: f32 = vector.iter().map(|(_, w)| w * w).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        assert!(!vector.iter().any(|&(f, _)| f == bucket(b"flew", 1)));
        assert!(vector.iter().any(|&(f, _)| f == bucket(b"cat", 1)));
    }
}
