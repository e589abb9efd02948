//! The lookup structure over match targets (OpenRouter base models or local models).
//!
//! Every target's aliases (id tail, canonical slug, display name with and without vendor,
//! vendor + id tail, Hugging Face repo name) are parsed once into hash-map keys, one map per
//! matching tier, so a record costs a handful of hash lookups instead of a scan over all
//! models. The search itself is in [`super::lookup`].

use super::date::DateCode;
use super::name::{parse_name, specific_enough, write_bag, write_loose, write_ordered};
use super::vendor;
use crate::hash::FastMap;

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
pub(super) struct Entry {
    pub(super) target: u32,
    /// The alias itself carried a date (a dated id, canonical slug or name): an undated
    /// record (`deepseek-r1` on LMArena) must not land on it (`deepseek-r1-0528`).
    pub(super) dated: bool,
    /// The alias names `instruct`: a reasoning row must not reach it by dropping the word
    /// (AA "Qwen3 VL 32B (Reasoning)" is not `qwen3-vl-32b-instruct`).
    pub(super) instruct: bool,
    /// Loose-tier entry that needed words dropped to reach this key; removed from a bucket
    /// that has a plain owner (`gpt-3.5-turbo` owns the key, not `gpt-3.5-turbo-instruct`).
    pub(super) dropped: bool,
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

#[derive(Debug, Clone, Default)]
pub(super) struct TargetInfo {
    pub(super) id_tail: String,
    /// Canonical vendor ([`vendor::canonical_vendor`]) when known.
    pub(super) vendor: Option<&'static str>,
    /// Date in the id itself: authoritative when present (`mistral-large-2407`).
    pub(super) id_date: Option<DateCode>,
    /// Dates from the canonical slug and name; any one may vouch for a record's date.
    pub(super) stated_dates: Vec<DateCode>,
    /// Listing date; a record may predate it by the listing lag when no other date is known.
    pub(super) created: Option<DateCode>,
    /// Some alias says `preview` or `beta`.
    pub(super) pre_release: bool,
}

/// Words marking a pre-release checkpoint.
pub(super) const PRE_RELEASE: &[&str] = &["preview", "beta"];

pub(super) type KeyMap = FastMap<Box<str>, Vec<Entry>>;

/// Hash maps from normalized name keys to targets, one per matching tier.
#[derive(Debug, Clone, Default)]
pub struct ModelIndex {
    pub(super) targets: Vec<TargetInfo>,
    pub(super) exact: KeyMap,
    pub(super) ordered: KeyMap,
    pub(super) bag: KeyMap,
    pub(super) loose: KeyMap,
    pub(super) versionless: KeyMap,
    hugging_face: FastMap<Box<str>, Vec<u32>>,
}

/// Reused buffers for building keys.
#[derive(Default)]
struct Scratch<'a> {
    key: String,
    words: Vec<&'a str>,
}

