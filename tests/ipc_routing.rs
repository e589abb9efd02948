//! Routing commands through Tauri's mock runtime: the real invoke handler, a real engine on a
//! temp SQLite file and the bundled catalog, JSON in and out exactly as the Route page sends
//! and receives it. Requests say `anyProvider` so no key or keychain is involved.

mod support;

use serde_json::{json, Value};
use support::Harness;

fn route(task: &str) -> Value {
    json!({
        "task": task,
        "budget": "medium",
        "maxPrice": null,
        "needs": [],
        "anyProvider": true,
    })
}

#[test]
fn classify_task_explains_the_category() {
    let h = Harness::new();
    let out = h.ok("classify_task", json!({"task": "翻译这段文字成英文"}));
    assert!(out["category"].is_string());
    assert!(out["confidence"].as_f64().is_some());
    assert!(!out["matched"].as_array().expect("matched").is_empty());
    assert!(!out["features"].as_array().expect("features").is_empty());
    assert!(out["model"]["sha256"].is_string());
    let error = h.err("classify_task", json!({"task": "   "}));
    assert_eq!(error["code"], "invalidInput");
}

#[test]
fn classifier_settings_round_trip_and_bad_thresholds_are_refused() {
    let h = Harness::new();
    let defaults = h.ok("classifier_settings", json!({}));
    assert_eq!(defaults["assist"], false);
    let saved = h.ok(
        "set_classifier_settings",
        json!({"settings": {"assist": true, "threshold": 0.4, "model": "ollama:qwen3"}}),
    );
    assert_eq!(saved["assist"], true);
    assert_eq!(saved["model"], "ollama:qwen3");
    assert_eq!(h.ok("classifier_settings", json!({})), saved);
    let error = h.err(
        "set_classifier_settings",
        json!({"settings": {"assist": true, "threshold": 2.0, "model": null}}),
    );
    assert_eq!(error["code"], "invalidInput");
}

#[test]
fn a_pick_is_recorded_rated_and_listed() {
    let h = Harness::new();
    let mut request = route("refactor this typescript module and add unit tests");
    request["budget"] = json!("low");
    request["maxPrice"] = json!(0.9);
    request["needs"] = json!(["tools"]);
    let answer = h.ok("pick_model", json!({ "request": request }));
    let pick_id = answer["pickId"].as_u64().expect("pickId");
    let pick = &answer["pick"];
    assert!(pick["pricing"]["promptPerM"].as_f64().expect("price") <= 0.9);
    assert_eq!(answer["classification"]["category"], pick["category"]);
    assert!(pick["reason"]["text"]
        .as_str()
        .expect("reason")
        .contains("low budget"));

    let past = h.ok("recent_picks", json!({"limit": 10}));
    let past = past.as_array().expect("array");
    assert_eq!(past.len(), 1);
    assert_eq!(past[0]["id"].as_u64(), Some(pick_id));
    assert_eq!(past[0]["modelId"], pick["id"]);
    assert_eq!(past[0]["modelName"], pick["name"]);
    assert!(past[0]["rating"].is_null());

    let rated = h.ok("rate_pick", json!({"pickId": pick_id, "rating": 2}));
    assert_eq!(rated["rating"], 2);
    let past = h.ok("recent_picks", json!({"limit": 10}));
    assert_eq!(past[0]["rating"], 2);

    let error = h.err("rate_pick", json!({"pickId": pick_id, "rating": 7}));
    assert_eq!(error["code"], "invalidInput");
    let error = h.err("rate_pick", json!({"pickId": pick_id + 100, "rating": 3}));
    assert_eq!(error["code"], "notFound");
}

#[test]
fn recommend_models_takes_a_count() {
    let h = Harness::new();
    let out = h.ok(
        "recommend_models",
        json!({"request": route("solve this integral step by step"), "count": 3}),
    );
    let models = out["models"].as_array().expect("models");
    assert_eq!(models.len(), 3);
    let ranks: Vec<u64> = models
        .iter()
        .map(|m| m["reason"]["rank"].as_u64().expect("rank"))
        .collect();
    assert_eq!(ranks, vec![1, 2, 3]);
    let error = h.err(
        "recommend_models",
        json!({"request": route("anything"), "count": 0}),
    );
    assert_eq!(error["code"], "invalidInput");
    let mut bad = route("anything");
    bad["needs"] = json!(["telepathy"]);
    let error = h.err("recommend_models", json!({"request": bad, "count": 3}));
    assert_eq!(error["code"], "invalidInput");
}

/// The command once dropped a planner model named without the model planner; the engine's
/// one plan check refuses it, with the message the CLI prints for the same flags.
#[test]
fn plan_task_refuses_a_planner_model_without_the_model_planner() {
    let h = Harness::new();
    let error = h.err(
        "plan_task",
        json!({"request": {
            "task": "Design the schema, then build the API",
            "mode": "plan",
            "budget": "medium",
            "maxPrice": null,
            "anyProvider": true,
            "plannerModel": "ollama:qwen3",
        }}),
    );
    assert_eq!(error["code"], "invalidInput");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("the model planner was not asked for")),
        "{error}"
    );
}

#[test]
fn a_swarm_round_trips_through_revalidate_plan() {
    let h = Harness::new();
    let task = "1. Design the database schema\n2. Implement the users API\n\
                3. Build the settings page component\n4. Write tests for the API and the component";
    let plan = h.ok(
        "plan_task",
        json!({"request": {
            "task": task,
            "mode": "swarm",
            "budget": "medium",
            "maxPrice": null,
            "anyProvider": true,
        }}),
    );
    assert_eq!(plan["mode"], "swarm");
    let nodes = plan["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 4);

    let check = h.ok("revalidate_plan", json!({"plan": plan.clone()}));
    assert_eq!(check["plan"], plan, "an unedited plan comes back unchanged");
    assert_eq!(check["issues"], json!([]));

    let mut edited = plan.clone();
    let removed = edited["nodes"][3]["id"].clone();
    edited["nodes"].as_array_mut().expect("nodes").remove(3);
    let check = h.ok("revalidate_plan", json!({"plan": edited}));
    let nodes = check["plan"]["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 3);
    let edges = check["plan"]["edges"].as_array().expect("edges");
    assert!(
        edges
            .iter()
            .all(|e| e["from"] != removed && e["to"] != removed),
        "edges of the removed node are gone: {edges:?}"
    );
    assert!(
        check["issues"].as_array().expect("issues").is_empty(),
        "{check}"
    );
}

#[test]
fn rate_model_counts_ratings() {
    let h = Harness::new();
    let pick = h.ok("pick_model", json!({"request": route("write a limerick")}));
    let model = pick["pick"]["id"].clone();
    let category = pick["pick"]["category"].clone();
    let first = h.ok(
        "rate_model",
        json!({"modelId": model, "category": category, "rating": 5}),
    );
    assert_eq!(first["count"], 1);
    let second = h.ok(
        "rate_model",
        json!({"modelId": model, "category": category, "rating": 3}),
    );
    assert_eq!(second["count"], 2);
    assert_eq!(second["mean"], 4.0);
    let error = h.err(
        "rate_model",
        json!({"modelId": "nobody/none", "category": "coding", "rating": 3}),
    );
    assert_eq!(error["code"], "notFound");
}
