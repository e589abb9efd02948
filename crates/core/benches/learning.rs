//! The closed-loop routing benchmark: static routing (each tier's best-scored model, every
//! rung climbed), learned routing (cost per verified success on recorded outcomes, rung
//! skipping) and the oracle, over 300 cascade tasks of a scripted world whose true success
//! rates differ from the benchmarks (see `tests/learning_sim`). Prints the figures per
//! window of 100 tasks, means over 20 seeds.
//!
//! `cargo bench -p switchyard-core --bench learning`

#[path = "../tests/learning_sim/mod.rs"]
mod learning_sim;

use learning_sim::figures;

fn main() {
    let seeds: Vec<u64> = (1..=20).collect();
    let started = std::time::Instant::now();
    let f = figures(&seeds);
    println!(
        "closed loop: 300 cascade tasks, means over {} seeds",
        seeds.len()
    );
    println!(
        "{:<10} {:>22} {:>22} {:>22}",
        "policy", "tasks 1–100", "tasks 101–200", "tasks 201–300"
    );
    for (name, windows) in ["static", "learned", "oracle"].iter().zip(&f.windows) {
        let cells: Vec<String> = windows
            .iter()
            .map(|w| format!("{:.1}% ${:.4}", w.success * 100.0, w.cost))
            .collect();
        println!(
            "{:<10} {:>22} {:>22} {:>22}",
            name, cells[0], cells[1], cells[2]
        );
    }
    let after = |p: usize| {
        (
            (f.windows[p][1].success + f.windows[p][2].success) / 2.0,
            f.windows[p][1].cost + f.windows[p][2].cost,
        )
    };
    let (ss, sc) = after(0);
    let (ls, lc) = after(1);
    println!(
        "after 100 tasks: learned {:.1}% success at {:.0}% of static's cost (static {:.1}%); \
         target ≥ static's success at ≤ 70% of its cost: {}",
        ls * 100.0,
        lc / sc * 100.0,
        ss * 100.0,
        if ls >= ss && lc <= 0.7 * sc {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "regret vs oracle, $ per task: per window {:.5} / {:.5} / {:.5}; so far {:.5} / {:.5} / {:.5}",
        f.regret[0],
        f.regret[1],
        f.regret[2],
        f.running_regret[0],
        f.running_regret[1],
        f.running_regret[2]
    );
    println!("({:.1} s)", started.elapsed().as_secs_f64());
}
