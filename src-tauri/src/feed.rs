//! A page's live view of one job: the engine's feed (`Engine::follow_attempt`,
//! `Engine::follow_run`) forwarded to the page's channel, item for item, until either ends.

use serde::Serialize;
use switchyard_engine::feed::Feed;
use tauri::ipc::{Channel, IpcResponse};

/// Sends every item of `feed` to `channel` in the background; stops when the page is gone.
pub fn forward<T>(mut feed: Feed<T>, channel: Channel<T>)
where
    T: IpcResponse + Serialize + Clone + Send + 'static,
{
    tauri::async_runtime::spawn(async move {
        while let Some(item) = feed.next().await {
            if channel.send(item).is_err() {
                return;
            }
        }
    });
}
