//! Catalog build and scoring: z-scores and their 0–100 mapping computed by hand, coverage,
//! metrics under five values, variants counted once, tiers, tags, efficiency, statuses.

mod catalog_support;

use catalog_support::{or_model, record};
use switchyard_core::catalog::build::{
    build_catalog, BenchmarkSource, CatalogInput, LocalModel, SnapshotInfo,
};
use switchyard_core::catalog::card::{Catalog, Category, ModelCard, Tag, Tier};
use switchyard_core::catalog::matching::{MatchOverride, MatchRule, OverrideAction};
use switchyard_core::catalog::record::{BenchmarkRecord, OpenRouterModel, SourceId};
use switchyard_core::catalog::scoring::{explain_card, TermStatus, Weights};

/// Six listed models with LMArena keys that match them exactly.
fn models() -> Vec<OpenRouterModel> {
    let mut models = vec![
        or_model(
            "openai/gpt-5.1",
            "OpenAI: GPT-5.1",
            Some("openai/gpt-5.1-20251113"),
            None,
            "2025-11-13",
        ),
        or_model(
            "anthropic/claude-opus-4.5",
            "Anthropic: Claude Opus 4.5",
            Some("anthropic/claude-4.5-opus-20251124"),
            None,
            "2025-11-24",
        ),
        or_model(
            "google/gemini-2.5-pro",
            "Google: Gemini 2.5 Pro",
            None,
            None,
            "2025-06-17",
        ),
        or_model(
            "qwen/qwen3-max",
            "Qwen: Qwen3 Max",
            None,
            None,
            "2025-09-23",
        ),
        or_model(
            "z-ai/glm-4.6",
            "Z.ai: GLM 4.6",
            None,
            Some("zai-org/GLM-4.6"),
            "2025-09-30",
        ),
        or_model(
            "minimax/minimax-m2",
            "MiniMax: MiniMax M2",
            None,
            None,
            "2025-10-24",
        ),
    ];
    let prices = [
        (1.25, 10.0),
        (5.0, 25.0),
        (1.25, 10.0),
        (1.2, 6.0),
        (0.5, 1.75),
        (0.0, 0.0),
    ];
    for (model, (prompt, completion)) in models.iter_mut().zip(prices) {
        model.prompt_per_m = Some(prompt);
        model.completion_per_m = Some(completion);
    }
    models[2].input_modalities.push("image".to_string());
    models[1].context_length = Some(200_000);
    models[5].context_length = Some(64_000);
    models
}

fn arena(key: &str, overall: f64) -> BenchmarkRecord {
    record(
        SourceId::LmArena,
        key,
        None,
        None,
        None,
        &[("lmarena.overall", overall)],
    )
}

fn arena_source(records: Vec<BenchmarkRecord>) -> BenchmarkSource {
    BenchmarkSource {
        source: SourceId::LmArena,
        records,
        info: SnapshotInfo {
            data_date: Some("2025-12-17".to_string()),
            ..SnapshotInfo::default()
        },
    }
}

/// Overall ratings 1200..1450 step 50 plus a coding rating on only four models.
fn arena_records() -> Vec<BenchmarkRecord> {
    let keys = [
        "gpt-5.1",
        "claude-opus-4-5-20251101",
        "gemini-2.5-pro",
        "qwen3-max",
        "glm-4.6",
        "minimax-m2",
    ];
    keys.iter()
        .zip([1450.0, 1400.0, 1350.0, 1300.0, 1250.0, 1200.0])
        .enumerate()
        .map(|(i, (key, overall))| {
            let mut r = arena(key, overall);
            if i < 4 {
                r.metrics
                    .insert("lmarena.coding".to_string(), 1500.0 - 10.0 * i as f64);
            }
            r
        })
        .collect()
}

fn input(models: Vec<OpenRouterModel>, sources: Vec<BenchmarkSource>) -> CatalogInput {
    CatalogInput {
        openrouter: models,
        benchmarks: sources,
        ..CatalogInput::default()
    }
}

fn card<'a>(catalog: &'a Catalog, id: &str) -> &'a ModelCard {
    catalog
        .models
        .iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("no card {id}"))
}

