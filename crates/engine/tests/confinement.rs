//! Workers and verification are confined (real bubblewrap, real git, real processes): what an
//! untrusted worker tries outside its worktree fails inside it, is recorded, and leaves the
//! user's checkout, hooks, config and home byte for byte as they were; the honest fix still
//! verifies, is approved and lands. A CLI worker reaches its provider through the egress proxy
//! and nothing else.
//!
//! bubblewrap is required (the test command installs it); without it these tests fail with
//! the reason instead of passing without having run.
#![allow(clippy::disallowed_methods)]

mod attempts_support;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use attempts_support::{gate, git, run_request, Fixture, FIX};
use switchyard_core::attempt::{AttemptLog, AttemptState};
use switchyard_core::confinement::{ConfinementMode, DenialKind, DenialSource, NetworkPolicy};
use switchyard_core::review::gates::GateName;
use switchyard_core::worker::WorkerCli;

async fn require_bwrap() {
    let support = switchyard_runner::sandbox::probe().await;
    assert!(
        support.usable_bwrap().is_some(),
        "bubblewrap is required for the confinement tests: {}",
        support.reason.unwrap_or_default()
    );
}

/// Every file under `dir` with its bytes (and mode), for byte-for-byte comparisons.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                stack.push(entry.path());
            }
        } else {
            let bytes = std::fs::read(&path).unwrap_or_default();
            out.insert(path, (bytes, meta.permissions().mode()));
        }
    }
    out
}

/// The user's side of the repository, as a byte-for-byte picture: the checkout's files (the
/// `.git` folder apart), the git directory's config, hooks and info.
fn user_side(fx: &Fixture) -> (BTreeMap<PathBuf, (Vec<u8>, u32)>, String) {
    let mut files = tree(&fx.repo);
    files.retain(|path, _| !path.starts_with(fx.repo.join(".git")));
    let git_dir = fx.repo.join(".git");
    for part in ["config", "hooks", "info"] {
        files.extend(tree(&git_dir.join(part)));
    }
    let refs = git(
        &fx.repo,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads/main",
        ],
    );
    (files, refs)
}

/// Everything an untrusted worker (or verification command) tries outside its worktree.
fn escape_script(marker: &str) -> String {
    format!(
        r#"common=$(git rev-parse --git-common-dir)
echo planted > "$common/../planted-{marker}.txt"
printf '#!/bin/sh\necho HOOK-RAN-{marker} > "$HOME/hook-ran-{marker}"\n' > "$common/hooks/pre-commit"
chmod +x "$common/hooks/pre-commit"
git config core.pager "sh -c 'echo pager-{marker}'"
git config alias.st "!echo alias-{marker}"
git config filter.evil.clean "echo filter-{marker}"
echo "echo pwned-{marker}" >> "$HOME/.switchyard-probe-{marker}"
echo x > /tmp/switchyard-outside-{marker}
echo ok > "$TMPDIR/private-{marker}"
"#
    )
}

