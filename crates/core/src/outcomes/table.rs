//! An outcome table as users export it: one row per prompt with whether the weak and the
//! strong model answered it correctly. Only `prompt`, `weak_correct` and `strong_correct` are
//! read; any other column is ignored, so the predictor can never see a label the prompt does
//! not carry (a subject, a source, an id).

use std::io::Read;

use super::OutcomeError;

/// One prompt and how each model did on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeRow {
    pub prompt: String,
    pub weak_correct: bool,
    pub strong_correct: bool,
}

const PROMPT: &str = "prompt";
const WEAK: &str = "weak_correct";
const STRONG: &str = "strong_correct";

/// Reads an outcome CSV (header row first; quoted fields may span lines).
pub fn read_outcome_csv(reader: impl Read) -> Result<Vec<OutcomeRow>, OutcomeError> {
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(reader);
    let headers = csv
        .headers()
        .map_err(|err| OutcomeError::Csv(err.to_string()))?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|header| header.trim().trim_start_matches('\u{feff}') == name)
            .ok_or_else(|| OutcomeError::MissingColumn(name.to_owned()))
    };
    let (prompt, weak, strong) = (column(PROMPT)?, column(WEAK)?, column(STRONG)?);
    let mut rows = Vec::new();
    for (index, record) in csv.records().enumerate() {
        // Line numbers count the header as line 1, as an editor shows them.
        let line = record
            .as_ref()
            .ok()
            .and_then(|record| record.position())
            .map_or(index as u64 + 2, |position| position.line());
        let record = record.map_err(|err| OutcomeError::Csv(err.to_string()))?;
        let field = |at: usize| record.get(at).unwrap_or_default();
        rows.push(OutcomeRow {
            prompt: field(prompt).to_owned(),
            weak_correct: parse_bool(field(weak), WEAK, line)?,
            strong_correct: parse_bool(field(strong), STRONG, line)?,
        });
    }
    Ok(rows)
}

/// `True`/`False` as Python writes them; `true`/`false` and `1`/`0` are read too.
fn parse_bool(text: &str, column: &str, line: u64) -> Result<bool, OutcomeError> {
    match text.trim() {
        "True" | "true" | "TRUE" | "1" => Ok(true),
        "False" | "false" | "FALSE" | "0" => Ok(false),
        other => Err(OutcomeError::NotABoolean {
            column: column.to_owned(),
            line,
            value: other.chars().take(40).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_columns_and_ignores_the_rest() {
        let text = "subject,prompt,weak_correct,strong_correct\n\
                    algebra,\"Two\nlines\",True,False\n\
                    law,One line,false,1\n";
        let rows = read_outcome_csv(text.as_bytes()).expect("valid table");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].prompt, "Two\nlines");
        assert!(rows[0].weak_correct && !rows[0].strong_correct);
        assert!(!rows[1].weak_correct && rows[1].strong_correct);
    }

    #[test]
    fn a_missing_column_is_named() {
        let err =
            read_outcome_csv("prompt,weak_correct\nx,True\n".as_bytes()).expect_err("refused");
        assert_eq!(err, OutcomeError::MissingColumn(STRONG.to_owned()));
    }

    #[test]
    fn a_bad_boolean_names_its_line_and_column() {
        let text = "prompt,weak_correct,strong_correct\na,True,True\nb,yes,True\n";
        let err = read_outcome_csv(text.as_bytes()).expect_err("refused");
        assert_eq!(
            err,
            OutcomeError::NotABoolean {
                column: WEAK.to_owned(),
                line: 3,
                value: "yes".to_owned()
            }
        );
    }

    #[test]
    fn a_ragged_row_is_an_error() {
        let text = "prompt,weak_correct,strong_correct\na,True\n";
        assert!(matches!(
            read_outcome_csv(text.as_bytes()),
            Err(OutcomeError::Csv(_))
        ));
    }
}
