//! `switchyard run | review | approve | reject | request-changes | compare | runs | recover |
//! cancel` through the real binary, against git repositories built here, with the fake agent
//! CLIs of `tests/fixtures/workers` first on `PATH` (they make real edits from `@` directives
//! in the task) and `exec:` workers. Each test has its own SWITCHYARD_HOME whose keychain
//! service is its own, so the user's keys are never touched.
// These tests drive the real `switchyard` binary and git as child processes:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{gate, host_pid, Run, Workspace};
use switchyard_store::{Store, DATABASE_FILE};

/// Longest any one command may take before the test calls it hung.
const LIMIT: Duration = Duration::from_secs(180);

const GATES: [&str; 6] = [
    "locked_paths",
    "escape",
    "secrets",
    "size",
    "repository",
    "verification",
];

/// A home, a repository on `main` and the fake workers' folder.
struct Fixture {
    ws: Workspace,
}

impl std::ops::Deref for Fixture {
    type Target = Workspace;

    fn deref(&self) -> &Workspace {
        &self.ws
    }
}

fn workers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/workers")
}

impl Fixture {
    fn new() -> Self {
        let ws = Workspace::new(
            "attempts",
            &[
                ("greet.txt", "hello\n"),
                ("notes.txt", "user notes\n"),
                (
                    "package.json",
                    "{\n  \"name\": \"demo\",\n  \"scripts\": {\n    \"test\": \"node test.js\"\n  },\n  \"dependencies\": {\n    \"left-pad\": \"1.3.0\"\n  }\n}\n",
                ),
            ],
        );
        Self { ws }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        let path = format!(
            "{}:{}",
            workers_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        command
            .args(args)
            .env("SWITCHYARD_HOME", self.home())
            .env("PATH", path)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("OPENROUTER_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args).spawn().expect("spawn switchyard")
    }

    /// Runs the binary to its end (or fails the test after [`LIMIT`]).
    fn run(&self, args: &[&str]) -> Run {
        let child = self.spawn(args);
        let out = wait_with_limit(child, args);
        Run::new(out, args)
    }
}

fn wait_with_limit(mut child: Child, args: &[&str]) -> Output {
    let deadline = Instant::now() + LIMIT;
    loop {
        match child.try_wait().expect("try_wait") {
            Some(_) => return child.wait_with_output().expect("output"),
            None if Instant::now() > deadline => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("output");
                panic!(
                    "switchyard {args:?} hung; stderr: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn gate_names(review: &Value) -> Vec<String> {
    review["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .map(|g| g["name"].as_str().expect("name").to_owned())
        .collect()
}

fn files(review: &Value) -> Vec<(String, String, u64, u64)> {
    review["diff"]["files"]
        .as_array()
        .expect("diff files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_owned(),
                f["status"].as_str().expect("status").to_owned(),
                f["additions"].as_u64().expect("additions"),
                f["deletions"].as_u64().expect("deletions"),
            )
        })
        .collect()
}

fn worktrees(fixture: &Fixture) -> usize {
    fixture
        .git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count()
}

/// The task for an honest fix: greet the world.
const FIX: &str = "Make greet.txt greet the world.\n\
@read greet.txt\n\
@replace greet.txt <<EOF\nhello\n=======\nhello, world\nEOF\n\
@say Updated greet.txt.\n";

const VERIFY: &str = "grep -qx 'hello, world' greet.txt";

#[test]
fn honest_fix_reaches_review_and_approve_lands_exactly_that_commit() {
    let fx = Fixture::new();
    let base = fx.head("main");
    // The user's own uncommitted change must survive everything below.
    fx.write("notes.txt", "user notes\nwork in progress\n");
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        FIX,
        "--worker",
        "claude",
        "--verify",
        VERIFY,
        "--json",
    ]);
    let review = run.expect_code(0);
    assert_eq!(review["status"], "review");
    assert_eq!(review["worker"], "claude");
    assert_eq!(
        files(review),
        [("greet.txt".to_owned(), "modified".to_owned(), 1, 1)]
    );
    assert_eq!(review["diff"]["additions"], 1);
    assert_eq!(review["diff"]["deletions"], 1);
    let sha = review["diff"]["sha256"].as_str().expect("sha256");
    assert_eq!(sha.len(), 64);
    assert!(sha.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(gate_names(review), GATES);
    for name in GATES {
        assert_eq!(gate(review, name)["passed"], true, "{name}: {review}");
        assert!(gate(review, name)["detail"].is_string());
    }
    let verification = &review["verification"];
    assert_eq!(verification["passed"], true);
    assert_eq!(verification["exit_code"], 0);
    assert!(verification["duration_ms"].is_u64());
    assert!(verification["summary"].is_string());
    assert!(verification["log_tail"].is_string());
    // Claude Code reports its own cost; the fake reports tokens for the prompt it read.
    assert!(review["usage"]["input"].as_u64().is_some_and(|n| n > 0));
    assert!(review["usage"]["output"].as_u64().is_some_and(|n| n > 0));
    assert!(review["cost_usd"].as_f64().is_some_and(|c| c > 0.0));
    assert_eq!(review["usage"]["estimated"], false);
    // Nothing reached the user's branch or working tree yet.
    assert_eq!(fx.head("main"), base);
    assert_eq!(fx.read("greet.txt"), "hello\n");
    let id = run.id();

    let shown = fx.run(&["review", &id, "--json"]);
    assert_eq!(shown.expect_code(0)["diff"]["sha256"], sha);

    let approved = fx.run(&["approve", &id, "--message", "Greet the world", "--json"]);
    let approved = approved.expect_code(0);
    assert_eq!(approved["run"], id.as_str());
    assert_eq!(approved["status"], "integrated");
    // The plain review of an integrated attempt says so, without a stale "approve blocked".
    let text = fx.run(&["review", &id]);
    assert!(
        text.stdout.contains("integrated into main:"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("approve blocked"), "{}", text.stdout);

    // Exactly one new commit on main, on top of the base, with exactly that change.
    let head = fx.head("main");
    assert_ne!(head, base);
    assert_eq!(fx.head("main~1"), base);
    assert_eq!(
        fx.git(&["log", "-1", "--format=%s", "main"]).trim(),
        "Greet the world"
    );
    assert_eq!(
        fx.git(&["diff", "--name-only", &base, "main"]).trim(),
        "greet.txt"
    );
    assert_eq!(fx.git(&["show", "main:greet.txt"]), "hello, world\n");
    // The user's uncommitted work is untouched; nothing was pushed anywhere.
    assert_eq!(fx.read("notes.txt"), "user notes\nwork in progress\n");
    assert!(fx.git(&["remote"]).trim().is_empty());
    // The worktree is gone after integrate.
    assert_eq!(worktrees(&fx), 1);

    let list = fx.run(&["runs", "list", "--json"]);
    let list = list.expect_code(0).as_array().expect("array").clone();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["run"], id.as_str());
    assert_eq!(list[0]["status"], "integrated");
    assert_eq!(list[0]["worker"], "claude");

    // The finished attempt is an outcome: verified, approved, without its task's text.
    let outcomes = fx.run(&["outcomes", "--json"]);
    let outcomes = outcomes.expect_code(0).as_array().expect("array").clone();
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    let outcome = &outcomes[0];
    assert_eq!(outcome["kind"], "attempt");
    assert_eq!(outcome["id"], id.as_str());
    assert_eq!(outcome["worker"], "claude");
    assert_eq!(outcome["verified"], true);
    assert_eq!(outcome["gates_passed"], true);
    assert_eq!(outcome["decision"], "approved");
    assert_eq!(outcome["succeeded"], true);
    assert_eq!(outcome["launcher"], "cli");
    assert!(outcome["latency_ms"].as_i64().is_some_and(|ms| ms >= 0));
    assert!(!outcome.to_string().contains("Greet"), "{outcome}");
    let by_other_launcher = fx.run(&["outcomes", "--launcher", "claude-code", "--json"]);
    assert_eq!(by_other_launcher.expect_code(0), &serde_json::json!([]));
    let by_worker = fx.run(&["outcomes", "--model", "claude", "--json"]);
    assert_eq!(by_worker.expect_code(0).as_array().map(Vec::len), Some(1));
}

#[test]
fn failing_verification_exits_3_and_approve_is_refused() {
    let fx = Fixture::new();
    let base = fx.head("main");
    // The worker claims the tests pass; Switchyard's own run says otherwise.
    let task = "Greet the world.\n@write greet.txt <<EOF\nhullo\nEOF\n@claim-tests-pass\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        task,
        "--worker",
        "codex",
        "--verify",
        VERIFY,
        "--json",
    ]);
    let review = run.expect_code(3);
    assert_eq!(review["status"], "review");
    assert_eq!(gate(review, "verification")["passed"], false);
    assert_eq!(review["verification"]["passed"], false);
    assert_eq!(review["verification"]["exit_code"], 1);
    for name in ["locked_paths", "escape", "secrets", "size"] {
        assert_eq!(gate(review, name)["passed"], true, "{name}");
    }
    // Codex reports tokens only: the cost, if any, is an estimate.
    assert!(review["usage"]["input"].as_u64().is_some_and(|n| n > 0));

    let approve = fx.run(&["approve", &run.id(), "--message", "nope", "--json"]);
    assert_ne!(approve.code, 0, "approve must be refused");
    assert!(
        approve.json["error"]["code"].is_string(),
        "{}",
        approve.json
    );
    assert_eq!(fx.head("main"), base);

    // Switchyard's own failed verification makes it a failed outcome, whatever the worker
    // claimed.
    let outcomes = fx.run(&["outcomes", "--json"]);
    let outcomes = outcomes.expect_code(0).as_array().expect("array").clone();
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0]["verified"], false);
    assert_eq!(outcomes[0]["succeeded"], false);
    assert_eq!(outcomes[0]["worker"], "codex");
    assert!(outcomes[0]["tokens_in"].as_u64().is_some_and(|n| n > 0));
}

