//! The closed-loop routing benchmark's world: a scripted set of models whose true success
//! rates per category differ from what their benchmark scores say, and a stream of cascade
//! tasks whose verification passes or fails by those rates. Shared by the benchmark
//! (`benches/learning.rs`, which prints the figures) and the test that holds the targets.
//!
//! The "server" is in-process: each (task, model) verification result is drawn up front
//! from the model's true rate for the task's category, so static routing, learned routing
//! and the oracle all face exactly the same outcomes (common random numbers).

#![allow(dead_code)]

#[path = "../routing_common/mod.rs"]
mod routing_common;

use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::outcomes::TaskFeatures;
use switchyard_core::routing::{
    pick, prior_from_score, recommend, Budget, FeedbackIndex, LearnedIndex, RouteContext,
    RouteRequest,
};
use switchyard_core::run::cascade::{skip_unlikely, LADDER_TIERS};

/// Tokens of one call: a task prompt and its answer.
const TOKENS_IN: f64 = 2_000.0;
const TOKENS_OUT: f64 = 1_000.0;
/// The skip threshold the product ships with.
pub const SKIP_BELOW: f64 = 0.3;
/// Tasks in one run of the loop.
pub const TASKS: usize = 300;

/// One scripted model: its price, what its benchmarks say, and the truth.
struct Scripted {
    id: &'static str,
    input_per_m: f64,
    /// (category, benchmark score 0–100, true verified success rate).
    categories: [(Category, f64, f64); 3],
}

/// The catalog's story against the truth:
/// - `lite` has the best benchmarks of the cheap models but fails most real work;
/// - `flash` is cheap and much better at coding than its benchmarks say;
/// - `max`, the premium model, fails the (Chinese) creative tasks most of the time;
/// - `pro` and `sage` are about as good as their benchmarks.
const MODELS: [Scripted; 5] = [
    Scripted {
        id: "sim/lite",
        input_per_m: 0.3,
        categories: [
            (Category::Coding, 60.0, 0.35),
            (Category::Creative, 65.0, 0.5),
            (Category::Math, 58.0, 0.45),
        ],
    },
    Scripted {
        id: "sim/flash",
        input_per_m: 0.2,
        categories: [
            (Category::Coding, 50.0, 0.88),
            (Category::Creative, 62.0, 0.6),
            (Category::Math, 55.0, 0.5),
        ],
    },
    Scripted {
        id: "sim/pro",
        input_per_m: 1.5,
        categories: [
            (Category::Coding, 68.0, 0.75),
            (Category::Creative, 70.0, 0.7),
            (Category::Math, 70.0, 0.75),
        ],
    },
    Scripted {
        id: "sim/sage",
        input_per_m: 3.0,
        categories: [
            (Category::Coding, 78.0, 0.85),
            (Category::Creative, 80.0, 0.85),
            (Category::Math, 80.0, 0.85),
        ],
    },
    Scripted {
        id: "sim/max",
        input_per_m: 6.0,
        categories: [
            (Category::Coding, 85.0, 0.9),
            (Category::Creative, 86.0, 0.2),
            (Category::Math, 88.0, 0.9),
        ],
    },
];

/// How routing is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Before learning: each tier's highest-scored model, benchmarks only, every rung climbed.
    Static,
    /// `pick` by cost per verified success on the recorded outcomes, and rung skipping.
    Learned,
    /// Knows each task's outcomes: calls only the cheapest model that will pass.
    Oracle,
}

/// What one task cost and whether it ended verified.
#[derive(Debug, Clone, Copy)]
pub struct TaskResult {
    pub succeeded: bool,
    pub cost: f64,
}

/// A task: its category and, per model (in [`MODELS`] order), whether verification passes.
struct Task {
    category: Category,
    passes: [bool; MODELS.len()],
}

