//! Routing over the real catalog built from the shared corpus (ignored by a plain `cargo test`;
//! the test command runs it when the corpus is there):
//! every pick respects membership, needs and budget, and explains itself.

mod routing_common;

use routing_common::corpus::real_catalog;
use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::routing::plan::{swarm, PlanOptions};
use switchyard_core::routing::{
    classify, pick, recommend, Budget, BudgetTier, FeedbackIndex, LearnedIndex, Reason,
    RouteContext, RouteRequest,
};

fn everything(_: &ModelCard) -> bool {
    true
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn picks_on_the_real_catalog_respect_every_filter() {
    let models = real_catalog().expect("../shared/corpus next to the project");
    let feedback = FeedbackIndex::empty();
    let ctx = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &everything,
    };
    let tasks = [
        "Fix the race condition in my Rust tokio server",
        "Describe what is in this screenshot",
        "Prove that the square root of 2 is irrational",
        "Write a short story about a lighthouse keeper",
        "Summarize this email in one sentence",
        "写一个Python脚本，批量重命名文件",
        "Review the entire codebase and list the dead code",
    ];
    for task in tasks {
        let classification = classify(task);
        for tier in BudgetTier::ALL {
            let request = RouteRequest::from_classification(&classification, Budget::tier(tier));
            let Ok(best) = pick(&request, &ctx) else {
                continue;
            };
            let card = models
                .iter()
                .find(|m| m.id == best.id)
                .expect("the pick is in the catalog");
            assert!(
                card.categories.contains_key(&request.category),
                "{task}: member"
            );
            assert!(
                request.budget.fits(&card.pricing),
                "{task}: budget {tier:?}"
            );
            if request.needs.vision {
                assert!(
                    card.input_modalities.iter().any(|m| m == "image"),
                    "{task}: vision"
                );
            }
            if let Some(tokens) = request.needs.long_context {
                assert!(
                    card.context_length.is_some_and(|c| c >= tokens),
                    "{task}: context"
                );
            }
            // The field keeps two decimals, the sentence one: either neighbour may be quoted.
            let tenths = best.reason.category_score * 10.0;
            let quoted = [tenths.floor(), tenths.ceil()].map(|t| format!("{:.1}", t / 10.0));
            assert!(
                quoted.iter().any(|q| best.reason.text.contains(q.as_str())),
                "{quoted:?} not in {}",
                best.reason.text
            );
            // No runner-up is at least as likely to succeed and cheaper per success.
            let cost = |r: &Reason| r.cost_per_success.unwrap_or(f64::INFINITY);
            for other in &best.alternatives {
                if other.reason.estimated_success >= best.reason.estimated_success {
                    assert!(
                        cost(&other.reason) >= cost(&best.reason),
                        "{task}: {} beats the pick {}",
                        other.id,
                        best.id
                    );
                }
            }
        }
    }
    let coding = RouteRequest::new(Category::Coding);
    let set = recommend(&coding, 5, &ctx).expect("the corpus has coding models");
    assert_eq!(set.models.len(), 5);
    let mut providers: Vec<&str> = set.models.iter().map(|m| m.provider.as_str()).collect();
    providers.sort_unstable();
    providers.dedup();
    assert_eq!(
        providers.len(),
        5,
        "five coding providers exist, so five different ones"
    );
    println!(
        "real catalog: {} models, coding pick {}",
        models.len(),
        set.models[0].id
    );
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn a_swarm_on_the_real_catalog_gets_a_model_per_node() {
    let models = real_catalog().expect("../shared/corpus next to the project");
    let feedback = FeedbackIndex::empty();
    let ctx = RouteContext {
        catalog: &models,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &everything,
    };
    let task = "1. Design the database schema\n2. Build the REST API\n3. Build the React components\n4. Write tests for the API\n5. Deploy to production";
    let plan = swarm(task, &PlanOptions::default(), &ctx);
    assert!(
        plan.steps().iter().all(|s| s.model.is_some()),
        "{:?}",
        plan.warnings()
    );
}