#[test]
fn locked_paths_block_ci_files_and_package_scripts_but_not_dependencies() {
    let fx = Fixture::new();
    let ci = "Add CI.\n@write .github/workflows/ci.yml <<EOF\non: push\nEOF\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        ci,
        "--worker",
        "gemini",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(3);
    let locked = gate(review, "locked_paths");
    assert_eq!(locked["passed"], false);
    assert!(
        locked.to_string().contains(".github/workflows/ci.yml"),
        "names the path: {locked}"
    );

    let scripts = "Make tests always pass.\n@replace package.json <<EOF\n    \"test\": \"node test.js\"\n=======\n    \"test\": \"exit 0\"\nEOF\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        scripts,
        "--worker",
        "opencode",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(3);
    let locked = gate(review, "locked_paths");
    assert_eq!(locked["passed"], false);
    assert!(
        locked.to_string().contains("scripts"),
        "names the key: {locked}"
    );

    let deps = "Bump left-pad.\n@replace package.json <<EOF\n    \"left-pad\": \"1.3.0\"\n=======\n    \"left-pad\": \"1.3.1\"\nEOF\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        deps,
        "--worker",
        "aider",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(0);
    assert_eq!(gate(review, "locked_paths")["passed"], true);
    assert_eq!(
        files(review),
        [("package.json".to_owned(), "modified".to_owned(), 1, 1)]
    );
}

#[test]
fn a_worker_that_fails_exits_1_with_its_error_and_the_diff_it_left() {
    let fx = Fixture::new();
    let task = "Rename things.\n@write NOTES.md <<EOF\nhalf done\nEOF\n@fail rate limit exceeded\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        task,
        "--worker",
        "aider",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(1);
    assert_eq!(review["status"], "failed");
    assert_eq!(review["error"]["code"], "workerFailed", "{review}");
    assert!(review["error"]["message"].is_string());
    // What it did before failing is still shown.
    let paths: Vec<String> = files(review).into_iter().map(|f| f.0).collect();
    assert_eq!(paths, ["NOTES.md"]);
}

#[test]
fn exec_workers_run_through_sh_with_the_task_on_stdin_and_in_the_environment() {
    let fx = Fixture::new();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "write the task down",
        "--worker",
        "exec:cat > from-stdin.txt && printf '%s\\n' \"$SWITCHYARD_TASK\" > from-env.txt",
        "--verify",
        "test -s from-stdin.txt",
        "--json",
    ]);
    let review = run.expect_code(0);
    assert!(review["worker"]
        .as_str()
        .is_some_and(|w| w.starts_with("exec:")));
    let mut paths: Vec<String> = files(review).into_iter().map(|f| f.0).collect();
    paths.sort();
    assert_eq!(paths, ["from-env.txt", "from-stdin.txt"]);
}

