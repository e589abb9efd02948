//! Records → [`Catalog`]: collapses OpenRouter variants onto base models, matches every
//! benchmark record (overrides applied), keeps each source's best record per model as its
//! values, adds local models, then normalizes and scores ([`super::scoring`]).
//!
//! Statistics see each base model once: variants (`:free`, `:batch`, `~…-latest`, a
//! "(Fast)" `-fast` twin) are collapsed first, a record matches at most one OpenRouter model,
//! and local models are scored against the OpenRouter population without joining it.

use super::card::{BenchmarkValue, Catalog, ModelCard, Pricing, SourceMatch, SourceStatus, Tier};
use super::matching::date::DateCode;
use super::matching::{self, MatchOverride, MatchTarget, Matcher, RecordMatch};
use super::record::{BenchmarkRecord, OpenRouterModel, SourceId};
use super::scoring::{self, classify, Weights, CONTEXT_METRIC, PRICE_METRIC};
use crate::hash::{FastMap, FastSet};

/// Most unmatched keys listed per source status.
pub const MAX_UNMATCHED_KEYS: usize = 200;

/// What is known about one source's snapshot besides its records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SnapshotInfo {
    /// RFC 3339 time the snapshot was fetched.
    pub fetched_at: Option<String>,
    /// Data date of the snapshot, `YYYY-MM-DD`.
    pub data_date: Option<String>,
    /// Records the parser skipped.
    pub skipped: u32,
    /// Error of the last refresh attempt (the snapshot in use is the previous good one).
    pub error: Option<String>,
}

/// One benchmark source's records and snapshot state.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkSource {
    /// Which source.
    pub source: SourceId,
    /// The parsed records.
    pub records: Vec<BenchmarkRecord>,
    /// Fetch time, data date, skipped count, last error.
    pub info: SnapshotInfo,
}

/// A model served by a local server (Ollama, LM Studio).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalModel {
    /// Server slug: `ollama`, `lmstudio`.
    pub server: String,
    /// The name the server lists (`qwen2.5-coder:7b`).
    pub name: String,
    /// Context length the server reports, when it does.
    pub context_length: Option<u64>,
}

impl LocalModel {
    /// The catalog id: `local/<server>/<name>`.
    pub fn card_id(&self) -> String {
        format!("local/{}/{}", self.server, self.name)
    }
}

/// Everything the catalog is built from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogInput {
    /// The OpenRouter listing, variants included.
    pub openrouter: Vec<OpenRouterModel>,
    /// The OpenRouter snapshot's state.
    pub openrouter_info: SnapshotInfo,
    /// At most one entry per source; a later entry of the same source is ignored.
    pub benchmarks: Vec<BenchmarkSource>,
    /// Users' match corrections; they always win.
    pub overrides: Vec<MatchOverride>,
    pub local_models: Vec<LocalModel>,
}

/// Builds the catalog with the bundled category weights.
pub fn build_catalog(input: &CatalogInput) -> Catalog {
    build_catalog_with(input, Weights::bundled())
}

