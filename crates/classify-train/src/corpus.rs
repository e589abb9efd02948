//! The labeled corpus: reading raw JSON Lines, validating labels and languages, dropping
//! exact and near-exact duplicates, and assigning each task to train, dev or test by a seeded
//! hash of its normalized text (so a task keeps its split when the corpus grows).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use switchyard_core::catalog::card::Category;
use switchyard_core::routing::detect_lang;

/// Near-duplicate threshold: Jaccard similarity of character-trigram sets.
const NEAR_DUPLICATE: f64 = 0.9;
/// Longest task kept, in characters.
const MAX_TASK_CHARS: usize = 4000;
/// Percent of tasks in train and in dev (the rest is test).
const TRAIN_PERCENT: u64 = 70;
const DEV_PERCENT: u64 = 15;

/// Where a task is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Dev,
    Test,
}

impl Split {
    pub fn parse(text: &str) -> Option<Split> {
        match text {
            "train" => Some(Split::Train),
            "dev" => Some(Split::Dev),
            "test" => Some(Split::Test),
            _ => None,
        }
    }
}

/// One corpus line as committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub task: String,
    pub category: String,
    pub lang: String,
    pub split: Split,
    /// Written after reading dev errors: always in train.
    #[serde(
        default,
        rename = "trainOnly",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub train_only: bool,
}

impl Item {
    pub fn category(&self) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.id() == self.category)
    }
}

#[derive(Deserialize)]
struct RawItem {
    task: String,
    category: String,
    #[serde(default)]
    lang: Option<String>,
    /// Kept when re-preparing the committed corpus: a train-only task stays train-only.
    #[serde(default, rename = "trainOnly")]
    train_only: bool,
}

/// What `prepare` did, for the report.
#[derive(Default)]
pub struct PrepareReport {
    pub read: usize,
    pub bad_json: Vec<String>,
    pub bad_category: Vec<String>,
    pub bad_task: Vec<String>,
    pub lang_fixed: Vec<String>,
    pub exact_duplicates: usize,
    pub near_duplicates: Vec<(String, String)>,
    pub conflicting: Vec<String>,
}

/// Lowercase letters and digits only (CJK kept), for duplicate checks and the split hash.
pub fn normalize(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric())
        .collect()
}

