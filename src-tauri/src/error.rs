use serde::Serialize;
use specta::Type;
use switchyard_core::error::ErrorCode;
use switchyard_engine::EngineError;

/// The one error shape on the wire: a code the UI switches on and a message for people.
#[derive(Debug, Clone, Serialize, Type, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    pub code: ErrorCode,
    pub message: String,
}

impl IpcError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<EngineError> for IpcError {
    fn from(error: EngineError) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}
