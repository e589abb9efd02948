//! The learned task classifier: a multinomial logistic regression over the features of
//! [`features`] (word uni/bigrams, character n-grams, CJK n-grams, structural cues and the
//! keyword lexicon's weights), with a temperature that calibrates its confidence.
//!
//! The weights live in `data/classify/model.bin` (format below), trained by
//! `cargo run -p switchyard-classify-train --release` from `data/classify/corpus.jsonl`; its
//! SHA-256 and training figures are in `data/classify/model.json`. Both are embedded and
//! parsed once, on first use.
//!
//! File format (little-endian): `SYTC`, format `u32` = 1, version (`u16` length + UTF-8), the
//! class count `u8` and each class id (`u8` length + UTF-8, in [`Category::ALL`] order), the
//! temperature `f32`, one multiplier `f32` per feature group (words, characters, CJK,
//! structure, lexicon), one bias `f32` per class, the feature count `u32`, then per feature
//! (sorted by name) its name (`u16` length + UTF-8) and one weight `f32` per class.

mod features;
mod score;
mod table;

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Category;
use table::FeatureTable;

use super::error::RoutingError;

use features::{Group, GROUPS};
pub(crate) use score::named_features;

/// The built-in weights.
const MODEL_BYTES: &[u8] = include_bytes!("../../../data/classify/model.bin");
/// The built-in weights' manifest: version, SHA-256, training figures.
const MODEL_MANIFEST: &str = include_str!("../../../data/classify/model.json");
const MODEL_FILE: &str = "model.bin";
const MAGIC: &[u8; 4] = b"SYTC";
const FORMAT: u32 = 1;
/// Number of classes, one per category.
pub const CLASSES: usize = Category::ALL.len();
/// Number of feature groups: words (`w:`, `b:`), Latin characters (`c:`), CJK characters
/// (`z:`), structure (`s:`), lexicon (`l:`).
pub const FEATURE_GROUPS: usize = GROUPS;

/// Which model decided a classification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The model's version (set when it was trained).
    pub version: String,
    /// SHA-256 of the weights file, hex.
    pub sha256: String,
}

/// What a feature is, for an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum FeatureKind {
    /// A word (its unigram and the character n-grams of it, summed).
    Word,
    /// Two adjacent words.
    Phrase,
    /// A run of one to three CJK characters.
    Characters,
    /// A structural cue: a number with a unit, a percentage, code-like text, a question…
    Structure,
    /// The keyword lexicon's weight for a category.
    Lexicon,
}

/// One feature's contribution to the chosen category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FeatureWeight {
    /// The feature as a reader sees it: the word or characters from the task, or the cue's
    /// name (`number with unit`, `lexicon: coding`).
    pub feature: String,
    /// What kind of feature it is.
    pub kind: FeatureKind,
    /// How much it raised the chosen category's score (log-odds units, after calibration).
    pub weight: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    version: String,
    sha256: String,
}

/// A trained classifier: per-category bias and feature weights, and a temperature.
#[derive(Debug, Clone)]
pub struct TaskModel {
    version: String,
    temperature: f32,
    group_weights: [f32; GROUPS],
    bias: [f32; CLASSES],
    names: Vec<Box<str>>,
    weights: Vec<[f32; CLASSES]>,
    table: FeatureTable,
}

static BUILTIN: OnceLock<Option<(Arc<TaskModel>, ModelInfo)>> = OnceLock::new();

/// The built-in model and its manifest, parsed on first use; `None` if either is unusable
/// (tests guarantee they are not; the lexicon then decides alone).
pub(crate) fn builtin() -> Option<&'static (Arc<TaskModel>, ModelInfo)> {
    BUILTIN
        .get_or_init(|| {
            let model = TaskModel::from_bytes(MODEL_BYTES).ok()?;
            let manifest: Manifest = serde_json::from_str(MODEL_MANIFEST).ok()?;
            let info = ModelInfo {
                version: model.version.clone(),
                sha256: manifest.sha256,
            };
            (manifest.version == model.version).then_some((Arc::new(model), info))
        })
        .as_ref()
}

/// The built-in weights file, byte for byte (for integrity checks).
pub fn builtin_model_bytes() -> &'static [u8] {
    MODEL_BYTES
}

