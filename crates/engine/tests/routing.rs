//! Routing use cases against the bundled catalog and a real SQLite file in a temp home.
//! Requests say `any_provider` so no key or keychain is needed.

use std::collections::HashSet;

use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::routing::plan::{Plan, PlanIssueCode, PlanMode, PlanStep};
use switchyard_core::routing::{BudgetTier, PlanTaskRequest, RouteTaskRequest};
use switchyard_engine::{Engine, EngineConfig};

async fn engine(home: &std::path::Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

fn request(task: &str) -> RouteTaskRequest {
    RouteTaskRequest {
        launcher: None,
        any_provider: true,
        ..RouteTaskRequest::new(task)
    }
}

fn plan_request(task: &str, mode: PlanMode) -> PlanTaskRequest {
    PlanTaskRequest {
        budget: BudgetTier::Medium,
        any_provider: true,
        ..PlanTaskRequest::new(task, mode)
    }
}

#[tokio::test]
async fn a_pick_fits_the_budget_and_the_needs_and_is_recorded() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let mut asked = request("describe what is wrong in this screenshot of our dashboard");
    asked.budget = BudgetTier::Low;
    asked.max_price = Some(0.8);
    asked.needs = vec!["vision".into(), "tools".into()];
    let answer = engine.pick_model(asked).await.expect("pick");
    let price = answer.pick.pricing.prompt_per_m.expect("a known price");
    assert!(price <= 0.8, "picked at ${price}/M");
    let card = engine.model(&answer.pick.id).await.expect("card");
    assert!(card.input_modalities.iter().any(|m| m == "image"));
    assert!(card.supported_parameters.iter().any(|p| p == "tools"));
    assert!(card.categories.contains_key(&answer.pick.category));
    for alternative in &answer.pick.alternatives {
        assert!(alternative.pricing.prompt_per_m.is_some_and(|p| p <= 0.8));
    }

    let recent = engine.recent_picks(10).await.expect("recent");
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].id, answer.pick_id);
    assert_eq!(recent[0].model_id, answer.pick.id);
    assert_eq!(recent[0].model_name, answer.pick.name);
    assert_eq!(recent[0].category, answer.pick.category);
    assert_eq!(recent[0].rating, None);
}

#[tokio::test]
async fn bad_ratings_lower_a_pick_until_it_moves() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let task = "implement a rust function that parses a config file";
    let first = engine.pick_model(request(task)).await.expect("pick").pick;
    assert!(first.reason.feedback_count == 0 && first.evidence.successes == 0);

    let mut ratings = 0;
    let moved = loop {
        engine
            .rate_model(&first.id, first.category, 1)
            .await
            .expect("rate");
        ratings += 1;
        let now = engine.pick_model(request(task)).await.expect("pick").pick;
        if now.id != first.id {
            break now;
        }
        // Still the pick: the ratings show and lowered its estimate.
        assert_eq!(now.reason.feedback_count, ratings);
        assert!(now.reason.feedback_adjustment < 0.0);
        assert!(now.reason.estimated_success < first.reason.estimated_success);
        assert!(
            ratings < 12,
            "still {} after {ratings} bad ratings",
            first.id
        );
    };
    // The new pick clears the quality floor and is no dearer per success than the old one
    // was before the ratings, or it is more likely to succeed.
    assert!(moved.reason.feedback_count == 0);
    let cost = |r: &switchyard_core::routing::Reason| r.cost_per_success.unwrap_or(f64::INFINITY);
    assert!(
        cost(&moved.reason) >= cost(&first.reason)
            || moved.reason.estimated_success >= first.reason.estimated_success * 0.9,
        "{} replaced {}",
        moved.id,
        first.id
    );
    if let Some(demoted) = moved.alternatives.iter().find(|a| a.id == first.id) {
        assert_eq!(demoted.reason.feedback_count, ratings);
    }
}

