//! The error vocabulary shared by the desktop shell and the CLI.

use serde::{Deserialize, Serialize};
use specta::Type;

/// What kind of failure happened, for the UI and scripts to switch on. Messages are for
/// people; codes are for code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// The engine could not start (data dir, database); the message names the path and cause.
    Startup,
    /// The request was malformed or violated a limit.
    InvalidInput,
    /// The thing asked for does not exist.
    NotFound,
    /// The database failed.
    Database,
    /// The keychain is unavailable, locked or failed.
    Keychain,
    /// A provider key is needed and missing.
    MissingCredential,
    /// A key is stored, but for another origin than the one the request would go to (the
    /// provider's base URL changed); it is not sent until the user moves it to the new origin
    /// or stores a key for it. The message names both origins.
    KeyOriginMismatch,
    /// A key would go over plain `http` to a host that is not this machine; keys go only over
    /// `https` or to loopback.
    InsecureOrigin,
    /// A model provider or data source failed.
    Provider,
    /// A file or directory could not be read or written.
    Io,
    /// The work asked for is already running; the message (and, where the command returns
    /// one, the payload) names what to follow instead.
    Busy,
    /// The work stopped because it was canceled (for example, the engine is closing).
    Canceled,
    /// The work ran longer than its limit and was stopped.
    Timeout,
    /// Integration would conflict with the target branch or the user's uncommitted changes;
    /// nothing was changed. The message names the files.
    Conflict,
    /// A gate blocks the action (approve needs every gate passed); the message names it.
    GateFailed,
    /// The change touches a locked path (CI or test-runner configuration, or the attempt's
    /// own locked globs).
    LockedPath,
    /// The worktree changed since Switchyard verified it; approve is blocked until the gates
    /// run again.
    Changed,
    /// A worker could not start or failed (missing binary, non-zero exit, crash).
    WorkerFailed,
    /// The worker's provider refused its key (HTTP 401/403, an invalid or missing API key);
    /// the message is the CLI's own.
    ProviderAuth,
    /// The worker could not reach its provider (connection refused, DNS, TLS, a proxy that
    /// refused the origin); the message is the CLI's own.
    ProviderUnreachable,
    /// The worker CLI is not set up to run here (an untrusted folder, an auth method it does
    /// not accept, a model it does not know); the message is the CLI's own and the fix.
    WorkerMisconfigured,
    /// No sandbox can confine workers on this machine (bubblewrap missing or unusable) and
    /// unconfined workers are not allowed (Settings → Workers); nothing was started.
    ConfinementUnavailable,
    /// A bug: something that should not happen.
    Internal,
}
