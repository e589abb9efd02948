//! Owned processes against real children: process groups, timeouts, INT → TERM → KILL,
//! kill-on-drop, the environment allowlist, bounded output under a flood, replay.
// This file re-runs its own test binary to get a parent environment holding credentials
// (std's Command, outside the runner, on purpose); everything under test goes through
// switchyard_runner::process.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use switchyard_runner::process::{
    self, EndedBy, Grace, GroupSignal, OwnedChild, ProcessError, ProcessSpec, Stream,
};
use tokio_util::sync::CancellationToken;

/// Live (not zombie) processes whose process group is `pgid`. Zombies are skipped: a killed
/// grandchild is reparented to init, and this container's init does not reap.
fn live_in_group(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
            let Some(close) = stat.rfind(')') else {
                return false;
            };
            let mut rest = stat[close + 2..].split(' ');
            let state = rest.next().unwrap_or("Z");
            let _ppid = rest.next();
            let pgrp = rest.next().and_then(|p| p.parse::<u32>().ok());
            state != "Z" && pgrp == Some(pgid)
        })
        .collect()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rfind(')')
                .and_then(|close| stat.get(close + 2..close + 3))
                .is_some_and(|state| state != "Z")
        })
        .unwrap_or(false)
}

/// Waits until nothing is left alive in `pgid` (the kernel delivers SIGKILL asynchronously).
fn assert_group_gone(pgid: u32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = live_in_group(pgid);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes still alive in group {pgid}: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec::new("sh").arg("-c").arg(script)
}

