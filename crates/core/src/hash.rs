//! A small non-cryptographic hasher (rustc's `FxHash`) for the catalog's and the router's maps.
//!
//! Keys are short names, lowercase words and model ids from our own data and catalog, never
//! attacker-chosen at scale, so SipHash's flooding resistance is not needed; its cost showed in
//! the catalog refresh profile and would dominate the per-task classification budget.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate hash used by rustc.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ (rest.len() as u64) << 56);
        }
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FxHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with [`FxHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_different_keys_differ() {
        let hash = |text: &str| {
            let mut hasher = FxHasher::default();
            hasher.write(text.as_bytes());
            hasher.finish()
        };
        assert_eq!(hash("postgresql"), hash("postgresql"));
        assert_ne!(hash("postgresql"), hash("postgresqm"));
        assert_ne!(hash("a"), hash("b"));
        let mut map: FastMap<String, u32> = FastMap::default();
        map.insert("rust".into(), 1);
        assert_eq!(map.get("rust"), Some(&1));
        assert_eq!(map.get("rusty"), None);
    }
}
