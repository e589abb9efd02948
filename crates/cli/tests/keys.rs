//! `switchyard keys …`, `providers …` and `ask` through the real binary, each test with its own
//! SWITCHYARD_HOME, a scripted OpenAI-compatible server on 127.0.0.1 (JSON and SSE, the
//! providers crate's test server) and the real keychain.
//!
//! Tests that store a key need a Secret Service: run them inside `with_session` (scripts/lib.sh:
//! a private D-Bus session with an unlocked gnome-keyring). Without a session bus they print a
//! note and skip, unless `SWITCHYARD_REQUIRE_KEYCHAIN` is set. Each home names a keychain
//! service of its own, so the user's real keys are never touched.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

#[path = "../../providers/tests/support/mod.rs"]
mod http;

#[path = "../../engine/tests/leak_scan/mod.rs"]
mod leak_scan;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use http::{wire, Reply, TestServer};
use serde_json::{json, Value};
use switchyard_store::{Store, DATABASE_FILE};

/// A recognizable test key; its bytes must appear nowhere but in the keychain and the header.
const KEY: &str = "sk-CLILEAK-3c0ffee5-9d8e7f60";

static HOMES: AtomicU32 = AtomicU32::new(0);

/// A runtime for the test server; the binary runs as a child while the server answers.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A fresh home whose keys go to a keychain service of its own.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let service = format!(
        "dev.switchyard.test.cli.{}.{}",
        std::process::id(),
        HOMES.fetch_add(1, Ordering::Relaxed)
    );
    runtime().block_on(async {
        let store = Store::open(&dir.path().join(DATABASE_FILE))
            .await
            .expect("open store");
        store
            .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
            .await
            .expect("keychain service setting");
        store.close().await;
    });
    dir
}

fn keychain_present() -> bool {
    if cfg!(not(target_os = "linux")) || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("SWITCHYARD_REQUIRE_KEYCHAIN").is_none(),
        "SWITCHYARD_REQUIRE_KEYCHAIN is set but there is no D-Bus session bus"
    );
    eprintln!(
        "note: no D-Bus session bus; skipping a real keychain test (run it under with_session)"
    );
    false
}

/// Runs the binary with `stdin` piped in (or empty) and the provider variables cleared.
fn run(home: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .env("SWITCHYARD_HOME", home)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "OPENROUTER_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "DEEPSEEK_API_KEY",
        "ARTIFICIAL_ANALYSIS_API_KEY",
    ] {
        command.env_remove(var);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("run switchyard");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait for switchyard")
}

/// Every output of a run, for the leak check.
struct Transcript(Vec<u8>);

impl Transcript {
    fn new() -> Self {
        Self(Vec::new())
    }

    fn record(&mut self, out: &Output) {
        self.0.extend_from_slice(&out.stdout);
        self.0.extend_from_slice(&out.stderr);
    }
}

fn ok_json(out: &Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} must print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn err_json(out: &Output, what: &str) -> Value {
    assert!(!out.status.success(), "{what} should fail");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: JSON error body ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    body["error"].clone()
}

