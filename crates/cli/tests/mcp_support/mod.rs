//! Drives the real `switchyard mcp` binary with the official Rust MCP SDK's client (rmcp,
//! stdio child-process transport), on a temp home whose keychain service is its own.
// The server under test is a child process built here, outside crates/runner on purpose.
#![allow(clippy::disallowed_methods, dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, Tool,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use switchyard_store::{Store, DATABASE_FILE};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

static HOMES: AtomicU32 = AtomicU32::new(0);

/// Longest one MCP call may take before the test calls it hung.
pub const CALL_LIMIT: Duration = Duration::from_secs(60);

/// A connected client.
pub type Client = RunningService<RoleClient, ClientConfig>;

/// A data directory for one test, with its own keychain service.
pub struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Self { dir };
        std::fs::create_dir_all(home.path()).expect("home");
        let service = format!(
            "dev.switchyard.test.mcp.{}.{}",
            std::process::id(),
            HOMES.fetch_add(1, Ordering::Relaxed)
        );
        home.set_setting("keychain.service", &service).await;
        home
    }

    /// The data directory (`SWITCHYARD_HOME`).
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A scratch folder beside the home (repositories, files the tests write).
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a setting straight into the store, as the app's Settings page would.
    pub async fn set_setting(&self, key: &str, value: &str) {
        let store = Store::open(&self.path().join(DATABASE_FILE))
            .await
            .expect("open store");
        store
            .set_setting(key, value, "2026-12-02T00:00:00Z")
            .await
            .expect("set setting");
        store.close().await;
    }

    /// The server command: this home, no provider keys from the environment.
    pub fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command
            .arg("mcp")
            .env("SWITCHYARD_HOME", self.path())
            .env_remove("PARENT_AGENT")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("OPENROUTER_API_KEY")
            .kill_on_drop(true);
        command
    }

    /// Starts `switchyard mcp` and connects as `name` over the newest protocol.
    pub async fn connect(&self, name: &str) -> Client {
        self.connect_with(self.command(), name, ProtocolVersion::LATEST)
            .await
    }

    /// Starts `command` and connects as `name` speaking `version`.
    pub async fn connect_with(
        &self,
        command: tokio::process::Command,
        name: &str,
        version: ProtocolVersion,
    ) -> Client {
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn switchyard mcp");
        if let Some(mut stderr) = stderr {
            // Drained so the server never blocks on a full pipe; shown if a test fails.
            tokio::spawn(async move {
                let mut text = String::new();
                let _ = stderr.read_to_string(&mut text).await;
                if !text.trim().is_empty() {
                    eprintln!("switchyard mcp stderr:\n{text}");
                }
            });
        }
        client_config(name, version)
            .serve(transport)
            .await
            .expect("MCP session starts")
    }
}

/// What a client says about itself.
pub fn client_config(name: &str, version: ProtocolVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1.0.0"),
    )
    .with_protocol_version(version)
}

/// Calls `tool` with `arguments` (an object); the result as the client got it.
pub async fn call_raw(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let arguments = match arguments {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, not {other}"),
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    tokio::time::timeout(CALL_LIMIT, client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} hung"))
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

/// Calls `tool`, requires success, and returns its structured result, checked to be the
/// same JSON as its text content.
pub async fn call(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = call_raw(client, tool, arguments).await;
    assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
    structured(&result)
}

/// Calls `tool`, requires a tool error, and returns its JSON (`{"error": {code, message}}`;
/// the text alone if a result ever came without structured content).
pub async fn call_err(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = call_raw(client, tool, arguments).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} should fail: {result:?}"
    );
    match result.structured_content {
        Some(value) => value,
        None => Value::String(text(&result)),
    }
}

/// The structured content, asserted equal to the text block's JSON.
pub fn structured(result: &CallToolResult) -> Value {
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    let mirrored: Value = serde_json::from_str(&text(result)).expect("text is JSON");
    assert_eq!(mirrored, value, "text and structured content differ");
    value
}

/// The first text block.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("a text block")
}

pub async fn tools(client: &Client) -> Vec<Tool> {
    tokio::time::timeout(CALL_LIMIT, client.list_all_tools())
        .await
        .expect("tools/list hung")
        .expect("tools/list")
}

pub fn tool_names(tools: &[Tool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

/// A server whose stdout is recorded line by line on its way to the client, and whose exit
/// status can be awaited: for the protocol-only-on-stdout and clean-exit checks.
pub struct Recorded {
    pub client: Client,
    pub child: tokio::process::Child,
    pub stdout_lines: Arc<Mutex<Vec<String>>>,
    pub stderr: tokio::task::JoinHandle<String>,
}

impl Home {
    /// Spawns `switchyard mcp` with piped stdio, tees its stdout into a recorder and serves
    /// the client over (tee, stdin).
    pub async fn connect_recorded(
        &self,
        mut command: tokio::process::Command,
        name: &str,
    ) -> Recorded {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn switchyard mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (mut tee_in, tee_out) = tokio::io::duplex(1 << 20);
        let recorder = lines.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                recorder.lock().expect("recorder").push(line.clone());
                if tee_in
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text).await;
            text
        });
        let client = client_config(name, ProtocolVersion::LATEST_WITH_INITIALIZE)
            .serve((tee_out, stdin))
            .await
            .expect("MCP session starts");
        Recorded {
            client,
            child,
            stdout_lines: lines,
            stderr,
        }
    }
}

/// Runs git in `dir` (no system configuration); its trimmed stdout, or the test fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository on `main` with one file, beside the home.
pub fn repo(home: &Home) -> PathBuf {
    let repo = home.scratch().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    std::fs::write(repo.join("greet.txt"), "hello\n").expect("write");
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "Test User"]);
    git(&repo, &["config", "user.email", "user@example.com"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "base"]);
    repo
}
