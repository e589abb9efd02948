//! Context boost: stack words in a task (`rust`, `postgresql`) name the benchmark metrics that
//! matter for them (`data/routing/context.json`); a model stronger on those than on its
//! category overall gains a little, a weaker one loses a little, never more than `maxBoost`.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::catalog::card::ModelCard;

use super::error::RoutingError;
use super::hash::FxHashMap;

const CONTEXT_FILE: &str = "context.json";
const CONTEXT_JSON: &str = include_str!("../../data/routing/context.json");

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ContextData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    max_boost: f64,
    scale: f64,
    rules: Vec<RuleData>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleData {
    #[serde(rename = "name")]
    _name: String,
    stacks: Vec<String>,
    metrics: Vec<String>,
}

/// The compiled rules: stack id → metric ids.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextRules {
    by_stack: FxHashMap<Box<str>, Vec<Box<str>>>,
    /// Largest boost either way, in score points.
    pub max_boost: f64,
    scale: f64,
}

/// The metrics a request's stack words point at, with the stack ids that named them.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextMetrics<'r> {
    metrics: Vec<&'r str>,
    pub max_boost: f64,
    scale: f64,
}

/// A model's boost and the metric values behind it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Boost {
    pub points: f64,
    /// `metric value` pairs that entered the mean.
    pub evidence: Vec<(String, f64)>,
}

impl ContextRules {
    /// Parses `context.json`.
    pub fn parse(json: &str) -> Result<ContextRules, RoutingError> {
        let data: ContextData = serde_json::from_str(json)
            .map_err(|e| RoutingError::Data { file: CONTEXT_FILE, message: e.to_string() })?;
        if !(data.max_boost.is_finite() && data.max_boost >= 0.0 && data.scale.is_finite()) {
            return Err(RoutingError::Data {
                file: CONTEXT_FILE,
                message: "maxBoost must be ≥ 0 and scale finite".into(),
            });
        }
        let mut by_stack: FxHashMap<Box<str>, Vec<Box<str>>> = FxHashMap::default();
        for rule in data.rules {
            for stack in &rule.stacks {
                let metrics = by_stack.entry(stack.as_str().into()).or_default();
                for metric in &rule.metrics {
                    if !metrics.iter().any(|m| **m == **metric) {
                        metrics.push(metric.as_str().into());
                    }
                }
            }
        }
        Ok(ContextRules { by_stack, max_boost: data.max_boost, scale: data.scale })
    }

    /// The built-in rules (empty if the embedded file were broken; tests guarantee it is not).
    pub fn builtin() -> &'static ContextRules {
        static RULES: OnceLock<ContextRules> = OnceLock::new();
        RULES.get_or_init(|| ContextRules::parse(CONTEXT_JSON).unwrap_or_default())
    }

    /// The metrics for these stack ids (none → no boost for anyone).
    pub fn metrics_for<'r>(&'r self, stack: &[String]) -> ContextMetrics<'r> {
        let mut metrics: Vec<&'r str> = Vec::new();
        for id in stack {
            for metric in self.by_stack.get(id.as_str()).into_iter().flatten() {
                if !metrics.contains(&&**metric) {
                    metrics.push(metric);
                }
            }
        }
        ContextMetrics { metrics, max_boost: self.max_boost, scale: self.scale }
    }
}

impl ContextMetrics<'_> {
    /// Whether any boost can apply.
    pub fn is_active(&self) -> bool {
        !self.metrics.is_empty() && self.max_boost > 0.0
    }

    /// The boost of `card` whose category score is `category_score`.
    pub fn boost(&self, card: &ModelCard, category_score: f64) -> Boost {
        let mut evidence = Vec::new();
        if !self.is_active() {
            return Boost { points: 0.0, evidence };
        }
        for value in &card.benchmarks {
            let Some(normalized) = value.normalized else { continue };
            if self.metrics.iter().any(|m| *m == value.metric)
                && !evidence.iter().any(|(m, _): &(String, f64)| *m == value.metric)
            {
                evidence.push((value.metric.clone(), normalized));
            }
        }
        if evidence.is_empty() {
            return Boost { points: 0.0, evidence };
        }
        let mean = evidence.iter().map(|(_, v)| v).sum::<f64>() / evidence.len() as f64;
        let points = ((mean - category_score) * self.scale).clamp(-self.max_boost, self.max_boost);
        Boost { points, evidence }
    }
}

/// Checks the built-in context rules parse.
pub(crate) fn check_builtin() -> Result<(), RoutingError> {
    ContextRules::parse(CONTEXT_JSON).map(|_| ())
}
