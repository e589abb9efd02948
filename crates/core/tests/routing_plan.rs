//! Splitting, sequential plans, swarm DAGs, and editing a plan.

mod routing_common;

use routing_common::{all_usable, card, scored};
use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::routing::plan::{
    plan, recompute, split_steps, swarm, validate_models, validate_plan, Phase, Plan,
    PlanIssueCode, PlanMode, PlanOptions, Severity, SplitRule,
};
use switchyard_core::routing::{Budget, BudgetTier, FeedbackIndex, LearnedIndex, RouteContext};

fn catalog() -> Vec<ModelCard> {
    let mut models = Vec::new();
    for category in Category::ALL {
        models.push(scored(
            card(&format!("cheap/{}", category.id()), Some(0.5)),
            category,
            60.0,
        ));
        models.push(scored(
            card(&format!("mid/{}", category.id()), Some(2.4)),
            category,
            75.0,
        ));
        models.push(scored(
            card(&format!("top/{}", category.id()), Some(10.0)),
            category,
            90.0,
        ));
    }
    models
}

fn texts(task: &str) -> Vec<String> {
    split_steps(task).into_iter().map(|s| s.text).collect()
}

fn rules(task: &str) -> Vec<SplitRule> {
    split_steps(task).into_iter().map(|s| s.rule).collect()
}

#[test]
fn numbered_lists_split_and_their_heading_is_not_a_step() {
    let task = "Build a todo app:\n1. Design the schema\n2) Build the API\n   with pagination\n(3) Write the tests";
    assert_eq!(
        texts(task),
        [
            "Design the schema",
            "Build the API with pagination",
            "Write the tests"
        ]
    );
    assert_eq!(rules(task), [SplitRule::Numbered; 3]);
    let labels: Vec<Option<u32>> = split_steps(task).into_iter().map(|s| s.label).collect();
    assert_eq!(labels, [Some(1), Some(2), Some(3)]);
    assert_eq!(texts("Step 1: lint\nStep 2: test"), ["lint", "test"]);
    assert_eq!(
        texts("第一步：设计接口\n第二步：实现接口"),
        ["设计接口", "实现接口"]
    );
    assert_eq!(texts("一、写代码\n二、写测试"), ["写代码", "写测试"]);
    assert_eq!(texts("1、写代码\n2、写测试"), ["写代码", "写测试"]);
}

#[test]
fn bullets_split_and_numbers_in_text_are_not_list_items() {
    assert_eq!(
        texts("- write the parser\n* add tests\n• update the docs"),
        ["write the parser", "add tests", "update the docs"]
    );
    assert_eq!(rules("- a thing\n- another thing"), [SplitRule::Bullet; 2]);
    assert_eq!(
        texts("3.5 million users visited in 2024. Estimate the load."),
        ["3.5 million users visited in 2024. Estimate the load"]
    );
}

#[test]
fn sequencing_words_split_free_text() {
    assert_eq!(
        texts("Write the schema, then build the API and then add tests. Finally, deploy it."),
        [
            "Write the schema",
            "build the API",
            "add tests",
            "deploy it"
        ]
    );
    assert_eq!(
        rules("Write the schema, then build the API"),
        [SplitRule::Whole, SplitRule::Sequencing]
    );
    assert_eq!(
        texts("Lint the code. Next, run the tests; after that publish"),
        ["Lint the code", "run the tests", "publish"]
    );
    assert_eq!(
        texts("First, find the root cause. Second, propose a fix."),
        ["find the root cause", "propose a fix"]
    );
    assert_eq!(
        texts("先写接口，然后写测试，接着部署，最后写文档"),
        ["先写接口", "写测试", "部署", "写文档"]
    );
}

#[test]
fn sequencing_words_inside_conditions_or_names_do_not_split() {
    assert_eq!(
        texts("If the tests fail then roll back the release"),
        ["If the tests fail then roll back the release"]
    );
    assert_eq!(
        texts("Migrate the app to Next.js and the next version of React"),
        ["Migrate the app to Next.js and the next version of React"]
    );
    assert_eq!(texts("把最后一个元素删掉"), ["把最后一个元素删掉"]);
    assert_eq!(
        texts("When the build is red, then page the on-call"),
        ["When the build is red, then page the on-call"]
    );
    assert_eq!(
        texts("If it compiles, ship it. Then write the changelog"),
        ["If it compiles, ship it", "write the changelog"]
    );
    assert_eq!(rules("Explain closures"), [SplitRule::Whole]);
}

