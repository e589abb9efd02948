//! The classification lexicon: `data/routing/classify.json` plus stack spellings, compiled
//! once into hash tables keyed by word, phrase and CJK phrase.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::catalog::card::Category;
use crate::hash::FastMap;

use super::error::RoutingError;
use super::matcher::{normalize_term, term_slot, TermMatcher};
use crate::roles::RoleBlock;

const CLASSIFY_FILE: &str = "classify.json";

/// The built-in classification data.
pub(crate) const CLASSIFY_JSON: &str = include_str!("../../data/routing/classify.json");

/// Bits of [`TermInfo::needs`].
pub(crate) const NEED_VISION: u8 = 1;
pub(crate) const NEED_TOOLS: u8 = 2;
pub(crate) const NEED_STRUCTURED: u8 = 4;
/// Vision weight of a vision-need phrase not listed under the vision category.
const VISION_NEED_WEIGHT: f64 = 3.0;
/// Bits of [`TermInfo::hints`].
pub(crate) const HINT_SPEED: u8 = 1;
pub(crate) const HINT_COST: u8 = 2;
pub(crate) const HINT_CRITICAL: u8 = 4;
pub(crate) const HINT_PRODUCTION: u8 = 8;

/// A stack entry: its id and every other spelling that names it in task text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct StackSpelling {
    /// The roles library's stack block id (`postgresql`).
    pub id: String,
    /// Spellings besides the id: the block's title and aliases (`PostgreSQL`, `pg`).
    pub aliases: Vec<String>,
}

