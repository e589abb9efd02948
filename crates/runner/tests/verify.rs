//! Switchyard's own verification against real commands: exit codes, parsed counts from a real
//! runner (Node's), a digest over a log far larger than the buffer, timeouts and cancel.

use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};
use switchyard_core::verify::{CommandOutcome, CountUnit, TestRunner, LOG_TAIL_BYTES};
use switchyard_runner::process::Grace;
use switchyard_runner::verify::{run_command, verify, VerifyOptions};
use tokio_util::sync::CancellationToken;

fn options() -> VerifyOptions {
    VerifyOptions {
        timeout: Duration::from_secs(60),
        grace: Grace {
            interrupt: Duration::from_millis(200),
            terminate: Duration::from_millis(200),
        },
        ..VerifyOptions::default()
    }
}

fn node_tests(dir: &Path, failing: bool) {
    let body = if failing {
        "assert.equal(1 + 1, 3)"
    } else {
        "assert.equal(1 + 1, 2)"
    };
    std::fs::write(
        dir.join("math.test.mjs"),
        format!(
            "import test from 'node:test';\nimport assert from 'node:assert';\n\
             test('adds', () => {{ {body}; }});\ntest('subtracts', () => assert.equal(2 - 1, 1));\n"
        ),
    )
    .expect("write test");
}

#[tokio::test]
async fn node_test_runner_results_are_recorded_with_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    node_tests(dir.path(), false);
    let pass = run_command(dir.path(), "node --test --test-reporter=tap", &options()).await;
    assert_eq!(pass.outcome, CommandOutcome::Exited, "{pass:?}");
    assert_eq!(pass.exit_code, Some(0), "{}", pass.log_tail);
    assert!(pass.passed);
    assert_eq!(pass.counts.len(), 1, "{}", pass.log_tail);
    assert_eq!(pass.counts[0].runner, TestRunner::Node);
    assert_eq!((pass.counts[0].passed, pass.counts[0].failed), (2, 0));

    node_tests(dir.path(), true);
    let fail = run_command(dir.path(), "node --test --test-reporter=tap", &options()).await;
    assert_eq!(fail.exit_code, Some(1));
    assert!(!fail.passed);
    assert_eq!((fail.counts[0].passed, fail.counts[0].failed), (1, 1));
    assert_eq!(
        fail.summary().as_deref(),
        Some("node --test: 1 passed, 1 failed")
    );
    assert!(fail.log_tail.contains("# fail 1"), "{}", fail.log_tail);
}

#[tokio::test]
async fn a_zero_exit_whose_summary_reports_failures_does_not_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = run_command(dir.path(), "echo 'Results: 3 passed, 1 failed'", &options()).await;
    assert_eq!(record.exit_code, Some(0));
    assert_eq!(record.counts[0].runner, TestRunner::Plain);
    assert!(!record.passed);
}

#[tokio::test]
async fn a_command_that_claims_success_but_exits_non_zero_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = run_command(
        dir.path(),
        "echo 'all tests passed!'; echo '5 passed, 0 failed'; exit 1",
        &options(),
    )
    .await;
    assert_eq!(record.exit_code, Some(1));
    assert!(!record.passed);
}

#[tokio::test]
async fn digest_and_counts_cover_a_log_larger_than_the_buffer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = "test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s\n";
    // The summary comes first and is long gone from a 64 KiB buffer when the command ends.
    let command = format!(
        "printf '%s\\n' '{}'; head -c 3000000 /dev/zero",
        summary.trim_end()
    );
    let opts = VerifyOptions {
        output_cap: 64 * 1024,
        ..options()
    };
    let record = run_command(dir.path(), &command, &opts).await;
    assert!(record.passed, "{record:?}");
    let mut expected = summary.as_bytes().to_vec();
    expected.extend(std::iter::repeat_n(0u8, 3_000_000));
    assert_eq!(record.log_bytes, expected.len() as u64);
    assert_eq!(record.log_sha256, hex::encode(Sha256::digest(&expected)));
    assert_eq!(record.counts.len(), 1);
    assert_eq!(record.counts[0].runner, TestRunner::Cargo);
    assert_eq!(record.counts[0].unit, CountUnit::Tests);
    assert_eq!((record.counts[0].passed, record.counts[0].skipped), (4, 1));
    assert!(
        record.log_tail.len() <= LOG_TAIL_BYTES * 3,
        "{}",
        record.log_tail.len()
    );
    assert!(!record.log_tail.contains("test result"));
}

#[tokio::test]
async fn a_hanging_command_times_out_and_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = VerifyOptions {
        timeout: Duration::from_millis(300),
        ..options()
    };
    let record = run_command(dir.path(), "echo started; sleep 30", &opts).await;
    assert_eq!(record.outcome, CommandOutcome::TimedOut);
    assert!(!record.passed);
    assert!(record.duration_ms < 5_000, "{}", record.duration_ms);
    assert!(record.log_tail.contains("started"));
}

#[tokio::test]
async fn every_command_runs_and_the_record_names_the_first_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("marker"), "x").expect("write");
    let commands = vec![
        "test -f marker".to_owned(),
        "exit 2".to_owned(),
        "echo third ran".to_owned(),
    ];
    let record = verify(dir.path(), &commands, &options()).await;
    assert!(!record.passed);
    assert_eq!(record.commands.len(), 3);
    assert!(record.commands[0].passed, "runs in the given directory");
    assert_eq!(record.commands[1].exit_code, Some(2));
    assert!(record.commands[2].passed);
    assert_eq!(record.commands[2].log_tail, "third ran\n");
    assert_eq!(
        record.first_failure().map(|c| c.command.as_str()),
        Some("exit 2")
    );
}

#[tokio::test]
async fn cancel_stops_the_running_command_and_skips_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cancel = CancellationToken::new();
    let opts = VerifyOptions {
        cancel: Some(cancel.clone()),
        ..options()
    };
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let commands = vec!["sleep 30".to_owned(), "echo never".to_owned()];
    let record = verify(dir.path(), &commands, &opts).await;
    assert!(!record.passed);
    assert_eq!(record.commands[0].outcome, CommandOutcome::Canceled);
    assert_eq!(record.commands[1].outcome, CommandOutcome::Canceled);
    assert_eq!(record.commands[1].log_bytes, 0);
    assert!(record.duration_ms < 5_000);
}

#[tokio::test]
async fn a_missing_directory_is_a_spawn_failure() {
    let record = run_command(Path::new("/nonexistent/switchyard"), "true", &options()).await;
    assert_eq!(record.outcome, CommandOutcome::SpawnFailed);
    assert!(!record.passed);
    assert!(
        record
            .error
            .as_deref()
            .is_some_and(|e| e.contains("/nonexistent/switchyard")),
        "{:?}",
        record.error
    );
}
