//! [`ChatStream`]: a streamed answer as a `futures` `Stream`.

use std::pin::Pin;
use std::task::{Context, Poll};

use switchyard_keychain::Secret;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{ChatRequest, ClientError, ModelClient, StreamEvent, Target};

/// Yields [`StreamEvent::Delta`]s (and [`StreamEvent::Restarted`] when allowed), then one
/// [`StreamEvent::Done`] with the answer or one error, then ends.
///
/// The call runs on a spawned task (so it must be created inside a Tokio runtime); dropping the
/// stream aborts that task, which closes the connection. Buffered events are bounded by the
/// answer's own length (`max_tokens`, and [`super::ResponseLimits::max_answer_bytes`] whatever
/// the server sends), so the channel is unbounded.
#[derive(Debug)]
pub struct ChatStream {
    events: mpsc::UnboundedReceiver<Result<StreamEvent, ClientError>>,
    task: JoinHandle<()>,
}

impl ChatStream {
    pub(super) fn spawn(
        client: ModelClient,
        target: Target,
        key: Option<Secret>,
        request: ChatRequest,
    ) -> Self {
        let (sender, events) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            let deltas = sender.clone();
            let mut on_event = move |event| {
                let _ = deltas.send(Ok(event));
            };
            let result = client
                .chat_streaming(&target, key.as_ref(), &request, &mut on_event)
                .await;
            let _ = sender.send(result.map(StreamEvent::Done));
        });
        Self { events, task }
    }
}

impl futures_util::Stream for ChatStream {
    type Item = Result<StreamEvent, ClientError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().events.poll_recv(cx)
    }
}

impl Drop for ChatStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}
