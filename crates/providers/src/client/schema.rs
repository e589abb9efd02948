//! A small JSON Schema validator for structured model output.
//!
//! Why not the `jsonschema` crate: it is a large dependency tree (regex engines, URL
//! resolution, optional HTTP for remote `$ref`s) for a job where we write every schema
//! ourselves (plans, DAGs, verdicts), and we want short error messages with a JSON path that can
//! be quoted back to the model in a repair request. This validator covers the keywords those
//! schemas use and that OpenAI's strict mode accepts:
//!
//! `type` (one or a list), `enum`, `const`, `properties`, `required`, `additionalProperties`
//! (`false` or a schema), `items`, `minItems`, `maxItems`, `minLength`, `maxLength`, `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `anyOf`, `oneOf`, `allOf`, and local
//! `$ref`s (`#/$defs/…`, `#/definitions/…`). Other keywords (`pattern`, `format`, …) are
//! ignored, i.e. they accept everything; an unresolvable `$ref` is a violation.

use std::fmt;

use serde_json::{Map, Value};

/// Where and how a value breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaViolation {
    /// JSON path of the offending value, e.g. `$.steps[2].title`.
    pub path: String,
    /// What is wrong, e.g. `expected string, got number`.
    pub message: String,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Checks `value` against `schema`; the first violation found is returned.
pub fn validate(value: &Value, schema: &Value) -> Result<(), SchemaViolation> {
    check(value, schema, schema, "$", 0)
}

/// Guards against `$ref` cycles.
const MAX_DEPTH: usize = 64;

fn violation(path: &str, message: impl Into<String>) -> SchemaViolation {
    SchemaViolation {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn check(
    value: &Value,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), SchemaViolation> {
    if depth > MAX_DEPTH {
        return Err(violation(path, "schema nests too deeply (a $ref cycle?)"));
    }
    let schema = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return Err(violation(path, "no value is allowed here")),
        Value::Object(schema) => schema,
        _ => return Ok(()),
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .ok_or_else(|| violation(path, format!("cannot resolve $ref {reference:?}")))?;
        check(value, target, root, path, depth + 1)?;
    }
    if let Some(expected) = schema.get("type") {
        let names: Vec<&str> = match expected {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !names.is_empty() && !names.iter().any(|name| has_type(value, name)) {
            let wanted = names.join(" or ");
            return Err(violation(
                path,
                format!("expected {wanted}, got {}", type_name(value)),
            ));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            let allowed: Vec<String> = options.iter().map(Value::to_string).collect();
            return Err(violation(
                path,
                format!("must be one of {}", allowed.join(", ")),
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            return Err(violation(path, format!("must be {constant}")));
        }
    }
    combinators(value, schema, root, path, depth)?;
    match value {
        Value::String(text) => string(text, schema, path),
        Value::Number(_) => number(value, schema, path),
        Value::Object(object) => self::object(object, schema, root, path, depth),
        Value::Array(items) => array(items, schema, root, path, depth),
        _ => Ok(()),
    }
}

fn combinators(
    value: &Value,
    schema: &Map<String, Value>,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), SchemaViolation> {
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            check(value, sub, root, path, depth + 1)?;
        }
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let mut first_error = None;
        let matched = any
            .iter()
            .any(|sub| match check(value, sub, root, path, depth + 1) {
                Ok(()) => true,
                Err(e) => {
                    first_error.get_or_insert(e);
                    false
                }
            });
        if !matched {
            let detail = first_error
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default();
            return Err(violation(path, format!("matches none of anyOf{detail}")));
        }
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
        let matches = one
            .iter()
            .filter(|sub| check(value, sub, root, path, depth + 1).is_ok());
        let count = matches.count();
        if count != 1 {
            return Err(violation(
                path,
                format!("matches {count} of oneOf, expected exactly 1"),
            ));
        }
    }
    Ok(())
}

fn string(text: &str, schema: &Map<String, Value>, path: &str) -> Result<(), SchemaViolation> {
    let len = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
        if len < min {
            return Err(violation(path, format!("shorter than {min} characters")));
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        if len > max {
            return Err(violation(path, format!("longer than {max} characters")));
        }
    }
    Ok(())
}

fn number(value: &Value, schema: &Map<String, Value>, path: &str) -> Result<(), SchemaViolation> {
    let Some(n) = value.as_f64() else {
        return Ok(());
    };
    let bound = |name: &str| schema.get(name).and_then(Value::as_f64);
    if let Some(min) = bound("minimum").filter(|min| n < *min) {
        return Err(violation(path, format!("less than the minimum {min}")));
    }
    if let Some(max) = bound("maximum").filter(|max| n > *max) {
        return Err(violation(path, format!("greater than the maximum {max}")));
    }
    if let Some(min) = bound("exclusiveMinimum").filter(|min| n <= *min) {
        return Err(violation(path, format!("must be greater than {min}")));
    }
    if let Some(max) = bound("exclusiveMaximum").filter(|max| n >= *max) {
        return Err(violation(path, format!("must be less than {max}")));
    }
    Ok(())
}

fn object(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), SchemaViolation> {
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                return Err(violation(
                    path,
                    format!("missing required property {name:?}"),
                ));
            }
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, item) in object {
        let item_path = format!("{path}.{name}");
        match properties.and_then(|p| p.get(name)) {
            Some(sub) => check(item, sub, root, &item_path, depth + 1)?,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    return Err(violation(path, format!("unexpected property {name:?}")))
                }
                Some(sub @ Value::Object(_)) => check(item, sub, root, &item_path, depth + 1)?,
                _ => {}
            },
        }
    }
    Ok(())
}

