//! The end-to-end harness: the real built app, driven through tauri-driver + WebKitWebDriver.
//!
//! `E2e::run("name", Launch::fresh(), |app| async move { … })` starts tauri-driver on free ports,
//! launches the app with a fresh `SWITCHYARD_HOME` (and fresh XDG dirs, so WebKit's profile is
//! per test), runs the body, saves a screenshot to `tests/e2e/screenshots/<name>.png` when the
//! body fails or panics, and tears everything down.
//!
//! Every test is `#[ignore]`d, so a plain `cargo test` lists them as ignored rather than
//! passing them unrun. The README test command runs them with `--ignored`, `SWITCHYARD_E2E=1`,
//! under Xvfb and a D-Bus session; asked for without that environment, each one fails.
// These tests start tauri-driver, which starts the real app:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::future::Future;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use futures_util::FutureExt;

use crate::procs::ProcessGroup;

/// How long UI waits may take before a test fails.
pub const WAIT: Duration = Duration::from_secs(15);

/// How long one whole e2e test body may run: a stalled WebDriver call fails the test instead
/// of hanging the suite.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(300);

/// How long a screenshot may take.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(10);

pub type E2eResult<T = ()> = Result<T, String>;

/// Where the app's data lives for one test.
pub struct Launch {
    /// `SWITCHYARD_HOME` for the app; `None` = a fresh temp dir.
    pub home: Option<PathBuf>,
    /// Extra environment for the app.
    pub env: Vec<(String, String)>,
}

impl Launch {
    pub fn fresh() -> Self {
        Self {
            home: None,
            env: Vec::new(),
        }
    }

    pub fn with_home(home: &Path) -> Self {
        Self {
            home: Some(home.to_path_buf()),
            env: Vec::new(),
        }
    }
}

/// A running app under WebDriver.
pub struct App {
    pub client: Client,
    /// The data directory the app was started with.
    pub home: PathBuf,
}

pub struct E2e;

impl E2e {
    /// Checks that this environment can drive the window. The tests are `#[ignore]`d, so a
    /// plain `cargo test` reports them as ignored; one asked for (`--ignored`) without the
    /// environment fails rather than passing without having run.
    pub fn enabled(name: &str) -> bool {
        assert!(
            std::env::var("SWITCHYARD_E2E").as_deref() == Ok("1"),
            "e2e {name}: needs SWITCHYARD_E2E=1 under Xvfb with tauri-driver (the README test \
             command sets it up)"
        );
        true
    }

    /// Launches the app, runs `body`, screenshots on failure, shuts down. Panics on failure.
    pub async fn run<F, Fut>(name: &str, launch: Launch, body: F)
    where
        F: FnOnce(App) -> Fut,
        Fut: Future<Output = (App, E2eResult)>,
    {
        if !Self::enabled(name) {
            return;
        }
        assert!(
            std::env::var_os("DISPLAY").is_some(),
            "e2e needs DISPLAY (run under xvfb-run)"
        );
        let scratch = tempfile::tempdir().expect("scratch dir");
        let home = launch
            .home
            .clone()
            .unwrap_or_else(|| scratch.path().join("home"));
        let (port, native_port) = (free_port(), free_port());
        let mut driver = Command::new(tauri_driver());
        driver
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .env("SWITCHYARD_HOME", &home)
            .env("SWITCHYARD_NO_BACKGROUND_REFRESH", "1")
            .env("XDG_DATA_HOME", scratch.path().join("xdg-data"))
            .env("XDG_CACHE_HOME", scratch.path().join("xdg-cache"))
            .env("XDG_CONFIG_HOME", scratch.path().join("xdg-config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (key, value) in &launch.env {
            driver.env(key, value);
        }
        let mut driver = ProcessGroup::spawn(driver).unwrap_or_else(|e| {
            panic!("cannot start tauri-driver ({e}); the README test command installs it")
        });
        // tauri-driver binds its own port at once but forwards the new-session request to
        // WebKitWebDriver, which it has only just spawned: asked before that one listens, it
        // drops the connection without an answer. Wait for both.
        wait_for_port(native_port, "WebKitWebDriver (started by tauri-driver)");
        wait_for_port(port, "tauri-driver");

        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), "wry".into());
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": app_binary() }),
        );
        let client = ClientBuilder::native()
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("webdriver session");
        let app = App {
            client: client.clone(),
            home: home.clone(),
        };

        let outcome = tokio::time::timeout(
            TEST_TIMEOUT,
            std::panic::AssertUnwindSafe(body(app)).catch_unwind(),
        )
        .await
        .map(|finished| finished.map(|(_app, result)| result))
        .unwrap_or_else(|_| Ok(Err(format!("timed out after {TEST_TIMEOUT:?}"))));
        let failure = match &outcome {
            Ok(Ok(())) => None,
            Ok(Err(message)) => Some(message.clone()),
            Err(panic) => Some(
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "panic".into()),
            ),
        };
        if failure.is_some() {
            save_screenshot(&client, name).await;
        }
        // Bounded: after a stalled command the session may never answer again.
        let _ = tokio::time::timeout(SCREENSHOT_TIMEOUT, client.close()).await;
        driver.shutdown();
        let left = crate::procs::leftovers(driver.pgid(), &home);
        if let Some(message) = failure {
            panic!("e2e {name} failed: {message}");
        }
        let left: Vec<String> = left
            .iter()
            .map(|p| format!("{} (pid {})", p.name, p.pid))
            .collect();
        assert!(
            left.is_empty(),
            "e2e {name}: processes it started are still running after teardown: {}",
            left.join(", ")
        );
    }
}

