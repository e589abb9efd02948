//! `switchyard outcomes`: what happened to finished attempts and run nodes, and
//! `outcomes eval`, the failure predictor measured on an outcome table.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use switchyard_core::catalog::card::Category;
use switchyard_core::error::ErrorCode;
use switchyard_core::outcomes::{
    evaluate_outcomes, outcomes_csv, read_outcome_csv, OutcomeError, OutcomeEval, OutcomeFilter,
    OutcomeRecord, DEFAULT_SEED, DEFAULT_TRAIN_FRACTION,
};
use switchyard_core::routing::{AgentPreference, LearningSettings};
use switchyard_engine::Engine;

use crate::output::{print, CliError};

#[derive(Debug, Args)]
pub struct OutcomesArgs {
    #[command(subcommand)]
    pub command: Option<OutcomesCommand>,
    #[command(flatten)]
    pub filter: OutcomeFilterArgs,
}

/// Filters of the recorded outcomes (all optional; they combine).
#[derive(Debug, Args)]
pub struct OutcomeFilterArgs {
    /// Only this task category: coding, reasoning, math, creative, vision, research,
    /// fast-cheap or general.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this model (catalog id) or worker (claude, codex, …).
    #[arg(long)]
    pub model: Option<String>,
    /// Only work launched by this agent (an MCP client's name), `cli` or `desktop`.
    #[arg(long)]
    pub launcher: Option<String>,
    /// Write the outcomes as CSV to this file instead of printing them.
    #[arg(long, value_name = "FILE.csv")]
    pub csv: Option<PathBuf>,
    /// At most this many (newest first).
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum OutcomesCommand {
    /// Train the cheap-rung failure predictor from scratch on the seeded train part of an
    /// outcome table and score it on the rest: APGR and CPT(50 %), CPT(80 %), the way
    /// RouteLLM scores routers. Columns `prompt`, `weak_correct`, `strong_correct`
    /// (True/False); other columns are ignored — the predictor sees only the prompt.
    Eval {
        /// The outcome table.
        file: PathBuf,
        /// Seed of the train/test split and the training order.
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        /// Share of rows trained on (above 0, below 1).
        #[arg(long, default_value_t = DEFAULT_TRAIN_FRACTION)]
        train_fraction: f64,
    },
    /// What routing learns from: outcomes counted since the last reset, and the estimate
    /// below which a routed cascade skips a rung. With `--skip-below X` (0–1, 0 = never
    /// skip), sets the threshold first.
    Learning {
        #[arg(long, value_name = "ESTIMATE")]
        skip_below: Option<f64>,
    },
    /// Forget what routing learned: outcomes recorded until now stop moving picks and
    /// cascades (they stay in the journal and in this list).
    Reset,
    /// Each agent's routing preferences: its own outcomes (which weigh double in what it
    /// routes) and the model its runs start with when they name none. With `--agent A
    /// --start-model M` sets it first; `--agent A --clear` removes it.
    Agents {
        #[arg(long)]
        agent: Option<String>,
        #[arg(
            long,
            value_name = "MODEL",
            requires = "agent",
            conflicts_with = "clear"
        )]
        start_model: Option<String>,
        #[arg(long, requires = "agent")]
        clear: bool,
    },
}

/// `outcomes eval`: needs no profile, database or keychain.
pub fn eval(file: &Path, seed: u64, train_fraction: f64, json: bool) -> Result<ExitCode, CliError> {
    let reader = std::fs::File::open(file).map_err(|err| CliError {
        code: if err.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::NotFound
        } else {
            ErrorCode::Io
        },
        message: format!("cannot read {}: {err}", file.display()),
    })?;
    let rows = read_outcome_csv(std::io::BufReader::new(reader)).map_err(invalid)?;
    let result = evaluate_outcomes(&rows, seed, train_fraction).map_err(invalid)?;
    print(&result, json, eval_text)
}

fn invalid(err: OutcomeError) -> CliError {
    CliError::invalid(err.to_string())
}

fn eval_text(e: &OutcomeEval) -> String {
    let figure = |value: Option<f64>| value.map_or_else(|| "—".to_owned(), |v| format!("{v:.3}"));
    format!(
        "trained on {} prompts, tested on {} (seed {}, train fraction {})\n\
         weak model accuracy {:.1}%, strong model accuracy {:.1}%\n\
         APGR {} (random ≈ 0.5)\n\
         strong share needed for 50% of the gap {}, for 80% {}",
        e.n_train,
        e.n_test,
        e.seed,
        e.train_fraction,
        e.weak_accuracy * 100.0,
        e.strong_accuracy * 100.0,
        figure(e.apgr),
        figure(e.cpt50),
        figure(e.cpt80),
    )
}