fn array(
    items: &[Value],
    schema: &Map<String, Value>,
    root: &Value,
    path: &str,
    depth: usize,
) -> Result<(), SchemaViolation> {
    let len = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
        if len < min {
            return Err(violation(path, format!("fewer than {min} items")));
        }
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
        if len > max {
            return Err(violation(path, format!("more than {max} items")));
        }
    }
    if let Some(sub) = schema
        .get("items")
        .filter(|s| s.is_object() || s.is_boolean())
    {
        for (index, item) in items.iter().enumerate() {
            check(item, sub, root, &format!("{path}[{index}]"), depth + 1)?;
        }
    }
    Ok(())
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan_schema() -> Value {
        json!({
            "type": "object",
            "required": ["title", "steps"],
            "additionalProperties": false,
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
                "mode": {"enum": ["plan", "swarm"]},
                "budget": {"type": ["number", "null"], "minimum": 0}
            },
            "$defs": {
                "step": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": {"type": "integer"}, "after": {"type": "array", "items": {"type": "integer"}}}
                }
            }
        })
    }

    fn error(value: Value) -> String {
        validate(&value, &plan_schema())
            .expect_err("invalid")
            .to_string()
    }

    #[test]
    fn valid_values_pass() {
        let value = json!({"title": "t", "steps": [{"id": 1}, {"id": 2.0, "after": [1]}], "mode": "plan", "budget": null});
        assert_eq!(validate(&value, &plan_schema()), Ok(()));
        assert_eq!(validate(&json!(42), &json!(true)), Ok(()));
    }

    #[test]
    fn violations_name_the_path_and_the_rule() {
        assert_eq!(error(json!([])), "$: expected object, got array");
        assert_eq!(
            error(json!({"title": "t"})),
            "$: missing required property \"steps\""
        );
        assert_eq!(
            error(json!({"title": "", "steps": [{"id": 1}]})),
            "$.title: shorter than 1 characters"
        );
        assert_eq!(
            error(json!({"title": "t", "steps": []})),
            "$.steps: fewer than 1 items"
        );
        assert_eq!(
            error(json!({"title": "t", "steps": [{"id": 1}, {"id": "x"}]})),
            "$.steps[1].id: expected integer, got string"
        );
        assert_eq!(
            error(json!({"title": "t", "steps": [{"id": 1, "after": [1.5]}]})),
            "$.steps[0].after[0]: expected integer, got number"
        );
        assert_eq!(
            error(json!({"title": "t", "steps": [{"id": 1}], "mode": "solo"})),
            "$.mode: must be one of \"plan\", \"swarm\""
        );
        assert_eq!(
            error(json!({"title": "t", "steps": [{"id": 1}], "budget": -1})),
            "$.budget: less than the minimum 0"
        );
        assert_eq!(
            error(json!({"title": "t", "steps": [{"id": 1}], "x": 1})),
            "$: unexpected property \"x\""
        );
    }

    #[test]
    fn combinators_const_and_bad_refs() {
        let schema = json!({"anyOf": [{"type": "string"}, {"type": "integer", "maximum": 3}]});
        assert_eq!(validate(&json!("a"), &schema), Ok(()));
        assert_eq!(validate(&json!(2), &schema), Ok(()));
        assert!(validate(&json!(9), &schema).is_err());
        let one = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
        assert!(validate(&json!(1), &one)
            .expect_err("both match")
            .message
            .contains("2 of oneOf"));
        assert!(validate(&json!("x"), &json!({"const": "y"})).is_err());
        let bad = json!({"$ref": "#/$defs/missing"});
        assert!(validate(&json!(1), &bad)
            .expect_err("unresolved")
            .message
            .contains("$ref"));
        let cycle = json!({"$ref": "#"});
        assert!(validate(&json!(1), &cycle).is_err());
    }
}