/// Builds the catalog with the given weights.
pub fn build_catalog_with(input: &CatalogInput, weights: &Weights) -> Catalog {
    let groups = group_openrouter(&input.openrouter);
    let or_targets: Vec<MatchTarget> = groups
        .iter()
        .map(|g| {
            let rep = &input.openrouter[g.rep];
            MatchTarget {
                id: g.base_id.clone(),
                name: rep.name.clone(),
                canonical_slug: rep.canonical_slug.clone(),
                hugging_face_id: rep.hugging_face_id.clone(),
                created: rep.created,
                local: false,
            }
        })
        .collect();
    let mut cards: Vec<ModelCard> = groups
        .iter()
        .map(|g| openrouter_card(&input.openrouter, g))
        .collect();
    let or_count = cards.len();

    let mut seen_local = FastSet::default();
    let locals: Vec<&LocalModel> = input
        .local_models
        .iter()
        .filter(|m| seen_local.insert(m.card_id()))
        .collect();
    let mut local_targets = Vec::new();
    let mut local_target_card = Vec::new();
    for (i, model) in locals.iter().enumerate() {
        if matching::local::has_size(&model.name) {
            local_targets.push(matching::local::target(&model.card_id(), &model.name));
            local_target_card.push(or_count + i);
        }
    }
    cards.extend(locals.iter().map(|m| local_card(m)));

    let or_matcher = Matcher::new(&or_targets);
    let local_matcher = (!local_targets.is_empty()).then(|| Matcher::new(&local_targets));
    let mut statuses = Vec::with_capacity(SourceId::ALL.len());
    statuses.push(openrouter_status(input));
    let mut done = FastSet::default();
    for source in &input.benchmarks {
        if source.source == SourceId::OpenRouter || !done.insert(source.source) {
            continue;
        }
        let records = &source.records;
        let or_matches = or_matcher.match_all(records, &input.overrides);
        let local_matches = match &local_matcher {
            Some(m) => m.match_all(records, &input.overrides),
            None => vec![None; records.len()],
        };
        let mut matched = vec![false; records.len()];
        attach(&mut cards, records, &or_matches, &mut matched, Some);
        attach(&mut cards, records, &local_matches, &mut matched, |slot| {
            local_target_card.get(slot).copied()
        });
        statuses.push(source_status(source, &matched));
    }
    for source in SourceId::ALL {
        if !statuses.iter().any(|s| s.source == source) {
            statuses.push(empty_status(source));
        }
    }
    statuses.sort_by_key(|s| SourceId::ALL.iter().position(|x| *x == s.source));

    for card in &mut cards {
        add_derived_metrics(card);
        finish_facts(card);
    }
    scoring::score_cards(&mut cards, |card| !card.local, weights);
    let free_variants: FastSet<&str> = groups
        .iter()
        .filter(|g| g.free_variant)
        .map(|g| g.base_id.as_str())
        .collect();
    let reasoning_efforts: FastSet<&str> = groups
        .iter()
        .filter(|g| !input.openrouter[g.rep].reasoning_efforts.is_empty())
        .map(|g| g.base_id.as_str())
        .collect();
    for card in &mut cards {
        card.tier = classify::tier(&card.pricing, &card.provider, card.local, &weights.tiers);
        let facts = classify::TagFacts {
            pricing: &card.pricing,
            input_modalities: &card.input_modalities,
            supported_parameters: &card.supported_parameters,
            has_reasoning_efforts: reasoning_efforts.contains(card.id.as_str()),
            context_length: card.context_length.map(u64::from),
            output_speed: card.output_speed,
            free_variant: free_variants.contains(card.id.as_str()),
            local: card.local,
        };
        card.tags = classify::tags(&facts, weights);
    }

    let snapshot_date = statuses.iter().filter_map(|s| s.data_date.clone()).max();
    Catalog {
        snapshot_date,
        models: cards,
        sources: statuses,
    }
}

/// Ties matched records to cards: every match is listed; the primary record per card and
/// source supplies the values.
fn attach(
    cards: &mut [ModelCard],
    records: &[BenchmarkRecord],
    matches: &[Option<RecordMatch>],
    matched: &mut [bool],
    card_of: impl Fn(usize) -> Option<usize>,
) {
    let primary = matching::primary_flags(records, matches);
    for (i, m) in matches.iter().enumerate() {
        let Some(m) = m else { continue };
        let Some(card) = card_of(m.target).and_then(|c| cards.get_mut(c)) else {
            continue;
        };
        let record = &records[i];
        matched[i] = true;
        card.matches.push(SourceMatch {
            source: record.source,
            name: record.key.clone(),
            rule: m.rule,
            primary: primary[i],
        });
        if primary[i] {
            card.benchmarks
                .extend(record.metrics.iter().filter(|(_, v)| v.is_finite()).map(
                    |(metric, raw)| BenchmarkValue {
                        source: record.source,
                        metric: metric.clone(),
                        raw: *raw,
                        normalized: None,
                        record: record.key.clone(),
                    },
                ));
        }
    }
}