/// Reads the child's stdout until a line starting with `prefix` appears; returns the rest.
async fn line_starting(child: &OwnedChild, prefix: &str) -> String {
    let mut cursor = child.output().cursor(0);
    let mut seen = String::new();
    let wait = async {
        while let Some(read) = cursor.next().await {
            seen.push_str(&String::from_utf8_lossy(&read.stream_bytes(Stream::Stdout)));
            if let Some(line) = seen.lines().find(|l| l.starts_with(prefix)) {
                return Some(line[prefix.len()..].to_owned());
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .expect("the child printed the line in time")
        .unwrap_or_else(|| panic!("the child ended without printing {prefix}"))
}

/// Long enough that a shell trap runs within it on a loaded two-core machine (300 ms was not:
/// the INT trap sometimes had not run before TERM followed).
fn fast_grace() -> Grace {
    Grace {
        interrupt: Duration::from_millis(1000),
        terminate: Duration::from_millis(1000),
    }
}

#[tokio::test]
async fn timeout_kills_the_whole_group_including_a_background_grandchild() {
    // The background sleep ignores SIGINT (sh does that to asynchronous lists), so only the
    // group kill after the leader dies can end it.
    let child = process::spawn(
        sh("sleep 300 & echo grandchild=$!; sleep 300")
            .timeout(Duration::from_millis(500))
            .grace(fast_grace()),
    )
    .expect("spawn");
    let pgid = child.pid();
    let grandchild: u32 = line_starting(&child, "grandchild=")
        .await
        .parse()
        .expect("pid");
    assert!(alive(grandchild));
    let exit = child.wait().await.expect("exit recorded");
    assert_eq!(exit.ended_by, EndedBy::TimedOut);
    assert_eq!(exit.signals_sent.first(), Some(&GroupSignal::Interrupt));
    assert!(
        exit.duration >= Duration::from_millis(500),
        "{:?}",
        exit.duration
    );
    assert!(
        exit.duration < Duration::from_secs(10),
        "{:?}",
        exit.duration
    );
    assert!(!exit.success());
    assert_group_gone(pgid);
    assert!(
        !alive(grandchild),
        "grandchild {grandchild} outlived the timeout"
    );
}

#[tokio::test]
async fn timeout_escalates_to_kill_when_the_group_ignores_int_and_term() {
    // Ignored dispositions are inherited across exec, so the sleeps ignore both too.
    let child = process::spawn(
        sh("trap '' INT TERM; sleep 300 & sleep 300")
            .timeout(Duration::from_millis(200))
            .grace(fast_grace()),
    )
    .expect("spawn");
    let pgid = child.pid();
    let exit = child.wait().await.expect("exit recorded");
    assert_eq!(exit.ended_by, EndedBy::TimedOut);
    assert_eq!(
        exit.signals_sent,
        [
            GroupSignal::Interrupt,
            GroupSignal::Terminate,
            GroupSignal::Kill
        ]
    );
    assert_eq!(exit.signal, Some(9));
    assert_eq!(exit.code, None);
    assert!(
        exit.duration >= Duration::from_millis(800),
        "{:?}",
        exit.duration
    );
    assert_group_gone(pgid);
}

#[tokio::test]
async fn cancel_sends_int_then_term_then_kill_to_a_child_that_traps_them() {
    let parent = CancellationToken::new();
    let child = process::spawn(
        sh(
            "trap 'echo got-INT' INT; trap 'echo got-TERM' TERM; echo ready=1; \
            while true; do sleep 0.05; done",
        )
        .grace(fast_grace())
        .cancel_on(&parent),
    )
    .expect("spawn");
    let pgid = child.pid();
    line_starting(&child, "ready=").await;
    let canceled_at = Instant::now();
    parent.cancel();
    let exit = child.wait().await.expect("exit recorded");
    assert_eq!(exit.ended_by, EndedBy::Canceled);
    assert_eq!(
        exit.signals_sent,
        [
            GroupSignal::Interrupt,
            GroupSignal::Terminate,
            GroupSignal::Kill
        ]
    );
    assert_eq!(exit.signal, Some(9), "{exit:?}");
    let waited = canceled_at.elapsed();
    assert!(waited >= Duration::from_millis(2000), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    let stdout = String::from_utf8_lossy(&child.output().read_from(0).stream_bytes(Stream::Stdout))
        .into_owned();
    let int = stdout.find("got-INT").expect("the INT trap ran");
    let term = stdout.find("got-TERM").expect("the TERM trap ran");
    assert!(int < term, "{stdout}");
    assert_group_gone(pgid);
}

#[tokio::test]
async fn cancel_on_the_handle_stops_a_child_that_honours_int() {
    let child =
        process::spawn(sh("echo ready=1; exec sleep 300").grace(fast_grace())).expect("spawn");
    line_starting(&child, "ready=").await;
    child.cancel();
    let exit = child.wait().await.expect("exit recorded");
    assert_eq!(exit.ended_by, EndedBy::Canceled);
    assert_eq!(exit.signals_sent, [GroupSignal::Interrupt]);
    assert_eq!(exit.signal, Some(2));
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmHWM")
}

#[tokio::test]
async fn a_200_mb_flood_keeps_memory_bounded_and_counts_every_byte() {
    const HALF: u64 = 100 * 1024 * 1024;
    let cap = 1024 * 1024;
    let peak_before = peak_rss_kib();
    let child = process::spawn(
        sh("head -c 104857600 /dev/zero; head -c 104857600 /dev/zero >&2").output_cap(cap),
    )
    .expect("spawn");
    let mut max_cost = 0;
    let mut progress = child.output().subscribe();
    while child.exit().is_none() {
        max_cost = max_cost.max(child.output().retained_cost());
        if tokio::time::timeout(Duration::from_millis(50), progress.changed())
            .await
            .is_ok_and(|r| r.is_err())
        {
            break;
        }
    }
    let exit = child.wait().await.expect("exit recorded");
    assert!(exit.success(), "{exit:?}");
    assert_eq!(exit.stdout_bytes, HALF);
    assert_eq!(exit.stderr_bytes, HALF);
    let output = child.output();
    assert_eq!(output.progress().written, 2 * HALF);
    assert!(output.progress().closed);
    assert!(output.retained_cost() <= cap, "{}", output.retained_cost());
    assert!(max_cost <= cap, "{max_cost}");
    assert!(output.retained_bytes() <= cap);
    let read = output.read_from(0);
    assert!(read.truncated_before);
    assert_eq!(read.next_offset, 2 * HALF);
    assert!(read.chunks.iter().all(|c| c.stream == Stream::Stderr));
    let growth_mib = (peak_rss_kib().saturating_sub(peak_before)) / 1024;
    assert!(growth_mib < 64, "peak memory grew by {growth_mib} MiB");
}

#[tokio::test]
async fn a_non_zero_exit_is_recorded_with_tagged_output() {
    let exit = process::run(sh("echo out; echo oops >&2; exit 3"))
        .await
        .expect("run");
    assert_eq!(exit.exit.code, Some(3));
    assert_eq!(exit.exit.signal, None);
    assert_eq!(exit.exit.ended_by, EndedBy::Exited);
    assert!(!exit.exit.success());
    assert_eq!(exit.stdout, b"out\n");
    assert_eq!(exit.stderr, b"oops\n");
    assert_eq!((exit.exit.stdout_bytes, exit.exit.stderr_bytes), (4, 5));
}

#[tokio::test]
async fn dropping_the_handle_kills_the_group() {
    let child = process::spawn(sh("sleep 300 & echo grandchild=$!; sleep 300")).expect("spawn");
    let pgid = child.pid();
    let output = child.output().clone();
    let grandchild: u32 = line_starting(&child, "grandchild=")
        .await
        .parse()
        .expect("pid");
    // sh starts the foreground sleep just after printing; wait for it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while live_in_group(pgid).len() < 3 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(live_in_group(pgid).len(), 3, "sh and two sleeps");
    drop(child);
    assert_group_gone(pgid);
    assert!(!alive(grandchild));
    // The monitor still closes the output once the group is gone.
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        let mut progress = output.subscribe();
        while !output.progress().closed {
            let _ = progress.changed().await;
        }
    })
    .await;
    assert!(closed.is_ok(), "output never closed after drop");
}

#[tokio::test]
async fn output_replays_from_an_offset_and_streams_before_exit() {
    let child =
        process::spawn(sh("printf 'first\\n'; sleep 0.3; printf 'second\\n'")).expect("spawn");
    let mut cursor = child.output().cursor(0);
    let first = tokio::time::timeout(Duration::from_secs(5), cursor.next())
        .await
        .expect("in time")
        .expect("some output");
    assert_eq!(first.text(), "first\n");
    assert!(
        child.exit().is_none(),
        "the first line arrived while the child ran"
    );
    let exit = child.wait().await.expect("exit");
    assert!(exit.success());
    let replay = child.output().read_from(6);
    assert_eq!(replay.text(), "second\n");
    assert!(!replay.truncated_before);
    assert_eq!(child.output().read_from(0).text(), "first\nsecond\n");
    let rest = cursor.next().await.expect("the second line");
    assert_eq!(rest.text(), "second\n");
    assert!(cursor.next().await.is_none(), "the cursor ends after close");
}

#[tokio::test]
async fn stdin_payload_reaches_the_child_and_is_closed() {
    let payload: Vec<u8> = (0..1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    let done = process::run(
        ProcessSpec::new("cat")
            .stdin(payload.clone())
            .output_cap(2 * 1024 * 1024),
    )
    .await
    .expect("run");
    assert!(done.exit.success(), "{:?}", done.exit);
    assert!(!done.truncated);
    assert_eq!(done.stdout, payload);
}

#[tokio::test]
async fn the_child_runs_in_its_working_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let done = process::run(ProcessSpec::new("pwd").current_dir(dir.path()))
        .await
        .expect("run");
    let expected = dir.path().canonicalize().expect("canonical");
    assert_eq!(
        String::from_utf8_lossy(&done.stdout).trim(),
        expected.to_string_lossy()
    );
}

#[tokio::test]
async fn a_missing_program_is_not_found_and_a_credential_variable_is_refused() {
    let missing = process::spawn(ProcessSpec::new("switchyard-no-such-program"));
    assert!(
        matches!(missing, Err(ProcessError::NotFound { .. })),
        "{missing:?}"
    );
    let agent = process::spawn(ProcessSpec::new("true").env("SSH_AUTH_SOCK", "/tmp/agent"));
    assert!(
        matches!(agent, Err(ProcessError::ForbiddenEnv { ref name }) if name == "SSH_AUTH_SOCK")
    );
}

/// Run by `a_child_sees_only_allowlisted_and_passed_variables` in a process whose environment
/// holds credentials; not meant to run on its own.
#[tokio::test]
#[ignore = "run by a_child_sees_only_allowlisted_and_passed_variables"]
async fn env_probe() {
    assert_eq!(
        std::env::var("SSH_AUTH_SOCK").as_deref(),
        Ok("/tmp/switchyard-test-agent"),
        "the probe runs in a parent that has the agent socket"
    );
    let done = process::run(ProcessSpec::new("env").env("ANTHROPIC_API_KEY", "sk-worker-own"))
        .await
        .expect("run env");
    assert!(done.exit.success());
    let stdout = String::from_utf8_lossy(&done.stdout).into_owned();
    let names: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once('=').map(|(n, _)| n))
        .collect();
    for name in &names {
        let allowed = [
            "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "TZ",
        ]
        .contains(name)
            || name.starts_with("LC_")
            || *name == "ANTHROPIC_API_KEY";
        assert!(allowed, "the child saw {name}");
    }
    for leaked in [
        "SSH_AUTH_SOCK",
        "OPENAI_API_KEY",
        "GIT_ASKPASS",
        "DBUS_SESSION_BUS_ADDRESS",
    ] {
        assert!(!names.contains(leaked), "{leaked} leaked into the child");
    }
    assert!(stdout.contains("ANTHROPIC_API_KEY=sk-worker-own\n"));
    assert!(stdout.contains("PATH="), "PATH is inherited");
    assert!(
        stdout.contains("HOME=/home/switchyard-probe\n"),
        "HOME is inherited"
    );
    assert!(!stdout.contains("sk-parent-openai"));
}

#[test]
fn a_child_sees_only_allowlisted_and_passed_variables() {
    let me = std::env::current_exe().expect("test binary");
    let output = std::process::Command::new(me)
        .args([
            "--exact",
            "env_probe",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SSH_AUTH_SOCK", "/tmp/switchyard-test-agent")
        .env("OPENAI_API_KEY", "sk-parent-openai")
        .env("GIT_ASKPASS", "/usr/bin/false")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/tmp/switchyard-test-bus",
        )
        .env("HOME", "/home/switchyard-probe")
        .output()
        .expect("run the probe");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "probe failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "the probe did not run:\n{stdout}"
    );
}

// Regression: under load the monitor could reap the leader only after the handle was dropped,
// and recorded `Dropped` for a leader that had exited 0 on its own. The wait status now decides.
#[tokio::test]
async fn a_process_that_left_the_group_cannot_hold_the_output_open_and_a_late_drop_is_not_blamed() {
    // `setsid` puts the sleep in a session of its own, out of reach of the group kill, and it
    // keeps the stdout pipe open after the leader exits. The leader waits until the escapee is
    // in its new session (a marker file): exiting earlier let the group kill take it first
    // when the machine was busy.
    let marker = tempfile::tempdir().expect("tempdir");
    let ready = marker.path().join("escaped");
    let script = format!(
        "setsid sh -c 'echo escaped=$$; touch \"{ready}\"; exec sleep 30' & \
         while [ ! -e \"{ready}\" ]; do sleep 0.01; done",
        ready = ready.display()
    );
    let child = process::spawn(sh(&script).drain(Duration::from_millis(500))).expect("spawn");
    let leader = child.pid();
    let escaped: u32 = line_starting(&child, "escaped=")
        .await
        .parse()
        .expect("pid");
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(leader) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!alive(leader), "the leader exits at once");
    let mut exit = child.subscribe_exit();
    // Dropped while the monitor drains the pipes the escaped process holds.
    drop(child);
    let recorded = tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
        .await
        .expect("the drain period bounds the wait")
        .expect("recorded")
        .clone()
        .expect("some");
    let _ = std::process::Command::new("kill")
        .arg(escaped.to_string())
        .status();
    assert_eq!(recorded.ended_by, EndedBy::Exited, "{recorded:?}");
    assert_eq!(recorded.code, Some(0));
    assert!(recorded.output_cut_off);
}

