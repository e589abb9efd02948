//! Test support: fixture folders laid out like the corpus, and a tiny HTTP server on
//! 127.0.0.1 that serves fixed responses by path (query string included).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The catalog fixtures of the core crate (small files in the real formats).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/catalog")
}

/// Builds an import folder with one chosen fixture file per source (plus LiveBench's
/// categories file): `(folder, file)` pairs relative to [`fixtures`].
pub fn import_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (folder, file) in files {
        std::fs::create_dir_all(dir.path().join(folder)).expect("mkdir");
        std::fs::copy(
            fixtures().join(folder).join(file),
            dir.path().join(folder).join(file),
        )
        .expect("copy fixture");
    }
    dir
}

/// A coherent set: the same models (Rocket 2.5, Llama 3.3 70B, …) appear in every source.
pub const COHERENT: [(&str, &str); 6] = [
    ("openrouter", "openrouter_models_live.json"),
    ("artificial-analysis", "aa_llms_models_2026-03-01.json"),
    ("hf-open-llm-leaderboard", "contents_native_2025-02.csv"),
    (
        "lmarena",
        "arena-catalog_leaderboard-text-style-control_2026-02-20.json",
    ),
    ("livebench", "table_2026_01_08.csv"),
    ("livebench", "categories_2026_01_08.json"),
];

/// The request path each source is pointed at by tests that serve every source from one
/// [`serve`] (`catalog.endpoint.<folder>` settings; LiveBench's is a base URL).
pub const SOURCE_PATHS: [(switchyard_core::catalog::record::SourceId, &str); 5] = {
    use switchyard_core::catalog::record::SourceId;
    [
        (SourceId::OpenRouter, "/or/models"),
        (SourceId::ArtificialAnalysis, "/aa/models"),
        (SourceId::LmArena, "/arena.json"),
        (SourceId::LiveBench, "/lb"),
        (SourceId::HfLeaderboard, "/rows?x=1"),
    ]
};

/// One canned response.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: std::time::Duration,
    /// Replace `{echo}` in the body with this request header's value (a server echoing the
    /// key it was sent).
    pub echo: Option<&'static str>,
}

impl Reply {
    pub fn ok(body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            body: body.into(),
            delay: std::time::Duration::ZERO,
            echo: None,
        }
    }
    pub fn status(status: u16, body: &str) -> Self {
        Self {
            status,
            ..Self::ok(body.as_bytes().to_vec())
        }
    }
    /// Answers `status` with `template`, its `{echo}` replaced by the request's `header`.
    pub fn echo(status: u16, header: &'static str, template: &str) -> Self {
        Self {
            echo: Some(header),
            ..Self::status(status, template)
        }
    }
    /// The same reply, sent after `delay`.
    pub fn after(mut self, delay: std::time::Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// The value of `name` in a raw request head, if present.
fn header_value(head: &str, name: &str) -> Option<String> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// Serves `routes` (exact request target → reply; 404 otherwise) until dropped. Records every
/// request line and headers so tests can check what was sent.
pub struct Server {
    pub base: String,
    pub requests: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub async fn serve(routes: HashMap<String, Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = requests.clone();
    let routes = Arc::new(routes);
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let routes = routes.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let target = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                if let Ok(mut log) = log.lock() {
                    log.push(head.clone());
                }
                let mut reply = routes
                    .get(&target)
                    .cloned()
                    .unwrap_or(Reply::status(404, "not found"));
                if let Some(name) = reply.echo {
                    let value = header_value(&head, name).unwrap_or_default();
                    let text = String::from_utf8_lossy(&reply.body).replace("{echo}", &value);
                    reply.body = text.into_bytes();
                }
                tokio::time::sleep(reply.delay).await;
                let header = format!(
                    "HTTP/1.1 {} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    reply.status,
                    reply.body.len()
                );
                let _ = socket.write_all(header.as_bytes()).await;
                let _ = socket.write_all(&reply.body).await;
            });
        }
    });
    Server {
        base,
        requests,
        task,
    }
}

/// Runs `test` on a fresh multi-thread runtime after setting the process environment variable
/// `name` to `value`: a test that needs a variable sets it before any runtime or other thread
/// exists, so its file must hold that one test.
pub fn with_env_var<F>(name: &str, value: &str, test: impl FnOnce() -> F)
where
    F: std::future::Future<Output = ()>,
{
    std::env::set_var(name, value);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(test());
}

/// An engine on `home` whose keys go to a keychain service of its own,
/// `dev.switchyard.test.<tag>.<pid>` (nothing is stored in it unless the test does).
pub async fn engine_with_own_keychain(home: &Path, tag: &str) -> switchyard_engine::Engine {
    let store = switchyard_store::Store::open(&home.join(switchyard_store::DATABASE_FILE))
        .await
        .expect("store");
    let service = format!("dev.switchyard.test.{tag}.{}", std::process::id());
    store
        .set_setting("keychain.service", &service, "2026-12-02T00:00:00Z")
        .await
        .expect("keychain service setting");
    store.close().await;
    switchyard_engine::Engine::open(switchyard_engine::EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}
