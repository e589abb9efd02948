//! Native confirmations raised from Rust, never from the webview: the user, not the page,
//! decides whether a stored key may go to a new origin. The webview has no dialog permission
//! (see `capabilities/`), so it can neither raise nor answer one of these.
//!
//! Behind a small trait so the mock-runtime IPC tests can answer for the user.

use switchyard_core::providers::KeyOriginChange;
use tauri::{AppHandle, Runtime};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

/// Asks the user whether a stored key may move to a provider's new origin.
pub trait KeyMoveConfirmation: Send + Sync + 'static {
    /// Blocks until the user answers (call it off the main thread); `true` only for an
    /// explicit "Move key".
    fn confirm_key_move(&self, change: &KeyOriginChange) -> bool;
}

/// The OS message dialog (tauri-plugin-dialog), parented to the app.
pub struct NativeDialog<R: Runtime> {
    app: AppHandle<R>,
}

impl<R: Runtime> NativeDialog<R> {
    /// A dialog for `app` (the dialog plugin must be registered).
    pub fn new(app: AppHandle<R>) -> Self {
        Self { app }
    }
}

impl<R: Runtime> KeyMoveConfirmation for NativeDialog<R> {
    fn confirm_key_move(&self, change: &KeyOriginChange) -> bool {
        self.app
            .dialog()
            .message(confirmation_text(change))
            .title(format!(
                "Send the {} key to a new address?",
                change.provider_name
            ))
            .kind(MessageDialogKind::Warning)
            .buttons(MessageDialogButtons::OkCancelCustom(
                "Move key".into(),
                "Keep it where it is".into(),
            ))
            .blocking_show()
    }
}

/// What the dialog says: the provider and both origins, and when not to agree.
pub fn confirmation_text(change: &KeyOriginChange) -> String {
    format!(
        "Your {name} key (…{last4}) is held for {from}.\n\n{name} now points at {to}. Move the \
         key so that it is sent there?\n\nOnly agree if you changed this address yourself. \
         Until you do, the key is not sent to {to}.",
        name = change.provider_name,
        last4 = change.last4,
        from = change.from,
        to = change.to,
    )
}

/// The OS folder picker, parented to the app; `None` when the user closed it. The webview
/// cannot open it (no dialog permission): only the `pick_repo_folder` command does.
pub async fn pick_folder<R: Runtime>(app: &AppHandle<R>, title: &str) -> Option<String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title(title)
        .pick_folder(move |picked| {
            let _ = tx.send(picked.and_then(|p| p.into_path().ok()));
        });
    rx.await
        .ok()
        .flatten()
        .map(|path| path.to_string_lossy().into_owned())
}
