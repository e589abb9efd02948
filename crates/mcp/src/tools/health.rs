//! `switchyard_health`: the doctor report, which providers have a key, the catalog's date,
//! the limits a new run starts with, and the name this caller's work is recorded under.

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Serialize;
use switchyard_core::doctor::DoctorReport;
use switchyard_core::providers::{ProviderKind, ProviderStatus};
use switchyard_core::run::RunDefaults;

use crate::reply;
use crate::server::Server;

/// What `switchyard_health` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    version: String,
    /// What work this caller starts is recorded as (its client name, e.g. `claude-code`).
    launcher: String,
    /// Whether `switchyard_approve` is offered (Settings: agents may approve).
    agents_may_approve: bool,
    /// What a run starts with unless switchyard_run_create overrides it (Settings).
    limits: Limits,
    catalog: CatalogHealth,
    /// Key presence per provider: never a key, nor any part of one.
    providers: Vec<ProviderHealth>,
    doctor: DoctorReport,
}

/// The run defaults from Settings.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Limits {
    /// Runs one Switchyard process executes at once (each run an agent creates has its own
    /// process).
    max_parallel_runs: u32,
    max_parallel_nodes: u32,
    /// Seconds a text node's model call may take.
    node_timeout_s: u32,
    /// Seconds a code node's worker may take.
    code_node_timeout_s: u32,
    run_timeout_s: u32,
    /// A run's hard USD cap.
    max_usd: f64,
    /// What each agent-CLI attempt reserves against the cap.
    cli_reservation_usd: f64,
    max_output_tokens: u32,
}

impl From<RunDefaults> for Limits {
    fn from(defaults: RunDefaults) -> Self {
        let l = defaults.limits;
        Self {
            max_parallel_runs: defaults.max_parallel_runs,
            max_parallel_nodes: l.max_parallel_nodes,
            node_timeout_s: l.node_timeout_s,
            code_node_timeout_s: l.code_node_timeout_s,
            run_timeout_s: l.run_timeout_s,
            max_usd: l.max_usd,
            cli_reservation_usd: l.cli_reservation_usd,
            max_output_tokens: l.max_output_tokens,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CatalogHealth {
    snapshot_date: Option<String>,
    model_count: u32,
    refreshing: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ProviderHealth {
    id: String,
    name: String,
    kind: ProviderKind,
    /// `missing`, `stored`, `environment`, `notNeeded`, `originMismatch`, …
    key: String,
    /// A request to this provider would carry a key it accepts (or needs none).
    usable: bool,
    /// For local servers: whether one answered just now.
    reachable: Option<bool>,
}

impl ProviderHealth {
    fn of(status: &ProviderStatus) -> Self {
        // Only the state's name: the status also carries the key's last four characters.
        let key = serde_json::to_value(&status.key)
            .ok()
            .and_then(|v| v.get("state").and_then(|s| s.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "unknown".to_owned());
        Self {
            id: status.id.clone(),
            name: status.name.clone(),
            kind: status.kind,
            key,
            usable: status.key.is_usable(),
            reachable: status.local.as_ref().map(|l| l.reachable),
        }
    }
}

#[tool_router(router = health_tools, vis = "pub(crate)")]
impl Server {
    /// The doctor report with key presence and the catalog date.
    #[tool(
        name = "switchyard_health",
        description = "Switchyard's health: the doctor report (data dir, database, keychain, git, \
                       worker CLIs installed, local model servers), which providers have a key \
                       (presence only), the catalog's date and size, the limits a run starts \
                       with (parallelism, timeouts, USD cap), whether agents may approve, and \
                       the launcher name your work is recorded under.",
        annotations(title = "Health", read_only_hint = true, open_world_hint = false)
    )]
    async fn health(&self, context: RequestContext<RoleServer>) -> CallToolResult {
        let engine = self.engine();
        let (doctor, providers, catalog, defaults) = tokio::join!(
            engine.doctor(),
            engine.list_providers(),
            engine.catalog_status(),
            engine.run_defaults()
        );
        let providers = match providers {
            Ok(providers) => providers,
            Err(error) => return reply::engine_error(&error),
        };
        let catalog = match catalog {
            Ok(catalog) => catalog,
            Err(error) => return reply::engine_error(&error),
        };
        let defaults = match defaults {
            Ok(defaults) => defaults,
            Err(error) => return reply::engine_error(&error),
        };
        reply::ok(&Health {
            version: switchyard_engine::VERSION.to_owned(),
            launcher: self.launcher(&context),
            agents_may_approve: self.agents_may_approve(),
            limits: Limits::from(defaults),
            catalog: CatalogHealth {
                snapshot_date: catalog.snapshot_date,
                model_count: catalog.model_count,
                refreshing: catalog.refreshing,
            },
            providers: providers.iter().map(ProviderHealth::of).collect(),
            doctor,
        })
    }
}