impl ModelIndex {
    /// Builds the index; target `i` is reported back as `i`.
    pub fn build(targets: &[MatchTarget]) -> ModelIndex {
        let keys = targets.len() * 4;
        let map = || KeyMap::with_capacity_and_hasher(keys, Default::default());
        let mut index = ModelIndex {
            targets: Vec::with_capacity(targets.len()),
            exact: KeyMap::with_capacity_and_hasher(targets.len() * 2, Default::default()),
            ordered: map(),
            bag: map(),
            loose: map(),
            versionless: map(),
            hugging_face: FastMap::with_capacity_and_hasher(targets.len(), Default::default()),
        };
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

    /// The target whose Hugging Face id equals `repo` (case-insensitive); the only way HF
    /// leaderboard rows match. `buffer` is scratch space reused across calls.
    pub fn find_hugging_face(&self, repo: &str, buffer: &mut String) -> Option<u32> {
        buffer.clear();
        buffer.push_str(repo.trim());
        buffer.make_ascii_lowercase();
        match self.hugging_face.get(buffer.as_str())?.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    fn add(&mut self, slot: u32, target: &MatchTarget) {
        // A local model's id is its catalog id; its matchable form is the name.
        let id = parse_name(if target.local {
            &target.name
        } else {
            &target.id
        });
        let mut info = TargetInfo {
            id_tail: id_tail(&target.id).to_ascii_lowercase(),
            vendor: if target.local {
                None
            } else {
                id.vendor.as_deref().and_then(vendor::canonical_vendor)
            },
            id_date: id.date,
            stated_dates: Vec::new(),
            created: target.created.and_then(DateCode::from_unix),
            pre_release: has_any(&id.tokens, PRE_RELEASE),
        };
        if let Some(hf) = target
            .hugging_face_id
            .as_deref()
            .map(str::trim)
            .filter(|h| !h.is_empty())
        {
            let key: Box<str> = hf.to_ascii_lowercase().into();
            self.hugging_face.entry(key).or_default().push(slot);
        }
        let canonical = target
            .canonical_slug
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(parse_name);
        let name = parse_name(&target.name);
        let name_vendor = name.vendor.as_deref().map(|v| parse_name(v).tokens);
        let id_vendor = id.vendor.as_deref().map(|v| parse_name(v).tokens);
        let repo = target
            .hugging_face_id
            .as_deref()
            .filter(|h| h.contains('/'))
            .map(parse_name);
        let mut aliases: Vec<(Vec<&str>, bool)> = Vec::with_capacity(6);
        if target.local {
            if id.tokens.iter().any(|t| is_size(t)) {
                aliases.push((strs(&id.tokens), false));
            }
        } else {
            self.add_exact(&info.id_tail, Entry::plain(slot, id.date.is_some()));
            aliases.push((strs(&id.tokens), id.date.is_some()));
            if let Some(vendor) = &id_vendor {
                aliases.push((with_vendor(vendor, &id.tokens), id.date.is_some()));
            }
            if let (Some(slug), Some(canonical)) = (target.canonical_slug.as_deref(), &canonical) {
                let tail = id_tail(slug).to_ascii_lowercase();
                if tail != info.id_tail {
                    self.add_exact(&tail, Entry::plain(slot, canonical.date.is_some()));
                }
                info.stated_dates.extend(canonical.date);
                info.pre_release |= has_any(&canonical.tokens, PRE_RELEASE);
                aliases.push((strs(&canonical.tokens), canonical.date.is_some()));
            }
            info.stated_dates.extend(name.date);
            info.pre_release |= has_any(&name.tokens, PRE_RELEASE);
            // "Mistral Large 3 2512" names its version beside the date: an undated record
            // ("mistral-large-3") may use it. "R1 0528" has only the date to tell it apart.
            let name_dated = name.date.is_some()
                && !name
                    .tokens
                    .iter()
                    .any(|t| is_version(t) && !id.tokens.contains(t));
            if let Some(vendor) = &name_vendor {
                aliases.push((with_vendor(vendor, &name.tokens), name_dated));
            }
            let shares_family = name.tokens.first() == id.tokens.first();
            if name.tokens.len() >= 3 || shares_family {
                aliases.push((strs(&name.tokens), name_dated));
            }
            if let Some(repo) = &repo {
                aliases.push((strs(&repo.tokens), repo.date.is_some()));
            }
        }
        let mut scratch = Scratch::default();
        for (i, (tokens, dated)) in aliases.iter().enumerate() {
            // Aliases often repeat (id tail = canonical slug = name): index each once, the
            // undated form winning.
            let repeated = aliases[..i].iter().any(|(other, _)| other == tokens);
            let undated_elsewhere = aliases.iter().any(|(other, d)| other == tokens && !d);
            if !repeated {
                self.add_alias(slot, tokens, *dated && !undated_elsewhere, &mut scratch);
            }
        }
        self.targets.push(info);
    }

    fn add_exact(&mut self, key: &str, entry: Entry) {
        push_unique(&mut self.exact, key, entry);
    }

    fn add_alias<'a>(
        &mut self,
        slot: u32,
        tokens: &[&'a str],
        dated: bool,
        scratch: &mut Scratch<'a>,
    ) {
        if !specific_enough(tokens) {
            return;
        }
        let entry = Entry::plain(slot, dated);
        let words = || tokens.iter().copied();
        write_ordered(words(), &mut scratch.key);
        push_unique(&mut self.ordered, &scratch.key, entry);
        write_bag(words(), &mut scratch.words, &mut scratch.key);
        push_unique(&mut self.bag, &scratch.key, entry);
        let dropped = write_loose(words(), &mut scratch.words, &mut scratch.key);
        let instruct = tokens.contains(&"instruct");
        push_unique(
            &mut self.loose,
            &scratch.key,
            Entry {
                instruct,
                dropped,
                ..entry
            },
        );
        if tokens.iter().filter(|t| is_version(t)).count() == 1 {
            let rest = words().filter(|t| !is_version(t) && !is_size(t));
            if rest.clone().count() >= 2
                || rest.clone().any(|t| t.bytes().any(|b| b.is_ascii_digit()))
            {
                write_loose(rest, &mut scratch.words, &mut scratch.key);
                push_unique(&mut self.versionless, &scratch.key, entry);
            }
        }
    }
}

fn strs(tokens: &[String]) -> Vec<&str> {
    tokens.iter().map(String::as_str).collect()
}

pub(super) fn has_any(tokens: &[String], words: &[&str]) -> bool {
    tokens.iter().any(|t| words.contains(&t.as_str()))
}

fn push_unique(map: &mut KeyMap, key: &str, entry: Entry) {
    if let Some(entries) = map.get_mut(key) {
        match entries.iter_mut().find(|e| e.target == entry.target) {
            // The plainest alias of a target decides: reachable undated, without dropped words.
            Some(existing) => {
                existing.dated &= entry.dated;
                existing.dropped &= entry.dropped;
                existing.instruct &= entry.instruct;
            }
            None => entries.push(entry),
        }
    } else {
        map.insert(key.into(), vec![entry]);
    }
}

fn id_tail(id: &str) -> &str {
    let id = id.trim().trim_start_matches('~');
    let tail = id.rsplit_once('/').map_or(id, |(_, tail)| tail);
    tail.split(':').next().unwrap_or(tail)
}

/// Vendor tokens before the name tokens, without repeating a shared word
/// (`meta-llama` + `llama 3.3 70b` → `meta llama 3.3 70b`).
fn with_vendor<'a>(vendor: &'a [String], tokens: &'a [String]) -> Vec<&'a str> {
    let skip = usize::from(
        vendor
            .last()
            .is_some_and(|last| tokens.first() == Some(last)),
    );
    vendor
        .iter()
        .chain(tokens.iter().skip(skip))
        .map(String::as_str)
        .collect()
}

/// A bare version number (`3`, `3.1`, `4.20`).
pub(super) fn is_version(token: &str) -> bool {
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
