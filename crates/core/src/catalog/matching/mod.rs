//! Alias matching: ties benchmark records (AA, LMArena, LiveBench, HF) to OpenRouter base
//! models (and local models), precision first.
//!
//! Names are parsed once ([`name`]) into tokens, a date and a reasoning/effort suffix; each
//! target's aliases are indexed in hash maps ([`ModelIndex`]); a record walks the tiers from
//! strict to loose and stops at the first tier with candidates:
//!
//! 1. `exactId`: the key equals an id tail or canonical slug tail (`gemini-2.5-pro`).
//! 2. `reasoningSibling`: a record marked reasoning finds the dedicated thinking model
//!    (AA "Qwen3 235B A22B 2507 (Reasoning)" → `qwen3-235b-a22b-thinking-2507`).
//! 3. `normalizedName`, `wordOrder`, `looseName` on the full tokens, then the same after
//!    dropping each unit of the trailing mode run (`-thinking-32k`, `-high-effort`), reported
//!    as `variantSuffix` (or `looseName`).
//! 4. `dateCodeVersion`: a date code standing in for a version (`mistral-medium-2508` →
//!    Mistral Medium 3.1, listed in Aug 2025), only when exactly one version fits the date.
//!
//! At every tier candidates are vetoed by vendor (renames known, see [`vendor`]) and by date:
//! a dated record must be within [`date::SAME_CHECKPOINT_DAYS`] of the model's id date, or of
//! a date in its canonical slug or name, or within the listing lag of `created`; an undated
//! record never lands on an alias that states a date. Several survivors → the closest date;
//! a tie → no match. HF rows match only through `hugging_face_id` (`exactHfId`).
//! Manual overrides ([`MatchOverride`]) are applied on top and always win (`manual`).

pub mod date;
mod index;
pub mod local;
mod lookup;
pub mod name;
pub mod vendor;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::hash::FastMap;
pub use index::{MatchTarget, ModelIndex};
pub use lookup::RecordProbe;

use super::record::{BenchmarkRecord, SourceId};

/// The rule that tied a record to a model; its [`MatchRule::id`] is stored with the match.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum MatchRule {
    /// A user's override.
    Manual,
    /// HF `fullname` equals OpenRouter's `hugging_face_id` (case-insensitive).
    ExactHfId,
    /// The key equals an OpenRouter id tail or canonical slug tail.
    ExactId,
    /// Same tokens in the same order after normalizing case, separators and versions.
    NormalizedName,
    /// Same tokens in another order (`claude-4.5-opus` = `claude-opus-4.5`).
    WordOrder,
    /// Same tokens once a reasoning/effort/budget suffix is removed (`-thinking-32k`).
    VariantSuffix,
    /// A reasoning-mode row matched to the model's dedicated thinking sibling.
    ReasoningSibling,
    /// Same tokens after dropping words such as `instruct`, `it`, `preview`.
    LooseName,
    /// A date code standing in for a version, unique by date.
    DateCodeVersion,
    /// A local model matched by family and parameter count.
    LocalFamilySize,
}

impl MatchRule {
    /// Stable camelCase id (`exactHfId`, `wordOrder`, ...).
    pub fn id(self) -> &'static str {
        match self {
            MatchRule::Manual => "manual",
            MatchRule::ExactHfId => "exactHfId",
            MatchRule::ExactId => "exactId",
            MatchRule::NormalizedName => "normalizedName",
            MatchRule::WordOrder => "wordOrder",
            MatchRule::VariantSuffix => "variantSuffix",
            MatchRule::ReasoningSibling => "reasoningSibling",
            MatchRule::LooseName => "looseName",
            MatchRule::DateCodeVersion => "dateCodeVersion",
            MatchRule::LocalFamilySize => "localFamilySize",
        }
    }

    /// How much a match by this rule is trusted when choosing which of several records of
    /// one source supplies a model's values (higher wins before any metric is compared).
    pub fn strength(self) -> u8 {
        match self {
            MatchRule::Manual => 4,
            MatchRule::ExactHfId
            | MatchRule::ExactId
            | MatchRule::NormalizedName
            | MatchRule::WordOrder
            | MatchRule::VariantSuffix
            | MatchRule::ReasoningSibling
            | MatchRule::LocalFamilySize => 3,
            MatchRule::LooseName => 2,
            MatchRule::DateCodeVersion => 1,
        }
    }
}

/// Whether an override adds or removes a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum OverrideAction {
    /// The record belongs to the model, whatever the automatic matcher says.
    Add,
    /// The record does not belong to the model; the automatic match (if it is this model)
    /// is dropped and the record stays unmatched.
    Remove,
}

/// A user's correction of a match, stored and applied on every refresh.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MatchOverride {
    /// The record's source.
    pub source: SourceId,
    /// The record's key in its source.
    pub key: String,
    /// Catalog model id (`anthropic/claude-opus-4.5` or `local/ollama/llama3.2:3b`).
    pub model_id: String,
    /// Add or remove.
    pub action: OverrideAction,
}

/// A record tied to a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordMatch {
    /// Index of the target in the slice the [`Matcher`] was built from.
    pub target: usize,
    /// How it was tied.
    pub rule: MatchRule,
}

