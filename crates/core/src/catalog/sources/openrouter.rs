//! OpenRouter `GET /api/v1/models`: the catalog backbone.
//!
//! Accepts the live shape `{data:[…]}` and the archived one `{fetched_at, url, body:{data:[…]}}`
//! (also with `body` stored as a JSON string). Prices are USD per token as strings and become
//! USD per million; negative (`-1` = dynamic) means unknown. Variants (`:free`, `:batch`,
//! `:thinking`, `:exacto`, …) and `~vendor/x-latest` aliases keep their own entry with
//! `variant` set and `base_id` pointing at the base model.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::lenient::{self, Obj, Scalar};
use super::{file_error, json_error};
use crate::catalog::record::{OpenRouterModel, Parsed, SourceId};

/// Longest description kept, in characters (the first paragraph, cut at a word).
pub const DESCRIPTION_MAX_CHARS: usize = 400;

/// One parsed OpenRouter file: its models and, for archives, when it was fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The archive's `fetched_at` (RFC 3339) when the file has one.
    pub fetched_at: Option<String>,
    pub models: Parsed<OpenRouterModel>,
}

impl Snapshot {
    /// The `YYYY-MM-DD` date of `fetched_at`, when it starts with one.
    pub fn date(&self) -> Option<String> {
        self.fetched_at.as_deref().and_then(super::iso_date)
    }
}

/// Parses an OpenRouter models file. Errors only when the bytes are not JSON or hold no
/// `data` list; records without an id are skipped and counted.
pub fn parse(bytes: &[u8]) -> Result<Parsed<OpenRouterModel>, crate::catalog::record::SourceError> {
    parse_snapshot(bytes).map(|s| s.models)
}

/// Like [`parse`], also returning the archive's `fetched_at`.
pub fn parse_snapshot(bytes: &[u8]) -> Result<Snapshot, crate::catalog::record::SourceError> {
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(doc) => {
            let fetched_at = doc.fetched_at;
            let Some(records) = doc.data.or(doc.body.0.and_then(|b| b.data)) else {
                // `body` may be a JSON string, or missing; the slow path sorts that out.
                return parse_value(bytes);
            };
            let mut models = super::empty();
            models.items.reserve(records.len());
            for (index, record) in records.into_iter().enumerate() {
                convert(index, record.0, &mut models);
            }
            Ok(Snapshot { fetched_at, models })
        }
        Err(e) if e.classify() == serde_json::error::Category::Data => parse_value(bytes),
        Err(e) => Err(json_error(SourceId::OpenRouter, &e)),
    }
}

/// The `YYYY-MM-DD` snapshot date of an archived file (`fetched_at`), `None` for the live
/// shape. Cheaper than a full parse: model records are skipped, not read.
pub fn snapshot_date(bytes: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default, deserialize_with = "lenient::opt_string")]
        fetched_at: Option<String>,
    }
    let head: Head = serde_json::from_slice(bytes).ok()?;
    head.fetched_at.as_deref().and_then(super::iso_date)
}

/// The slow path for documents the typed pass rejects (records that are not objects,
/// duplicate keys, `body` as a string): walk a `Value` and judge each record alone.
fn parse_value(bytes: &[u8]) -> Result<Snapshot, crate::catalog::record::SourceError> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| json_error(SourceId::OpenRouter, &e))?;
    let fetched_at = doc
        .get("fetched_at")
        .and_then(Value::as_str)
        .map(|s| s.trim().to_owned());
    let nested;
    let records = match doc.get("data") {
        Some(Value::Array(items)) => items,
        _ => match doc.get("body") {
            Some(Value::Object(body)) => match body.get("data") {
                Some(Value::Array(items)) => items,
                _ => return Err(no_data()),
            },
            Some(Value::String(text)) => {
                nested = serde_json::from_str::<Value>(text)
                    .map_err(|e| json_error(SourceId::OpenRouter, &e))?;
                match nested.get("data") {
                    Some(Value::Array(items)) => items,
                    _ => return Err(no_data()),
                }
            }
            _ => return Err(no_data()),
        },
    };
    let mut models = super::empty();
    for (index, item) in records.iter().enumerate() {
        match Obj::<RawModel>::deserialize(item) {
            Ok(record) => convert(index, record.0, &mut models),
            Err(e) => models.skip(format!("record {index}: {e}")),
        }
    }
    Ok(Snapshot {
        fetched_at: fetched_at.filter(|s| !s.is_empty()),
        models,
    })
}

