//! Small readers over `serde_json::Value` shared by the JSON-lines adapters.

use serde_json::Value;

use super::WorkerEvent;

/// The line as a JSON object, or `None` (not JSON, or not an object).
pub(super) fn object(line: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    value.is_object().then_some(value)
}

pub(super) fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key)?.as_str()
}

/// A non-negative integer field, saturated to `u32`; 0 when absent or not a number.
pub(super) fn u32_at(value: &Value, key: &str) -> u32 {
    value
        .get(key)
        .and_then(Value::as_u64)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        .unwrap_or(0)
}

pub(super) fn i32_at(value: &Value, key: &str) -> Option<i32> {
    value.get(key)?.as_i64().and_then(|n| i32::try_from(n).ok())
}

/// The first of `keys` that holds a string.
pub(super) fn first_str<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|key| str_at(value, key))
}

/// An error message from a string or an object with `message` (possibly under `data`).
pub(super) fn message_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(_) => str_at(value, "message")
            .map(str::to_owned)
            .or_else(|| value.get("data").and_then(message_of))
            .or_else(|| value.get("error").and_then(message_of))
            .or_else(|| str_at(value, "name").map(str::to_owned)),
        _ => None,
    }
}

pub(super) fn raw(line: &str) -> Vec<WorkerEvent> {
    if line.trim().is_empty() {
        return Vec::new();
    }
    vec![WorkerEvent::Raw {
        line: line.to_owned(),
    }]
}
