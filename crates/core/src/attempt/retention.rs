//! What the sweep keeps: an attempt's worktree (and `switchyard/<id>` branch) and the log of its
//! detached process, given its state, when it ended and the retention setting.
//!
//! Worktrees of attempts that are live, awaiting review or approved-but-not-integrated are
//! always kept. Integrated and rejected attempts gave theirs up at once (a superseded one hands
//! its worktree to the revision that continues in it). Attempts that ended without integrating
//! — failed, canceled, interrupted and never recovered — keep theirs for the retention, so the
//! user can look at what the worker did, then lose them at the next sweep.

use super::AttemptState;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Whether `age_ms` is still within `retention_days` (0 days: nothing is).
pub fn within(age_ms: i64, retention_days: u32) -> bool {
    age_ms < i64::from(retention_days).saturating_mul(DAY_MS)
}

/// Whether the sweep keeps the worktree of an attempt in `state` that last changed (ended,
/// for a final one) at `ended_ms`, at time `now_ms`.
pub fn keeps_worktree(
    state: AttemptState,
    ended_ms: i64,
    now_ms: i64,
    retention_days: u32,
) -> bool {
    use AttemptState::*;
    match state {
        Queued | Preparing | Running | Verifying | Review | Approved => true,
        Integrated | Rejected | Superseded => false,
        Failed | Canceled | Interrupted => within(now_ms.saturating_sub(ended_ms), retention_days),
    }
}

/// Whether the sweep keeps the log of an attempt's detached process: always while the attempt
/// is live (its process is writing it), otherwise for the retention after it last changed.
pub fn keeps_log(state: AttemptState, ended_ms: i64, now_ms: i64, retention_days: u32) -> bool {
    state.is_live() || within(now_ms.saturating_sub(ended_ms), retention_days)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 100 * DAY_MS;

    #[test]
    fn review_and_live_worktrees_are_kept_whatever_their_age() {
        for state in [
            AttemptState::Queued,
            AttemptState::Running,
            AttemptState::Verifying,
            AttemptState::Review,
            AttemptState::Approved,
        ] {
            assert!(keeps_worktree(state, 0, NOW, 0), "{state:?}");
        }
    }

    #[test]
    fn decided_attempts_never_keep_a_worktree() {
        for state in [
            AttemptState::Integrated,
            AttemptState::Rejected,
            AttemptState::Superseded,
        ] {
            assert!(!keeps_worktree(state, NOW, NOW, 7), "{state:?}");
        }
    }

    #[test]
    fn attempts_that_ended_without_integrating_keep_theirs_for_the_retention() {
        for state in [
            AttemptState::Failed,
            AttemptState::Canceled,
            AttemptState::Interrupted,
        ] {
            assert!(keeps_worktree(state, NOW - 6 * DAY_MS, NOW, 7), "{state:?}");
            assert!(
                keeps_worktree(state, NOW - 7 * DAY_MS + 1, NOW, 7),
                "{state:?}"
            );
            assert!(
                !keeps_worktree(state, NOW - 7 * DAY_MS, NOW, 7),
                "{state:?}"
            );
            assert!(
                !keeps_worktree(state, NOW, NOW, 0),
                "0 days: the next sweep"
            );
        }
    }

    #[test]
    fn logs_stay_while_live_then_for_the_retention() {
        assert!(keeps_log(AttemptState::Running, 0, NOW, 0));
        assert!(keeps_log(AttemptState::Review, NOW - DAY_MS, NOW, 7));
        assert!(!keeps_log(AttemptState::Review, NOW - 8 * DAY_MS, NOW, 7));
        assert!(!keeps_log(AttemptState::Integrated, NOW, NOW, 0));
    }
}