/// A base model and the listing entries collapsed onto it.
struct Group {
    base_id: String,
    /// Index of the entry the card's facts come from: the plain entry, else the first.
    rep: usize,
    variants: Vec<String>,
    free_variant: bool,
}

/// Groups listing entries by base model, in listing order. Besides the parser's `base_id`
/// (`:free`, `:batch`, `~…-latest`), an id `X-fast` named "… (Fast)" collapses onto a listed
/// `X`: the same model served faster at another price.
fn group_openrouter(models: &[OpenRouterModel]) -> Vec<Group> {
    let plain: FastSet<&str> = models
        .iter()
        .filter(|m| m.variant.is_none() && m.id == m.base_id)
        .map(|m| m.id.as_str())
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut index: FastMap<String, usize> = FastMap::default();
    let mut seen_ids = FastSet::default();
    for (i, model) in models.iter().enumerate() {
        if model.base_id.trim().is_empty() || !seen_ids.insert(model.id.as_str()) {
            continue;
        }
        let base = fast_twin_of(model, &plain).unwrap_or(model.base_id.as_str());
        let is_plain = model.variant.is_none() && model.id == base;
        let slot = *index.entry(base.to_string()).or_insert_with(|| {
            groups.push(Group {
                base_id: base.to_string(),
                rep: i,
                variants: Vec::new(),
                free_variant: false,
            });
            groups.len() - 1
        });
        let group = &mut groups[slot];
        if is_plain {
            if group.rep != i {
                let previous = models[group.rep].id.clone();
                if previous != base && !group.variants.contains(&previous) {
                    group.variants.push(previous);
                }
            }
            group.rep = i;
        } else {
            group.variants.push(model.id.clone());
            group.free_variant |= model.variant.as_deref() == Some("free");
        }
    }
    for group in &mut groups {
        let rep_id = models[group.rep].id.as_str();
        group.variants.retain(|v| v != rep_id);
    }
    groups
}

fn fast_twin_of<'a>(model: &OpenRouterModel, plain: &FastSet<&'a str>) -> Option<&'a str> {
    let base = model.id.strip_suffix("-fast")?;
    let named_fast = model
        .name
        .trim_end()
        .to_ascii_lowercase()
        .ends_with("(fast)");
    if !named_fast || model.variant.is_some() {
        return None;
    }
    plain.get(base).copied()
}

fn openrouter_card(models: &[OpenRouterModel], group: &Group) -> ModelCard {
    let rep = &models[group.rep];
    let name = rep
        .name
        .split_once(": ")
        .map_or(rep.name.as_str(), |(_, n)| n)
        .trim();
    let pricing = Pricing {
        prompt_per_m: rep.prompt_per_m,
        completion_per_m: rep.completion_per_m,
    };
    ModelCard {
        id: group.base_id.clone(),
        name: name.to_string(),
        provider: group
            .base_id
            .split_once('/')
            .map_or("", |(p, _)| p)
            .to_string(),
        description: rep.description.clone(),
        created: rep
            .created
            .and_then(DateCode::from_unix)
            .and_then(DateCode::iso),
        context_length: rep
            .context_length
            .map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
        input_modalities: rep.input_modalities.clone(),
        output_modalities: rep.output_modalities.clone(),
        supported_parameters: rep.supported_parameters.clone(),
        hugging_face_id: rep.hugging_face_id.clone(),
        pricing,
        blended_per_m: pricing.blended_per_m(),
        tier: Tier::Standard,
        tags: Vec::new(),
        categories: Default::default(),
        efficiency: Default::default(),
        benchmarks: Vec::new(),
        matches: Vec::new(),
        variants: group.variants.clone(),
        output_speed: None,
        ttft_seconds: None,
        local: false,
    }
}