/// `outcomes [--category C] [--model M] [--launcher L] [--csv FILE]`.
pub async fn list(
    engine: &Engine,
    args: OutcomeFilterArgs,
    json: bool,
) -> Result<ExitCode, CliError> {
    let category = match args.category.as_deref() {
        Some(text) => Some(Category::parse(text.trim()).ok_or_else(|| {
            CliError::invalid(format!(
                "unknown category `{text}`: use coding, reasoning, math, creative, vision, \
                 research, fast-cheap or general"
            ))
        })?),
        None => None,
    };
    let filter = OutcomeFilter {
        category,
        model: args.model.map(|m| m.trim().to_owned()),
        launcher: args.launcher.map(|l| l.trim().to_owned()),
    };
    let records = engine.outcomes(&filter, args.limit).await?;
    if let Some(path) = args.csv {
        let text = outcomes_csv(&records).map_err(CliError::internal)?;
        std::fs::write(&path, text).map_err(|err| CliError {
            code: ErrorCode::Io,
            message: format!("cannot write {}: {err}", path.display()),
        })?;
        let written = serde_json::json!({ "path": path, "count": records.len() });
        return print(&written, json, |_| {
            format!("{} outcomes written to {}", records.len(), path.display())
        });
    }
    print(&records, json, |records| list_text(records))
}

fn list_text(records: &[OutcomeRecord]) -> String {
    if records.is_empty() {
        return "no outcomes yet: they are recorded when an attempt or a run node finishes".into();
    }
    let mut text = format!(
        "{:<28} {:<10} {:<32} {:<10} {:>9} {:>8}\n",
        "id", "category", "model or worker", "outcome", "cost", "launcher"
    );
    for r in records {
        let who = r.model.as_deref().or(r.worker.as_deref()).unwrap_or("—");
        let outcome = if r.succeeded { "succeeded" } else { "failed" };
        text.push_str(&format!(
            "{:<28} {:<10} {:<32} {:<10} {:>9} {:>8}\n",
            r.id,
            r.task.category.id(),
            who,
            outcome,
            format!("${:.4}", r.cost_usd),
            r.launcher
        ));
    }
    text
}

/// `outcomes learning [--skip-below X]`: `{since, skipBelow, outcomes, estimates}`.
pub async fn learning(
    engine: &Engine,
    skip_below: Option<f64>,
    json: bool,
) -> Result<ExitCode, CliError> {
    let settings = match skip_below {
        Some(value) => engine.set_skip_below(value).await?,
        None => engine.learning_settings().await?,
    };
    print(&settings, json, learning_text)
}

/// `outcomes reset`: the settings after the reset.
pub async fn reset(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let settings = engine.reset_learning().await?;
    print(&settings, json, learning_text)
}

fn learning_text(s: &LearningSettings) -> String {
    let since = match &s.since {
        Some(at) => format!("since a reset at {at}"),
        None => "since the first one (never reset)".to_owned(),
    };
    let skip = if s.skip_below > 0.0 {
        format!(
            "a routed cascade skips rungs estimated below {}",
            s.skip_below
        )
    } else {
        "cascades never skip rungs".to_owned()
    };
    let mut text = format!("learning from {} outcomes {since}; {skip}", s.outcomes);
    let usd = |v: Option<f64>| v.map_or_else(|| "unknown".to_owned(), |v| format!("${v:.4}"));
    if s.savings.outcomes > 0 {
        text.push_str(&format!(
            "\nthey cost ${:.4}; the same tokens on the static picks {}, on the premium baseline {}",
            s.savings.cost_usd,
            usd(s.savings.static_usd),
            usd(s.savings.premium_usd)
        ));
    }
    for e in &s.estimates {
        text.push_str(&format!(
            "\n  {:<10} {:<40} {} → {:.2} (prior {:.2})",
            e.category.id(),
            e.model,
            e.evidence.describe(e.category),
            e.evidence.estimate,
            e.evidence.prior
        ));
    }
    text
}

/// `outcomes agents [--agent A (--start-model M | --clear)]`: `[{agent, startModel, outcomes,
/// succeeded}]`.
pub async fn agents(
    engine: &Engine,
    agent: Option<String>,
    start_model: Option<String>,
    clear: bool,
    json: bool,
) -> Result<ExitCode, CliError> {
    let list = match agent {
        Some(agent) if clear || start_model.is_some() => {
            engine
                .set_agent_start_model(&agent, start_model.as_deref())
                .await?
        }
        Some(_) => {
            return Err(CliError::invalid(
                "--agent takes --start-model MODEL or --clear".into(),
            ))
        }
        None => engine.agent_preferences().await?,
    };
    print(&list, json, |list| agents_text(list))
}

fn agents_text(list: &[AgentPreference]) -> String {
    if list.is_empty() {
        return "no agent has launched work yet".into();
    }
    list.iter()
        .map(|a| {
            format!(
                "{:<24} {} of {} succeeded; starts with {}",
                a.agent,
                a.succeeded,
                a.outcomes,
                a.start_model.as_deref().unwrap_or("the routed model")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
