//! `classify`, `pick`, `recommend`, `plan` and `rate`: routing a task from the command line.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use switchyard_core::catalog::card::Category;
use switchyard_core::routing::plan::{Plan, PlanMode};
use switchyard_core::routing::{
    BudgetTier, Classification, Evaluation, Pick, PlanTaskRequest, RankedModel, RouteTaskRequest,
};
use switchyard_core::run::launcher_from_env;
use switchyard_engine::Engine;

use crate::output::{print, CliError};

/// What `pick` and `recommend` take besides the task.
#[derive(Args)]
pub struct RouteArgs {
    /// The task, in words.
    task: String,
    /// low ($0–1/M), medium ($0–5/M, default), high ($2–20/M) or any; prices are blended
    /// USD per million tokens, 3 input : 1 output, as everywhere in Switchyard.
    #[arg(long, default_value = "medium")]
    budget: String,
    /// Highest blended USD per million tokens (3 input : 1 output), on top of the budget.
    #[arg(long)]
    max_price: Option<f64>,
    /// Needs on top of the task's own (comma-separated): vision, tools, structured-output,
    /// long-context[=tokens].
    #[arg(long = "need", value_delimiter = ',')]
    needs: Vec<String>,
    /// Choose among all models, not only those with a key, a local server or OpenRouter.
    #[arg(long)]
    any_provider: bool,
}

impl RouteArgs {
    fn request(self) -> Result<RouteTaskRequest, CliError> {
        Ok(RouteTaskRequest {
            budget: budget(&self.budget)?,
            task: self.task,
            max_price: self.max_price,
            needs: self.needs,
            any_provider: self.any_provider,
            launcher: Some(launcher_from_env(
                std::env::var("PARENT_AGENT").ok().as_deref(),
                "cli",
            )),
        })
    }
}

/// What `plan` takes.
#[derive(Args)]
pub struct PlanArgs {
    /// The task, in words (numbered lists, bullets and "then" split it into steps).
    task: String,
    /// plan (sequential steps) or swarm (a DAG whose independent steps run in parallel).
    #[arg(long, default_value = "plan")]
    mode: String,
    /// low, medium (default), high or any; step words may nudge it one tier.
    #[arg(long, default_value = "medium")]
    budget: String,
    /// Highest blended USD per million tokens (3 input : 1 output) for every step.
    #[arg(long)]
    max_price: Option<f64>,
    /// Choose among all models, not only those with a key, a local server or OpenRouter.
    #[arg(long)]
    any_provider: bool,
    /// deterministic (default) or model: a model proposes the plan, checked against a schema;
    /// an unusable answer falls back to the deterministic planner with a warning.
    #[arg(long, default_value = "deterministic")]
    planner: String,
    /// The planner model (`ollama:qwen3`, `openai/gpt-5-mini`); chosen when absent.
    #[arg(long)]
    planner_model: Option<String>,
}

/// `switchyard pick --json`: the pick's fields at the top level, plus its id and the
/// classification it was made from.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PickOutput {
    #[serde(flatten)]
    pick: Pick,
    pick_id: u32,
    classification: Classification,
}

/// `switchyard classify "<task>"`.
pub async fn classify(engine: &Engine, task: &str, json: bool) -> Result<ExitCode, CliError> {
    let classification = engine.classify_task(task).await?;
    print(&classification, json, |c| {
        let features: Vec<String> = c
            .features
            .iter()
            .map(|f| format!("{} {:+.2}", f.feature, f.weight))
            .collect();
        let mut line = format!(
            "{} (confidence {:.2}){}",
            c.category.id(),
            c.confidence,
            if features.is_empty() {
                String::new()
            } else {
                format!(" — {}", features.join(", "))
            }
        );
        if let Some(assist) = &c.assist {
            line.push_str(&format!(
                "\ndecided by {}{}; the classifier said {} ({:.2})",
                assist.model,
                if assist.cached { " (cached)" } else { "" },
                assist.local_category.id(),
                assist.local_confidence
            ));
        }
        line
    })
}

