//! The environment a child starts with: an allowlist of the parent's variables plus only the
//! variables passed explicitly for that child.
//!
//! Inherited (when set in the parent): `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`,
//! `LC_*`, `TERM`, `TMPDIR`, `TZ`. That is what a CLI needs to find its programs, its own
//! config and auth under `HOME`, and to print text in the user's locale.
//!
//! Deliberately not inherited, among everything else: `SSH_AUTH_SOCK` / `SSH_AGENT_PID` (the
//! SSH agent: push rights), `GIT_ASKPASS` / `SSH_ASKPASS` and every other `GIT_*` (credential
//! prompts, `GIT_SSH_COMMAND`, config injection), `DBUS_SESSION_BUS_ADDRESS` and
//! `XDG_RUNTIME_DIR` (the session bus and its sockets reach the keychain and the agents),
//! `DISPLAY` / `WAYLAND_DISPLAY`, and every provider key (`*_API_KEY`, `*_TOKEN`): a worker
//! gets its own provider key only, passed explicitly.
//!
//! Explicit variables must not name the credential channels in [`FORBIDDEN`]; the spawn fails
//! rather than hand a child the SSH agent or a credential prompt.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Parent variables a child inherits, by exact name.
pub const INHERITED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "TZ",
];

/// Parent variables a child inherits, by prefix (the locale categories).
pub const INHERITED_PREFIXES: &[&str] = &["LC_"];

/// Names that may never be passed to a child, even explicitly.
pub const FORBIDDEN: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "SSH_ASKPASS",
    "GIT_ASKPASS",
    "SUDO_ASKPASS",
    "DBUS_SESSION_BUS_ADDRESS",
    "GNOME_KEYRING_CONTROL",
];

/// Whether a parent variable is on the allowlist.
pub fn is_inherited(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    INHERITED.contains(&name) || INHERITED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether a name may not be passed to a child at all.
pub fn is_forbidden(name: &str) -> bool {
    FORBIDDEN.contains(&name)
}

/// The allowlisted subset of `vars` (the parent's environment, or any list for tests).
pub fn inherited_from<I>(vars: I) -> BTreeMap<OsString, OsString>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    vars.into_iter()
        .filter(|(name, _)| is_inherited(name))
        .collect()
}

/// The allowlisted subset of this process's environment.
pub fn inherited_from_parent() -> BTreeMap<OsString, OsString> {
    inherited_from(std::env::vars_os())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, value: &str) -> (OsString, OsString) {
        (name.into(), value.into())
    }

    #[test]
    fn only_allowlisted_parent_variables_are_inherited() {
        let kept = inherited_from([
            var("PATH", "/usr/bin"),
            var("HOME", "/home/u"),
            var("LC_ALL", "C.UTF-8"),
            var("SSH_AUTH_SOCK", "/tmp/agent"),
            var("OPENAI_API_KEY", "sk-parent"),
            var("GIT_ASKPASS", "/usr/bin/askpass"),
            var("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus"),
            var("XDG_RUNTIME_DIR", "/run/user/0"),
            var("PATHOLOGICAL", "x"),
        ]);
        let names: Vec<_> = kept
            .keys()
            .map(|k| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["HOME", "LC_ALL", "PATH"]);
    }

    #[test]
    fn credential_channels_are_forbidden_explicitly_too() {
        assert!(is_forbidden("SSH_AUTH_SOCK"));
        assert!(is_forbidden("GIT_ASKPASS"));
        assert!(!is_forbidden("ANTHROPIC_API_KEY"));
    }
}