#[test]
fn bad_input_exits_2_with_a_json_error() {
    let fx = Fixture::new();
    // Missing --worker: a single code run, for which routing finds no model here; the error
    // names --worker.
    let run = fx.run(&["run", "--repo", &fx.repo_arg(), "--task", "x", "--json"]);
    let json = run.expect_code(2);
    assert_eq!(json["error"]["code"], "invalidInput", "{json}");
    assert!(json["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("--worker")));
    // Without --json, the message on stderr, still exit 2.
    let run = fx.run(&["run", "--repo", &fx.repo_arg(), "--task", "x"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--worker"));

    for args in [
        vec![
            "run",
            "--repo",
            &fx.repo_arg(),
            "--task",
            "x",
            "--worker",
            "cursor",
            "--json",
        ],
        vec![
            "run",
            "--repo",
            &fx.repo_arg(),
            "--task",
            "  ",
            "--worker",
            "claude",
            "--json",
        ],
        vec![
            "run",
            "--repo",
            "/nonexistent/switchyard",
            "--task",
            "x",
            "--worker",
            "claude",
            "--json",
        ],
        vec!["review", "0000000000000000", "--json"],
        vec![
            "request-changes",
            "whatever",
            "--line",
            "nocolon=x",
            "--json",
        ],
    ] {
        let run = fx.run(&args);
        let json = run.expect_code(2);
        assert!(json["error"]["code"].is_string(), "{args:?}: {json}");
        assert!(json["error"]["message"].is_string(), "{args:?}: {json}");
    }
    let not_git = tempfile::tempdir().expect("tempdir");
    let run = fx.run(&[
        "run",
        "--repo",
        &not_git.path().to_string_lossy(),
        "--task",
        "x",
        "--worker",
        "claude",
        "--json",
    ]);
    run.expect_code(2);
    // Nothing was started by any of them.
    let list = fx.run(&["runs", "list", "--json"]);
    assert_eq!(list.expect_code(0), &Value::Array(Vec::new()));
}

#[test]
fn reject_removes_the_worktree_and_leaves_the_repository_alone() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        FIX,
        "--worker",
        "opencode",
        "--verify",
        VERIFY,
        "--json",
    ]);
    run.expect_code(0);
    assert_eq!(
        worktrees(&fx),
        2,
        "the attempt's worktree exists while in review"
    );
    let rejected = fx.run(&["reject", &run.id(), "--reason", "not like this", "--json"]);
    let rejected = rejected.expect_code(0);
    assert_eq!(rejected["status"], "rejected");
    assert_eq!(worktrees(&fx), 1);
    assert_eq!(fx.head("main"), base);
    assert_eq!(fx.read("greet.txt"), "hello\n");
    // A rejected attempt cannot be approved any more.
    let approve = fx.run(&["approve", &run.id(), "--message", "m", "--json"]);
    assert_ne!(approve.code, 0);
}

#[test]
fn request_changes_runs_the_same_worker_again_with_the_comments() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let prompt_file = fx.outside("prompt.txt");
    let task = format!(
        "Greet the world.\n@dump-prompt {}\n@write greet.txt <<EOF\nhello, world\nEOF\n",
        prompt_file.display()
    );
    let first = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        &task,
        "--worker",
        "claude",
        "--verify",
        VERIFY,
        &allow[0],
        &allow[1],
        "--json",
    ]);
    assert_eq!(
        first.expect_code(0)["previous"],
        Value::Null,
        "a first attempt"
    );
    let first_id = first.id();

    // The fake obeys `@` lines wherever they are, so the comment carries one more edit.
    let second = fx.run(&[
        "request-changes",
        &first_id,
        "--comment",
        "Also say goodbye.\n@write bye.txt <<EOF\ngoodbye\nEOF",
        "--line",
        "greet.txt:1=use a capital H",
        "--json",
    ]);
    let review = second.expect_code(0);
    let second_id = second.id();
    assert_ne!(second_id, first_id);
    assert_eq!(review["parent"], first_id.as_str());
    assert_eq!(review["worker"], "claude");
    assert_eq!(review["status"], "review");
    // The second run read the task and both comments.
    let prompt = std::fs::read_to_string(&prompt_file).expect("prompt");
    assert!(prompt.contains("Greet the world."), "{prompt}");
    assert!(prompt.contains("Also say goodbye."), "{prompt}");
    assert!(prompt.contains("use a capital H"), "{prompt}");
    assert!(prompt.contains("greet.txt"), "{prompt}");
    // Its diff is still measured against the base; `previous` is what the revision changed.
    assert_eq!(
        files(review),
        [
            ("bye.txt".to_owned(), "added".to_owned(), 1, 0),
            ("greet.txt".to_owned(), "modified".to_owned(), 1, 1)
        ]
    );
    let previous = &review["previous"];
    let previous_files: Vec<(String, String, u64, u64)> = previous["files"]
        .as_array()
        .unwrap_or_else(|| panic!("previous files: {review}"))
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_owned(),
                f["status"].as_str().expect("status").to_owned(),
                f["additions"].as_u64().expect("additions"),
                f["deletions"].as_u64().expect("deletions"),
            )
        })
        .collect();
    assert_eq!(
        previous_files,
        [("bye.txt".to_owned(), "added".to_owned(), 1, 0)]
    );
    assert_eq!(
        (
            previous["additions"].as_u64(),
            previous["deletions"].as_u64()
        ),
        (Some(1), Some(0))
    );
    let sha = previous["sha256"].as_str().expect("previous sha256");
    assert_eq!(sha.len(), 64, "{sha}");
    assert_ne!(Some(sha), review["diff"]["sha256"].as_str());
    let old = fx.run(&["review", &first_id, "--json"]);
    assert_eq!(old.json["status"], "superseded");
    // One worktree, now owned by the revision.
    assert_eq!(worktrees(&fx), 2);
}