fn trigrams(normalized: &str) -> Vec<u64> {
    let chars: Vec<char> = normalized.chars().collect();
    let mut out: Vec<u64> = chars
        .windows(3)
        .map(|w| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for c in w {
                h ^= u64::from(*c);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            h
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - both;
    if union == 0 {
        1.0
    } else {
        both as f64 / union as f64
    }
}

/// SplitMix64: the seeded hash behind splits and shuffles.
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn split_of(normalized: &str, seed: u64) -> Split {
    let mut h = seed;
    for b in normalized.bytes() {
        h = splitmix(h ^ u64::from(b));
    }
    match h % 100 {
        p if p < TRAIN_PERCENT => Split::Train,
        p if p < TRAIN_PERCENT + DEV_PERCENT => Split::Dev,
        _ => Split::Test,
    }
}

/// CJK characters as a share of all letters.
fn cjk_share(text: &str) -> f64 {
    let (mut cjk, mut letters) = (0usize, 0usize);
    for c in text.chars() {
        if switchyard_core::text::is_cjk(c) {
            cjk += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    if cjk + letters == 0 {
        0.0
    } else {
        cjk as f64 / (cjk + letters) as f64
    }
}

fn short(text: &str) -> String {
    let mut s: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        s.push('…');
    }
    s
}

/// Reads every `*.jsonl` file of `inputs` (files or directories, in name order), validates,
/// deduplicates and splits them.
pub fn prepare(inputs: &[&Path], seed: u64) -> Result<(Vec<Item>, PrepareReport), String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<_> = std::fs::read_dir(input)
                .map_err(|e| format!("{}: {e}", input.display()))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(input.to_path_buf());
        }
    }
    let mut report = PrepareReport::default();
    // (task, category, lang)
    // (task, category, lang, train only)
    let mut valid: Vec<(String, String, String, bool)> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        // Tasks written after reading dev errors train only: dev and test never measure them.
        let train_only = name.ends_with(".train.jsonl");
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            report.read += 1;
            let at = format!("{name}:{}", number + 1);
            let raw: RawItem = match serde_json::from_str(line) {
                Ok(raw) => raw,
                Err(e) => {
                    report.bad_json.push(format!("{at}: {e}"));
                    continue;
                }
            };
            let task = raw.task.trim().to_owned();
            if task.is_empty() || task.chars().count() > MAX_TASK_CHARS {
                report.bad_task.push(format!("{at}: empty or too long"));
                continue;
            }
            if !Category::ALL.iter().any(|c| c.id() == raw.category) {
                report
                    .bad_category
                    .push(format!("{at}: {:?}", raw.category));
                continue;
            }
            // The writer's label stands unless the script contradicts it outright: `zh`
            // without a CJK character, or `en` that is mostly CJK.
            let detected = detect_lang(&task);
            let cjk = cjk_share(&task);
            let lang = match raw.lang.as_deref() {
                Some("zh") if cjk > 0.0 => "zh".to_owned(),
                Some("en") if cjk < 0.5 => "en".to_owned(),
                Some(l) => {
                    let fixed = if cjk >= 0.5 { "zh" } else { detected };
                    report
                        .lang_fixed
                        .push(format!("{at}: {l:?} → {fixed}: {}", short(&task)));
                    fixed.to_owned()
                }
                None => detected.to_owned(),
            };
            valid.push((task, raw.category, lang, train_only || raw.train_only));
        }
    }

    // Exact duplicates (after normalization): the first kept; a label conflict drops all.
    let mut by_norm: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, (task, ..)) in valid.iter().enumerate() {
        by_norm.entry(normalize(task)).or_default().push(index);
    }
    let mut keep = vec![false; valid.len()];
    for indices in by_norm.values() {
        let first = indices[0];
        if indices.iter().any(|i| valid[*i].1 != valid[first].1) {
            report.conflicting.push(short(&valid[first].0));
            continue;
        }
        keep[first] = true;
        report.exact_duplicates += indices.len() - 1;
    }

    // Near duplicates within a language: trigram Jaccard ≥ NEAR_DUPLICATE.
    let mut shingles: HashMap<usize, Vec<u64>> = HashMap::new();
    for (index, (task, ..)) in valid.iter().enumerate() {
        if keep[index] {
            shingles.insert(index, trigrams(&normalize(task)));
        }
    }
    let kept: Vec<usize> = (0..valid.len()).filter(|i| keep[*i]).collect();
    for (position, &i) in kept.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        for &j in &kept[position + 1..] {
            if !keep[j] || valid[i].2 != valid[j].2 {
                continue;
            }
            let (a, b) = (&shingles[&i], &shingles[&j]);
            let (small, large) = if a.len() < b.len() { (a, b) } else { (b, a) };
            // Jaccard ≤ small/large: skip pairs whose sizes alone rule it out.
            if (small.len() as f64) < NEAR_DUPLICATE * large.len() as f64 {
                continue;
            }
            if jaccard(a, b) >= NEAR_DUPLICATE {
                keep[j] = false;
                report
                    .near_duplicates
                    .push((short(&valid[i].0), short(&valid[j].0)));
            }
        }
    }

    let items = valid
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|((task, category, lang, train_only), _)| {
            let split = if train_only {
                Split::Train
            } else {
                split_of(&normalize(&task), seed)
            };
            Item {
                task,
                category,
                lang,
                split,
                train_only,
            }
        })
        .collect();
    Ok((items, report))
}

/// The corpus as JSON Lines.
pub fn to_jsonl(items: &[Item]) -> Result<String, String> {
    let mut out = String::new();
    for item in items {
        let line = serde_json::to_string(item).map_err(|e| e.to_string())?;
        let _ = writeln!(out, "{line}");
    }
    Ok(out)
}

/// Reads the committed corpus.
pub fn read(path: &Path) -> Result<Vec<Item>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, line)| {
            let item: Item =
                serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
            item.category()
                .ok_or_else(|| format!("line {}: unknown category {:?}", n + 1, item.category))?;
            Ok(item)
        })
        .collect()
}

/// Counts per split, category and language, as a table.
pub fn summary(items: &[Item]) -> String {
    let mut out = String::new();
    let mut counts: BTreeMap<(String, String), [usize; 3]> = BTreeMap::new();
    for item in items {
        let slot = match item.split {
            Split::Train => 0,
            Split::Dev => 1,
            Split::Test => 2,
        };
        counts
            .entry((item.category.clone(), item.lang.clone()))
            .or_default()[slot] += 1;
    }
    let _ = writeln!(
        out,
        "{:<12} {:<4} {:>6} {:>6} {:>6}",
        "category", "lang", "train", "dev", "test"
    );
    let mut totals = [0usize; 3];
    for ((category, lang), c) in &counts {
        let _ = writeln!(
            out,
            "{category:<12} {lang:<4} {:>6} {:>6} {:>6}",
            c[0], c[1], c[2]
        );
        for k in 0..3 {
            totals[k] += c[k];
        }
    }
    let _ = writeln!(
        out,
        "{:<17} {:>6} {:>6} {:>6}  ({} in all)",
        "total",
        totals[0],
        totals[1],
        totals[2],
        items.len()
    );
    out
}
