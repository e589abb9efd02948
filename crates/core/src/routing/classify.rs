//! Classifying a task: its category, how sure we are, and the context signals (needs, stack,
//! speed/cost hints) — every decision traceable to the features that made it.
//!
//! The keyword lexicon finds the signals and weighs each category; the learned model
//! ([`super::model`]) takes those weights as features next to the task's words, character
//! n-grams and structural cues, and decides the category with a calibrated confidence.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;

use super::error::RoutingError;
use super::lexicon::{
    builtin_stacks, Lexicon, StackSpelling, CLASSIFY_JSON, HINT_COST, HINT_CRITICAL,
    HINT_PRODUCTION, HINT_SPEED, NEED_STRUCTURED, NEED_TOOLS, NEED_VISION,
};
use super::model::{self, FeatureWeight, ModelInfo, TaskModel};
use super::signals::{Hints, Needs, Signals};
use super::text::{parse_quantity, TokenKind, Tokens};

/// Confidence of a task with no signal at all (classified `general`).
pub const NO_SIGNAL_CONFIDENCE: f64 = 0.1;
/// A context estimate below this many tokens is not a long-context need.
pub const LONG_CONTEXT_MIN_TOKENS: u32 = 16_000;
/// Tokens reserved for the answer when the task text itself is long.
pub const ANSWER_RESERVE_TOKENS: u32 = 4_000;
/// How many features explain a classification at most.
pub const EXPLAINED_FEATURES: usize = 8;

/// One matched term and what it contributed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MatchedTerm {
    /// The term as listed in the data (lowercase, words joined by one space).
    pub word: String,
    /// The category it weighs for; `None` for pure signals.
    pub category: Option<Category>,
    /// Its weight in that category (0 for pure signals).
    pub weight: f64,
    /// Signals it set: `need:vision`, `need:longContext=200000`, `hint:cost`, `stack:rust`.
    pub signals: Vec<String>,
}

/// A category's weight in a task.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CategoryWeight {
    /// The category.
    pub category: Category,
    /// In [`Classification::scores`], the model's calibrated probability (0–1); in
    /// [`Classification::lexicon`], the sum of its matched terms' weights.
    pub weight: f64,
}

/// The answer of [`classify`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    /// The winning category; `general` when the text has nothing the model knows.
    pub category: Category,
    /// 0–1: the model's calibrated probability of `category` ([`NO_SIGNAL_CONFIDENCE`] for a
    /// task with nothing the model knows).
    pub confidence: f64,
    /// Needs, stack ids and hints.
    pub signals: Signals,
    /// Every lexicon term that matched, in order of first appearance (the lexicon's weights
    /// are features of the model; its terms also set the signals).
    pub matched: Vec<MatchedTerm>,
    /// The model's probability per category (those above 0.1%), highest first.
    pub scores: Vec<CategoryWeight>,
    /// The lexicon's summed weight per category with any matched term, highest first.
    pub lexicon: Vec<CategoryWeight>,
    /// The features that raised `category` most, strongest first (at most
    /// [`EXPLAINED_FEATURES`]).
    pub features: Vec<FeatureWeight>,
    /// The model that decided; `None` when it could not load and the lexicon decided.
    pub model: Option<ModelInfo>,
    /// Set when a language model was asked because the classifier was unsure.
    pub assist: Option<AssistVerdict>,
}

/// What the optional model-assisted fallback decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AssistVerdict {
    /// The model reference asked (`ollama:qwen3`).
    pub model: String,
    /// The category the classifier would have chosen.
    pub local_category: Category,
    /// The classifier's confidence in it.
    pub local_confidence: f64,
    /// Whether the answer came from the cache of earlier answers for the same text.
    pub cached: bool,
}

impl Classification {
    /// The same classification with `category` decided by a language model: the category
    /// (and the vision need it implies) change, the local answer is kept in `assist`.
    pub fn assisted(mut self, category: Category, model: &str, cached: bool) -> Classification {
        self.assist = Some(AssistVerdict {
            model: model.to_owned(),
            local_category: self.category,
            local_confidence: self.confidence,
            cached,
        });
        self.category = category;
        if category == Category::Vision {
            self.signals.needs.vision = true;
        }
        self
    }

    /// Whether the text had anything the classifier knows (a task without is `general`
    /// with [`NO_SIGNAL_CONFIDENCE`]).
    pub fn has_signal(&self) -> bool {
        !self.scores.is_empty()
    }
}

