//! Alias matching: real-looking name pairs per pattern of the corpus README ("Patterns the
//! matcher must handle"), the traps that must not match, manual overrides and local models.

mod catalog_support;

use catalog_support::{aa, arena, hf, listing, livebench, record};
use switchyard_core::catalog::matching::{
    local, primary_flags, MatchOverride, MatchRule, MatchTarget, Matcher, OverrideAction,
};
use switchyard_core::catalog::record::{BenchmarkRecord, SourceId};

fn targets() -> Vec<MatchTarget> {
    listing()
        .into_iter()
        .map(|m| MatchTarget {
            id: m.id,
            name: m.name,
            canonical_slug: m.canonical_slug,
            hugging_face_id: m.hugging_face_id,
            created: m.created,
            local: false,
        })
        .collect()
}

/// The id and rule a record matches to, against the fixture listing.
fn match_of(
    matcher: &Matcher,
    targets: &[MatchTarget],
    r: &BenchmarkRecord,
) -> Option<(String, MatchRule)> {
    matcher
        .match_record(r)
        .map(|m| (targets[m.target].id.clone(), m.rule))
}

/// Asserts each record lands on the expected id (or on nothing), naming the pattern.
fn check(pattern: &str, cases: &[(BenchmarkRecord, Option<&str>)]) {
    let targets = targets();
    let matcher = Matcher::new(&targets);
    for (r, expected) in cases {
        let got = match_of(&matcher, &targets, r);
        assert_eq!(
            got.as_ref().map(|(id, _)| id.as_str()),
            *expected,
            "{pattern}: {:?} {:?} matched {got:?}",
            r.source,
            r.key
        );
    }
}

#[test]
fn vendor_prefixes_and_case() {
    check(
        "vendor prefix",
        &[
            (arena("amazon-nova-pro-v1.0"), Some("amazon/nova-pro-v1")),
            (
                record(
                    SourceId::LmArena,
                    "Llama-3.3-70B-Instruct",
                    None,
                    Some("Meta"),
                    None,
                    &[],
                ),
                Some("meta-llama/llama-3.3-70b-instruct"),
            ),
            (arena("GEMMA-3-27B-IT"), Some("google/gemma-3-27b-it")),
        ],
    );
}

#[test]
fn separators_and_versions() {
    check(
        "separators",
        &[
            (
                aa("gpt-5-1", "GPT-5.1 (high)", "openai", "2025-11-13"),
                Some("openai/gpt-5.1"),
            ),
            (
                aa(
                    "claude-opus-4-5-thinking",
                    "Claude Opus 4.5 (Reasoning)",
                    "anthropic",
                    "2025-11-24",
                ),
                Some("anthropic/claude-opus-4.5"),
            ),
            (
                aa(
                    "qwen2-5-72b-instruct",
                    "Qwen2.5 Instruct 72B",
                    "alibaba",
                    "2024-09-19",
                ),
                Some("qwen/qwen-2.5-72b-instruct"),
            ),
            (
                arena("qwen2.5-72b-instruct"),
                Some("qwen/qwen-2.5-72b-instruct"),
            ),
            // 4.5 and 5.4 are different models however the tokens are ordered.
            (
                aa("gpt-4-5", "GPT-4.5 (Preview)", "openai", "2025-02-27"),
                None,
            ),
        ],
    );
}

#[test]
fn word_order() {
    check(
        "word order",
        &[
            (
                aa(
                    "claude-4-5-sonnet-thinking",
                    "Claude 4.5 Sonnet (Reasoning)",
                    "anthropic",
                    "2025-09-29",
                ),
                Some("anthropic/claude-sonnet-4.5"),
            ),
            (
                aa(
                    "llama-3-3-instruct-70b",
                    "Llama 3.3 Instruct 70B",
                    "meta",
                    "2024-12-06",
                ),
                Some("meta-llama/llama-3.3-70b-instruct"),
            ),
            (
                aa(
                    "qwen3-235b-a22b-instruct-2507",
                    "Qwen3 235B A22B 2507 Instruct",
                    "alibaba",
                    "2025-07-21",
                ),
                Some("qwen/qwen3-235b-a22b-2507"),
            ),
        ],
    );
}