fn row<'a>(list: &'a Value, id: &str, field: &str) -> &'a Value {
    list.as_array()
        .expect("array")
        .iter()
        .find(|r| r[field] == id)
        .unwrap_or_else(|| panic!("{id} in {list}"))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn a_key_is_set_from_stdin_listed_tested_used_and_deleted_without_leaking() {
    if !keychain_present() {
        return;
    }
    let home = home();
    let h = home.path();
    let rt = runtime();
    let server = rt.block_on(TestServer::start(vec![
        Reply::json(200, wire::model_list(5)),
        Reply::sse(wire::openai_stream(
            "gpt-4o-mini-2024-07-18",
            &["Hello", " from", " the test server."],
            Some((1_000_000, 500_000)),
        )),
    ]));
    let mut transcript = Transcript::new();

    let out = run(
        h,
        &[
            "providers",
            "set",
            "openai",
            "--base-url",
            &server.at("/v1/"),
            "--json",
        ],
        "",
        &[],
    );
    transcript.record(&out);
    assert_eq!(ok_json(&out, "providers set")["baseUrl"], server.at("/v1"));

    let out = run(
        h,
        &["keys", "set", "openai", "--json"],
        &format!("{KEY}\n"),
        &[],
    );
    transcript.record(&out);
    let stored = ok_json(&out, "keys set");
    assert_eq!(stored["provider"], "openai");
    assert_eq!(
        stored["key"],
        json!({"state": "stored", "last4": "7f60", "origin": server.url})
    );

    let out = run(h, &["keys", "list", "--json"], "", &[]);
    transcript.record(&out);
    let list = ok_json(&out, "keys list");
    assert_eq!(
        row(&list, "openai", "provider")["key"],
        json!({"state": "stored", "last4": "7f60", "origin": server.url})
    );
    assert_eq!(row(&list, "openai", "provider")["keyOrigin"], server.url);
    assert_eq!(row(&list, "openai", "provider")["keyOriginMatches"], true);
    assert_eq!(
        row(&list, "anthropic", "provider")["key"],
        json!({"state": "missing"})
    );
    assert!(
        list.as_array()
            .expect("array")
            .iter()
            .all(|r| r["provider"] != "ollama"),
        "local servers take no key and are not listed: {list}"
    );

    let out = run(h, &["keys", "test", "openai", "--json"], "", &[]);
    transcript.record(&out);
    let report = ok_json(&out, "keys test");
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["modelCount"], 5);
    assert_eq!(report["keySource"], "keychain");

    // A catalog id routes to the vendor's own API when its key is there; the price comes from
    // the bundled catalog.
    let card = ok_json(
        &run(h, &["model", "openai/gpt-4o-mini", "--json"], "", &[]),
        "model",
    );
    let (price_in, price_out) = (
        card["pricing"]["prompt_per_m"]
            .as_f64()
            .expect("input price"),
        card["pricing"]["completion_per_m"]
            .as_f64()
            .expect("output price"),
    );
    let out = run(
        h,
        &["ask", "--model", "openai/gpt-4o-mini", "Say hello"],
        "",
        &[],
    );
    transcript.record(&out);
    assert!(
        out.status.success(),
        "ask: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Hello from the test server.\n"
    );
    let summary = String::from_utf8_lossy(&out.stderr);
    let expected_cost = format!("${:.4}", price_in + price_out * 0.5);
    assert!(
        summary.contains("openai · gpt-4o-mini · 1000000 in, 500000 out tokens")
            && summary.contains(&expected_cost),
        "usage and cost on stderr ({expected_cost}): {summary}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/models");
    assert_eq!(requests[1].path, "/v1/chat/completions");
    for request in &requests {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
    assert_eq!(requests[1].json()["stream"], true);
    assert_eq!(requests[1].json()["model"], "gpt-4o-mini");

    let out = run(h, &["keys", "delete", "openai", "--json"], "", &[]);
    transcript.record(&out);
    let deleted = ok_json(&out, "keys delete");
    assert_eq!(deleted["deleted"], true);
    assert_eq!(deleted["key"], json!({"state": "missing"}));
    let out = run(h, &["keys", "delete", "openai", "--json"], "", &[]);
    transcript.record(&out);
    assert_eq!(ok_json(&out, "keys delete again")["deleted"], false);
    let out = run(h, &["keys", "test", "openai", "--json"], "", &[]);
    transcript.record(&out);
    assert_eq!(
        err_json(&out, "test without key")["code"],
        "missingCredential"
    );

    assert!(
        !contains(&transcript.0, KEY),
        "the key appeared in stdout or stderr"
    );
    assert!(
        !contains(&leak_scan::all_bytes(h), KEY),
        "the key reached the data directory (SQLite file, WAL or anything else)"
    );
}

#[test]
fn an_environment_key_is_shown_as_such_and_never_printed() {
    let home = home();
    let env_key = "sk-ENVCLI-0a1b2c3d-4e5f6071";
    let out = run(
        home.path(),
        &["keys", "list", "--json"],
        "",
        &[("DEEPSEEK_API_KEY", env_key)],
    );
    let list = ok_json(&out, "keys list");
    assert_eq!(
        row(&list, "deepseek", "provider")["key"],
        json!({"state": "environment", "variable": "DEEPSEEK_API_KEY", "last4": "6071"})
    );
    let human = run(
        home.path(),
        &["keys", "list"],
        "",
        &[("DEEPSEEK_API_KEY", env_key)],
    );
    assert!(String::from_utf8_lossy(&human.stdout).contains("from DEEPSEEK_API_KEY …6071"));
    for out in [&out, &human] {
        assert!(!contains(&out.stdout, env_key) && !contains(&out.stderr, env_key));
    }
    assert!(!contains(&leak_scan::all_bytes(home.path()), env_key));
}

