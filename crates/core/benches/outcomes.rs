//! The learned router on real outcomes: RouteLLM's per-prompt correctness of a weak
//! (Mixtral-8x7B) and a strong model (GPT-4) on GSM8K and MMLU, read from
//! `../shared/data/routellm-outcomes/` (or `SWITCHYARD_OUTCOMES_DIR`) when present.
//!
//! For each file and seed: the seeded 70/30 split, the predictor trained on the train part
//! only, APGR and CPT(50 %), CPT(80 %) on the test part — exactly `switchyard outcomes eval`.
//! `--tune` also compares predictor settings on a validation split carved out of the train
//! part (never the test part), which is how the shipped defaults were chosen.

use std::path::PathBuf;
use std::time::Instant;

use switchyard_core::outcomes::{
    evaluate_outcomes, read_outcome_csv, sweep, train_test, FailurePredictor, OutcomeRow,
    PredictorSettings, Target,
};

const SEEDS: [u64; 3] = [42, 7, 2026];
/// The targets.
const TARGETS: [(&str, f64); 2] = [("gsm8k", 0.60), ("mmlu", 0.66)];

fn main() {
    let dir = std::env::var_os("SWITCHYARD_OUTCOMES_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/routellm-outcomes"),
        PathBuf::from,
    );
    if !dir.is_dir() {
        println!(
            "SKIPPED: no outcome data at {} (set SWITCHYARD_OUTCOMES_DIR)",
            dir.display()
        );
        return;
    }
    let tune = std::env::args().any(|arg| arg == "--tune");
    let mut missed = false;
    for (name, target) in TARGETS {
        let path = dir.join(format!("{name}.csv"));
        let rows = match std::fs::File::open(&path).map(read_outcome_csv) {
            Ok(Ok(rows)) => rows,
            Ok(Err(err)) => panic!("{}: {err}", path.display()),
            Err(err) => panic!("{}: {err}", path.display()),
        };
        if tune {
            tune_settings(name, &rows);
        }
        let mut apgrs = Vec::new();
        for seed in SEEDS {
            let started = Instant::now();
            let eval = evaluate_outcomes(&rows, seed, 0.7).expect("evaluates");
            let apgr = eval.apgr.unwrap_or(f64::NAN);
            apgrs.push(apgr);
            println!(
                "{name:<6} seed {seed:<5} n_train {:>5} n_test {:>5}  weak {:.3} strong {:.3}  \
                 APGR {apgr:.3}  CPT50 {:.3}  CPT80 {:.3}  ({:.1} s)",
                eval.n_train,
                eval.n_test,
                eval.weak_accuracy,
                eval.strong_accuracy,
                eval.cpt50.unwrap_or(f64::NAN),
                eval.cpt80.unwrap_or(f64::NAN),
                started.elapsed().as_secs_f64()
            );
        }
        let mean = apgrs.iter().sum::<f64>() / apgrs.len() as f64;
        let verdict = if mean >= target { "meets" } else { "MISSES" };
        println!("{name:<6} mean APGR {mean:.3} — {verdict} the target {target:.2}\n");
        missed |= mean < target;
    }
    if missed {
        println!("at least one target missed");
    }
}

/// Settings compared on a validation part of the train split only.
fn tune_settings(name: &str, rows: &[OutcomeRow]) {
    let (train, _test) = train_test(rows.len(), SEEDS[0], 0.7);
    let inner: Vec<&OutcomeRow> = train.iter().map(|&at| &rows[at]).collect();
    let (fit, validate) = train_test(inner.len(), 1, 0.75);
    let held: Vec<&OutcomeRow> = validate.iter().map(|&at| inner[at]).collect();
    let prompts: Vec<&str> = held.iter().map(|row| row.prompt.as_str()).collect();
    let length: Vec<f64> = prompts.iter().map(|p| p.len() as f64).collect();
    println!(
        "tune {name:<6} prompt length alone → validation APGR {:.3}",
        sweep(&held, &length).apgr.unwrap_or(f64::NAN)
    );
    let targets = [("gain", Target::Gain), ("strong wins", Target::StrongWins)];
    let base = PredictorSettings::default();
    let mut candidates = vec![("default", base)];
    let variants = [
        ("epochs12", PredictorSettings { epochs: 12, ..base }),
        (
            "lr0.05",
            PredictorSettings {
                learning_rate: 0.05,
                ..base
            },
        ),
        (
            "lr0.5",
            PredictorSettings {
                learning_rate: 0.5,
                ..base
            },
        ),
        ("l2=1e-4", PredictorSettings { l2: 1e-4, ..base }),
        (
            "k100s20",
            PredictorSettings {
                neighbours: 100,
                shrink: 20.0,
                ..base
            },
        ),
        (
            "k25s2",
            PredictorSettings {
                neighbours: 25,
                shrink: 2.0,
                ..base
            },
        ),
        (
            "k200s5",
            PredictorSettings {
                neighbours: 200,
                shrink: 5.0,
                ..base
            },
        ),
    ];
    candidates.extend(variants);
    for (target_name, target) in targets {
        let examples: Vec<(&str, f32)> = fit
            .iter()
            .map(|&at| (inner[at].prompt.as_str(), target.of(inner[at])))
            .collect();
        for (label, settings) in &candidates {
            let predictor = FailurePredictor::fit(&examples, *settings, 3);
            let apgr = sweep(&held, &predictor.scores(&prompts))
                .apgr
                .unwrap_or(f64::NAN);
            println!(
                "tune {name:<6} {target_name:<11} {label:<8} neighbours {} shape {} → validation APGR {apgr:.3}",
                settings.neighbour_weight, settings.shape_weight
            );
        }
    }
}