#[test]
fn date_and_snapshot_suffixes() {
    check(
        "date suffix",
        &[
            // 20251101 in the key, 20251124 in OpenRouter's canonical slug: one model.
            (
                arena("claude-opus-4-5-20251101"),
                Some("anthropic/claude-opus-4.5"),
            ),
            (livebench("gpt-5.1-2025-11-13-high"), Some("openai/gpt-5.1")),
            (
                arena("qwen3-235b-a22b-instruct-2507"),
                Some("qwen/qwen3-235b-a22b-2507"),
            ),
            (
                arena("gpt-4o-mini-2024-07-18"),
                Some("openai/gpt-4o-mini-2024-07-18"),
            ),
            (
                aa("gpt-4o-mini", "GPT-4o mini", "openai", "2024-07-18"),
                Some("openai/gpt-4o-mini"),
            ),
            (
                aa(
                    "deepseek-r1-0120",
                    "DeepSeek R1 (Jan '25)",
                    "deepseek",
                    "2025-01-20",
                ),
                Some("deepseek/deepseek-r1"),
            ),
            (
                aa(
                    "deepseek-v4-pro-0424",
                    "DeepSeek V4 Pro (Reasoning, Max Effort)",
                    "deepseek",
                    "2026-04-24",
                ),
                Some("deepseek/deepseek-v4-pro"),
            ),
            (
                aa(
                    "gemini-2-5-pro-05-06",
                    "Gemini 2.5 Pro Preview (May' 25)",
                    "google",
                    "2025-05-06",
                ),
                Some("google/gemini-2.5-pro-preview-05-06"),
            ),
            (
                livebench("grok-4.20-beta-0309-reasoning"),
                Some("x-ai/grok-4.20"),
            ),
            // A date code standing for a version: Mistral Medium 3.1 shipped in Aug 2025.
            (
                arena("mistral-medium-2508"),
                Some("mistralai/mistral-medium-3.1"),
            ),
            (
                arena("mistral-medium-2505"),
                Some("mistralai/mistral-medium-3"),
            ),
            // "Mistral Large 3 2512" states its version beside the date.
            (
                arena("mistral-large-3"),
                Some("mistralai/mistral-large-2512"),
            ),
        ],
    );
}

#[test]
fn reasoning_and_effort_suffixes() {
    check(
        "effort suffix",
        &[
            (
                arena("claude-opus-4-5-20251101-thinking-32k"),
                Some("anthropic/claude-opus-4.5"),
            ),
            (
                livebench("claude-opus-4-5-20251101-thinking-64k-low-effort"),
                Some("anthropic/claude-opus-4.5"),
            ),
            (
                livebench("claude-opus-4-8-xhigh-effort"),
                Some("anthropic/claude-opus-4.8"),
            ),
            (
                aa(
                    "claude-opus-4-8",
                    "Claude Opus 4.8 (Adaptive Reasoning, Max Effort)",
                    "anthropic",
                    "2026-05-28",
                ),
                Some("anthropic/claude-opus-4.8"),
            ),
            (
                livebench("gpt-5.1-2025-11-13-nothinking"),
                Some("openai/gpt-5.1"),
            ),
            (
                aa(
                    "gpt-5-1-non-reasoning",
                    "GPT-5.1 (Non-reasoning)",
                    "openai",
                    "2025-11-13",
                ),
                Some("openai/gpt-5.1"),
            ),
            (livebench("gpt-5.4-xhigh"), Some("openai/gpt-5.4")),
            (
                arena("deepseek-v3.2-thinking"),
                Some("deepseek/deepseek-v3.2"),
            ),
            // `max` is part of the name here, only `-high` is an effort.
            (
                livebench("gpt-5.1-codex-max-high"),
                Some("openai/gpt-5.1-codex-max"),
            ),
            // A dedicated thinking model wins over stripping `-thinking`.
            (
                livebench("kimi-k2-thinking"),
                Some("moonshotai/kimi-k2-thinking"),
            ),
            (arena("o3-mini-high"), Some("openai/o3-mini-high")),
            (
                aa(
                    "qwen3-235b-a22b-instruct-2507-reasoning",
                    "Qwen3 235B A22B 2507 (Reasoning)",
                    "alibaba",
                    "2025-07-25",
                ),
                Some("qwen/qwen3-235b-a22b-thinking-2507"),
            ),
        ],
    );
}

