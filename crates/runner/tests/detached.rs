//! Detached processes against real children: their own group, the payload on stdin, output in
//! the log, the environment (allowlist + forwarded names, never the agent or `GIT_*`), and
//! that they outlive the call that started them.

use std::time::{Duration, Instant};

use switchyard_runner::process::{spawn_detached, DetachedSpec, ProcessError};

/// `(state, pgrp)` of a live process, from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(String, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let close = stat.rfind(')')?;
    let mut rest = stat[close + 2..].split(' ');
    let state = rest.next()?.to_owned();
    let _ppid = rest.next();
    let pgrp = rest.next()?.parse().ok()?;
    Some((state, pgrp))
}

fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != "Z")
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_detached_child_leads_its_group_reads_its_payload_and_logs_with_a_filtered_env() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("logs").join("child.log");
    let release = dir.path().join("go");
    let script = format!(
        "read token; echo \"token=$token\"; echo 'to stderr' >&2; env | sort; \
         while [ ! -e {} ]; do sleep 0.05; done; echo done",
        release.display()
    );
    // Cargo sets CARGO_PKG_NAME and CARGO_MANIFEST_DIR for test binaries: forward one only.
    let pid = spawn_detached(
        DetachedSpec::new("sh")
            .args(["-c", &script])
            .current_dir(dir.path())
            .forward_if(|name| name == "CARGO_PKG_NAME")
            .env("SWITCHYARD_HOME", dir.path())
            .stdin("s3cret-token\n")
            .log_to(&log),
    )
    .expect("spawn");
    // The call has returned and the child is still running, in a group of its own.
    let (_, pgrp) = stat(pid).expect("child alive");
    assert_eq!(pgrp, pid, "the detached child leads its own process group");
    wait_for("the child's environment in the log", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.contains("PATH="))
    });
    assert!(alive(pid), "still waiting for the release file");
    std::fs::write(&release, "").expect("release");
    wait_for("the child to finish", || !alive(pid));
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("token=s3cret-token"), "{text}");
    assert!(text.contains("to stderr"), "{text}");
    assert!(text.contains("CARGO_PKG_NAME=switchyard-runner"), "{text}");
    assert!(
        text.contains(&format!("SWITCHYARD_HOME={}", dir.path().display())),
        "{text}"
    );
    assert!(
        !text.contains("CARGO_MANIFEST_DIR="),
        "not forwarded: {text}"
    );
    assert!(text.trim_end().ends_with("done"), "{text}");
}

#[test]
fn credential_channels_are_refused_and_a_missing_program_is_not_found() {
    for name in ["GIT_ASKPASS", "SSH_AUTH_SOCK", "GIT_DIR"] {
        let refused = spawn_detached(DetachedSpec::new("true").env(name, "x"));
        assert!(
            matches!(refused, Err(ProcessError::ForbiddenEnv { .. })),
            "{name}: {refused:?}"
        );
    }
    let missing = spawn_detached(DetachedSpec::new("switchyard-no-such-program"));
    assert!(
        matches!(missing, Err(ProcessError::NotFound { .. })),
        "{missing:?}"
    );
}

#[test]
fn a_detached_child_that_exits_is_reaped_while_its_parent_lives() {
    // A long-lived parent (the MCP server, the app) hands off job after job: none of its
    // exited children may linger as a zombie.
    let pids: Vec<u32> = (0..3)
        .map(|_| spawn_detached(DetachedSpec::new("true")).expect("spawn"))
        .collect();
    for pid in pids {
        wait_for("the exited child to be reaped", || stat(pid).is_none());
    }
}