/// Matches records of any source against a fixed set of targets.
#[derive(Debug, Clone)]
pub struct Matcher {
    index: ModelIndex,
    ids: FastMap<String, usize>,
    local: bool,
}

impl Matcher {
    /// Indexes the targets (OpenRouter base models, or local models: not both in one matcher).
    pub fn new(targets: &[MatchTarget]) -> Matcher {
        Matcher {
            index: ModelIndex::build(targets),
            ids: targets
                .iter()
                .enumerate()
                .map(|(i, t)| (t.id.clone(), i))
                .collect(),
            local: targets.first().is_some_and(|t| t.local),
        }
    }

    /// The automatic match of one record, ignoring overrides.
    pub fn match_record(&self, record: &BenchmarkRecord) -> Option<RecordMatch> {
        self.match_with(record, &mut String::new())
    }

    fn match_with(&self, record: &BenchmarkRecord, buffer: &mut String) -> Option<RecordMatch> {
        if record.source == SourceId::HfLeaderboard {
            let target = self.index.find_hugging_face(&record.key, buffer)? as usize;
            return Some(RecordMatch {
                target,
                rule: MatchRule::ExactHfId,
            });
        }
        let probe = RecordProbe::new(
            &record.key,
            record.display_name.as_deref(),
            record.creator.as_deref(),
            record.release_date.as_deref(),
        );
        let (target, rule) = self.index.find(&probe)?;
        let rule = if self.local {
            MatchRule::LocalFamilySize
        } else {
            rule
        };
        Some(RecordMatch {
            target: target as usize,
            rule,
        })
    }

    /// Matches every record, then applies the overrides of the records' source: an `Add`
    /// names the target (by id) outright; a `Remove` drops the automatic match to that id.
    /// Overrides naming an id this matcher does not hold are ignored.
    pub fn match_all(
        &self,
        records: &[BenchmarkRecord],
        overrides: &[MatchOverride],
    ) -> Vec<Option<RecordMatch>> {
        let mut buffer = String::new();
        let mut result: Vec<Option<RecordMatch>> = records
            .iter()
            .map(|r| self.match_with(r, &mut buffer))
            .collect();
        if overrides.is_empty() {
            return result;
        }
        let by_key: FastMap<(SourceId, &str), usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.source, r.key.as_str()), i))
            .collect();
        for o in overrides {
            let Some(&record) = by_key.get(&(o.source, o.key.as_str())) else {
                continue;
            };
            let Some(&target) = self.ids.get(&o.model_id) else {
                continue;
            };
            match o.action {
                OverrideAction::Add => {
                    result[record] = Some(RecordMatch {
                        target,
                        rule: MatchRule::Manual,
                    });
                }
                OverrideAction::Remove => {
                    if result[record].is_some_and(|m| m.target == target) {
                        result[record] = None;
                    }
                }
            }
        }
        result
    }

    /// Whether `model_id` is removed from `record` by an override (for matchers that must
    /// honour removals of ids they do not hold themselves).
    pub fn removed(overrides: &[MatchOverride], record: &BenchmarkRecord, model_id: &str) -> bool {
        overrides.iter().any(|o| {
            o.action == OverrideAction::Remove
                && o.source == record.source
                && o.key == record.key
                && o.model_id == model_id
        })
    }
}

/// The metric that ranks several records of one source matched to one model (the best
/// variant supplies the values): AA intelligence index, LMArena overall, HF average;
/// LiveBench (and any record without it) by the mean of its metrics.
pub fn primary_metric(source: SourceId) -> Option<&'static str> {
    match source {
        SourceId::ArtificialAnalysis => Some("aa.intelligence_index"),
        SourceId::LmArena => Some("lmarena.overall"),
        SourceId::HfLeaderboard => Some("hf.average"),
        SourceId::LiveBench => Some("livebench.global_average"),
        SourceId::OpenRouter => None,
    }
}

/// How strongly a record represents its model, for choosing the primary record.
pub fn record_strength(record: &BenchmarkRecord) -> f64 {
    if let Some(value) = primary_metric(record.source).and_then(|m| record.metrics.get(m)) {
        return *value;
    }
    let values: Vec<f64> = record
        .metrics
        .values()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if values.is_empty() {
        f64::NEG_INFINITY
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// For each record, whether it is its target's primary record of this source: per target the
/// one with the strongest rule, then the highest [`record_strength`], then the first listed.
/// Every matched target gets exactly one primary record.
pub fn primary_flags(records: &[BenchmarkRecord], matches: &[Option<RecordMatch>]) -> Vec<bool> {
    let mut best: FastMap<usize, (usize, u8, f64)> = FastMap::default();
    for (i, m) in matches.iter().enumerate() {
        let Some(m) = m else { continue };
        let Some(record) = records.get(i) else {
            continue;
        };
        let candidate = (i, m.rule.strength(), record_strength(record));
        best.entry(m.target)
            .and_modify(|current| {
                let better = (candidate.1, candidate.2) > (current.1, current.2);
                if better {
                    *current = candidate;
                }
            })
            .or_insert(candidate);
    }
    let mut flags = vec![false; matches.len()];
    for (i, _, _) in best.into_values() {
        flags[i] = true;
    }
    flags
}