#[tokio::test]
async fn recommendations_spread_over_providers() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let recommendation = engine
        .recommend_models(request("write a python web scraper"), 5)
        .await
        .expect("recommend");
    assert_eq!(recommendation.models.len(), 5);
    let providers: HashSet<&str> = recommendation
        .models
        .iter()
        .map(|m| m.provider.as_str())
        .collect();
    assert_eq!(providers.len(), 5, "one per provider first: {providers:?}");

    let error = engine
        .recommend_models(request("write a python web scraper"), 11)
        .await
        .expect_err("11 is too many");
    assert_eq!(error.code(), ErrorCode::InvalidInput);
}

fn steps(plan: &Plan) -> &[PlanStep] {
    plan.steps()
}

#[tokio::test]
async fn plans_are_sequential_and_swarms_run_independent_steps_together() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let task = "1. Design the database schema\n2. Implement the users API\n\
                3. Build the settings page component\n\
                4. Write tests for the API and the component";

    let plan = engine
        .plan_task(plan_request(task, PlanMode::Plan))
        .await
        .expect("plan");
    assert_eq!(plan.mode(), PlanMode::Plan);
    let waves: Vec<Option<u32>> = steps(&plan).iter().map(|s| s.wave).collect();
    assert_eq!(waves, vec![Some(0), Some(1), Some(2), Some(3)]);
    assert!(steps(&plan).iter().all(|s| s.model.is_some()));

    let swarm = engine
        .plan_task(plan_request(task, PlanMode::Swarm))
        .await
        .expect("swarm");
    assert_eq!(swarm.mode(), PlanMode::Swarm);
    assert_eq!(steps(&swarm).len(), 4);
    let api = &steps(&swarm)[1];
    let page = &steps(&swarm)[2];
    assert!(
        !api.depends_on.contains(&page.id) && !page.depends_on.contains(&api.id),
        "the API and the page are independent"
    );
    assert!(
        steps(&swarm).iter().filter(|s| s.wave == Some(0)).count() > 1,
        "independent steps share the first wave"
    );
    let tests = &steps(&swarm)[3];
    assert!(tests.depends_on.contains(&api.id) && tests.depends_on.contains(&page.id));
    assert!(tests.wave > api.wave && tests.wave > page.wave);

    let empty = engine
        .plan_task(plan_request("  ", PlanMode::Plan))
        .await
        .expect_err("empty task");
    assert_eq!(empty.code(), ErrorCode::InvalidInput);
}

/// The desktop once took the planner fields in a command-only wrapper and silently ignored a
/// planner model without the model planner, while the CLI refused the same flags: now both
/// build one `PlanTaskRequest` and the engine checks it once.
#[tokio::test]
async fn a_planner_model_without_the_model_planner_is_refused_for_desktop_and_cli_alike() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let task = "Design the schema, then build the API";
    // What the Route page sends over IPC…
    let desktop: PlanTaskRequest = serde_json::from_value(serde_json::json!({
        "task": task,
        "mode": "plan",
        "budget": "medium",
        "maxPrice": null,
        "anyProvider": true,
        "plannerModel": "ollama:qwen3",
    }))
    .expect("the desktop's plan request");
    // …and what `switchyard plan TASK --planner-model ollama:qwen3 --any-provider` builds.
    let cli = PlanTaskRequest {
        any_provider: true,
        planner_model: Some("ollama:qwen3".into()),
        ..PlanTaskRequest::new(task, PlanMode::Plan)
    };
    assert_eq!(desktop, cli);
    let mut messages = Vec::new();
    for request in [desktop, cli] {
        let error = engine.plan_task(request).await.expect_err("refused");
        assert_eq!(error.code(), ErrorCode::InvalidInput);
        messages.push(error.to_string());
    }
    assert_eq!(messages[0], messages[1]);
    assert!(
        messages[0].contains("the model planner was not asked for"),
        "{}",
        messages[0]
    );
    // A blank model is no model: the deterministic planner plans.
    let blank = PlanTaskRequest {
        any_provider: true,
        planner_model: Some("  ".into()),
        ..PlanTaskRequest::new(task, PlanMode::Plan)
    };
    let plan = engine.plan_task(blank).await.expect("plan");
    assert_eq!(plan.steps().len(), 2);
}

