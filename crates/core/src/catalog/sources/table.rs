//! CSV plumbing shared by the CSV parsers: a tolerant reader over bytes, header lookup by
//! normalized name, and cell readers that never fail (a bad cell is an absent value).

use csv::{ByteRecord, Reader, ReaderBuilder};

use super::file_error;
use crate::catalog::record::{SourceError, SourceId};

/// A reader that accepts ragged rows (short or long rows are judged per cell).
pub(crate) fn reader(bytes: &[u8]) -> Reader<&[u8]> {
    ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes)
}

/// The header row, each name normalized with [`normalize`]. Errors when the file has none.
pub(crate) fn headers(
    source: SourceId,
    reader: &mut Reader<&[u8]>,
) -> Result<Vec<String>, SourceError> {
    let headers = reader
        .byte_headers()
        .map_err(|e| file_error(source, format!("unreadable CSV header: {e}")))?;
    let names: Vec<String> = headers.iter().map(normalize).collect();
    if names.iter().all(String::is_empty) {
        return Err(file_error(source, "empty file: no CSV header"));
    }
    Ok(names)
}

/// A header name reduced to lowercase ASCII letters and digits, so `Average ⬆️` is `average`
/// and `MATH Lvl 5` is `mathlvl5` (emoji, spaces and punctuation vary between exports).
pub(crate) fn normalize(name: &[u8]) -> String {
    name.iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(|b| b.to_ascii_lowercase() as char)
        .collect()
}

/// The index of the first header equal to one of `names` (already normalized).
pub(crate) fn find(headers: &[String], names: &[&str]) -> Option<usize> {
    names
        .iter()
        .find_map(|name| headers.iter().position(|h| h == name))
}

/// The cell as trimmed, non-empty UTF-8.
pub(crate) fn text(record: &ByteRecord, index: Option<usize>) -> Option<&str> {
    let cell = std::str::from_utf8(record.get(index?)?).ok()?.trim();
    (!cell.is_empty()).then_some(cell)
}

/// The cell as a finite number.
pub(crate) fn number(record: &ByteRecord, index: Option<usize>) -> Option<f64> {
    text(record, index)?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Reads every data row, calling `row` with each (or the reader's error for it; with
/// flexible byte records that is rare: the reader fails only on IO).
pub(crate) fn for_each_row(
    reader: &mut Reader<&[u8]>,
    mut row: impl FnMut(usize, Result<&ByteRecord, csv::Error>),
) {
    let mut record = ByteRecord::new();
    let mut index = 0;
    loop {
        let before = reader.position().byte();
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => row(index, Ok(&record)),
            Err(e) => {
                row(index, Err(e));
                if reader.position().byte() == before {
                    break;
                }
            }
        }
        index += 1;
    }
}