fn normalized(card: &ModelCard, metric: &str) -> Option<f64> {
    card.benchmarks
        .iter()
        .find(|b| b.metric == metric)
        .and_then(|b| b.normalized)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn z_scores_use_the_population_std_dev_and_map_to_fifty_plus_twenty_z() {
    let catalog = build_catalog(&input(models(), vec![arena_source(arena_records())]));
    // Ratings 1200..1450 step 50: mean 1325; squared deviations 125², 75², 25² twice each.
    let mean = 1325.0;
    let std_dev = ((2.0 * (125.0f64.powi(2) + 75.0f64.powi(2) + 25.0f64.powi(2))) / 6.0).sqrt();
    for (id, rating) in [
        ("openai/gpt-5.1", 1450.0),
        ("qwen/qwen3-max", 1300.0),
        ("minimax/minimax-m2", 1200.0),
    ] {
        let expected = 50.0 + 20.0 * (rating - mean) / std_dev;
        let got = normalized(card(&catalog, id), "lmarena.overall").expect("normalized");
        assert!(close(got, expected), "{id}: {got} vs {expected}");
    }
}

#[test]
fn scores_clamp_to_zero_and_one_hundred_and_latency_is_inverted() {
    let mut models = models();
    for i in 0..4 {
        models.push(or_model(
            &format!("lab/model-{i}"),
            &format!("Lab: Model {i}"),
            None,
            None,
            "2025-01-01",
        ));
    }
    // Nine equal ratings and one outlier: mean 1210, std dev 30, so z = 3 → 110 → 100.
    let mut records: Vec<BenchmarkRecord> = [
        "gpt-5.1",
        "gemini-2.5-pro",
        "qwen3-max",
        "glm-4.6",
        "minimax-m2",
        "model-0",
        "model-1",
        "model-2",
        "model-3",
    ]
    .iter()
    .map(|k| arena(k, 1200.0))
    .collect();
    records.push(arena("claude-opus-4-5-20251101", 1300.0));
    let ttft = [0.5, 1.0, 1.5, 2.0, 2.5];
    let aa: Vec<BenchmarkRecord> = [
        "gpt-5-1",
        "gemini-2-5-pro",
        "qwen3-max",
        "glm-4-6",
        "minimax-m2",
    ]
    .iter()
    .zip(ttft)
    .map(|(slug, t)| {
        record(
            SourceId::ArtificialAnalysis,
            slug,
            None,
            None,
            None,
            &[("aa.ttft", t)],
        )
    })
    .collect();
    let catalog = build_catalog(&input(
        models,
        vec![
            arena_source(records),
            BenchmarkSource {
                source: SourceId::ArtificialAnalysis,
                records: aa,
                info: SnapshotInfo::default(),
            },
        ],
    ));
    assert_eq!(
        normalized(
            card(&catalog, "anthropic/claude-opus-4.5"),
            "lmarena.overall"
        ),
        Some(100.0)
    );
    let low = normalized(card(&catalog, "openai/gpt-5.1"), "lmarena.overall").expect("normalized");
    assert!(close(low, 50.0 - 20.0 / 3.0), "{low}");
    // ttft mean 1.5, std dev √0.5; the fastest first token scores high.
    let fastest = normalized(card(&catalog, "openai/gpt-5.1"), "aa.ttft").expect("normalized");
    assert!(
        close(fastest, 50.0 + 20.0 * 1.0 / 0.5f64.sqrt()),
        "{fastest}"
    );
    let slowest = normalized(card(&catalog, "minimax/minimax-m2"), "aa.ttft").expect("normalized");
    assert!(slowest < 50.0);
    assert_eq!(card(&catalog, "openai/gpt-5.1").ttft_seconds, Some(0.5));
}

#[test]
fn metrics_with_fewer_than_five_values_or_no_spread_are_not_used() {
    let mut records = arena_records();
    for r in &mut records {
        r.metrics
            .insert("lmarena.creative_writing".to_string(), 1300.0);
    }
    let catalog = build_catalog(&input(models(), vec![arena_source(records)]));
    let gpt = card(&catalog, "openai/gpt-5.1");
    let coding = gpt
        .benchmarks
        .iter()
        .find(|b| b.metric == "lmarena.coding")
        .expect("raw kept");
    assert_eq!((coding.raw, coding.normalized), (1500.0, None));
    assert_eq!(normalized(gpt, "lmarena.creative_writing"), None);
    for model in &catalog.models {
        for score in model.categories.values() {
            assert!(score
                .inputs
                .iter()
                .all(|i| i.metric != "lmarena.coding" && i.metric != "lmarena.creative_writing"));
        }
    }
}

#[test]
fn category_scores_are_weighted_means_with_coverage() {
    let weights = Weights::bundled();
    let general = &weights.categories[&Category::General];
    let weight_of = |metric: &str| {
        general
            .weights
            .iter()
            .find(|(m, _)| m == metric)
            .map(|(_, w)| *w)
            .expect("weighted")
    };
    let mut aa_records = Vec::new();
    for (slug, index) in [
        ("gpt-5-1", 40.0),
        ("gemini-2-5-pro", 30.0),
        ("qwen3-max", 25.0),
        ("glm-4-6", 20.0),
        ("minimax-m2", 15.0),
    ] {
        aa_records.push(record(
            SourceId::ArtificialAnalysis,
            slug,
            None,
            None,
            None,
            &[("aa.intelligence_index", index)],
        ));
    }
    let catalog = build_catalog(&input(
        models(),
        vec![
            arena_source(arena_records()),
            BenchmarkSource {
                source: SourceId::ArtificialAnalysis,
                records: aa_records,
                info: SnapshotInfo::default(),
            },
        ],
    ));
    // Claude has LMArena only: its general score is that one normalized value.
    let claude = card(&catalog, "anthropic/claude-opus-4.5");
    let only = &claude.categories[&Category::General];
    assert!(close(
        only.coverage,
        weight_of("lmarena.overall") / general.total
    ));
    assert!(close(
        only.score,
        normalized(claude, "lmarena.overall").expect("normalized")
    ));
    assert_eq!(only.inputs.len(), 1);
    // GPT-5.1 has both: weighted mean of two normalized values.
    let gpt = card(&catalog, "openai/gpt-5.1");
    let (wa, wb) = (
        weight_of("lmarena.overall"),
        weight_of("aa.intelligence_index"),
    );
    let (na, nb) = (
        normalized(gpt, "lmarena.overall").expect("arena"),
        normalized(gpt, "aa.intelligence_index").expect("aa"),
    );
    let both = &gpt.categories[&Category::General];
    assert!(close(both.score, (wa * na + wb * nb) / (wa + wb)));
    assert!(close(both.coverage, (wa + wb) / general.total));
    for input in &both.inputs {
        assert_eq!(Some(input.normalized), normalized(gpt, &input.metric));
    }
}

#[test]
fn no_evidence_means_no_score() {
    let mut models = models();
    models.push(or_model(
        "lab/unknown",
        "Lab: Unknown",
        None,
        None,
        "2025-01-01",
    ));
    let catalog = build_catalog(&input(models, vec![arena_source(arena_records())]));
    let unknown = card(&catalog, "lab/unknown");
    assert!(
        unknown.categories.is_empty(),
        "{:?}",
        unknown.categories.keys()
    );
    assert!(unknown.efficiency.is_empty());
    // Price alone (normalized over the listing) never makes a fast-cheap score.
    assert!(normalized(unknown, "openrouter.price").is_some());
    // Vision only for image-input models, research weighs context.
    assert!(card(&catalog, "google/gemini-2.5-pro")
        .categories
        .contains_key(&Category::Vision));
    assert!(!card(&catalog, "openai/gpt-5.1")
        .categories
        .contains_key(&Category::Vision));
    let claude = &card(&catalog, "anthropic/claude-opus-4.5").categories[&Category::Research];
    assert!(claude
        .inputs
        .iter()
        .any(|i| i.metric == "openrouter.context"));
}

#[test]
fn variants_collapse_and_never_count_twice() {
    let base = build_catalog(&input(models(), vec![arena_source(arena_records())]));
    let mut with_variants = models();
    let mut free = or_model(
        "z-ai/glm-4.6:free",
        "Z.ai: GLM 4.6 (free)",
        None,
        None,
        "2025-09-30",
    );
    free.prompt_per_m = Some(0.0);
    free.completion_per_m = Some(0.0);
    with_variants.push(free);
    with_variants.push(or_model(
        "openai/gpt-5.1:batch",
        "OpenAI: GPT-5.1 (batch)",
        None,
        None,
        "2025-11-13",
    ));
    with_variants.push(or_model(
        "anthropic/claude-opus-4.5-fast",
        "Anthropic: Claude Opus 4.5 (Fast)",
        None,
        None,
        "2025-11-25",
    ));
    let mut alias = or_model(
        "~openai/gpt-latest",
        "OpenAI GPT Latest",
        None,
        None,
        "2026-01-01",
    );
    alias.base_id = "openai/gpt-5.1".to_string();
    with_variants.push(alias);
    let catalog = build_catalog(&input(with_variants, vec![arena_source(arena_records())]));

    assert_eq!(catalog.models.len(), base.models.len());
    let gpt = card(&catalog, "openai/gpt-5.1");
    assert_eq!(
        gpt.variants,
        vec![
            "openai/gpt-5.1:batch".to_string(),
            "~openai/gpt-latest".to_string()
        ]
    );
    assert_eq!(
        card(&catalog, "anthropic/claude-opus-4.5").variants,
        vec!["anthropic/claude-opus-4.5-fast".to_string()]
    );
    for (a, b) in base.models.iter().zip(&catalog.models) {
        for metric in ["lmarena.overall", "openrouter.price"] {
            assert_eq!(
                normalized(a, metric),
                normalized(b, metric),
                "{} {metric}",
                a.id
            );
        }
    }
    // A free variant makes the model usable for free; its listed price stays the base one.
    let glm = card(&catalog, "z-ai/glm-4.6");
    assert!(glm.tags.contains(&Tag::Free));
    assert!(!card(&base, "z-ai/glm-4.6").tags.contains(&Tag::Free));
    assert_eq!(glm.pricing.prompt_per_m, Some(0.5));
    assert_eq!(catalog.sources[0].records, 10);
}

#[test]
fn tiers_tags_and_efficiency() {
    let mut models = models();
    models[0].supported_parameters = vec![
        "tools".into(),
        "reasoning".into(),
        "structured_outputs".into(),
    ];
    let aa: Vec<BenchmarkRecord> = [
        "gpt-5-1",
        "gemini-2-5-pro",
        "qwen3-max",
        "glm-4-6",
        "minimax-m2",
    ]
    .iter()
    .zip([180.0, 30.0, 60.0, 90.0, 120.0])
    .map(|(slug, speed)| {
        record(
            SourceId::ArtificialAnalysis,
            slug,
            None,
            None,
            None,
            &[("aa.output_speed", speed)],
        )
    })
    .collect();
    let catalog = build_catalog(&input(
        models,
        vec![
            arena_source(arena_records()),
            BenchmarkSource {
                source: SourceId::ArtificialAnalysis,
                records: aa,
                info: SnapshotInfo::default(),
            },
        ],
    ));
    let weights = Weights::bundled();
    let gpt = card(&catalog, "openai/gpt-5.1");
    assert_eq!(gpt.tier, Tier::Premium);
    for tag in [
        Tag::Fast,
        Tag::Reasoning,
        Tag::Tools,
        Tag::StructuredOutput,
        Tag::LongContext,
    ] {
        assert!(gpt.tags.contains(&tag), "{tag:?} in {:?}", gpt.tags);
    }
    assert!(card(&catalog, "google/gemini-2.5-pro")
        .tags
        .contains(&Tag::Slow));
    assert!(card(&catalog, "google/gemini-2.5-pro")
        .tags
        .contains(&Tag::Vision));
    assert_eq!(card(&catalog, "z-ai/glm-4.6").tier, Tier::Standard);
    let minimax = card(&catalog, "minimax/minimax-m2");
    assert_eq!(minimax.tier, Tier::Budget);
    assert!(!minimax.tags.contains(&Tag::LongContext));
    // Efficiency: score per blended $/M; the free model is charged the floor.
    let general = minimax.categories[&Category::General].score;
    assert!(close(
        minimax.efficiency[&Category::General],
        general / weights.price_floor_per_m
    ));
    let blended = (3.0 * 1.25 + 10.0) / 4.0;
    assert!(close(
        gpt.efficiency[&Category::General],
        gpt.categories[&Category::General].score / blended
    ));
    assert_eq!(gpt.output_speed, Some(180.0));
}

#[test]
fn statuses_count_matched_and_list_unmatched_keys() {
    let mut records = arena_records();
    records.push(arena("grok-4-0709", 1400.0));
    let hf = vec![
        record(
            SourceId::HfLeaderboard,
            "zai-org/GLM-4.6",
            None,
            None,
            None,
            &[("hf.average", 40.0)],
        ),
        record(
            SourceId::HfLeaderboard,
            "huihui-ai/GLM-4.6-abliterated",
            None,
            None,
            None,
            &[("hf.average", 41.0)],
        ),
    ];
    let catalog = build_catalog(&CatalogInput {
        openrouter: models(),
        openrouter_info: SnapshotInfo {
            data_date: Some("2026-08-22".into()),
            skipped: 2,
            ..SnapshotInfo::default()
        },
        benchmarks: vec![
            arena_source(records),
            BenchmarkSource {
                source: SourceId::HfLeaderboard,
                records: hf,
                info: SnapshotInfo {
                    error: Some("timeout".into()),
                    ..SnapshotInfo::default()
                },
            },
        ],
        ..CatalogInput::default()
    });
    let status = |s: SourceId| {
        catalog
            .sources
            .iter()
            .find(|x| x.source == s)
            .expect("status")
    };
    assert_eq!(catalog.sources.len(), 5);
    assert_eq!(catalog.snapshot_date.as_deref(), Some("2026-08-22"));
    let arena_status = status(SourceId::LmArena);
    assert_eq!(
        (
            arena_status.records,
            arena_status.matched,
            arena_status.unmatched
        ),
        (7, 6, 1)
    );
    assert_eq!(arena_status.unmatched_keys, vec!["grok-4-0709".to_string()]);
    let hf_status = status(SourceId::HfLeaderboard);
    assert_eq!((hf_status.matched, hf_status.unmatched), (1, 1));
    assert_eq!(hf_status.error.as_deref(), Some("timeout"));
    assert_eq!(status(SourceId::OpenRouter).skipped, 2);
    assert_eq!(status(SourceId::LiveBench).records, 0);
    let glm = card(&catalog, "z-ai/glm-4.6");
    assert!(glm
        .matches
        .iter()
        .any(|m| m.source == SourceId::HfLeaderboard
            && m.rule == MatchRule::ExactHfId
            && m.primary));
}

#[test]
fn one_primary_record_per_source_and_manual_matches_are_listed() {
    let mut records = arena_records();
    records.push(arena("gpt-5.1-high", 1460.0));
    records.push(arena("kimi-k2-thinking-turbo", 1425.0));
    let mut input = input(models(), vec![arena_source(records)]);
    input.overrides.push(MatchOverride {
        source: SourceId::LmArena,
        key: "kimi-k2-thinking-turbo".into(),
        model_id: "minimax/minimax-m2".into(),
        action: OverrideAction::Add,
    });
    let catalog = build_catalog(&input);
    let gpt = card(&catalog, "openai/gpt-5.1");
    let arena_matches: Vec<_> = gpt
        .matches
        .iter()
        .filter(|m| m.source == SourceId::LmArena)
        .collect();
    assert_eq!(arena_matches.len(), 2);
    assert_eq!(arena_matches.iter().filter(|m| m.primary).count(), 1);
    let primary = arena_matches
        .iter()
        .find(|m| m.primary)
        .expect("one primary");
    assert_eq!(primary.name, "gpt-5.1-high");
    let overall = gpt
        .benchmarks
        .iter()
        .find(|b| b.metric == "lmarena.overall")
        .expect("value");
    assert_eq!(
        (overall.raw, overall.record.as_str()),
        (1460.0, "gpt-5.1-high")
    );
    let minimax = card(&catalog, "minimax/minimax-m2");
    let manual = minimax
        .matches
        .iter()
        .find(|m| m.rule == MatchRule::Manual)
        .expect("manual match");
    // The user's match outranks the automatic one as the model's values.
    assert!(manual.primary);
    for model in &catalog.models {
        for source in SourceId::ALL {
            assert!(
                model
                    .matches
                    .iter()
                    .filter(|m| m.source == source && m.primary)
                    .count()
                    <= 1
            );
        }
    }
}

#[test]
fn local_models_join_as_free_local_cards_without_moving_the_statistics() {
    let aa: Vec<BenchmarkRecord> = [
        ("gpt-5-1", 40.0),
        ("gemini-2-5-pro", 30.0),
        ("qwen3-max", 25.0),
        ("glm-4-6", 20.0),
        ("minimax-m2", 15.0),
        ("qwen2-5-coder-7b-instruct", 5.0),
    ]
    .iter()
    .map(|(slug, index)| {
        record(
            SourceId::ArtificialAnalysis,
            slug,
            None,
            None,
            None,
            &[("aa.intelligence_index", *index)],
        )
    })
    .collect();
    let source = || BenchmarkSource {
        source: SourceId::ArtificialAnalysis,
        records: aa.clone(),
        info: SnapshotInfo::default(),
    };
    let without = build_catalog(&input(models(), vec![source()]));
    let mut with = input(models(), vec![source()]);
    with.local_models = vec![
        LocalModel {
            server: "ollama".into(),
            name: "qwen2.5-coder:7b".into(),
            context_length: Some(32_768),
        },
        LocalModel {
            server: "ollama".into(),
            name: "deepseek-r1:latest".into(),
            context_length: None,
        },
    ];
    let catalog = build_catalog(&with);
    assert_eq!(catalog.models.len(), without.models.len() + 2);
    let coder = card(&catalog, "local/ollama/qwen2.5-coder:7b");
    assert!(coder.local && coder.tags.contains(&Tag::Local) && coder.tags.contains(&Tag::Free));
    assert_eq!(coder.tier, Tier::Budget);
    assert_eq!(
        coder.matches.first().map(|m| m.rule),
        Some(MatchRule::LocalFamilySize)
    );
    let gpt_before = normalized(card(&without, "openai/gpt-5.1"), "aa.intelligence_index");
    assert_eq!(
        normalized(card(&catalog, "openai/gpt-5.1"), "aa.intelligence_index"),
        gpt_before
    );
    assert!(normalized(coder, "aa.intelligence_index").is_some_and(|v| v < 50.0));
    assert!(card(&catalog, "local/ollama/deepseek-r1:latest")
        .benchmarks
        .iter()
        .all(|b| b.source == SourceId::OpenRouter));
    let aa_status = catalog
        .sources
        .iter()
        .find(|s| s.source == SourceId::ArtificialAnalysis)
        .expect("status");
    assert_eq!(aa_status.matched, 6);
}

/// The drawer's "why this score" used to be recomputed in TypeScript from a copy of the
/// weights file; the breakdown now comes from core and must add up to the card's own score.
#[test]
fn score_breakdowns_add_up_to_the_card_scores_they_explain() {
    let weights = Weights::bundled();
    let catalog = build_catalog(&input(models(), vec![arena_source(arena_records())]));
    let mut explained = 0;
    for model in &catalog.models {
        let breakdown = explain_card(model, weights);
        assert_eq!(
            breakdown.iter().map(|b| b.category).collect::<Vec<_>>(),
            model.categories.keys().copied().collect::<Vec<_>>(),
            "{}",
            model.id
        );
        for b in &breakdown {
            let score = &model.categories[&b.category];
            let category = &weights.categories[&b.category];
            assert_eq!(
                b.terms.len(),
                category.weights.len(),
                "every weighted metric"
            );
            assert!(close(b.score, score.score));
            let sum: f64 = b.terms.iter().filter_map(|t| t.contribution).sum();
            assert!(close(sum, score.score), "{} {:?}", model.id, b.category);
            assert!(close(b.used_weight / b.total_weight, score.coverage));
            assert_eq!(b.min_coverage, weights.min_coverage);
            let used = b
                .terms
                .iter()
                .filter(|t| t.status == TermStatus::Used)
                .count();
            assert_eq!(used, score.inputs.len());
            for term in &b.terms {
                let value = model.benchmarks.iter().find(|v| v.metric == term.metric);
                assert_eq!(term.raw, value.map(|v| v.raw), "{}", term.metric);
                match term.status {
                    TermStatus::Used => {
                        assert_eq!(term.normalized, value.and_then(|v| v.normalized))
                    }
                    TermStatus::NoData => assert!(value.is_none()),
                    TermStatus::NotNormalized => {
                        assert!(value.is_some_and(|v| v.normalized.is_none()))
                    }
                }
            }
            explained += 1;
        }
    }
    assert!(explained > 5, "{explained} scores explained");
}

#[test]
fn every_card_carries_the_blended_price_routing_uses_so_the_ui_need_not_recompute_it() {
    let catalog = build_catalog(&input(models(), vec![arena_source(arena_records())]));
    assert!(!catalog.models.is_empty());
    for card in &catalog.models {
        let expected = if card.local {
            Some(0.0)
        } else {
            card.pricing.blended_per_m()
        };
        assert_eq!(card.blended_per_m, expected, "{}", card.id);
    }
    assert!(catalog.models.iter().any(|c| c.blended_per_m.is_some()));
}
