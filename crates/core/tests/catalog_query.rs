//! `ModelQuery` over a built catalog: every filter, every sort key, missing values last,
//! limits, and agreement with a straightforward filter over the cards.

mod catalog_support;

use catalog_support::{or_model, record};
use switchyard_core::catalog::build::{
    build_catalog, BenchmarkSource, CatalogInput, LocalModel, SnapshotInfo,
};
use switchyard_core::catalog::card::{Catalog, Category, ModelCard, Tag, Tier};
use switchyard_core::catalog::query::{CatalogIndex, ModelQuery, SortKey};
use switchyard_core::catalog::record::SourceId;

fn catalog() -> Catalog {
    let rows = [
        (
            "openai/gpt-5.1",
            "OpenAI: GPT-5.1",
            1.25,
            10.0,
            400_000,
            "gpt-5.1",
            1450.0,
            120.0,
        ),
        (
            "anthropic/claude-opus-4.5",
            "Anthropic: Claude Opus 4.5",
            5.0,
            25.0,
            200_000,
            "claude-opus-4-5-20251101",
            1460.0,
            60.0,
        ),
        (
            "google/gemini-2.5-flash",
            "Google: Gemini 2.5 Flash",
            0.3,
            2.5,
            1_048_576,
            "gemini-2.5-flash",
            1400.0,
            250.0,
        ),
        (
            "qwen/qwen3-max",
            "Qwen: Qwen3 Max",
            1.2,
            6.0,
            256_000,
            "qwen3-max",
            1420.0,
            30.0,
        ),
        (
            "z-ai/glm-4.6",
            "Z.ai: GLM 4.6",
            0.5,
            1.75,
            64_000,
            "glm-4.6",
            1410.0,
            90.0,
        ),
        (
            "minimax/minimax-m2",
            "MiniMax: MiniMax M2",
            0.0,
            0.0,
            196_000,
            "minimax-m2",
            1350.0,
            100.0,
        ),
    ];
    let mut models = Vec::new();
    let mut arena = Vec::new();
    let mut aa = Vec::new();
    for (id, name, prompt, completion, context, key, overall, speed) in rows {
        let mut m = or_model(id, name, None, None, "2025-11-24");
        m.prompt_per_m = Some(prompt);
        m.completion_per_m = Some(completion);
        m.context_length = Some(context);
        models.push(m);
        arena.push(record(
            SourceId::LmArena,
            key,
            None,
            None,
            None,
            &[("lmarena.overall", overall)],
        ));
        let slug = id.rsplit('/').next().unwrap_or(id);
        aa.push(record(
            SourceId::ArtificialAnalysis,
            slug,
            None,
            None,
            None,
            &[("aa.output_speed", speed)],
        ));
    }
    // A listed model without any benchmark: filtered out of category queries, last in sorts.
    models.push(or_model(
        "lab/mystery",
        "Lab: Mystery",
        None,
        None,
        "2025-10-01",
    ));
    models[6].context_length = None;
    models[2].input_modalities.push("image".to_string());
    build_catalog(&CatalogInput {
        openrouter: models,
        benchmarks: vec![
            BenchmarkSource {
                source: SourceId::LmArena,
                records: arena,
                info: SnapshotInfo::default(),
            },
            BenchmarkSource {
                source: SourceId::ArtificialAnalysis,
                records: aa,
                info: SnapshotInfo::default(),
            },
        ],
        local_models: vec![LocalModel {
            server: "ollama".into(),
            name: "llama3.2:3b".into(),
            context_length: Some(8192),
        }],
        ..CatalogInput::default()
    })
}

fn ids(catalog: &Catalog, index: &CatalogIndex, query: &ModelQuery) -> Vec<String> {
    index
        .models(catalog, query)
        .into_iter()
        .map(|m| m.id.clone())
        .collect()
}