#[tokio::test]
async fn an_exec_worker_changes_nothing_outside_its_worktree_and_the_honest_fix_lands() {
    require_bwrap().await;
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let marker = format!("w{}", std::process::id());
    let before = user_side(&fx);
    let home = std::env::var("HOME").expect("HOME");
    let worker = fx.worker("escape", &format!("{}{FIX}", escape_script(&marker)));
    let review = run_request(&engine, fx.request(&worker)).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let report = review.confinement.as_ref().expect("confinement recorded");
    assert_eq!(report.mode, ConfinementMode::Bwrap);
    assert_eq!(report.network, NetworkPolicy::None);
    assert_eq!(review.summary.confinement, Some(ConfinementMode::Bwrap));
    // Every write outside failed inside the worker and is named.
    let refused: Vec<&str> = report
        .denied
        .iter()
        .filter(|d| d.kind == DenialKind::Write && d.source == DenialSource::Worker)
        .map(|d| d.target.as_str())
        .collect();
    for wanted in [
        format!("planted-{marker}.txt"),
        "hooks/pre-commit".to_owned(),
        format!(".switchyard-probe-{marker}"),
        format!("/tmp/switchyard-outside-{marker}"),
    ] {
        assert!(
            refused.iter().any(|t| t.ends_with(&wanted)),
            "{wanted} not among the refused writes {refused:?}"
        );
    }
    // Nothing got through: the repository gate passed, and the user's side is byte-identical.
    let repository = gate(&review, GateName::Repository);
    assert!(repository.passed, "{repository:?}");
    assert_eq!(
        user_side(&fx),
        before,
        "the user's checkout, hooks or config changed"
    );
    assert!(!Path::new(&home)
        .join(format!(".switchyard-probe-{marker}"))
        .exists());
    assert!(!Path::new(&format!("/tmp/switchyard-outside-{marker}")).exists());
    let config = std::fs::read_to_string(fx.repo.join(".git/config")).expect("config");
    assert!(!config.contains(&marker), "{config}");
    // The denials are in the attempt's log too.
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    assert!(log.iter().any(
        |e| matches!(&e.entry, AttemptLog::Denied { denial } if denial.kind == DenialKind::Write)
    ));
    // The honest part verifies, is approved and lands, confined.
    assert!(review.can_approve, "{:?}", review.approve_blocked);
    let approved = engine
        .approve_attempt(&review.summary.id, "Fix add", true)
        .await
        .expect("approve");
    assert_eq!(approved.summary.state, AttemptState::Integrated);
    assert!(std::fs::read_to_string(fx.repo.join("calc.sh"))
        .expect("calc")
        .contains("$1 + $2"));
    // The user's next own commit runs nothing the worker wrote.
    attempts_support::write(&fx.repo, "notes.txt", "mine\n");
    git(&fx.repo, &["add", "notes.txt"]);
    git(&fx.repo, &["commit", "--quiet", "-m", "my own commit"]);
    assert!(!Path::new(&home).join(format!("hook-ran-{marker}")).exists());
}

#[tokio::test]
async fn verification_commands_are_confined_too() {
    require_bwrap().await;
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let marker = format!("v{}", std::process::id());
    let before = user_side(&fx);
    let worker = fx.worker("honest", FIX);
    let mut request = fx.request(&worker);
    let verify = fx.root.path().join("verify-escape.sh");
    std::fs::write(&verify, format!("{}sh test.sh\n", escape_script(&marker))).expect("write");
    request.verify = Some(vec![format!("sh {}", verify.display())]);
    let review = run_request(&engine, request).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let record = review.verification.as_ref().expect("verification");
    assert!(record.passed, "{record:?}");
    assert!(
        record.commands[0]
            .refused_writes
            .iter()
            .any(|p| p.ends_with("hooks/pre-commit")),
        "{:?}",
        record.commands[0].refused_writes
    );
    let report = review.confinement.as_ref().expect("report");
    assert!(report
        .denied
        .iter()
        .any(|d| d.source == DenialSource::Verification && d.kind == DenialKind::Write));
    assert!(gate(&review, GateName::Repository).passed);
    assert_eq!(user_side(&fx), before);
    assert!(!Path::new(&format!("/tmp/switchyard-outside-{marker}")).exists());
}

#[tokio::test]
async fn an_exec_worker_has_no_network_unless_the_attempt_allows_it() {
    require_bwrap().await;
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let reached = Arc::new(Mutex::new(0));
    let count = reached.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            if stream.is_ok() {
                *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            }
        }
    });
    let script = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\" \
         && echo REACHED || echo REFUSED\n{FIX}"
    );
    let worker = fx.worker("net", &script);
    let review = run_request(&engine, fx.request(&worker)).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    assert_eq!(*reached.lock().unwrap_or_else(|p| p.into_inner()), 0);
    let log = engine
        .attempt_log(&review.summary.id, 0)
        .await
        .expect("log");
    let text = format!("{log:?}");
    assert!(
        text.contains("REFUSED") && !text.contains("REACHED"),
        "{text}"
    );
    // Allowed for this attempt: the same worker reaches the server, and the review says so.
    let mut request = fx.request(&worker);
    request.allow_network = true;
    let open = run_request(&engine, request).await;
    let report = open.confinement.as_ref().expect("report");
    assert_eq!(report.network, NetworkPolicy::Open);
    assert_eq!(*reached.lock().unwrap_or_else(|p| p.into_inner()), 1);
}

