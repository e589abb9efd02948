//! Runs speed, against the model test server on 127.0.0.1 (the exact OpenAI streaming wire
//! format).
//!
//! The provider is the built-in Ollama one pointed at the server (local: free, no keychain).
//!
//! - engine overhead per node: a swarm of 20 independent nodes run one at a time against a
//!   server that answers at once, per node, minus one `Engine::ask` to the same server (the
//!   model call alone). Target: under 5 ms.
//! - a 50-node swarm with 100 ms of model latency per call at 4-way parallelism, against the
//!   ideal schedule: the engine's policy simulated with zero overhead
//!   (`dag::simulate_schedule`), also printed against the plain lower bound (the larger of the
//!   critical path and the total work over 4 slots). Target: within 1.1× of the ideal.
//!
//! The figures are printed besides criterion's own.

#[path = "../../providers/tests/support/mod.rs"]
mod http;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use http::{wire, End, Reply, TestServer};
use switchyard_core::catalog::card::Category;
use switchyard_core::providers::AskRequest;
use switchyard_core::routing::plan::{Plan, PlanOrigin, PlanStep};
use switchyard_core::routing::{Budget, Needs};
use switchyard_core::run::dag::{schedule_lower_bound, simulate_schedule, DagNode, Join};
use switchyard_core::run::{NodeState, RunLimitsOverride, RunMode, RunRequest, RunState};
use switchyard_engine::{Engine, EngineConfig};

const MODEL: &str = "ollama:bench-model";

fn server_with(latency: Duration) -> impl Fn(&http::Recorded) -> Reply + Send + Sync + 'static {
    move |_| {
        let mut chunks: Vec<(Duration, String)> =
            wire::openai_stream("bench-model", &["An ", "answer."], Some((50, 10)))
                .into_iter()
                .map(|e| (Duration::ZERO, e))
                .collect();
        if let Some(first) = chunks.first_mut() {
            first.0 = latency;
        }
        Reply::sse_paced(chunks, End::Complete)
    }
}

async fn engine(home: &Path, server: &TestServer) -> Arc<Engine> {
    let engine = Arc::new(
        Engine::open(EngineConfig {
            home: Some(home.to_path_buf()),
        })
        .await
        .expect("engine"),
    );
    // The built-in Ollama provider (local: free, no key, no keychain) pointed at the server.
    engine
        .set_provider_base_url("ollama", Some(&server.at("/v1")))
        .await
        .expect("provider");
    engine
}

fn step(id: String, deps: Vec<String>) -> PlanStep {
    PlanStep {
        task: format!("Do {id}"),
        id,
        category: Category::General,
        budget: Budget::default(),
        model: Some(MODEL.into()),
        depends_on: deps,
        wave: None,
        phase: None,
        artifacts: Vec::new(),
        needs: Needs::default(),
        notes: Vec::new(),
    }
}

/// `n` nodes; node i > 4 depends on one or two earlier nodes (a fixed pseudo-random DAG).
fn dag(n: usize, edges: bool) -> Vec<PlanStep> {
    let mut seed: u64 = 0x5eed;
    let mut next = move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize
    };
    (0..n)
        .map(|i| {
            let mut deps = Vec::new();
            if edges && i > 4 {
                deps.push(format!("n{}", next() % i));
                if next() % 3 == 0 {
                    let other = format!("n{}", next() % i);
                    if !deps.contains(&other) {
                        deps.push(other);
                    }
                }
            }
            step(format!("n{i}"), deps)
        })
        .collect()
}

fn swarm_request(steps: Vec<PlanStep>, parallel: u32) -> RunRequest {
    let mut req = RunRequest::new("Benchmark", RunMode::Swarm);
    req.plan = Some(Plan::Swarm {
        task: "Benchmark".into(),
        nodes: steps,
        edges: Vec::new(),
        warnings: Vec::new(),
        origin: PlanOrigin::Deterministic,
    });
    req.limits = Some(RunLimitsOverride {
        max_parallel_nodes: Some(parallel),
        ..RunLimitsOverride::default()
    });
    req.launcher = "bench".into();
    req
}

async fn run_once(engine: &Arc<Engine>, req: RunRequest) -> Duration {
    let begun = Instant::now();
    let run = engine.start_run(req).await.expect("start");
    let detail = engine.wait_run(&run.id).await.expect("wait");
    assert_eq!(detail.summary.state, RunState::Completed);
    begun.elapsed()
}

