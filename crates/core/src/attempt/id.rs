//! Attempt ids: short, time-ordered, safe as a branch name and a folder name.

/// A new id from the current time and a random number: 11 hex digits of milliseconds (good
/// until the year 2527) then 6 of randomness, so ids sort by creation.
pub fn new_attempt_id(now_ms: u64, random: u32) -> String {
    format!("{:011x}{:06x}", now_ms, random & 0x00ff_ffff)
}

/// Whether `id` could be an attempt id: what the worktree and branch names accept.
pub fn valid_attempt_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_are_valid() {
        let a = new_attempt_id(1_764_633_600_000, 0xffff_ffff);
        let b = new_attempt_id(1_764_633_600_001, 0);
        assert!(a < b, "{a} {b}");
        assert_eq!(a.len(), 17);
        assert!(valid_attempt_id(&a));
        assert!(!valid_attempt_id("../x"));
        assert!(!valid_attempt_id(""));
    }
}
