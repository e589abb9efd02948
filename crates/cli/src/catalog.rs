//! `models`, `model`, `compare` and `catalog status|refresh|match|build-snapshot`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;
use switchyard_core::catalog::card::{Category, ModelCard, Tag, Tier};
use switchyard_core::catalog::matching::{MatchOverride, MatchRule, OverrideAction};
use switchyard_core::catalog::query::{ModelQuery, SortKey};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::scoring::ScoreBreakdown;
use switchyard_core::catalog::view::ModelDetail;
use switchyard_core::catalog::view::RefreshProgress;
use switchyard_engine::Engine;

use crate::output::{print, CliError};

/// Filters and sort of `switchyard models`.
#[derive(Args)]
pub struct ModelsArgs {
    /// coding, reasoning, math, creative, vision, research, fast-cheap, general.
    #[arg(long)]
    category: Option<String>,
    /// premium, standard or budget.
    #[arg(long)]
    tier: Option<String>,
    /// Required tags (repeat or comma-separate): fast, vision, reasoning, tools, free, local, …
    #[arg(long, value_delimiter = ',')]
    tag: Vec<String>,
    /// Only these providers (comma-separated vendor slugs).
    #[arg(long, value_delimiter = ',')]
    provider: Vec<String>,
    /// Highest blended price per million tokens (3 input : 1 output), as the budget tiers
    /// and `pick --max-price` use it.
    #[arg(long)]
    max_price: Option<f64>,
    /// Least context length in tokens.
    #[arg(long)]
    min_context: Option<u32>,
    /// Words that must all occur in the id, name or provider.
    #[arg(long)]
    search: Option<String>,
    /// score, price, efficiency, context or speed.
    #[arg(long, default_value = "score")]
    sort: String,
    /// Reverse the sort's natural direction.
    #[arg(long)]
    reverse: bool,
    #[arg(long)]
    limit: Option<u32>,
}

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// Per-source dates, counts, errors and unmatched records.
    Status,
    /// Refresh every source from the network, or from a folder laid out like the corpus.
    /// A source answering with zero records, or fewer than half its previous count, is held
    /// back (the previous data stays; exit 3); `catalog accept` applies it anyway.
    Refresh {
        /// DIR/openrouter/*.json, DIR/artificial-analysis/*.json, DIR/hf-open-llm-leaderboard/*.csv,
        /// DIR/lmarena/*.json|*.csv, DIR/livebench/*.csv|*.json; newest file per source wins.
        #[arg(long)]
        from: Option<PathBuf>,
    },
    /// Apply a snapshot that a refresh held back (zero records, or a drop of more than half),
    /// without refetching.
    Accept {
        /// openrouter, artificial-analysis, hf-open-llm-leaderboard, lmarena or livebench.
        source: String,
    },
    /// Tie a source record to a model (or, with --remove, refuse that match).
    Match {
        /// artificial-analysis, hf-open-llm-leaderboard, lmarena or livebench.
        source: String,
        /// The record's name in its source.
        record: String,
        /// The catalog model id.
        model: String,
        #[arg(long)]
        remove: bool,
        /// Forget a stored correction instead of adding one.
        #[arg(long, conflicts_with = "remove")]
        clear: bool,
    },
    /// Parse a corpus-like folder into the bundled snapshot format (for maintainers).
    #[command(hide = true)]
    BuildSnapshot {
        #[arg(long)]
        from: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
}

fn parse_with<T>(text: &str, what: &str, options: &[(&str, T)]) -> Result<T, CliError>
where
    T: Copy,
{
    let key: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    options
        .iter()
        .find(|(name, _)| {
            name.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                == key
        })
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            CliError::invalid(format!(
                "unknown {what} '{text}'; one of: {}",
                names.join(", ")
            ))
        })
}

const TIERS: [(&str, Tier); 3] = [
    ("premium", Tier::Premium),
    ("standard", Tier::Standard),
    ("budget", Tier::Budget),
];
const TAGS: [(&str, Tag); 9] = [
    ("fast", Tag::Fast),
    ("slow", Tag::Slow),
    ("vision", Tag::Vision),
    ("reasoning", Tag::Reasoning),
    ("tools", Tag::Tools),
    ("structured-output", Tag::StructuredOutput),
    ("long-context", Tag::LongContext),
    ("free", Tag::Free),
    ("local", Tag::Local),
];
const SOURCES: [(&str, SourceId); 5] = [
    ("openrouter", SourceId::OpenRouter),
    ("artificial-analysis", SourceId::ArtificialAnalysis),
    ("hf-open-llm-leaderboard", SourceId::HfLeaderboard),
    ("lmarena", SourceId::LmArena),
    ("livebench", SourceId::LiveBench),
];

