//! Routing speed: load the classifier's weights; classify a 500-character task (English and
//! Chinese) and a short one; pick and recommend over the real catalog
//! (from `../shared/corpus`, when present), a catalog-sized synthetic one (340), 10k and 100k
//! synthetic models; plan and swarm a six-step task.
//!
//! Besides criterion's wall-clock figures, the key targets are also printed as thread CPU
//! time per run, which stays meaningful on a machine shared with other work.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::routing::plan::{plan, swarm, PlanOptions};
use switchyard_core::routing::{
    builtin_model_bytes, classify, pick, recommend, Budget, BudgetTier, FeedbackIndex,
    LearnedIndex, Rating, RouteContext, RouteRequest, TaskModel,
};

#[path = "../tests/routing_common/mod.rs"]
mod routing_common;

const TASK_EN: &str =
    "Refactor the Rust HTTP handlers in our API so that every endpoint returns typed \
errors instead of panicking, then add unit tests for the pagination logic and the PostgreSQL \
queries. The service runs in production behind Kubernetes, so this is critical: keep the public \
JSON shapes stable, document every change in the README, and make sure the CI pipeline stays \
green. Finally, open a PR with a short summary of what changed and why, and list any follow-up \
work you noticed in the codebase along the way, sorted by risk.";

const TASK_ZH: &str = "请帮我重构这个Rust后端服务的接口代码，把所有的报错改成类型化的错误，然后为分页逻辑和数据库查询写单元测试。\
这个服务在生产环境运行，非常关键，所以要保持接口格式稳定，并在文档里记录每一处改动。接着检查持续集成是否通过，\
最后提交代码并写一段简短的总结，说明改了什么以及为什么这样改，顺便列出你在代码库里发现的后续工作。";

const TASK_SHORT: &str = "what's 18% tip on a $67.40 dinner split 3 ways";

fn usable(card: &ModelCard) -> bool {
    !card.provider.ends_with('7')
}

fn feedback_for(catalog: &[ModelCard]) -> FeedbackIndex {
    let ratings: Vec<Rating> = catalog
        .iter()
        .step_by(9)
        .enumerate()
        .map(|(i, m)| Rating {
            model_id: m.id.clone(),
            category: Category::Coding,
            rating: (i % 5 + 1) as u8,
        })
        .collect();
    FeedbackIndex::from_ratings(&ratings)
}

fn request(stack: bool) -> RouteRequest {
    let mut r = RouteRequest {
        budget: Budget::tier(BudgetTier::Medium),
        ..RouteRequest::new(Category::Coding)
    };
    if stack {
        r.stack = vec!["rust".into(), "postgresql".into()];
    }
    r
}

/// Nanoseconds this thread has spent on a CPU (Linux), when the kernel reports it.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Prints the mean thread CPU time of `f` over `runs` runs next to its target.
fn cpu_report<T>(label: &str, target: &str, runs: u32, mut f: impl FnMut() -> T) {
    for _ in 0..runs.min(100) {
        black_box(f());
    }
    let Some(start) = thread_cpu_ns() else { return };
    for _ in 0..runs {
        black_box(f());
    }
    let Some(end) = thread_cpu_ns() else { return };
    let per_run = end.saturating_sub(start) as f64 / f64::from(runs);
    let (value, unit) = if per_run >= 1e6 {
        (per_run / 1e6, "ms")
    } else {
        (per_run / 1e3, "µs")
    };
    println!("cpu: {label}: {value:.2} {unit} per run (mean of {runs}; target {target})");
}

