//! Detached runs through the real binary: `run --detach` returns at once and hands the run
//! to a background `switchyard run-worker` that owns it; another CLI process sees it live
//! and cancels it (nothing left running); a `kill -9` of that owner leaves the run
//! `interrupted` and `runs recover` (waiting, or detached again) completes it without
//! calling a finished node again (requests counted at the model server).
// The binary and `kill` run as child processes: a `Command` outside crates/runner.
#![allow(clippy::disallowed_methods)]

mod runs_cli_support;

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use runs_cli_support::*;
use serde_json::Value;

#[test]
fn a_detached_run_is_visible_and_cancelable_from_another_process() {
    let fx = Fixture::new();
    let server = fx.server(|_| Behavior::Hang);
    let started = Instant::now();
    let out = fx.run(
        &[
            "run",
            "--mode",
            "single",
            "--task",
            "Think forever",
            "--model",
            MINI,
            "--detach",
            "--json",
        ],
        &[],
    );
    let returned = started.elapsed();
    let run = out.expect_code(0).clone();
    eprintln!("run --detach returned in {returned:?}");
    assert!(
        returned < Duration::from_secs(2),
        "--detach returns at once: {returned:?}"
    );
    assert_eq!(run["status"], "queued");
    let id = run["run"].as_str().expect("id").to_owned();

    // Another process sees it running, its call in flight at the server.
    until(Duration::from_secs(30), "the node runs", || {
        let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
        node(shown.expect_code(0), "n1")["status"] == "running"
    });
    until(Duration::from_secs(10), "the request arrives", || {
        server.in_flight() == 1
    });
    let owners = processes_with(&format!("run-worker {id}"));
    assert_eq!(owners.len(), 1, "one detached owner: {owners:?}");
    let listed = fx.run(&["runs", "list", "--status", "running", "--json"], &[]);
    let rows = listed.expect_code(0).as_array().expect("rows").clone();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["id"], id.as_str());

    // Canceled from here: the owner hears it, stops the call and exits.
    let canceling = Instant::now();
    let canceled = fx.run(&["runs", "cancel", &id, "--json"], &[]);
    let took = canceling.elapsed();
    let canceled = canceled.expect_code(0).clone();
    assert_eq!(canceled["status"], "canceled", "{canceled:#}");
    assert_eq!(canceled["reason"], "canceled");
    assert!(took < Duration::from_secs(5), "cancel took {took:?}");
    until(Duration::from_secs(5), "the call is closed", || {
        server.in_flight() == 0
    });
    until(Duration::from_secs(5), "the owner exits", || {
        processes_with(&id).is_empty()
    });
    let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
    let shown = shown.expect_code(1);
    assert_eq!(shown["status"], "canceled");
    assert_eq!(node(shown, "n1")["status"], "canceled");
    // The detached owner logged where it ended.
    let log = std::fs::read_to_string(fx.home().join("logs/runs").join(format!("{id}.log")))
        .expect("owner log");
    assert!(log.contains("ended canceled"), "{log}");
}

#[test]
fn a_killed_detached_owner_leaves_the_run_interrupted_and_recover_completes_it() {
    killed_owner_then_recover(false);
}

#[test]
fn a_recovery_can_be_detached_too() {
    killed_owner_then_recover(true);
}

