//! How a worker and its verification were confined, as every surface shows it: the attempt
//! page, the run page, `review --json`, the MCP review and `doctor`.
//!
//! The runner builds the sandbox; this module only names what applied and what was refused,
//! and reads the refusals a sandboxed process reports on its own output (a write into a
//! read-only mount fails with `EROFS`, which shells and runtimes print with the path).

use serde::{Deserialize, Serialize};
use specta::Type;

/// What confined a worker's processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ConfinementMode {
    /// bubblewrap: read-only root, writable worktree and private temp, own PID namespace,
    /// and (unless network is open) its own network namespace.
    Bwrap,
    /// Landlock: filesystem rules only (no network namespace).
    Landlock,
    /// Unconfined, because the user allowed it where no sandbox is available.
    None,
}

impl ConfinementMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfinementMode::Bwrap => "bwrap",
            ConfinementMode::Landlock => "landlock",
            ConfinementMode::None => "none",
        }
    }
}

/// What a confined worker could reach on the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
pub enum NetworkPolicy {
    /// Only its provider's origin, through Switchyard's egress proxy.
    #[serde(rename = "provider-only")]
    ProviderOnly,
    /// Nothing but its own loopback.
    #[serde(rename = "none")]
    None,
    /// The machine's network, as the user allowed for this attempt (or unconfined).
    #[serde(rename = "open")]
    Open,
}

impl NetworkPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkPolicy::ProviderOnly => "provider-only",
            NetworkPolicy::None => "none",
            NetworkPolicy::Open => "open",
        }
    }
}

/// What kind of thing was refused or undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum DenialKind {
    /// A write outside the writable paths failed (reported by the process itself).
    Write,
    /// A connection to a host that is not the provider was refused by the egress proxy.
    Connect,
    /// Something in the repository's git directory or the user's checkout changed and was
    /// put back (or, for the checkout, reported).
    Repository,
}

/// Who was refused: the worker or a verification command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum DenialSource {
    Worker,
    Verification,
}

/// One refused write or connection, or one undone change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Denial {
    pub kind: DenialKind,
    pub source: DenialSource,
    /// The path, or `host:port`.
    pub target: String,
    /// One line for people: the process's own message, or what the proxy refused.
    pub detail: String,
}

/// Denials kept per attempt; the rest are counted.
pub const MAX_DENIALS: usize = 200;

/// An attempt's confinement, as applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ConfinementReport {
    pub mode: ConfinementMode,
    pub network: NetworkPolicy,
    /// The origins the worker could reach (`scheme://host:port`), with provider-only network.
    pub allowed: Vec<String>,
    /// The paths the worker could write.
    pub writable: Vec<String>,
    /// Refused writes and connections, undone repository changes (at most [`MAX_DENIALS`]).
    pub denied: Vec<Denial>,
    /// How many denials there were beyond those listed.
    pub denied_more: u32,
}

impl ConfinementReport {
    /// Adds `denial` unless the same one is already listed; past [`MAX_DENIALS`] only counts.
    pub fn deny(&mut self, denial: Denial) {
        if self.denied.contains(&denial) {
            return;
        }
        if self.denied.len() >= MAX_DENIALS {
            self.denied_more = self.denied_more.saturating_add(1);
        } else {
            self.denied.push(denial);
        }
    }

    /// One line for people: `bwrap · network provider-only · 2 denied`.
    pub fn summary(&self) -> String {
        let denied = self.denied.len() + self.denied_more as usize;
        let mut text = format!("{} · network {}", self.mode.as_str(), self.network.as_str());
        if denied > 0 {
            text.push_str(&format!(" · {denied} denied"));
        }
        text
    }
}

/// What this machine offers for confining workers (for `doctor` and Settings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ConfinementSupport {
    /// The mode a new attempt gets here.
    pub mode: ConfinementMode,
    /// `bwrap` was found and could start a sandbox.
    pub bwrap: bool,
    pub bwrap_version: Option<String>,
    /// `socat` was found (it bridges the egress proxy into the sandbox).
    pub socat: bool,
    /// Why bubblewrap cannot be used here, when it cannot.
    pub reason: Option<String>,
    /// Settings → Workers → "Allow unconfined workers".
    pub allow_unconfined: bool,
    /// One line for people: what applies and, when something is missing, the fix.
    pub detail: String,
}

