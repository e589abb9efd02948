//! The whole shared corpus through parse → match → score: every file parses, the README's
//! cross-source pairs match, the traps do not, no record lands on two models. Ignored by a
//! plain `cargo test`; the test command runs it when `../shared/corpus` is there.

mod catalog_support;

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use catalog_support::corpus::{corpus_dir, refresh, CorpusBytes, HfRows, Refreshed};
use switchyard_core::catalog::card::{Category, ModelCard};
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::scoring::{explain_card, Weights};
use switchyard_core::catalog::sources::{self, detect, SourceFile};

macro_rules! corpus_or_skip {
    () => {
        match corpus_dir().and_then(|dir| CorpusBytes::read(&dir).map(|bytes| (dir, bytes))) {
            Some(found) => found,
            None => panic!(
                "../shared/corpus is absent or incomplete: this test reads it (a plain \
                 `cargo test` lists it as ignored)"
            ),
        }
    };
}

/// `(source, record key)` → ids of the OpenRouter cards that list it.
fn owners(refreshed: &Refreshed) -> HashMap<(SourceId, String), HashSet<String>> {
    let mut owners: HashMap<(SourceId, String), HashSet<String>> = HashMap::new();
    for card in refreshed.catalog.models.iter().filter(|c| !c.local) {
        for m in &card.matches {
            owners
                .entry((m.source, m.name.clone()))
                .or_default()
                .insert(card.id.clone());
        }
    }
    owners
}

fn owner(
    owners: &HashMap<(SourceId, String), HashSet<String>>,
    source: SourceId,
    key: &str,
) -> Option<String> {
    let ids = owners.get(&(source, key.to_string()))?;
    assert_eq!(ids.len(), 1, "{source:?} {key} on {ids:?}");
    ids.iter().next().cloned()
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn every_file_of_every_source_parses() {
    let (dir, _) = corpus_or_skip!();
    for source in SourceId::ALL {
        let folder = dir.join(source.folder());
        let names: Vec<String> = std::fs::read_dir(&folder)
            .expect("source folder")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| detect::accepts(source, n))
            .collect();
        assert!(!names.is_empty(), "{source:?} has files");
        let categories = std::fs::read(folder.join("categories_2026_01_08.json")).ok();
        for name in names.iter().filter(|n| !n.starts_with("categories_")) {
            let bytes = std::fs::read(folder.join(name)).expect("readable");
            let parsed = sources::parse_file(source, name, &bytes, categories.as_deref())
                .unwrap_or_else(|e| panic!("{source:?} {name}: {e}"));
            let count = match parsed {
                SourceFile::OpenRouter(s) => s.models.items.len(),
                SourceFile::Benchmarks(p) => p.items.len(),
            };
            assert!(count > 0, "{source:?} {name} has records");
        }
    }
}

