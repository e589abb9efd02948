//! Context boost: stack words in a task (`rust`, `postgresql`) name the benchmark metrics that
//! matter for them (`data/routing/context.json`); a model stronger on those than on its
//! category overall gains a little, a weaker one loses a little, never more than `maxBoost`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::catalog::card::ModelCard;
use crate::hash::FastMap;
use crate::roles::{builtin_stack, StackGroup};

use super::error::RoutingError;

const CONTEXT_FILE: &str = "context.json";
const CONTEXT_JSON: &str = include_str!("../../data/routing/context.json");

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ContextData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    max_boost: f64,
    scale: f64,
    groups: BTreeMap<String, Vec<String>>,
    stacks: BTreeMap<String, Vec<String>>,
}

/// The compiled rules: stack id → metric ids.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextRules {
    by_stack: FastMap<Box<str>, Vec<Box<str>>>,
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
    /// Parses `context.json` for stack blocks given as `(id, group)`.
    pub fn parse(
        json: &str,
        stacks: &[(&str, Option<StackGroup>)],
    ) -> Result<ContextRules, RoutingError> {
        let error = |message: String| RoutingError::Data {
            file: CONTEXT_FILE,
            message,
        };
        let data: ContextData = serde_json::from_str(json).map_err(|e| error(e.to_string()))?;
        if !(data.max_boost.is_finite() && data.max_boost >= 0.0 && data.scale.is_finite()) {
            return Err(error("maxBoost must be ≥ 0 and scale finite".into()));
        }
        for group in data.groups.keys() {
            if StackGroup::from_id(group).is_none() {
                return Err(error(format!("unknown stack group {group:?}")));
            }
        }
        for id in data.stacks.keys() {
            if !stacks.iter().any(|(known, _)| known == id) {
                return Err(error(format!("unknown stack id {id:?}")));
            }
        }
        let mut by_stack: FastMap<Box<str>, Vec<Box<str>>> = FastMap::default();
        for (id, group) in stacks {
            let metrics = data
                .stacks
                .get(*id)
                .or_else(|| group.and_then(|g| data.groups.get(g.id())));
            if let Some(metrics) = metrics.filter(|m| !m.is_empty()) {
                by_stack.insert(
                    (*id).into(),
                    metrics.iter().map(|m| m.as_str().into()).collect(),
                );
            }
        }
        Ok(ContextRules {
            by_stack,
            max_boost: data.max_boost,
            scale: data.scale,
        })
    }

    /// The built-in rules (empty if the embedded file were broken; tests guarantee it is not).
    pub fn builtin() -> &'static ContextRules {
        static RULES: OnceLock<ContextRules> = OnceLock::new();
        RULES.get_or_init(|| {
            ContextRules::parse(CONTEXT_JSON, &builtin_groups()).unwrap_or_default()
        })
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
        ContextMetrics {
            metrics,
            max_boost: self.max_boost,
            scale: self.scale,
        }
    }
}

impl ContextMetrics<'_> {
    /// Whether any boost can apply.
    pub fn is_active(&self) -> bool {
        !self.metrics.is_empty() && self.max_boost > 0.0
    }

    /// The boost of `card` whose category score is `category_score`, without the evidence
    /// (no allocation: this runs for every candidate near the top).
    pub fn points(&self, card: &ModelCard, category_score: f64) -> f64 {
        if !self.is_active() {
            return 0.0;
        }
        let (mut sum, mut count) = (0.0, 0u32);
        for (index, value) in card.benchmarks.iter().enumerate() {
            let Some(normalized) = value.normalized else {
                continue;
            };
            if self.metrics.iter().any(|m| *m == value.metric)
                && !card.benchmarks[..index]
                    .iter()
                    .any(|v| v.normalized.is_some() && v.metric == value.metric)
            {
                sum += normalized;
                count += 1;
            }
        }
        if count == 0 {
            return 0.0;
        }
        ((sum / f64::from(count) - category_score) * self.scale)
            .clamp(-self.max_boost, self.max_boost)
    }

    /// The boost of `card` whose category score is `category_score`.
    pub fn boost(&self, card: &ModelCard, category_score: f64) -> Boost {
        let mut evidence = Vec::new();
        if !self.is_active() {
            return Boost {
                points: 0.0,
                evidence,
            };
        }
        for value in &card.benchmarks {
            let Some(normalized) = value.normalized else {
                continue;
            };
            if self.metrics.iter().any(|m| *m == value.metric)
                && !evidence
                    .iter()
                    .any(|(m, _): &(String, f64)| *m == value.metric)
            {
                evidence.push((value.metric.clone(), normalized));
            }
        }
        if evidence.is_empty() {
            return Boost {
                points: 0.0,
                evidence,
            };
        }
        let mean = evidence.iter().map(|(_, v)| v).sum::<f64>() / evidence.len() as f64;
        let points = ((mean - category_score) * self.scale).clamp(-self.max_boost, self.max_boost);
        Boost { points, evidence }
    }
}

/// Checks the built-in context rules parse.
pub(crate) fn check_builtin() -> Result<(), RoutingError> {
    ContextRules::parse(CONTEXT_JSON, &builtin_groups()).map(|_| ())
}

fn builtin_groups() -> Vec<(&'static str, Option<StackGroup>)> {
    builtin_stack()
        .map(|block| (block.id.as_str(), block.group))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules_cover_every_grouped_roles_stack() {
        let rules = ContextRules::parse(CONTEXT_JSON, &builtin_groups()).expect("context.json");
        for block in builtin_stack().filter(|b| b.group.is_some()) {
            assert!(
                rules.by_stack.contains_key(block.id.as_str()),
                "{} has no metrics",
                block.id
            );
        }
        let pytorch = rules.metrics_for(&["pytorch".to_owned()]);
        assert!(pytorch.metrics.contains(&"aa.scicode"));
        assert!(!rules.metrics_for(&["no-such-stack".to_owned()]).is_active());
    }

    #[test]
    fn unknown_stack_ids_and_groups_are_rejected() {
        let mut data: serde_json::Value = serde_json::from_str(CONTEXT_JSON).expect("json");
        data["stacks"]["cobol"] = serde_json::json!(["aa.gpqa"]);
        assert!(ContextRules::parse(&data.to_string(), &builtin_groups()).is_err());
        let mut data: serde_json::Value = serde_json::from_str(CONTEXT_JSON).expect("json");
        data["groups"]["mainframe"] = serde_json::json!(["aa.gpqa"]);
        assert!(ContextRules::parse(&data.to_string(), &builtin_groups()).is_err());
    }
}
