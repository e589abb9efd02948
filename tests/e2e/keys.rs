//! The Keys page against the real keychain and a local OpenAI-compatible server: point OpenAI
//! at the server, add a key, see its last 4 characters, Test it (the server's model count),
//! delete it; add a custom endpoint and Test it; see a key from the environment; and the
//! banner when no keychain can be reached. The key must not reach the data directory or the
//! page.

use std::path::Path;

use crate::http::{wire, Reply, TestServer};
use switchyard_store::{Store, DATABASE_FILE};

use crate::harness::{App, E2e, E2eResult, Launch};

const KEY: &str = "sk-E2ELEAK-51f0c2d9-8be4a7c3";
const ENV_KEY: &str = "sk-E2EENV-0d0d0d0d-e7e7f00d";

/// Models the test server lists for OpenAI, and for the custom endpoint.
const OPENAI_MODELS: usize = 17;
const CUSTOM_MODELS: usize = 3;

/// A home whose keys go to a keychain service of its own (inside the test's private session).
async fn prepare_home(home: &Path) {
    let store = Store::open(&home.join(DATABASE_FILE))
        .await
        .expect("open store");
    let service = format!("dev.switchyard.test.e2e.{}", std::process::id());
    store
        .set_setting("keychain.service", &service, "2026-11-29T12:00:00Z")
        .await
        .expect("keychain service setting");
    store.close().await;
}

fn row(id: &str, css: &str) -> String {
    format!("[data-provider='{id}'] {css}")
}

async fn add_test_delete(app: &App, server: &TestServer) -> E2eResult {
    app.goto("keys").await?;
    let status = row("openai", ".key-status");
    app.wait_text(&status, |t| t == "No key").await?;
    app.wait_text(&row("deepseek", ".key-status"), |t| {
        t == format!("From environment …{}", &ENV_KEY[ENV_KEY.len() - 4..])
    })
    .await?;
    if let Some(banner) = app.text("#keychain-banner").await? {
        return Err(format!(
            "the keychain banner shows although the keychain works: {banner}"
        ));
    }

    // Point OpenAI at the local server.
    let url = server.at("/v1");
    app.click(&row("openai", ".url-edit")).await?;
    app.type_into(&row("openai", "input.url-input"), &url)
        .await?;
    app.click(&row("openai", ".url-save")).await?;
    app.wait_text(&row("openai", ".base-url"), |t| t == url)
        .await?;

    // Add the key: the badge shows its last four characters, the field is gone.
    app.click(&row("openai", ".key-add")).await?;
    app.type_into(&row("openai", "input.key-input"), KEY)
        .await?;
    app.click(&row("openai", ".key-save")).await?;
    let last4 = &KEY[KEY.len() - 4..];
    app.wait_text(&status, |t| t == format!("Key …{last4}"))
        .await?;
    if app.text(&row("openai", "input.key-input")).await?.is_some() {
        return Err("the key field stayed open after saving".into());
    }

    // Test: one request to the server's model list, with the key.
    app.click(&row("openai", ".key-test")).await?;
    let result = app
        .wait_text(&row("openai", ".test-result.ok"), |t| {
            t.starts_with(&format!("{OPENAI_MODELS} models · ")) && t.ends_with(" ms")
        })
        .await?;
    eprintln!("e2e keys: Test said {result:?}");
    let sent = server.requests();
    let first = sent.first().ok_or("the server saw no request")?;
    if first.path != "/v1/models"
        || first.header("authorization") != Some(format!("Bearer {KEY}").as_str())
    {
        return Err(format!(
            "Test sent {} with authorization {:?}",
            first.path,
            first.header("authorization").map(|h| h.len())
        ));
    }
    app.scroll_to("#page > section").await?;
    app.save_screenshot("keys_present").await;

    // Delete, after confirming.
    app.click(&row("openai", ".key-delete")).await?;
    app.click(&row("openai", ".confirm-delete")).await?;
    app.wait_text(&status, |t| t == "No key").await?;

    // A custom endpoint: added through the form, tested without a key.
    app.click("#provider-add-open").await?;
    app.type_into("#provider-name", "Lab vLLM").await?;
    app.type_into("#provider-url", &server.at("/v1")).await?;
    app.click("#provider-add").await?;
    app.wait_text(&row("lab-vllm", ".key-status"), |t| {
        t == "No key (optional)"
    })
    .await?;
    app.click(&row("lab-vllm", ".key-test")).await?;
    app.wait_text(&row("lab-vllm", ".test-result.ok"), |t| {
        t.starts_with(&format!("{CUSTOM_MODELS} models · "))
    })
    .await?;
    app.scroll_to("[data-group='custom']").await?;
    app.save_screenshot("keys_custom").await;

    let html = app
        .client
        .source()
        .await
        .map_err(|e| format!("page source: {e}"))?;
    if html.contains(KEY) || html.contains(ENV_KEY) {
        return Err("a key is in the page".into());
    }
    Ok(())
}

/// Every byte under `dir`.
fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            bytes.extend(all_bytes(&path));
        } else if let Ok(content) = std::fs::read(&path) {
            bytes.extend(content);
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn add_a_key_see_last4_test_it_and_delete_it() {
    if !E2e::enabled("add_a_key_see_last4_test_it_and_delete_it") {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    prepare_home(home.path()).await;
    let server = TestServer::start(vec![
        Reply::json(200, wire::model_list(OPENAI_MODELS)),
        Reply::json(200, wire::model_list(CUSTOM_MODELS)),
    ])
    .await;
    let mut launch = Launch::with_home(home.path());
    launch.env.push(("DEEPSEEK_API_KEY".into(), ENV_KEY.into()));
    let server_ref = &server;
    E2e::run("keys_add_test_delete", launch, |app| async move {
        let result = add_test_delete(&app, server_ref).await;
        (app, result)
    })
    .await;
    assert_eq!(server.unused_replies(), 0, "both Tests reached the server");
    let stored = all_bytes(home.path());
    assert!(
        !contains(&stored, KEY) && !contains(&stored, ENV_KEY),
        "a key reached the data directory"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end-to-end: drives the built app; the test command runs it (SWITCHYARD_E2E=1, Xvfb, --ignored)"]
async fn without_a_keychain_the_page_says_why_and_how_to_fix_it() {
    if !E2e::enabled("without_a_keychain_the_page_says_why_and_how_to_fix_it") {
        return;
    }
    let mut launch = Launch::fresh();
    // A session bus that does not exist: the keychain answers at once that it cannot connect.
    launch.env.push((
        "DBUS_SESSION_BUS_ADDRESS".into(),
        "unix:path=/nonexistent/switchyard-e2e-bus".into(),
    ));
    E2e::run("keys_no_keychain", launch, |app| async move {
        let result = async {
            app.goto("keys").await?;
            let reason = app
                .wait_text("#keychain-reason", |t| t.contains("no keychain available"))
                .await?;
            eprintln!("e2e keys: banner reason {reason:?}");
            app.wait_text(&row("openai", ".key-status"), |t| {
                t == "Keychain unavailable"
            })
            .await?;
            let banner = app.text("#keychain-banner").await?.unwrap_or_default();
            if !banner.contains("environment variable") {
                return Err(format!("the banner names no fix: {banner}"));
            }
            app.save_screenshot("keys_no_keychain").await;
            Ok(())
        }
        .await;
        (app, result)
    })
    .await;
}
