//! `switchyard classify|pick|recommend|plan|rate` through the real binary, on a temp home and
//! the bundled catalog. No key is stored: tests either say `--any-provider` or give the child
//! a dummy `OPENROUTER_API_KEY`, which makes every OpenRouter model usable.
// These tests drive the real `switchyard` binary as a child process:
// they build a `Command` outside crates/runner on purpose.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn run_with(home: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    command
        .env("SWITCHYARD_HOME", home)
        .env_remove("OPENROUTER_API_KEY")
        .args(args)
        .arg("--json");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run switchyard");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} did not print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

fn run(home: &Path, args: &[&str]) -> (i32, Value) {
    run_with(home, args, &[])
}

fn text(value: &Value) -> &str {
    value.as_str().expect("a string")
}

#[test]
fn classify_reports_category_confidence_signals_and_words() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out) = run(
        home.path(),
        &["classify", "fix the failing rust test in the parser"],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(text(&out["category"]), "coding");
    assert!(out["confidence"].as_f64().expect("confidence") > 0.0);
    assert!(out["signals"]["needs"].is_object());
    let words: Vec<&str> = out["matched"]
        .as_array()
        .expect("matched")
        .iter()
        .map(|m| text(&m["word"]))
        .collect();
    assert!(words.contains(&"rust"), "{words:?}");

    let (code, out) = run(home.path(), &["classify", "写一首关于秋天的诗"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(text(&out["category"]), "creative");
}

#[test]
fn pick_prints_the_documented_shape_within_budget_and_needs() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out) = run(
        home.path(),
        &[
            "pick",
            "read the chart in this image and call the lookup tool",
            "--budget",
            "low",
            "--max-price",
            "0.5",
            "--need",
            "vision,tools",
            "--any-provider",
        ],
    );
    assert_eq!(code, 0, "{out}");
    for field in [
        "id",
        "name",
        "provider",
        "score",
        "category",
        "pricing",
        "reason",
        "alternatives",
    ] {
        assert!(!out[field].is_null(), "missing {field}: {out}");
    }
    let price = out["pricing"]["promptPerM"].as_f64().expect("price");
    assert!(price <= 0.5, "${price}/M");
    assert!(out["pickId"].as_u64().is_some());
    assert!(text(&out["reason"]["text"]).contains("low budget"));

    let (code, model) = run(home.path(), &["model", text(&out["id"])]);
    assert_eq!(code, 0);
    let tags: Vec<&str> = model["tags"]
        .as_array()
        .expect("tags")
        .iter()
        .map(text)
        .collect();
    assert!(
        tags.contains(&"vision") && tags.contains(&"tools"),
        "{tags:?}"
    );
}

