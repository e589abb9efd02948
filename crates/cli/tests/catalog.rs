//! `switchyard models|model|compare|catalog` through the real binary.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

#[path = "../../engine/tests/support/mod.rs"]
mod sources;

#[path = "../../engine/tests/leak_scan/mod.rs"]
mod leak_scan;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use sources::{serve, Reply, SOURCE_PATHS};
use switchyard_store::{Store, DATABASE_FILE};

fn run(home: &Path, args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_HOME", home)
        .args(args)
        .arg("--json")
        .output()
        .expect("run switchyard");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} did not print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/catalog")
}

#[test]
fn models_filters_sorts_and_limits_the_bundled_catalog() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, models) = run(
        home.path(),
        &[
            "models",
            "--category",
            "coding",
            "--max-price",
            "5",
            "--limit",
            "7",
        ],
    );
    assert_eq!(code, 0);
    let models = models.as_array().expect("array");
    assert_eq!(models.len(), 7);
    let scores: Vec<f64> = models
        .iter()
        .map(|m| {
            m["categories"]["coding"]["score"]
                .as_f64()
                .expect("coding score")
        })
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "sorted by coding score: {scores:?}"
    );
    for m in models {
        let price = m["blendedPerM"]
            .as_f64()
            .expect("price known under --max-price");
        assert!(price <= 5.0, "{} costs {price}", m["id"]);
    }

    let (_, cheap) = run(home.path(), &["models", "--sort", "price", "--limit", "5"]);
    let prices: Vec<f64> = cheap
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|m| m["blendedPerM"].as_f64())
        .collect();
    assert!(
        prices.windows(2).all(|w| w[0] <= w[1]),
        "price sorts cheapest first: {prices:?}"
    );

    let (code, err) = run(home.path(), &["models", "--category", "poetry"]);
    assert_ne!(code, 0);
    assert_eq!(err["error"]["code"], "invalidInput");
    assert!(err["error"]["message"]
        .as_str()
        .expect("msg")
        .contains("coding"));
}

#[test]
fn model_prints_the_documented_shape() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_, top) = run(
        home.path(),
        &["models", "--category", "general", "--limit", "1"],
    );
    let id = top[0]["id"].as_str().expect("id").to_owned();
    let (code, model) = run(home.path(), &["model", &id]);
    assert_eq!(code, 0);
    for key in [
        "id",
        "name",
        "provider",
        "pricing",
        "context_length",
        "tier",
        "tags",
        "categories",
        "benchmarks",
        "matches",
        "variants",
    ] {
        assert!(model.get(key).is_some(), "model JSON lacks {key}: {model}");
    }
    assert!(model["pricing"].get("prompt_per_m").is_some());
    assert!(model["pricing"].get("completion_per_m").is_some());
    let general = &model["categories"]["general"];
    assert!(general["score"].as_f64().is_some() && general["coverage"].as_f64().is_some());
    assert!(!general["inputs"].as_array().expect("inputs").is_empty());
    let benchmark = &model["benchmarks"][0];
    for key in ["source", "metric", "raw", "normalized"] {
        assert!(benchmark.get(key).is_some(), "benchmark lacks {key}");
    }
    let matched = &model["matches"][0];
    for key in ["source", "name", "rule"] {
        assert!(matched.get(key).is_some(), "match lacks {key}");
    }

    let (code, err) = run(home.path(), &["model", "nobody/nothing"]);
    assert_ne!(code, 0);
    assert_eq!(err["error"]["code"], "notFound");
}

#[test]
fn refresh_from_a_folder_reports_each_source_then_status_reflects_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = tempfile::tempdir().expect("tempdir");
    for (folder, file) in [
        ("openrouter", "openrouter_models_live.json"),
        ("artificial-analysis", "aa_llms_models_2026-03-01.json"),
        (
            "lmarena",
            "arena-catalog_leaderboard-text-style-control_2026-02-20.json",
        ),
        ("livebench", "table_2026_01_08.csv"),
        ("livebench", "categories_2026_01_08.json"),
    ] {
        std::fs::create_dir_all(dir.path().join(folder)).expect("mkdir");
        std::fs::copy(
            fixtures().join(folder).join(file),
            dir.path().join(folder).join(file),
        )
        .expect("copy");
    }
    let dir_arg = dir.path().display().to_string();
    let (code, report) = run(home.path(), &["catalog", "refresh", "--from", &dir_arg]);
    // The HF folder is missing: that source fails (exit 3), the others are imported.
    assert_eq!(code, 3, "{report}");
    let sources = report["sources"].as_array().expect("sources");
    assert_eq!(sources.len(), 5);
    for s in sources {
        for key in [
            "source",
            "records",
            "matched",
            "unmatched",
            "skipped",
            "error",
        ] {
            assert!(s.get(key).is_some(), "source report lacks {key}: {s}");
        }
    }
    let hf = sources
        .iter()
        .find(|s| s["source"] == "hfLeaderboard")
        .expect("hf");
    assert!(hf["error"]
        .as_str()
        .expect("hf error")
        .contains("hf-open-llm-leaderboard"));
    let or = sources
        .iter()
        .find(|s| s["source"] == "openRouter")
        .expect("or");
    assert!(or["error"].is_null());
    assert!(or["records"].as_u64().expect("records") >= 5);

    let (code, status) = run(home.path(), &["catalog", "status"]);
    assert_eq!(code, 0);
    assert_eq!(
        status["bundledSources"],
        serde_json::json!(["hfLeaderboard"])
    );
    let (_, models) = run(home.path(), &["models"]);
    assert!(models
        .as_array()
        .expect("models")
        .iter()
        .any(|m| m["id"] == "acme/rocket-2.5"));
}