/// A swarm whose node `b` hangs is detached; its owner is killed (`kill -9`) while `a` is
/// done and `b` in flight; `runs recover` (waiting, or `--detach` and followed) completes it
/// without calling `a` again.
fn killed_owner_then_recover(detach: bool) {
    let fx = Fixture::new();
    let release = Arc::new(AtomicBool::new(false));
    let released = release.clone();
    let server = fx.server(move |asked| {
        let step = step_of(&asked.prompt);
        if step == "b" && !released.load(Ordering::SeqCst) {
            Behavior::Hang
        } else {
            Behavior::answer(&format!("OUT-{step}"))
        }
    });
    let swarm = fx.plan_file(
        "swarm",
        &[
            ("a", "Write part a", &[]),
            ("b", "Write part b", &[]),
            ("c", "Join them", &["a", "b"]),
        ],
        MINI,
    );
    let out = fx.run(
        &[
            "run",
            "--mode",
            "swarm",
            "--task",
            "Crash test",
            "--plan",
            &swarm,
            "--detach",
            "--json",
        ],
        &[],
    );
    let id = out.expect_code(0)["run"].as_str().expect("id").to_owned();
    until(Duration::from_secs(30), "a done, b in flight", || {
        let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
        let shown = shown.expect_code(0);
        node(shown, "a")["status"] == "done" && node(shown, "b")["status"] == "running"
    });
    until(Duration::from_secs(10), "b's request arrives", || {
        server.in_flight() == 1
    });
    let owners = processes_with(&format!("run-worker {id}"));
    assert_eq!(owners.len(), 1, "{owners:?}");
    let killed = Command::new("kill")
        .args(["-9", &owners[0].to_string()])
        .status()
        .expect("kill -9");
    assert!(killed.success());
    until(Duration::from_secs(5), "the owner is gone", || {
        processes_with(&id).is_empty()
    });

    // The next process to look finds the owner gone.
    let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
    let shown = shown.expect_code(1).clone();
    assert_eq!(shown["status"], "interrupted", "{shown:#}");
    assert_eq!(node(&shown, "a")["status"], "done");
    assert_eq!(node(&shown, "b")["status"], "interrupted");

    release.store(true, Ordering::SeqCst);
    let recovered = if detach {
        let queued = fx.run(&["runs", "recover", &id, "--detach", "--json"], &[]);
        assert_eq!(queued.expect_code(0)["status"], "queued");
        let mut last = Value::Null;
        until(
            Duration::from_secs(30),
            "the recovered run completes",
            || {
                last = fx.run(&["runs", "show", &id, "--json"], &[]).json;
                last["status"] == "completed"
            },
        );
        until(Duration::from_secs(5), "its new owner exits", || {
            processes_with(&id).is_empty()
        });
        last
    } else {
        let recovered = fx.run(&["runs", "recover", &id, "--json"], &[]);
        recovered.expect_code(0).clone()
    };
    assert_eq!(recovered["status"], "completed", "{recovered:#}");
    for step in ["a", "b", "c"] {
        assert_eq!(node(&recovered, step)["status"], "done");
    }
    let calls = |step: &str| requests_for(&server, |a| step_of(&a.prompt) == step);
    assert_eq!(
        calls("a"),
        1,
        "a finished before the kill: never called again"
    );
    assert_eq!(calls("b"), 2, "b was lost in flight and made again");
    assert_eq!(calls("c"), 1);
    assert!(processes_with(&id).is_empty(), "nothing left running");
}

/// `runs log <id> --follow --json` in one process prints the text of a run a detached
/// `run-worker` executes as the model streams it, not only once the node has ended, and
/// exits when the run does.
#[test]
fn runs_log_follow_prints_a_detached_runs_text_as_it_streams() {
    use std::io::{BufRead, BufReader};
    let fx = Fixture::new();
    let parts: Vec<String> = (1..=6).map(|n| format!("part {n}. ")).collect();
    let whole = parts.concat();
    let _server = fx.server(move |_| Behavior::Paced {
        parts: parts.clone(),
        gap: Duration::from_millis(400),
    });
    let out = fx.run(
        &[
            "run", "--mode", "single", "--task", "Count", "--model", MINI, "--detach", "--json",
        ],
        &[],
    );
    let id = out.expect_code(0)["run"].as_str().expect("id").to_owned();

    let mut follower = fx
        .command(&["runs", "log", &id, "--follow", "--json"], &[])
        .spawn()
        .expect("follow");
    let started = Instant::now();
    let stdout = follower.stdout.take().expect("stdout");
    let lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .map(|line| (started.elapsed(), line))
            .collect::<Vec<_>>()
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while follower.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = follower.kill();
            panic!("runs log --follow did not end with the run");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let lines = lines.join().expect("reader");
    let items: Vec<(Duration, Value)> = lines
        .iter()
        .map(|(at, line)| {
            let item = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            (*at, item)
        })
        .collect();
    let ended = items
        .iter()
        .find(|(_, item)| item["type"] == "end")
        .map(|(at, item)| {
            assert_eq!(item["state"], "completed", "{item}");
            *at
        })
        .expect("an end item");
    let mut text = String::new();
    let mut steps = Vec::new();
    for (at, item) in items.iter().filter(|(_, item)| item["type"] == "output") {
        if item["reset"] == true {
            text.clear();
        }
        text.push_str(item["text"].as_str().expect("text"));
        if !text.is_empty() {
            steps.push((*at, text.clone()));
        }
    }
    assert!(steps.len() >= 3, "text in steps: {lines:#?}");
    assert!(
        whole.starts_with(steps[0].1.as_str()) && steps[0].1.len() < whole.len(),
        "{steps:?}"
    );
    assert!(
        ended.saturating_sub(steps[0].0) >= Duration::from_millis(1200),
        "the text streamed before the end: {steps:?}, ended at {ended:?}"
    );
    let shown = fx.run(&["runs", "output", &id, "--json"], &[]);
    assert_eq!(shown.expect_code(0)["text"], whole.as_str());
}
