//! The processes one e2e test starts, owned as a group so none outlives the test.
//!
//! tauri-driver starts WebKitWebDriver, which starts the app, which starts WebKit's helper
//! processes. Killing tauri-driver alone leaves the rest reparented to init (one
//! WebKitWebDriver per run was seen piling up), so tauri-driver gets a process group of its
//! own and teardown signals the whole group: TERM, a grace period, then KILL.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// How long the group gets to exit after TERM before it is killed.
const GRACE: Duration = Duration::from_secs(3);

/// How long teardown waits for killed processes to disappear.
const REAP_WAIT: Duration = Duration::from_secs(5);

/// A child that leads its own process group; dropping it ends the group.
pub struct ProcessGroup {
    child: Child,
    pgid: i32,
}

impl ProcessGroup {
    /// Spawns `command` as the leader of a new process group.
    pub fn spawn(mut command: Command) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        let child = command.process_group(0).spawn()?;
        let pgid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
        Ok(Self { child, pgid })
    }

    /// The group id (the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// TERM to the group, KILL to whatever is left after [`GRACE`], then reaps the leader.
    pub fn shutdown(&mut self) {
        let group = Pid::from_raw(self.pgid);
        let _ = killpg(group, Signal::SIGTERM);
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline && !live_in_group(self.pgid).is_empty() {
            let _ = self.child.try_wait();
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A process still alive after teardown, for the failure message.
pub struct Leftover {
    pub pid: i32,
    pub name: String,
}

/// Live (not zombie) processes in group `pgid`, or whose environment names `home` as
/// `SWITCHYARD_HOME` (which catches one that left the group). Zombies are skipped: this
/// container's init does not reap, and a zombie holds no resources but its table entry.
pub fn leftovers(pgid: i32, home: &Path) -> Vec<Leftover> {
    let marker = format!("SWITCHYARD_HOME={}", home.display()).into_bytes();
    let deadline = Instant::now() + REAP_WAIT;
    loop {
        let found: Vec<Leftover> = processes()
            .filter(|p| p.state != 'Z')
            .filter(|p| {
                p.pgrp == pgid
                    || std::fs::read(format!("/proc/{}/environ", p.pid))
                        .map(|env| env.split(|b| *b == 0).any(|var| var == marker.as_slice()))
                        .unwrap_or(false)
            })
            .map(|p| Leftover {
                pid: p.pid,
                name: p.name,
            })
            .collect();
        if found.is_empty() || Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The summed PSS (proportional set size, KiB) of the WebKit web processes serving the app
/// started with `home` (children of a process whose environment names it, or naming it
/// themselves), with how many there were; `None` when none is found.
pub fn webview_pss_kib(home: &Path) -> Option<(u64, usize)> {
    let marker = format!("SWITCHYARD_HOME={}", home.display()).into_bytes();
    let has_marker = |pid: i32| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .map(|env| env.split(|b| *b == 0).any(|var| var == marker.as_slice()))
            .unwrap_or(false)
    };
    let all: Vec<ProcStat> = processes().filter(|p| p.state != 'Z').collect();
    let apps: Vec<i32> = all
        .iter()
        .filter(|p| !p.name.starts_with("WebKit") && has_marker(p.pid))
        .map(|p| p.pid)
        .collect();
    // comm is cut to 15 bytes: "WebKitWebProces".
    let web: Vec<i32> = all
        .iter()
        .filter(|p| p.name.starts_with("WebKitWebProc"))
        .filter(|p| apps.contains(&p.ppid) || has_marker(p.pid))
        .map(|p| p.pid)
        .collect();
    if web.is_empty() {
        return None;
    }
    let total = web
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|rollup| {
            rollup
                .lines()
                .find_map(|line| line.strip_prefix("Pss:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .sum();
    Some((total, web.len()))
}

fn live_in_group(pgid: i32) -> Vec<i32> {
    processes()
        .filter(|p| p.state != 'Z' && p.pgrp == pgid)
        .map(|p| p.pid)
        .collect()
}

struct ProcStat {
    pid: i32,
    name: String,
    state: char,
    ppid: i32,
    pgrp: i32,
}

fn processes() -> impl Iterator<Item = ProcStat> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            let name = stat.get(open + 1..close)?.to_owned();
            let mut rest = stat.get(close + 2..)?.split(' ');
            let state = rest.next()?.chars().next()?;
            let ppid = rest.next()?.parse().ok()?;
            let pgrp = rest.next()?.parse().ok()?;
            Some(ProcStat {
                pid,
                name,
                state,
                ppid,
                pgrp,
            })
        })
}