/// A compiled classifier. [`Classifier::builtin`] is the shipped one; build another with
/// [`Classifier::new`] to classify with other stack spellings (the roles library's blocks).
#[derive(Debug, Clone)]
pub struct Classifier {
    lexicon: Lexicon,
    model: Option<(Arc<TaskModel>, ModelInfo)>,
}

/// What the lexicon reads in a task, before the category is decided.
struct Reading {
    tokens: Tokens,
    scores: [f64; Category::ALL.len()],
    matched: Vec<MatchedTerm>,
    needs_bits: u8,
    hint_bits: u8,
    long_context: Option<u32>,
    stack: Vec<String>,
}

static BUILTIN: OnceLock<Classifier> = OnceLock::new();

/// Classifies a task with the built-in data.
pub fn classify(task: &str) -> Classification {
    Classifier::builtin().classify(task)
}

impl Classifier {
    /// Compiles `classify_json` (the format of `data/routing/classify.json`) with `stacks`.
    pub fn new(classify_json: &str, stacks: &[StackSpelling]) -> Result<Classifier, RoutingError> {
        Ok(Classifier {
            lexicon: Lexicon::compile(classify_json, stacks)?,
            model: model::builtin().cloned(),
        })
    }

    /// This classifier deciding with another model (the trainer evaluates candidates so).
    pub fn with_model(self, model: TaskModel, info: ModelInfo) -> Classifier {
        Classifier {
            model: Some((Arc::new(model), info)),
            ..self
        }
    }

    /// The features the model sees in `task`, named as in the weights file, valued before
    /// the model's group weights (text groups scaled by `1/sqrt(count)`), sorted by name. The
    /// trainer trains on exactly these, times its group weights.
    pub fn model_features(&self, task: &str) -> Vec<(String, f32)> {
        let reading = self.read(task);
        model::named_features(task, &reading.tokens, &reading.scores)
    }

    /// The built-in classification data with other stack spellings, e.g. the roles library
    /// with the user's custom stack blocks (`StackSpelling::from_block`).
    pub fn with_stacks(stacks: &[StackSpelling]) -> Result<Classifier, RoutingError> {
        Classifier::new(CLASSIFY_JSON, stacks)
    }