#[test]
fn semicolons_and_paragraphs_split() {
    assert_eq!(
        texts("write the parser; test it；document it"),
        ["write the parser", "test it", "document it"]
    );
    assert_eq!(
        rules("write the parser; test it"),
        [SplitRule::Whole, SplitRule::Semicolon]
    );
    let task = "Research the market for e-bikes.\n\nWrite a blog post about it.";
    assert_eq!(
        texts(task),
        [
            "Research the market for e-bikes",
            "Write a blog post about it"
        ]
    );
    assert_eq!(rules(task), [SplitRule::Paragraph; 2]);
}

#[test]
fn a_sequential_plan_chains_steps_with_categories_budgets_and_models() {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    let options = PlanOptions::default();
    let task = "1. Research the best charting libraries\n2. Implement the security-critical login flow\n3. Fix a simple typo in the README\n4. Write a poem for the launch";
    let result = plan(task, &options, &context);
    assert_eq!(result.mode(), PlanMode::Plan);
    let steps = result.steps();
    let categories: Vec<Category> = steps.iter().map(|s| s.category).collect();
    assert_eq!(
        categories,
        [
            Category::Research,
            Category::Coding,
            Category::FastCheap,
            Category::Creative
        ]
    );
    let tiers: Vec<BudgetTier> = steps.iter().map(|s| s.budget.tier).collect();
    assert_eq!(
        tiers,
        [
            BudgetTier::Medium,
            BudgetTier::High,
            BudgetTier::Low,
            BudgetTier::Medium
        ]
    );
    let chosen: Vec<Option<&str>> = steps.iter().map(|s| s.model.as_deref()).collect();
    assert_eq!(
        chosen,
        [
            Some("mid/research"),
            Some("top/coding"),
            Some("cheap/fastCheap"),
            Some("mid/creative")
        ]
    );
    for (index, step) in steps.iter().enumerate() {
        assert_eq!(step.wave, Some(index as u32));
        let expected: Vec<String> = index
            .checked_sub(1)
            .map(|p| steps[p].id.clone())
            .into_iter()
            .collect();
        assert_eq!(step.depends_on, expected);
    }
    assert_eq!(result.edges().len(), 3);
    assert!(
        validate_plan(&result)
            .iter()
            .all(|i| i.severity != Severity::Error),
        "{:?}",
        validate_plan(&result)
    );
    assert!(validate_models(&result, &models).is_empty());
    let json = serde_json::to_value(&result).expect("serializes");
    assert_eq!(json["mode"], "plan");
    assert!(json["steps"].is_array() && json.get("nodes").is_none());
    assert_eq!(json["steps"][1]["dependsOn"][0], "s1");
    let back: Plan = serde_json::from_value(json).expect("round-trips");
    assert_eq!(back, result);
}

#[test]
fn nudges_never_turn_any_into_low_and_step_needs_are_kept() {
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
    let result = plan(
        "Rename a simple variable; then review the security architecture",
        &options,
        &context,
    );
    let tiers: Vec<BudgetTier> = result.steps().iter().map(|s| s.budget.tier).collect();
    assert_eq!(tiers, [BudgetTier::Any, BudgetTier::Any]);
    let low = PlanOptions {
        budget: Budget::tier(BudgetTier::Low),
        ..PlanOptions::default()
    };
    let result = plan(
        "Rename a simple variable; then review the security architecture",
        &low,
        &context,
    );
    let tiers: Vec<BudgetTier> = result.steps().iter().map(|s| s.budget.tier).collect();
    assert_eq!(tiers, [BudgetTier::Low, BudgetTier::Medium]);
    assert!(result.steps()[1]
        .notes
        .iter()
        .any(|n| n.contains("budget up from low to medium")));
}

#[test]
fn steps_without_signal_inherit_the_task_category() {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    let result = plan(
        "Refactor the Rust parser module; then do it again for good measure",
        &PlanOptions::default(),
        &context,
    );
    assert_eq!(result.steps()[1].category, Category::Coding);
    assert!(result.steps()[1]
        .notes
        .iter()
        .any(|n| n.contains("inherited")));
}

fn dag(task: &str) -> Plan {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    swarm(task, &PlanOptions::default(), &context)
}

fn deps(plan: &Plan, id: &str) -> Vec<String> {
    let mut list = plan
        .steps()
        .iter()
        .find(|s| s.id == id)
        .expect("step exists")
        .depends_on
        .clone();
    list.sort();
    list
}

fn waves(plan: &Plan) -> Vec<Option<u32>> {
    plan.steps().iter().map(|s| s.wave).collect()
}