/// The path a line of a process's output says it could not write because the file system is
/// read-only or permission was denied, e.g. `sh: 1: cannot create /tmp/x: Read-only file
/// system` or `touch: cannot touch '/x': Permission denied`. `None` for any other line.
pub fn refused_write(line: &str) -> Option<String> {
    const MARKERS: [&str; 2] = ["Read-only file system", "Permission denied"];
    let (marker_at, marker) = MARKERS
        .iter()
        .find_map(|m| line.find(m).map(|at| (at, *m)))?;
    // Python and others put the path after: `Read-only file system: '/etc/x'`.
    if let Some(path) = quoted_path(&line[marker_at + marker.len()..]) {
        return Some(path);
    }
    let before = line[..marker_at]
        .trim_end()
        .trim_end_matches([':', ',', ' ']);
    // The path is the last thing before the marker that looks like one: quoted, or the last
    // word starting with `/`, `~` or `.`.
    let path = quoted_path(before).or_else(|| {
        before
            .rsplit([' ', '\t'])
            .map(|w| w.trim_matches(|c| c == ':' || c == ','))
            .find(|w| w.starts_with('/') || w.starts_with("~/") || w.starts_with("./"))
            .map(str::to_owned)
    })?;
    (!path.is_empty() && path.len() <= 4096).then_some(path)
}

fn quoted_path(text: &str) -> Option<String> {
    for quote in ['\'', '"', '`'] {
        let Some(end) = text.rfind(quote) else {
            continue;
        };
        let Some(start) = text[..end].rfind(quote) else {
            continue;
        };
        let inner = &text[start + 1..end];
        if inner.starts_with('/') || inner.starts_with("./") || inner.starts_with("~/") {
            return Some(inner.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_writes_are_read_from_what_shells_and_tools_print() {
        let cases = [
            (
                "sh: 1: cannot create /tmp/x: Read-only file system",
                Some("/tmp/x"),
            ),
            (
                "touch: cannot touch '/home/u/.bashrc': Read-only file system",
                Some("/home/u/.bashrc"),
            ),
            (
                "bash: /repo/.git/hooks/pre-commit: Permission denied",
                Some("/repo/.git/hooks/pre-commit"),
            ),
            (
                "error: could not lock config file /r/.git/config: Read-only file system",
                Some("/r/.git/config"),
            ),
            (
                "OSError: [Errno 30] Read-only file system: '/etc/x'",
                Some("/etc/x"),
            ),
            ("all 3 tests passed", None),
            ("Permission denied", None),
        ];
        for (line, want) in cases {
            assert_eq!(refused_write(line).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn denials_are_deduplicated_and_capped() {
        let mut report = ConfinementReport {
            mode: ConfinementMode::Bwrap,
            network: NetworkPolicy::None,
            allowed: Vec::new(),
            writable: Vec::new(),
            denied: Vec::new(),
            denied_more: 0,
        };
        let denial = |n: usize| Denial {
            kind: DenialKind::Write,
            source: DenialSource::Worker,
            target: format!("/x{n}"),
            detail: String::new(),
        };
        report.deny(denial(0));
        report.deny(denial(0));
        assert_eq!(report.denied.len(), 1);
        for n in 1..=MAX_DENIALS + 5 {
            report.deny(denial(n));
        }
        assert_eq!(report.denied.len(), MAX_DENIALS);
        assert_eq!(report.denied_more, 6);
        assert_eq!(report.summary(), "bwrap · network none · 206 denied");
    }

    #[test]
    fn the_json_names_match_the_cli_contract() {
        let json = serde_json::to_value(NetworkPolicy::ProviderOnly).unwrap_or_default();
        assert_eq!(json, "provider-only");
        let json = serde_json::to_value(ConfinementMode::None).unwrap_or_default();
        assert_eq!(json, "none");
    }
}

/// The origins (`scheme://host[:port]`) of every `http(s)://` URL written in `text`, a CLI's
/// own configuration file in whatever format (JSON, TOML, YAML, dotenv), in order, once each.
pub fn origins_in(text: &str) -> Vec<crate::origin::Origin> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("http") {
        let candidate = &rest[at..];
        let end = candidate
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '`' | ',' | '>' | '<' | ')' | ']' | '}')
            })
            .unwrap_or(candidate.len());
        let url = &candidate[..end];
        if url.starts_with("http://") || url.starts_with("https://") {
            if let Ok(origin) = crate::origin::Origin::of_url(url) {
                if !found.contains(&origin) {
                    found.push(origin);
                }
            }
        }
        rest = &candidate[end.max(4)..];
    }
    found
}

#[cfg(test)]
mod origin_tests {
    use super::origins_in;

    #[test]
    fn origins_are_found_in_any_config_format() {
        let text = r#"{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8123/v1"}}
base_url = "https://api.example.com/v1"
OPENAI_API_BASE=https://API.example.com:8443/x
not a url: httpx, http:/broken"#;
        let found: Vec<String> = origins_in(text).iter().map(|o| o.to_string()).collect();
        assert_eq!(
            found,
            [
                "http://127.0.0.1:8123",
                "https://api.example.com",
                "https://api.example.com:8443"
            ]
        );
    }
}
