//! Runs through the real binary: each mode's run JSON (`run --mode …`), a cascade that
//! escalates once, the USD cap stopping a run with its partial results, `runs list|show|
//! output|log|spend`, `rate <run> <node> <n>`, the launcher from `PARENT_AGENT`, run ids in
//! `review` / `approve`, bad input, and the issue-9 `run --repo --worker` form unchanged —
//! against the scripted model server of `runs_cli_support`.
// The binary and git run as child processes: a `Command` outside crates/runner.
#![allow(clippy::disallowed_methods)]

mod runs_cli_support;

use std::path::Path;

use runs_cli_support::*;
use serde_json::{json, Value};

#[test]
fn a_single_run_prints_the_run_json_and_its_output() {
    let fx = Fixture::new();
    let server = fx.server(|_| Behavior::answer("Hello from the model."));
    let out = fx.run(
        &[
            "run",
            "--mode",
            "single",
            "--task",
            "Say hello",
            "--model",
            MINI,
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["mode"], "single");
    assert_eq!(run["status"], "completed");
    assert_eq!(run["reason"], Value::Null);
    assert_eq!(run["launcher"], "cli");
    assert_eq!(f(&run["max_usd"]), 5.0);
    assert!(close(f(&run["cost_usd"]), MINI_CALL), "{run:#}");
    assert!(run.get("diff").is_none(), "a text run has no diff");
    let n1 = node(&run, "n1");
    assert_eq!(n1["status"], "done");
    assert_eq!(n1["model"], MINI);
    assert_eq!(n1["depends_on"], json!([]));
    assert_eq!(n1["attempts"][0]["model"], MINI);
    assert_eq!(n1["attempts"][0]["worker"], Value::Null);
    assert_eq!(n1["attempts"][0]["status"], "settled");
    assert_eq!(n1["attempts"][0]["tokens"], 150);
    assert_eq!(n1["attempts"][0]["tokens_in"], 100);
    assert_eq!(n1["attempts"][0]["tokens_out"], 50);
    assert_eq!(n1["tokens"], 150);
    assert!(close(f(&n1["attempts"][0]["cost_usd"]), MINI_CALL));
    assert_eq!(server.requests().len(), 1);
    let id = run["run"].as_str().expect("id").to_owned();

    // The text, and the same as JSON.
    let text = fx.run(&["runs", "output", &id], &[]);
    assert_eq!(text.code, 0);
    assert_eq!(text.stdout.trim(), "Hello from the model.");
    let output = fx.run(&["runs", "output", &id, "n1", "--json"], &[]);
    let output = output.expect_code(0);
    assert_eq!(output["run"], id.as_str());
    assert_eq!(output["node"], "n1");
    assert_eq!(output["text"], "Hello from the model.");
    assert_eq!(output["nodes"][0]["id"], "n1");
    assert_eq!(output["nodes"][0]["complete"], true);
    assert!(output["nodes"][0]["sha256"].is_string());

    // `runs show` prints the same run; for people, a summary.
    let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
    assert_eq!(shown.expect_code(0)["nodes"], run["nodes"]);
    let human = fx.run(&["runs", "show", &id], &[]);
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains(&id) && human.stdout.contains("completed"));

    // Without --mode and without --repo/--worker it is still a run: a single one.
    let plain = fx.run(
        &["run", "--task", "Say hello", "--model", MINI, "--json"],
        &[],
    );
    assert_eq!(plain.expect_code(0)["mode"], "single");

    // Paused after planning: nothing is called until it is resumed.
    let before = server.requests().len();
    let paused = fx.run(
        &[
            "run",
            "--task",
            "Say hello",
            "--model",
            MINI,
            "--pause-after-plan",
            "--json",
        ],
        &[],
    );
    let paused = paused.expect_code(0).clone();
    assert_eq!(paused["status"], "paused");
    assert_eq!(node(&paused, "n1")["status"], "pending");
    assert_eq!(server.requests().len(), before);
    let paused_id = paused["run"].as_str().expect("id");
    let resumed = fx.run(&["runs", "resume", paused_id, "--json"], &[]);
    assert_eq!(resumed.expect_code(0)["status"], "completed");
    assert_eq!(server.requests().len(), before + 1);

    // Its log has the run's state changes, numbered.
    let log = fx.run(&["runs", "log", &id, "--json"], &[]);
    let entries = log.expect_code(0).as_array().expect("entries").clone();
    assert!(entries.iter().any(|e| e["entry"]["state"] == "completed"));

    // A text run has no attempt to review: said clearly, bad input.
    let review = fx.run(&["review", &id, "--json"], &[]);
    let message = review.expect_code(2)["error"]["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains("no attempt to review"), "{message}");

    // Rated: stored on the node.
    let rated = fx.run(&["rate", &id, "n1", "4", "--json"], &[]);
    assert_eq!(rated.expect_code(0)["rating"], 4);
    let shown = fx.run(&["runs", "show", &id, "--json"], &[]);
    assert_eq!(node(shown.expect_code(0), "n1")["rating"], 4);
    let bad = fx.run(&["rate", &id, "n1", "9", "--json"], &[]);
    assert_eq!(bad.expect_code(1)["error"]["code"], "invalidInput");
    // The model rating verb still works.
    let model = fx.run(
        &["rate", "openai/gpt-4o-mini", "coding", "5", "--json"],
        &[],
    );
    model.expect_code(0);
}

#[test]
fn a_collective_runs_its_members_and_a_merge_that_names_its_inputs() {
    let fx = Fixture::new();
    let server = fx.server(|asked| {
        if asked.prompt.contains("Used:") || asked.prompt.contains("answers") {
            Behavior::answer("Both agree: 4.\nUsed: 1, 2")
        } else {
            Behavior::answer("4")
        }
    });
    let out = fx.run(
        &[
            "run",
            "--mode",
            "collective",
            "--task",
            "What is 2 + 2?",
            "--model",
            MINI,
            "--model",
            GPT4O,
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["mode"], "collective");
    assert_eq!(run["status"], "completed");
    assert_eq!(node(&run, "m1")["model"], MINI);
    assert_eq!(node(&run, "m2")["model"], GPT4O);
    let merge = node(&run, "merge");
    assert_eq!(merge["depends_on"], json!(["m1", "m2"]));
    assert_eq!(merge["status"], "done");
    assert_eq!(merge["used_inputs"], json!([1, 2]), "{merge:#}");
    assert_eq!(server.requests().len(), 3);
    let total: f64 = run["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| f(&n["cost_usd"]))
        .sum();
    assert!(close(f(&run["cost_usd"]), total), "{run:#}");
}

#[test]
fn a_cascade_escalates_once_and_shows_what_each_rung_cost() {
    let fx = Fixture::new();
    // The cheap rung's provider fails (a 400 is not retried); the next rung answers.
    let server = fx.server(|asked| {
        if asked.model.contains("mini") {
            Behavior::fail(400, "the cheap model is down")
        } else {
            Behavior::answer("A careful answer.")
        }
    });
    let out = fx.run(
        &[
            "run",
            "--mode",
            "cascade",
            "--task",
            "Explain borrowing in Rust",
            "--ladder",
            MINI,
            "--ladder",
            GPT4O,
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["mode"], "cascade");
    assert_eq!(run["status"], "completed");
    assert_eq!(run["ladder"][0]["model"], MINI);
    assert_eq!(run["ladder"][1]["model"], GPT4O);
    let c1 = node(&run, "c1");
    assert_eq!(c1["rung"], 2, "the second rung succeeded: {c1:#}");
    assert_eq!(c1["model"], GPT4O);
    let tries = c1["attempts"].as_array().expect("tries");
    assert_eq!(tries.len(), 2, "{tries:#?}");
    assert_eq!(tries[0]["model"], MINI);
    assert_eq!(tries[0]["rung"], 1);
    assert_eq!(tries[0]["status"], "failed");
    assert_eq!(tries[0]["signal"]["kind"], "provider_failed", "{tries:#?}");
    assert_eq!(tries[1]["model"], GPT4O);
    assert_eq!(tries[1]["rung"], 2);
    assert_eq!(tries[1]["status"], "settled");
    assert!(close(f(&tries[1]["cost_usd"]), GPT4O_CALL), "{tries:#?}");
    let rungs = f(&tries[0]["cost_usd"]) + f(&tries[1]["cost_usd"]);
    assert!(close(f(&run["cost_usd"]), rungs), "{run:#}");
    assert_eq!(requests_for(&server, |a| a.model.contains("mini")), 1);
    assert_eq!(server.requests().len(), 2, "stops at the first success");
    let id = run["run"].as_str().expect("id");
    let text = fx.run(&["runs", "output", id], &[]);
    assert_eq!(text.stdout.trim(), "A careful answer.");
}

#[test]
fn plan_and_swarm_runs_follow_their_steps_and_dag() {
    let fx = Fixture::new();
    let server = fx.server(|asked| {
        let step = step_of(&asked.prompt);
        Behavior::answer(&format!("OUT-{step}"))
    });
    let plan = fx.plan_file(
        "plan",
        &[("s1", "Outline the topic", &[]), ("s2", "Write it up", &[])],
        MINI,
    );
    let out = fx.run(
        &[
            "run",
            "--mode",
            "plan",
            "--task",
            "Write about rivers",
            "--plan",
            &plan,
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["mode"], "plan");
    assert_eq!(run["status"], "completed");
    assert_eq!(node(&run, "s2")["depends_on"], json!(["s1"]));
    let prompts: Vec<String> = server.requests().iter().map(|r| asked(r).prompt).collect();
    let s2 = prompts
        .iter()
        .find(|p| step_of(p) == "s2")
        .expect("s2 asked");
    assert!(s2.contains("OUT-s1"), "s2 gets s1's output: {s2}");
    let trace: Vec<&str> = node(&run, "s2")["trace"]
        .as_array()
        .expect("trace")
        .iter()
        .filter_map(|i| i["source"].as_str())
        .collect();
    assert!(trace.contains(&"node:s1"), "{trace:?}");
    let id = run["run"].as_str().expect("id");
    let text = fx.run(&["runs", "output", id], &[]);
    assert_eq!(
        text.stdout.trim(),
        "OUT-s2",
        "a plan's result is its last step"
    );

    let swarm = fx.plan_file(
        "swarm",
        &[
            ("a", "Write the API", &[]),
            ("b", "Write the schema", &[]),
            ("c", "Write the docs", &["a", "b"]),
        ],
        MINI,
    );
    let out = fx.run(
        &[
            "run",
            "--mode",
            "swarm",
            "--task",
            "Build the service",
            "--plan",
            &swarm,
            "--max-parallel-nodes",
            "2",
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["mode"], "swarm");
    assert_eq!(run["status"], "completed");
    assert_eq!(run["limits"]["max_parallel_nodes"], 2);
    assert_eq!(node(&run, "c")["depends_on"], json!(["a", "b"]));
    for id in ["a", "b", "c"] {
        assert_eq!(node(&run, id)["status"], "done");
    }
    let c = prompts_for(&server, "c");
    assert!(c.contains("OUT-a") && c.contains("OUT-b"), "{c}");
}

#[test]
fn a_run_over_its_usd_cap_stops_with_budget_exceeded_and_keeps_partial_results() {
    let fx = Fixture::new();
    // 100 in, 900 out on gpt-4o: $0.00925 a call. With 1,000 output tokens a call's worst
    // case is over $0.01, so the second step's reservation no longer fits under $0.015.
    let server =
        fx.server(|asked| answer_with(&format!("OUT-{}", step_of(&asked.prompt)), (100, 900)));
    let plan = fx.plan_file(
        "plan",
        &[("s1", "Draft it", &[]), ("s2", "Polish it", &[])],
        GPT4O,
    );
    let out = fx.run(
        &[
            "run",
            "--mode",
            "plan",
            "--task",
            "Write a poem",
            "--plan",
            &plan,
            "--max-usd",
            "0.015",
            "--max-output-tokens",
            "1000",
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(1).clone();
    assert_run_shape(&run);
    assert_eq!(run["status"], "failed");
    assert_eq!(run["reason"], "budget_exceeded");
    assert_eq!(f(&run["max_usd"]), 0.015);
    let spent = f(&run["cost_usd"]);
    assert!(close(spent, (100.0 * 2.5 + 900.0 * 10.0) / 1e6), "{run:#}");
    assert!(spent <= 0.015);
    assert_eq!(node(&run, "s1")["status"], "done");
    assert_ne!(node(&run, "s2")["status"], "done");
    assert_eq!(
        server.requests().len(),
        1,
        "the call that did not fit was not made"
    );
    let id = run["run"].as_str().expect("id");
    let partial = fx.run(&["runs", "output", id, "s1"], &[]);
    assert_eq!(
        partial.stdout.trim(),
        "OUT-s1",
        "the partial result is kept"
    );
}

#[test]
fn the_launcher_is_the_parent_agent_and_lists_filter_by_it() {
    let fx = Fixture::new();
    let _server = fx.server(|_| Behavior::answer("ok"));
    let by_codex = fx.run(
        &["run", "--task", "Name a colour", "--model", MINI, "--json"],
        &[("PARENT_AGENT", "codex")],
    );
    let by_codex = by_codex.expect_code(0).clone();
    assert_eq!(by_codex["launcher"], "codex");
    let by_cli = fx.run(
        &[
            "run",
            "--mode",
            "cascade",
            "--task",
            "Name a river",
            "--ladder",
            MINI,
            "--json",
        ],
        &[],
    );
    let by_cli = by_cli.expect_code(0).clone();
    assert_eq!(by_cli["launcher"], "cli");

    let list = |args: &[&str]| -> Vec<Value> {
        let mut all = vec!["runs", "list"];
        all.extend_from_slice(args);
        all.push("--json");
        fx.run(&all, &[])
            .expect_code(0)
            .as_array()
            .expect("rows")
            .clone()
    };
    let rows = list(&[]);
    assert_eq!(rows.len(), 2);
    // Newest first, every field of a run row.
    assert_eq!(rows[0]["run"], by_cli["run"]);
    assert_eq!(rows[1]["run"], by_codex["run"]);
    for key in [
        "run",
        "id",
        "kind",
        "mode",
        "status",
        "reason",
        "launcher",
        "task",
        "cost_usd",
        "max_usd",
        "savings_usd",
        "created_ms",
        "finished_ms",
        "nodes",
        "nodes_done",
    ] {
        assert!(rows[0].get(key).is_some(), "no {key} in {:#}", rows[0]);
    }
    assert_eq!(rows[0]["kind"], "run");
    assert_eq!(rows[0]["nodes"], 1);
    assert_eq!(rows[0]["nodes_done"], 1);
    let codex = list(&["--launcher", "codex"]);
    assert_eq!(codex.len(), 1);
    assert_eq!(codex[0]["run"], by_codex["run"]);
    assert_eq!(list(&["--launcher", "cli"])[0]["run"], by_cli["run"]);
    assert!(list(&["--launcher", "cursor"]).is_empty());
    assert_eq!(list(&["--mode", "cascade"])[0]["run"], by_cli["run"]);
    assert_eq!(list(&["--text", "COLOUR"])[0]["run"], by_codex["run"]);
    assert_eq!(list(&["--status", "completed"]).len(), 2);
    assert!(list(&["--status", "failed"]).is_empty());
    let bad = fx.run(&["runs", "list", "--status", "sleepy", "--json"], &[]);
    assert_eq!(bad.expect_code(2)["error"]["code"], "invalidInput");

    // Spend: totals per model and per mode.
    let spend = fx.run(&["runs", "spend", "--since", "1d", "--json"], &[]);
    let spend = spend.expect_code(0).clone();
    assert_eq!(spend["runs"], 2);
    assert!(close(f(&spend["cost_usd"]), 2.0 * MINI_CALL), "{spend:#}");
    let mini = spend["by_model"]
        .as_array()
        .expect("by_model")
        .iter()
        .find(|m| m["model"] == MINI)
        .cloned()
        .unwrap_or_else(|| panic!("{MINI} in {spend:#}"));
    assert!(close(f(&mini["cost_usd"]), 2.0 * MINI_CALL));
    let modes: Vec<&str> = spend["by_mode"]
        .as_array()
        .expect("by_mode")
        .iter()
        .filter_map(|m| m["mode"].as_str())
        .collect();
    assert!(
        modes.contains(&"single") && modes.contains(&"cascade"),
        "{modes:?}"
    );
    assert!(spend["savings_usd"].is_number());
}

#[test]
fn bad_run_arguments_are_bad_input_with_json_errors() {
    let fx = Fixture::new();
    for args in [
        &["run", "--mode", "sideways", "--task", "x", "--json"][..],
        &["run", "--task", "x", "--ladder", MINI, "--json"],
        &["run", "--task", "x", "--worker", "claude", "--json"],
        &["run", "--mode", "single", "--json"],
        &[
            "run",
            "--repo",
            ".",
            "--task",
            "x",
            "--worker",
            "claude",
            "--max-usd",
            "1",
            "--json",
        ],
        &["run", "--task", "x", "--max-usd", "-1", "--json"],
    ] {
        let out = fx.run(args, &[]);
        assert_eq!(
            out.expect_code(2)["error"]["code"],
            "invalidInput",
            "{args:?}"
        );
    }
    let missing = fx.run(&["runs", "show", "0123456789abcdef0", "--json"], &[]);
    assert_eq!(missing.expect_code(2)["error"]["code"], "notFound");
}

#[test]
fn a_code_run_carries_its_attempt_and_a_legacy_run_stays_an_attempt() {
    let fx = Fixture::new();
    let repo = repo(&fx);
    let repo = repo.to_string_lossy().into_owned();
    const FIX: &str = "exec:printf 'hello, world\\n' > greet.txt";
    const WRONG: &str = "exec:printf 'hi\\n' > greet.txt";

    // A single code run: the run JSON plus its attempt's diff, gates and verification.
    let out = fx.run(
        &[
            "run",
            "--mode",
            "single",
            "--repo",
            &repo,
            "--task",
            "Greet the world",
            "--worker",
            FIX,
            "--verify",
            "sh check.sh",
            "--json",
        ],
        &[],
    );
    let run = out.expect_code(0).clone();
    assert_run_shape(&run);
    assert_eq!(run["status"], "review", "{run:#}");
    let attempt = run["attempt"].as_str().expect("attempt id").to_owned();
    assert_ne!(attempt, run["run"].as_str().expect("run id"));
    assert_eq!(run["diff"]["files"][0]["path"], "greet.txt");
    assert_eq!(run["verification"]["passed"], true);
    assert!(run["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .all(|g| g["passed"] == true));
    let n1 = node(&run, "n1");
    assert_eq!(n1["attempts"][0]["attempt"], attempt.as_str());
    assert_eq!(n1["attempts"][0]["worker"], FIX);
    let run_id = run["run"].as_str().expect("id").to_owned();
    // `review <run>` is its attempt's review.
    let review = fx.run(&["review", &run_id, "--json"], &[]);
    assert_eq!(review.expect_code(0)["run"], attempt.as_str());

    // A gate failed: exit 3.
    let failed = fx.run(
        &[
            "run",
            "--mode",
            "single",
            "--repo",
            &repo,
            "--task",
            "Greet the world",
            "--worker",
            WRONG,
            "--verify",
            "sh check.sh",
            "--json",
        ],
        &[],
    );
    let failed = failed.expect_code(3).clone();
    assert_eq!(failed["status"], "review");
    assert_eq!(failed["verification"]["passed"], false);

    // The issue-9 form: no --mode, --repo and --worker: one standalone attempt.
    let legacy = fx.run(
        &[
            "run",
            "--repo",
            &repo,
            "--task",
            "Greet the world",
            "--worker",
            FIX,
            "--verify",
            "sh check.sh",
            "--json",
        ],
        &[],
    );
    let legacy = legacy.expect_code(0).clone();
    let legacy_id = legacy["run"].as_str().expect("id").to_owned();
    assert!(legacy.get("mode").is_none(), "the attempt JSON: {legacy:#}");
    assert!(legacy.get("nodes").is_none());
    assert_eq!(legacy["status"], "review");
    assert_eq!(legacy["worker"], FIX);
    for key in ["diff", "gates", "verification", "usage", "can_approve"] {
        assert!(legacy.get(key).is_some(), "no {key}");
    }

    // The list: three runs and one standalone attempt (the runs' attempts are not rows).
    let list = fx.run(&["runs", "list", "--json"], &[]);
    let rows = list.expect_code(0).as_array().expect("rows").clone();
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_eq!(rows[0]["kind"], "attempt");
    assert_eq!(rows[0]["run"], legacy_id.as_str());
    assert_eq!(rows[0]["mode"], "single");
    for key in [
        "run",
        "status",
        "worker",
        "worker_version",
        "task",
        "repo",
        "base",
        "target_branch",
        "parent",
        "compare",
        "launcher",
        "created_ms",
        "updated_ms",
        "elapsed_ms",
        "files_changed",
        "additions",
        "deletions",
        "gates_passed",
        "cost_usd",
        "error",
    ] {
        assert!(rows[0].get(key).is_some(), "no {key} in {:#}", rows[0]);
    }
    assert!(rows[1..].iter().all(|r| r["kind"] == "run"));
    assert!(rows.iter().all(|r| r["run"] != attempt.as_str()));
    let attempts_only = fx.run(&["runs", "list", "--kind", "attempt", "--json"], &[]);
    assert_eq!(
        attempts_only.expect_code(0).as_array().map(Vec::len),
        Some(1)
    );
    // A code collective: one attempt per member, reviewed one by one.
    let collective = fx.run(
        &[
            "run",
            "--mode",
            "collective",
            "--repo",
            &repo,
            "--task",
            "Greet the world",
            "--model",
            FIX,
            "--model",
            WRONG,
            "--verify",
            "sh check.sh",
            "--json",
        ],
        &[],
    );
    let collective = collective.expect_code(0).clone();
    assert_eq!(collective["status"], "review", "{collective:#}");
    assert!(
        collective.get("attempt").is_none(),
        "two attempts, none at the top"
    );
    let collective_id = collective["run"].as_str().expect("id").to_owned();
    let review = fx.run(&["review", &collective_id, "--json"], &[]);
    let message = review.expect_code(2)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("collective of 2 attempts"), "{message}");

    // Approving the first run by its id approves its attempt and integrates it.
    let approved = fx.run(
        &["approve", &run_id, "--message", "Greet the world", "--json"],
        &[],
    );
    let approved = approved.expect_code(0).clone();
    assert_eq!(approved["run"], attempt.as_str());
    assert_eq!(approved["status"], "integrated", "{approved:#}");
    assert_eq!(
        std::fs::read_to_string(Path::new(&repo).join("greet.txt")).expect("read"),
        "hello, world\n"
    );

    // `cancel` still takes an attempt id (this one is in review: nothing to cancel).
    let cancel = fx.run(&["cancel", &legacy_id, "--json"], &[]);
    let message = cancel.expect_code(2)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("only a live attempt"), "{message}");
}