#[test]
fn category_filter_and_score_sort_agree_with_the_cards() {
    let catalog = catalog();
    let index = CatalogIndex::new(&catalog);
    let query = ModelQuery {
        category: Some(Category::General),
        ..ModelQuery::default()
    };
    let got = ids(&catalog, &index, &query);
    let mut expected: Vec<(&str, f64)> = catalog
        .models
        .iter()
        .filter_map(|m| Some((m.id.as_str(), m.categories.get(&Category::General)?.score)))
        .collect();
    expected.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(
        got,
        expected
            .iter()
            .map(|(id, _)| id.to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        got.first().map(String::as_str),
        Some("anthropic/claude-opus-4.5")
    );
    assert!(!got.contains(&"lab/mystery".to_string()));
    let ascending = ModelQuery {
        descending: false,
        ..query
    };
    let mut reversed = ids(&catalog, &index, &ascending);
    reversed.reverse();
    assert_eq!(reversed, got);
}

#[test]
fn filters_combine() {
    let catalog = catalog();
    let index = CatalogIndex::new(&catalog);
    let q = |query: ModelQuery| ids(&catalog, &index, &query);
    assert_eq!(
        q(ModelQuery {
            search: Some("OPUS".into()),
            ..ModelQuery::default()
        }),
        vec!["anthropic/claude-opus-4.5"]
    );
    // Search also finds the source names a model was matched under.
    assert_eq!(
        q(ModelQuery {
            search: Some("20251101".into()),
            ..ModelQuery::default()
        }),
        vec!["anthropic/claude-opus-4.5"]
    );
    assert_eq!(
        q(ModelQuery {
            search: Some("gemini flash".into()),
            ..ModelQuery::default()
        }),
        vec!["google/gemini-2.5-flash"]
    );
    assert!(q(ModelQuery {
        search: Some("gemini opus".into()),
        ..ModelQuery::default()
    })
    .is_empty());
    assert_eq!(
        q(ModelQuery {
            tier: Some(Tier::Premium),
            ..ModelQuery::default()
        })
        .len(),
        2
    );
    let vision_fast = q(ModelQuery {
        tags: vec![Tag::Vision, Tag::Fast],
        ..ModelQuery::default()
    });
    assert_eq!(vision_fast, vec!["google/gemini-2.5-flash"]);
    let free = q(ModelQuery {
        tags: vec![Tag::Free],
        sort: SortKey::Context,
        ..ModelQuery::default()
    });
    assert_eq!(free, vec!["minimax/minimax-m2", "local/ollama/llama3.2:3b"]);
    assert_eq!(
        q(ModelQuery {
            providers: vec!["Z-AI".into(), "qwen".into()],
            ..ModelQuery::default()
        })
        .len(),
        2
    );
    let cheap = q(ModelQuery {
        max_price: Some(1.0),
        sort: SortKey::Price,
        descending: false,
        ..ModelQuery::default()
    });
    // Blended 0, 0 (ties keep catalog order), 0.8125, 0.85.
    assert_eq!(
        cheap,
        vec![
            "minimax/minimax-m2",
            "local/ollama/llama3.2:3b",
            "z-ai/glm-4.6",
            "google/gemini-2.5-flash"
        ]
    );
    let long = q(ModelQuery {
        min_context: Some(300_000),
        ..ModelQuery::default()
    });
    assert_eq!(long.len(), 2);
}

#[test]
fn every_sort_key_puts_missing_values_last() {
    let catalog = catalog();
    let index = CatalogIndex::new(&catalog);
    let has_value = |id: &str, sort: SortKey| {
        let m = catalog.models.iter().find(|m| m.id == id).expect("card");
        match sort {
            SortKey::Score => m.categories.contains_key(&Category::General),
            SortKey::Price => m.local || m.pricing.blended_per_m().is_some(),
            SortKey::Efficiency => m.efficiency.contains_key(&Category::General),
            SortKey::Context => m.context_length.is_some(),
            SortKey::Speed => m.output_speed.is_some(),
        }
    };
    for sort in [
        SortKey::Score,
        SortKey::Price,
        SortKey::Efficiency,
        SortKey::Context,
        SortKey::Speed,
    ] {
        for descending in [true, false] {
            let got = ids(
                &catalog,
                &index,
                &ModelQuery {
                    sort,
                    descending,
                    ..ModelQuery::default()
                },
            );
            assert_eq!(
                got.len(),
                catalog.models.len(),
                "{sort:?} keeps every model"
            );
            let flags: Vec<bool> = got.iter().map(|id| has_value(id, sort)).collect();
            assert!(
                flags.windows(2).all(|w| w[0] || !w[1]),
                "{sort:?} {descending}: {got:?}"
            );
            assert!(
                flags.contains(&false) || sort == SortKey::Price,
                "{sort:?} has a missing value"
            );
        }
    }
    let by_speed = ids(
        &catalog,
        &index,
        &ModelQuery {
            sort: SortKey::Speed,
            ..ModelQuery::default()
        },
    );
    assert_eq!(
        &by_speed[..3],
        [
            "google/gemini-2.5-flash",
            "openai/gpt-5.1",
            "minimax/minimax-m2"
        ]
    );
    let by_context = ids(
        &catalog,
        &index,
        &ModelQuery {
            sort: SortKey::Context,
            descending: false,
            ..ModelQuery::default()
        },
    );
    assert_eq!(
        by_context.first().map(String::as_str),
        Some("local/ollama/llama3.2:3b")
    );
    assert_eq!(by_context.last().map(String::as_str), Some("lab/mystery"));
    let by_efficiency = ids(
        &catalog,
        &index,
        &ModelQuery {
            sort: SortKey::Efficiency,
            ..ModelQuery::default()
        },
    );
    // The free model is charged the floor price: its efficiency tops the list.
    assert_eq!(
        by_efficiency.first().map(String::as_str),
        Some("minimax/minimax-m2")
    );
}

#[test]
fn limits_truncate_after_sorting() {
    let catalog = catalog();
    let index = CatalogIndex::new(&catalog);
    let all = ids(&catalog, &index, &ModelQuery::default());
    let top = ids(
        &catalog,
        &index,
        &ModelQuery {
            limit: Some(3),
            ..ModelQuery::default()
        },
    );
    assert_eq!(top, all[..3].to_vec());
    assert!(ids(
        &catalog,
        &index,
        &ModelQuery {
            limit: Some(0),
            ..ModelQuery::default()
        }
    )
    .is_empty());
    assert_eq!(SortKey::parse("Efficiency"), Some(SortKey::Efficiency));
    assert!(!SortKey::Price.natural_descending());
}

#[test]
fn a_summary_is_labelled_as_a_picker_lists_it_with_the_price_when_known() {
    let catalog = catalog();
    let card = |id: &str| {
        catalog
            .models
            .iter()
            .find(|m| m.id == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} is in the catalog"))
    };
    let label = |card: &ModelCard| switchyard_core::catalog::view::ModelSummary::from(card).label;
    // Blended 3:1 of $1.25 and $10: $3.4375, shown to the cent.
    assert_eq!(label(&card("openai/gpt-5.1")), "GPT-5.1 (openai, $3.44/M)");
    let mut unpriced = card("lab/mystery");
    unpriced.pricing.completion_per_m = None;
    assert_eq!(label(&unpriced), "Mystery (lab)");
}