#[tokio::test]
async fn an_edited_plan_is_recomputed_and_its_problems_listed() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let task = "1. Design the database schema\n2. Implement the users API\n3. Write the docs";
    let mut swarm = engine
        .plan_task(plan_request(task, PlanMode::Swarm))
        .await
        .expect("swarm");
    let clean = engine
        .revalidate_plan(swarm.clone())
        .await
        .expect("revalidate");
    assert!(clean.issues.is_empty(), "{:?}", clean.issues);

    let ids: Vec<String> = swarm.steps().iter().map(|s| s.id.clone()).collect();
    let (design, api) = (ids[0].clone(), ids[1].clone());
    assert!(
        swarm.steps()[1].depends_on.contains(&design),
        "the API waits for the design"
    );
    {
        let steps = swarm.steps_mut();
        steps[0].depends_on.push(api.clone());
        steps[1].model = Some("nobody/no-such-model".into());
    }
    let check = engine.revalidate_plan(swarm).await.expect("revalidate");
    let cycle = check
        .issues
        .iter()
        .find(|i| i.code == PlanIssueCode::Cycle)
        .unwrap_or_else(|| panic!("the cycle is reported: {:?}", check.issues));
    assert!(cycle.edges.iter().any(|e| e.from == api && e.to == design));
    assert!(
        check.plan.steps()[0].wave.is_none(),
        "a step in a cycle has no wave"
    );
    assert!(
        check
            .issues
            .iter()
            .any(|i| i.message.contains("nobody/no-such-model")),
        "the unknown model is reported: {:?}",
        check.issues
    );
}

#[tokio::test]
async fn a_pick_rating_persists_across_restarts_and_counts_as_feedback() {
    let home = tempfile::tempdir().expect("tempdir");
    let (pick_id, model, category) = {
        let engine = engine(home.path()).await;
        let answer = engine
            .pick_model(request("prove that the square root of two is irrational"))
            .await
            .expect("pick");
        let rated = engine.rate_pick(answer.pick_id, 2).await.expect("rate");
        assert_eq!(rated.rating, Some(2));
        let rerated = engine.rate_pick(answer.pick_id, 4).await.expect("rate");
        assert_eq!(rerated.rating, Some(4));
        engine.close().await;
        (answer.pick_id, answer.pick.id, answer.pick.category)
    };
    let engine = engine(home.path()).await;
    let recent = engine.recent_picks(5).await.expect("recent");
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].id, pick_id);
    assert_eq!(recent[0].rating, Some(4));
    let summary = engine.rate_model(&model, category, 5).await.expect("rate");
    assert_eq!(summary.count, 2, "the pick's rating and the manual one");
    assert_eq!(summary.mean, 4.5);
}

#[tokio::test]
async fn bad_ratings_and_unknown_ids_are_refused() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let answer = engine
        .pick_model(request("write a haiku about trains"))
        .await
        .expect("pick");
    for rating in [0, 6] {
        let error = engine
            .rate_pick(answer.pick_id, rating)
            .await
            .expect_err("out of range");
        assert_eq!(error.code(), ErrorCode::InvalidInput);
    }
    let error = engine
        .rate_pick(answer.pick_id + 1, 3)
        .await
        .expect_err("no pick");
    assert_eq!(error.code(), ErrorCode::NotFound);
    let error = engine
        .rate_model("nobody/no-such-model", Category::Coding, 3)
        .await
        .expect_err("no model");
    assert_eq!(error.code(), ErrorCode::NotFound);
    let error = engine.classify_task(" ").await.expect_err("empty");
    assert_eq!(error.code(), ErrorCode::InvalidInput);
    assert_eq!(
        engine.recent_picks(10).await.expect("recent")[0].rating,
        None
    );
}

#[tokio::test]
async fn nothing_fits_is_not_found_with_the_filter_counts() {
    let home = tempfile::tempdir().expect("tempdir");
    let engine = engine(home.path()).await;
    let mut asked = request("write a sorting function");
    asked.max_price = Some(0.0);
    asked.budget = BudgetTier::High;
    let error = engine.pick_model(asked).await.expect_err("nothing fits");
    assert_eq!(error.code(), ErrorCode::NotFound);
    assert!(error.to_string().contains("budget"), "{error}");
    assert!(engine.recent_picks(10).await.expect("recent").is_empty());
}
