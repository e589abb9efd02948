//! Shared by the CLI's runs tests: a home with its own keychain service, the `switchyard`
//! binary run with it, a model server on 127.0.0.1 (the engine tests' scripted one, speaking
//! the exact OpenAI chat-completions streaming format) registered with `providers add` as the
//! keyless custom provider `wtest`, plan files from the planner's own JSON, and helpers to
//! read the run JSON and to find processes.
//!
//! Models are `wtest:<catalog id>`, priced from the bundled catalog: `openai/gpt-4o-mini`
//! is $0.15 / $0.60 per million tokens in / out, `openai/gpt-4o` $2.50 / $10.
// The binary, git and `kill` run as child processes: a `Command` outside crates/runner.
#![allow(clippy::disallowed_methods, dead_code)]

#[path = "../../../engine/tests/runs_support/mod.rs"]
pub mod runs_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub use runs_support::http::TestServer;
pub use runs_support::{asked, model_server, Asked, Behavior};
use serde_json::{json, Value};
use switchyard_store::{Store, DATABASE_FILE};

pub static HOMES: AtomicU32 = AtomicU32::new(0);

pub const MINI: &str = "wtest:openai/gpt-4o-mini";
pub const GPT4O: &str = "wtest:openai/gpt-4o";
/// What one call of 100 tokens in and 50 out costs on each.
pub const MINI_CALL: f64 = (100.0 * 0.15 + 50.0 * 0.60) / 1e6;
pub const GPT4O_CALL: f64 = (100.0 * 2.50 + 50.0 * 10.0) / 1e6;

/// Longest any one command may take before the test calls it hung.
pub const LIMIT: Duration = Duration::from_secs(120);

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub rt: tokio::runtime::Runtime,
}