#[test]
fn compare_three_workers_then_approve_one() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let run = fx.run(&[
        "compare",
        "--repo",
        &fx.repo_arg(),
        "--task",
        FIX,
        "--worker",
        "claude",
        "--worker",
        "codex",
        "--worker",
        "exec:printf 'hello, world\\n' > greet.txt && echo extra > extra.txt",
        "--verify",
        VERIFY,
        "--json",
    ]);
    let out = run.expect_code(0);
    assert!(out["compare"].is_string(), "{out}");
    let attempts = out["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 3);
    let workers: Vec<&str> = attempts
        .iter()
        .map(|a| a["worker"].as_str().expect("worker"))
        .collect();
    assert_eq!(workers[..2], ["claude", "codex"]);
    assert!(workers[2].starts_with("exec:"));
    let mut ids: Vec<&str> = attempts
        .iter()
        .map(|a| a["run"].as_str().expect("id"))
        .collect();
    for a in attempts {
        assert_eq!(a["status"], "review", "{a}");
        assert!(
            files(a).contains(&("greet.txt".to_owned(), "modified".to_owned(), 1, 1)),
            "{a}"
        );
        assert_eq!(a["compare"], out["compare"]);
    }
    assert_eq!(files(&attempts[2]).len(), 2, "exec wrote two files");
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 3, "one attempt each");
    assert_eq!(worktrees(&fx), 4);

    let codex = attempts[1]["run"].as_str().expect("codex id").to_owned();
    let approved = fx.run(&["approve", &codex, "--message", "Codex wins", "--json"]);
    assert_eq!(approved.expect_code(0)["status"], "integrated");
    assert_eq!(fx.head("main~1"), base);
    assert_eq!(
        fx.git(&["log", "-1", "--format=%s", "main"]).trim(),
        "Codex wins"
    );
    assert_eq!(fx.git(&["show", "main:greet.txt"]), "hello, world\n");
    let list = fx.run(&["runs", "list", "--json"]);
    let list = list.expect_code(0).as_array().expect("array").clone();
    assert_eq!(list.len(), 3);
    for row in &list {
        let expected = if row["run"] == codex.as_str() {
            "integrated"
        } else {
            "rejected"
        };
        assert_eq!(row["status"], expected, "{row}");
    }
    assert_eq!(worktrees(&fx), 1, "the losers' worktrees are gone too");
    // The catalog compare (positional model ids) is still the same verb.
    let models = fx.run(&["compare", "only-one", "--json"]);
    assert_ne!(models.code, 0);
}

#[test]
fn a_killed_cli_leaves_the_attempt_interrupted_and_recover_reaches_review() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let started = fx.outside("started");
    let pid_file = fx.outside("sleeper.pid");
    let task = format!(
        "Greet the world.\n@write greet.txt <<EOF\nhello, world\nEOF\n@spawn-sleeper {}\n@run touch {}\n@sleep 15\n",
        pid_file.display(),
        started.display()
    );
    let mut child = fx.spawn(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        &task,
        "--worker",
        "codex",
        "--verify",
        VERIFY,
        &allow[0],
        &allow[1],
        "--json",
    ]);
    let deadline = Instant::now() + LIMIT;
    while !started.exists() {
        assert!(Instant::now() < deadline, "the worker never started");
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "run ended early"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Another CLI process looking at the attempts does not disturb the live one.
    let info = fx.run(&["info", "--json"]);
    info.expect_code(0);
    let list = fx.run(&["runs", "list", "--json"]);
    let row = list.expect_code(0)[0].clone();
    assert_eq!(row["status"], "running", "{row}");
    let id = row["run"].as_str().expect("id").to_owned();

    child.kill().expect("kill the CLI");
    let _ = child.wait();

    let shown = fx.run(&["review", &id, "--json"]);
    assert_eq!(shown.json["status"], "interrupted", "{}", shown.json);
    // The dead owner's worker and its child were stopped when the attempt was interrupted.
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .parse()
        .expect("pid");
    assert_eq!(
        host_pid(pid, &fx.home()),
        None,
        "the orphaned worker's child {pid} survived"
    );
    let recovered = fx.run(&["recover", &id, "--json"]);
    let review = recovered.expect_code(0);
    assert_eq!(review["status"], "review");
    assert_eq!(gate(review, "verification")["passed"], true);
    assert_eq!(
        files(review),
        [("greet.txt".to_owned(), "modified".to_owned(), 1, 1)]
    );
}

#[test]
fn cancel_and_recover_refuse_unknown_attempts() {
    let fx = Fixture::new();
    for verb in ["cancel", "recover", "review"] {
        let run = fx.run(&[verb, "0000000000000000", "--json"]);
        let json = run.expect_code(2);
        assert_eq!(json["error"]["code"], "notFound", "{verb}: {json}");
    }
}

/// Live (not zombie) processes whose environment names `home` as `SWITCHYARD_HOME`, as the
/// e2e tests find leftovers: the detached attempt process carries it, its workers do not.
fn processes_of(home: &Path) -> Vec<(u32, String)> {
    let marker = format!("SWITCHYARD_HOME={}", home.display()).into_bytes();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| alive(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .map(|env| env.split(|b| *b == 0).any(|var| var == marker.as_slice()))
                .unwrap_or(false)
        })
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            (pid, String::from_utf8_lossy(&cmdline).replace('\0', " "))
        })
        .collect()
}

/// Whether `pid` is alive and not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let close = stat.rfind(')')?;
            stat.get(close + 2..close + 3).map(|s| s != "Z")
        })
        .unwrap_or(false)
}

