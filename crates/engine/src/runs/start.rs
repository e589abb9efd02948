//! Starting runs: resolve and record the run `queued` (or `paused`), then execute it in the
//! supervisor's task set once one of the process's `max_parallel_runs` slots is free.

use std::sync::Arc;
use std::time::Duration;

use switchyard_core::run::schema::OutputSchema;
use switchyard_core::run::{
    launcher_name, new_run_id, Ledger, RunLimits, RunLog, RunReason, RunRequest, RunState,
    RunSummary,
};
use switchyard_store::runs::nodes::NewNode;
use switchyard_store::runs::{NewRun, RunChanges};

use super::driver::{self, Control, RunCtx, Stop};
use super::now_ms;
use super::resolve::Resolved;
use crate::events::EngineEvent;
use crate::owner::random_u32;
use crate::{Engine, EngineError};

fn internal(what: &str) -> impl FnOnce(serde_json::Error) -> EngineError + '_ {
    move |e| EngineError::Internal(format!("{what}: {e}"))
}

/// A slot of the process's parallel runs, given back when dropped.
struct Slot<'a> {
    engine: &'a Engine,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let runtime = &self.engine.runs;
        let mut executing = runtime.executing.lock().unwrap_or_else(|p| p.into_inner());
        *executing = executing.saturating_sub(1);
        runtime.slot_freed.notify_waiters();
    }
}

impl Engine {
    /// Resolves `request` (see [`Engine::preview_run`]), records the run and its nodes
    /// (`queued`, or `paused` with `pauseAfterPlan`) and executes it in the background.
    /// Returns at once; follow it with [`Engine::wait_run`] or the `Run*` events.
    ///
    /// Errors: those of `preview_run`; a model that cannot be called (`MissingCredential`,
    /// `InvalidInput` for one without a known price, …); `Canceled` when the engine is
    /// closing.
    pub async fn start_run(
        self: &Arc<Self>,
        request: RunRequest,
    ) -> Result<RunSummary, EngineError> {
        let token = self.owner.token.clone();
        let (id, state) = self.record_run(&request, &token).await?;
        // Read before it starts, so the caller sees it queued.
        let summary = self.run_summary(&id).await?;
        if state == RunState::Queued {
            self.spawn_run(&id)?;
        }
        Ok(summary)
    }

    /// Resolves `request` and records the run and its nodes, `queued` under the lease
    /// `owner_token` (with this pid), or `paused` without an owner; returns its id and state.
    pub(super) async fn record_run(
        &self,
        request: &RunRequest,
        owner_token: &str,
    ) -> Result<(String, RunState), EngineError> {
        if self.supervisor.is_closing() {
            return Err(EngineError::Canceled("the engine is closing".into()));
        }
        let resolved = self.resolve_run(request).await?;
        if let Some((_, error)) = resolved.refused.into_iter().next() {
            return Err(error);
        }
        let Resolved { preview, base, .. } = resolved;
        let now = now_ms();
        let id = new_run_id(u64::try_from(now).unwrap_or(0), random_u32());
        let state = if request.pause_after_plan {
            RunState::Paused
        } else {
            RunState::Queued
        };
        let nodes: Vec<NewNode> = preview
            .nodes
            .iter()
            .map(|n| NewNode {
                node_id: n.id.clone(),
                task: n.task.clone(),
                kind: n.kind,
                role: n.role,
                model: n.model.clone(),
                worker: n.worker.clone(),
                depends_on: n.depends_on.clone(),
                join: n.join,
                context_from: n.context_from.clone(),
            })
            .collect();
        let mut stored_request = request.clone();
        stored_request.task = preview.task.clone();
        stored_request.launcher = launcher_name(&request.launcher);
        let run = NewRun {
            id: id.clone(),
            task: preview.task.clone(),
            mode: request.mode,
            state,
            launcher: stored_request.launcher.clone(),
            request_json: serde_json::to_string(&stored_request).map_err(internal("request"))?,
            plan_json: preview
                .plan
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(internal("plan"))?,
            ladder_json: preview
                .ladder
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(internal("ladder"))?,
            limits_json: serde_json::to_string(&preview.limits).map_err(internal("limits"))?,
            max_usd: preview.limits.max_usd,
            baseline_model: preview.baseline_model.clone(),
            repo: base.as_ref().and(request.repo.clone()),
            base,
            created_ms: now,
            owner: (state == RunState::Queued).then(|| (self.owner.pid, owner_token.to_owned())),
        };
        self.store().insert_run(&run, &nodes).await?;
        let note = (!preview.warnings.is_empty()).then(|| preview.warnings.join("; "));
        let seq = self
            .log_run(
                &id,
                &RunLog::State {
                    state,
                    reason: None,
                    note,
                },
            )
            .await?;
        self.supervisor.emit(EngineEvent::RunState {
            run_id: id.clone(),
            state,
            seq,
        });
        Ok((id, state))
    }