fn local_card(model: &LocalModel) -> ModelCard {
    ModelCard {
        id: model.card_id(),
        name: model.name.clone(),
        provider: model.server.clone(),
        description: None,
        created: None,
        context_length: model
            .context_length
            .map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
        input_modalities: vec!["text".to_string()],
        output_modalities: vec!["text".to_string()],
        supported_parameters: Vec::new(),
        hugging_face_id: None,
        pricing: Pricing {
            prompt_per_m: Some(0.0),
            completion_per_m: Some(0.0),
        },
        tier: Tier::Budget,
        tags: Vec::new(),
        categories: Default::default(),
        efficiency: Default::default(),
        benchmarks: Vec::new(),
        matches: Vec::new(),
        variants: Vec::new(),
        output_speed: None,
        ttft_seconds: None,
        local: true,
        blended_per_m: Some(0.0),
    }
}

/// Price and context as metrics (source OpenRouter, record = the card id) so fast-cheap and
/// research can weigh them like any benchmark.
fn add_derived_metrics(card: &mut ModelCard) {
    let price = card.blended_per_m;
    let derived = [
        (PRICE_METRIC, price.filter(|p| p.is_finite() && *p >= 0.0)),
        (
            CONTEXT_METRIC,
            card.context_length.map(f64::from).filter(|c| *c > 0.0),
        ),
    ];
    for (metric, raw) in derived {
        if let Some(raw) = raw {
            card.benchmarks.push(BenchmarkValue {
                source: SourceId::OpenRouter,
                metric: metric.to_string(),
                raw,
                normalized: None,
                record: card.id.clone(),
            });
        }
    }
}

fn finish_facts(card: &mut ModelCard) {
    let raw = |metric: &str| {
        card.benchmarks
            .iter()
            .find(|b| b.metric == metric)
            .map(|b| b.raw)
    };
    card.output_speed = raw("aa.output_speed");
    card.ttft_seconds = raw("aa.ttft");
}

fn openrouter_status(input: &CatalogInput) -> SourceStatus {
    let records = u32::try_from(input.openrouter.len()).unwrap_or(u32::MAX);
    SourceStatus {
        source: SourceId::OpenRouter,
        fetched_at: input.openrouter_info.fetched_at.clone(),
        data_date: input.openrouter_info.data_date.clone(),
        records,
        matched: records,
        unmatched: 0,
        skipped: input.openrouter_info.skipped,
        error: input.openrouter_info.error.clone(),
        unmatched_keys: Vec::new(),
    }
}

fn source_status(source: &BenchmarkSource, matched: &[bool]) -> SourceStatus {
    let count = |flag: bool| matched.iter().filter(|m| **m == flag).count();
    let unmatched_keys = source
        .records
        .iter()
        .zip(matched)
        .filter(|(_, m)| !**m)
        .take(MAX_UNMATCHED_KEYS)
        .map(|(r, _)| r.key.clone())
        .collect();
    SourceStatus {
        source: source.source,
        fetched_at: source.info.fetched_at.clone(),
        data_date: source.info.data_date.clone(),
        records: u32::try_from(source.records.len()).unwrap_or(u32::MAX),
        matched: u32::try_from(count(true)).unwrap_or(u32::MAX),
        unmatched: u32::try_from(count(false)).unwrap_or(u32::MAX),
        skipped: source.info.skipped,
        error: source.info.error.clone(),
        unmatched_keys,
    }
}

fn empty_status(source: SourceId) -> SourceStatus {
    SourceStatus {
        source,
        fetched_at: None,
        data_date: None,
        records: 0,
        matched: 0,
        unmatched: 0,
        skipped: 0,
        error: None,
        unmatched_keys: Vec::new(),
    }
}
