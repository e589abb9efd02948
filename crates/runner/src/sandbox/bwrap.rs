//! The `bwrap` command line for one sandboxed process. Pure: the same sandbox and program
//! give the same arguments, so the order below is tested without starting anything.
//!
//! Order matters, because bubblewrap applies its operations in order and a later mount hides
//! what an earlier one put at the same path:
//! 1. the root read-only, a minimal `/dev`, `/proc` of the sandbox's own PID namespace;
//! 2. hidden (an empty read-only directory, or `/dev/null` over a file): `/run/user` (the
//!    session bus behind the keychain, the GnuPG and SSH agents), every socket under `/tmp`,
//!    `/run` and `/var/run` two levels deep with the directory holding it (tmux, X11, the SSH
//!    agent, editors' servers, a Docker or database socket), and the user's credential
//!    stores (`~/.ssh`, `~/.gnupg`, `~/.aws`, …);
//! 3. read-only again: paths the process must read that step 2 may have hidden (the
//!    repository's git directory, the egress proxy's sockets);
//! 4. writable: the worktree, the CLI's state, the private temp;
//! 5. the tmpfs of step 2 remounted read-only, so writing there fails as anywhere else.
//!
//! `/tmp` itself stays visible and read-only: tests and tools keep scripts and fixtures there,
//! and a write to it fails like any write outside the worktree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{Bridge, Network, Sandbox};

/// Hidden whole: the user's runtime directories (the D-Bus session bus that reaches the
/// keychain, the GnuPG and SSH agents, Wayland, PulseAudio).
pub const HIDDEN_ROOTS: &[&str] = &["/run/user"];

/// Scanned for sockets: a socket found here, or in a directory here, is hidden with that
/// directory (two levels: `/tmp/tmux-1000/default`, `/tmp/.X11-unix/X0`).
pub const SOCKET_ROOTS: &[&str] = &["/tmp", "/var/tmp", "/run", "/dev/shm"];

/// Entries looked at per scan, so a huge `/tmp` costs a bounded time.
const MAX_SCANNED: usize = 4_000;

/// Credential stores under the user's home, hidden from every sandboxed process.
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".Xauthority",
    ".ICEauthority",
];

/// The loopback port the egress proxy is bridged to inside the sandbox, unless a forwarded
/// origin already uses it.
pub const PROXY_PORT: u16 = 3128;

/// The arguments of the start-up check: the namespaces a real sandbox needs, nothing else.
pub fn probe_arguments() -> Vec<&'static str> {
    vec![
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--",
    ]
}

/// Shell run inside the sandbox before the program when network goes through bridges: start
/// one `socat` per bridge, wait until each listens, then `exec` the program (so it keeps the
/// process group, the pipes and the exit code). Arguments: `socat`, then `port socket` pairs,
/// then `--` and the program with its arguments.
const BRIDGE_SCRIPT: &str = r#"socat=$1; shift
ports=
while [ "$1" != "--" ]; do
  "$socat" "TCP-LISTEN:$1,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$2" </dev/null >/dev/null 2>&1 &
  ports="$ports $1"; shift 2
done
shift
for port in $ports; do
  hex=$(printf '%04X' "$port"); n=0
  until grep -q ":$hex 00000000:0000 0A" /proc/net/tcp 2>/dev/null; do
    n=$((n+1))
    if [ "$n" -gt 1000 ]; then echo "switchyard: the network bridge on port $port did not start" >&2; exit 125; fi
    sleep 0.005
  done
done
exec "$@""#;

fn push(out: &mut Vec<OsString>, items: &[&str]) {
    out.extend(items.iter().map(OsString::from));
}

fn push_path(out: &mut Vec<OsString>, flag: &str, path: &Path) {
    out.push(flag.into());
    out.push(path.into());
    out.push(path.into());
}

