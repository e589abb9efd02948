//! A code node's attempts in the run's ledger: each reserves its worst case before it
//! starts (a model worker's whole token budget at its model's price, or the run's
//! per-attempt CLI reservation) and settles with the attempt's cost when it ends (the
//! reservation when the worker reported none).

use crate::attempts::SELF_REVIEW_MAX_TOKENS;
use switchyard_core::attempt::{AttemptReview, AttemptState};
use switchyard_core::error::ErrorCode;
use switchyard_core::run::{CallPurpose, CallState};
use switchyard_store::runs::calls::{CallEnd, NewCall, Reserved};
use switchyard_store::runs::nodes::NodeRow;

use super::code::{outcome, worker_model, Launched, NoReview, Outcome};
use super::driver::{RunCtx, Stop};
use super::now_ms;
use crate::attempts::MODEL_MAX_TOKENS;
use crate::EngineError;

/// The worst case of one attempt by `worker`.
pub(super) fn attempt_worst(ctx: &RunCtx, worker: &str) -> Result<f64, NoReview> {
    match worker_model(worker) {
        Some(model) => {
            let pricing = ctx.prices.get(&model).ok_or_else(|| {
                NoReview::Failed(
                    ErrorCode::InvalidInput,
                    format!("{model} has no known price; it cannot be called under a USD cap"),
                    None,
                )
            })?;
            let price = pricing
                .prompt_per_m
                .unwrap_or(0.0)
                .max(pricing.completion_per_m.unwrap_or(0.0));
            // A self-review is one more call of the same model, reserved with the worker's.
            let review = if ctx.code.as_ref().is_some_and(|setup| setup.self_review) {
                SELF_REVIEW_MAX_TOKENS
            } else {
                0
            };
            Ok(f64::from(MODEL_MAX_TOKENS.saturating_add(review)) * price / 1_000_000.0)
        }
        None => Ok(ctx.limits.cli_reservation_usd),
    }
}

/// Reserves `worst` for an attempt of `node` by `worker`; returns the call's number.
pub(super) async fn reserve(
    ctx: &RunCtx,
    node: &NodeRow,
    worker: &str,
    rung: Option<u32>,
    worst: f64,
) -> Result<u32, NoReview> {
    let mut ledger = ctx.ledger.lock().await;
    if let Err(refused) = ledger.try_reserve(worst) {
        ctx.control.stop(Stop::Budget);
        return Err(NoReview::Budget(refused.to_string()));
    }
    let call = NewCall {
        run_id: ctx.run_id.clone(),
        node_id: node.node_id.clone(),
        purpose: CallPurpose::Attempt,
        model: worker_model(worker).unwrap_or_else(|| worker.to_owned()),
        worker: Some(worker.to_owned()),
        rung,
        reserved_usd: worst,
        started_ms: now_ms(),
        attempt_id: None,
    };
    match ctx.engine.reserve_logged(ctx.token(), &call).await {
        Ok(Reserved::Yes { n, .. }) => Ok(n),
        Ok(Reserved::OverCap { .. }) => {
            ledger.release(worst);
            ctx.control.stop(Stop::Budget);
            Err(NoReview::Budget(format!(
                "the attempt's reservation of ${worst:.4} does not fit under the ${:.2} cap",
                ledger.cap_usd
            )))
        }
        Ok(Reserved::LeaseLost) => {
            ledger.release(worst);
            ctx.control.stop(Stop::LeaseLost);
            Err(NoReview::Stopped)
        }
        Err(error) => {
            ledger.release(worst);
            Err(EngineError::from(error).into())
        }
    }
}

/// Settles the attempt's reserved call with its cost (the reservation when none is known).
pub(super) async fn settle(
    ctx: &RunCtx,
    node: &NodeRow,
    worker: &str,
    launched: &Launched,
    review: &AttemptReview,
) {
    let Some((n, worst)) = launched.call else {
        return;
    };
    let end = CallEnd {
        state: if review.summary.state == AttemptState::Review {
            CallState::Settled
        } else {
            CallState::Failed
        },
        cost_usd: review.summary.cost_usd.unwrap_or(worst),
        tokens_in: review.usage.map_or(0, |u| u.input),
        tokens_out: review.usage.map_or(0, |u| u.output),
        finished_ms: now_ms(),
        error: review.summary.error.as_ref().map(|e| e.message.clone()),
        signal_json: match outcome(review) {
            Outcome::Review(Some(signal)) => serde_json::to_string(&signal).ok(),
            _ => None,
        },
        attempt_id: Some(launched.attempt.clone()),
    };
    finish(ctx, node, worker, n, worst, &end).await;
}

/// Finishes call `n` with `end` in memory and in the store, then logs it.
pub(super) async fn finish(
    ctx: &RunCtx,
    node: &NodeRow,
    worker: &str,
    n: u32,
    worst: f64,
    end: &CallEnd,
) {
    let stored = {
        let mut ledger = ctx.ledger.lock().await;
        ledger.settle(worst, end.cost_usd);
        let model = worker_model(worker).unwrap_or_else(|| worker.to_owned());
        ctx.engine
            .finish_logged(
                &ctx.run_id,
                &node.node_id,
                n,
                ctx.token(),
                &model,
                worst,
                end,
            )
            .await
    };
    match stored {
        Ok(Some(_)) => {}
        Ok(None) => ctx.control.stop(Stop::LeaseLost),
        Err(error) => tracing::warn!(run = %ctx.run_id, %error, "an attempt's cost was not stored"),
    }
}

/// A reservation given back unused.
pub(super) fn released(why: &str) -> CallEnd {
    CallEnd {
        state: CallState::Released,
        cost_usd: 0.0,
        tokens_in: 0,
        tokens_out: 0,
        finished_ms: now_ms(),
        error: Some(why.to_owned()),
        signal_json: None,
        attempt_id: None,
    }
}