    /// Continues paused run `id`: it is queued again under this engine and executes.
    /// Errors: `NotFound`; `InvalidInput` when it is not paused; `Busy` when another process
    /// resumed it first.
    pub async fn resume_run(self: &Arc<Self>, id: &str) -> Result<RunSummary, EngineError> {
        let row = self.run_row(id).await?;
        if row.state != RunState::Paused {
            return Err(EngineError::InvalidInput(format!(
                "run {id} is {}; only a paused run can be resumed",
                row.state.as_str()
            )));
        }
        self.queue_again(&row, "resumed").await?;
        let summary = self.run_summary(id).await?;
        self.spawn_run(id)?;
        Ok(summary)
    }

    /// Takes free run `row` (paused) into this engine's lease as `queued`; the caller then
    /// executes it with `spawn_run`.
    async fn queue_again(
        self: &Arc<Self>,
        row: &switchyard_store::runs::RunRow,
        note: &str,
    ) -> Result<(), EngineError> {
        let changes = RunChanges::new()
            .owner(self.owner.pid, &self.owner.token, now_ms())
            .clear_cancel_request()
            .clear_error()
            .finished_ms(None);
        if !self
            .move_run(
                row,
                RunState::Queued,
                None,
                None,
                changes,
                Some(note.to_owned()),
            )
            .await?
        {
            return Err(EngineError::Busy(format!(
                "run {} changed meanwhile; look again",
                row.id
            )));
        }
        Ok(())
    }

    /// Executes queued run `id` (leased by this engine) in the supervisor.
    pub(super) fn spawn_run(self: &Arc<Self>, id: &str) -> Result<(), EngineError> {
        let control = Arc::new(Control::new(&self.supervisor.cancellation()));
        self.runs.active().insert(id.to_owned(), control.clone());
        let engine = self.clone();
        let run_id = id.to_owned();
        let started = self.supervisor.spawn("run", async move {
            engine.execute_run(&run_id, control.clone()).await;
            control.mark_ended();
            engine.runs.active().remove(&run_id);
            // The run's outcome records are written now rather than at the next pick, once
            // those waiting for the run have it (a failure only delays them: the job stays
            // marked behind).
            if !engine.supervisor.cancellation().is_cancelled() {
                if let Err(error) = engine.refresh_outcomes().await {
                    tracing::warn!(run = %run_id, %error, "outcome records not written yet");
                }
            }
        });
        if !started {
            self.runs.active().remove(id);
            return Err(EngineError::Canceled("the engine is closing".into()));
        }
        Ok(())
    }