/// Where one run's time went, from its nodes' stored start and end times (ms).
struct Breakdown {
    before_first: f64,
    start_lag: f64,
    beyond_latency: f64,
    after_last: f64,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// [`run_once`], with the [`Breakdown`] of the run.
async fn timed_run(
    engine: &Arc<Engine>,
    req: RunRequest,
    latency: Duration,
) -> (Duration, Breakdown) {
    let begun = Instant::now();
    let begun_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let run = engine.start_run(req).await.expect("start");
    let detail = engine.wait_run(&run.id).await.expect("wait");
    let took = begun.elapsed();
    assert_eq!(detail.summary.state, RunState::Completed);
    let ended_ms = begun_ms + i64::try_from(took.as_millis()).unwrap_or(0);
    let finished = |id: &str| {
        detail
            .nodes
            .iter()
            .find(|n| n.id == id)
            .and_then(|n| n.finished_ms)
            .unwrap_or(begun_ms)
    };
    let first = detail
        .nodes
        .iter()
        .filter_map(|n| n.started_ms)
        .min()
        .unwrap_or(begun_ms);
    let last = detail
        .nodes
        .iter()
        .filter_map(|n| n.finished_ms)
        .max()
        .unwrap_or(ended_ms);
    let mut lags = Vec::new();
    let mut beyond = Vec::new();
    for node in &detail.nodes {
        let (Some(start), Some(end)) = (node.started_ms, node.finished_ms) else {
            continue;
        };
        if !node.depends_on.is_empty() {
            let ready = node
                .depends_on
                .iter()
                .map(|d| finished(d))
                .max()
                .unwrap_or(start);
            lags.push((start - ready) as f64);
        }
        beyond.push((end - start) as f64 - latency.as_secs_f64() * 1000.0);
    }
    let breakdown = Breakdown {
        before_first: (first - begun_ms) as f64,
        start_lag: median(lags),
        beyond_latency: median(beyond),
        after_last: (ended_ms - last) as f64,
    };
    (took, breakdown)
}

fn overhead(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let home = tempfile::tempdir().expect("home");
    let (server, engine) = rt.block_on(async {
        let server = TestServer::start_with(server_with(Duration::ZERO)).await;
        let engine = engine(home.path(), &server).await;
        (server, engine)
    });
    let ask = || AskRequest {
        model: MODEL.into(),
        prompt: "Do n1".into(),
        system: None,
        max_tokens: Some(4096),
        pricing: None,
    };
    const NODES: u32 = 20;
    let mut group = c.benchmark_group("runs");
    group.sample_size(20);
    group.bench_function("ask (the model call alone)", |b| {
        b.iter(|| rt.block_on(engine.ask(ask(), None, |_| {})).expect("ask"));
    });
    group.bench_function("swarm of 20 nodes one at a time, per node", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += rt.block_on(run_once(
                    &engine,
                    swarm_request(dag(NODES as usize, false), 1),
                )) / NODES;
            }
            total
        });
    });
    group.finish();

    // The same figures as a plain report (median of 15).
    let mut asks: Vec<Duration> = (0..15)
        .map(|_| {
            let begun = Instant::now();
            rt.block_on(engine.ask(ask(), None, |_| {})).expect("ask");
            begun.elapsed()
        })
        .collect();
    let mut nodes: Vec<Duration> = (0..15)
        .map(|_| {
            rt.block_on(run_once(
                &engine,
                swarm_request(dag(NODES as usize, false), 1),
            )) / NODES
        })
        .collect();
    asks.sort();
    nodes.sort();
    let (ask_ms, node_ms) = (ms(asks[7]), ms(nodes[7]));
    println!(
        "runs: per node {node_ms:.2} ms, model call alone {ask_ms:.2} ms, engine overhead per node \
         {:.2} ms (target < 5 ms)",
        node_ms - ask_ms
    );
    rt.block_on(engine.close());
    drop(server);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn swarm_schedule(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let home = tempfile::tempdir().expect("home");
    let latency = Duration::from_millis(100);
    let (server, engine) = rt.block_on(async {
        let server = TestServer::start_with(server_with(latency)).await;
        let engine = engine(home.path(), &server).await;
        (server, engine)
    });
    let steps = dag(50, true);
    let graph: Vec<DagNode> = steps
        .iter()
        .map(|s| DagNode {
            id: s.id.clone(),
            depends_on: s.depends_on.clone(),
            state: NodeState::Pending,
            join: Join::All,
        })
        .collect();
    let durations = [latency.as_secs_f64(); 50];
    let bound = schedule_lower_bound(&graph, &durations, 4);
    // The engine's own policy with zero overhead; here also the optimum: 13 rounds of 4 slots
    // are needed for 50 equal nodes, and the simulation takes 13.
    let ideal = simulate_schedule(&graph, &durations, 4);
    let mut group = c.benchmark_group("runs");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    let mut ratios = Vec::new();
    let mut breakdowns = Vec::new();
    group.bench_function("50-node swarm, 100 ms latency, 4-way", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (took, breakdown) =
                    rt.block_on(timed_run(&engine, swarm_request(steps.clone(), 4), latency));
                ratios.push(took.as_secs_f64() / ideal);
                breakdowns.push(breakdown);
                total += took;
            }
            total
        });
    });
    group.finish();
    if let Some(b) = breakdowns.get(breakdowns.len() / 2) {
        println!(
            "runs: 50-node swarm, where the time goes (one run): before the first node {:.0} ms, \
             a node's start after its last dependency (median) {:.1} ms, a node's time beyond \
             the model latency (median) {:.1} ms, after the last node {:.0} ms",
            b.before_first, b.start_lag, b.beyond_latency, b.after_last
        );
    }
    assert!(server.max_in_flight() <= 4);
    ratios.sort_by(f64::total_cmp);
    if let Some(median) = ratios.get(ratios.len() / 2) {
        println!(
            "runs: 50-node swarm: ideal schedule {:.0} ms (lower bound {:.0} ms: critical path vs \
             50 × 100 ms / 4), measured median {:.0} ms, ratio {median:.3} to the ideal (target \
             ≤ 1.1), {:.3} to the bound",
            ideal * 1000.0,
            bound * 1000.0,
            median * ideal * 1000.0,
            median * ideal / bound
        );
    }
    rt.block_on(engine.close());
}

criterion_group!(benches, overhead, swarm_schedule);
criterion_main!(benches);