#[test]
fn keys_set_refuses_empty_stdin_argv_keys_and_local_servers() {
    if !keychain_present() {
        return;
    }
    let home = home();
    let h = home.path();
    for stdin in ["", " \n\n"] {
        let err = err_json(
            &run(h, &["keys", "set", "openai", "--json"], stdin, &[]),
            "empty stdin",
        );
        assert_eq!(err["code"], "invalidInput");
        let message = err["message"].as_str().expect("message");
        assert!(
            message.contains("no key on standard input") && message.contains("never taken"),
            "{message}"
        );
    }
    let err = err_json(
        &run(
            h,
            &["keys", "set", "openai", "--json"],
            "sk-one\nsk-two\n",
            &[],
        ),
        "two lines",
    );
    assert!(err["message"]
        .as_str()
        .is_some_and(|m| m.contains("line breaks") && !m.contains("sk-one")));

    let argv = run(h, &["keys", "set", "openai", "sk-from-argv-1234"], "", &[]);
    assert!(
        !argv.status.success(),
        "a key on the command line is refused"
    );
    let err = err_json(
        &run(h, &["keys", "set", "ollama", "--json"], "sk-x", &[]),
        "local",
    );
    assert_eq!(err["code"], "invalidInput");
    let err = err_json(
        &run(h, &["keys", "set", "nope", "--json"], "sk-x", &[]),
        "unknown",
    );
    assert_eq!(err["code"], "notFound");

    let list = ok_json(&run(h, &["keys", "list", "--json"], "", &[]), "list");
    assert_eq!(
        row(&list, "openai", "provider")["key"],
        json!({"state": "missing"}),
        "nothing was stored by the refused attempts"
    );
}

#[test]
fn without_a_session_bus_the_keychain_error_says_how_to_fix_it() {
    // No D-Bus address: the keychain crate refuses before any D-Bus call, so this cannot hang.
    let home = home();
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .env("SWITCHYARD_HOME", home.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("OPENAI_API_KEY")
        .args(["keys", "set", "openai", "--json"])
        .stdin(Stdio::null());
    let out = command.output().expect("run");
    let err = err_json(&out, "no keychain");
    assert_eq!(err["code"], "keychain");
    let message = err["message"].as_str().expect("message");
    assert!(
        message.contains("no keychain available") && message.contains("gnome-keyring-daemon"),
        "{message}"
    );
}

#[test]
fn providers_are_listed_added_moved_and_removed() {
    let home = home();
    let h = home.path();
    let list = ok_json(&run(h, &["providers", "list", "--json"], "", &[]), "list");
    let ids: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "openrouter",
            "openai",
            "anthropic",
            "gemini",
            "deepseek",
            "ollama",
            "lmstudio",
            "artificialanalysis"
        ]
    );
    assert_eq!(row(&list, "ollama", "id")["key"]["state"], "notNeeded");
    assert!(row(&list, "ollama", "id")["local"]["reachable"].is_boolean());

    let added = ok_json(
        &run(
            h,
            &[
                "providers",
                "add",
                "lab-vllm",
                "--kind",
                "openai",
                "--base-url",
                "http://127.0.0.1:8000/v1/",
                "--name",
                "Lab vLLM",
                "--json",
            ],
            "",
            &[],
        ),
        "add",
    );
    assert_eq!(added["kind"], "openai-compatible");
    assert_eq!(added["baseUrl"], "http://127.0.0.1:8000/v1");
    assert_eq!(added["custom"], true);
    let again = err_json(
        &run(
            h,
            &[
                "providers",
                "add",
                "lab-vllm",
                "--kind",
                "anthropic",
                "--base-url",
                "http://h",
                "--json",
            ],
            "",
            &[],
        ),
        "taken",
    );
    assert_eq!(again["code"], "invalidInput");
    let bad_kind = run(
        h,
        &[
            "providers",
            "add",
            "x",
            "--kind",
            "grpc",
            "--base-url",
            "http://h",
        ],
        "",
        &[],
    );
    assert!(!bad_kind.status.success(), "unknown kinds are refused");

    let moved = ok_json(
        &run(
            h,
            &[
                "providers",
                "set",
                "anthropic",
                "--base-url",
                "http://127.0.0.1:9",
                "--json",
            ],
            "",
            &[],
        ),
        "set",
    );
    assert_eq!(moved["baseUrl"], "http://127.0.0.1:9");
    let reset = ok_json(
        &run(
            h,
            &["providers", "set", "anthropic", "--default", "--json"],
            "",
            &[],
        ),
        "reset",
    );
    assert_eq!(reset["baseUrl"], "https://api.anthropic.com");
    let bad = err_json(
        &run(
            h,
            &[
                "providers",
                "set",
                "anthropic",
                "--base-url",
                "ftp://h",
                "--json",
            ],
            "",
            &[],
        ),
        "bad url",
    );
    assert_eq!(bad["code"], "invalidInput");

    let human = run(h, &["providers", "list"], "", &[]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("lab-vllm (custom)") && text.contains("http://127.0.0.1:8000/v1"),
        "{text}"
    );
    ok_json(
        &run(h, &["providers", "remove", "lab-vllm", "--json"], "", &[]),
        "remove",
    );
    let list = ok_json(&run(h, &["providers", "list", "--json"], "", &[]), "list");
    assert!(list
        .as_array()
        .expect("array")
        .iter()
        .all(|p| p["id"] != "lab-vllm"));
}