#[test]
fn swarm_runs_independent_branches_in_parallel() {
    let result = dag(
        "1. Design the database schema\n2. Build the REST API\n3. Build the React components for the dashboard\n4. Write tests for the API\n5. Deploy to production",
    );
    assert_eq!(result.mode(), PlanMode::Swarm);
    let phases: Vec<Option<Phase>> = result.steps().iter().map(|s| s.phase).collect();
    assert_eq!(
        phases,
        [
            Some(Phase::Design),
            Some(Phase::Implement),
            Some(Phase::Implement),
            Some(Phase::Test),
            Some(Phase::Deploy)
        ]
    );
    assert_eq!(deps(&result, "n1"), Vec::<String>::new());
    assert_eq!(deps(&result, "n2"), ["n1"]);
    assert_eq!(
        deps(&result, "n3"),
        Vec::<String>::new(),
        "the UI does not wait for the schema"
    );
    assert_eq!(
        deps(&result, "n4"),
        ["n2"],
        "n1 → n4 is implied by n1 → n2 → n4"
    );
    assert_eq!(deps(&result, "n5"), ["n3", "n4"]);
    assert_eq!(
        waves(&result),
        [Some(0), Some(1), Some(0), Some(2), Some(3)]
    );
    assert_eq!(result.waves()[0].len(), 2, "two steps start at once");
    let reasons: Vec<&str> = result.edges().iter().map(|e| e.reason.as_str()).collect();
    assert!(
        reasons.contains(&"schema before api") && reasons.contains(&"shared api"),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.starts_with("phase ")),
        "{reasons:?}"
    );
    let json = serde_json::to_value(&result).expect("serializes");
    assert_eq!(json["mode"], "swarm");
    assert!(json["nodes"].is_array() && json.get("steps").is_none());
    assert!(validate_plan(&result)
        .iter()
        .all(|i| i.severity != Severity::Error));
}

#[test]
fn swarm_dependencies_follow_phases_not_list_order() {
    let result = dag("- Write the README\n- Deploy the service\n- Implement the service\n- Design the architecture");
    assert_eq!(deps(&result, "n4"), Vec::<String>::new());
    assert_eq!(deps(&result, "n3"), ["n4"]);
    assert_eq!(deps(&result, "n2"), ["n3"]);
    assert_eq!(
        deps(&result, "n1"),
        ["n3"],
        "docs and deploy share the last phase"
    );
    assert_eq!(waves(&result), [Some(2), Some(2), Some(1), Some(0)]);
}

#[test]
fn plural_artifacts_link_steps() {
    let result = dag("- Define the schemas for users and orders\n- Implement the APIs on top of them\n- Build the settings page\n- Add integration tests for the endpoints\n- Update the configs");
    let artifacts: Vec<Vec<String>> = result.steps().iter().map(|s| s.artifacts.clone()).collect();
    assert_eq!(artifacts[0], ["schema"]);
    assert_eq!(artifacts[1], ["api"]);
    assert!(artifacts[3].contains(&"tests".to_owned()) && artifacts[3].contains(&"api".to_owned()));
    assert_eq!(deps(&result, "n2"), ["n1"], "schemas before APIs");
    assert_eq!(deps(&result, "n4"), ["n2"], "endpoints are the API");
    assert!(deps(&result, "n3").is_empty() || !deps(&result, "n3").contains(&"n2".to_owned()));
}

#[test]
fn explicit_cycles_are_reported_with_their_edges_not_serialized() {
    let result =
        dag("1. Build the API after step 2\n2. Build the schema after step 1\n3. Write the docs");
    let cycle_warnings: Vec<&String> = result
        .warnings()
        .iter()
        .filter(|w| w.starts_with("cycle: "))
        .collect();
    assert_eq!(cycle_warnings.len(), 1, "{:?}", result.warnings());
    assert!(
        cycle_warnings[0].contains("n1 → n2") && cycle_warnings[0].contains("n2 → n1"),
        "{}",
        cycle_warnings[0]
    );
    assert_eq!(waves(&result)[..2], [None, None]);
    let issues = validate_plan(&result);
    let cycle = issues
        .iter()
        .find(|i| i.code == PlanIssueCode::Cycle)
        .expect("cycle issue");
    assert_eq!(cycle.severity, Severity::Error);
    let mut pairs: Vec<(String, String)> = cycle
        .edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            ("n1".to_owned(), "n2".to_owned()),
            ("n2".to_owned(), "n1".to_owned())
        ]
    );
    let reasons: Vec<&str> = result.edges().iter().map(|e| e.reason.as_str()).collect();
    assert!(reasons.contains(&"after step 2") && reasons.contains(&"after step 1"));
}

