//! Catalog commands through Tauri's mock runtime: the real invoke handler, a real engine on a
//! temp SQLite file and the bundled catalog, JSON exactly as the Models page receives it.

mod support;

use serde_json::{json, Value};
use support::Harness;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

/// The Models drawer once read the weights file and a hand-kept copy of the metric registry,
/// and recomputed every explanation in TypeScript. Now `get_model` sends each score taken
/// apart and `catalog_metrics` the registry and weights; this pins that they agree.
#[test]
fn get_model_sends_each_score_taken_apart_and_catalog_metrics_labels_every_term() {
    let h = Harness::new();
    let registry = h.ok("catalog_metrics", json!({}));
    let metrics = registry["metrics"].as_array().expect("metrics");
    let metric = |id: &str| metrics.iter().find(|m| m["id"] == id).cloned();
    let price = metric("openrouter.price").expect("derived price listed");
    assert_eq!(price["higherIsBetter"], false);
    assert_eq!(price["symbol"], "$/M");
    assert!(metric("aa.gpqa").is_some_and(|m| m["unit"] == "fraction" && m["label"].is_string()));
    let min_coverage = registry["minCoverage"].as_f64().expect("minCoverage");

    let top = h.ok(
        "list_models",
        json!({"query": {"category": "coding", "sort": "score", "descending": true, "limit": 1}}),
    );
    let id = top[0]["id"].as_str().expect("a coding model").to_owned();
    let detail = h.ok("get_model", json!({ "id": id }));
    let card = &detail["card"];
    assert_eq!(card["id"], id.as_str());
    let breakdown = detail["breakdown"].as_array().expect("breakdown");
    let categories = card["categories"].as_object().expect("categories");
    assert_eq!(breakdown.len(), categories.len());
    for b in breakdown {
        let category = b["category"].as_str().expect("category");
        let score = &categories[category];
        assert!(close(
            b["score"].as_f64().expect("score"),
            score["score"].as_f64().expect("score")
        ));
        let terms = b["terms"].as_array().expect("terms");
        let points: f64 = terms
            .iter()
            .filter_map(|t| t["contribution"].as_f64())
            .sum();
        assert!(
            close(points, score["score"].as_f64().expect("score")),
            "{category}"
        );
        assert_eq!(b["minCoverage"].as_f64(), Some(min_coverage));
        let weighting = registry["categories"]
            .as_array()
            .expect("categories")
            .iter()
            .find(|c| c["category"] == category)
            .expect("the category's weights");
        let mut weighted: Vec<(String, f64)> = weighting["weights"]
            .as_array()
            .expect("weights")
            .iter()
            .map(|w| {
                (
                    w["metric"].as_str().unwrap_or("").to_owned(),
                    w["weight"].as_f64().unwrap_or(0.0),
                )
            })
            .collect();
        let mut in_terms: Vec<(String, f64)> = terms
            .iter()
            .map(|t| {
                (
                    t["metric"].as_str().unwrap_or("").to_owned(),
                    t["weight"].as_f64().unwrap_or(0.0),
                )
            })
            .collect();
        weighted.sort_by(|a, b| a.0.cmp(&b.0));
        in_terms.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            in_terms, weighted,
            "{category}: every weighted metric, once"
        );
        for term in terms {
            let id = term["metric"].as_str().expect("metric");
            assert!(metric(id).is_some(), "{id} is in the registry");
            assert!(matches!(
                term["status"].as_str(),
                Some("used" | "noData" | "notNormalized")
            ));
        }
    }
    let rules: Vec<&Value> = card["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| &m["rule"])
        .collect();
    assert!(rules.iter().all(|r| r.is_string()), "{rules:?}");
}
