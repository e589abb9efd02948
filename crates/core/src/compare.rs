//! How many things one side-by-side comparison takes: the engine refuses other sizes, the CLI
//! checks them before it opens anything, and the UI reads the same values from the bindings.

use serde::Serialize;
use specta::Type;

/// The fewest and most members of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
pub struct CompareSize {
    pub min: u32,
    pub max: u32,
}

impl CompareSize {
    /// Whether a group of `members` is in range.
    pub fn admits(self, members: usize) -> bool {
        u32::try_from(members).is_ok_and(|n| (self.min..=self.max).contains(&n))
    }
}

/// Workers in one compare group (an attempt group, a code collective's members).
pub const COMPARE_WORKERS: CompareSize = CompareSize { min: 2, max: 5 };

/// Catalog models compared side by side (the Models page, `switchyard compare`).
pub const COMPARE_MODELS: CompareSize = CompareSize { min: 2, max: 5 };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_only_its_range() {
        assert!(!COMPARE_WORKERS.admits(1));
        assert!(COMPARE_WORKERS.admits(2));
        assert!(COMPARE_WORKERS.admits(5));
        assert!(!COMPARE_WORKERS.admits(6));
        assert!(!COMPARE_MODELS.admits(0));
    }
}