#[test]
fn re_released_checkpoints_and_other_traps_do_not_match() {
    check(
        "traps",
        &[
            // AA's un-suffixed deepseek-r1 is the 0528 checkpoint, not the January original.
            (
                aa(
                    "deepseek-r1",
                    "DeepSeek R1 0528 (May '25)",
                    "deepseek",
                    "2025-05-28",
                ),
                Some("deepseek/deepseek-r1-0528"),
            ),
            // AA's deepseek-v4-pro is the 0813 checkpoint; the listing only has 0423.
            (
                aa(
                    "deepseek-v4-pro",
                    "DeepSeek V4 Pro 0813 (Reasoning, Max Effort)",
                    "deepseek",
                    "2026-08-13",
                ),
                None,
            ),
            (
                aa(
                    "deepseek-v3-2-0925",
                    "DeepSeek V3.2 Exp (Non-reasoning)",
                    "deepseek",
                    "2025-09-29",
                ),
                Some("deepseek/deepseek-v3.2-exp"),
            ),
            // Undated keys mean the original release.
            (arena("deepseek-r1"), Some("deepseek/deepseek-r1")),
            (
                livebench("deepseek-v4-pro"),
                Some("deepseek/deepseek-v4-pro"),
            ),
            (arena("gpt-3.5-turbo-1106"), None),
            (arena("o1-preview"), None),
            (arena("qwen3-max-preview"), None),
            (arena("gemini-3-pro"), None),
            (livebench("gemini-3-pro-preview-11-2025-high"), None),
            (arena("mistral-large-2411"), None),
            (
                aa(
                    "gemini-2-5-pro-03-25",
                    "Gemini 2.5 Pro Preview (Mar' 25)",
                    "google",
                    "2025-03-25",
                ),
                Some("google/gemini-2.5-pro-preview-05-06"),
            ),
            // The reasoning twin of an instruct-only listing is another model.
            (
                aa(
                    "qwen3-vl-32b-reasoning",
                    "Qwen3 VL 32B (Reasoning)",
                    "alibaba",
                    "2025-10-21",
                ),
                None,
            ),
            // A creator that names another vendor vetoes an otherwise equal name.
            (
                aa(
                    "llama-3-3-instruct-70b",
                    "Llama 3.3 Instruct 70B",
                    "nvidia",
                    "2024-12-06",
                ),
                None,
            ),
        ],
    );
}

#[test]
fn renamed_vendors_still_match() {
    check(
        "renames",
        &[
            (
                aa(
                    "grok-4-20-0309",
                    "Grok 4.20 0309 (Reasoning)",
                    "SpaceXAI",
                    "2026-03-10",
                ),
                Some("x-ai/grok-4.20"),
            ),
            (
                aa("kimi-k2-0905", "Kimi K2 0905", "kimi", "2025-09-05"),
                Some("moonshotai/kimi-k2-0905"),
            ),
            (
                aa("kimi-k2", "Kimi K2", "kimi", "2025-07-11"),
                Some("moonshotai/kimi-k2"),
            ),
        ],
    );
}

#[test]
fn hugging_face_rows_match_only_the_exact_repo() {
    check(
        "hf",
        &[
            (
                hf("Qwen/Qwen2.5-72B-Instruct"),
                Some("qwen/qwen-2.5-72b-instruct"),
            ),
            (
                hf("qwen/qwen2.5-72b-instruct"),
                Some("qwen/qwen-2.5-72b-instruct"),
            ),
            (
                hf("meta-llama/Meta-Llama-3.1-70B-Instruct"),
                Some("meta-llama/llama-3.1-70b-instruct"),
            ),
            (hf("huihui-ai/Qwen2.5-72B-Instruct-abliterated"), None),
            (
                hf("mlx-community/Mistral-Small-24B-Instruct-2501-bf16"),
                None,
            ),
            // The repo was renamed after OpenRouter recorded it: no guessing.
            (hf("meta-llama/Llama-3.1-70B-Instruct"), None),
            (hf("deepseek-ai/DeepSeek-R1-Distill-Llama-70B"), None),
            (hf("Qwen2.5-72B-Instruct"), None),
        ],
    );
}