/// Waits (bounded) until `done` holds.
#[track_caller]
fn eventually(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Polls `review <id> --json` until the attempt is no longer live; returns the last review.
fn review_when_settled(fx: &Fixture, id: &str) -> Run {
    let deadline = Instant::now() + LIMIT;
    loop {
        let shown = fx.run(&["review", id, "--json"]);
        let status = shown.json["status"].as_str().unwrap_or_default().to_owned();
        if !["queued", "preparing", "running", "verifying"].contains(&status.as_str()) {
            return shown;
        }
        assert!(
            Instant::now() < deadline,
            "{id} never settled: {}",
            shown.json
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn detach_returns_at_once_and_a_detached_process_runs_the_attempt_to_review() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let worker = "exec:sleep 3; printf 'hello, world\\n' > greet.txt";
    let started = Instant::now();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Greet the world.",
        "--worker",
        worker,
        "--verify",
        VERIFY,
        "--detach",
        "--json",
    ]);
    let elapsed = started.elapsed();
    let queued = run.expect_code(0);
    assert!(
        elapsed < Duration::from_millis(2500),
        "--detach must not wait for the 3 s worker: {elapsed:?}"
    );
    let status = queued["status"].as_str().expect("status");
    assert!(
        ["queued", "preparing", "running"].contains(&status),
        "{queued}"
    );
    assert_eq!(queued["worker"], worker);
    assert!(
        queued["gates"].as_array().is_some_and(Vec::is_empty),
        "{queued}"
    );
    let id = run.id();
    // The attempt is owned by a detached process that carries this data dir, not by us.
    let owners = processes_of(&fx.home());
    assert!(
        owners
            .iter()
            .any(|(_, cmd)| cmd.contains("attempt-worker") && cmd.contains(&id)),
        "no detached attempt process: {owners:?}"
    );
    // Another CLI opening the database meanwhile leaves it running.
    let list = fx.run(&["runs", "list", "--json"]);
    let row = list.expect_code(0)[0].clone();
    assert!(
        ["queued", "preparing", "running"].contains(&row["status"].as_str().unwrap_or_default()),
        "{row}"
    );

    let settled = review_when_settled(&fx, &id);
    let review = settled.expect_code(0);
    assert_eq!(review["status"], "review", "{review}");
    assert_eq!(gate_names(review), GATES);
    for name in GATES {
        assert_eq!(gate(review, name)["passed"], true, "{name}: {review}");
    }
    assert_eq!(
        files(review),
        [("greet.txt".to_owned(), "modified".to_owned(), 1, 1)]
    );
    let log = fx
        .home()
        .join("logs")
        .join("attempts")
        .join(format!("{id}.log"));
    let log = std::fs::read_to_string(&log).expect("the detached process's log");
    assert!(log.contains("adopted"), "{log}");

    let approved = fx.run(&["approve", &id, "--message", "Greet the world", "--json"]);
    assert_eq!(approved.expect_code(0)["status"], "integrated");
    assert_eq!(fx.head("main~1"), base);
    assert_eq!(fx.git(&["show", "main:greet.txt"]), "hello, world\n");
    eventually(
        "the detached process to exit",
        Duration::from_secs(10),
        || processes_of(&fx.home()).is_empty(),
    );
}

#[test]
fn runs_log_follow_prints_a_detached_attempts_lines_as_they_happen_and_exits_at_its_end() {
    use std::io::{BufRead, BufReader};
    let fx = Fixture::new();
    let worker = "exec:for n in 1 2 3 4 5 6; do echo \"tick $n\"; sleep 0.4; done; printf 'hello, world\\n' > greet.txt";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Greet the world.",
        "--worker",
        worker,
        "--verify",
        VERIFY,
        "--detach",
        "--json",
    ]);
    run.expect_code(0);
    let id = run.id();

    // Another process follows it: every item as one JSON line, read as it is printed.
    let mut follow = fx.spawn(&["runs", "log", &id, "--follow", "--json"]);
    let stdout = follow.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .map(|line| (now_ms(), line))
            .collect::<Vec<_>>()
    });
    let out = wait_with_limit(follow, &["runs", "log", "--follow"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = reader.join().expect("reader");
    let items: Vec<(i64, Value)> = lines
        .iter()
        .map(|(at, line)| (*at, serde_json::from_str(line).expect("a JSON line")))
        .collect();
    assert_eq!(
        items.first().map(|(_, i)| i["type"].clone()),
        Some("state".into())
    );
    let last = &items.last().expect("items").1;
    assert_eq!(last["type"], "end", "{last}");
    assert_eq!(last["state"], "review", "{last}");
    let mut ticks = Vec::new();
    for (seen, item) in &items {
        let text = item.to_string();
        if item["type"] != "log" || !text.contains("tick ") {
            continue;
        }
        let stored = item["entry"]["atMs"].as_i64().expect("atMs");
        assert!(
            seen - stored <= 1_000,
            "printed {} ms after it was stored: {item}",
            seen - stored
        );
        ticks.push(text);
    }
    assert_eq!(ticks.len(), 6, "every worker line, once: {ticks:?}");
    let seqs: Vec<u64> = items
        .iter()
        .filter_map(|(_, i)| i["entry"]["seq"].as_u64())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
}

#[test]
fn a_crash_between_a_state_change_and_its_event_leaves_both_or_neither() {
    let fx = Fixture::new();
    // This process is SIGKILLed where the attempt's move to `running` is written and its
    // log entry is not yet (a debug-build hook in the store).
    let crashed = fx
        .command(&[
            "run",
            "--repo",
            &fx.repo_arg(),
            "--task",
            "Greet the world.",
            "--worker",
            "exec:printf 'hello, world\\n' > greet.txt",
            "--verify",
            VERIFY,
            "--json",
        ])
        .env(
            "SWITCHYARD_FAILPOINT",
            "between-state-and-event:\"state\":\"running\"",
        )
        .output()
        .expect("run");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        crashed.status.signal(),
        Some(9),
        "killed at the hook: {crashed:?}"
    );

    // Straight from the database, before any engine opens it (which would interrupt the
    // attempt): the row's state is the last state its log recorded.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let store = Store::open(&fx.home().join(DATABASE_FILE))
            .await
            .expect("store");
        let rows = store.attempts().await.expect("attempts");
        let row = rows.first().expect("the attempt was recorded");
        let events = store
            .events(switchyard_store::journal::Journal::Attempt, &row.id, 0, 100)
            .await
            .expect("events");
        let states: Vec<String> = events
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.body_json).ok())
            .filter(|body| body["type"] == "state")
            .filter_map(|body| body["state"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(
            states.last().map(String::as_str),
            Some(row.state.as_str()),
            "row {} but log {states:?}",
            row.state.as_str()
        );
        assert!(!states.contains(&"running".to_owned()), "{states:?}");
        store.close().await;
    });

    // The next process finds the owner gone: interrupted, with its entry.
    let shown = fx.run(&["review", &crashed_id(&fx), "--json"]);
    assert_eq!(shown.json["status"], "interrupted", "{}", shown.json);
}