#[test]
fn explicit_references_replace_inferred_dependencies() {
    let result = dag("1. Write the docs\n2. Implement the parser\n3. Deploy after step 1");
    assert_eq!(deps(&result, "n3"), ["n1"]);
    let missing = dag("1. Implement the parser\n2. Deploy after step 7");
    assert!(
        missing.warnings().iter().any(|w| w.contains("step 7")),
        "{:?}",
        missing.warnings()
    );
}

#[test]
fn edits_are_validated_and_recomputed() {
    let mut result = dag("1. Design the schema\n2. Build the API\n3. Build the UI components");
    assert!(validate_plan(&result)
        .iter()
        .all(|i| i.severity != Severity::Error));

    result.steps_mut()[2].depends_on.push("n2".into());
    let stale = validate_plan(&result);
    assert!(stale.iter().any(|i| i.code == PlanIssueCode::EdgeMismatch));
    assert!(stale.iter().any(|i| i.code == PlanIssueCode::WaveMismatch));
    recompute(&mut result);
    assert!(validate_plan(&result)
        .iter()
        .all(|i| i.severity != Severity::Error));
    assert_eq!(result.steps()[2].wave, Some(2));
    assert!(result
        .edges()
        .iter()
        .any(|e| e.from == "n2" && e.to == "n3" && e.reason == "edited"));

    result.steps_mut()[0].depends_on.push("n3".into());
    recompute(&mut result);
    assert!(validate_plan(&result)
        .iter()
        .any(|i| i.code == PlanIssueCode::Cycle));
    assert!(result.warnings().iter().any(|w| w.starts_with("cycle: ")));
    result.steps_mut()[0].depends_on.clear();
    recompute(&mut result);
    assert!(
        !result.warnings().iter().any(|w| w.starts_with("cycle: ")),
        "cycle warnings are replaced"
    );

    let mut broken = result.clone();
    broken.steps_mut()[1].depends_on.push("ghost".into());
    broken.steps_mut()[1].id = "n1".into();
    broken.steps_mut()[2].task = "  ".into();
    broken.steps_mut()[2].model = Some("nobody/none".into());
    let codes: Vec<PlanIssueCode> = validate_plan(&broken).into_iter().map(|i| i.code).collect();
    for code in [
        PlanIssueCode::UnknownDependency,
        PlanIssueCode::DuplicateId,
        PlanIssueCode::InvalidTask,
    ] {
        assert!(codes.contains(&code), "{code:?} in {codes:?}");
    }
    assert_eq!(
        validate_models(&broken, &catalog())[0].code,
        PlanIssueCode::UnknownModel
    );

    let mut emptied = result.clone();
    emptied.steps_mut().clear();
    recompute(&mut emptied);
    assert_eq!(validate_plan(&emptied)[0].code, PlanIssueCode::EmptyPlan);
}

#[test]
fn editing_a_sequential_plan_rechains_it() {
    let models = catalog();
    let feedback = FeedbackIndex::empty();
    let context = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &all_usable,
    };
    let mut result = plan(
        "write the parser; test it; document it",
        &PlanOptions::default(),
        &context,
    );
    let removed = result.steps_mut().remove(1);
    assert_eq!(removed.id, "s2");
    assert!(validate_plan(&result)
        .iter()
        .any(|i| i.code == PlanIssueCode::NotSequential));
    recompute(&mut result);
    assert_eq!(result.steps()[1].depends_on, ["s1"]);
    assert_eq!(result.steps()[1].wave, Some(1));
    assert!(validate_plan(&result)
        .iter()
        .all(|i| i.severity != Severity::Error));
}

#[test]
fn leading_markers_are_dropped_only_as_whole_words_in_free_text() {
    assert_eq!(
        texts("First, write the schema, then build the API"),
        ["write the schema", "build the API"]
    );
    assert_eq!(
        texts("Next.js migration, then tests"),
        ["Next.js migration", "tests"]
    );
    assert_eq!(
        texts("- Next steps for the release\n- Then celebrate"),
        ["Next steps for the release", "Then celebrate"]
    );
}

#[test]
fn explicit_references_in_chinese() {
    let result = dag("1. 实现登录接口\n2. 编写文档\n3. 在第1步之后部署\n4. 依赖第2步：发布说明");
    assert_eq!(deps(&result, "n3"), ["n1"]);
    assert_eq!(deps(&result, "n4"), ["n2"]);
}