#[test]
fn compare_takes_two_to_five_ids() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_, top) = run(home.path(), &["models", "--limit", "2"]);
    let a = top[0]["id"].as_str().expect("id").to_owned();
    let b = top[1]["id"].as_str().expect("id").to_owned();
    let (code, both) = run(home.path(), &["compare", &a, &b]);
    assert_eq!(code, 0);
    assert_eq!(both[0]["id"], a.as_str());
    assert_eq!(both[1]["id"], b.as_str());
}

/// Runs the binary with `--json`, `env` set and the provider variables cleared.
fn run_with(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .env("SWITCHYARD_HOME", home)
        .env_remove("ARTIFICIAL_ANALYSIS_API_KEY")
        .args(args)
        .arg("--json");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("run switchyard")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// Writes settings into a home before the binary runs: its own keychain service, and `extra`.
fn prepare_home(home: &Path, extra: &[(String, String)]) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let store = Store::open(&home.join(DATABASE_FILE)).await.expect("store");
            let service = format!("dev.switchyard.test.cli-catalog.{}", std::process::id());
            store
                .set_setting("keychain.service", &service, "2026-12-01T00:00:00Z")
                .await
                .expect("setting");
            for (key, value) in extra {
                store
                    .set_setting(key, value, "2026-12-01T00:00:00Z")
                    .await
                    .expect("setting");
            }
            store.close().await;
        });
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn catalog_refresh_never_prints_or_stores_the_artificial_analysis_key() {
    const KEY: &str = "aa-CLILEAK-0d15ea5e-77c1b2a9f3";
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut routes = HashMap::new();
    routes.insert(
        "/aa/models".to_owned(),
        Reply::echo(
            500,
            "x-api-key",
            r#"{"error":{"message":"invalid key {echo}","key":"{echo}"}}"#,
        ),
    );
    let server = runtime.block_on(serve(routes));
    let home = tempfile::tempdir().expect("tempdir");
    let endpoints: Vec<(String, String)> = SOURCE_PATHS
        .iter()
        .map(|(source, path)| {
            (
                format!("catalog.endpoint.{}", source.folder()),
                format!("{}{path}", server.base),
            )
        })
        .collect();
    prepare_home(home.path(), &endpoints);

    let out = run_with(
        home.path(),
        &["catalog", "refresh"],
        &[
            ("ARTIFICIAL_ANALYSIS_API_KEY", KEY),
            ("SWITCHYARD_LOG", "trace"),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "sources fail: exit 3");
    let requests = server.requests.lock().expect("lock").clone();
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with("GET /aa/models") && r.contains(KEY)),
        "the key was sent"
    );
    let report = json_of(&out);
    let aa = report["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["source"] == "artificialAnalysis"))
        .expect("aa");
    assert!(
        aa["error"]
            .as_str()
            .is_some_and(|e| e.contains("500") && e.contains("invalid key <redacted>")),
        "{aa}"
    );
    let status = run_with(
        home.path(),
        &["catalog", "status"],
        &[("SWITCHYARD_LOG", "trace")],
    );
    for (what, bytes) in [
        ("refresh stdout", &out.stdout),
        ("refresh stderr", &out.stderr),
        ("status stdout", &status.stdout),
        ("status stderr", &status.stderr),
    ] {
        assert!(!contains(bytes, KEY), "{what} contains the key");
    }
    assert!(!out.stderr.is_empty(), "trace logs were written");
    assert!(
        !contains(&leak_scan::all_bytes(home.path()), KEY),
        "the data dir contains the key"
    );
}

#[test]
fn catalog_accept_applies_a_held_back_snapshot() {
    let home = tempfile::tempdir().expect("tempdir");
    prepare_home(home.path(), &[]);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("openrouter")).expect("mkdir");
    std::fs::write(
        dir.path().join("openrouter/openrouter_models_live.json"),
        br#"{"data": []}"#,
    )
    .expect("write");
    let dir_arg = dir.path().display().to_string();
    let (code, report) = run(home.path(), &["catalog", "refresh", "--from", &dir_arg]);
    assert_eq!(code, 3, "{report}");
    let or = report["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["source"] == "openRouter"))
        .expect("or");
    assert_eq!(or["held"], serde_json::json!({ "kind": "empty" }));
    let (_, status) = run(home.path(), &["catalog", "status"]);
    assert_eq!(status["held"][0]["source"], "openRouter");
    let before = status["modelCount"].as_u64().expect("count");
    assert!(before > 100, "the bundled models stay in use");

    let (code, accepted) = run(home.path(), &["catalog", "accept", "openrouter"]);
    assert_eq!(code, 0, "{accepted}");
    assert_eq!(accepted["held"], serde_json::json!([]));
    assert!(accepted["modelCount"].as_u64().expect("count") < before);
    let (code, err) = run(home.path(), &["catalog", "accept", "openrouter"]);
    assert_ne!(code, 0);
    assert_eq!(err["error"]["code"], "notFound");
}