/// Whether `pid` is a zombie: exited, not yet reaped.
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let close = stat.rfind(')')?;
            stat.get(close + 2..close + 3).map(|state| state == "Z")
        })
        .unwrap_or(false)
}

// The race behind the flaky drain test, made deterministic: on this current-thread runtime the
// monitor cannot run while the test blocks, so the leader exits and stays unreaped until after
// the handle is dropped, exactly as on a machine too busy to poll the monitor in time.
#[tokio::test]
async fn a_leader_that_exited_before_its_handle_was_dropped_is_recorded_as_exited() {
    let child = process::spawn(sh("exit 3")).expect("spawn");
    let leader = child.pid();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !zombie(leader) {
        assert!(Instant::now() < deadline, "the leader never exited");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut exit = child.subscribe_exit();
    drop(child);
    let recorded = tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
        .await
        .expect("recorded in time")
        .expect("recorded")
        .clone()
        .expect("some");
    assert_eq!(recorded.ended_by, EndedBy::Exited, "{recorded:?}");
    assert_eq!(recorded.code, Some(3));
}

#[tokio::test]
async fn dropping_the_handle_of_a_live_child_kills_its_group_and_is_recorded_as_dropped() {
    let child = process::spawn(sh("echo ready=1; sleep 300 & sleep 300")).expect("spawn");
    let pgid = child.pid();
    line_starting(&child, "ready=").await;
    let mut exit = child.subscribe_exit();
    drop(child);
    let recorded = tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
        .await
        .expect("recorded in time")
        .expect("recorded")
        .clone()
        .expect("some");
    assert_eq!(recorded.ended_by, EndedBy::Dropped, "{recorded:?}");
    assert_eq!(recorded.signal, Some(9));
    assert_group_gone(pgid);
}

/// The crate docs promise that only `process` may call `Command::new`: an allowance of
/// clippy's `disallowed_methods` anywhere else in the runner's sources breaks that promise.
#[test]
fn only_the_process_module_is_allowed_to_construct_commands() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read source");
                let inside_process = path.starts_with(src.join("process"));
                if text.contains("disallowed_methods") && !inside_process {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "Command allowed outside process/: {offenders:?}"
    );
}