    /// The built-in classifier (built-in data, the roles library's built-in stack blocks),
    /// compiled on first use. The embedded data is validated by tests; should it ever fail
    /// to compile, every task classifies as `general`.
    pub fn builtin() -> &'static Classifier {
        BUILTIN.get_or_init(|| {
            Classifier::with_stacks(&builtin_stacks()).unwrap_or(Classifier {
                lexicon: Lexicon::default(),
                model: model::builtin().cloned(),
            })
        })
    }

    /// Classifies `task`. Deterministic: the same text always gives the same answer.
    pub fn classify(&self, task: &str) -> Classification {
        let reading = self.read(task);
        let lexicon = weights_of(&reading.scores);
        let decision = match &self.model {
            Some((model, info)) => {
                let scored =
                    model.score(task, &reading.tokens, &reading.scores, EXPLAINED_FEATURES);
                if scored.known == 0 {
                    Decision::no_signal(Some(info.clone()))
                } else {
                    let mut scores = weights_of(&scored.probabilities);
                    scores.retain(|w| w.weight >= 0.001);
                    for score in &mut scores {
                        score.weight = (score.weight * 10_000.0).round() / 10_000.0;
                    }
                    Decision {
                        category: Category::ALL[scored.top],
                        // A calibrated probability is never certainty: 0.999 at most.
                        confidence: ((scored.probabilities[scored.top] * 1000.0).round() / 1000.0)
                            .min(0.999),
                        scores,
                        features: scored.features,
                        model: Some(info.clone()),
                    }
                }
            }
            None => {
                let (category, confidence) = decide(&reading.scores);
                Decision {
                    category,
                    confidence,
                    scores: lexicon.clone(),
                    features: Vec::new(),
                    model: None,
                }
            }
        };
        let Reading {
            matched,
            needs_bits,
            hint_bits,
            long_context,
            stack,
            ..
        } = reading;
        let needs = Needs {
            vision: needs_bits & NEED_VISION != 0 || decision.category == Category::Vision,
            long_context,
            tools: needs_bits & NEED_TOOLS != 0,
            structured_output: needs_bits & NEED_STRUCTURED != 0,
        };
        let hints = Hints {
            speed: hint_bits & HINT_SPEED != 0,
            cost: hint_bits & HINT_COST != 0,
            critical: hint_bits & HINT_CRITICAL != 0,
            production: hint_bits & HINT_PRODUCTION != 0,
        };
        Classification {
            category: decision.category,
            confidence: decision.confidence,
            signals: Signals {
                needs,
                stack,
                hints,
            },
            matched,
            scores: decision.scores,
            lexicon,
            features: decision.features,
            model: decision.model,
            assist: None,
        }
    }

    /// The lexicon pass: matched terms, per-category weights and the signals.
    fn read(&self, task: &str) -> Reading {
        let lex = &self.lexicon;
        let tokens = Tokens::new(task);
        let mut hits: Vec<u32> = Vec::with_capacity(16);
        lex.matcher.scan(&tokens, |term, _| {
            if !hits.contains(&term) {
                hits.push(term);
            }
        });
        let info = |term: u32| lex.info.get(term as usize);
        // Evidence a program is meant: a coding word, or a stack word that is not also
        // everyday English. Ambiguous stack words ("rust", "go") count only next to it.
        let coding_evidence = hits.iter().filter_map(|t| info(*t)).any(|i| {
            (i.stack.is_some() && !i.ambiguous)
                || i.weights.iter().any(|(c, _)| *c == Category::Coding)
        });

        let mut scores = [0.0f64; Category::ALL.len()];
        let mut needs_bits = 0u8;
        let mut hint_bits = 0u8;
        let mut long_context: Option<u32> = None;
        let mut stack: Vec<String> = Vec::new();
        let mut matched: Vec<MatchedTerm> = Vec::with_capacity(hits.len());
        for term in hits {
            let Some(info) = info(term) else { continue };
            let stack_id = info
                .stack
                .filter(|_| !info.ambiguous || coding_evidence)
                .and_then(|i| lex.stacks.get(i as usize));
            let mut weights = info.weights.clone();
            if stack_id.is_some() {
                match weights.iter_mut().find(|(c, _)| *c == Category::Coding) {
                    Some((_, w)) => *w = w.max(info.stack_weight),
                    None => weights.push((Category::Coding, info.stack_weight)),
                }
            }
            let mut signals = Vec::new();
            for (bit, name) in [
                (NEED_VISION, "vision"),
                (NEED_TOOLS, "tools"),
                (NEED_STRUCTURED, "structuredOutput"),
            ] {
                if info.needs & bit != 0 {
                    signals.push(format!("need:{name}"));
                }
            }
            if let Some(tokens) = info.long_context {
                signals.push(format!("need:longContext={tokens}"));
                long_context = Some(long_context.unwrap_or(0).max(tokens));
            }
            for (bit, name) in [
                (HINT_SPEED, "speed"),
                (HINT_COST, "cost"),
                (HINT_CRITICAL, "critical"),
                (HINT_PRODUCTION, "production"),
            ] {
                if info.hints & bit != 0 {
                    signals.push(format!("hint:{name}"));
                }
            }
            if let Some(id) = stack_id {
                signals.push(format!("stack:{id}"));
                if !stack.contains(id) {
                    stack.push(id.clone());
                }
            }
            needs_bits |= info.needs;
            hint_bits |= info.hints;
            let word = lex.matcher.text(term);
            if weights.is_empty() && signals.is_empty() {
                continue;
            }
            if weights.is_empty() {
                matched.push(MatchedTerm {
                    word: word.to_owned(),
                    category: None,
                    weight: 0.0,
                    signals,
                });
                continue;
            }
            for (index, (category, weight)) in weights.iter().enumerate() {
                scores[category_index(*category)] += weight;
                matched.push(MatchedTerm {
                    word: word.to_owned(),
                    category: Some(*category),
                    weight: *weight,
                    signals: if index == 0 {
                        std::mem::take(&mut signals)
                    } else {
                        Vec::new()
                    },
                });
            }
        }

        if let Some((label, tokens)) = quantity_estimate(lex, &tokens) {
            matched.push(MatchedTerm {
                word: label,
                category: None,
                weight: 0.0,
                signals: vec![format!("need:longContext={tokens}")],
            });
            long_context = Some(long_context.unwrap_or(0).max(tokens));
        }
        let own = own_tokens(task).saturating_add(ANSWER_RESERVE_TOKENS);
        if own >= LONG_CONTEXT_MIN_TOKENS {
            long_context = Some(long_context.unwrap_or(0).max(own));
        }

        Reading {
            tokens,
            scores,
            matched,
            needs_bits,
            hint_bits,
            long_context,
            stack,
        }
    }
}