/// `switchyard classify --eval FILE.tsv`.
pub async fn evaluate(engine: &Engine, path: &Path, json: bool) -> Result<ExitCode, CliError> {
    let evaluation = engine.evaluate_classifier(path).await?;
    print(&evaluation, json, evaluation_text)
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

fn evaluation_text(e: &Evaluation) -> String {
    let mut text = format!(
        "accuracy {} ({} of {}), calibration error {:.3}\n",
        percent(Some(e.accuracy)),
        e.correct,
        e.total,
        e.calibration_error
    );
    text.push_str("\ncategory       n   accuracy  precision\n");
    for g in &e.categories {
        text.push_str(&format!(
            "{:<12} {:>4}  {:>9}  {:>9}\n",
            g.name,
            g.total,
            percent(g.accuracy),
            percent(g.precision)
        ));
    }
    text.push_str("\nlanguage       n   accuracy\n");
    for g in &e.languages {
        text.push_str(&format!(
            "{:<12} {:>4}  {:>9}\n",
            g.name,
            g.total,
            percent(g.accuracy)
        ));
    }
    text.push_str("\nconfusion (rows: labeled, columns: predicted)\n            ");
    let short = |c: &Category| c.id().chars().take(5).collect::<String>();
    for label in &e.confusion.labels {
        text.push_str(&format!("{:>6}", short(label)));
    }
    for (label, row) in e.confusion.labels.iter().zip(&e.confusion.rows) {
        text.push_str(&format!("\n{:<12}", label.id()));
        for count in row {
            text.push_str(&format!("{count:>6}"));
        }
    }
    text
}

/// `switchyard pick "<task>" …`.
pub async fn pick(engine: &Engine, args: RouteArgs, json: bool) -> Result<ExitCode, CliError> {
    let answer = engine.pick_model(args.request()?).await?;
    let output = PickOutput {
        pick: answer.pick,
        pick_id: answer.pick_id,
        classification: answer.classification,
    };
    print(&output, json, |o| {
        let mut text = format!("{} ({})\n{}", o.pick.name, o.pick.id, o.pick.reason.text);
        if let Some(worker) = &o.pick.worker {
            text.push_str(&format!("\nworker: {} ({})", worker.worker, worker.reason));
        }
        if !o.pick.alternatives.is_empty() {
            text.push_str("\nalternatives:");
            for alternative in &o.pick.alternatives {
                text.push_str(&format!("\n  {}", ranked_line(alternative)));
            }
        }
        text
    })
}

/// `switchyard recommend "<task>" --count N`.
pub async fn recommend(
    engine: &Engine,
    args: RouteArgs,
    count: u32,
    json: bool,
) -> Result<ExitCode, CliError> {
    let recommendation = engine.recommend_models(args.request()?, count).await?;
    print(&recommendation, json, |r| {
        r.models
            .iter()
            .map(|m| {
                let worker = m
                    .worker
                    .as_ref()
                    .map(|w| format!(" — worker {}", w.worker))
                    .unwrap_or_default();
                format!("{}. {}{worker}", m.reason.rank, ranked_line(m))
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// `switchyard plan "<task>" --mode plan|swarm [--planner model [--planner-model ID]]`.
pub async fn plan(engine: &Engine, args: PlanArgs, json: bool) -> Result<ExitCode, CliError> {
    let mode = match args.mode.trim().to_ascii_lowercase().as_str() {
        "plan" | "sequential" => PlanMode::Plan,
        "swarm" | "dag" => PlanMode::Swarm,
        other => {
            return Err(CliError::invalid(format!(
                "unknown mode {other:?} (plan or swarm)"
            )))
        }
    };
    let use_model_planner = match args.planner.trim() {
        "model" => true,
        "deterministic" => false,
        other => {
            return Err(CliError::invalid(format!(
                "unknown planner {other:?} (deterministic or model)"
            )))
        }
    };
    let request = PlanTaskRequest {
        budget: budget(&args.budget)?,
        task: args.task,
        mode,
        max_price: args.max_price,
        any_provider: args.any_provider,
        use_model_planner,
        planner_model: args.planner_model,
    };
    let plan = engine.plan_task(request).await?;
    print(&plan, json, plan_text)
}

/// `switchyard rate <model> <category> <1-5>`.
pub async fn rate(
    engine: &Engine,
    model: &str,
    category: &str,
    rating: u8,
    json: bool,
) -> Result<ExitCode, CliError> {
    let category = Category::parse(category).ok_or_else(|| {
        CliError::invalid(format!(
            "unknown category {category:?} (coding, reasoning, math, creative, vision, \
             research, fast-cheap, general)"
        ))
    })?;
    let summary = engine.rate_model(model, category, rating).await?;
    print(&summary, json, |s| {
        format!(
            "{model} in {}: {} rating(s), mean {:.2}",
            category.id(),
            s.count,
            s.mean
        )
    })
}

fn budget(text: &str) -> Result<BudgetTier, CliError> {
    BudgetTier::parse(text).ok_or_else(|| {
        CliError::invalid(format!(
            "unknown budget {text:?} (low, medium, high or any)"
        ))
    })
}

fn ranked_line(model: &RankedModel) -> String {
    let price = model.reason.cost_per_success.map_or_else(
        || "price ?".to_owned(),
        |c| format!("${c:.2}/M per verified success"),
    );
    let total = model.evidence.successes + model.evidence.failures;
    let outcomes = if total == 0 {
        String::new()
    } else {
        format!(", {} of {total} verified", model.evidence.successes)
    };
    format!(
        "{} ({}) score {:.1}, {price}{outcomes}",
        model.name, model.id, model.score
    )
}

fn plan_text(plan: &Plan) -> String {
    let mut lines: Vec<String> = plan
        .steps()
        .iter()
        .map(|step| {
            let after = if step.depends_on.is_empty() {
                String::new()
            } else {
                format!(" after {}", step.depends_on.join(", "))
            };
            format!(
                "[wave {}] {} {} ({}, {}) → {}{after}",
                step.wave.map_or_else(|| "?".to_owned(), |w| w.to_string()),
                step.id,
                step.task,
                step.category.id(),
                step.budget.tier.id(),
                step.model.as_deref().unwrap_or("no model"),
            )
        })
        .collect();
    lines.extend(plan.warnings().iter().map(|w| format!("warning: {w}")));
    lines.join("\n")
}