/// Switchyard started with SIGINT ignored (`nohup`, or `switchyard … &` in a script) still
/// stops its workers with INT: the test above, run again in a process that ignores INT,
/// still sees the worker end on INT alone.
#[test]
#[allow(clippy::disallowed_methods)] // re-runs this test binary, not a worker
fn a_cancel_interrupts_workers_even_when_switchyard_ignores_int() {
    let this = std::env::current_exe().expect("test binary");
    let premise = std::process::Command::new("sh")
        .args(["-c", "trap '' INT; exec grep SigIgn /proc/self/status"])
        .output()
        .expect("sh");
    let mask = String::from_utf8_lossy(&premise.stdout);
    let mask = u64::from_str_radix(mask.trim_start_matches("SigIgn:").trim(), 16).expect("mask");
    assert_ne!(mask & 2, 0, "`trap '' INT` makes what it runs ignore INT");

    let inner = std::process::Command::new("sh")
        .args([
            "-c",
            "trap '' INT; exec \"$0\" --exact cancel_on_the_handle_stops_a_child_that_honours_int \
             --test-threads=1",
        ])
        .arg(&this)
        .output()
        .expect("re-run");
    let out = String::from_utf8_lossy(&inner.stdout);
    assert!(
        inner.status.success() && out.contains("1 passed"),
        "{out}\n{}",
        String::from_utf8_lossy(&inner.stderr)
    );
}
