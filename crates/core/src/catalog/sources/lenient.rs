//! Tolerant field deserializers: a value of the wrong type becomes "absent" instead of failing
//! the record (or, worse, the whole file, since a streaming parser cannot resume mid-record).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Any JSON value reduced to what a field parser needs; arrays and objects are consumed and
/// reported as [`Scalar::Other`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar<'de> {
    Float(f64),
    Signed(i64),
    Unsigned(u64),
    Text(Cow<'de, str>),
    Bool(bool),
    Null,
    Other,
}

impl Scalar<'_> {
    /// A finite number, from a JSON number or a numeric string.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        let value = match self {
            Scalar::Float(v) => *v,
            Scalar::Signed(v) => *v as f64,
            Scalar::Unsigned(v) => *v as f64,
            Scalar::Text(s) => s.trim().parse::<f64>().ok()?,
            Scalar::Bool(_) | Scalar::Null | Scalar::Other => return None,
        };
        value.is_finite().then_some(value)
    }

    /// A whole number, from an integer, an integral float or a numeric string.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Scalar::Signed(v) => return Some(*v),
            Scalar::Unsigned(v) => return i64::try_from(*v).ok(),
            Scalar::Text(s) => {
                if let Ok(v) = s.trim().parse::<i64>() {
                    return Some(v);
                }
            }
            _ => {}
        }
        let v = self.as_f64()?;
        // The bounds keep the cast exact; i64::MAX itself is not representable in f64.
        (v.fract() == 0.0 && (-9.0e18..=9.0e18).contains(&v)).then_some(v as i64)
    }

    /// A non-negative whole number.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Scalar::Unsigned(v) => Some(*v),
            _ => u64::try_from(self.as_i64()?).ok(),
        }
    }

    /// `true`/`false`, also from the strings `True`/`FALSE`/`1`/`0` that CSV exports use.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Scalar::Bool(b) => Some(*b),
            Scalar::Text(s) => parse_bool(s),
            Scalar::Signed(v) => Some(*v != 0),
            Scalar::Unsigned(v) => Some(*v != 0),
            _ => None,
        }
    }

    /// The text, trimmed; `None` when not a string or blank.
    pub(crate) fn into_text(self) -> Option<Cow<'static, str>> {
        match self {
            Scalar::Text(s) => {
                let trimmed = s.trim();
                (!trimmed.is_empty()).then(|| Cow::Owned(trimmed.to_owned()))
            }
            _ => None,
        }
    }
}

/// Parses the boolean spellings seen in the sources' CSV exports.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "true" | "True" | "TRUE" | "1" => Some(true),
        "false" | "False" | "FALSE" | "0" => Some(false),
        _ => None,
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Signed(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Unsigned(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Text(Cow::Borrowed(v)))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Text(Cow::Owned(v)))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// `deserialize_with` for an optional number (JSON number or numeric string).
pub(crate) fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(Scalar::deserialize(d)?.as_f64())
}

/// `deserialize_with` for an optional whole number.
pub(crate) fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(Scalar::deserialize(d)?.as_i64())
}

/// `deserialize_with` for an optional non-negative whole number.
pub(crate) fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Scalar::deserialize(d)?.as_u64())
}

/// `deserialize_with` for an optional string: trimmed, blank → `None`, non-strings → `None`.
pub(crate) fn opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Scalar::deserialize(d)?.into_text().map(Cow::into_owned))
}

/// `deserialize_with` for an optional long text that is usually borrowed from the input.
pub(crate) fn opt_cow<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Text(text) => Some(text),
        _ => None,
    })
}

/// `deserialize_with` for a list of strings: non-string items are dropped, a non-list is empty.
pub(crate) fn vec_string<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    d.deserialize_any(StringsVisitor)
}

struct StringsVisitor;

impl<'de> Visitor<'de> for StringsVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element::<Scalar<'de>>()? {
            if let Some(text) = item.into_text() {
                out.push(text.into_owned());
            }
        }
        Ok(out)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Vec::new())
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A nested object that may be missing or of the wrong type: `Obj(None)` then, never an error
/// (duplicate keys inside the object still error; callers fall back to a `Value` walk).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ObjVisitor(PhantomData))
    }
}

struct ObjVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(|v| Obj(Some(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Obj(None))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Obj(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Probe {
        #[serde(deserialize_with = "opt_f64")]
        num: Option<f64>,
        #[serde(deserialize_with = "opt_u64")]
        count: Option<u64>,
        #[serde(deserialize_with = "opt_string")]
        text: Option<String>,
        #[serde(deserialize_with = "vec_string")]
        list: Vec<String>,
        inner: Obj<Inner>,
    }

    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Inner {
        #[serde(deserialize_with = "opt_f64")]
        x: Option<f64>,
    }

    fn probe(json: &str) -> Probe {
        serde_json::from_str(json).expect("probe json is valid")
    }

    #[test]
    fn right_types_are_read() {
        let p = probe(r#"{"num":1.5,"count":7,"text":" a ","list":["x","y"],"inner":{"x":2}}"#);
        assert_eq!(p.num, Some(1.5));
        assert_eq!(p.count, Some(7));
        assert_eq!(p.text.as_deref(), Some("a"));
        assert_eq!(p.list, vec!["x", "y"]);
        assert_eq!(p.inner.0.and_then(|i| i.x), Some(2.0));
    }

    #[test]
    fn numeric_strings_and_integral_floats_are_numbers() {
        let p = probe(r#"{"num":"2.25","count":4096.0}"#);
        assert_eq!(p.num, Some(2.25));
        assert_eq!(p.count, Some(4096));
    }

    #[test]
    fn wrong_types_become_absent() {
        let p =
            probe(r#"{"num":{"a":[1,2]},"count":-3,"text":[1],"list":"nope","inner":[{"x":1}]}"#);
        assert_eq!(p.num, None);
        assert_eq!(p.count, None);
        assert_eq!(p.text, None);
        assert!(p.list.is_empty());
        assert!(p.inner.0.is_none());
    }

    #[test]
    fn non_string_list_items_are_dropped() {
        let p = probe(r#"{"list":["a",1,null,{"b":2},"  ","c"]}"#);
        assert_eq!(p.list, vec!["a", "c"]);
    }

    #[test]
    fn fractional_and_huge_counts_are_absent() {
        assert_eq!(probe(r#"{"count":1.5}"#).count, None);
        assert_eq!(probe(r#"{"count":1e300}"#).count, None);
        assert_eq!(probe(r#"{"num":"NaN"}"#).num, None);
    }
}