pub struct Out {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn expect_code(&self, code: i32) -> &Value {
        assert_eq!(
            self.code, code,
            "exit code\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.json
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

impl Fixture {
    pub fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let fx = Self {
            dir: tempfile::tempdir().expect("tempdir"),
            rt,
        };
        std::fs::create_dir_all(fx.home()).expect("home");
        let service = format!(
            "dev.switchyard.test.runscli.{}.{}",
            std::process::id(),
            HOMES.fetch_add(1, Ordering::Relaxed)
        );
        let db = fx.home().join(DATABASE_FILE);
        fx.rt.block_on(async {
            let store = Store::open(&db).await.expect("open store");
            store
                .set_setting("keychain.service", &service, "2026-12-20T00:00:00Z")
                .await
                .expect("keychain service setting");
            store.close().await;
        });
        fx
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A model server answering each request as `choose` says, registered as `wtest`.
    pub fn server(
        &self,
        choose: impl Fn(&Asked) -> Behavior + Send + Sync + 'static,
    ) -> TestServer {
        let server = self.rt.block_on(model_server(choose));
        let url = server.at("/v1");
        self.run(
            &[
                "providers",
                "add",
                "wtest",
                "--kind",
                "openai",
                "--base-url",
                &url,
                "--json",
            ],
            &[],
        )
        .expect_code(0);
        server
    }

    pub fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command
            .args(args)
            .env("SWITCHYARD_HOME", self.home())
            .env_remove("PARENT_AGENT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "OPENROUTER_API_KEY",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "DEEPSEEK_API_KEY",
        ] {
            command.env_remove(var);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }

    /// Runs the binary to its end (failing the test past [`LIMIT`]).
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
        let mut child = self.command(args, env).spawn().expect("run switchyard");
        let deadline = Instant::now() + LIMIT;
        loop {
            if child.try_wait().expect("try_wait").is_some() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("switchyard {args:?} did not finish within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json = if args.contains(&"--json") {
            serde_json::from_str(&stdout).unwrap_or_else(|e| {
                panic!("switchyard {args:?} must print JSON ({e}): {stdout}\nstderr: {stderr}")
            })
        } else {
            Value::Null
        };
        Out {
            code: out.status.code().unwrap_or(-1),
            json,
            stdout,
            stderr,
        }
    }

    /// A plan or swarm file: the planner's own JSON for `task`, its steps replaced by
    /// `steps` (id, task, depends on) on `model`.
    pub fn plan_file(&self, mode: &str, steps: &[(&str, &str, &[&str])], model: &str) -> String {
        let task = steps
            .iter()
            .enumerate()
            .map(|(i, (_, t, _))| format!("{}. {t}", i + 1))
            .collect::<Vec<_>>()
            .join(" ");
        let planned = self.run(&["plan", &task, "--mode", mode, "--json"], &[]);
        let mut plan = planned.expect_code(0).clone();
        let list = if mode == "plan" { "steps" } else { "nodes" };
        let template = plan[list][0].clone();
        let edited: Vec<Value> = steps
            .iter()
            .map(|(id, task, deps)| {
                let mut step = template.clone();
                step["id"] = json!(id);
                step["task"] = json!(task);
                step["model"] = json!(model);
                step["dependsOn"] = json!(deps);
                step
            })
            .collect();
        plan[list] = Value::Array(edited);
        plan["edges"] = json!([]);
        let path = self.dir.path().join(format!("{mode}-{}.json", steps.len()));
        std::fs::write(&path, plan.to_string()).expect("plan file");
        path.to_string_lossy().into_owned()
    }
}

/// An answer of `text` using (`input`, `output`) tokens.
pub fn answer_with(text: &str, usage: (u32, u32)) -> Behavior {
    Behavior::Answer {
        text: text.to_owned(),
        latency: Duration::ZERO,
        usage,
        finish: "stop",
    }
}

/// The step a step's prompt is for (`# Your step (<id>)`).
pub fn step_of(prompt: &str) -> String {
    prompt
        .split("# Your step (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_default()
        .to_owned()
}

pub fn requests_for(server: &TestServer, f: impl Fn(&Asked) -> bool) -> usize {
    server.requests().iter().filter(|r| f(&asked(r))).count()
}

/// Pids of live (not zombie) processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'));
        if cmdline.contains(marker) && !zombie {
            found.push(pid);
        }
    }
    found
}

pub fn until(limit: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !f() {
        assert!(Instant::now() < deadline, "{what}: not in time");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn node<'a>(run: &'a Value, id: &str) -> &'a Value {
    run["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["id"] == id))
        .unwrap_or_else(|| panic!("no node {id} in {run:#}"))
}

pub fn f(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

/// The fields every run JSON has, by the contract.
pub fn assert_run_shape(run: &Value) {
    for key in [
        "run",
        "mode",
        "status",
        "reason",
        "launcher",
        "cost_usd",
        "max_usd",
        "savings_usd",
        "nodes",
    ] {
        assert!(run.get(key).is_some(), "no {key} in {run:#}");
    }
    for n in run["nodes"].as_array().expect("nodes") {
        for key in ["id", "task", "status", "model", "depends_on", "cost_usd"] {
            assert!(n.get(key).is_some(), "no {key} in node {n:#}");
        }
        for t in n["attempts"].as_array().expect("attempts") {
            for key in ["model", "worker", "status", "cost_usd", "tokens"] {
                assert!(t.get(key).is_some(), "no {key} in try {t:#}");
            }
        }
    }
}

pub fn prompts_for(server: &TestServer, step: &str) -> String {
    server
        .requests()
        .iter()
        .map(|r| asked(r).prompt)
        .find(|p| step_of(p) == step)
        .unwrap_or_default()
}

/// A repository whose `check.sh` passes once greet.txt greets the world.
pub fn repo(fx: &Fixture) -> PathBuf {
    let repo = fx.dir.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    std::fs::write(repo.join("greet.txt"), "hello\n").expect("write");
    std::fs::write(
        repo.join("check.sh"),
        "#!/bin/sh\ngrep -qx 'hello, world' greet.txt || { echo 'greet.txt does not greet the world'; exit 1; }\necho '1 passed, 0 failed'\n",
    )
    .expect("write");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Test User"],
        &["config", "user.email", "user@example.com"],
        &["add", "."],
        &["commit", "-qm", "base"],
    ] {
        git(&repo, args);
    }
    repo
}

pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}");
}
