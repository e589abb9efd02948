//! The sandbox against real bubblewrap, real processes and real sockets: what a confined
//! process can write and reach, and the egress proxy's allowlist.
//!
//! bubblewrap is required (the test command installs it): without a usable `bwrap` these tests
//! fail with the reason instead of passing without having run.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchyard_runner::process::{self, ProcessSpec};
use switchyard_runner::sandbox::proxy::{EgressProxy, ProxyEvent, Target};
use switchyard_runner::sandbox::{self, Network, Sandbox};

async fn bwrap() -> PathBuf {
    let support = sandbox::probe().await;
    match support.usable_bwrap() {
        Some(path) => path.to_path_buf(),
        None => panic!(
            "bubblewrap is required for the sandbox tests: {}",
            support.reason.unwrap_or_default()
        ),
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    worktree: PathBuf,
    temp: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical");
    let make = |name: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        path
    };
    let (worktree, temp, home, outside) = (make("wt"), make("tmp"), make("home"), make("outside"));
    std::fs::create_dir_all(home.join(".ssh")).expect("ssh dir");
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").expect("key");
    std::fs::write(home.join(".bashrc"), "# rc\n").expect("bashrc");
    Fixture {
        _dir: dir,
        root,
        worktree,
        temp,
        home,
        outside,
    }
}

async fn sh(sandbox: Sandbox, cwd: &Path, script: &str) -> (Option<i32>, String) {
    let done = process::run(
        ProcessSpec::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(cwd)
            .timeout(Duration::from_secs(30))
            .confine(sandbox),
    )
    .await
    .expect("runs");
    let mut text = String::from_utf8_lossy(&done.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&done.stderr));
    (done.exit.code, text)
}

#[tokio::test]
async fn only_the_worktree_and_private_temp_are_writable() {
    let bwrap = bwrap().await;
    let f = fixture();
    let sandbox = Sandbox::new(bwrap, f.temp.clone())
        .home(Some(f.home.clone()))
        .write(&f.worktree)
        .read(&f.outside);
    let script = format!(
        "echo fixed > fix.txt && echo ok-worktree; \
         echo t > \"$TMPDIR/scratch\" && echo ok-temp; \
         echo x > {outside}/planted; \
         echo x >> {home}/.bashrc; \
         echo x > /tmp/x-switchyard-sandbox-test; \
         cat {home}/.ssh/id_ed25519 && echo LEAKED-KEY; \
         echo done",
        outside = f.outside.display(),
        home = f.home.display(),
    );
    let (code, out) = sh(sandbox, &f.worktree, &script).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("ok-worktree") && out.contains("ok-temp"),
        "{out}"
    );
    assert!(out.contains("Read-only file system"), "{out}");
    assert!(
        !out.contains("LEAKED-KEY"),
        "the credential store was readable: {out}"
    );
    assert_eq!(
        std::fs::read_to_string(f.worktree.join("fix.txt"))
            .ok()
            .as_deref(),
        Some("fixed\n")
    );
    assert!(f.temp.join("scratch").exists());
    assert!(!f.outside.join("planted").exists(), "wrote outside: {out}");
    assert_eq!(
        std::fs::read_to_string(f.home.join(".bashrc"))
            .ok()
            .as_deref(),
        Some("# rc\n")
    );
    assert!(!Path::new("/tmp/x-switchyard-sandbox-test").exists());
    // What the shell printed names the refused paths, which is how attempts record them.
    let refused: Vec<String> = out
        .lines()
        .filter_map(switchyard_core::confinement::refused_write)
        .collect();
    assert!(
        refused.iter().any(|p| p.ends_with("/planted")),
        "{refused:?} from {out}"
    );
    drop(f.root);
}

#[tokio::test]
async fn a_sandboxed_process_has_no_capabilities_even_when_started_by_root() {
    let bwrap = bwrap().await;
    let f = fixture();
    let sandbox = Sandbox::new(bwrap, f.temp.clone())
        .home(None)
        .write(&f.worktree);
    // With CAP_SYS_ADMIN (root keeps every capability unless they are dropped) the read-only
    // root could be remounted writable.
    let (_, out) = sh(
        sandbox,
        &f.worktree,
        "grep CapEff /proc/self/status; mount -o remount,rw / && echo REMOUNTED; \
         touch /switchyard-root-probe && echo WROTE-ROOT; echo done",
    )
    .await;
    assert!(out.contains("CapEff:\t0000000000000000"), "{out}");
    assert!(
        !out.contains("REMOUNTED") && !out.contains("WROTE-ROOT"),
        "{out}"
    );
    assert!(!Path::new("/switchyard-root-probe").exists());
}

/// Fields of `/proc/<pid>/stat` after the command: state, ppid, pgrp, session, tty_nr.
fn stat_fields(pid: u32) -> Vec<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
    after
        .split(' ')
        .skip(1)
        .take(4)
        .filter_map(|f| f.parse().ok())
        .collect()
}

