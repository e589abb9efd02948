//! Parsers for the five catalog sources: bytes in, records out.
//!
//! Every parser takes the raw file bytes and returns `Result<Parsed<T>, SourceError>`:
//! the error only when the file cannot be read at all (not JSON, wrong top level, no CSV
//! header); a bad record is skipped and counted in [`Parsed`] with its reason. No parser
//! panics on any input. JSON is read with typed serde structs over borrowed input, tolerant
//! per field (a value of the wrong type is absent, not fatal); when a document defeats the
//! typed pass (a record that is not an object, a duplicate key), it is re-read as a
//! `serde_json::Value` and each record judged alone. CSV is read as byte records.
//!
//! - [`openrouter`]: the model list (`OpenRouterModel`), live or archived.
//! - [`artificial_analysis`], [`hf_leaderboard`], [`lmarena`], [`livebench`]: benchmark
//!   records with source-qualified metrics (see [`crate::catalog::metrics`]).
//! - [`detect`]: which file of a source folder to import (newest by the date in its name).

pub mod artificial_analysis;
pub mod detect;
pub mod hf_leaderboard;
pub(crate) mod lenient;
pub mod livebench;
pub mod lmarena;
pub mod openrouter;
mod table;

use crate::catalog::record::{BenchmarkRecord, Parsed, SourceError, SourceId};

/// What one source file parsed to.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceFile {
    /// An OpenRouter models file.
    OpenRouter(openrouter::Snapshot),
    /// A benchmark file of the four other sources.
    Benchmarks(Parsed<BenchmarkRecord>),
}

/// Parses one file of `source`, choosing the parser by source and file name (`name` may be a
/// path): HF `.json` is a rows-API page, LMArena is sniffed (JSON or CSV), LiveBench reads
/// `companion` as its categories file (the built-in mapping when `None`).
pub fn parse_file(
    source: SourceId,
    name: &str,
    bytes: &[u8],
    companion: Option<&[u8]>,
) -> Result<SourceFile, SourceError> {
    parse_file_with(source, name, bytes, companion, None)
}

/// Like [`parse_file`]; with `hf_wanted`, the HF leaderboard keeps only the repos it accepts
/// (see [`hf_leaderboard::parse_only`]: pass OpenRouter's `hugging_face_id`s, the only
/// join key, and the HF file costs a few dozen rows instead of thousands).
pub fn parse_file_with(
    source: SourceId,
    name: &str,
    bytes: &[u8],
    companion: Option<&[u8]>,
    hf_wanted: Option<&dyn Fn(&str) -> bool>,
) -> Result<SourceFile, SourceError> {
    let is_json = detect::base_name(name)
        .to_ascii_lowercase()
        .ends_with(".json");
    let wanted = |id: &str| hf_wanted.is_none_or(|wanted| wanted(id));
    let records = match source {
        SourceId::OpenRouter => {
            return openrouter::parse_snapshot(bytes).map(SourceFile::OpenRouter);
        }
        SourceId::ArtificialAnalysis => artificial_analysis::parse(bytes)?,
        SourceId::HfLeaderboard if is_json => {
            let mut records = hf_leaderboard::rows::parse_page(bytes)?.records;
            records.items.retain(|r| wanted(&r.key));
            records
        }
        SourceId::HfLeaderboard => hf_leaderboard::parse_only(bytes, wanted)?,
        SourceId::LmArena => lmarena::parse(bytes)?,
        SourceId::LiveBench => livebench::parse(bytes, companion)?,
    };
    Ok(SourceFile::Benchmarks(records))
}

/// An empty result (`Parsed: Default` needs `T: Default`, which records are not).
pub(crate) fn empty<T>() -> Parsed<T> {
    Parsed {
        items: Vec::new(),
        skipped: 0,
        errors: Vec::new(),
    }
}

pub(crate) fn file_error(source: SourceId, message: impl Into<String>) -> SourceError {
    SourceError {
        source_id: source,
        message: message.into(),
    }
}

pub(crate) fn json_error(source: SourceId, error: &serde_json::Error) -> SourceError {
    use serde_json::error::Category;
    let kind = match error.classify() {
        Category::Eof => "truncated JSON",
        Category::Syntax => "not JSON",
        Category::Data => "unexpected JSON shape",
        Category::Io => "unreadable JSON",
    };
    file_error(source, format!("{kind}: {error}"))
}

/// The `YYYY-MM-DD` a text starts with (`2025-08-05`, `2026-08-22T17:20:56+00:00`), checked
/// for a plausible month and day.
pub(crate) fn iso_date(text: &str) -> Option<String> {
    let text = text.trim();
    let head = text.get(..10)?;
    let b = head.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return None;
    }
    if text.as_bytes().get(10).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let month: u8 = head[5..7].parse().ok()?;
    let day: u8 = head[8..10].parse().ok()?;
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then(|| head.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_date_reads_dates_and_timestamps_only() {
        assert_eq!(iso_date("2025-08-05").as_deref(), Some("2025-08-05"));
        assert_eq!(
            iso_date(" 2026-08-22T17:20:56+00:00").as_deref(),
            Some("2026-08-22")
        );
        assert_eq!(iso_date("2025-13-05"), None);
        assert_eq!(iso_date("2025-1-05"), None);
        assert_eq!(iso_date("2025-01-051"), None);
        assert_eq!(iso_date("yesterday"), None);
        assert_eq!(iso_date("2025-01-0é"), None);
    }
}
