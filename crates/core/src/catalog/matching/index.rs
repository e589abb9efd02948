//! The lookup structure over match targets (OpenRouter base models or local models) and the
//! tiered search that ties one benchmark record to at most one target.
//!
//! Every target's aliases (id tail, canonical slug, display name with and without vendor,
//! vendor + id tail, Hugging Face repo name) are parsed once into hash-map keys, so a record
//! costs a handful of hash lookups instead of a scan over all models.

use std::collections::HashMap;

use super::date::{DateCode, SAME_CHECKPOINT_DAYS};
use super::name::{
    bag_key, loose_key, loose_key_always, ordered_key, parse_name, specific_enough, NameParts,
};
use super::vendor;
use super::MatchRule;

/// A model records can be matched to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchTarget {
    /// Catalog id: OpenRouter base id (`anthropic/claude-opus-4.5`) or local card id.
    pub id: String,
    /// Display name ("Anthropic: Claude Opus 4.5"); for a local model, its matchable name
    /// (see [`super::local::matchable_name`]).
    pub name: String,
    /// Dated slug (`anthropic/claude-4.5-opus-20251124`).
    pub canonical_slug: Option<String>,
    /// Exact Hugging Face repo id, the only key HF leaderboard rows match on.
    pub hugging_face_id: Option<String>,
    /// Unix seconds when the model was listed.
    pub created: Option<i64>,
    /// A local model: matched by family and size only (no dates, no vendor).
    pub local: bool,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    target: u32,
    /// The alias itself carried a date (a dated id, canonical slug or name): an undated
    /// record (`deepseek-r1` on LMArena) must not land on it (`deepseek-r1-0528`).
    dated: bool,
    /// The alias names `instruct`: a reasoning row must not reach it by dropping the word
    /// (AA "Qwen3 VL 32B (Reasoning)" is not `qwen3-vl-32b-instruct`).
    instruct: bool,
    /// Loose-tier entry that needed words dropped to reach this key; removed from a bucket
    /// that has a plain owner (`gpt-3.5-turbo` owns the key, not `gpt-3.5-turbo-instruct`).
    dropped: bool,
}

#[derive(Debug, Clone, Default)]
struct TargetInfo {
    id_tail: String,
    vendor: Option<String>,
    /// Date in the id itself: authoritative when present (`mistral-large-2407`).
    id_date: Option<DateCode>,
    /// Dates from the canonical slug and name; any one may vouch for a record's date.
    stated_dates: Vec<DateCode>,
    /// Listing date; a record may predate it by up to [`LISTING_LAG_DAYS`] when no other
    /// date is known.
    created: Option<DateCode>,
    /// Some alias says `preview` or `beta`.
    pre_release: bool,
}

/// How long after a release OpenRouter may list a model (`created` is a listing date).
const LISTING_LAG_DAYS: i64 = 60;

/// How long after its listing a record's date may be and still name the listed checkpoint.
const AFTER_LISTING_DAYS: i64 = 30;

/// Words marking a pre-release checkpoint.
const PRE_RELEASE: &[&str] = &["preview", "beta"];

type KeyMap = HashMap<String, Vec<Entry>>;

/// Hash maps from normalized name keys to targets, one per matching tier.
#[derive(Debug, Clone, Default)]
pub struct ModelIndex {
    targets: Vec<TargetInfo>,
    exact: KeyMap,
    ordered: KeyMap,
    bag: KeyMap,
    loose: KeyMap,
    versionless: KeyMap,
    hugging_face: HashMap<String, Vec<u32>>,
}

/// A record prepared for lookup: parsed once, tried against every tier.
#[derive(Debug, Clone)]
pub struct RecordProbe {
    key_lower: String,
    aliases: Vec<NameParts>,
    date: Option<DateCode>,
    /// The record's own name states a date with a year (not only a `release_date`).
    named_year: bool,
    vendor: Option<String>,
    reasoning: Option<bool>,
    /// Some alias has a reasoning/effort suffix or qualifier.
    has_mode: bool,
    /// Some alias says `preview` or `beta`.
    pre_release: bool,
}