#[test]
fn ask_json_streams_deltas_then_one_answer_line() {
    let home = home();
    let h = home.path();
    let rt = runtime();
    let deltas = ["The answer", " is", " 42."];
    let server = rt.block_on(TestServer::start(vec![Reply::sse(wire::openai_stream(
        "qwen3-8b",
        &deltas,
        Some((21, 7)),
    ))]));
    ok_json(
        &run(
            h,
            &[
                "providers",
                "add",
                "lab",
                "--kind",
                "openai",
                "--base-url",
                &server.at("/v1"),
                "--json",
            ],
            "",
            &[],
        ),
        "add",
    );
    let out = run(
        h,
        &[
            "ask",
            "--model",
            "lab:qwen3-8b",
            "--system",
            "Be brief.",
            "--json",
            "-",
        ],
        "What is six times seven?",
        &[],
    );
    assert!(
        out.status.success(),
        "ask: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("JSON line ({e}): {l}")))
        .collect();
    let (last, streamed) = lines.split_last().expect("lines");
    let text: String = streamed
        .iter()
        .map(|l| l["delta"].as_str().expect("delta line"))
        .collect();
    assert_eq!(text, deltas.concat());
    let answer = &last["answer"];
    assert_eq!(answer["text"], deltas.concat());
    assert_eq!(answer["providerId"], "lab");
    assert_eq!(answer["providerModel"], "qwen3-8b");
    assert_eq!(
        answer["usage"],
        json!({"inputTokens": 21, "outputTokens": 7, "estimated": false})
    );
    assert!(
        answer["cost"].is_null(),
        "no catalog price for a custom model: {answer}"
    );
    assert!(answer["keySource"].is_null());

    let sent = server.requests();
    let body = sent[0].json();
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "Be brief.");
    assert_eq!(body["messages"][1]["content"], "What is six times seven?");
    assert_eq!(sent[0].header("authorization"), None);
}

#[test]
fn keys_test_reports_the_providers_own_error_and_exits_2() {
    let home = home();
    let h = home.path();
    let rt = runtime();
    let server = rt.block_on(TestServer::start(vec![Reply::json(
        401,
        wire::openai_error(
            "Incorrect API key provided: sk-wrong",
            "invalid_request_error",
            "invalid_api_key",
        ),
    )]));
    ok_json(
        &run(
            h,
            &[
                "providers",
                "add",
                "gateway",
                "--kind",
                "openai",
                "--base-url",
                &server.at("/v1"),
                "--json",
            ],
            "",
            &[],
        ),
        "add",
    );
    let out = run(h, &["keys", "test", "gateway", "--json"], "", &[]);
    assert_eq!(out.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&out.stdout).expect("report JSON");
    assert_eq!(report["ok"], false);
    assert_eq!(report["httpStatus"], 401);
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("Incorrect API key provided")),
        "{report}"
    );
}