pub fn parse_category(text: &str) -> Result<Category, CliError> {
    Category::parse(text).ok_or_else(|| {
        let names: Vec<&str> = Category::ALL.iter().map(|c| c.id()).collect();
        CliError::invalid(format!(
            "unknown category '{text}'; one of: {}",
            names.join(", ")
        ))
    })
}

fn query(args: ModelsArgs) -> Result<ModelQuery, CliError> {
    let sort = SortKey::parse(&args.sort).ok_or_else(|| {
        CliError::invalid(format!(
            "unknown sort '{}'; one of: score, price, efficiency, context, speed",
            args.sort
        ))
    })?;
    let tags = args
        .tag
        .iter()
        .map(|t| parse_with(t, "tag", &TAGS))
        .collect::<Result<_, _>>()?;
    Ok(ModelQuery {
        search: args.search,
        category: args.category.as_deref().map(parse_category).transpose()?,
        tier: args
            .tier
            .as_deref()
            .map(|t| parse_with(t, "tier", &TIERS))
            .transpose()?,
        tags,
        providers: args.provider,
        max_price: args.max_price,
        min_context: args.min_context,
        sort,
        descending: sort.natural_descending() != args.reverse,
        limit: args.limit,
    })
}

pub async fn models(engine: &Engine, args: ModelsArgs, json: bool) -> Result<ExitCode, CliError> {
    let query = query(args)?;
    let category = query.category;
    let models = engine.models(&query).await?;
    print(&models, json, |models| {
        models
            .iter()
            .map(|m| {
                let score = category
                    .and_then(|c| m.categories.get(&c))
                    .or_else(|| m.categories.get(&Category::General))
                    .map_or("   –".to_owned(), |s| format!("{:4.0}", s.score));
                let price = m
                    .blended_per_m
                    .map_or("      ?".to_owned(), |p| format!("{p:7.2}"));
                format!("{score}  ${price}/M  {:<48} {}", m.id, m.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// `switchyard model <id> --json`: the card in the CLI's documented shape.
#[derive(Serialize)]
struct CliModel<'a> {
    id: &'a str,
    name: &'a str,
    provider: &'a str,
    pricing: CliPricing,
    context_length: Option<u32>,
    tier: Tier,
    tags: &'a [Tag],
    categories:
        &'a std::collections::BTreeMap<Category, switchyard_core::catalog::card::CategoryScore>,
    efficiency: &'a std::collections::BTreeMap<Category, f64>,
    benchmarks: Vec<CliBenchmark<'a>>,
    matches: Vec<CliMatch<'a>>,
    variants: &'a [String],
    output_speed: Option<f64>,
    created: Option<&'a str>,
    /// Each category score taken apart (`model` and `catalog match`; not `compare`).
    #[serde(skip_serializing_if = "Option::is_none")]
    breakdown: Option<&'a [ScoreBreakdown]>,
}

#[derive(Serialize)]
struct CliPricing {
    prompt_per_m: Option<f64>,
    completion_per_m: Option<f64>,
}

#[derive(Serialize)]
struct CliBenchmark<'a> {
    source: SourceId,
    metric: &'a str,
    raw: f64,
    normalized: Option<f64>,
}

#[derive(Serialize)]
struct CliMatch<'a> {
    source: SourceId,
    name: &'a str,
    rule: MatchRule,
    primary: bool,
}

fn cli_model(card: &ModelCard) -> CliModel<'_> {
    CliModel {
        id: &card.id,
        name: &card.name,
        provider: &card.provider,
        pricing: CliPricing {
            prompt_per_m: card.pricing.prompt_per_m,
            completion_per_m: card.pricing.completion_per_m,
        },
        context_length: card.context_length,
        tier: card.tier,
        tags: &card.tags,
        categories: &card.categories,
        efficiency: &card.efficiency,
        benchmarks: card
            .benchmarks
            .iter()
            .map(|b| CliBenchmark {
                source: b.source,
                metric: &b.metric,
                raw: b.raw,
                normalized: b.normalized,
            })
            .collect(),
        matches: card
            .matches
            .iter()
            .map(|m| CliMatch {
                source: m.source,
                name: &m.name,
                rule: m.rule,
                primary: m.primary,
            })
            .collect(),
        variants: &card.variants,
        output_speed: card.output_speed,
        created: card.created.as_deref(),
        breakdown: None,
    }
}

fn cli_model_detail(detail: &ModelDetail) -> CliModel<'_> {
    CliModel {
        breakdown: Some(&detail.breakdown),
        ..cli_model(&detail.card)
    }
}

fn describe(card: &ModelCard) -> String {
    let mut lines = vec![format!("{} ({})", card.name, card.id)];
    for (category, score) in &card.categories {
        lines.push(format!(
            "  {:<10} {:5.1}  coverage {:3.0}%",
            category.id(),
            score.score,
            score.coverage * 100.0
        ));
    }
    lines.join("\n")
}

pub async fn model(engine: &Engine, id: &str, json: bool) -> Result<ExitCode, CliError> {
    let detail = engine.model_detail(id).await?;
    print(&cli_model_detail(&detail), json, |_| describe(&detail.card))
}

pub async fn compare(engine: &Engine, ids: Vec<String>, json: bool) -> Result<ExitCode, CliError> {
    let cards = engine.compare(&ids).await?;
    let view: Vec<CliModel<'_>> = cards.iter().map(cli_model).collect();
    print(&view, json, |_| {
        cards.iter().map(describe).collect::<Vec<_>>().join("\n\n")
    })
}

pub async fn catalog(
    engine: &Engine,
    command: CatalogCommand,
    json: bool,
) -> Result<ExitCode, CliError> {
    match command {
        CatalogCommand::Status => {
            let status = engine.catalog_status().await?;
            print(&status, json, |s| {
                let mut lines = vec![format!(
                    "{} models, snapshot {}",
                    s.model_count,
                    s.snapshot_date.as_deref().unwrap_or("none")
                )];
                for held in &s.held {
                    lines.push(format!(
                        "  {}: {} (switchyard catalog accept {})",
                        held.source.title(),
                        held.message,
                        held.source.folder()
                    ));
                }
                for source in &s.sources {
                    lines.push(format!(
                        "  {:<24} {:>5} records {:>4} matched {:>5} unmatched {}{}",
                        source.source.title(),
                        source.records,
                        source.matched,
                        source.unmatched,
                        source.data_date.as_deref().unwrap_or("-"),
                        source
                            .error
                            .as_deref()
                            .map(|e| format!("  error: {e}"))
                            .unwrap_or_default()
                    ));
                }
                lines.join("\n")
            })
        }
        CatalogCommand::Refresh { from } => {
            let progress = |p: RefreshProgress| {
                tracing::info!(source = ?p.source, stage = ?p.stage, message = ?p.message, "refresh");
            };
            let report = match from {
                Some(dir) => engine.refresh_catalog_from_dir(&dir, &progress).await?,
                None => engine.refresh_catalog_from_network(&progress).await?,
            };
            let failed = report.sources.iter().any(|s| s.error.is_some());
            print(&report, json, |r| {
                r.sources
                    .iter()
                    .map(|s| match (&s.error, s.held) {
                        (Some(e), Some(_)) => format!(
                            "{:<24} {e} (switchyard catalog accept {})",
                            s.source.title(),
                            s.source.folder()
                        ),
                        (Some(e), None) => format!("{:<24} failed: {e}", s.source.title()),
                        (None, _) => format!(
                            "{:<24} {} records, {} matched, {} unmatched, {} skipped",
                            s.source.title(),
                            s.records,
                            s.matched,
                            s.unmatched,
                            s.skipped
                        ),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
            // Partial failure (or a held-back source) is still a refresh: failed sources keep
            // their last snapshot. Scripts can tell: exit 3.
            Ok(if failed {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            })
        }
        CatalogCommand::Accept { source } => {
            let source = parse_with(&source, "source", &SOURCES)?;
            let status = engine.accept_held_snapshot(source).await?;
            print(&status, json, |s| {
                let row = s.sources.iter().find(|row| row.source == source);
                format!(
                    "{}: {} records in use; {} models",
                    source.title(),
                    row.map_or(0, |r| r.records),
                    s.model_count
                )
            })
        }
        CatalogCommand::Match {
            source,
            record,
            model,
            remove,
            clear,
        } => {
            let source = parse_with(&source, "source", &SOURCES)?;
            if clear {
                let existed = engine.clear_match_override(source, &record, &model).await?;
                return print(&serde_json::json!({ "cleared": existed }), json, |_| {
                    if existed {
                        "correction removed".into()
                    } else {
                        "no such correction".into()
                    }
                });
            }
            let action = if remove {
                OverrideAction::Remove
            } else {
                OverrideAction::Add
            };
            let detail = engine
                .set_match_override(MatchOverride {
                    source,
                    key: record,
                    model_id: model,
                    action,
                })
                .await?;
            print(&cli_model_detail(&detail), json, |_| describe(&detail.card))
        }
        CatalogCommand::BuildSnapshot { from, out } => {
            let bundle = engine.build_snapshot_bundle(&from).await?;
            let text = serde_json::to_string(&bundle)
                .map_err(|e| CliError::internal(format!("cannot serialize snapshot: {e}")))?;
            std::fs::write(&out, text)
                .map_err(|e| CliError::invalid(format!("cannot write {}: {e}", out.display())))?;
            let counts: Vec<String> = bundle
                .sources
                .iter()
                .map(|s| format!("{}: {}", s.source.title(), s.record_count()))
                .collect();
            print(
                &serde_json::json!({ "out": out, "sources": counts }),
                json,
                |_| counts.join("\n"),
            )
        }
    }
}