#[test]
fn without_keys_nothing_is_usable_and_openrouter_makes_models_usable() {
    let home = tempfile::tempdir().expect("tempdir");
    let task = "write a python script that renames files";
    let (code, out) = run(home.path(), &["pick", task]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(text(&out["error"]["code"]), "notFound");
    assert!(
        text(&out["error"]["message"]).contains("usable")
            || text(&out["error"]["message"]).contains("key"),
        "{out}"
    );

    let (code, out) = run_with(
        home.path(),
        &["pick", task],
        &[("OPENROUTER_API_KEY", "sk-or-dummy-for-tests")],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(text(&out["category"]), "coding");
}

#[test]
fn recommend_returns_count_models_across_providers() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out) = run(
        home.path(),
        &[
            "recommend",
            "summarize this research paper",
            "--count",
            "4",
            "--any-provider",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let models = out["models"].as_array().expect("models");
    assert_eq!(models.len(), 4);
    let mut providers: Vec<&str> = models.iter().map(|m| text(&m["provider"])).collect();
    providers.sort_unstable();
    providers.dedup();
    assert_eq!(providers.len(), 4, "one per provider first");

    let (code, out) = run(
        home.path(),
        &["recommend", "anything", "--count", "0", "--any-provider"],
    );
    assert_eq!(code, 1);
    assert_eq!(text(&out["error"]["code"]), "invalidInput");
}

#[test]
fn plan_and_swarm_print_steps_or_nodes_with_waves() {
    let home = tempfile::tempdir().expect("tempdir");
    let task = "1. Design the database schema\n2. Implement the users API\n\
                3. Build the settings page component\n4. Write tests for the API and the component";
    let (code, plan) = run(
        home.path(),
        &["plan", task, "--mode", "plan", "--any-provider"],
    );
    assert_eq!(code, 0, "{plan}");
    assert_eq!(text(&plan["mode"]), "plan");
    let steps = plan["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 4);
    for (index, step) in steps.iter().enumerate() {
        assert_eq!(step["wave"].as_u64(), Some(index as u64));
        for field in ["id", "task", "category", "budget", "model", "dependsOn"] {
            assert!(!step[field].is_null(), "step lacks {field}: {step}");
        }
    }
    assert_eq!(plan["edges"].as_array().expect("edges").len(), 3);
    assert!(plan["warnings"].is_array());

    let (code, swarm) = run(
        home.path(),
        &["plan", task, "--mode", "swarm", "--any-provider"],
    );
    assert_eq!(code, 0, "{swarm}");
    assert_eq!(text(&swarm["mode"]), "swarm");
    let nodes = swarm["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 4);
    let first_wave = nodes
        .iter()
        .filter(|n| n["wave"].as_u64() == Some(0))
        .count();
    assert!(first_wave > 1, "independent nodes share wave 0: {swarm}");

    let (code, out) = run(home.path(), &["plan", task, "--mode", "ladder"]);
    assert_eq!(code, 1);
    assert_eq!(text(&out["error"]["code"]), "invalidInput");
}

#[test]
fn rate_stores_ratings_that_show_in_later_picks() {
    let home = tempfile::tempdir().expect("tempdir");
    let task = "implement a binary search tree in go";
    let (code, first) = run(home.path(), &["pick", task, "--any-provider"]);
    assert_eq!(code, 0, "{first}");
    let id = text(&first["id"]).to_owned();
    let category = text(&first["category"]).to_owned();
    for expected in 1..=2 {
        let (code, summary) = run(home.path(), &["rate", &id, &category, "1"]);
        assert_eq!(code, 0, "{summary}");
        assert_eq!(summary["count"].as_u64(), Some(expected));
        assert_eq!(summary["mean"].as_f64(), Some(1.0));
    }
    let (code, again) = run(home.path(), &["pick", task, "--any-provider"]);
    assert_eq!(code, 0);
    // The pick is the cheapest model per verified success within the quality floor, so two
    // bad ratings either lower it (and show) or move the pick away from it.
    let rated = std::iter::once(&again)
        .chain(again["alternatives"].as_array().expect("alternatives"))
        .find(|m| text(&m["id"]) == id);
    match rated {
        Some(rated) => {
            assert_eq!(rated["reason"]["feedbackCount"].as_u64(), Some(2));
            assert!(rated["reason"]["feedbackAdjustment"].as_f64().expect("adj") < 0.0);
            assert!(
                rated["reason"]["estimatedSuccess"].as_f64()
                    < first["reason"]["estimatedSuccess"].as_f64()
            );
        }
        None => assert_ne!(text(&again["id"]), id, "the ratings moved the pick"),
    }

    for bad in [
        vec!["rate", id.as_str(), category.as_str(), "6"],
        vec!["rate", id.as_str(), "cooking", "3"],
    ] {
        let (code, out) = run(home.path(), &bad);
        assert_eq!(code, 1);
        assert_eq!(text(&out["error"]["code"]), "invalidInput", "{bad:?}");
    }
    let (code, out) = run(
        home.path(),
        &["rate", "nobody/no-such-model", "coding", "3"],
    );
    assert_eq!(code, 1);
    assert_eq!(text(&out["error"]["code"]), "notFound");
}

#[test]
fn classify_eval_reports_accuracy_per_category_language_and_confusion() {
    let home = tempfile::tempdir().expect("tempdir");
    let tsv = home.path().join("tasks.tsv");
    std::fs::write(
        &tsv,
        "task\tcategory\tlang\n\
         Write a haiku about autumn leaves\tcreative\ten\n\
         Fix the null pointer exception in my Rust parser\tcoding\ten\n\
         写一首关于秋天的诗\tcreative\tzh\n\
         What is 15% of 80?\tmath\t\n",
    )
    .expect("write tsv");
    let path = tsv.to_str().expect("utf-8 path");
    let (code, out) = run(home.path(), &["classify", "--eval", path]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["total"], 4);
    let accuracy = out["accuracy"].as_f64().expect("accuracy");
    assert!((0.0..=1.0).contains(&accuracy));
    let categories = out["categories"].as_array().expect("per category");
    assert_eq!(categories.len(), 8);
    assert_eq!(text(&categories[3]["name"]), "creative");
    assert_eq!(categories[3]["total"], 2);
    let languages: Vec<&str> = out["languages"]
        .as_array()
        .expect("per language")
        .iter()
        .map(|l| text(&l["name"]))
        .collect();
    assert_eq!(languages, ["en", "zh"], "an empty lang is detected");
    let rows = out["confusion"]["rows"].as_array().expect("confusion");
    assert_eq!(rows.len(), 8);
    let counted: u64 = rows
        .iter()
        .flat_map(|r| r.as_array().expect("row"))
        .map(|c| c.as_u64().expect("count"))
        .sum();
    assert_eq!(counted, 4);
    assert!(out["model"]["sha256"].is_string());

    std::fs::write(&tsv, "task\tcategory\nhello\tcooking\n").expect("write tsv");
    let (code, out) = run(home.path(), &["classify", "--eval", path]);
    assert_ne!(code, 0);
    assert_eq!(text(&out["error"]["code"]), "invalidInput");
    assert!(text(&out["error"]["message"]).contains("line 2"), "{out}");
}

#[test]
fn a_coding_task_is_answered_with_the_worker_that_would_run_each_model_here() {
    let home = tempfile::tempdir().expect("tempdir");
    // Claude Code installed and logged in on its own account; no other agent CLI anywhere.
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.1.197 (Claude Code)'\n").expect("claude");
    std::fs::set_permissions(&claude, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let user = home.path().join("user");
    std::fs::create_dir_all(user.join(".claude")).expect("home");
    std::fs::write(user.join(".claude/.credentials.json"), "{}").expect("login");
    let login_shell = home.path().join("login-shell");
    std::fs::write(
        &login_shell,
        "#!/bin/sh\nPATH=/nonexistent\nexport PATH\nexec /bin/sh -c \"$2\"\n",
    )
    .expect("shell");
    std::fs::set_permissions(
        &login_shell,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let env = [
        ("PATH", path.as_str()),
        ("HOME", user.to_str().expect("utf-8")),
        ("SHELL", login_shell.to_str().expect("utf-8")),
    ];

    let (code, out) = run_with(
        home.path(),
        &[
            "recommend",
            "fix the failing rust test in the parser",
            "--count",
            "10",
            "--budget",
            "any",
            "--any-provider",
        ],
        &env,
    );
    assert_eq!(code, 0, "{out}");
    let models = out["models"].as_array().expect("models");
    let mut by_claude = 0;
    for model in models {
        let id = text(&model["id"]);
        let worker = text(&model["worker"]["worker"]);
        let expected = match id.strip_prefix("anthropic/") {
            Some(rest) if !rest.contains(':') => format!("claude:{}", rest.replace('.', "-")),
            _ => format!("model:{id}"),
        };
        assert_eq!(worker, expected, "{model}");
        by_claude += usize::from(worker.starts_with("claude:"));
        assert!(!text(&model["worker"]["reason"]).is_empty());
    }
    assert!(by_claude > 0, "no Anthropic model among {out}");

    let (code, out) = run_with(
        home.path(),
        &[
            "pick",
            "fix the failing rust test in the parser",
            "--any-provider",
        ],
        &env,
    );
    assert_eq!(code, 0, "{out}");
    assert!(text(&out["worker"]["worker"]).contains(':'), "{out}");
    for alternative in out["alternatives"].as_array().expect("alternatives") {
        assert!(alternative["worker"].is_object(), "{alternative}");
    }

    // Not a coding task: no worker.
    let (code, out) = run_with(
        home.path(),
        &["pick", "写一首关于秋天的诗", "--any-provider"],
        &env,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out["worker"].is_null(), "{out}");
}

/// A table where the weak model fails every proof question and the strong one answers
/// everything: a predictor that reads the prompt must find them.
fn outcome_table(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("id,subject,prompt,weak_correct,strong_correct\n");
    for i in 0..240 {
        let (prompt, weak) = if i % 4 == 0 {
            (
                format!("\"Prove that the series {i}, with terms a_n, converges.\""),
                "False",
            )
        } else {
            (
                format!("What is the capital of country number {i}?"),
                "True",
            )
        };
        // The subject column gives the answer away; the predictor must never read it.
        let subject = if weak == "False" {
            "proofs"
        } else {
            "geography"
        };
        text.push_str(&format!("{i},{subject},{prompt},{weak},True\n"));
    }
    let path = dir.join("outcomes.csv");
    std::fs::write(&path, text).expect("write the table");
    path
}

#[test]
fn outcomes_eval_trains_on_the_seeded_split_and_scores_the_rest() {
    let home = tempfile::tempdir().expect("temp home");
    let table = outcome_table(home.path());
    let table = table.to_str().expect("utf-8 path");
    let (code, eval) = run(
        home.path(),
        &[
            "outcomes",
            "eval",
            table,
            "--seed",
            "7",
            "--train-fraction",
            "0.75",
        ],
    );
    assert_eq!(code, 0, "{eval}");
    assert_eq!(eval["n_train"], 180);
    assert_eq!(eval["n_test"], 60);
    let number = |name: &str| {
        eval[name]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: {eval}"))
    };
    assert_eq!(number("strong_accuracy"), 1.0);
    assert!((0.6..0.9).contains(&number("weak_accuracy")), "{eval}");
    // A perfect router scores about 0.87 here (the failing quarter first); chance is 0.5.
    assert!(number("apgr") > 0.8, "{eval}");
    assert!(number("cpt50") <= 0.2 && number("cpt80") <= 0.3, "{eval}");
    // One seed, one answer; another seed, another split.
    let (_, again) = run(
        home.path(),
        &[
            "outcomes",
            "eval",
            table,
            "--seed",
            "7",
            "--train-fraction",
            "0.75",
        ],
    );
    assert_eq!(again, eval);
    let (_, other) = run(home.path(), &["outcomes", "eval", table, "--seed", "8"]);
    assert_eq!(other["n_train"], 168);
    assert_ne!(other["weak_accuracy"], eval["weak_accuracy"]);
}

#[test]
fn outcomes_eval_refuses_bad_tables_with_the_reason() {
    let home = tempfile::tempdir().expect("temp home");
    let bad = home.path().join("bad.csv");
    std::fs::write(
        &bad,
        "prompt,weak_correct,strong_correct\nq1,True,True\nq2,maybe,True\n",
    )
    .expect("write");
    let (code, out) = run(
        home.path(),
        &["outcomes", "eval", bad.to_str().expect("utf-8")],
    );
    assert_ne!(code, 0);
    assert_eq!(out["error"]["code"], "invalidInput");
    let message = text(&out["error"]["message"]);
    assert!(
        message.contains("line 3") && message.contains("maybe"),
        "{message}"
    );

    let missing = home.path().join("missing.csv");
    std::fs::write(&missing, "prompt,weak_correct\nq1,True\n").expect("write");
    let (_, out) = run(
        home.path(),
        &["outcomes", "eval", missing.to_str().expect("utf-8")],
    );
    assert!(
        text(&out["error"]["message"]).contains("strong_correct"),
        "{out}"
    );

    let (_, out) = run(
        home.path(),
        &["outcomes", "eval", "/nonexistent/outcomes.csv"],
    );
    assert_eq!(out["error"]["code"], "notFound");
}

#[test]
fn outcomes_on_an_empty_profile_is_an_empty_list() {
    let home = tempfile::tempdir().expect("temp home");
    let (code, out) = run(home.path(), &["outcomes"]);
    assert_eq!(code, 0);
    assert_eq!(out, serde_json::json!([]));
    let (code, out) = run(home.path(), &["outcomes", "--category", "poetry"]);
    assert_ne!(code, 0);
    assert_eq!(out["error"]["code"], "invalidInput");
}

/// Blended USD per million tokens (3 input : 1 output) of a pick's `pricing`.
fn blended(pricing: &Value) -> f64 {
    let input = pricing["promptPerM"].as_f64().expect("input price");
    let output = pricing["completionPerM"].as_f64().expect("output price");
    (3.0 * input + output) / 4.0
}

#[test]
fn pick_ranks_by_cost_per_verified_success_with_its_evidence_and_one_price() {
    let home = tempfile::tempdir().expect("tempdir");
    let task = "write a tagline for a coffee shop";
    let (code, out) = run(home.path(), &["pick", task, "--any-provider"]);
    assert_eq!(code, 0, "{out}");
    // A fresh profile: the evidence is the benchmark prior and nothing recorded.
    let evidence = &out["evidence"];
    assert_eq!(evidence["successes"].as_u64(), Some(0));
    assert_eq!(evidence["failures"].as_u64(), Some(0));
    assert!(evidence["since"].is_null());
    let prior = evidence["prior"].as_f64().expect("prior");
    assert!((prior - out["score"].as_f64().expect("score") / 100.0).abs() < 0.01);
    // The medium tier is $0–5/M blended, the same price `--max-price` and `models` use.
    assert!(blended(&out["pricing"]) <= 5.0, "{}", out["pricing"]);
    // No runner-up that is at least as likely to succeed is cheaper per success.
    let cost = |m: &Value| m["reason"]["costPerSuccess"].as_f64().expect("cost");
    let success = |m: &Value| m["reason"]["estimatedSuccess"].as_f64().expect("estimate");
    for other in out["alternatives"].as_array().expect("alternatives") {
        if success(other) >= success(&out) {
            assert!(
                cost(other) >= cost(&out),
                "{} beats {}",
                other["id"],
                out["id"]
            );
        }
    }
    // The same cap means the same thing to `pick` and `models`.
    let (code, capped) = run(
        home.path(),
        &[
            "pick",
            task,
            "--budget",
            "any",
            "--max-price",
            "2",
            "--any-provider",
        ],
    );
    assert_eq!(code, 0, "{capped}");
    assert!(blended(&capped["pricing"]) <= 2.0, "{}", capped["pricing"]);
    let (code, listed) = run(
        home.path(),
        &["models", "--category", "creative", "--max-price", "2"],
    );
    assert_eq!(code, 0);
    let ids: Vec<&str> = listed
        .as_array()
        .expect("models")
        .iter()
        .map(|m| text(&m["id"]))
        .collect();
    assert!(
        ids.contains(&text(&capped["id"])),
        "{} not under --max-price 2",
        capped["id"]
    );
}

#[test]
fn learning_settings_show_set_and_reset_with_clear_errors() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, fresh) = run(home.path(), &["outcomes", "learning"]);
    assert_eq!(code, 0, "{fresh}");
    assert_eq!(fresh["outcomes"].as_u64(), Some(0));
    assert!(fresh["since"].is_null());
    assert_eq!(fresh["skipBelow"].as_f64(), Some(0.3));
    assert_eq!(fresh["estimates"].as_array().map(Vec::len), Some(0));
    assert_eq!(fresh["savings"]["outcomes"].as_u64(), Some(0));

    let (code, set) = run(
        home.path(),
        &["outcomes", "learning", "--skip-below", "0.5"],
    );
    assert_eq!(code, 0, "{set}");
    assert_eq!(set["skipBelow"].as_f64(), Some(0.5));
    let (_, read) = run(home.path(), &["outcomes", "learning"]);
    assert_eq!(read["skipBelow"].as_f64(), Some(0.5), "stored");

    let (code, bad) = run(
        home.path(),
        &["outcomes", "learning", "--skip-below", "1.5"],
    );
    assert_eq!(code, 1);
    assert_eq!(text(&bad["error"]["code"]), "invalidInput");
    assert!(text(&bad["error"]["message"]).contains("0 to 1"), "{bad}");

    let (code, reset) = run(home.path(), &["outcomes", "reset"]);
    assert_eq!(code, 0, "{reset}");
    assert!(text(&reset["since"]).ends_with('Z'), "{reset}");
    assert_eq!(
        reset["skipBelow"].as_f64(),
        Some(0.5),
        "a reset keeps the threshold"
    );
}

#[test]
fn agents_get_a_starting_model_that_can_be_cleared() {
    let home = tempfile::tempdir().expect("tempdir");
    let (code, none) = run(home.path(), &["outcomes", "agents"]);
    assert_eq!(code, 0, "{none}");
    assert_eq!(none.as_array().map(Vec::len), Some(0));

    let (code, set) = run(
        home.path(),
        &[
            "outcomes",
            "agents",
            "--agent",
            "claude-code",
            "--start-model",
            "openai/gpt-5-mini",
        ],
    );
    assert_eq!(code, 0, "{set}");
    let agent = &set[0];
    assert_eq!(text(&agent["agent"]), "claude-code");
    assert_eq!(text(&agent["startModel"]), "openai/gpt-5-mini");
    assert_eq!(agent["outcomes"].as_u64(), Some(0));

    let (code, bare) = run(
        home.path(),
        &["outcomes", "agents", "--agent", "claude-code"],
    );
    assert_eq!(code, 1);
    assert_eq!(text(&bare["error"]["code"]), "invalidInput");

    let (code, cleared) = run(
        home.path(),
        &["outcomes", "agents", "--agent", "claude-code", "--clear"],
    );
    assert_eq!(code, 0, "{cleared}");
    assert_eq!(
        cleared.as_array().map(Vec::len),
        Some(0),
        "nothing left to list"
    );
}
