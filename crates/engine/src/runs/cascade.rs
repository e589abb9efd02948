//! The one cascade driver, for text rungs (a model call, judged) and code rungs (an attempt,
//! verified and gated): climb the ladder from where the node stands, try each rung with the
//! failures so far in its context, escalate exactly on a failure signal (`core::run::cascade`
//! decides), and end at the first success, a stop, or the top of the ladder. What a rung is
//! lives in `text.rs` and `code.rs`; the climbing lives here, once.
//!
//! Each failed rung's signal is stored on its call, so a recovered cascade resumes after the
//! rungs that failed, with their failures, whatever kind its rungs are.

use switchyard_core::run::cascade::{next_step, CascadeStep, Ladder, Rung};
use switchyard_core::run::{CallPurpose, FailureSignal, RungOutcome};
use switchyard_store::runs::nodes::NodeRow;

use super::driver::RunCtx;

/// How one rung went: its outcome, and what a success hands back.
pub(super) struct Tried<S> {
    pub outcome: RungOutcome,
    pub success: Option<S>,
}

/// What a kind of rung does for the driver.
pub(super) trait Rungs {
    /// What the node ends with when a rung succeeds.
    type Success;
    /// Why the node ends without one.
    type Stop;

    /// Tries rung `number` (1-based) of the ladder with `failures` of the earlier rungs.
    async fn try_rung(
        &mut self,
        number: u32,
        rung: &Rung,
        failures: &[(u32, FailureSignal)],
    ) -> Result<Tried<Self::Success>, Self::Stop>;

    /// Rung `number` failed with `signal` and the cascade goes on: put the failure out of the
    /// user's way and on record (the resume reads it back).
    async fn escalated(&mut self, number: u32, signal: &FailureSignal);

    /// The cascade was stopped (canceled, over budget, lease lost).
    fn stopped(&self) -> Self::Stop;

    /// A rung succeeded but left nothing to hand back (a bug).
    fn lost(&self) -> Self::Stop;

    /// Every rung failed; `last` describes the last failure.
    fn exhausted(&self, last: String) -> Self::Stop;
}

/// Climbs `ladder` for `node` with `rungs`, from where the node stands.
pub(super) async fn climb<R: Rungs>(
    ctx: &RunCtx,
    node: &NodeRow,
    ladder: &Ladder,
    rungs: &mut R,
) -> Result<R::Success, R::Stop> {
    let mut failures = earlier_failures(ctx, node).await;
    let mut index = resume_index(node, &failures);
    let mut last = None;
    while let Some(rung) = ladder.rungs.get(index) {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let tried = rungs.try_rung(number, rung, &failures).await?;
        match next_step(ladder, index, &tried.outcome) {
            CascadeStep::Done { .. } => return tried.success.ok_or_else(|| rungs.lost()),
            CascadeStep::Stopped => return Err(rungs.stopped()),
            step => {
                if let RungOutcome::Failed(signal) = tried.outcome {
                    rungs.escalated(number, &signal).await;
                    last = Some(signal.describe());
                    failures.push((number, signal));
                }
                match step {
                    CascadeStep::Escalate { rung } => index = rung,
                    _ => break,
                }
            }
        }
    }
    Err(rungs.exhausted(last.unwrap_or_else(|| "no rung was tried".into())))
}

/// Where a resumed cascade goes on: after the last rung that failed, or at the rung it was on.
fn resume_index(node: &NodeRow, failures: &[(u32, FailureSignal)]) -> usize {
    let after_failed = failures.iter().map(|(rung, _)| *rung).max().unwrap_or(0);
    let current = node.rung.map_or(0, |r| r.saturating_sub(1));
    after_failed.max(current) as usize
}

/// The failures earlier rungs of this node recorded on their calls, as `(rung, signal)`,
/// oldest first.
async fn earlier_failures(ctx: &RunCtx, node: &NodeRow) -> Vec<(u32, FailureSignal)> {
    let calls = ctx
        .engine
        .store()
        .run_calls(&ctx.run_id)
        .await
        .unwrap_or_default();
    calls
        .into_iter()
        .filter(|c| {
            c.node_id == node.node_id
                && matches!(c.purpose, CallPurpose::Answer | CallPurpose::Attempt)
        })
        .filter_map(|c| {
            let signal: FailureSignal = serde_json::from_str(c.signal_json.as_deref()?).ok()?;
            Some((c.rung?, signal))
        })
        .collect()
}
