//! `classify-train`: builds the task classifier's corpus and weights, reproducibly.
//!
//! - `prepare DIR|FILE…` validates raw JSON Lines (`{"task","category","lang"}`), drops
//!   exact and near-exact duplicates, assigns train/dev/test by a seeded hash and writes
//!   `crates/core/data/classify/corpus.jsonl`.
//! - `train` fits the model on the train split (hyperparameters below, chosen on dev with
//!   `tune`), calibrates its temperature on dev, and writes `model.bin` and `model.json` (the
//!   SHA-256 and the dev and test figures). The same corpus and seed give the same bytes.
//! - `tune` compares hyperparameters on dev (never on test).
//! - `errors --split dev` lists what the committed model gets wrong on a split.

mod corpus;
mod train;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use switchyard_core::catalog::card::Category;
use switchyard_core::routing::{
    evaluate, Classifier, Evaluation, LabeledTask, ModelInfo, TaskModel,
};

use corpus::{Item, Split};
use train::{class_of, fit, fit_temperature, scored, to_model, Hyper, Named, Vocab};

/// The seed of the split hash and the training order.
const SEED: u64 = 11;
/// The version written into the model.
const MODEL_VERSION: &str = "lr-1";

#[derive(Parser)]
#[command(
    name = "classify-train",
    about = "Corpus and weights of the task classifier"
)]
struct Cli {
    /// The data folder (default: crates/core/data/classify of this workspace).
    #[arg(long, global = true)]
    data: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate, deduplicate and split raw JSON Lines into corpus.jsonl.
    Prepare {
        /// Files or folders of `*.jsonl`.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Train on the train split, calibrate on dev; write model.bin and model.json.
    Train,
    /// Compare hyperparameters on dev.
    Tune,
    /// Classify each task many times (for profiling).
    Repeat {
        #[arg(long, default_value_t = 100_000)]
        times: u32,
        #[arg(required = true)]
        tasks: Vec<String>,
    },
    /// How the committed model reads tasks (one per argument).
    Show {
        #[arg(required = true)]
        tasks: Vec<String>,
    },
    /// The committed model's misses on a split.
    Errors {
        /// train, dev or test.
        #[arg(long, default_value = "dev")]
        split: String,
        /// Train a train-only model now (nothing written) instead of using the committed one.
        #[arg(long)]
        fresh: bool,
    },
}

fn data_dir(cli: &Cli) -> PathBuf {
    cli.data
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/data/classify"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let dir = data_dir(&cli);
    let result = match &cli.command {
        Command::Prepare { inputs } => prepare(&dir, inputs),
        Command::Train => run_train(&dir),
        Command::Tune => tune(&dir),
        Command::Errors { split, fresh } => errors(&dir, split, *fresh),
        Command::Repeat { times, tasks } => {
            let started = std::time::Instant::now();
            let mut n = 0usize;
            for _ in 0..*times {
                for task in tasks {
                    n += Classifier::builtin()
                        .classify(std::hint::black_box(task))
                        .features
                        .len();
                }
            }
            let per =
                started.elapsed().as_secs_f64() * 1e6 / f64::from(*times) / tasks.len() as f64;
            println!("{per:.2} µs per classification ({n})");
            for task in tasks {
                let features = Classifier::builtin().model_features(task);
                let mut groups = std::collections::BTreeMap::<&str, usize>::new();
                for (name, _) in &features {
                    *groups.entry(&name[..2]).or_default() += 1;
                }
                println!("{} distinct features: {groups:?}", features.len());
            }
            Ok(())
        }
        Command::Show { tasks } => {
            for task in tasks {
                let answer = Classifier::builtin().classify(task);
                let features: Vec<String> = answer
                    .features
                    .iter()
                    .map(|f| format!("{} {:+.2}", f.feature, f.weight))
                    .collect();
                let scores: Vec<String> = answer
                    .scores
                    .iter()
                    .take(3)
                    .map(|s| format!("{} {:.2}", s.category.id(), s.weight))
                    .collect();
                println!(
                    "{} {:.3} [{}] {task}\n    {}",
                    answer.category.id(),
                    answer.confidence,
                    scores.join(", "),
                    features.join(", ")
                );
            }
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn prepare(dir: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let paths: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let (items, report) = corpus::prepare(&paths, SEED)?;
    println!("read {} lines", report.read);
    for (label, list) in [
        ("bad JSON", &report.bad_json),
        ("unknown category", &report.bad_category),
        ("empty or too long", &report.bad_task),
        ("language corrected", &report.lang_fixed),
        ("conflicting labels (dropped)", &report.conflicting),
    ] {
        println!("{label}: {}", list.len());
        for line in list.iter().take(40) {
            println!("  {line}");
        }
    }
    println!("exact duplicates dropped: {}", report.exact_duplicates);
    println!("near duplicates dropped: {}", report.near_duplicates.len());
    for (kept, dropped) in report.near_duplicates.iter().take(40) {
        println!("  kept {kept:?}\n  drop {dropped:?}");
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let path = dir.join("corpus.jsonl");
    std::fs::write(&path, corpus::to_jsonl(&items)?).map_err(|e| e.to_string())?;
    println!("wrote {}\n{}", path.display(), corpus::summary(&items));
    Ok(())
}

struct Prepared {
    items: Vec<Item>,
    named: Vec<Named>,
    labels: Vec<usize>,
}

impl Prepared {
    fn load(dir: &Path) -> Result<Prepared, String> {
        let items = corpus::read(&dir.join("corpus.jsonl"))?;
        let classifier = Classifier::builtin();
        let named = items
            .iter()
            .map(|item| classifier.model_features(&item.task))
            .collect();
        let labels = items
            .iter()
            .map(|item| item.category().map_or(0, class_of))
            .collect();
        Ok(Prepared {
            items,
            named,
            labels,
        })
    }

    fn part(&self, split: Split) -> (Vec<Named>, Vec<usize>) {
        let mut named = Vec::new();
        let mut labels = Vec::new();
        for ((item, n), l) in self.items.iter().zip(&self.named).zip(&self.labels) {
            if item.split == split {
                named.push(n.clone());
                labels.push(*l);
            }
        }
        (named, labels)
    }

    fn labeled(&self, split: Split) -> Vec<LabeledTask> {
        self.items
            .iter()
            .filter(|i| i.split == split)
            .map(|i| LabeledTask {
                task: i.task.clone(),
                category: i.category().unwrap_or(Category::General),
                lang: i.lang.clone(),
            })
            .collect()
    }
}

struct Trained {
    model: TaskModel,
    temperature: f64,
    dev_raw: (f64, f64),
}

fn train_with(prepared: &Prepared, hyper: &Hyper) -> Result<Trained, String> {
    let (train_named, train_labels) = prepared.part(Split::Train);
    let (dev_named, dev_labels) = prepared.part(Split::Dev);
    let vocab = Vocab::build(&train_named, hyper);
    let train = vocab.encode(&train_named, &train_labels, hyper);
    let dev = vocab.encode(&dev_named, &dev_labels, hyper);
    let params = fit(&train, vocab.names.len(), hyper, SEED);
    let temperature = fit_temperature(&scored(&params, &dev));
    let dev_raw = params.measure(&dev, temperature);
    let model = to_model(&params, &vocab, temperature, MODEL_VERSION, hyper)?;
    Ok(Trained {
        model,
        temperature,
        dev_raw,
    })
}

/// Folds of the cross-validation that calibrates the final model.
const FOLDS: usize = 5;

/// The final model: trained on train and dev together (hyperparameters were chosen on dev
/// with `tune`), its temperature fitted on out-of-fold logits of a `FOLDS`-fold
/// cross-validation over the same tasks. Returns it with the temperature and the
/// cross-validated accuracy.
fn train_final(prepared: &Prepared, hyper: &Hyper) -> Result<(TaskModel, f64, f64), String> {
    let (mut named, mut labels) = prepared.part(Split::Train);
    let (dev_named, dev_labels) = prepared.part(Split::Dev);
    named.extend(dev_named);
    labels.extend(dev_labels);
    // Fold of each task: a seeded shuffle of positions, dealt round-robin.
    let mut order: Vec<usize> = (0..named.len()).collect();
    let mut state = SEED ^ 0x5eed;
    for i in (1..order.len()).rev() {
        state = corpus::splitmix(state);
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let mut fold_of = vec![0usize; named.len()];
    for (position, index) in order.into_iter().enumerate() {
        fold_of[index] = position % FOLDS;
    }
    let single = Hyper { runs: 1, ..*hyper };
    let mut out_of_fold = Vec::with_capacity(named.len());
    for fold in 0..FOLDS {
        let pick = |keep: bool| {
            let mut n = Vec::new();
            let mut l = Vec::new();
            for (i, (features, label)) in named.iter().zip(&labels).enumerate() {
                if (fold_of[i] == fold) == keep {
                    n.push(features.clone());
                    l.push(*label);
                }
            }
            (n, l)
        };
        let (fit_named, fit_labels) = pick(false);
        let (held_named, held_labels) = pick(true);
        let vocab = Vocab::build(&fit_named, &single);
        let data = vocab.encode(&fit_named, &fit_labels, &single);
        let params = fit(&data, vocab.names.len(), &single, SEED + fold as u64);
        out_of_fold.extend(scored(
            &params,
            &vocab.encode(&held_named, &held_labels, &single),
        ));
    }
    let temperature = fit_temperature(&out_of_fold);
    let correct = out_of_fold
        .iter()
        .filter(|(z, label)| {
            let top = (0..z.len()).fold(0, |best, k| if z[k] > z[best] { k } else { best });
            top == *label
        })
        .count();
    let cv_accuracy = correct as f64 / out_of_fold.len().max(1) as f64;
    let vocab = Vocab::build(&named, hyper);
    let data = vocab.encode(&named, &labels, hyper);
    let params = fit(&data, vocab.names.len(), hyper, SEED);
    let model = to_model(&params, &vocab, temperature, MODEL_VERSION, hyper)?;
    Ok((model, temperature, cv_accuracy))
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn evaluate_with(model: &TaskModel, sha: &str, items: &[LabeledTask]) -> Evaluation {
    let classifier = Classifier::builtin().clone().with_model(
        model.clone(),
        ModelInfo {
            version: model.version().to_owned(),
            sha256: sha.to_owned(),
        },
    );
    evaluate(items, |task| classifier.classify(task))
}

fn summary_json(eval: &Evaluation) -> Value {
    let round = |v: f64| (v * 10_000.0).round() / 10_000.0;
    let groups = |groups: &[switchyard_core::routing::GroupAccuracy]| {
        groups
            .iter()
            .map(|g| {
                (
                    g.name.clone(),
                    json!({"total": g.total, "accuracy": g.accuracy.map(round)}),
                )
            })
            .collect::<serde_json::Map<String, Value>>()
    };
    json!({
        "total": eval.total,
        "accuracy": round(eval.accuracy),
        "perCategory": groups(&eval.categories),
        "perLanguage": groups(&eval.languages),
        "calibrationError": round(eval.calibration_error),
        "meanConfidence": round(eval.mean_confidence),
    })
}

fn print_eval(label: &str, eval: &Evaluation) {
    println!(
        "{label}: {:.2}% of {} (ECE {:.3}, mean confidence {:.3})",
        eval.accuracy * 100.0,
        eval.total,
        eval.calibration_error,
        eval.mean_confidence
    );
    for g in eval.categories.iter().chain(&eval.languages) {
        println!(
            "  {:<10} {:>4}  {:>6.2}%",
            g.name,
            g.total,
            g.accuracy.unwrap_or(0.0) * 100.0
        );
    }
}

fn run_train(dir: &Path) -> Result<(), String> {
    let prepared = Prepared::load(dir)?;
    let hyper = Hyper::default();
    // The train-only model, measured on dev (for reference: dev guided the corpus and the
    // hyperparameters, so its figures are optimistic).
    let reference = train_with(&prepared, &hyper)?;
    let dev = evaluate_with(&reference.model, "", &prepared.labeled(Split::Dev));
    let (model, temperature, cv_accuracy) = train_final(&prepared, &hyper)?;
    let bytes = model.to_bytes();
    let sha = sha256(&bytes);
    let test = evaluate_with(&model, &sha, &prepared.labeled(Split::Test));
    let corpus_bytes = std::fs::read(dir.join("corpus.jsonl")).map_err(|e| e.to_string())?;
    let count = |s: Split| prepared.items.iter().filter(|i| i.split == s).count();
    let manifest = json!({
        "$comment": "Written by `cargo run -p switchyard-classify-train --release -- train`; do not edit.",
        "version": MODEL_VERSION,
        "file": "model.bin",
        "sha256": sha,
        "bytes": bytes.len(),
        "features": model.feature_count(),
        "temperature": temperature,
        "seed": SEED,
        "trainedOn": "train+dev",
        "corpus": {
            "file": "corpus.jsonl",
            "sha256": sha256(&corpus_bytes),
            "train": count(Split::Train),
            "dev": count(Split::Dev),
            "test": count(Split::Test),
            "trainOnly": prepared.items.iter().filter(|i| i.train_only).count(),
        },
        "hyperparameters": {
            "epochs": hyper.epochs,
            "rate": hyper.rate,
            "l2": hyper.l2,
            "minDf": hyper.min_df,
            "minDfChars": hyper.min_df_chars,
            "prune": hyper.prune,
            "groupWeights": hyper.groups,
            "runs": hyper.runs,
            "cjkUnigrams": !hyper.no_cjk_unigrams,
        },
        "crossValidation": {
            "folds": FOLDS,
            "accuracy": (cv_accuracy * 10_000.0).round() / 10_000.0,
        },
        "devOfTrainOnlyModel": summary_json(&dev),
        "test": summary_json(&test),
    });
    let manifest_text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n";
    std::fs::write(dir.join("model.bin"), &bytes).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("model.json"), manifest_text).map_err(|e| e.to_string())?;
    println!(
        "model {MODEL_VERSION}: {} features, {} bytes, sha256 {sha}, temperature {temperature:.4} (cross-validated)",
        model.feature_count(),
        bytes.len(),
    );
    println!(
        "train {} / dev {} / test {}; {FOLDS}-fold accuracy over train+dev {:.2}%",
        count(Split::Train),
        count(Split::Dev),
        count(Split::Test),
        cv_accuracy * 100.0
    );
    print_eval("dev (train-only model)", &dev);
    print_eval("test", &test);
    Ok(())
}

fn tune(dir: &Path) -> Result<(), String> {
    let prepared = Prepared::load(dir)?;
    let dev_items = prepared.labeled(Split::Dev);
    let base = Hyper::default();
    let mut grid = vec![base];
    for groups in [
        [1.5, 1.5, 1.5, 1.0, 1.0],
        [2.0, 2.0, 2.0, 1.0, 1.0],
        [2.0, 1.0, 2.0, 1.0, 1.0],
        [1.5, 1.0, 1.5, 1.0, 0.5],
    ] {
        grid.push(Hyper { groups, ..base });
    }
    for epochs in [20, 45] {
        grid.push(Hyper { epochs, ..base });
    }
    for hyper in grid {
        let trained = train_with(&prepared, &hyper)?;
        let eval = evaluate_with(&trained.model, "", &dev_items);
        let worst = eval
            .categories
            .iter()
            .chain(&eval.languages)
            .filter_map(|g| g.accuracy)
            .fold(1.0f64, f64::min);
        println!(
            "runs {} groups {:?} uni {} l2 {:<7} rate {:<4} epochs {:<3} minDf {} chars {}: dev {:.2}% (worst slice {:.2}%), nll {:.4}, T {:.3}, {} features",
            hyper.runs,
            hyper.groups,
            !hyper.no_cjk_unigrams,
            hyper.l2,
            hyper.rate,
            hyper.epochs,
            hyper.min_df,
            hyper.min_df_chars,
            eval.accuracy * 100.0,
            worst * 100.0,
            trained.dev_raw.1,
            trained.temperature,
            trained.model.feature_count()
        );
    }
    Ok(())
}

fn errors(dir: &Path, split: &str, fresh: bool) -> Result<(), String> {
    let split = Split::parse(split).ok_or("the split is train, dev or test")?;
    let prepared = Prepared::load(dir)?;
    let items = prepared.labeled(split);
    let classifier = if fresh {
        let trained = train_with(&prepared, &Hyper::default())?;
        Classifier::builtin().clone().with_model(
            trained.model,
            ModelInfo {
                version: MODEL_VERSION.to_owned(),
                sha256: String::new(),
            },
        )
    } else {
        Classifier::builtin().clone()
    };
    let eval = evaluate(&items, |task| classifier.classify(task));
    print_eval("committed model", &eval);
    for miss in &eval.errors {
        let answer = classifier.classify(&miss.task);
        let features: Vec<String> = answer
            .features
            .iter()
            .take(5)
            .map(|f| format!("{} {:+.2}", f.feature, f.weight))
            .collect();
        println!(
            "[{} → {} {:.2}] {}\n    {}",
            miss.expected.id(),
            miss.predicted.id(),
            miss.confidence,
            miss.task.replace('\n', " ⏎ "),
            features.join(", ")
        );
    }
    Ok(())
}
