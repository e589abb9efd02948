//! Printing results and errors, as JSON for scripts or as text for people.

use std::process::ExitCode;

use serde::Serialize;
use switchyard_core::error::ErrorCode;
use switchyard_engine::EngineError;

/// An error as the CLI reports it: the same `{code, message}` shape as the app's IPC.
#[derive(Debug, Serialize)]
pub struct CliError {
    pub code: ErrorCode,
    pub message: String,
}

impl CliError {
    /// A bad argument: code `invalidInput`.
    pub fn invalid(message: String) -> Self {
        Self {
            code: ErrorCode::InvalidInput,
            message,
        }
    }

    pub fn internal(message: String) -> Self {
        Self {
            code: ErrorCode::Internal,
            message,
        }
    }
}

impl From<EngineError> for CliError {
    fn from(error: EngineError) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

/// Prints the error (JSON on stdout with `--json`, text on stderr otherwise); exit code 1.
pub fn fail(error: &CliError, json: bool) -> ExitCode {
    if json {
        println!("{}", serde_json::json!({ "error": error }));
    } else {
        eprintln!("switchyard: {}", error.message);
    }
    ExitCode::FAILURE
}

/// Prints a value as pretty JSON or through `human`.
pub fn print<T: Serialize>(
    value: &T,
    json: bool,
    human: impl FnOnce(&T) -> String,
) -> Result<ExitCode, CliError> {
    if json {
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| CliError::internal(format!("cannot serialize output: {e}")))?;
        println!("{text}");
    } else {
        println!("{}", human(value));
    }
    Ok(ExitCode::SUCCESS)
}