fn crashed_id(fx: &Fixture) -> String {
    let list = fx.run(&["runs", "list", "--json"]);
    list.expect_code(0)[0]["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[test]
fn a_killed_detached_process_leaves_the_attempt_interrupted_and_recover_reaches_review() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let started = fx.outside("started");
    let pid_file = fx.outside("worker.pid");
    let worker = format!(
        "exec:printf 'hello, world\\n' > greet.txt; echo $$ > {}; touch {}; exec sleep 60",
        pid_file.display(),
        started.display()
    );
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Greet the world.",
        "--worker",
        &worker,
        "--verify",
        VERIFY,
        "--detach",
        &allow[0],
        &allow[1],
        "--json",
    ]);
    run.expect_code(0);
    let id = run.id();
    eventually("the worker to start", LIMIT, || started.exists());
    let owners = processes_of(&fx.home());
    let (owner, _) = owners
        .iter()
        .find(|(_, cmd)| cmd.contains("attempt-worker"))
        .cloned()
        .unwrap_or_else(|| panic!("no detached attempt process: {owners:?}"));
    let killed = Command::new("kill")
        .args(["-KILL", &owner.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    eventually(
        "the detached process to die",
        Duration::from_secs(10),
        || !alive(owner),
    );

    // The next CLI open finds the owner gone: interrupted, and its worker stopped.
    let shown = fx.run(&["review", &id, "--json"]);
    assert_eq!(shown.json["status"], "interrupted", "{}", shown.json);
    let worker_pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("worker pid")
        .trim()
        .parse()
        .expect("pid");
    eventually(
        "the orphaned worker to be stopped",
        Duration::from_secs(10),
        || host_pid(worker_pid, &fx.home()).is_none(),
    );
    // `recover --detach` hands the re-gating to a detached process and returns at once.
    let recovered = fx.run(&["recover", &id, "--detach", "--json"]);
    let handed = recovered.expect_code(0);
    assert!(
        ["verifying", "review"].contains(&handed["status"].as_str().unwrap_or_default()),
        "{handed}"
    );
    let settled = review_when_settled(&fx, &id);
    let review = settled.expect_code(0);
    assert_eq!(review["status"], "review", "{review}");
    assert_eq!(gate(review, "verification")["passed"], true);
    assert_eq!(
        files(review),
        [("greet.txt".to_owned(), "modified".to_owned(), 1, 1)]
    );
    let log = std::fs::read_to_string(
        fx.home()
            .join("logs")
            .join("attempts")
            .join(format!("{id}.log")),
    )
    .expect("log");
    assert_eq!(log.matches("adopted by pid").count(), 2, "{log}");
    eventually(
        "the detached recovery to exit",
        Duration::from_secs(10),
        || processes_of(&fx.home()).is_empty(),
    );
}

#[test]
fn cancel_from_another_process_stops_a_detached_attempt_and_leaves_no_process() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let started = fx.outside("started");
    let pid_file = fx.outside("worker.pid");
    let worker = format!(
        "exec:echo $$ > {}; touch {}; sleep 60 & wait",
        pid_file.display(),
        started.display()
    );
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Wait.",
        "--worker",
        &worker,
        "--verify",
        VERIFY,
        "--detach",
        &allow[0],
        &allow[1],
        "--json",
    ]);
    run.expect_code(0);
    let id = run.id();
    eventually("the worker to start", LIMIT, || started.exists());
    let owners = processes_of(&fx.home());
    let (owner, _) = owners
        .iter()
        .find(|(_, cmd)| cmd.contains("attempt-worker"))
        .cloned()
        .unwrap_or_else(|| panic!("no detached attempt process: {owners:?}"));
    let worker_pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("worker pid")
        .trim()
        .parse()
        .expect("pid");
    assert!(host_pid(worker_pid, &fx.home()).is_some());

    // Another process asks; the detached owner cancels and this returns the canceled review.
    let asked = Instant::now();
    let canceled = fx.run(&["cancel", &id, "--json"]);
    let review = canceled.expect_code(0);
    assert_eq!(review["status"], "canceled", "{review}");
    assert_eq!(review["error"]["code"], "canceled", "{review}");
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "{:?}",
        asked.elapsed()
    );
    eventually("the worker to be stopped", Duration::from_secs(10), || {
        host_pid(worker_pid, &fx.home()).is_none()
    });
    eventually(
        "the detached process to exit",
        Duration::from_secs(10),
        || !alive(owner),
    );
    eventually("no process of this home", Duration::from_secs(10), || {
        processes_of(&fx.home()).is_empty()
    });
    // Its worker's `sleep 60` child went with the group.
    assert!(
        !std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| alive(*pid))
            .any(|pid| {
                std::fs::read_link(format!("/proc/{pid}/cwd"))
                    .is_ok_and(|cwd| cwd.starts_with(fx.home()))
            }),
        "a process still runs in the data dir"
    );
    let again = fx.run(&["cancel", &id, "--json"]);
    assert_eq!(again.expect_code(2)["error"]["code"], "invalidInput");
}

#[test]
fn worktrees_prune_removes_an_old_failed_attempts_worktree_branch_and_log() {
    let fx = Fixture::new();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Fail.",
        "--worker",
        "exec:printf 'hello, world\\n' > greet.txt; exit 1",
        "--verify",
        VERIFY,
        "--detach",
        "--json",
    ]);
    run.expect_code(0);
    let id = run.id();
    let settled = review_when_settled(&fx, &id);
    assert_eq!(settled.json["status"], "failed", "{}", settled.json);
    eventually(
        "the detached process to exit",
        Duration::from_secs(10),
        || processes_of(&fx.home()).is_empty(),
    );
    let worktree = attempt_worktree(&fx);
    let log = fx
        .home()
        .join("logs")
        .join("attempts")
        .join(format!("{id}.log"));
    let branch = format!("switchyard/{id}");
    // Within the retention (7 days by default), every open keeps them.
    let kept = fx.run(&["worktrees", "prune", "--json"]);
    let kept = kept.expect_code(0);
    assert_eq!(kept["removed_worktrees"], serde_json::json!([]), "{kept}");
    assert_eq!(kept["retention_days"], 7);
    assert!(worktree.exists() && log.exists());
    assert!(fx.git(&["branch", "--list", &branch]).contains(&branch));

    // Eight days later: the next open (this one's own) removes them, and says so.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let store = Store::open(&fx.home().join(DATABASE_FILE))
                .await
                .expect("store");
            let row = store.attempt(&id).await.expect("read").expect("row");
            let long_ago = row.finished_ms.expect("finished") - 8 * 24 * 3600 * 1000;
            let guard = switchyard_store::attempts::Guard {
                state: row.state,
                owner: None,
            };
            let aged = switchyard_store::attempts::AttemptChanges::new().finished_ms(long_ago);
            assert!(store
                .update_attempt(&id, guard, long_ago, &aged)
                .await
                .expect("age"));
            store.close().await;
        });
    let pruned = fx.run(&["worktrees", "prune", "--json"]);
    let pruned = pruned.expect_code(0);
    assert_eq!(
        pruned["removed_worktrees"],
        serde_json::json!([id]),
        "{pruned}"
    );
    assert_eq!(pruned["removed_logs"], serde_json::json!([id]), "{pruned}");
    assert_eq!(pruned["worktrees"], 0, "{pruned}");
    assert!(!worktree.exists());
    assert!(!log.exists());
    assert_eq!(fx.git(&["branch", "--list", &branch]).trim(), "");
    assert_eq!(worktrees(&fx), 1, "only the repository itself");
    // The attempt itself is still listed, failed.
    let shown = fx.run(&["review", &id, "--json"]);
    assert_eq!(shown.expect_code(1)["status"], "failed");
    let text = fx.run(&["worktrees", "prune"]);
    assert_eq!(text.code, 0);
    assert!(
        text.stdout.contains("removed 0 worktree(s)"),
        "{}",
        text.stdout
    );
}

