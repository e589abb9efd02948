//! The tiered search that ties one benchmark record to at most one indexed target.

use super::date::{DateCode, SAME_CHECKPOINT_DAYS};
use super::index::{has_any, is_version, Entry, KeyMap, ModelIndex, TargetInfo, PRE_RELEASE};
use super::name::{parse_name, specific_enough, write_bag, write_loose, write_ordered, NameParts};
use super::vendor;
use super::MatchRule;

/// How long after a release OpenRouter may list a model (`created` is a listing date).
const LISTING_LAG_DAYS: i64 = 60;

/// How long after its listing a record's date may be and still name the listed checkpoint.
const AFTER_LISTING_DAYS: i64 = 30;

/// A record prepared for lookup: parsed once, tried against every tier.
#[derive(Debug, Clone)]
pub struct RecordProbe {
    key_lower: String,
    aliases: Vec<NameParts>,
    date: Option<DateCode>,
    /// The record's own name states a date with a year (not only a `release_date`).
    named_year: bool,
    vendor: Option<&'static str>,
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
        RecordProbe {
            key_lower: key.trim().to_ascii_lowercase(),
            date: released.or(named),
            named_year: named.and_then(DateCode::year).is_some(),
            vendor: creator.and_then(vendor::canonical_vendor),
            reasoning: aliases.iter().find_map(|a| a.reasoning),
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

impl ModelIndex {
    /// The target a record names, and the rule that decided it; `None` when no target fits
    /// or several fit equally well (a wrong match is worse than none).
    pub fn find(&self, probe: &RecordProbe) -> Option<(u32, MatchRule)> {
        let mut gathered = Vec::new();
        let mut key = String::with_capacity(64);
        let mut words: Vec<&str> = Vec::with_capacity(16);
        if let Some(entries) = self.exact.get(probe.key_lower.as_str()) {
            match self.resolve(entries, probe) {
                Resolution::Decided(t) => return Some((t, MatchRule::ExactId)),
                Resolution::Ambiguous => return None,
                Resolution::Empty => {}
            }
        }
        if probe.reasoning == Some(true) {
            for alias in &probe.aliases {
                let base = alias.base_tokens();
                if base.iter().any(|t| t == "thinking") {
                    continue;
                }
                let sibling = base
                    .iter()
                    .map(String::as_str)
                    .filter(|t| *t != "instruct")
                    .chain(std::iter::once("thinking"));
                write_bag(sibling, &mut words, &mut key);
                gather(&self.bag, &key, &mut gathered, |_| true);
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
                    let all = tokens.iter().map(String::as_str);
                    match tier {
                        Tier::Ordered => {
                            write_ordered(all, &mut key);
                            gather(&self.ordered, &key, &mut gathered, |_| true);
                        }
                        Tier::Bag => {
                            write_bag(all, &mut words, &mut key);
                            gather(&self.bag, &key, &mut gathered, |_| true);
                        }
                        Tier::Loose => {
                            write_loose(all, &mut words, &mut key);
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
                for level in 0..=alias.strip_points.len() {
                    let Some(tokens) = level_tokens(alias, level) else {
                        continue;
                    };
                    if tokens.iter().any(|t| is_version(t)) || !specific_enough(tokens) {
                        continue;
                    }
                    write_loose(tokens.iter().map(String::as_str), &mut words, &mut key);
                    gather(&self.versionless, &key, &mut gathered, |_| true);
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
            if matches!((probe.vendor, info.vendor), (Some(a), Some(b)) if a != b) {
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