fn bench_classify(c: &mut Criterion) {
    assert!(
        (480..=520).contains(&TASK_EN.chars().count()),
        "{}",
        TASK_EN.chars().count()
    );
    cpu_report("classifier weights: parse and index", "< 20 ms", 50, || {
        TaskModel::from_bytes(black_box(builtin_model_bytes())).map(|m| m.feature_count())
    });
    let _ = classify("warm up the lexicon and the model");
    cpu_report("classify, 500-character task", "< 50 µs", 20_000, || {
        classify(black_box(TASK_EN))
    });
    cpu_report("classify, Chinese task", "< 50 µs", 20_000, || {
        classify(black_box(TASK_ZH))
    });
    cpu_report("classify, short task", "< 50 µs", 20_000, || {
        classify(black_box(TASK_SHORT))
    });
    c.bench_function("classifier/load weights", |b| {
        b.iter(|| TaskModel::from_bytes(black_box(builtin_model_bytes())))
    });
    c.bench_function("classify/500 chars en", |b| {
        b.iter(|| classify(black_box(TASK_EN)))
    });
    c.bench_function("classify/zh task", |b| {
        b.iter(|| classify(black_box(TASK_ZH)))
    });
    c.bench_function("classify/short task", |b| {
        b.iter(|| classify(black_box(TASK_SHORT)))
    });
}

fn bench_rank(c: &mut Criterion, catalog: &[ModelCard], label: &str, target: &str) {
    let feedback = feedback_for(catalog);
    let ctx = RouteContext {
        catalog,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &usable,
    };
    let plain = request(false);
    let stacked = request(true);
    let runs = match catalog.len() {
        n if n > 50_000 => 50,
        n if n > 5_000 => 500,
        _ => 20_000,
    };
    cpu_report(&format!("pick, {label}"), target, runs, || {
        pick(&plain, &ctx)
    });
    cpu_report(
        &format!("pick with stack boost, {label}"),
        target,
        runs,
        || pick(&stacked, &ctx),
    );
    cpu_report(&format!("recommend 5, {label}"), target, runs, || {
        recommend(&plain, 5, &ctx)
    });
    cpu_report(
        &format!("recommend 10 with stack boost, {label}"),
        target,
        runs,
        || recommend(&stacked, 10, &ctx),
    );
    c.bench_function(&format!("pick/{label}"), |b| {
        b.iter(|| pick(black_box(&plain), &ctx))
    });
    c.bench_function(&format!("pick/{label} with stack boost"), |b| {
        b.iter(|| pick(black_box(&stacked), &ctx))
    });
    c.bench_function(&format!("recommend 5/{label}"), |b| {
        b.iter(|| recommend(black_box(&plain), 5, &ctx))
    });
    c.bench_function(&format!("recommend 10/{label} with stack boost"), |b| {
        b.iter(|| recommend(black_box(&stacked), 10, &ctx))
    });
}

fn bench_catalog(c: &mut Criterion) {
    match routing_common::corpus::real_catalog() {
        Some(real) => {
            let label = format!("real catalog ({} models)", real.len());
            bench_rank(c, &real, &label, "< 50 µs");
        }
        None => eprintln!("note: ../shared/corpus is absent; real-catalog benchmarks skipped"),
    }
    bench_rank(
        c,
        &routing_common::synthetic_catalog(340),
        "340 synthetic models",
        "< 50 µs",
    );
}

fn bench_large(c: &mut Criterion) {
    bench_rank(
        c,
        &routing_common::synthetic_catalog(10_000),
        "10k models",
        "linear",
    );
    bench_rank(
        c,
        &routing_common::synthetic_catalog(100_000),
        "100k models",
        "< 20 ms",
    );
}

fn bench_plan(c: &mut Criterion) {
    let catalog = routing_common::synthetic_catalog(340);
    let feedback = FeedbackIndex::empty();
    let ctx = RouteContext {
        catalog: &catalog,
        feedback: &feedback,
        learned: LearnedIndex::none(),
        usable: &usable,
    };
    let task =
        "1. Design the database schema\n2. Build the REST API\n3. Build the React components\n\
4. Write tests for the API\n5. Document the endpoints\n6. Deploy to production";
    let options = PlanOptions::default();
    cpu_report("swarm, 6 steps", "-", 2_000, || {
        swarm(black_box(task), &options, &ctx)
    });
    c.bench_function("plan/6 steps", |b| {
        b.iter(|| plan(black_box(task), &options, &ctx))
    });
    c.bench_function("swarm/6 steps", |b| {
        b.iter(|| swarm(black_box(task), &options, &ctx))
    });
}

criterion_group! {
    name = fast;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench_classify, bench_catalog, bench_plan
}
criterion_group! {
    name = large;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    targets = bench_large
}
criterion_main!(fast, large);