#[test]
fn sigterm_to_the_detached_process_cancels_the_attempt_and_stops_its_worker() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let started = fx.outside("started");
    let pid_file = fx.outside("worker.pid");
    let worker = format!(
        "exec:echo $$ > {}; touch {}; exec sleep 60",
        pid_file.display(),
        started.display()
    );
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Wait.",
        "--worker",
        &worker,
        "--verify",
        VERIFY,
        "--detach",
        &allow[0],
        &allow[1],
        "--json",
    ]);
    run.expect_code(0);
    let id = run.id();
    eventually("the worker to start", LIMIT, || started.exists());
    let owners = processes_of(&fx.home());
    let (owner, _) = owners
        .iter()
        .find(|(_, cmd)| cmd.contains("attempt-worker"))
        .cloned()
        .unwrap_or_else(|| panic!("no detached attempt process: {owners:?}"));
    let signalled = Command::new("kill")
        .args(["-TERM", &owner.to_string()])
        .status()
        .expect("kill");
    assert!(signalled.success());
    let settled = review_when_settled(&fx, &id);
    assert_eq!(settled.json["status"], "canceled", "{}", settled.json);
    let worker_pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("worker pid")
        .trim()
        .parse()
        .expect("pid");
    eventually("the worker to be stopped", Duration::from_secs(10), || {
        host_pid(worker_pid, &fx.home()).is_none()
    });
    eventually(
        "the detached process to exit",
        Duration::from_secs(10),
        || processes_of(&fx.home()).is_empty(),
    );
}

#[test]
fn compare_detach_returns_the_queued_group_and_each_attempt_reaches_review() {
    let fx = Fixture::new();
    let started = Instant::now();
    let run = fx.run(&[
        "compare",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Greet the world.",
        "--worker",
        "exec:sleep 3; printf 'hello, world\\n' > greet.txt",
        "--worker",
        "exec:sleep 3; printf 'hello, world\\n' > greet.txt; echo x > extra.txt",
        "--verify",
        VERIFY,
        "--detach",
        "--json",
    ]);
    let elapsed = started.elapsed();
    let out = run.expect_code(0);
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    let attempts = out["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 2);
    let ids: Vec<String> = attempts
        .iter()
        .map(|a| {
            assert!(
                ["queued", "preparing", "running"].contains(&a["status"].as_str().unwrap_or("")),
                "{a}"
            );
            a["run"].as_str().expect("id").to_owned()
        })
        .collect();
    for (id, files_changed) in ids.iter().zip([1, 2]) {
        let settled = review_when_settled(&fx, id);
        let review = settled.expect_code(0);
        assert_eq!(review["status"], "review", "{review}");
        assert_eq!(review["compare"], out["compare"]);
        assert_eq!(files(review).len(), files_changed, "{review}");
    }
    let approved = fx.run(&["approve", &ids[0], "--message", "First wins", "--json"]);
    assert_eq!(approved.expect_code(0)["status"], "integrated");
    let other = fx.run(&["review", &ids[1], "--json"]);
    assert_eq!(other.json["status"], "rejected");
    eventually(
        "the detached processes to exit",
        Duration::from_secs(10),
        || processes_of(&fx.home()).is_empty(),
    );
}

/// The attempt's worktree: the one `git worktree list` shows besides the repository itself.
fn attempt_worktree(fixture: &Fixture) -> PathBuf {
    let repo = std::fs::canonicalize(fixture.repo()).expect("canonical repo");
    fixture
        .git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .find(|p| std::fs::canonicalize(p).map_or(true, |p| p != repo))
        .expect("an attempt worktree")
}

#[test]
fn escape_and_secret_gates_block_with_exit_3() {
    let fx = Fixture::new();
    let escape = "Link the config.\n@symlink config.txt ../../../../etc/passwd\n";
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        escape,
        "--worker",
        "claude",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(3);
    assert_eq!(gate(review, "escape")["passed"], false, "{review}");
    assert!(gate(review, "escape").to_string().contains("config.txt"));

    // A well-known credential shape in an added line; the JSON names it but never prints it.
    let key = "AKIAQYLPMN5HHHFPZAM2";
    let secret = format!(
        "Configure AWS.\n@write aws.env <<EOF\nAWS_ACCESS_KEY_ID={key}\nAWS_SECRET_ACCESS_KEY=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\nEOF\n"
    );
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        &secret,
        "--worker",
        "gemini",
        "--verify",
        "true",
        "--json",
    ]);
    let review = run.expect_code(3);
    let secrets = gate(review, "secrets");
    assert_eq!(secrets["passed"], false, "{review}");
    assert!(secrets.to_string().contains("aws.env"), "{secrets}");
    assert!(
        !secrets.to_string().contains(key),
        "the secret is never printed"
    );
    let approve = fx.run(&["approve", &run.id(), "--message", "m", "--json"]);
    assert_eq!(
        approve.code, 3,
        "a failed gate blocks approve: {}",
        approve.stdout
    );
}