#[tokio::test]
async fn a_sandbox_leads_its_own_session_and_group_without_a_terminal() {
    let bwrap = bwrap().await;
    let f = fixture();
    let sandbox = Sandbox::new(bwrap, f.temp.clone())
        .home(None)
        .write(&f.worktree);
    assert!(
        sandbox.setsid.is_some(),
        "setsid (util-linux) is expected on PATH"
    );
    let child = process::spawn(
        ProcessSpec::new("sleep")
            .arg("30")
            .current_dir(&f.worktree)
            .confine(sandbox),
    )
    .expect("spawn");
    let pid = child.pid();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    // `setsid` runs first, then execs bwrap under the same pid.
    let fields = loop {
        let fields = stat_fields(pid);
        if fields.len() == 4 && fields[2] == i64::from(pid) {
            break fields;
        }
        assert!(std::time::Instant::now() < deadline, "{fields:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // [ppid, pgrp, session, tty_nr]: its own group (what the runner signals), its own session,
    // and no controlling terminal to push keystrokes into.
    assert_eq!(fields[1], i64::from(pid), "{fields:?}");
    assert_eq!(fields[2], i64::from(pid), "{fields:?}");
    assert_eq!(fields[3], 0, "{fields:?}");
    child.cancel();
    let exit = child.wait().await.expect("exit");
    assert_ne!(exit.ended_by, process::EndedBy::Exited, "{exit:?}");
}

#[tokio::test]
async fn no_network_means_not_even_the_hosts_loopback() {
    let bwrap = bwrap().await;
    let f = fixture();
    let server = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = server.local_addr().expect("addr").port();
    let sandbox = Sandbox::new(bwrap, f.temp.clone())
        .home(None)
        .write(&f.worktree);
    let script = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('CONNECTED')\""
    );
    let (code, out) = sh(sandbox, &f.worktree, &script).await;
    assert_ne!(code, Some(0), "{out}");
    assert!(!out.contains("CONNECTED"), "{out}");
    assert!(
        out.contains("Connection refused") || out.contains("Errno"),
        "{out}"
    );
}

/// A tiny HTTP server on the host: answers every request with `body`, and records what it got.
fn http_server(body: &'static str) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(20) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            log.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (port, seen)
}

#[tokio::test]
async fn the_egress_proxy_reaches_the_provider_and_refuses_anything_else() {
    let bwrap = bwrap().await;
    let socat = sandbox::probe()
        .await
        .socat
        .expect("socat is required for provider-only network (install the socat package)");
    let f = fixture();
    let (provider, provider_seen) = http_server("PROVIDER");
    let (other, other_seen) = http_server("OTHER");
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let proxy = EgressProxy::start(
        &f.root.join("net"),
        vec![Target::new("127.0.0.1", provider)],
        Arc::new(move |event| sink.lock().unwrap_or_else(|p| p.into_inner()).push(event)),
    )
    .expect("proxy starts");
    let sandbox = Sandbox::new(bwrap, f.temp.clone())
        .home(None)
        .write(&f.worktree)
        .read(proxy.dir())
        .network(Network::Proxy {
            socat,
            bridges: proxy.bridges().to_vec(),
        });
    let secret = "sk-ant-test-0123456789abcdef";
    let script = format!(
        r#"python3 - <<'EOF'
import urllib.request, urllib.error, socket
proxy = urllib.request.ProxyHandler({{"http": "{url}", "https": "{url}"}})
opener = urllib.request.build_opener(proxy)
def get(port):
    req = urllib.request.Request("http://127.0.0.1:%d/v1/messages" % port, headers={{"x-api-key": "{secret}"}})
    try:
        return opener.open(req, timeout=10).read().decode()
    except urllib.error.HTTPError as e:
        return "HTTP %d %s" % (e.code, e.read().decode().strip())
    except Exception as e:
        return "ERROR %s" % e
print("via-proxy:", get({provider}))
print("other:", get({other}))
s = socket.create_connection(("127.0.0.1", {provider}), timeout=5)
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
print("direct:", s.recv(4096).decode().split("\r\n\r\n")[-1])
try:
    socket.create_connection(("127.0.0.1", {other}), timeout=3)
    print("direct-other: CONNECTED")
except Exception as e:
    print("direct-other: refused", e)
EOF"#,
        url = proxy.url(),
    );
    let (code, out) = sh(sandbox, &f.worktree, &script).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("via-proxy: PROVIDER"), "{out}");
    assert!(out.contains("other: HTTP 403"), "{out}");
    assert!(out.contains("direct: PROVIDER"), "{out}");
    assert!(out.contains("direct-other: refused"), "{out}");
    assert!(
        other_seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty(),
        "the other server was reached"
    );
    let provider_got = provider_seen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .join("\n");
    assert!(
        provider_got.contains(secret),
        "the key reaches the provider"
    );
    assert!(
        provider_got.starts_with("GET /v1/messages"),
        "{provider_got}"
    );
    let events = events.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let refused: Vec<&ProxyEvent> = events
        .iter()
        .filter(|e| matches!(e, ProxyEvent::Refused { .. }))
        .collect();
    assert_eq!(refused.len(), 1, "{events:?}");
    let ProxyEvent::Refused { target, reason } = refused[0] else {
        unreachable!()
    };
    assert_eq!(target, &format!("127.0.0.1:{other}"));
    assert!(reason.contains("not this worker's provider"), "{reason}");
    assert!(
        !format!("{events:?}").contains(secret),
        "the proxy's log holds the key"
    );
    let dir = proxy.dir().to_path_buf();
    drop(proxy);
    assert!(!dir.exists(), "the proxy's sockets outlived it");
}

#[tokio::test]
async fn a_missing_program_is_still_not_found_when_confined() {
    let bwrap = bwrap().await;
    let f = fixture();
    let result = process::spawn(
        ProcessSpec::new("no-such-program-switchyard")
            .current_dir(&f.worktree)
            .confine(Sandbox::new(bwrap, f.temp.clone()).write(&f.worktree)),
    );
    assert!(
        matches!(result, Err(process::ProcessError::NotFound { .. })),
        "{result:?}"
    );
}