impl RecordProbe {
    /// Prepares a record by its key, display name, creator and release date.
    pub fn new(
        key: &str,
        display_name: Option<&str>,
        creator: Option<&str>,
        release_date: Option<&str>,
    ) -> RecordProbe {
        let mut aliases = vec![parse_name(key)];
        if let Some(name) = display_name.filter(|n| !n.eq_ignore_ascii_case(key)) {
            aliases.push(parse_name(name));
        }
        let named = aliases.iter().find_map(|a| a.date);
        let released = release_date.and_then(DateCode::parse_iso);
        let reasoning = aliases.iter().find_map(|a| a.reasoning);
        RecordProbe {
            key_lower: key.trim().to_ascii_lowercase(),
            date: released.or(named),
            named_year: named.and_then(DateCode::year).is_some(),
            vendor: creator.map(str::to_string),
            reasoning,
            has_mode: aliases
                .iter()
                .any(|a| a.has_mode_run() || a.reasoning.is_some()),
            pre_release: aliases.iter().any(|a| has_any(&a.tokens, PRE_RELEASE)),
            aliases,
        }
    }
}

enum Resolution {
    Decided(u32),
    Ambiguous,
    Empty,
}

impl ModelIndex {
    /// Builds the index; target `i` is reported back as `i`.
    pub fn build(targets: &[MatchTarget]) -> ModelIndex {
        let mut index = ModelIndex::default();
        for (i, target) in targets.iter().enumerate() {
            let Ok(slot) = u32::try_from(i) else { break };
            index.add(slot, target);
        }
        for entries in index.loose.values_mut() {
            if entries.iter().any(|e| !e.dropped) {
                entries.retain(|e| !e.dropped);
            }
        }
        index
    }

    /// Number of targets indexed.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether no target was indexed.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    fn add(&mut self, slot: u32, target: &MatchTarget) {
        // A local model's id is its catalog id; its matchable form is the name.
        let id = parse_name(if target.local {
            &target.name
        } else {
            &target.id
        });
        let created = target.created.and_then(DateCode::from_unix);
        let mut info = TargetInfo {
            id_tail: id_tail(&target.id).to_ascii_lowercase(),
            vendor: if target.local {
                None
            } else {
                id.vendor.clone()
            },
            id_date: id.date,
            stated_dates: Vec::new(),
            created,
            pre_release: has_any(&id.tokens, PRE_RELEASE),
        };
        if let Some(hf) = target
            .hugging_face_id
            .as_deref()
            .filter(|h| !h.trim().is_empty())
        {
            self.hugging_face
                .entry(hf.trim().to_ascii_lowercase())
                .or_default()
                .push(slot);
        }
        if target.local {
            if id.tokens.iter().any(|t| is_size(t)) {
                self.add_alias(slot, &id.tokens, false);
            }
            self.targets.push(info);
            return;
        }

