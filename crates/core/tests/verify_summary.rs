//! Test-runner summaries read from real logs. `cargo`, `node-*`, `pytest-*`, `jest` and
//! `vitest-*` fixtures were captured from the runners themselves (cargo 1.95, Node 20,
//! pytest 9, Jest 30, Vitest 4; paths replaced by /work/fixture; `vitest-failures.txt` keeps the
//! colour escapes Vitest printed). `go*`, `nextest` and `plain` are written in those tools'
//! exact formats.

use switchyard_core::verify::{parse_summary, CountUnit, SummaryScanner, TestCounts, TestRunner};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/verify/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn counts(runner: TestRunner, passed: u32, failed: u32, skipped: u32, errors: u32) -> TestCounts {
    TestCounts {
        runner,
        unit: CountUnit::Tests,
        passed,
        failed,
        skipped,
        errors,
    }
}

#[test]
fn cargo_test_sums_every_test_result_line() {
    // lib: 1 passed, 1 failed, 1 ignored; integration: 1 passed; doc-tests: 1 passed.
    assert_eq!(
        parse_summary(&fixture("cargo.txt")),
        [counts(TestRunner::Cargo, 3, 1, 1, 0)]
    );
}

#[test]
fn nextest_summary_wins_over_the_libtest_lines_it_echoes() {
    assert_eq!(
        parse_summary(&fixture("nextest.txt")),
        [counts(TestRunner::Nextest, 2, 1, 1, 0)]
    );
}

#[test]
fn pytest_closing_line_with_failures_skips_and_xfails() {
    assert_eq!(
        parse_summary(&fixture("pytest-failures.txt")),
        [counts(TestRunner::Pytest, 2, 1, 2, 0)]
    );
    assert_eq!(
        parse_summary(&fixture("pytest-quiet.txt")),
        [counts(TestRunner::Pytest, 2, 1, 2, 0)]
    );
}

#[test]
fn pytest_collection_error_counts_as_an_error() {
    let found = parse_summary(&fixture("pytest-collection-error.txt"));
    assert_eq!(found, [counts(TestRunner::Pytest, 0, 0, 0, 1)]);
    assert_eq!(found[0].failures(), 1);
}

#[test]
fn pytest_variants_parse() {
    let one = |line: &str| parse_summary(line);
    assert_eq!(
        one("===== 3 passed, 1 warning in 12.34s (0:00:12) ====="),
        [counts(TestRunner::Pytest, 3, 0, 0, 0)]
    );
    assert_eq!(
        one("==== 2 failed, 5 passed, 3 errors, 1 deselected in 1.00s ===="),
        [counts(TestRunner::Pytest, 5, 2, 1, 3)]
    );
    assert_eq!(
        one("============ no tests ran in 0.01s ============"),
        [counts(TestRunner::Pytest, 0, 0, 0, 0)]
    );
    // Prose that merely contains " in " is not a summary.
    assert!(one("3 passed tests in the morning").is_empty());
}

#[test]
fn jest_tests_line_with_skipped_and_todo() {
    assert_eq!(
        parse_summary(&fixture("jest.txt")),
        [counts(TestRunner::Jest, 2, 1, 2, 0)]
    );
}

#[test]
fn vitest_tests_line_through_colour_escapes() {
    assert_eq!(
        parse_summary(&fixture("vitest-failures.txt")),
        [counts(TestRunner::Vitest, 2, 1, 1, 0)]
    );
    assert_eq!(
        parse_summary(&fixture("vitest-pass.txt")),
        [counts(TestRunner::Vitest, 2, 0, 1, 0)]
    );
    assert_eq!(
        parse_summary("      Tests  3 passed (3)"),
        [counts(TestRunner::Vitest, 3, 0, 0, 0)]
    );
}

#[test]
fn go_test_counts_packages_without_verbose_output() {
    assert_eq!(
        parse_summary(&fixture("go.txt")),
        [TestCounts {
            runner: TestRunner::Go,
            unit: CountUnit::Packages,
            passed: 2,
            failed: 2,
            skipped: 0,
            errors: 0,
        }]
    );
}

#[test]
fn go_test_verbose_counts_top_level_tests() {
    assert_eq!(
        parse_summary(&fixture("go-verbose.txt")),
        [counts(TestRunner::Go, 2, 1, 1, 0)]
    );
}

#[test]
fn node_test_runner_tap_and_spec_reporters() {
    let expected = [counts(TestRunner::Node, 2, 1, 2, 0)];
    assert_eq!(parse_summary(&fixture("node-tap.txt")), expected);
    assert_eq!(parse_summary(&fixture("node-spec.txt")), expected);
}

#[test]
fn plain_line_is_read_only_when_no_runner_was_recognised() {
    assert_eq!(
        parse_summary(&fixture("plain.txt")),
        [counts(TestRunner::Plain, 12, 1, 2, 0)]
    );
    assert_eq!(
        parse_summary("3 passed, 0 failed"),
        [counts(TestRunner::Plain, 3, 0, 0, 0)]
    );
    // Two words before the colon, a different order or trailing prose: not the plain line.
    assert!(parse_summary("Unit tests: 3 passed, 0 failed").is_empty());
    assert!(parse_summary("0 failed, 3 passed").is_empty());
    assert!(parse_summary("3 passed, 0 failed in total").is_empty());
    // With a cargo summary in the same log the plain line is not counted again.
    let mixed = format!("{}\nTotals: 9 passed, 9 failed\n", fixture("cargo.txt"));
    assert_eq!(
        parse_summary(&mixed),
        [counts(TestRunner::Cargo, 3, 1, 1, 0)]
    );
}

#[test]
fn two_runners_in_one_command_are_both_reported() {
    let log = format!("{}\n{}", fixture("cargo.txt"), fixture("jest.txt"));
    let found = parse_summary(&log);
    assert_eq!(
        found,
        [
            counts(TestRunner::Cargo, 3, 1, 1, 0),
            counts(TestRunner::Jest, 2, 1, 2, 0)
        ]
    );
}

#[test]
fn a_log_without_a_summary_has_no_counts() {
    assert!(parse_summary("Compiling…\nerror[E0425]: cannot find value `x`\n").is_empty());
    assert!(parse_summary("").is_empty());
}

#[test]
fn the_scanner_is_incremental() {
    let mut scanner = SummaryScanner::new();
    for line in fixture("cargo.txt").lines() {
        scanner.feed_line(line);
    }
    assert_eq!(scanner.finish(), [counts(TestRunner::Cargo, 3, 1, 1, 0)]);
}