fn no_data() -> crate::catalog::record::SourceError {
    file_error(
        SourceId::OpenRouter,
        "expected {data:[…]} or {body:{data:[…]}}",
    )
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    fetched_at: Option<String>,
    #[serde(borrow, default)]
    data: Option<Vec<Obj<RawModel<'a>>>>,
    #[serde(borrow, default)]
    body: Obj<Body<'a>>,
}

#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow, default)]
    data: Option<Vec<Obj<RawModel<'a>>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawModel<'a> {
    #[serde(deserialize_with = "lenient::opt_string")]
    id: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    name: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    canonical_slug: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    hugging_face_id: Option<String>,
    #[serde(deserialize_with = "lenient::opt_i64")]
    created: Option<i64>,
    #[serde(borrow, deserialize_with = "lenient::opt_cow")]
    description: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::opt_u64")]
    context_length: Option<u64>,
    #[serde(deserialize_with = "lenient::vec_string")]
    supported_parameters: Vec<String>,
    architecture: Obj<Architecture>,
    pricing: Obj<Pricing>,
    top_provider: Obj<TopProvider>,
    reasoning: Obj<Reasoning>,
    alias_target: Obj<AliasTarget>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Architecture {
    #[serde(deserialize_with = "lenient::vec_string")]
    input_modalities: Vec<String>,
    #[serde(deserialize_with = "lenient::vec_string")]
    output_modalities: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Pricing {
    #[serde(deserialize_with = "price_per_m")]
    prompt: Option<f64>,
    #[serde(deserialize_with = "price_per_m")]
    completion: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TopProvider {
    #[serde(deserialize_with = "lenient::opt_u64")]
    context_length: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_u64")]
    max_completion_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Reasoning {
    #[serde(deserialize_with = "lenient::vec_string")]
    supported_efforts: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AliasTarget {
    #[serde(deserialize_with = "lenient::opt_string")]
    slug: Option<String>,
}

fn convert(index: usize, raw: Option<RawModel<'_>>, out: &mut Parsed<OpenRouterModel>) {
    let Some(raw) = raw else {
        out.skip(format!("record {index}: not an object"));
        return;
    };
    let Some(id) = raw.id else {
        out.skip(format!("record {index}: no id"));
        return;
    };
    let alias_target = raw.alias_target.0.and_then(|t| t.slug);
    let Some((base_id, variant)) = split_variant(&id, alias_target.as_deref()) else {
        out.skip(format!("record {index}: malformed id {id:?}"));
        return;
    };
    let architecture = raw.architecture.0.unwrap_or_default();
    let pricing = raw.pricing.0.unwrap_or_default();
    let top = raw.top_provider.0.unwrap_or_default();
    out.items.push(OpenRouterModel {
        name: raw.name.unwrap_or_else(|| id.clone()),
        base_id,
        variant,
        canonical_slug: raw.canonical_slug,
        hugging_face_id: raw.hugging_face_id,
        created: raw.created,
        context_length: raw.context_length.or(top.context_length),
        max_completion_tokens: top.max_completion_tokens,
        input_modalities: architecture.input_modalities,
        output_modalities: architecture.output_modalities,
        supported_parameters: raw.supported_parameters,
        prompt_per_m: pricing.prompt,
        completion_per_m: pricing.completion,
        reasoning_efforts: raw
            .reasoning
            .0
            .map(|r| r.supported_efforts)
            .unwrap_or_default(),
        description: raw.description.as_deref().and_then(first_paragraph),
        id,
    });
}

/// `(base_id, variant)` of a listed id: `vendor/model:free` → (`vendor/model`, `free`);
/// `~vendor/model-latest` → (the alias target without its variant, or the id without `~`,
/// `latest`). `None` for ids with an empty base or variant.
pub fn split_variant(id: &str, alias_target: Option<&str>) -> Option<(String, Option<String>)> {
    if let Some(alias) = id.strip_prefix('~') {
        let target = alias_target
            .map(str::trim)
            .filter(|t| !t.is_empty() && !t.starts_with('~'));
        let base = match target {
            Some(target) => split_variant(target, None)?.0,
            None => alias.split(':').next().unwrap_or(alias).to_owned(),
        };
        return (!base.is_empty()).then(|| (base, Some("latest".to_owned())));
    }
    match id.split_once(':') {
        Some((base, variant)) if !base.is_empty() && !variant.is_empty() => {
            Some((base.to_owned(), Some(variant.to_owned())))
        }
        Some(_) => None,
        None => (!id.is_empty()).then(|| (id.to_owned(), None)),
    }
}

fn price_per_m<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Text(text) => per_token_text_to_per_million(&text),
        other => other.as_f64().filter(|v| *v >= 0.0).map(|v| v * 1e6),
    })
}

/// USD per token as written (`"0.000005"`) → USD per million tokens (`5.0`), shifting the
/// decimal point in the text so the result is the exact nearest `f64` of the decimal (a
/// product `x * 1e6` would give `4.999999999999999`). Negative (`"-1"`, dynamic) and
/// unreadable prices are unknown: `None`.
pub fn per_token_text_to_per_million(text: &str) -> Option<f64> {
    let text = text.trim();
    let value: f64 = text.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let digits = text.strip_prefix('+').unwrap_or(text);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return Some(value * 1e6);
    }
    let moved = &frac[..frac.len().min(6)];
    let mut shifted = String::with_capacity(int.len() + frac.len() + 8);
    shifted.push_str(int);
    shifted.push_str(moved);
    shifted.extend(std::iter::repeat_n('0', 6 - moved.len()));
    shifted.push('.');
    shifted.push_str(&frac[moved.len()..]);
    shifted.push('0');
    shifted.parse().ok()
}

/// The first paragraph of a Markdown description: up to the first blank line, lines joined
/// with spaces, trimmed, cut at a word boundary to [`DESCRIPTION_MAX_CHARS`] (with `…`).
pub fn first_paragraph(text: &str) -> Option<String> {
    let mut paragraph = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(line);
        if paragraph.len() > DESCRIPTION_MAX_CHARS * 4 {
            break;
        }
    }
    if paragraph.is_empty() {
        return None;
    }
    let Some((cut, _)) = paragraph.char_indices().nth(DESCRIPTION_MAX_CHARS) else {
        return Some(paragraph);
    };
    let head = &paragraph[..cut];
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > cut / 2 => &head[..space],
        _ => head,
    };
    Some(format!("{}…", head.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_shift_exactly() {
        assert_eq!(per_token_text_to_per_million("0.000005"), Some(5.0));
        assert_eq!(
            per_token_text_to_per_million("0.000000413772"),
            Some(0.413772)
        );
        assert_eq!(per_token_text_to_per_million("0"), Some(0.0));
        assert_eq!(per_token_text_to_per_million("2"), Some(2_000_000.0));
        assert_eq!(per_token_text_to_per_million("-1"), None);
        assert_eq!(per_token_text_to_per_million("abc"), None);
        assert_eq!(per_token_text_to_per_million("5e-6"), Some(5e-6 * 1e6));
    }

    #[test]
    fn variants_and_aliases_split() {
        let split = |id, target| split_variant(id, target);
        assert_eq!(
            split("a/b:free", None),
            Some(("a/b".into(), Some("free".into())))
        );
        assert_eq!(split("a/b", None), Some(("a/b".into(), None)));
        assert_eq!(
            split("~a/b-latest", Some("a/b-5")),
            Some(("a/b-5".into(), Some("latest".into())))
        );
        assert_eq!(
            split("~a/b-latest", Some("a/b-5:thinking")),
            Some(("a/b-5".into(), Some("latest".into())))
        );
        assert_eq!(
            split("~a/b-latest", None),
            Some(("a/b-latest".into(), Some("latest".into())))
        );
        assert_eq!(split("a/b:", None), None);
        assert_eq!(split(":free", None), None);
        assert_eq!(split("~", None), None);
    }

    #[test]
    fn first_paragraph_stops_at_blank_line_and_caps_length() {
        assert_eq!(
            first_paragraph("One\ntwo.\n\nThree.").as_deref(),
            Some("One two.")
        );
        assert_eq!(first_paragraph("\n\n  x  \r\n\r\ny").as_deref(), Some("x"));
        assert_eq!(first_paragraph("   \n"), None);
        let long = "word ".repeat(200);
        let cut = first_paragraph(&long).expect("non-empty");
        assert!(cut.chars().count() <= DESCRIPTION_MAX_CHARS + 1);
        assert!(cut.ends_with("word…"));
        let wide = "é".repeat(1000);
        assert_eq!(first_paragraph(&wide).map(|s| s.chars().count()), Some(401));
    }
}
