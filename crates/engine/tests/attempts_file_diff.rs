//! The review payload for a large change: hunks kept for the first files up to a line budget,
//! the rest deferred and fetched one file at a time from the stored diff, for the diff against
//! the base and a revision's diff against the previous attempt alike.

mod attempts_support;

use attempts_support::{settle, Fixture, FIX};
use switchyard_core::attempt::{AttemptState, DiffAgainst};
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
        .attempt_file_diff(&started.id, "gen_b.txt", DiffAgainst::Base)
        .await
        .expect("file diff");
    assert_eq!(one, full_diff.files[2]);
    assert_eq!(one.line_count(), 300);

    // A path the attempt did not change, and an unknown attempt: not found.
    let err = engine
        .attempt_file_diff(&started.id, "nope.txt", DiffAgainst::Base)
        .await
        .expect_err("unknown path");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    let err = engine
        .attempt_file_diff("no-such-attempt", "calc.sh", DiffAgainst::Base)
        .await
        .expect_err("unknown attempt");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");

    // The JSON of a file that is not deferred has no `hunksDeferred` (the stored shape).
    let json = serde_json::to_value(&one).expect("json");
    assert!(json.get("hunksDeferred").is_none(), "{json}");
}

#[tokio::test]
async fn a_revisions_diff_against_the_previous_attempt_is_budgeted_and_fetched_the_same_way() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    // First attempt: the fix and gen_a.txt. The revision (its prompt carries the review
    // comments) adds gen_b.txt and gen_c.txt, 300 lines each.
    let worker = fx.worker(
        "revise",
        &format!(
            "if printf '%s' \"$SWITCHYARD_TASK\" | grep -q 'Review comments'; then\n\
             seq 1 300 > gen_b.txt\nseq 1 300 > gen_c.txt\nelse\n{FIX}seq 1 300 > gen_a.txt\nfi\n"
        ),
    );
    let started = engine
        .start_attempt(fx.request(&worker), "cli")
        .await
        .expect("start");
    let first = settle(&engine, &started.id).await;
    assert_eq!(first.summary.state, AttemptState::Review, "{first:?}");
    assert!(first.previous.is_none(), "a first attempt has no previous");
    let revision = engine
        .request_changes(&started.id, "add the b and c tables", Vec::new())
        .await
        .expect("request changes");
    let full = settle(&engine, &revision.id).await;
    assert_eq!(full.summary.state, AttemptState::Review, "{full:?}");
    let previous = full
        .previous
        .clone()
        .expect("a diff against the previous attempt");
    let paths: Vec<&str> = previous.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["gen_b.txt", "gen_c.txt"]);
    assert_eq!(full.diff.as_ref().map(|d| d.files.len()), Some(4));

    let budgeted = engine
        .attempt_review_budgeted(&revision.id, 400)
        .await
        .expect("budgeted");
    let kept = |diff: &switchyard_core::review::diff::CapturedDiff| -> Vec<(String, bool)> {
        diff.files
            .iter()
            .map(|f| (f.path.clone(), f.hunks_deferred))
            .collect()
    };
    let budgeted_previous = budgeted.previous.as_ref().expect("previous");
    assert_eq!(
        kept(budgeted_previous),
        [
            ("gen_b.txt".to_owned(), false),
            ("gen_c.txt".to_owned(), true)
        ],
        "the previous diff is budgeted like the main one"
    );
    assert_eq!(budgeted_previous.sha256, previous.sha256);
    assert_eq!(
        kept(budgeted.diff.as_ref().expect("diff")),
        [
            ("calc.sh".to_owned(), false),
            ("gen_a.txt".to_owned(), false),
            ("gen_b.txt".to_owned(), true),
            ("gen_c.txt".to_owned(), true)
        ]
    );

    // The deferred file of the previous diff comes back whole from that diff, not the base's.
    let one = engine
        .attempt_file_diff(&revision.id, "gen_c.txt", DiffAgainst::Previous)
        .await
        .expect("previous file diff");
    assert_eq!(one, previous.files[1]);
    assert_eq!(one.line_count(), 300);
    let err = engine
        .attempt_file_diff(&revision.id, "calc.sh", DiffAgainst::Previous)
        .await
        .expect_err("calc.sh did not change in the revision");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    // Base and previous alternate without one cache answering for the other.
    let base_file = engine
        .attempt_file_diff(&revision.id, "calc.sh", DiffAgainst::Base)
        .await
        .expect("base file diff");
    assert_eq!(Some(&base_file), full.diff.as_ref().map(|d| &d.files[0]));
    let err = engine
        .attempt_file_diff(&started.id, "gen_a.txt", DiffAgainst::Previous)
        .await
        .expect_err("the first attempt has no previous diff");
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    engine.close().await;
}