#[test]
#[ignore = "needs ../shared/corpus; scripts/test.sh runs it when the corpus is there"]
fn corpus_matches_precisely_and_scores_sanely() {
    let (_, bytes) = corpus_or_skip!();
    let start = Instant::now();
    let refreshed = refresh(&bytes, HfRows::All);
    eprintln!(
        "parse + match + score (test profile): {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let catalog = &refreshed.catalog;
    let owners = owners(&refreshed);
    let status = |s: SourceId| {
        catalog
            .sources
            .iter()
            .find(|x| x.source == s)
            .expect("status")
    };
    for s in &catalog.sources {
        eprintln!(
            "{:?}: {} records, {} matched, {} unmatched",
            s.source, s.records, s.matched, s.unmatched
        );
    }
    // 337 distinct base ids, plus the `-fast` twins collapsed onto their base model.
    assert!(
        (320..=337).contains(&catalog.models.len()),
        "{} cards",
        catalog.models.len()
    );

    // No record on two models (`owner` asserts it for each key it is asked about).
    for ((source, key), ids) in &owners {
        assert_eq!(ids.len(), 1, "{source:?} {key} matched to {ids:?}");
    }

    // Every benchmark row whose key is an OpenRouter id tail lands on that id.
    let tails: HashMap<String, &str> = refreshed
        .input
        .openrouter
        .iter()
        .filter(|m| m.variant.is_none())
        .map(|m| {
            (
                m.id.rsplit('/').next().unwrap_or("").to_string(),
                m.id.as_str(),
            )
        })
        .collect();
    for source in [SourceId::LmArena, SourceId::LiveBench] {
        let records = &refreshed
            .input
            .benchmarks
            .iter()
            .find(|b| b.source == source)
            .expect("source")
            .records;
        let exact: Vec<_> = records
            .iter()
            .filter_map(|r| tails.get(&r.key).map(|id| (r.key.as_str(), *id)))
            .collect();
        assert!(
            exact.len() >= 30,
            "{source:?}: only {} exact keys",
            exact.len()
        );
        for (key, id) in exact {
            assert_eq!(
                owner(&owners, source, key).as_deref(),
                Some(id),
                "{source:?} {key}"
            );
        }
    }
    // Most rows of listed models match: LiveBench is nearly all current models; LMArena has
    // many retired ones (Vicuna, Claude 3.5, Gemini 1.5) OpenRouter no longer lists.
    assert!(status(SourceId::LiveBench).matched * 10 >= status(SourceId::LiveBench).records * 8);
    assert!(status(SourceId::LmArena).matched >= 90);
    assert!(status(SourceId::ArtificialAnalysis).matched >= 280);

    // The README's alias table.
    let pairs: &[(SourceId, &str, &str)] = &[
        (
            SourceId::ArtificialAnalysis,
            "claude-opus-4-5-thinking",
            "anthropic/claude-opus-4.5",
        ),
        (
            SourceId::LmArena,
            "claude-opus-4-5-20251101-thinking-32k",
            "anthropic/claude-opus-4.5",
        ),
        (
            SourceId::LiveBench,
            "claude-opus-4-5-20251101-thinking-64k-high-effort",
            "anthropic/claude-opus-4.5",
        ),
        (
            SourceId::ArtificialAnalysis,
            "claude-4-5-sonnet-thinking",
            "anthropic/claude-sonnet-4.5",
        ),
        (
            SourceId::LmArena,
            "claude-sonnet-4-5-20250929-thinking-32k",
            "anthropic/claude-sonnet-4.5",
        ),
        (
            SourceId::LiveBench,
            "claude-sonnet-4-5-20250929-thinking-64k",
            "anthropic/claude-sonnet-4.5",
        ),
        (SourceId::ArtificialAnalysis, "gpt-5-1", "openai/gpt-5.1"),
        (
            SourceId::ArtificialAnalysis,
            "gpt-5-1-non-reasoning",
            "openai/gpt-5.1",
        ),
        (SourceId::LmArena, "gpt-5.1-high", "openai/gpt-5.1"),
        (
            SourceId::LiveBench,
            "gpt-5.1-2025-11-13-nothinking",
            "openai/gpt-5.1",
        ),
        (
            SourceId::ArtificialAnalysis,
            "qwen3-235b-a22b-instruct-2507",
            "qwen/qwen3-235b-a22b-2507",
        ),
        (
            SourceId::LmArena,
            "qwen3-235b-a22b-instruct-2507",
            "qwen/qwen3-235b-a22b-2507",
        ),
        (
            SourceId::LiveBench,
            "qwen3-235b-a22b-instruct-2507",
            "qwen/qwen3-235b-a22b-2507",
        ),
        (
            SourceId::ArtificialAnalysis,
            "llama-3-3-instruct-70b",
            "meta-llama/llama-3.3-70b-instruct",
        ),
        (
            SourceId::HfLeaderboard,
            "meta-llama/Llama-3.3-70B-Instruct",
            "meta-llama/llama-3.3-70b-instruct",
        ),
        (
            SourceId::ArtificialAnalysis,
            "llama-3-1-instruct-70b",
            "meta-llama/llama-3.1-70b-instruct",
        ),
        (
            SourceId::ArtificialAnalysis,
            "qwen2-5-72b-instruct",
            "qwen/qwen-2.5-72b-instruct",
        ),
        (
            SourceId::HfLeaderboard,
            "Qwen/Qwen2.5-72B-Instruct",
            "qwen/qwen-2.5-72b-instruct",
        ),
        (
            SourceId::ArtificialAnalysis,
            "deepseek-r1-0120",
            "deepseek/deepseek-r1",
        ),
        (SourceId::LmArena, "deepseek-r1", "deepseek/deepseek-r1"),
        (
            SourceId::ArtificialAnalysis,
            "deepseek-v4-pro-0424",
            "deepseek/deepseek-v4-pro",
        ),
        (
            SourceId::LiveBench,
            "deepseek-v4-pro",
            "deepseek/deepseek-v4-pro",
        ),
        (
            SourceId::ArtificialAnalysis,
            "mistral-medium-3-1",
            "mistralai/mistral-medium-3.1",
        ),
        (
            SourceId::LmArena,
            "mistral-medium-2508",
            "mistralai/mistral-medium-3.1",
        ),
        (
            SourceId::ArtificialAnalysis,
            "kimi-k2-thinking",
            "moonshotai/kimi-k2-thinking",
        ),
        (
            SourceId::LiveBench,
            "kimi-k2-thinking",
            "moonshotai/kimi-k2-thinking",
        ),
        (
            SourceId::ArtificialAnalysis,
            "deepseek-v3-2-reasoning",
            "deepseek/deepseek-v3.2",
        ),
        (
            SourceId::LmArena,
            "deepseek-v3.2-thinking",
            "deepseek/deepseek-v3.2",
        ),
        (
            SourceId::LiveBench,
            "deepseek-v3.2",
            "deepseek/deepseek-v3.2",
        ),
    ];
    for (source, key, id) in pairs {
        assert_eq!(
            owner(&owners, *source, key).as_deref(),
            Some(*id),
            "{source:?} {key}"
        );
    }

    // Traps: re-released checkpoints and fine-tunes.
    assert_eq!(
        owner(&owners, SourceId::ArtificialAnalysis, "deepseek-r1").as_deref(),
        Some("deepseek/deepseek-r1-0528")
    );
    assert_eq!(
        owner(&owners, SourceId::ArtificialAnalysis, "deepseek-v4-pro").as_deref(),
        Some("deepseek/deepseek-v4-pro-0813")
    );
    assert_eq!(owner(&owners, SourceId::LmArena, "gemini-3-pro"), None);
    assert_eq!(
        owner(
            &owners,
            SourceId::LiveBench,
            "gemini-3-pro-preview-11-2025-high"
        ),
        None
    );
    assert_eq!(
        owner(
            &owners,
            SourceId::HfLeaderboard,
            "huihui-ai/Qwen2.5-72B-Instruct-abliterated"
        ),
        None
    );
    assert_eq!(
        owner(
            &owners,
            SourceId::HfLeaderboard,
            "meta-llama/Llama-3.1-70B-Instruct"
        ),
        None
    );

    // HF rows match exactly the OpenRouter models whose Hugging Face id is a leaderboard repo.
    let hf_records = &refreshed
        .input
        .benchmarks
        .iter()
        .find(|b| b.source == SourceId::HfLeaderboard)
        .expect("hf")
        .records;
    let repos: HashSet<String> = hf_records
        .iter()
        .map(|r| r.key.to_ascii_lowercase())
        .collect();
    let expected: HashSet<&str> = catalog
        .models
        .iter()
        .filter(|c| {
            c.hugging_face_id
                .as_deref()
                .is_some_and(|h| repos.contains(&h.to_ascii_lowercase()))
        })
        .map(|c| c.id.as_str())
        .collect();
    let with_hf: HashSet<&str> = catalog
        .models
        .iter()
        .filter(|c| {
            c.matches
                .iter()
                .any(|m| m.source == SourceId::HfLeaderboard)
        })
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(with_hf, expected);
    assert!(expected.len() >= 10, "{expected:?}");
    for card in &catalog.models {
        for m in card
            .matches
            .iter()
            .filter(|m| m.source == SourceId::HfLeaderboard)
        {
            assert!(card
                .hugging_face_id
                .as_deref()
                .is_some_and(|h| h.eq_ignore_ascii_case(&m.name)));
        }
    }

    check_scores(&catalog.models);
}

fn check_scores(models: &[ModelCard]) {
    for card in models {
        for source in SourceId::ALL {
            let primaries = card
                .matches
                .iter()
                .filter(|m| m.source == source && m.primary)
                .count();
            assert!(
                primaries <= 1,
                "{} has {primaries} primary {source:?} records",
                card.id
            );
        }
        for (category, score) in &card.categories {
            assert!(
                (0.0..=100.0).contains(&score.score),
                "{} {category:?} {}",
                card.id,
                score.score
            );
            assert!(score.coverage > 0.0 && score.coverage <= 1.0 + 1e-9);
            assert!(!score.inputs.is_empty());
        }
        for breakdown in explain_card(card, Weights::bundled()) {
            let sum: f64 = breakdown.terms.iter().filter_map(|t| t.contribution).sum();
            assert!(
                (sum - breakdown.score).abs() < 1e-6,
                "{} {:?}: contributions {sum} vs score {}",
                card.id,
                breakdown.category,
                breakdown.score
            );
        }
    }
    let scored = |category: Category| {
        models
            .iter()
            .filter(|c| c.categories.contains_key(&category))
            .count()
    };
    for category in Category::ALL {
        eprintln!("{category:?}: {} models scored", scored(category));
    }
    assert!(scored(Category::Coding) >= 100);
    assert!(scored(Category::General) >= 150);
    // The frontier of the snapshot outranks last year's small models on general quality.
    let general = |id: &str| {
        models
            .iter()
            .find(|c| c.id == id)
            .and_then(|c| c.categories.get(&Category::General))
            .map(|s| s.score)
    };
    let opus = general("anthropic/claude-opus-4.8").expect("Opus 4.8 scored");
    let small = general("meta-llama/llama-3.2-3b-instruct").expect("Llama 3.2 3B scored");
    assert!(opus > small + 20.0, "{opus} vs {small}");
}