/// The category decision and its explanation.
struct Decision {
    category: Category,
    confidence: f64,
    scores: Vec<CategoryWeight>,
    features: Vec<FeatureWeight>,
    model: Option<ModelInfo>,
}

impl Decision {
    fn no_signal(model: Option<ModelInfo>) -> Decision {
        Decision {
            category: Category::General,
            confidence: NO_SIGNAL_CONFIDENCE,
            scores: Vec::new(),
            features: Vec::new(),
            model,
        }
    }
}

/// The positive weights as [`CategoryWeight`]s, highest first (ties in category order).
fn weights_of(values: &[f64; Category::ALL.len()]) -> Vec<CategoryWeight> {
    let mut weights: Vec<CategoryWeight> = Category::ALL
        .iter()
        .zip(values)
        .filter(|(_, w)| **w > 0.0)
        .map(|(c, w)| CategoryWeight {
            category: *c,
            weight: *w,
        })
        .collect();
    weights.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    weights
}

fn category_index(category: Category) -> usize {
    Category::ALL
        .iter()
        .position(|c| *c == category)
        .unwrap_or(Category::ALL.len() - 1)
}

/// The winning category (ties go to the earlier one in [`Category::ALL`]) and a confidence
/// that grows with its weight (saturating) and its margin over the runner-up.
fn decide(scores: &[f64; Category::ALL.len()]) -> (Category, f64) {
    let mut best = None::<(usize, f64)>;
    let mut second = 0.0f64;
    for (index, score) in scores.iter().copied().enumerate() {
        match best {
            Some((_, top)) if score <= top => second = second.max(score),
            _ => {
                if let Some((_, top)) = best {
                    second = second.max(top);
                }
                best = Some((index, score));
            }
        }
    }
    match best {
        Some((index, top)) if top > 0.0 => {
            let strength = 1.0 - (-top / 4.0).exp();
            let margin = (top - second) / top;
            let confidence = 0.2 + 0.75 * strength * (0.5 + 0.5 * margin);
            (Category::ALL[index], (confidence * 100.0).round() / 100.0)
        }
        _ => (Category::General, NO_SIGNAL_CONFIDENCE),
    }
}

/// Token count of the text itself: the one estimate every crate uses.
fn own_tokens(text: &str) -> u32 {
    crate::text::estimate_tokens(text)
}

/// The largest "<number> <unit>" in the text (`200k tokens`, `300 pages`, `10万字`) at or
/// above [`LONG_CONTEXT_MIN_TOKENS`], with the words that said it.
fn quantity_estimate(lex: &Lexicon, tokens: &Tokens) -> Option<(String, u32)> {
    let mut best: Option<(String, u32)> = None;
    for (index, token) in tokens.tokens.iter().enumerate() {
        if token.kind != TokenKind::Number {
            continue;
        }
        let Some(value) = parse_quantity(tokens.text(*token)) else {
            continue;
        };
        let Some(next) = tokens.tokens.get(index + 1) else {
            continue;
        };
        let next_text = tokens.text(*next);
        let estimate = match next.kind {
            TokenKind::Word => lex.unit(next_text).map(|unit| value * unit),
            TokenKind::Cjk => {
                let (multiplier, rest) = lex
                    .cjk_multipliers
                    .iter()
                    .find_map(|(m, f)| next_text.strip_prefix(m.as_str()).map(|rest| (*f, rest)))
                    .unwrap_or((1.0, next_text));
                let unit = lex
                    .cjk_units
                    .iter()
                    .find(|(u, _)| rest.starts_with(u.as_str()));
                match unit {
                    Some((_, unit)) => Some(value * multiplier * unit),
                    None if rest.is_empty() && multiplier > 1.0 => tokens
                        .tokens
                        .get(index + 2)
                        .filter(|t| t.kind == TokenKind::Word)
                        .and_then(|t| lex.unit(tokens.text(*t)))
                        .map(|unit| value * multiplier * unit),
                    None => None,
                }
            }
            TokenKind::Number => None,
        };
        let Some(estimate) = estimate.filter(|e| e.is_finite()) else {
            continue;
        };
        let estimate = estimate.min(f64::from(u32::MAX)) as u32;
        if estimate >= LONG_CONTEXT_MIN_TOKENS && best.as_ref().is_none_or(|(_, b)| estimate > *b) {
            best = Some((format!("{} {}", tokens.text(*token), next_text), estimate));
        }
    }
    best
}
