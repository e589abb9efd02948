//! Provider keys and provider settings: the Keys page. Each command delegates to the engine.
//!
//! No command returns a key. The one that receives a key (`set_provider_key`) checks it with
//! `ProviderKey::parse` (the engine's rule, the same the CLI applies) before anything else
//! touches it; the `String` it arrived in is moved into the key. A stored key is bound to the
//! origin it was entered for; only `confirm_key_origin`, through a native dialog the webview
//! cannot raise or answer, moves it to a provider's new origin. Tauri logs nothing about arguments unless its `tracing` feature is on (it
//! is not: its IPC spans would record the raw request body), and `tests/ipc_keys.rs` captures
//! every log line at TRACE level while a key is stored and checks the key is not among them.

use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{AddProviderRequest, ProviderStatus, ProviderTest};
use switchyard_engine::{EngineError, ProviderKey};
use tauri::State;

use crate::{AppState, IpcError};

/// Every provider (built-ins in display order, then the user's custom endpoints) with its
/// base URL, kind and key status: missing, stored (last 4 characters), from the environment
/// (variable name and last 4), not needed (local servers, probed for reachability), or
/// `unavailable` with the keychain's reason and fix. Never a key.
#[tauri::command]
#[specta::specta]
pub async fn list_providers(state: State<'_, AppState>) -> Result<Vec<ProviderStatus>, IpcError> {
    Ok(state.require()?.list_providers().await?)
}

/// Stores (or replaces) `provider`'s key in the OS keychain, bound to the origin of its
/// current base URL; returns the new status (last 4 characters and origin only).
/// `invalidInput` for a key that is empty, holds spaces, line breaks or invisible characters,
/// or is too long, or for a local server; `insecureOrigin` when the base URL is plain http to
/// another host; `notFound` for an unknown provider; `keychain` when no keychain can be used
/// (the message says how to fix it).
#[tauri::command]
#[specta::specta]
pub async fn set_provider_key(
    state: State<'_, AppState>,
    provider: String,
    key: String,
) -> Result<ProviderStatus, IpcError> {
    let key = ProviderKey::parse(key).map_err(EngineError::from)?;
    Ok(state.require()?.set_key(&provider, key).await?)
}

/// Deletes `provider`'s stored key; `false` when there was none. An environment variable, if
/// set, still applies afterwards (the returned list shows it).
#[tauri::command]
#[specta::specta]
pub async fn delete_provider_key(
    state: State<'_, AppState>,
    provider: String,
) -> Result<bool, IpcError> {
    Ok(state.require()?.delete_key(&provider).await?)
}

/// "Test": one real request to the provider's model-list endpoint with its key. A provider
/// that answers with an error is `ok: false` with the provider's own message and HTTP status,
/// not a command error; `missingCredential` when no key is stored or set in the environment.
#[tauri::command]
#[specta::specta]
pub async fn test_provider(
    state: State<'_, AppState>,
    provider: String,
) -> Result<ProviderTest, IpcError> {
    Ok(state.require()?.test_provider(&provider).await?)
}

/// Points a provider at another base URL (`null`: back to the built-in default); returns its
/// new status. A stored key stays bound to the origin it was entered for and is not sent to a
/// new one (the status says `originMismatch`) until the user confirms `confirm_key_origin`.
/// `invalidInput` for a URL that is not http(s), carries credentials or a query.
#[tauri::command]
#[specta::specta]
pub async fn set_provider_base_url(
    state: State<'_, AppState>,
    provider: String,
    base_url: Option<String>,
) -> Result<ProviderStatus, IpcError> {
    Ok(state
        .require()?
        .set_provider_base_url(&provider, base_url.as_deref())
        .await?)
}

/// Adds a custom OpenAI-compatible or Anthropic endpoint (id, optional display name, kind,
/// base URL); returns its status. `invalidInput` for a bad or taken id, URL or name.
#[tauri::command]
#[specta::specta]
pub async fn add_provider(
    state: State<'_, AppState>,
    request: AddProviderRequest,
) -> Result<ProviderStatus, IpcError> {
    Ok(state.require()?.add_provider(request).await?)
}

/// Removes a custom provider and its stored key; built-in providers are `invalidInput`.
#[tauri::command]
#[specta::specta]
pub async fn remove_provider(state: State<'_, AppState>, provider: String) -> Result<(), IpcError> {
    Ok(state.require()?.remove_provider(&provider).await?)
}

/// Asks the user, in a native dialog raised here (not by the webview), whether `provider`'s
/// stored key may move from the origin it is held for to the origin of the provider's current
/// base URL; the dialog names the provider and both origins. Only on "Move key" is the key
/// moved. Returns the provider's status either way (`originMismatch` still when declined).
/// `invalidInput` when there is nothing to move, or the URL changed while the dialog was
/// open; `insecureOrigin` when the new origin is plain http to another host.
#[tauri::command]
#[specta::specta]
pub async fn confirm_key_origin(
    state: State<'_, AppState>,
    provider: String,
) -> Result<ProviderStatus, IpcError> {
    let engine = state.require()?;
    let Some(change) = engine.key_origin_change(&provider).await? else {
        return Err(IpcError::new(
            ErrorCode::InvalidInput,
            format!("{provider} has no stored key held for another origin; nothing to move"),
        ));
    };
    let dialog = state.key_move_confirmation()?;
    let asked = change.clone();
    let confirmed = tauri::async_runtime::spawn_blocking(move || dialog.confirm_key_move(&asked))
        .await
        .map_err(|e| IpcError::new(ErrorCode::Internal, format!("the dialog failed: {e}")))?;
    if !confirmed {
        tracing::info!(%provider, "moving the key to a new origin was declined");
        return Ok(engine.provider_status(&provider).await?);
    }
    Ok(engine.move_key(&change).await?)
}