impl App {
    /// Clicks the sidebar entry of `page` (`models`, `settings`, …) and waits for it to show.
    pub async fn goto(&self, page: &str) -> E2eResult {
        self.click(&format!("nav a[data-page='{page}']")).await?;
        self.wait_for(&format!("main#page[data-page='{page}']"))
            .await?;
        Ok(())
    }

    /// Finds one element, waiting for it to appear.
    pub async fn wait_for(&self, css: &str) -> E2eResult<Element> {
        let start = Instant::now();
        loop {
            match self.client.find(Locator::Css(css)).await {
                Ok(element) => return Ok(element),
                Err(_) if start.elapsed() < WAIT => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                Err(e) => return Err(format!("{css} did not appear within {WAIT:?}: {e}")),
            }
        }
    }

    /// The rendered text of the first element matching `css` (`innerText`, falling back to
    /// `textContent` for elements WebKit reports as clipped), or `None` when absent.
    pub async fn text(&self, css: &str) -> E2eResult<Option<String>> {
        let value = self
            .client
            .execute(
                "const el = document.querySelector(arguments[0]); \
                 return el ? (el.innerText || el.textContent || '') : null;",
                vec![serde_json::Value::String(css.to_owned())],
            )
            .await
            .map_err(|e| format!("read text of {css}: {e}"))?;
        Ok(value.as_str().map(|s| s.trim().to_owned()))
    }

