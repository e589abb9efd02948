//! The review payload for a large change: hunks kept for the first files up to a line budget,
//! the rest deferred and fetched one file at a time from the stored diff.

mod attempts_support;

use attempts_support::{settle, Fixture, FIX};
use switchyard_core::attempt::AttemptState;
use switchyard_core::error::ErrorCode;

#[tokio::test]
async fn a_budgeted_review_defers_later_files_and_each_loads_whole_by_path() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // The fix (calc.sh, 2 lines) and two generated files of 300 lines each, after it by path.
    let worker = fx.worker(
        "big",
        &format!("{FIX} seq 1 300 > gen_a.txt\nseq 1 300 > gen_b.txt\n"),
    );
    let started = engine
        .start_attempt(fx.request(&worker), "cli")
        .await
        .expect("start");
    let full = settle(&engine, &started.id).await;
    assert_eq!(full.summary.state, AttemptState::Review, "{full:?}");
    let full_diff = full.diff.clone().expect("diff");
    let paths: Vec<&str> = full_diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["calc.sh", "gen_a.txt", "gen_b.txt"]);
    assert!(full_diff
        .files
        .iter()
        .all(|f| !f.hunks_deferred && !f.hunks.is_empty()));

    // A budget that fits calc.sh and gen_a.txt but not gen_b.txt.
    let budgeted = engine
        .attempt_review_budgeted(&started.id, 400)
        .await
        .expect("budgeted");
    let diff = budgeted.diff.expect("diff");
    assert_eq!(diff.sha256, full_diff.sha256);
    assert_eq!(
        (diff.additions, diff.deletions),
        (full_diff.additions, full_diff.deletions)
    );
    let kept: Vec<(bool, usize, u32)> = diff
        .files
        .iter()
        .map(|f| (f.hunks_deferred, f.line_count(), f.additions))
        .collect();
    assert_eq!(
        kept,
        [
            (false, full_diff.files[0].line_count(), 1),
            (false, 300, 300),
            (true, 0, 300)
        ]
    );

    // The deferred file comes back whole, identical to the full review's.
    let one = engine
        .attempt_file_diff(&started.id, "gen_b.txt")
        .await
        .expect("file diff");
    assert_eq!(one, full_diff.files[2]);
    assert_eq!(one.line_count(), 300);

    // A path the attempt did not change, and an unknown attempt: not found.
    let err = engine
        .attempt_file_diff(&started.id, "nope.txt")
        .await
        .expect_err("unknown path");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    let err = engine
        .attempt_file_diff("no-such-attempt", "calc.sh")
        .await
        .expect_err("unknown attempt");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");

    // The JSON of a file that is not deferred has no `hunksDeferred` (the stored shape).
    let json = serde_json::to_value(&one).expect("json");
    assert!(json.get("hunksDeferred").is_none(), "{json}");
}