#[test]
fn every_match_names_its_rule() {
    let targets = targets();
    let matcher = Matcher::new(&targets);
    let rule = |r: BenchmarkRecord| match_of(&matcher, &targets, &r).map(|(_, rule)| rule.id());
    assert_eq!(rule(arena("gemma-3-27b-it")), Some("exactId"));
    assert_eq!(rule(arena("qwen2.5-72b-instruct")), Some("normalizedName"));
    assert_eq!(
        rule(aa(
            "llama-3-3-instruct-70b",
            "Llama 3.3 Instruct 70B",
            "meta",
            "2024-12-06"
        )),
        Some("wordOrder")
    );
    assert_eq!(
        rule(arena("claude-opus-4-5-20251101-thinking-32k")),
        Some("variantSuffix")
    );
    assert_eq!(rule(arena("mistral-medium-2508")), Some("dateCodeVersion"));
    assert_eq!(rule(hf("Qwen/Qwen2.5-72B-Instruct")), Some("exactHfId"));
    assert_eq!(
        rule(aa(
            "qwen3-235b-a22b-instruct-2507-reasoning",
            "Qwen3 235B A22B 2507 (Reasoning)",
            "alibaba",
            "2025-07-25"
        )),
        Some("reasoningSibling")
    );
    assert_eq!(
        rule(livebench("gemini-3-flash-preview-high")),
        Some("variantSuffix")
    );
    assert_eq!(rule(arena("gemini-3-flash")), Some("looseName"));
}

fn find(targets: &[MatchTarget], id: &str) -> usize {
    targets.iter().position(|t| t.id == id).expect("fixture id")
}

#[test]
fn manual_overrides_always_win() {
    let targets = targets();
    let matcher = Matcher::new(&targets);
    let records = vec![
        arena("kimi-k2-thinking-turbo"),
        arena("qwen3-235b-a22b-instruct-2507"),
        arena("deepseek-r1"),
        arena("claude-opus-4-5-20251101"),
    ];
    let over = |key: &str, model: &str, action| MatchOverride {
        source: SourceId::LmArena,
        key: key.to_string(),
        model_id: model.to_string(),
        action,
    };
    let overrides = vec![
        over(
            "kimi-k2-thinking-turbo",
            "moonshotai/kimi-k2-thinking",
            OverrideAction::Add,
        ),
        over(
            "qwen3-235b-a22b-instruct-2507",
            "qwen/qwen3-235b-a22b-2507",
            OverrideAction::Remove,
        ),
        over(
            "deepseek-r1",
            "deepseek/deepseek-r1-0528",
            OverrideAction::Add,
        ),
        // A removal naming another model leaves the automatic match alone.
        over(
            "claude-opus-4-5-20251101",
            "anthropic/claude-sonnet-4.5",
            OverrideAction::Remove,
        ),
        // Unknown ids and other sources' keys are ignored.
        over(
            "claude-opus-4-5-20251101",
            "nobody/nothing",
            OverrideAction::Add,
        ),
        MatchOverride {
            source: SourceId::LiveBench,
            ..over(
                "deepseek-r1",
                "deepseek/deepseek-r1",
                OverrideAction::Remove,
            )
        },
    ];
    let automatic = matcher.match_all(&records, &[]);
    assert_eq!(automatic[0], None);
    assert_eq!(
        automatic[1].map(|m| m.target),
        Some(find(&targets, "qwen/qwen3-235b-a22b-2507"))
    );
    assert_eq!(
        automatic[2].map(|m| m.target),
        Some(find(&targets, "deepseek/deepseek-r1"))
    );

    let result = matcher.match_all(&records, &overrides);
    let kimi = result[0].expect("added by override");
    assert_eq!(
        (kimi.target, kimi.rule),
        (
            find(&targets, "moonshotai/kimi-k2-thinking"),
            MatchRule::Manual
        )
    );
    assert_eq!(result[1], None);
    let r1 = result[2].expect("re-pointed by override");
    assert_eq!(
        (r1.target, r1.rule.id()),
        (find(&targets, "deepseek/deepseek-r1-0528"), "manual")
    );
    assert_eq!(result[3], automatic[3]);
    assert!(result[3].is_some());
}