/// What to hide because it holds a socket: directories (tmpfs) and lone socket files.
fn socket_hides() -> (Vec<PathBuf>, Vec<PathBuf>) {
    use std::os::unix::fs::FileTypeExt;
    let (mut dirs, mut files) = (Vec::new(), Vec::new());
    let mut scanned = 0;
    let holds_socket = |dir: &Path, scanned: &mut usize| -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        for entry in entries.flatten() {
            *scanned += 1;
            if *scanned > MAX_SCANNED {
                return false;
            }
            if entry.file_type().is_ok_and(|t| t.is_socket()) {
                return true;
            }
        }
        false
    };
    for root in SOCKET_ROOTS {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        for entry in entries.flatten() {
            scanned += 1;
            if scanned > MAX_SCANNED {
                break;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_socket() {
                files.push(path);
            } else if kind.is_dir() && holds_socket(&path, &mut scanned) {
                dirs.push(path);
            }
        }
    }
    (dirs, files)
}

/// The full `bwrap` argument list that runs `program` with `args` in `cwd` inside `sandbox`.
pub fn arguments(
    sandbox: &Sandbox,
    program: &Path,
    args: &[OsString],
    cwd: &Path,
) -> Vec<OsString> {
    let mut out = Vec::with_capacity(64 + args.len());
    push(
        &mut out,
        &["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
    );
    let mut hidden_dirs: Vec<PathBuf> = HIDDEN_ROOTS
        .iter()
        .map(PathBuf::from)
        .filter(|root| root.is_dir() && !root.is_symlink())
        .collect();
    let (socket_dirs, socket_files) = socket_hides();
    hidden_dirs.extend(socket_dirs);
    let mut hidden_files = socket_files;
    if let Some(home) = &sandbox.home {
        for entry in HIDDEN_IN_HOME {
            let path = home.join(entry);
            if path.is_symlink() {
                continue;
            }
            if path.is_dir() {
                hidden_dirs.push(path);
            } else if path.exists() {
                hidden_files.push(path);
            }
        }
    }
    for dir in &hidden_dirs {
        out.push("--tmpfs".into());
        out.push(dir.into());
    }
    for file in &hidden_files {
        out.push("--ro-bind".into());
        out.push("/dev/null".into());
        out.push(file.into());
    }
    if sandbox.network == Network::Open {
        // Name resolution may live under /run (systemd-resolved's stub file).
        push_path(&mut out, "--ro-bind-try", Path::new("/run/systemd/resolve"));
    }
    for path in &sandbox.readable {
        if path.exists() {
            push_path(&mut out, "--ro-bind", path);
        }
    }
    for path in sandbox.writable.iter().chain([&sandbox.temp]) {
        if path.exists() {
            push_path(&mut out, "--bind", path);
        }
    }
    for dir in hidden_dirs {
        out.push("--remount-ro".into());
        out.push(dir.into());
    }
    // No capabilities: started by root, bubblewrap would otherwise leave the process every
    // capability, and with CAP_SYS_ADMIN it could remount the read-only root writable.
    push(
        &mut out,
        &[
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--cap-drop",
            "ALL",
        ],
    );
    if sandbox.network != Network::Open {
        out.push("--unshare-net".into());
    }
    out.push("--chdir".into());
    out.push(cwd.into());
    out.push("--".into());
    if let Network::Proxy { socat, bridges } = &sandbox.network {
        push(
            &mut out,
            &["/bin/sh", "-c", BRIDGE_SCRIPT, "switchyard-bridge"],
        );
        out.push(socat.into());
        for Bridge { port, socket } in bridges {
            out.push(port.to_string().into());
            out.push(socket.into());
        }
        out.push("--".into());
    }
    out.push(program.into());
    out.extend(args.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    fn position(args: &[String], window: &[&str]) -> usize {
        args.windows(window.len())
            .position(|w| w.iter().zip(window).all(|(a, b)| a == b))
            .unwrap_or_else(|| panic!("{window:?} not in {args:?}"))
    }

    #[test]
    fn the_root_is_read_only_and_only_the_given_paths_are_writable() {
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let worktree = work.path().join("wt");
        let temp = work.path().join("tmp");
        std::fs::create_dir_all(&worktree).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(&temp).unwrap_or_else(|e| panic!("{e}"));
        let sandbox = Sandbox::new("/usr/bin/bwrap".into(), temp.clone())
            .write(&worktree)
            .home(None);
        let args = strings(&arguments(
            &sandbox,
            Path::new("/bin/sh"),
            &["-c".into(), "true".into()],
            &worktree,
        ));
        let wt = worktree.to_string_lossy().into_owned();
        let tmp = temp.to_string_lossy().into_owned();
        assert_eq!(&args[..3], ["--ro-bind", "/", "/"]);
        let bind = position(&args, &["--bind", &wt, &wt]);
        position(&args, &["--bind", &tmp, &tmp]);
        assert!(!args.iter().any(|a| a == &format!("{wt}/..")), "{args:?}");
        if Path::new("/run/user").is_dir() {
            let tmpfs = position(&args, &["--tmpfs", "/run/user"]);
            let remount = position(&args, &["--remount-ro", "/run/user"]);
            assert!(tmpfs < bind && bind < remount, "{args:?}");
        }
        position(&args, &["--unshare-net"]);
        position(&args, &["--die-with-parent"]);
        position(&args, &["--cap-drop", "ALL"]);
        let end = position(&args, &["--", "/bin/sh", "-c", "true"]);
        assert_eq!(end + 4, args.len());
    }

    #[test]
    fn sockets_in_tmp_are_hidden_with_their_directory() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let socket = dir.path().join("agent.sock");
        let _listener =
            std::os::unix::net::UnixListener::bind(&socket).unwrap_or_else(|e| panic!("{e}"));
        let sandbox = Sandbox::new("/usr/bin/bwrap".into(), "/nonexistent".into()).home(None);
        let args = strings(&arguments(
            &sandbox,
            Path::new("/bin/true"),
            &[],
            Path::new("/"),
        ));
        // tempdir() lives in /tmp: the directory holding the socket is replaced.
        if dir.path().parent() == Some(Path::new("/tmp")) {
            let d = dir.path().to_string_lossy().into_owned();
            position(&args, &["--tmpfs", &d]);
            position(&args, &["--remount-ro", &d]);
        }
    }

    #[test]
    fn credential_stores_in_home_are_hidden() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(home.path().join(".netrc"), "machine x").unwrap_or_else(|e| panic!("{e}"));
        let sandbox = Sandbox::new("/usr/bin/bwrap".into(), home.path().join("t"))
            .home(Some(home.path().to_path_buf()));
        let args = strings(&arguments(
            &sandbox,
            Path::new("/bin/true"),
            &[],
            Path::new("/"),
        ));
        let h = home.path().to_string_lossy().into_owned();
        let ssh = format!("{h}/.ssh");
        let netrc = format!("{h}/.netrc");
        position(&args, &["--tmpfs", &ssh]);
        position(&args, &["--ro-bind", "/dev/null", &netrc]);
        position(&args, &["--remount-ro", &ssh]);
    }

    #[test]
    fn open_network_keeps_the_host_network_and_proxy_network_bridges_first() {
        let sandbox = Sandbox::new("/usr/bin/bwrap".into(), "/nonexistent".into())
            .home(None)
            .network(Network::Open);
        let args = strings(&arguments(
            &sandbox,
            Path::new("/bin/true"),
            &[],
            Path::new("/"),
        ));
        assert!(!args.contains(&"--unshare-net".to_owned()));
        let sandbox = sandbox.network(Network::Proxy {
            socat: "/usr/bin/socat".into(),
            bridges: vec![Bridge {
                port: PROXY_PORT,
                socket: "/s/proxy.sock".into(),
            }],
        });
        let args = strings(&arguments(
            &sandbox,
            Path::new("/bin/true"),
            &[],
            Path::new("/"),
        ));
        position(&args, &["--unshare-net"]);
        let script = position(&args, &["/bin/sh", "-c"]);
        let pairs = position(
            &args,
            &["/usr/bin/socat", "3128", "/s/proxy.sock", "--", "/bin/true"],
        );
        assert!(script < pairs);
    }
}
