//! The optional self-review: once Switchyard has verified a change, the model that wrote it
//! re-reads it (one call through [`Engine::ask`], the same model and key routing the worker
//! used) and its answer is kept as the `self-review.json` artifact, shown beside the
//! verification. It never gates: a failed or unavailable review is recorded as such and the
//! attempt goes to review all the same. Its tokens and cost are added to the attempt's.

use switchyard_core::attempt::self_review::{prompt, SelfReview, MAX_DIFF_CHARS};
use switchyard_core::providers::AskRequest;
use switchyard_core::review::diff::CapturedDiff;
use switchyard_core::worker::{Usage, WorkerSpec};
use tokio_util::sync::CancellationToken;

use super::artifacts::{DIFF_ARTIFACT, SELF_REVIEW_ARTIFACT};
use crate::Engine;

/// The longest self-review answer asked for.
const ANSWER_TOKENS: u32 = 1_500;
/// A self-review's worst case in tokens: the diff shown (about four characters a token), the
/// task and instructions, and the answer. Code runs reserve this on top of the worker's.
pub(crate) const SELF_REVIEW_MAX_TOKENS: u32 = (MAX_DIFF_CHARS / 4) as u32 + 2_000 + ANSWER_TOKENS;

impl Engine {
    /// Asks the worker's model for its self-review of attempt `id`'s captured change, keeps
    /// it, and returns the attempt's usage with the review's tokens and cost added (`None`
    /// when no call was made).
    pub(crate) async fn write_self_review(
        &self,
        id: &str,
        spec: &WorkerSpec,
        task: &str,
        worker_usage: Option<&Usage>,
        cancel: &CancellationToken,
    ) -> Option<Usage> {
        let (review, usage) = match spec {
            WorkerSpec::Model { id: model } => {
                self.ask_for_review(id, model, task, worker_usage, cancel)
                    .await
            }
            WorkerSpec::Cli { cli, .. } => (
                SelfReview::unavailable(format!(
                    "{} chooses its model under its own name, so Switchyard cannot call the \
                     same model to re-read the change; self-review runs for model workers",
                    cli.program()
                )),
                None,
            ),
            WorkerSpec::Exec { .. } => (
                SelfReview::unavailable("an exec: worker has no model to re-read its change"),
                None,
            ),
        };
        match serde_json::to_vec_pretty(&review) {
            Ok(bytes) => {
                if let Err(error) = self.write_artifact(id, SELF_REVIEW_ARTIFACT, &bytes).await {
                    tracing::warn!(attempt = %id, %error, "self-review not kept");
                }
            }
            Err(error) => tracing::warn!(attempt = %id, %error, "self-review not encoded"),
        }
        usage
    }

    async fn ask_for_review(
        &self,
        id: &str,
        model: &str,
        task: &str,
        worker_usage: Option<&Usage>,
        cancel: &CancellationToken,
    ) -> (SelfReview, Option<Usage>) {
        let Some(diff) = self
            .read_artifact_json::<CapturedDiff>(id, DIFF_ARTIFACT)
            .await
        else {
            return (
                SelfReview::failed(model, "the captured change could not be read", None),
                None,
            );
        };
        if diff.files.is_empty() {
            return (
                SelfReview::unavailable(
                    "the worker changed nothing, so there is nothing to re-read",
                ),
                None,
            );
        }
        let (system, text) = prompt(task, &diff);
        let request = AskRequest {
            model: model.to_owned(),
            prompt: text,
            system: Some(system),
            max_tokens: Some(ANSWER_TOKENS),
            pricing: None,
        };
        match self.ask(request, Some(cancel.clone()), |_| {}).await {
            Ok(answer) => {
                let cost = answer.cost.as_ref().map(|c| c.usd);
                let mut total = worker_usage.copied().unwrap_or_default();
                total.input = total.input.saturating_add(answer.usage.input_tokens);
                total.output = total.output.saturating_add(answer.usage.output_tokens);
                total.cost_usd = match (total.cost_usd, cost) {
                    (Some(a), Some(b)) => Some(a + b),
                    (None, Some(b)) if worker_usage.is_none() => Some(b),
                    (a, _) => a,
                };
                let review = SelfReview::parse(model, &answer.text, cost)
                    .unwrap_or_else(|reason| SelfReview::failed(model, reason, cost));
                (review, Some(total))
            }
            // The provider's own message (a wrong key, a rate limit) is the reason.
            Err(error) => (SelfReview::failed(model, error.to_string(), None), None),
        }
    }
}
