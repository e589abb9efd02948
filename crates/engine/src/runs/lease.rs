//! Run owner leases: which engine instance executes a live run, how it renews its lease and
//! hears cancel requests from other processes, and what happens at open to runs whose owner
//! is gone.
//!
//! A live run's row holds its owner's pid and token, renewed with any cancel another process
//! asked for by [`Engine::keep_lease`] (`crate::owner`, shared with attempts).

use switchyard_core::run::{CallState, NodeState, RunReason, RunState};
use switchyard_store::lease::Leased;
use switchyard_store::runs::nodes::NodeChanges;
use switchyard_store::runs::{RunChanges, RunRow};

use super::driver::{Control, Stop};
use super::now_ms;
use crate::{Engine, EngineError};

/// Whether the owner recorded on `row` is gone.
pub(crate) fn owner_gone(row: &RunRow) -> bool {
    crate::owner::owner_gone(row.owner_pid, row.owner_token.as_deref())
}

impl Engine {
    /// At open: live runs whose owner is gone become `interrupted`.
    pub(crate) async fn runs_startup(&self) {
        let rows = match self.store().live_runs().await {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "could not check live runs for lost owners");
                return;
            }
        };
        for row in rows {
            if let Err(error) = self.interrupt_run_if_orphaned(&row).await {
                tracing::warn!(run = %row.id, %error, "could not interrupt an orphaned run");
            }
        }
    }

    /// Marks live `row` interrupted if its owner is gone: its live nodes become
    /// `interrupted`, calls it left in flight count as spent at their reservation, and the
    /// lease is released. `true` when it did.
    pub(crate) async fn interrupt_run_if_orphaned(
        &self,
        row: &RunRow,
    ) -> Result<bool, EngineError> {
        if !row.state.is_live() || !owner_gone(row) {
            return Ok(false);
        }
        let dead = row.owner_token.clone();
        self.interrupt_run(
            row,
            dead.as_deref(),
            "its owner is gone; recover it to continue",
        )
        .await
    }

    /// Moves live `row`, leased by `owner`, to `interrupted` (nodes first, then the run).
    async fn interrupt_run(
        &self,
        row: &RunRow,
        owner: Option<&str>,
        note: &str,
    ) -> Result<bool, EngineError> {
        if let Some(token) = owner {
            for node in self.store().run_nodes(&row.id).await? {
                if node.state.is_live() {
                    self.move_node(
                        &row.id,
                        &node.node_id,
                        node.state,
                        NodeState::Interrupted,
                        Some(token),
                        NodeChanges::new(),
                        Some(note.to_owned()),
                    )
                    .await?;
                }
            }
            let lost = self
                .store()
                .settle_lost_calls(&row.id, token, now_ms())
                .await?;
            if !lost.is_empty() {
                let after = self.run_row(&row.id).await?;
                for call in &lost {
                    self.log_budget(
                        &row.id,
                        super::events::BudgetMove {
                            node_id: &call.node_id,
                            n: call.n,
                            model: &call.model,
                            state: CallState::Failed,
                            reserved_usd: call.reserved_usd,
                            cost_usd: call.reserved_usd,
                            spent_usd: after.spent_usd,
                            run_reserved_usd: after.reserved_usd,
                        },
                    )
                    .await?;
                }
            }
        }
        let moved = self
            .move_run(
                row,
                RunState::Interrupted,
                owner,
                Some(RunReason::Interrupted),
                RunChanges::new().release(),
                Some(note.to_owned()),
            )
            .await?;
        if moved {
            tracing::info!(run = %row.id, "run interrupted: {note}");
        }
        Ok(moved)
    }

    /// At close: runs this engine still executes become `interrupted` (their tasks were
    /// stopped by the supervisor's shutdown), so the next start can recover them.
    pub(crate) async fn runs_close(&self) {
        let rows = match self.store().live_runs().await {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "could not read live runs at close");
                return;
            }
        };
        let token = self.owner.token.clone();
        for row in rows
            .iter()
            .filter(|r| r.owner_token.as_deref() == Some(token.as_str()))
        {
            if let Err(error) = self
                .interrupt_run(
                    row,
                    Some(&token),
                    "the engine closed while the run was live",
                )
                .await
            {
                tracing::warn!(run = %row.id, %error, "could not record the interruption at close");
            }
        }
    }

    /// Keeps this engine's lease on run `id` ([`Engine::keep_lease`]) and stops the run when
    /// another process asks for a cancel or the lease is lost. Never returns.
    pub(crate) async fn watch_run(&self, id: &str, control: &Control) {
        self.keep_lease(Leased::Run, id, || control.stop(Stop::Canceled))
            .await;
        tracing::warn!(run = %id, "run lease lost; stopping");
        control.stop(Stop::LeaseLost);
        std::future::pending::<()>().await;
    }
}