    /// Waits until the text of `css` satisfies `accept`, returning it.
    pub async fn wait_text(&self, css: &str, accept: impl Fn(&str) -> bool) -> E2eResult<String> {
        let start = Instant::now();
        let mut last = None;
        while start.elapsed() < WAIT {
            if let Some(text) = self.text(css).await? {
                if accept(&text) {
                    return Ok(text);
                }
                last = Some(text);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(format!(
            "text of {css} never matched within {WAIT:?}; last seen {last:?}"
        ))
    }

    /// Clicks an element once it exists, scrolled to the middle of its scroller first: an
    /// element inside the viewport but under the status bar (outside the page's scroller) is
    /// not scrolled by WebDriver, and its click lands on the bar.
    pub async fn click(&self, css: &str) -> E2eResult {
        let element = self.wait_for(css).await?;
        self.client
            .execute(
                "const el = document.querySelector(arguments[0]); \
                 if (el) el.scrollIntoView({ block: 'center', inline: 'nearest' });",
                vec![serde_json::Value::String(css.to_owned())],
            )
            .await
            .map_err(|e| format!("scroll {css} into view: {e}"))?;
        element
            .click()
            .await
            .map_err(|e| format!("click {css}: {e}"))
    }

    /// Types into an input or textarea once it exists, replacing its text. WebDriver's
    /// `clear()` does not reach React's state for controlled inputs, so the value is emptied
    /// through the native setter plus an `input` event first.
    pub async fn type_into(&self, css: &str, text: &str) -> E2eResult {
        let input = self.wait_for(css).await?;
        self.client
            .execute(
                "const el = document.querySelector(arguments[0]); \
                 const proto = el instanceof HTMLTextAreaElement \
                     ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype; \
                 Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, ''); \
                 el.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![serde_json::Value::String(css.to_owned())],
            )
            .await
            .map_err(|e| format!("empty {css}: {e}"))?;
        input
            .send_keys(text)
            .await
            .map_err(|e| format!("type into {css}: {e}"))
    }

    /// Attribute of an element.
    pub async fn attr(&self, css: &str, name: &str) -> E2eResult<Option<String>> {
        self.wait_for(css)
            .await?
            .attr(name)
            .await
            .map_err(|e| format!("attr {name} of {css}: {e}"))
    }

    /// Scrolls `css` into view, for screenshots.
    pub async fn scroll_to(&self, css: &str) -> E2eResult {
        self.client
            .execute(
                "const el = document.querySelector(arguments[0]); \
                 const page = document.querySelector('#page'); \
                 if (el && page) page.scrollTop = el.offsetTop - page.offsetTop - 24;",
                vec![css.into()],
            )
            .await
            .map(|_| ())
            .map_err(|e| format!("scroll to {css}: {e}"))
    }

    /// Saves a review artifact (the screenshots folder is git-ignored) when
    /// `SWITCHYARD_E2E_SCREENSHOTS` is `1` (WebDriver's snapshot) or `x11` (the X display,
    /// through ImageMagick's `import`); failing to save is not a test failure. Off by default:
    /// WebKitWebDriver's snapshot has been seen to stall on some pages, and a stalled command
    /// blocks every later command of the session. The X display never involves WebDriver.
    pub async fn save_screenshot(&self, name: &str) {
        if screenshot_mode().is_some() {
            save_screenshot(&self.client, name).await;
        }
    }
}

/// How pictures are taken: `SWITCHYARD_E2E_SCREENSHOTS=1` through WebDriver, `=x11` from the
/// X display; `None` when off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScreenshotMode {
    WebDriver,
    Display,
}

fn screenshot_mode() -> Option<ScreenshotMode> {
    match std::env::var("SWITCHYARD_E2E_SCREENSHOTS").as_deref() {
        Ok("1") => Some(ScreenshotMode::WebDriver),
        Ok("x11") => Some(ScreenshotMode::Display),
        _ => None,
    }
}

/// Captures the whole X display (the app's window fills the Xvfb screen) into `path`.
async fn capture_display(path: &Path) -> Result<(), String> {
    let display = std::env::var("DISPLAY").map_err(|_| "no DISPLAY".to_owned())?;
    let mut child = tokio::process::Command::new("import")
        .args(["-display", &display, "-window", "root"])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run ImageMagick's import ({e})"))?;
    match tokio::time::timeout(SCREENSHOT_TIMEOUT, child.wait()).await {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(format!("import exited with {status}")),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("import did not finish in {SCREENSHOT_TIMEOUT:?}")),
    }
}

/// Saves `tests/e2e/screenshots/<name>.png`. Bounded: WebKitWebDriver has been seen to stall
/// on a snapshot, and a review picture must never hang a test run.
async fn save_screenshot(client: &Client, name: &str) {
    // Two animation frames, so the picture is the current state and not an older frame.
    let frames = client.execute_async(
        "const done = arguments[arguments.length - 1]; \
         requestAnimationFrame(() => requestAnimationFrame(() => done(null)));",
        vec![],
    );
    let _ = tokio::time::timeout(SCREENSHOT_TIMEOUT, frames).await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/screenshots");
    let _ = std::fs::create_dir_all(&dir);
    if screenshot_mode() == Some(ScreenshotMode::Display) {
        let path = dir.join(format!("{name}.png"));
        match capture_display(&path).await {
            Ok(()) => eprintln!("e2e {name}: screenshot saved to {}", path.display()),
            Err(e) => eprintln!("e2e {name}: no screenshot ({e})"),
        }
        return;
    }
    match tokio::time::timeout(SCREENSHOT_TIMEOUT, client.screenshot()).await {
        Ok(Ok(png)) => {
            let path = dir.join(format!("{name}.png"));
            if std::fs::write(&path, png).is_ok() {
                eprintln!("e2e {name}: screenshot saved to {}", path.display());
            }
        }
        Ok(Err(e)) => eprintln!("e2e {name}: no screenshot ({e})"),
        Err(_) => {
            // A stalled session is when the picture matters most: take it from the display.
            let path = dir.join(format!("{name}.png"));
            match capture_display(&path).await {
                Ok(()) => eprintln!(
                    "e2e {name}: WebDriver did not answer in {SCREENSHOT_TIMEOUT:?}; the display's picture is in {}",
                    path.display()
                ),
                Err(e) => eprintln!(
                    "e2e {name}: no screenshot (WebDriver did not answer in {SCREENSHOT_TIMEOUT:?}; {e})"
                ),
            }
        }
    }
}

fn app_binary() -> PathBuf {
    std::env::var_os("SWITCHYARD_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_switchyard-desktop")))
}

fn tauri_driver() -> PathBuf {
    std::env::var_os("TAURI_DRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| "tauri-driver".into())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn wait_for_port(port: u16, who: &str) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{who} did not listen on {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