/// The built-in model's manifest (`data/classify/model.json`), as text.
pub fn builtin_model_manifest() -> &'static str {
    MODEL_MANIFEST
}

/// The built-in model's version and checksum, if it loads.
pub fn builtin_model_info() -> Option<ModelInfo> {
    builtin().map(|(_, info)| info.clone())
}

/// The hash of a feature name given as pieces: the same value as for the whole name, so the
/// scorer can hash what the extractor hands it without building the name. Eight bytes per
/// mixing step, then a finalizer (names are short and from our own vocabulary; a collision
/// between two model features is refused at load).
#[inline]
pub(crate) fn feature_hash(parts: &[&str]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut hash: u64 = 0;
    let mut word: u64 = 0;
    let mut fill = 0u32;
    let mut len = 0u64;
    for part in parts {
        let mut bytes = part.as_bytes();
        len += bytes.len() as u64;
        while fill == 0 && bytes.len() >= 8 {
            let mut chunk = [0u8; 8];
            chunk.copy_from_slice(&bytes[..8]);
            hash = (hash.rotate_left(23) ^ u64::from_le_bytes(chunk)).wrapping_mul(K);
            bytes = &bytes[8..];
        }
        for &byte in bytes {
            word |= u64::from(byte) << (8 * fill);
            fill += 1;
            if fill == 8 {
                hash = (hash.rotate_left(23) ^ word).wrapping_mul(K);
                word = 0;
                fill = 0;
            }
        }
    }
    if fill > 0 {
        hash = (hash.rotate_left(23) ^ word).wrapping_mul(K);
    }
    // MurmurHash3's fmix64, with the length folded in.
    hash ^= len;
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

fn format_error(message: impl Into<String>) -> RoutingError {
    RoutingError::Data {
        file: MODEL_FILE,
        message: message.into(),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], RoutingError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| format_error(format!("truncated at byte {}", self.at)))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], RoutingError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, RoutingError> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, RoutingError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, RoutingError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn f32(&mut self) -> Result<f32, RoutingError> {
        let value = f32::from_le_bytes(self.array()?);
        if value.is_finite() {
            Ok(value)
        } else {
            Err(format_error(format!(
                "non-finite number at byte {}",
                self.at
            )))
        }
    }

    fn text(&mut self, len: usize) -> Result<&'a str, RoutingError> {
        std::str::from_utf8(self.take(len)?).map_err(|e| format_error(e.to_string()))
    }

    fn weights(&mut self) -> Result<[f32; CLASSES], RoutingError> {
        let mut out = [0f32; CLASSES];
        for w in &mut out {
            *w = self.f32()?;
        }
        Ok(out)
    }
}

impl TaskModel {
    /// A model from trained parameters. `group_weights` multiply the values of each
    /// feature group (in [`FEATURE_GROUPS`] order) as the trainer did. Features are sorted
    /// by name; a name must start with a known group prefix (`w:`, `b:`, `c:`, `z:`, `s:`,
    /// `l:`) and appear once.
    ///
    /// # Errors
    /// [`RoutingError::Data`] for a bad name, a duplicate, a non-finite number, or a
    /// temperature or group weight that is not positive.
    pub fn new(
        version: &str,
        temperature: f32,
        group_weights: [f32; GROUPS],
        bias: [f32; CLASSES],
        mut features: Vec<(String, [f32; CLASSES])>,
    ) -> Result<TaskModel, RoutingError> {
        if !(temperature.is_finite() && temperature > 0.0) {
            return Err(format_error("the temperature must be positive"));
        }
        if group_weights.iter().any(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(format_error("group weights must be positive"));
        }
        if version.is_empty() || version.len() > usize::from(u16::MAX) {
            return Err(format_error("the version must be 1 to 65535 bytes"));
        }
        features.sort_by(|a, b| a.0.cmp(&b.0));
        let mut table = FeatureTable::with_capacity(features.len());
        let mut names = Vec::with_capacity(features.len());
        let mut weights = Vec::with_capacity(features.len());
        for (row, (name, w)) in features.into_iter().enumerate() {
            if Group::of_name(&name).is_none() || name.len() > usize::from(u16::MAX) {
                return Err(format_error(format!("bad feature name {name:?}")));
            }
            if w.iter().chain(&bias).any(|x| !x.is_finite()) {
                return Err(format_error(format!("non-finite weight of {name:?}")));
            }
            let row = u32::try_from(row).map_err(|_| format_error("too many features"))?;
            if !table.insert(feature_hash(&[&name]), row, w) {
                return Err(format_error(format!(
                    "feature {name:?} is listed twice (or collides)"
                )));
            }
            names.push(name.into_boxed_str());
            weights.push(w);
        }
        Ok(TaskModel {
            version: version.to_owned(),
            temperature,
            group_weights,
            bias,
            names,
            weights,
            table,
        })
    }

