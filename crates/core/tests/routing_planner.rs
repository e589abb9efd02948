//! The model planner's schema, the conversion of its answers, and the fallback.

mod routing_common;

use routing_common::{all_usable, card, scored};
use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::routing::plan::planner::{
    plan_from_model_json, resolve_plan, ModelPlannerOutput, PLANNER_SCHEMA,
};
use switchyard_core::routing::plan::{validate_plan, PlanMode, PlanOptions, PlanOrigin, Severity};
use switchyard_core::routing::{
    Budget, BudgetTier, FeedbackIndex, LearnedIndex, RouteContext, RoutingError,
};

fn catalog() -> Vec<ModelCard> {
    Category::ALL
        .iter()
        .flat_map(|c| {
            [
                scored(card(&format!("cheap/{}", c.id()), Some(0.5)), *c, 60.0),
                scored(card(&format!("mid/{}", c.id()), Some(2.4)), *c, 70.0),
            ]
        })
        .collect()
}

const VALID: &str = r#"{
  "mode": "swarm",
  "steps": [
    {"id": "schema", "task": "Design the database schema", "category": "reasoning", "budget": "medium", "dependsOn": []},
    {"id": "api", "task": "Implement the REST API", "category": "coding", "budget": "medium", "dependsOn": ["schema"]},
    {"id": "ui", "task": "Build the settings page", "category": "coding", "budget": "low", "dependsOn": []},
    {"id": "e2e", "task": "Write end-to-end tests", "category": "coding", "budget": "medium", "dependsOn": ["api", "ui"]}
  ]
}"#;

fn convert(
    answer: &str,
    mode: PlanMode,
) -> Result<switchyard_core::routing::plan::Plan, RoutingError> {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    plan_from_model_json(
        answer,
        "build a settings feature",
        mode,
        &PlanOptions::default(),
        &context,
    )
}