        self.exact
            .entry(info.id_tail.clone())
            .or_default()
            .push(Entry::plain(slot, id.date.is_some()));
        let first_id_token = id.tokens.first().cloned();
        self.add_alias(slot, &id.tokens, id.date.is_some());
        if let Some(vendor) = id.vendor.as_deref() {
            let prefixed = with_vendor(vendor, &id.tokens);
            self.add_alias(slot, &prefixed, id.date.is_some());
        }
        if let Some(slug) = target.canonical_slug.as_deref().filter(|s| !s.is_empty()) {
            let canonical = parse_name(slug);
            let tail = id_tail(slug).to_ascii_lowercase();
            if tail != info.id_tail {
                self.exact
                    .entry(tail)
                    .or_default()
                    .push(Entry::plain(slot, canonical.date.is_some()));
            }
            info.stated_dates.extend(canonical.date);
            info.pre_release |= has_any(&canonical.tokens, PRE_RELEASE);
            self.add_alias(slot, &canonical.tokens, canonical.date.is_some());
        }
        let name = parse_name(&target.name);
        info.stated_dates.extend(name.date);
        info.pre_release |= has_any(&name.tokens, PRE_RELEASE);
        // "Mistral Large 3 2512" names its version beside the date: an undated record
        // ("mistral-large-3") may use it. "R1 0528" has only the date to tell it apart.
        let name_dated = name.date.is_some()
            && !name
                .tokens
                .iter()
                .any(|t| is_version(t) && !id.tokens.contains(t));
        let shares_family = name.tokens.first() == first_id_token.as_ref();
        if name.tokens.len() >= 3 || shares_family {
            self.add_alias(slot, &name.tokens, name_dated);
        }
        if let Some(vendor) = name.vendor.as_deref() {
            self.add_alias(slot, &with_vendor(vendor, &name.tokens), name_dated);
        }
        if let Some(hf) = target
            .hugging_face_id
            .as_deref()
            .filter(|h| h.contains('/'))
        {
            let repo = parse_name(hf);
            self.add_alias(slot, &repo.tokens, repo.date.is_some());
        }
        self.targets.push(info);
    }

    fn add_alias(&mut self, slot: u32, tokens: &[String], dated: bool) {
        if !specific_enough(tokens) {
            return;
        }
        let entry = Entry::plain(slot, dated);
        let instruct = tokens.iter().any(|t| t == "instruct");
        push_unique(&mut self.ordered, ordered_key(tokens), entry);
        push_unique(&mut self.bag, bag_key(tokens), entry);
        let (loose, dropped) = match loose_key(tokens) {
            Some(key) => (key, true),
            None => (bag_key(tokens), false),
        };
        push_unique(
            &mut self.loose,
            loose,
            Entry {
                instruct,
                dropped,
                ..entry
            },
        );
        let versions = tokens.iter().filter(|t| is_version(t)).count();
        if versions == 1 {
            let rest: Vec<String> = tokens
                .iter()
                .filter(|t| !is_version(t) && !is_size(t))
                .cloned()
                .collect();
            if specific_enough(&rest) {
                push_unique(&mut self.versionless, loose_key_always(&rest), entry);
            }
        }
    }

    /// Targets whose Hugging Face id equals `repo` (case-insensitive); the only way HF
    /// leaderboard rows match.
    pub fn find_hugging_face(&self, repo: &str) -> Option<u32> {
        match self
            .hugging_face
            .get(&repo.trim().to_ascii_lowercase())?
            .as_slice()
        {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// The target a record names, and the rule that decided it; `None` when no target fits
    /// or several fit equally well (a wrong match is worse than none).
    pub fn find(&self, probe: &RecordProbe) -> Option<(u32, MatchRule)> {
        let mut gathered = Vec::new();
        if let Some(entries) = self.exact.get(&probe.key_lower) {
            match self.resolve(entries, probe) {
                Resolution::Decided(t) => return Some((t, MatchRule::ExactId)),
                Resolution::Ambiguous => return None,
                Resolution::Empty => {}
            }
        }
        if probe.reasoning == Some(true) {
            for alias in &probe.aliases {
                let mut sibling: Vec<String> = alias
                    .base_tokens()
                    .iter()
                    .filter(|t| *t != "instruct")
                    .cloned()
                    .collect();
                if sibling.iter().any(|t| t == "thinking") {
                    continue;
                }
                sibling.push("thinking".to_string());
                gather(&self.bag, &bag_key(&sibling), &mut gathered, |_| true);
            }
            match self.resolve(&gathered, probe) {
                Resolution::Decided(t) => return Some((t, MatchRule::ReasoningSibling)),
                Resolution::Ambiguous => return None,
                Resolution::Empty => {}
            }
        }
        let levels = probe
            .aliases
            .iter()
            .map(|a| a.strip_points.len())
            .max()
            .unwrap_or(0);
        for level in 0..=levels {
            for tier in [Tier::Ordered, Tier::Bag, Tier::Loose] {
                gathered.clear();
                for alias in &probe.aliases {
                    let Some(tokens) = level_tokens(alias, level) else {
                        continue;
                    };
                    if !specific_enough(tokens) {
                        continue;
                    }
                    match tier {
                        Tier::Ordered => {
                            gather(&self.ordered, &ordered_key(tokens), &mut gathered, |_| true)
                        }
                        Tier::Bag => gather(&self.bag, &bag_key(tokens), &mut gathered, |_| true),
                        Tier::Loose => {
                            let key = loose_key(tokens).unwrap_or_else(|| bag_key(tokens));
                            let reasoning_without_instruct = probe.reasoning == Some(true)
                                && !tokens.iter().any(|t| t == "instruct");
                            gather(&self.loose, &key, &mut gathered, |e| {
                                !(reasoning_without_instruct && e.instruct)
                            });
                        }
                    }
                }
                match self.resolve(&gathered, probe) {
                    Resolution::Decided(t) => return Some((t, tier.rule(level, probe.has_mode))),
                    Resolution::Ambiguous => return None,
                    Resolution::Empty => {}
                }
            }
        }
        if probe.named_year {
            gathered.clear();
            for alias in &probe.aliases {
                let levels = (0..=alias.strip_points.len()).filter_map(|l| level_tokens(alias, l));
                for tokens in levels {
                    if tokens.iter().any(|t| is_version(t)) || !specific_enough(tokens) {
                        continue;
                    }
                    gather(
                        &self.versionless,
                        &loose_key_always(tokens),
                        &mut gathered,
                        |_| true,
                    );
                }
            }
            if let Resolution::Decided(t) = self.resolve(&gathered, probe) {
                return Some((t, MatchRule::DateCodeVersion));
            }
        }
        None
    }

    /// Filters candidates by vendor and date, then picks the closest date; ties go to the
    /// target whose id tail is the record key, otherwise the result is ambiguous.
    fn resolve(&self, entries: &[Entry], probe: &RecordProbe) -> Resolution {
        let mut best: Option<(u32, (i64, bool))> = None;
        let mut tied = false;
        for entry in entries {
            let Some(info) = self.targets.get(entry.target as usize) else {
                continue;
            };
            if vendor::conflict(probe.vendor.as_deref(), info.vendor.as_deref()) {
                continue;
            }
            // A preview/beta row belongs to a released model only when its date says so.
            let pre_release_only = probe.pre_release && !info.pre_release;
            let distance = match probe.date {
                None if entry.dated || pre_release_only => continue,
                None => 0,
                Some(date) => match date_distance(info, date, !pre_release_only) {
                    Some(distance) => distance,
                    None => continue,
                },
            };
            let score = (distance, info.id_tail != probe.key_lower);
            match best {
                Some((current, current_score)) if current == entry.target => {
                    if score < current_score {
                        best = Some((current, score));
                        tied = false;
                    }
                }
                Some((_, current_score)) if score == current_score => tied = true,
                Some((_, current_score)) if score > current_score => {}
                _ => {
                    best = Some((entry.target, score));
                    tied = false;
                }
            }
        }
        match best {
            Some(_) if tied => Resolution::Ambiguous,
            Some((target, _)) => Resolution::Decided(target),
            None => Resolution::Empty,
        }
    }
}

/// Days between a record's date and the closest date vouching for the target, or `None`
/// when the dates say they are different checkpoints. `allow_lag` lets a record predate a
/// target known only by its listing date by up to [`LISTING_LAG_DAYS`].
fn date_distance(info: &TargetInfo, date: DateCode, allow_lag: bool) -> Option<i64> {
    if let Some(id_date) = info.id_date {
        return id_date
            .compatible(date)
            .then(|| date.gap_days(id_date).abs());
    }
    let stated = info
        .stated_dates
        .iter()
        .filter(|d| d.compatible(date))
        .map(|d| date.gap_days(*d).abs());
    let window = if !info.stated_dates.is_empty() {
        // `created` is one more date (OpenRouter slugs carry year typos it corrects).
        -SAME_CHECKPOINT_DAYS..=SAME_CHECKPOINT_DAYS
    } else if allow_lag {
        -LISTING_LAG_DAYS..=AFTER_LISTING_DAYS
    } else {
        -SAME_CHECKPOINT_DAYS..=AFTER_LISTING_DAYS
    };
    let listed = info.created.and_then(|created| {
        let gap = date.gap_days(created);
        window.contains(&gap).then_some(gap.abs())
    });
    let closest = stated.chain(listed).min();
    if closest.is_none() && info.stated_dates.is_empty() && info.created.is_none() {
        return Some(0);
    }
    closest
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Ordered,
    Bag,
    Loose,
}

impl Tier {
    fn rule(self, level: usize, has_mode: bool) -> MatchRule {
        match self {
            Tier::Loose => MatchRule::LooseName,
            _ if level > 0 || has_mode => MatchRule::VariantSuffix,
            Tier::Ordered => MatchRule::NormalizedName,
            Tier::Bag => MatchRule::WordOrder,
        }
    }
}

impl Entry {
    fn plain(target: u32, dated: bool) -> Entry {
        Entry {
            target,
            dated,
            instruct: false,
            dropped: false,
        }
    }
}

/// The tokens of `alias` at strip level `level` (0 = all), `None` past its mode run.
fn level_tokens(alias: &NameParts, level: usize) -> Option<&[String]> {
    match level {
        0 => Some(alias.tokens.as_slice()),
        _ => alias
            .strip_points
            .get(level - 1)
            .map(|&end| &alias.tokens[..end]),
    }
}

fn gather(map: &KeyMap, key: &str, out: &mut Vec<Entry>, keep: impl Fn(&Entry) -> bool) {
    if let Some(entries) = map.get(key) {
        out.extend(entries.iter().filter(|e| keep(e)).copied());
    }
}

fn has_any(tokens: &[String], words: &[&str]) -> bool {
    tokens.iter().any(|t| words.contains(&t.as_str()))
}

fn push_unique(map: &mut KeyMap, key: String, entry: Entry) {
    let entries = map.entry(key).or_default();
    match entries.iter_mut().find(|e| e.target == entry.target) {
        // The plainest alias of a target decides: reachable undated, without dropped words.
        Some(existing) => {
            existing.dated &= entry.dated;
            existing.dropped &= entry.dropped;
            existing.instruct &= entry.instruct;
        }
        None => entries.push(entry),
    }
}

fn id_tail(id: &str) -> &str {
    let id = id.trim().trim_start_matches('~');
    let tail = id.rsplit_once('/').map_or(id, |(_, tail)| tail);
    tail.split(':').next().unwrap_or(tail)
}

/// Vendor tokens before the name tokens, without repeating a shared word
/// (`meta-llama` + `llama 3.3 70b` → `meta llama 3.3 70b`).
fn with_vendor(vendor: &str, tokens: &[String]) -> Vec<String> {
    let mut out = parse_name(vendor).tokens;
    let skip = usize::from(out.last().is_some_and(|last| tokens.first() == Some(last)));
    out.extend(tokens.iter().skip(skip).cloned());
    out
}

/// A bare version number (`3`, `3.1`, `4.20`).
fn is_version(token: &str) -> bool {
    token.bytes().any(|b| b.is_ascii_digit())
        && token.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// A parameter count (`70b`, `1.5b`, `2.4t`, `270m`).
pub(crate) fn is_size(token: &str) -> bool {
    let Some(stem) = token.strip_suffix(['b', 't', 'm']) else {
        return false;
    };
    !stem.is_empty()
        && stem.bytes().any(|b| b.is_ascii_digit())
        && stem.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}