    /// Waits for a run slot (or the run's stop); `None` when the run stopped first.
    async fn run_slot(&self, control: &Control) -> Option<Slot<'_>> {
        loop {
            let freed = self.runs.slot_freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            let max = self.run_settings().await.map(|(_, runs)| runs).unwrap_or(2);
            {
                let mut executing = self
                    .runs
                    .executing
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                if *executing < max {
                    *executing += 1;
                    return Some(Slot { engine: self });
                }
            }
            tokio::select! {
                () = &mut freed => {}
                () = control.cancel.cancelled() => return None,
                // A setting raised meanwhile is seen without a slot being freed.
                () = tokio::time::sleep(Duration::from_secs(2)) => {}
            }
        }
    }

    /// The whole life of queued run `id` in this engine: a slot, `running`, its nodes, its
    /// final state — with the lease renewed (and cancel requests heard) throughout.
    async fn execute_run(self: &Arc<Self>, id: &str, control: Arc<Control>) {
        let body = async {
            let Some(_slot) = self.run_slot(&control).await else {
                self.end_unstarted(id, &control).await;
                return;
            };
            if let Err(error) = self.run_to_end(id, &control).await {
                tracing::warn!(run = %id, %error, "the run could not finish");
                self.fail_run(id, &error).await;
            }
        };
        tokio::select! {
            () = body => {}
            () = self.watch_run(id, &control) => {}
        }
    }

    async fn run_to_end(
        self: &Arc<Self>,
        id: &str,
        control: &Arc<Control>,
    ) -> Result<(), EngineError> {
        let row = self.run_row(id).await?;
        if row.state != RunState::Queued || row.owner_token.as_deref() != Some(&self.owner.token) {
            return Ok(());
        }
        let request: RunRequest =
            serde_json::from_str(&row.request_json).map_err(internal("stored request"))?;
        let limits: RunLimits =
            serde_json::from_str(&row.limits_json).map_err(internal("stored limits"))?;
        let ladder = row
            .ladder_json
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(internal("stored ladder"))?;
        let changes = RunChanges::new().started_ms(now_ms());
        if !self
            .move_run(
                &row,
                RunState::Running,
                Some(&self.owner.token),
                None,
                changes,
                None,
            )
            .await?
        {
            return Ok(());
        }
        let resolved = self.execution_inputs(&row, &request).await;
        let (outline, system, prices, baseline) = match resolved {
            Ok(inputs) => inputs,
            Err(error) => {
                self.fail_run(id, &error).await;
                return Ok(());
            }
        };
        let schema = match request
            .schema
            .as_deref()
            .map(OutputSchema::parse)
            .transpose()
        {
            Ok(schema) => schema.map(Arc::new),
            Err(error) => {
                self.fail_run(id, &EngineError::InvalidInput(error.to_string()))
                    .await;
                return Ok(());
            }
        };
        let mut ledger = Ledger::new(row.max_usd);
        ledger.spent_usd = row.spent_usd;
        ledger.reserved_usd = row.reserved_usd;
        let ctx = Arc::new(RunCtx {
            engine: self.clone(),
            run_id: id.to_owned(),
            mode: row.mode,
            task: row.task.clone(),
            outline,
            system,
            limits,
            ladder,
            judge: request.judge.clone(),
            prices,
            ledger: tokio::sync::Mutex::new(ledger),
            control: control.clone(),
            baseline,
            pause_before_integration: request.pause_before_integration,
            schema,
            code: row.repo.clone().map(|repo| super::code::CodeSetup {
                repo,
                base: row.base.clone(),
                verify: request.verify.clone(),
                preset: request.preset.clone(),
                launcher: row.launcher.clone(),
                allow_network: request.allow_network,
                allow_write: request.allow_write.clone(),
                self_review: request.self_review,
            }),
        });
        if let (switchyard_core::run::RunMode::Collective, Some(setup)) = (row.mode, &ctx.code) {
            if let Err(error) = super::code::launch_compare(&ctx, setup).await {
                self.fail_run(id, &error).await;
                return Ok(());
            }
        }
        let timeout = Duration::from_secs(u64::from(limits.run_timeout_s));
        let timer_control = control.clone();
        let timer = async move {
            tokio::time::sleep(timeout).await;
            timer_control.stop(Stop::RunTimeout);
            std::future::pending::<()>().await;
        };
        tokio::select! {
            result = driver::drive(ctx.clone()) => result?,
            () = timer => {}
        }
        driver::finish(&ctx).await
    }

    /// What executing a recorded run needs that is not stored: the outline, the role, the
    /// models' prices (checked again: keys may have changed), the baseline.
    #[allow(clippy::type_complexity)]
    async fn execution_inputs(
        &self,
        row: &switchyard_store::runs::RunRow,
        request: &RunRequest,
    ) -> Result<
        (
            String,
            Option<String>,
            std::collections::HashMap<String, switchyard_core::catalog::card::Pricing>,
            Option<(String, switchyard_core::catalog::card::Pricing)>,
        ),
        EngineError,
    > {
        let plan: Option<switchyard_core::routing::plan::Plan> = row
            .plan_json
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(internal("stored plan"))?;
        let nodes = self.store().run_nodes(&row.id).await?;
        let ladder: Option<switchyard_core::run::Ladder> = row
            .ladder_json
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(internal("stored ladder"))?;
        let mut models: Vec<String> = nodes.iter().filter_map(|n| n.model.clone()).collect();
        if let Some(ladder) = &ladder {
            models.extend(super::resolve::ladder_models(ladder, row.repo.is_some()));
        }
        models.extend(request.judge.iter().map(|j| j.model.trim().to_owned()));
        models.sort();
        models.dedup();
        let mut prices = std::collections::HashMap::new();
        for model in models {
            let pricing = self.model_pricing(&model).await?;
            prices.insert(model, pricing);
        }
        let outline = plan
            .as_ref()
            .map(super::resolve::outline_of)
            .unwrap_or_default();
        let system = match request.preset.as_deref().map(str::trim) {
            Some(preset) if !preset.is_empty() => Some(
                self.compose_role(switchyard_core::roles::ComposeRequest {
                    task: row.task.clone(),
                    persona: None,
                    stack: Vec::new(),
                    domain: None,
                    format: None,
                    guardrails: Vec::new(),
                    preset: Some(preset.to_owned()),
                })
                .await?
                .full_prompt,
            ),
            _ => None,
        };
        let baseline = match &row.baseline_model {
            Some(model) => self
                .catalog_pricing(model)
                .await
                .filter(|p| p.blended_per_m().is_some())
                .map(|p| (model.clone(), p)),
            None => None,
        };
        Ok((outline, system, prices, baseline))
    }

    /// A run stopped before it got a slot: canceled (or left to the closing engine).
    async fn end_unstarted(&self, id: &str, control: &Control) {
        if control.stopped() != Some(Stop::Canceled) {
            return;
        }
        let Ok(row) = self.run_row(id).await else {
            return;
        };
        if row.state != RunState::Queued {
            return;
        }
        let token = self.owner.token.clone();
        for node in self.store().run_nodes(id).await.unwrap_or_default() {
            if node.state == switchyard_core::run::NodeState::Pending {
                let _ = self
                    .move_node(
                        id,
                        &node.node_id,
                        node.state,
                        switchyard_core::run::NodeState::Canceled,
                        Some(&token),
                        switchyard_store::runs::nodes::NodeChanges::new(),
                        None,
                    )
                    .await;
            }
        }
        let changes = RunChanges::new().finished_ms(Some(now_ms())).release();
        if let Err(error) = self
            .move_run(
                &row,
                RunState::Canceled,
                Some(&token),
                Some(RunReason::Canceled),
                changes,
                None,
            )
            .await
        {
            tracing::warn!(run = %id, %error, "the cancel was not recorded");
        }
    }

    /// Records that run `id` could not execute (a stored value unreadable, a model no longer
    /// callable): failed, with the error.
    async fn fail_run(&self, id: &str, error: &EngineError) {
        let Ok(row) = self.run_row(id).await else {
            return;
        };
        if !row.state.is_live() || row.owner_token.as_deref() != Some(&self.owner.token) {
            return;
        }
        let changes = RunChanges::new()
            .finished_ms(Some(now_ms()))
            .error(&super::view::code_name(error.code()), &error.to_string())
            .release();
        let token = self.owner.token.clone();
        if let Err(store_error) = self
            .move_run(
                &row,
                RunState::Failed,
                Some(&token),
                Some(RunReason::NodeFailed),
                changes,
                Some(error.to_string()),
            )
            .await
        {
            tracing::warn!(run = %id, %store_error, "the failure was not recorded");
        }
    }
}