    /// Parses a weights file (the format in the module documentation).
    ///
    /// # Errors
    /// [`RoutingError::Data`] naming what is wrong: magic, format, classes, truncation,
    /// bad UTF-8, non-finite numbers, duplicate features, trailing bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<TaskModel, RoutingError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC {
            return Err(format_error("not a Switchyard task model"));
        }
        let format = r.u32()?;
        if format != FORMAT {
            return Err(format_error(format!(
                "format {format}, this build reads {FORMAT}"
            )));
        }
        let len = usize::from(r.u16()?);
        let version = r.text(len)?.to_owned();
        let classes = usize::from(r.u8()?);
        if classes != CLASSES {
            return Err(format_error(format!(
                "{classes} classes, expected {CLASSES}"
            )));
        }
        for category in Category::ALL {
            let len = usize::from(r.u8()?);
            let id = r.text(len)?;
            if id != category.id() {
                return Err(format_error(format!(
                    "class {id:?} where {:?} belongs",
                    category.id()
                )));
            }
        }
        let temperature = r.f32()?;
        let mut group_weights = [0f32; GROUPS];
        for w in &mut group_weights {
            *w = r.f32()?;
        }
        let bias = r.weights()?;
        let count = r.u32()? as usize;
        let mut features = Vec::with_capacity(count.min(bytes.len() / 34));
        for _ in 0..count {
            let len = usize::from(r.u16()?);
            let name = r.text(len)?.to_owned();
            features.push((name, r.weights()?));
        }
        if r.at != bytes.len() {
            return Err(format_error(format!(
                "{} bytes after the last feature",
                bytes.len() - r.at
            )));
        }
        TaskModel::new(&version, temperature, group_weights, bias, features)
    }

    /// The weights file of this model (byte-identical for identical parameters).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.names.len() * (2 + 12 + 4 * CLASSES));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.extend_from_slice(&(self.version.len() as u16).to_le_bytes());
        out.extend_from_slice(self.version.as_bytes());
        out.push(CLASSES as u8);
        for category in Category::ALL {
            out.push(category.id().len() as u8);
            out.extend_from_slice(category.id().as_bytes());
        }
        out.extend_from_slice(&self.temperature.to_le_bytes());
        for w in self.group_weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in self.bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out.extend_from_slice(&(self.names.len() as u32).to_le_bytes());
        for (name, weights) in self.names.iter().zip(&self.weights) {
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            for w in weights {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// The version it was trained as.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// How many features it weighs.
    pub fn feature_count(&self) -> usize {
        self.names.len()
    }

    /// The calibration temperature: scores are divided by it before the softmax.
    pub fn temperature(&self) -> f32 {
        self.temperature
    }

    /// The multipliers of each feature group's values.
    pub fn group_weights(&self) -> [f32; GROUPS] {
        self.group_weights
    }

    /// The same model with another calibration temperature.
    ///
    /// # Errors
    /// [`RoutingError::Data`] unless it is positive and finite.
    pub fn with_temperature(mut self, temperature: f32) -> Result<TaskModel, RoutingError> {
        if !(temperature.is_finite() && temperature > 0.0) {
            return Err(format_error("the temperature must be positive"));
        }
        self.temperature = temperature;
        Ok(self)
    }

    #[inline]
    fn lookup(&self, hash: u64) -> Option<(u32, &[f32; CLASSES])> {
        self.table.get(hash)
    }
}