#[test]
fn a_key_stays_bound_to_its_origin_unless_keep_key_moves_it() {
    if !keychain_present() {
        return;
    }
    let home = home();
    let h = home.path();
    let rt = runtime();
    let entered_for = rt.block_on(TestServer::start(vec![Reply::json(
        200,
        wire::model_list(2),
    )]));
    // Everything the new origin would be asked, it would answer: only the CLI's refusal
    // keeps the key from it until --keep-key.
    let new_origin = rt.block_on(TestServer::start(vec![Reply::json(
        200,
        wire::model_list(6),
    )]));
    let mut transcript = Transcript::new();
    let mut step = |args: &[&str], stdin: &str| {
        let out = run(h, args, stdin, &[]);
        transcript.record(&out);
        out
    };
    ok_json(
        &step(
            &[
                "providers",
                "set",
                "deepseek",
                "--base-url",
                &entered_for.url,
                "--json",
            ],
            "",
        ),
        "set",
    );
    ok_json(
        &step(&["keys", "set", "deepseek", "--json"], KEY),
        "keys set",
    );
    assert_eq!(
        ok_json(&step(&["keys", "test", "deepseek", "--json"], ""), "test")["ok"],
        true
    );

    // Without --keep-key the key stays bound to the old origin, and says so.
    let moved = step(
        &[
            "providers",
            "set",
            "deepseek",
            "--base-url",
            &new_origin.url,
        ],
        "",
    );
    assert!(moved.status.success());
    let text = String::from_utf8_lossy(&moved.stdout);
    assert!(
        text.contains(&format!("stays bound to {}", entered_for.url))
            && text.contains("--keep-key"),
        "{text}"
    );
    let list = ok_json(&step(&["keys", "list", "--json"], ""), "list");
    let deepseek = row(&list, "deepseek", "provider");
    assert_eq!(deepseek["origin"], new_origin.url);
    assert_eq!(deepseek["keyOrigin"], entered_for.url);
    assert_eq!(deepseek["keyOriginMatches"], false);
    assert_eq!(
        deepseek["key"],
        json!({"state": "originMismatch", "last4": "7f60", "origin": entered_for.url,
               "targetOrigin": new_origin.url, "variable": null})
    );
    let human = String::from_utf8_lossy(&step(&["keys", "list"], "").stdout).into_owned();
    assert!(
        human.contains(&format!(
            "held for {}: not sent to {}",
            entered_for.url, new_origin.url
        )),
        "{human}"
    );
    for args in [
        &["keys", "test", "deepseek", "--json"][..],
        &["ask", "--model", "deepseek:deepseek-chat", "--json", "hi"][..],
    ] {
        let err = err_json(&step(args, ""), "withheld");
        assert_eq!(err["code"], "keyOriginMismatch", "{args:?}: {err}");
        let message = err["message"].as_str().expect("message");
        assert!(
            message.contains(&entered_for.url) && message.contains(&new_origin.url),
            "{message}"
        );
    }
    assert!(
        new_origin.requests().is_empty(),
        "nothing went to the new origin"
    );

    // --keep-key moves it, explicitly.
    let kept = ok_json(
        &step(
            &[
                "providers",
                "set",
                "deepseek",
                "--base-url",
                &new_origin.url,
                "--keep-key",
                "--json",
            ],
            "",
        ),
        "keep key",
    );
    assert_eq!(
        kept["key"],
        json!({"state": "stored", "last4": "7f60", "origin": new_origin.url})
    );
    assert_eq!(
        ok_json(&step(&["keys", "test", "deepseek", "--json"], ""), "test")["ok"],
        true
    );
    assert_eq!(
        new_origin.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(entered_for.requests().len(), 1);
    // --default --keep-key would move it to the vendor's https origin; plain http elsewhere
    // is refused and changes nothing.
    let err = err_json(
        &step(
            &[
                "providers",
                "set",
                "deepseek",
                "--base-url",
                "http://deepseek-proxy.invalid/v1",
                "--keep-key",
                "--json",
            ],
            "",
        ),
        "insecure",
    );
    assert_eq!(err["code"], "insecureOrigin", "{err}");
    let reset = ok_json(
        &step(
            &[
                "providers",
                "set",
                "deepseek",
                "--default",
                "--keep-key",
                "--json",
            ],
            "",
        ),
        "default keep key",
    );
    assert_eq!(
        reset["key"],
        json!({"state": "stored", "last4": "7f60", "origin": "https://api.deepseek.com"})
    );
    ok_json(
        &step(&["keys", "delete", "deepseek", "--json"], ""),
        "delete",
    );

    assert!(
        !contains(&transcript.0, KEY),
        "the key appeared in stdout or stderr"
    );
    assert!(
        !contains(&leak_scan::all_bytes(h), KEY),
        "the key reached the data directory"
    );
    for request in new_origin.requests().iter().skip(1) {
        assert!(request.headers.iter().all(|(_, v)| !v.contains(KEY)));
    }
}

#[test]
fn keys_set_refuses_invisible_characters_and_over_long_keys() {
    if !keychain_present() {
        return;
    }
    let home = home();
    let h = home.path();
    let long = "k".repeat(5000);
    for (stdin, what) in [
        ("sk-zero\u{200B}width-1234", "a zero-width space"),
        ("\u{FEFF}sk-bom-1234", "a byte-order mark"),
        (long.as_str(), "5000 bytes"),
    ] {
        let err = err_json(
            &run(h, &["keys", "set", "openai", "--json"], stdin, &[]),
            what,
        );
        assert_eq!(err["code"], "invalidInput", "{what}: {err}");
        assert!(
            err["message"].as_str().is_some_and(|m| !m.contains("sk-")),
            "{err}"
        );
    }
    let list = ok_json(&run(h, &["keys", "list", "--json"], "", &[]), "list");
    assert_eq!(
        row(&list, "openai", "provider")["key"],
        json!({"state": "missing"})
    );
}