/// A one-request HTTP server on the host; counts the requests it answered.
fn http_server(body: &'static str) -> (u16, Arc<Mutex<u32>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hits = Arc::new(Mutex::new(0));
    let count = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(10) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (port, hits)
}

#[tokio::test]
async fn a_cli_worker_reaches_only_its_provider_through_the_proxy() {
    require_bwrap().await;
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let (provider, provider_hits) = http_server("PROVIDER");
    let (other, other_hits) = http_server("OTHER");
    engine
        .set_provider_base_url("anthropic", Some(&format!("http://127.0.0.1:{provider}")))
        .await
        .expect("base url");
    // A look-alike `claude` (network is what is under test, not the CLI): it calls the base
    // URL Switchyard passes, through the proxy it is given, then another local server, and
    // makes the fix.
    let bin = fx.root.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        format!(
            r#"#!/usr/bin/env python3
import json, os, sys, urllib.request, urllib.error
if "--version" in sys.argv:
    print("2.1.0 (Claude Code)"); sys.exit(0)
sys.stdin.read()
def get(url):
    try:
        return urllib.request.urlopen(url, timeout=10).read().decode()
    except urllib.error.HTTPError as e:
        return "HTTP %d" % e.code
    except Exception as e:
        return "ERROR %s" % e
print(json.dumps({{"type": "system", "subtype": "init", "session_id": "s", "model": "claude-test", "tools": []}}))
print(json.dumps({{"type": "assistant", "message": {{"content": [{{"type": "text", "text": "provider: " + get(os.environ["ANTHROPIC_BASE_URL"] + "/v1/models")}}]}}}}))
print(json.dumps({{"type": "assistant", "message": {{"content": [{{"type": "text", "text": "other: " + get("http://127.0.0.1:{other}/")}}]}}}}))
src = open("calc.sh").read().replace("$1 - $2", "$1 + $2")
open("calc.sh", "w").write(src)
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "result": "fixed", "num_turns": 1}}))
"#
        ),
    )
    .expect("write claude");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    engine
        .set_worker_path(WorkerCli::Claude, Some(&claude.display().to_string()))
        .await
        .expect("path");
    let review = run_request(&engine, fx.request("claude")).await;
    assert_eq!(review.summary.state, AttemptState::Review, "{review:?}");
    let report = review.confinement.as_ref().expect("report");
    assert_eq!(report.mode, ConfinementMode::Bwrap);
    assert_eq!(report.network, NetworkPolicy::ProviderOnly);
    assert!(
        report
            .allowed
            .contains(&format!("http://127.0.0.1:{provider}")),
        "{report:?}"
    );
    let log = format!(
        "{:?}",
        engine
            .attempt_log(&review.summary.id, 0)
            .await
            .expect("log")
    );
    assert!(log.contains("provider: PROVIDER"), "{log}");
    assert!(log.contains("other: HTTP 403"), "{log}");
    assert!(*provider_hits.lock().unwrap_or_else(|p| p.into_inner()) >= 1);
    assert_eq!(*other_hits.lock().unwrap_or_else(|p| p.into_inner()), 0);
    let refused: Vec<&str> = report
        .denied
        .iter()
        .filter(|d| d.kind == DenialKind::Connect)
        .map(|d| d.target.as_str())
        .collect();
    assert_eq!(refused, [format!("127.0.0.1:{other}").as_str()]);
    assert!(
        log.contains("Denied"),
        "the refusal is in the attempt's log: {log}"
    );
}