/// The seeded world: the catalog the router sees and the task stream.
pub struct World {
    catalog: Vec<ModelCard>,
    tasks: Vec<Task>,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(state: &mut u64) -> f64 {
    (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64
}

fn card(model: &Scripted) -> ModelCard {
    model.categories.iter().fold(
        routing_common::card(model.id, Some(model.input_per_m)),
        |card, (category, score, _)| routing_common::scored(card, *category, *score),
    )
}

fn call_cost(model: &Scripted) -> f64 {
    (model.input_per_m * TOKENS_IN + model.input_per_m * 4.0 * TOKENS_OUT) / 1e6
}

fn index_of(id: &str) -> usize {
    MODELS.iter().position(|m| m.id == id).unwrap_or(0)
}

impl World {
    /// 300 tasks: 45 % coding, 30 % creative (in Chinese), 25 % math, outcomes drawn from
    /// the true rates with `seed`.
    pub fn new(seed: u64) -> World {
        let mut state = seed;
        let tasks = (0..TASKS)
            .map(|_| {
                let roll = uniform(&mut state);
                let category = if roll < 0.45 {
                    Category::Coding
                } else if roll < 0.75 {
                    Category::Creative
                } else {
                    Category::Math
                };
                let mut passes = [false; MODELS.len()];
                for (pass, model) in passes.iter_mut().zip(&MODELS) {
                    let rate = model
                        .categories
                        .iter()
                        .find(|(c, _, _)| *c == category)
                        .map_or(0.0, |(_, _, rate)| *rate);
                    *pass = uniform(&mut state) < rate;
                }
                Task { category, passes }
            })
            .collect();
        World {
            catalog: MODELS.iter().map(card).collect(),
            tasks,
        }
    }

    /// Runs the task stream under `policy`, learning (for [`Policy::Learned`]) from every
    /// rung's verified outcome as it goes.
    pub fn run(&self, policy: Policy) -> Vec<TaskResult> {
        let feedback = FeedbackIndex::empty();
        let mut learned = LearnedIndex::default();
        let usable = |_: &ModelCard| true;
        let hour = 3_600_000i64;
        let mut results = Vec::with_capacity(self.tasks.len());
        for (n, task) in self.tasks.iter().enumerate() {
            if policy == Policy::Oracle {
                results.push(oracle(task));
                continue;
            }
            let ctx = RouteContext {
                catalog: &self.catalog,
                feedback: &feedback,
                learned: if policy == Policy::Learned {
                    &learned
                } else {
                    LearnedIndex::none()
                },
                usable: &usable,
            };
            let mut ladder: Vec<String> = Vec::new();
            for tier in LADDER_TIERS {
                let request = RouteRequest {
                    budget: Budget::tier(tier),
                    ..RouteRequest::new(task.category)
                };
                let chosen = match policy {
                    Policy::Static => recommend(&request, 1, &ctx)
                        .ok()
                        .and_then(|r| r.models.into_iter().next())
                        .map(|m| m.id),
                    _ => pick(&request, &ctx).ok().map(|p| p.id),
                };
                if let Some(id) = chosen {
                    if !ladder.contains(&id) {
                        ladder.push(id);
                    }
                }
            }
            if policy == Policy::Learned {
                let category = task.category;
                let prior = |id: &str| {
                    MODELS[index_of(id)]
                        .categories
                        .iter()
                        .find(|(c, _, _)| *c == category)
                        .map_or(0.02, |(_, score, _)| prior_from_score(*score))
                };
                skip_unlikely(
                    &mut ladder,
                    &TaskFeatures::bare(category),
                    &learned,
                    SKIP_BELOW,
                    prior,
                );
            }
            let now = n as i64 * hour;
            let mut result = TaskResult {
                succeeded: false,
                cost: 0.0,
            };
            for id in &ladder {
                let model = index_of(id);
                result.cost += call_cost(&MODELS[model]);
                let passed = task.passes[model];
                if policy == Policy::Learned {
                    learned.add(id, task.category, passed, now, now);
                }
                if passed {
                    result.succeeded = true;
                    break;
                }
            }
            results.push(result);
        }
        results
    }
}

fn oracle(task: &Task) -> TaskResult {
    let cheapest_passing = MODELS
        .iter()
        .zip(task.passes)
        .filter(|(_, pass)| *pass)
        .map(|(model, _)| call_cost(model))
        .min_by(f64::total_cmp);
    match cheapest_passing {
        Some(cost) => TaskResult {
            succeeded: true,
            cost,
        },
        // Nothing would pass: the oracle still pays for one call of the cheapest model.
        None => TaskResult {
            succeeded: false,
            cost: MODELS.iter().map(call_cost).fold(f64::INFINITY, f64::min),
        },
    }
}

/// Success rate and cost over a slice of results.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub success: f64,
    pub cost: f64,
}

pub fn summarize(results: &[TaskResult]) -> Summary {
    let n = results.len().max(1) as f64;
    Summary {
        success: results.iter().filter(|r| r.succeeded).count() as f64 / n,
        cost: results.iter().map(|r| r.cost).sum(),
    }
}

/// The three policies over `seeds` worlds, per window of 100 tasks: mean success, mean cost,
/// and mean regret against the oracle (cost per task above the oracle's).
pub struct Figures {
    /// [policy][window] (success, cost) means over the seeds; policies in
    /// Static, Learned, Oracle order.
    pub windows: [[Summary; 3]; 3],
    /// Learned routing's cost per task above the oracle's, per window.
    pub regret: [f64; 3],
    /// The same over all tasks so far (after 100, 200, 300).
    pub running_regret: [f64; 3],
}

pub fn figures(seeds: &[u64]) -> Figures {
    let blank = Summary {
        success: 0.0,
        cost: 0.0,
    };
    let mut windows = [[blank; 3]; 3];
    let mut regret = [0.0; 3];
    let mut running_regret = [0.0; 3];
    let per_seed = 1.0 / seeds.len().max(1) as f64;
    for seed in seeds {
        let world = World::new(*seed);
        let runs = [
            world.run(Policy::Static),
            world.run(Policy::Learned),
            world.run(Policy::Oracle),
        ];
        for (policy, results) in runs.iter().enumerate() {
            for window in 0..3 {
                let part = summarize(&results[window * 100..(window + 1) * 100]);
                windows[policy][window].success += part.success * per_seed;
                windows[policy][window].cost += part.cost * per_seed;
            }
        }
        for window in 0..3 {
            let span = window * 100..(window + 1) * 100;
            let learned = summarize(&runs[1][span.clone()]).cost;
            let oracle = summarize(&runs[2][span]).cost;
            regret[window] += (learned - oracle) / 100.0 * per_seed;
            let so_far = 0..(window + 1) * 100;
            let learned = summarize(&runs[1][so_far.clone()]).cost;
            let oracle = summarize(&runs[2][so_far]).cost;
            running_regret[window] += (learned - oracle) / ((window + 1) * 100) as f64 * per_seed;
        }
    }
    Figures {
        windows,
        regret,
        running_regret,
    }
}