#[test]
fn a_hung_worker_times_out_and_leaves_no_process_behind() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let pid_file = fx.outside("sleeper.pid");
    let task = format!(
        "Think forever.\n@ignore-term\n@spawn-sleeper {}\n@hang\n",
        pid_file.display()
    );
    let started = Instant::now();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        &task,
        "--worker",
        "codex",
        "--timeout",
        "2",
        "--verify",
        "true",
        &allow[0],
        &allow[1],
        "--json",
    ]);
    let review = run.expect_code(1);
    assert_eq!(review["status"], "failed");
    assert_eq!(review["error"]["code"], "timeout", "{review}");
    assert!(started.elapsed() < Duration::from_secs(60));
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("the worker started a child")
        .trim()
        .parse()
        .expect("pid");
    // The worker ignored SIGTERM and left a child: the whole group was killed anyway (the pid
    // is the child's in its sandbox; no live process on the host answers to it).
    assert_eq!(
        host_pid(pid, &fx.home()),
        None,
        "the sleeper {pid} survived"
    );
}

#[test]
fn approve_is_blocked_when_the_worktree_changed_after_verification() {
    let fx = Fixture::new();
    let base = fx.head("main");
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        FIX,
        "--worker",
        "aider",
        "--verify",
        VERIFY,
        "--json",
    ]);
    run.expect_code(0);
    let worktree = attempt_worktree(&fx);
    std::fs::write(worktree.join("greet.txt"), "hello, world\nsneaky\n").expect("tamper");
    let approve = fx.run(&["approve", &run.id(), "--message", "m", "--json"]);
    let json = approve.expect_code(3);
    assert_eq!(json["error"]["code"], "changed", "{json}");
    assert_eq!(fx.head("main"), base);
}

#[test]
fn a_conflict_on_integrate_is_reported_and_the_target_stays_as_it_was() {
    let fx = Fixture::new();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        FIX,
        "--worker",
        "codex",
        "--verify",
        VERIFY,
        "--json",
    ]);
    run.expect_code(0);
    // Meanwhile the user commits a different greeting on main.
    fx.write("greet.txt", "good morning\n");
    fx.git(&["commit", "-qam", "user greeting"]);
    let user_head = fx.head("main");
    let approve = fx.run(&["approve", &run.id(), "--message", "Greet", "--json"]);
    let json = approve.expect_code(1);
    assert_eq!(json["error"]["code"], "conflict", "{json}");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("greet.txt")),
        "{json}"
    );
    assert_eq!(fx.head("main"), user_head);
    assert_eq!(fx.read("greet.txt"), "good morning\n");
    assert!(fx.git(&["status", "--porcelain"]).trim().is_empty());
    let review = fx.run(&["review", &run.id(), "--json"]);
    assert_eq!(review.json["status"], "approved");
}

#[test]
fn ctrl_c_cancels_the_attempt_and_stops_its_worker() {
    let fx = Fixture::new();
    let allow = fx.allow_outside();
    let started = fx.outside("started");
    let pid_file = fx.outside("sleeper.pid");
    let task = format!(
        "Wait.\n@spawn-sleeper {}\n@run touch {}\n@hang\n",
        pid_file.display(),
        started.display()
    );
    let child = fx.spawn(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        &task,
        "--worker",
        "opencode",
        "--verify",
        "true",
        &allow[0],
        &allow[1],
        "--json",
    ]);
    let deadline = Instant::now() + LIMIT;
    while !started.exists() {
        assert!(Instant::now() < deadline, "the worker never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    let list = fx.run(&["runs", "list", "--json"]);
    let id = list.expect_code(0)[0]["run"]
        .as_str()
        .expect("id")
        .to_owned();
    let interrupt = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(interrupt.success());
    let out = wait_with_limit(child, &["run"]);
    let review: Value = serde_json::from_slice(&out.stdout).expect("JSON after Ctrl-C");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(review["status"], "canceled", "{review}");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .parse()
        .expect("pid");
    assert_eq!(
        host_pid(pid, &fx.home()),
        None,
        "the worker's child {pid} survived"
    );

    // The log has the worker's own events and the state changes, numbered.
    let log = fx.run(&["runs", "log", &id, "--json"]);
    let entries = log.expect_code(0).as_array().expect("entries").clone();
    assert!(entries.len() >= 3, "{entries:?}");
    let seqs: Vec<u64> = entries.iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // For people, the review is text.
    let text = fx.run(&["review", &id]);
    assert_eq!(text.code, 1);
    assert!(text.stdout.contains(&id), "{}", text.stdout);
    assert!(text.stdout.contains("canceled"), "{}", text.stdout);
}

#[test]
fn the_attempts_own_locked_globs_and_a_rename_into_a_locked_path_block() {
    let fx = Fixture::new();
    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Tune the deploy.\n@write deploy/prod.yml <<EOF\nreplicas: 9\nEOF\n",
        "--worker",
        "claude",
        "--lock",
        "deploy/**",
        "--verify",
        "true",
        "--json",
    ]);
    let locked = gate(run.expect_code(3), "locked_paths").clone();
    assert_eq!(locked["passed"], false);
    assert!(locked.to_string().contains("deploy/prod.yml"), "{locked}");

    let run = fx.run(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        "Move it.\n@rename greet.txt .github/workflows/greet.yml\n",
        "--worker",
        "codex",
        "--verify",
        "true",
        "--json",
    ]);
    let locked = gate(run.expect_code(3), "locked_paths").clone();
    assert_eq!(locked["passed"], false);
    assert!(
        locked.to_string().contains(".github/workflows/greet.yml"),
        "{locked}"
    );
}

#[test]
fn a_worker_flooding_output_stays_within_bounded_memory() {
    let fx = Fixture::new();
    let task = "Talk a lot.\n@flood 120000000\n@write greet.txt <<EOF\nhello, world\nEOF\n";
    let mut child = fx.spawn(&[
        "run",
        "--repo",
        &fx.repo_arg(),
        "--task",
        task,
        "--worker",
        "claude",
        "--verify",
        VERIFY,
        "--json",
    ]);
    let status = Path::new("/proc")
        .join(child.id().to_string())
        .join("status");
    let mut peak_kb = 0u64;
    let deadline = Instant::now() + LIMIT;
    // Drain stdout on a thread so the pipe never blocks the CLI.
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut out).expect("read");
        out
    });
    while child.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "flood run hung");
        let rss = std::fs::read_to_string(&status)
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        peak_kb = peak_kb.max(rss);
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = reader.join().expect("reader");
    let review: Value = serde_json::from_slice(&out).expect("review JSON");
    assert_eq!(review["status"], "review", "{review}");
    assert_eq!(gate(&review, "verification")["passed"], true);
    // 120 MB went through the CLI's parser; it must not have kept it all.
    assert!(peak_kb < 100 * 1024, "peak RSS {peak_kb} kB");
}
