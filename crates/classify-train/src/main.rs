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
use train::{class_of, fit, fit_temperature, to_model, Hyper, Named, Vocab};

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
        Command::Errors { split } => errors(&dir, split),
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
    let temperature = fit_temperature(&params, &dev);
    let dev_raw = params.measure(&dev, temperature);
    let model = to_model(&params, &vocab, temperature, MODEL_VERSION, hyper)?;
    Ok(Trained {
        model,
        temperature,
        dev_raw,
    })
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
    let trained = train_with(&prepared, &hyper)?;
    let bytes = trained.model.to_bytes();
    let sha = sha256(&bytes);
    let dev = evaluate_with(&trained.model, &sha, &prepared.labeled(Split::Dev));
    let test = evaluate_with(&trained.model, &sha, &prepared.labeled(Split::Test));
    let corpus_bytes = std::fs::read(dir.join("corpus.jsonl")).map_err(|e| e.to_string())?;
    let count = |s: Split| prepared.items.iter().filter(|i| i.split == s).count();
    let manifest = json!({
        "$comment": "Written by `cargo run -p switchyard-classify-train --release -- train`; do not edit.",
        "version": MODEL_VERSION,
        "file": "model.bin",
        "sha256": sha,
        "bytes": bytes.len(),
        "features": trained.model.feature_count(),
        "temperature": trained.temperature,
        "seed": SEED,
        "corpus": {
            "file": "corpus.jsonl",
            "sha256": sha256(&corpus_bytes),
            "train": count(Split::Train),
            "dev": count(Split::Dev),
            "test": count(Split::Test),
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
        "dev": summary_json(&dev),
        "test": summary_json(&test),
    });
    let manifest_text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n";
    std::fs::write(dir.join("model.bin"), &bytes).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("model.json"), manifest_text).map_err(|e| e.to_string())?;
    println!(
        "model {MODEL_VERSION}: {} features, {} bytes, sha256 {sha}, temperature {:.4}",
        trained.model.feature_count(),
        bytes.len(),
        trained.temperature
    );
    println!(
        "train {} / dev {} / test {}",
        count(Split::Train),
        count(Split::Dev),
        count(Split::Test)
    );
    print_eval("dev", &dev);
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

fn errors(dir: &Path, split: &str) -> Result<(), String> {
    let split = Split::parse(split).ok_or("the split is train, dev or test")?;
    let prepared = Prepared::load(dir)?;
    let items = prepared.labeled(split);
    let classifier = Classifier::builtin();
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