impl StackSpelling {
    /// The spellings of a roles stack block: its id, title and aliases.
    pub fn from_block(block: &RoleBlock) -> StackSpelling {
        StackSpelling {
            id: block.id.clone(),
            aliases: block
                .names()
                .filter(|n| *n != block.id)
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// What one term means.
#[derive(Debug, Clone, Default)]
pub(crate) struct TermInfo {
    pub weights: Vec<(Category, f64)>,
    pub needs: u8,
    pub long_context: Option<u32>,
    pub hints: u8,
    pub stack: Option<u32>,
    /// Coding weight the stack meaning adds (on top of `weights`, not summed: the larger).
    pub stack_weight: f64,
    /// A stack spelling that is also a common English word: counts only next to other
    /// coding evidence ("rust on my bike" is not Rust).
    pub ambiguous: bool,
}

/// The compiled lexicon.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lexicon {
    pub matcher: TermMatcher,
    pub info: Vec<TermInfo>,
    pub stacks: Vec<String>,
    pub units: FastMap<Box<str>, f64>,
    /// Longest first.
    pub cjk_multipliers: Vec<(String, f64)>,
    /// Longest first.
    pub cjk_units: Vec<(String, f64)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ClassifyData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    categories: BTreeMap<String, BTreeMap<String, f64>>,
    needs: NeedsData,
    hints: HintsData,
    quantity_units: BTreeMap<String, f64>,
    cjk_quantity_multipliers: BTreeMap<String, f64>,
    cjk_quantity_units: BTreeMap<String, f64>,
    stack: StackData,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NeedsData {
    vision: Vec<String>,
    tools: Vec<String>,
    structured_output: Vec<String>,
    long_context: BTreeMap<String, u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HintsData {
    speed: Vec<String>,
    cost: Vec<String>,
    critical: Vec<String>,
    production: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StackData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    coding_weight: f64,
    ambiguous: Vec<String>,
    extra_spellings: BTreeMap<String, Vec<String>>,
}

/// The roles library's built-in stack blocks as spellings.
pub(crate) fn builtin_stacks() -> Vec<StackSpelling> {
    crate::roles::builtin_stack()
        .map(StackSpelling::from_block)
        .collect()
}

fn data_error(message: impl Into<String>) -> RoutingError {
    RoutingError::Data {
        file: CLASSIFY_FILE,
        message: message.into(),
    }
}

impl Lexicon {
    /// Compiles classification data and stack spellings.
    pub fn compile(classify_json: &str, stacks: &[StackSpelling]) -> Result<Lexicon, RoutingError> {
        let data: ClassifyData =
            serde_json::from_str(classify_json).map_err(|e| data_error(e.to_string()))?;
        let mut lexicon = Lexicon::default();
        for (name, terms) in &data.categories {
            let category = Category::parse(name)
                .ok_or_else(|| data_error(format!("unknown category {name:?}")))?;
            for (term, weight) in terms {
                if !(weight.is_finite() && *weight > 0.0) {
                    return Err(data_error(format!("weight of {term:?} must be positive")));
                }
                let info = lexicon.entry(term)?;
                add_weight(info, category, *weight);
            }
        }
        let need_lists = [
            (NEED_VISION, &data.needs.vision),
            (NEED_TOOLS, &data.needs.tools),
            (NEED_STRUCTURED, &data.needs.structured_output),
        ];
        for (bit, terms) in need_lists {
            for term in terms {
                lexicon.entry(term)?.needs |= bit;
            }
        }
        // A phrase saying the model must see an image ("this photo") is vision evidence too;
        // it would otherwise swallow the word ("photo") that carries the vision weight.
        for info in lexicon
            .info
            .iter_mut()
            .filter(|i| i.needs & NEED_VISION != 0)
        {
            if !info.weights.iter().any(|(c, _)| *c == Category::Vision) {
                add_weight(info, Category::Vision, VISION_NEED_WEIGHT);
            }
        }
        for (term, tokens) in &data.needs.long_context {
            let info = lexicon.entry(term)?;
            info.long_context = Some(info.long_context.unwrap_or(0).max(*tokens));
        }
        let hint_lists = [
            (HINT_SPEED, &data.hints.speed),
            (HINT_COST, &data.hints.cost),
            (HINT_CRITICAL, &data.hints.critical),
            (HINT_PRODUCTION, &data.hints.production),
        ];
        for (bit, terms) in hint_lists {
            for term in terms {
                lexicon.entry(term)?.hints |= bit;
            }
        }
        let ambiguous: Vec<String> = data
            .stack
            .ambiguous
            .iter()
            .map(|t| {
                normalize_term(t).map_err(|source| RoutingError::Term {
                    file: CLASSIFY_FILE,
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        for id in data.stack.extra_spellings.keys() {
            if !stacks.iter().any(|s| s.id == *id) {
                return Err(data_error(format!(
                    "extraSpellings names unknown stack id {id:?}"
                )));
            }
        }
        for stack in stacks {
            let index = u32::try_from(lexicon.stacks.len()).unwrap_or(u32::MAX);
            lexicon.stacks.push(stack.id.clone());
            let extra = data
                .stack
                .extra_spellings
                .get(&stack.id)
                .into_iter()
                .flatten();
            for spelling in std::iter::once(&stack.id)
                .chain(&stack.aliases)
                .chain(extra)
            {
                // A kebab id like `react-native` is spelled with a space in text; a spelling
                // that mixes scripts or has no letters cannot be matched and is skipped.
                let spelling = spelling.replace('-', " ");
                let Ok(key) = normalize_term(&spelling) else {
                    continue;
                };
                let is_ambiguous = ambiguous.contains(&key);
                let info = lexicon.entry(&spelling)?;
                if info.stack.is_none() {
                    info.stack = Some(index);
                    info.ambiguous = is_ambiguous;
                    info.stack_weight = data.stack.coding_weight;
                }
            }
        }
        for (unit, tokens) in data.quantity_units {
            lexicon
                .units
                .insert(unit.to_lowercase().into_boxed_str(), tokens);
        }
        let longest_first = |map: BTreeMap<String, f64>| {
            let mut list: Vec<(String, f64)> = map.into_iter().collect();
            list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
            list
        };
        lexicon.cjk_multipliers = longest_first(data.cjk_quantity_multipliers);
        lexicon.cjk_units = longest_first(data.cjk_quantity_units);
        Ok(lexicon)
    }

    fn entry(&mut self, term: &str) -> Result<&mut TermInfo, RoutingError> {
        term_slot(&mut self.matcher, &mut self.info, term, CLASSIFY_FILE)
    }

    /// Tokens per unit word after a number (`pages` → 500), singular fallback included.
    pub fn unit(&self, word: &str) -> Option<f64> {
        if let Some(v) = self.units.get(word) {
            return Some(*v);
        }
        let stem = word.strip_suffix('s').filter(|s| s.len() >= 2)?;
        self.units.get(stem).copied()
    }
}

/// A term listed twice in one category keeps the larger weight; across categories it adds up.
fn add_weight(info: &mut TermInfo, category: Category, weight: f64) {
    match info.weights.iter_mut().find(|(c, _)| *c == category) {
        Some((_, w)) => *w = w.max(weight),
        None => info.weights.push((category, weight)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_data_compiles_and_lists_singulars_only() {
        let stacks = builtin_stacks();
        let lexicon = Lexicon::compile(CLASSIFY_JSON, &stacks).expect("classify.json compiles");
        assert_eq!(lexicon.matcher.plural_duplicates(), Vec::<String>::new());
        assert!(lexicon.stacks.iter().any(|s| s == "postgresql"));
        assert_eq!(lexicon.unit("pages"), Some(500.0));
    }

    #[test]
    fn extra_spellings_must_name_roles_stack_ids() {
        let mut data: serde_json::Value = serde_json::from_str(CLASSIFY_JSON).expect("json");
        data["stack"]["extraSpellings"]["cobol"] = serde_json::json!(["cbl"]);
        let error = Lexicon::compile(&data.to_string(), &builtin_stacks()).expect_err("unknown id");
        assert!(error.to_string().contains("cobol"), "{error}");
    }

    #[test]
    fn unknown_categories_and_bad_weights_are_rejected() {
        let base: serde_json::Value = serde_json::from_str(CLASSIFY_JSON).expect("json");
        let mut bad = base.clone();
        bad["categories"]["cooking"] = serde_json::json!({ "recipe": 1 });
        let error = Lexicon::compile(&bad.to_string(), &[]).expect_err("unknown category");
        assert!(error.to_string().contains("cooking"), "{error}");
        let mut negative = base;
        negative["categories"]["coding"]["code"] = serde_json::json!(-1);
        assert!(Lexicon::compile(&negative.to_string(), &[]).is_err());
    }
}
