//! The feature table: feature hash → row (for its name) and weights, in one map so a hit
//! reads the weights where it finds the row (the scorer does about a thousand lookups per
//! long task, half of them for features the model does not know).

use crate::hash::FastMap;

use super::CLASSES;

/// Feature hash → row and weights.
#[derive(Debug, Clone, Default)]
pub(crate) struct FeatureTable {
    map: FastMap<u64, (u32, [f32; CLASSES])>,
}

impl FeatureTable {
    /// An empty table with room for `count` features.
    pub(crate) fn with_capacity(count: usize) -> FeatureTable {
        let mut map = FastMap::default();
        map.reserve(count);
        FeatureTable { map }
    }

    /// Adds a feature; `false` when the hash is taken (a duplicate or a collision).
    pub(crate) fn insert(&mut self, hash: u64, row: u32, weights: [f32; CLASSES]) -> bool {
        match self.map.entry(hash) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert((row, weights));
                true
            }
        }
    }

    /// The row and weights of the feature with this hash.
    #[inline]
    pub(crate) fn get(&self, hash: u64) -> Option<(u32, &[f32; CLASSES])> {
        self.map.get(&hash).map(|(row, weights)| (*row, weights))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_refuses_a_second_hash() {
        let mut table = FeatureTable::with_capacity(3);
        assert!(table.insert(0x10, 0, [1.0; CLASSES]));
        assert!(table.insert(0x1_0000_0010, 1, [2.0; CLASSES]));
        assert!(!table.insert(0x10, 2, [3.0; CLASSES]), "taken");
        assert_eq!(table.get(0x10).map(|(row, w)| (row, w[0])), Some((0, 1.0)));
        assert_eq!(
            table.get(0x1_0000_0010).map(|(row, w)| (row, w[0])),
            Some((1, 2.0))
        );
        assert!(table.get(0x11).is_none());
    }
}