#[test]
fn the_schema_is_json_and_lists_our_categories_and_budgets() {
    let schema: serde_json::Value = serde_json::from_str(PLANNER_SCHEMA).expect("schema is JSON");
    let step = &schema["properties"]["steps"]["items"];
    let categories: Vec<&str> = step["properties"]["category"]["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let ours: Vec<&str> = Category::ALL.iter().map(|c| c.id()).collect();
    assert_eq!(categories, ours);
    let budgets: Vec<&str> = step["properties"]["budget"]["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let tiers: Vec<&str> = BudgetTier::ALL.iter().map(|t| t.id()).collect();
    assert_eq!(budgets, tiers);
    let required: Vec<&str> = step["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let properties: Vec<&str> = step["properties"]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let (mut r, mut p) = (required.clone(), properties.clone());
    r.sort();
    p.sort();
    assert_eq!(
        r, p,
        "strict structured output needs every property required"
    );
    assert_eq!(step["additionalProperties"], false);
}

#[test]
fn a_valid_answer_becomes_a_plan_with_models_and_waves() {
    let result = convert(VALID, PlanMode::Swarm).expect("valid answer");
    assert_eq!(result.origin(), PlanOrigin::Model);
    assert_eq!(result.mode(), PlanMode::Swarm);
    let ids: Vec<&str> = result.steps().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["schema", "api", "ui", "e2e"]);
    let waves: Vec<Option<u32>> = result.steps().iter().map(|s| s.wave).collect();
    assert_eq!(waves, [Some(0), Some(1), Some(0), Some(2)]);
    assert_eq!(result.steps()[2].budget.tier, BudgetTier::Low);
    assert_eq!(result.steps()[2].model.as_deref(), Some("cheap/coding"));
    assert_eq!(result.steps()[0].model.as_deref(), Some("mid/reasoning"));
    assert!(result.edges().iter().all(|e| e.reason == "model planner"));
    assert!(validate_plan(&result)
        .iter()
        .all(|i| i.severity != Severity::Error));
    let fenced = format!("```json\n{VALID}\n```");
    assert_eq!(
        convert(&fenced, PlanMode::Swarm)
            .expect("fenced answer")
            .steps()
            .len(),
        4
    );
}

#[test]
fn a_plan_mode_conversion_chains_steps_and_notes_a_mode_mismatch() {
    let result = convert(VALID, PlanMode::Plan).expect("valid answer");
    assert_eq!(result.steps()[2].depends_on, ["api"]);
    assert_eq!(result.steps()[3].wave, Some(3));
    assert!(
        result
            .warnings()
            .iter()
            .any(|w| w.contains("answered a swarm")),
        "{:?}",
        result.warnings()
    );
}

#[test]
fn an_any_budget_stays_any_whatever_the_model_says() {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    let options = PlanOptions {
        budget: Budget::tier(BudgetTier::Any),
        ..PlanOptions::default()
    };
    let result =
        plan_from_model_json(VALID, "t", PlanMode::Swarm, &options, &context).expect("valid");
    assert!(result
        .steps()
        .iter()
        .all(|s| s.budget.tier == BudgetTier::Any));
}

#[test]
fn invalid_answers_are_rejected_with_the_reason() {
    let cases = [
        ("Sure! Here is your plan: step one...", "not JSON"),
        (r#"{"mode": "swarm"}"#, "does not follow the schema"),
        (
            r#"{"mode": "swarm", "steps": [], "extra": 1}"#,
            "does not follow the schema",
        ),
        (
            r#"{"mode": "waterfall", "steps": [{"id": "a", "task": "t", "category": "coding", "budget": "low", "dependsOn": []}]}"#,
            "waterfall",
        ),
        (r#"{"mode": "swarm", "steps": []}"#, "0 steps"),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": "t", "category": "cooking", "budget": "low", "dependsOn": []}]}"#,
            "cooking",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": "t", "category": "coding", "budget": "free", "dependsOn": []}]}"#,
            "free",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": "t", "category": "coding", "budget": "low", "dependsOn": ["b"]}]}"#,
            "unknown step",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": "t", "category": "coding", "budget": "low", "dependsOn": ["b"]}, {"id": "b", "task": "u", "category": "coding", "budget": "low", "dependsOn": ["a"]}]}"#,
            "cycle",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": "t", "category": "coding", "budget": "low", "dependsOn": []}, {"id": "a", "task": "u", "category": "coding", "budget": "low", "dependsOn": []}]}"#,
            "used twice",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a b", "task": "t", "category": "coding", "budget": "low", "dependsOn": []}]}"#,
            "step id",
        ),
        (
            r#"{"mode": "swarm", "steps": [{"id": "a", "task": " ", "category": "coding", "budget": "low", "dependsOn": []}]}"#,
            "needs a task",
        ),
    ];
    for (answer, expected) in cases {
        let error = convert(answer, PlanMode::Swarm).expect_err(answer);
        assert!(matches!(error, RoutingError::PlannerOutput(_)));
        assert!(error.to_string().contains(expected), "{answer}: {error}");
    }
}

#[test]
fn resolve_plan_falls_back_to_the_deterministic_planner_and_says_why() {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    let options = PlanOptions::default();
    let task = "1. Design the schema\n2. Build the API";
    let resolve = |output| resolve_plan(output, task, PlanMode::Swarm, &options, &context);

    let model = resolve(ModelPlannerOutput::Answer(VALID));
    assert_eq!(model.origin(), PlanOrigin::Model);
    assert!(model.warnings().is_empty());

    let garbage = resolve(ModelPlannerOutput::Answer("{ not json"));
    assert_eq!(garbage.origin(), PlanOrigin::Deterministic);
    assert_eq!(garbage.steps().len(), 2);
    assert!(
        garbage.warnings()[0].contains("not JSON")
            && garbage.warnings()[0].contains("deterministic planner")
    );

    let failed = resolve(ModelPlannerOutput::Failed("timeout after 30 s"));
    assert!(failed.warnings()[0].contains("timeout after 30 s"));
    assert_eq!(failed.origin(), PlanOrigin::Deterministic);

    let skipped = resolve(ModelPlannerOutput::NotAsked);
    assert_eq!(skipped.origin(), PlanOrigin::Deterministic);
    assert!(skipped.warnings().is_empty());
}
