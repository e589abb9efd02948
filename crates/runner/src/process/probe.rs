//! Looking at processes this one did not start, or no longer waits for: whether a recorded
//! owner is still alive, and stopping what a dead owner's worker left running. Linux `/proc`;
//! elsewhere a zombie counts as alive until reaped and nothing left behind is found.

use std::path::Path;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Whether a process with this id exists and has not exited (signal 0 checks without
/// sending anything). A zombie has exited and can advance nothing: a detached owner killed
/// after its parent is gone stays one until init reaps it, which some containers' init never
/// does.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    let exists = match kill(Pid::from_raw(raw), None) {
        // EPERM: it exists but belongs to another user.
        Ok(()) | Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    };
    exists && !is_zombie(pid)
}

/// Whether `/proc` shows `pid` as a zombie (`pid (comm) Z …`).
pub fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat_fields(&stat).map(|rest| rest.starts_with('Z')))
        .unwrap_or(false)
}

/// What follows `comm` in a `/proc/<pid>/stat` line: `state ppid pgrp …` (comm may contain
/// spaces and parentheses, so the split is at the last `") "`).
fn stat_fields(stat: &str) -> Option<&str> {
    stat.rsplit_once(") ").map(|(_, rest)| rest)
}

/// SIGKILLs the members of process group `pgid` whose working directory is inside `within`
/// (so a reused group id belonging to someone else is never touched): what a dead owner's
/// worker left running in its worktree. Returns how many were signalled.
pub fn kill_group_members_in(pgid: u32, within: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let group = stat_fields(&stat)
            .and_then(|rest| rest.split(' ').nth(2))
            .and_then(|g| g.parse::<u32>().ok());
        if group != Some(pgid) {
            continue;
        }
        let inside =
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(within));
        if inside && kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
            killed += 1;
        }
    }
    killed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_made_up_one_is_not() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
        assert!(!pid_alive(u32::MAX));
    }

    #[test]
    fn stat_fields_skip_a_command_name_with_parentheses() {
        assert_eq!(stat_fields("42 (a) b) S 1 42 42"), Some("S 1 42 42"));
    }
}