#[test]
fn the_best_variant_is_primary_and_the_rest_stay_visible() {
    let targets = targets();
    let matcher = Matcher::new(&targets);
    let records = vec![
        record(
            SourceId::ArtificialAnalysis,
            "claude-opus-4-5",
            Some("Claude Opus 4.5 (Non-reasoning)"),
            Some("anthropic"),
            Some("2025-11-24"),
            &[("aa.intelligence_index", 35.6)],
        ),
        record(
            SourceId::ArtificialAnalysis,
            "claude-opus-4-5-thinking",
            Some("Claude Opus 4.5 (Reasoning)"),
            Some("anthropic"),
            Some("2025-11-24"),
            &[("aa.intelligence_index", 41.9)],
        ),
        record(
            SourceId::ArtificialAnalysis,
            "gpt-5-1",
            Some("GPT-5.1 (high)"),
            Some("openai"),
            Some("2025-11-13"),
            &[("aa.intelligence_index", 37.5)],
        ),
        record(
            SourceId::ArtificialAnalysis,
            "gpt-5-1-non-reasoning",
            Some("GPT-5.1 (Non-reasoning)"),
            Some("openai"),
            Some("2025-11-13"),
            &[("aa.intelligence_index", 20.7)],
        ),
        record(
            SourceId::ArtificialAnalysis,
            "gpt-5-1-low",
            Some("GPT-5.1 (low)"),
            Some("openai"),
            Some("2025-11-13"),
            &[],
        ),
    ];
    let matches = matcher.match_all(&records, &[]);
    assert!(matches.iter().all(Option::is_some));
    let primary = primary_flags(&records, &matches);
    assert_eq!(primary, vec![false, true, true, false, false]);
}

#[test]
fn local_models_match_by_family_and_size_only() {
    let names = [
        "qwen2.5-coder:7b",
        "llama3.2:3b",
        "deepseek-r1:14b",
        "deepseek-r1:latest",
        "gemma3:27b-it-qat",
    ];
    let targets: Vec<MatchTarget> = names
        .iter()
        .filter(|n| local::has_size(n))
        .map(|n| local::target(&format!("local/ollama/{n}"), n))
        .collect();
    assert_eq!(targets.len(), 4, "deepseek-r1:latest states no size");
    let matcher = Matcher::new(&targets);
    let id = |r: BenchmarkRecord| {
        matcher
            .match_record(&r)
            .map(|m| (targets[m.target].id.clone(), m.rule.id()))
    };
    assert_eq!(
        id(aa(
            "qwen2-5-coder-7b-instruct",
            "Qwen2.5 Coder Instruct 7B",
            "alibaba",
            "2024-09-19"
        )),
        Some((
            "local/ollama/qwen2.5-coder:7b".to_string(),
            "localFamilySize"
        ))
    );
    assert_eq!(
        id(arena("llama-3.2-3b-instruct")).map(|(id, _)| id),
        Some("local/ollama/llama3.2:3b".to_string())
    );
    assert_eq!(
        id(arena("gemma-3-27b-it")).map(|(id, _)| id),
        Some("local/ollama/gemma3:27b-it-qat".to_string())
    );
    // A distill is not the model its name starts with.
    assert_eq!(
        id(aa(
            "deepseek-r1-distill-qwen-14b",
            "DeepSeek R1 Distill Qwen 14B",
            "deepseek",
            "2025-01-20"
        )),
        None
    );
    assert_eq!(
        id(aa(
            "deepseek-r1",
            "DeepSeek R1 0528 (May '25)",
            "deepseek",
            "2025-05-28"
        )),
        None
    );
    assert_eq!(id(arena("llama-3.2-1b-instruct")), None);
}
