//! Filtering and sorting the catalog for the Models page and `switchyard models`.
//!
//! A [`CatalogIndex`] is built once per catalog (lowercase search text, tag bits, prices and
//! scores laid out flat); a [`ModelQuery`] then runs without allocating per model: one pass
//! of filters pushing indices into the result, one sort of that result.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use specta::Type;

use super::card::{Catalog, Category, ModelCard, Tag, Tier};

/// What to sort by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum SortKey {
    /// Score in the query's category (general when none).
    #[default]
    Score,
    /// Blended 3:1 price per million tokens.
    Price,
    /// Score per blended $/M in the query's category (general when none).
    Efficiency,
    /// Context length.
    Context,
    /// Measured output speed.
    Speed,
}

impl SortKey {
    /// Parses `score`, `price`, `efficiency`, `context`, `speed` (case-insensitive).
    pub fn parse(text: &str) -> Option<SortKey> {
        match text.trim().to_ascii_lowercase().as_str() {
            "score" => Some(SortKey::Score),
            "price" => Some(SortKey::Price),
            "efficiency" => Some(SortKey::Efficiency),
            "context" => Some(SortKey::Context),
            "speed" => Some(SortKey::Speed),
            _ => None,
        }
    }

    /// The direction users expect: cheapest first for price, highest first otherwise.
    pub fn natural_descending(self) -> bool {
        self != SortKey::Price
    }
}

/// A filter and sort over the catalog. Every filter is optional; all given filters must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelQuery {
    /// Whitespace-separated words that must all occur (case-insensitive) in the model's id,
    /// name, provider, variant ids or matched source names.
    pub search: Option<String>,
    /// Only models scored in this category; also the category score and efficiency sort by.
    pub category: Option<Category>,
    /// Only models of this tier.
    pub tier: Option<Tier>,
    /// Models having every one of these tags.
    pub tags: Vec<Tag>,
    /// Models of any of these providers (case-insensitive); empty = all.
    pub providers: Vec<String>,
    /// Highest blended 3:1 price per million tokens; models with unknown price are excluded.
    pub max_price: Option<f64>,
    /// Least context length in tokens; models with unknown context are excluded.
    pub min_context: Option<u32>,
    /// What to sort by.
    pub sort: SortKey,
    /// Highest first. Models without the sort value come last either way.
    pub descending: bool,
    /// At most this many results.
    pub limit: Option<u32>,
}

impl Default for ModelQuery {
    fn default() -> Self {
        ModelQuery {
            search: None,
            category: None,
            tier: None,
            tags: Vec::new(),
            providers: Vec::new(),
            max_price: None,
            min_context: None,
            sort: SortKey::Score,
            descending: true,
            limit: None,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    haystack: String,
    provider: String,
    tags: u16,
    tier: Tier,
    price: Option<f64>,
    context: Option<u32>,
    speed: Option<f64>,
    scores: [Option<f64>; Category::ALL.len()],
    efficiency: [Option<f64>; Category::ALL.len()],
}

/// Query-ready view of a catalog; rebuild it when the catalog changes.
#[derive(Debug, Clone, Default)]
pub struct CatalogIndex {
    entries: Vec<Entry>,
}

fn tag_bit(tag: Tag) -> u16 {
    1 << (tag as u16)
}

fn category_slot(category: Category) -> usize {
    category as usize
}

impl CatalogIndex {
    /// Indexes every model of the catalog, in catalog order.
    pub fn new(catalog: &Catalog) -> CatalogIndex {
        CatalogIndex {
            entries: catalog.models.iter().map(entry).collect(),
        }
    }

    /// Number of indexed models.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the catalog had no models.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Indices into `catalog.models` of the models matching `query`, sorted.
    pub fn query(&self, query: &ModelQuery) -> Vec<usize> {
        let terms: Vec<String> = query
            .search
            .as_deref()
            .map(|s| s.split_whitespace().map(str::to_lowercase).collect())
            .unwrap_or_default();
        let required_tags = query.tags.iter().fold(0u16, |bits, t| bits | tag_bit(*t));
        let category = query.category.map(category_slot);
        let mut result = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let keep = category.is_none_or(|c| e.scores[c].is_some())
                && query.tier.is_none_or(|t| t == e.tier)
                && e.tags & required_tags == required_tags
                && (query.providers.is_empty()
                    || query
                        .providers
                        .iter()
                        .any(|p| p.eq_ignore_ascii_case(&e.provider)))
                && query
                    .max_price
                    .is_none_or(|max| e.price.is_some_and(|p| p <= max))
                && query
                    .min_context
                    .is_none_or(|min| e.context.is_some_and(|c| c >= min))
                && terms.iter().all(|t| e.haystack.contains(t.as_str()));
            if keep {
                result.push(i);
            }
        }
        let slot = category.unwrap_or(category_slot(Category::General));
        let value = |i: usize| -> Option<f64> {
            let e = &self.entries[i];
            match query.sort {
                SortKey::Score => e.scores[slot],
                SortKey::Price => e.price,
                SortKey::Efficiency => e.efficiency[slot],
                SortKey::Context => e.context.map(f64::from),
                SortKey::Speed => e.speed,
            }
        };
        result.sort_unstable_by(|&a, &b| {
            let order = match (value(a), value(b)) {
                (Some(x), Some(y)) => {
                    let o = x.total_cmp(&y);
                    if query.descending {
                        o.reverse()
                    } else {
                        o
                    }
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            };
            order.then(a.cmp(&b))
        });
        if let Some(limit) = query.limit {
            result.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        result
    }

    /// The models matching `query`, sorted; `catalog` must be the one this index was built
    /// from.
    pub fn models<'a>(&self, catalog: &'a Catalog, query: &ModelQuery) -> Vec<&'a ModelCard> {
        self.query(query)
            .into_iter()
            .filter_map(|i| catalog.models.get(i))
            .collect()
    }
}

fn entry(card: &ModelCard) -> Entry {
    let mut haystack = String::with_capacity(128);
    for part in [card.id.as_str(), card.name.as_str(), card.provider.as_str()]
        .into_iter()
        .chain(card.variants.iter().map(String::as_str))
        .chain(card.matches.iter().map(|m| m.name.as_str()))
    {
        haystack.push_str(&part.to_lowercase());
        haystack.push('\n');
    }
    let mut scores = [None; Category::ALL.len()];
    let mut efficiency = [None; Category::ALL.len()];
    for (category, score) in &card.categories {
        scores[category_slot(*category)] = Some(score.score);
    }
    for (category, value) in &card.efficiency {
        efficiency[category_slot(*category)] = Some(*value);
    }
    let price = if card.local {
        Some(0.0)
    } else {
        card.pricing.blended_per_m()
    };
    Entry {
        haystack,
        provider: card.provider.clone(),
        tags: card.tags.iter().fold(0, |bits, t| bits | tag_bit(*t)),
        tier: card.tier,
        price,
        context: card.context_length,
        speed: card.output_speed,
        scores,
        efficiency,
    }
}
