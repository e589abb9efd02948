//! The run tools: `switchyard_run_create` (returns at once), `switchyard_run_status`,
//! `switchyard_run_result`, `switchyard_run_list`, `switchyard_run_cancel` and
//! `switchyard_artifact_get`.
//!
//! A run created here is handed to a detached owner process when the server has a run
//! launcher (the CLI's `switchyard mcp` does): the agent's session may end, the run goes on
//! under its lease and shows in the app and `switchyard runs list` like any other. The
//! request is built by core's `RunOptions`, the checks `switchyard run` makes; the engine
//! applies the limits from Settings as for every run.

mod view;

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::error::ErrorCode;
use switchyard_core::feed::FeedItem;
use switchyard_core::routing::plan::Plan;
use switchyard_core::run::{
    NodeKind, NodeState, RunFilter, RunLog, RunMode, RunOptions, RunRequest, RunState, RunSummary,
};
use switchyard_engine::{Engine, EngineError};

use crate::inputs::{Budget, Commands, RunModeInput, RunStateInput};
use crate::reply;
use crate::server::Server;
pub(crate) use view::run_next;
use view::{
    bounded, is_code, prefix, NodeText, ReviewPointer, RunResult, RunStatus, MAX_NODE_BYTES,
    MAX_RESULT_BYTES,
};

/// Runs listed when `limit` is not given.
const DEFAULT_RUNS: u32 = 20;
/// The most runs one list returns.
const MAX_RUNS: u32 = 100;
/// Bytes of an artifact returned when `maxBytes` is not given.
const DEFAULT_ARTIFACT_BYTES: u32 = 64 * 1024;
/// The most bytes of an artifact one call returns.
const MAX_ARTIFACT_BYTES: u32 = 1024 * 1024;

/// `switchyard_run_create`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunCreateInput {
    /// What to do: the outcome in one sentence, the constraints, what a worker cannot guess.
    task: String,
    /// Default single.
    #[serde(default)]
    mode: Option<RunModeInput>,
    /// The price band models are picked from (default medium).
    #[serde(default)]
    budget: Option<Budget>,
    /// The run's hard USD cap (default: the Settings value, 5).
    #[serde(default)]
    max_usd: Option<f64>,
    /// Nodes that may run at once (default: Settings, 4).
    #[serde(default)]
    #[schemars(range(min = 1, max = 32))]
    max_parallel_nodes: Option<u32>,
    /// Seconds one node may take: a text node's model call or, with `repo`, a code node's
    /// worker (defaults: Settings, 180 and 900).
    #[serde(default)]
    #[schemars(range(min = 1))]
    node_timeout: Option<u32>,
    /// Seconds the whole run may take (default: Settings, 1800).
    #[serde(default)]
    #[schemars(range(min = 1))]
    run_timeout: Option<u32>,
    /// A saved role preset whose composed prompt goes before every node's task (list them
    /// in the Switchyard app's Roles page).
    #[serde(default, alias = "role")]
    preset: Option<String>,
    /// Models: single — the model; collective — the members; plan and swarm — for steps
    /// without one. Catalog ids (`openai/gpt-4o-mini`) or `<provider>:<model>`. Default:
    /// routing picks.
    #[serde(default)]
    models: Vec<String>,
    /// Cascade: the rungs' models, cheapest first (default: one per tier from routing).
    #[serde(default)]
    ladder: Vec<String>,
    /// Collective: how many members routing recommends (2-6, default 3).
    #[serde(default)]
    members: Option<u32>,
    /// Plan and swarm: the plan to run, as switchyard_plan returned it (edited as you
    /// like). Default: planned now.
    #[serde(default)]
    plan: Option<serde_json::Value>,
    /// A folder inside a local git repository: the run's nodes are code nodes, each an
    /// attempt in its own worktree, through Switchyard's gates, ending in the human's review.
    #[serde(default)]
    repo: Option<String>,
    /// Code: the commands Switchyard itself runs in the worktree to verify (a list, or one
    /// command). Omitted: detected from the repository; "" or []: none.
    #[serde(default)]
    verify: Option<Commands>,
    /// Code: the worker — `model:<id>`, `claude`, `codex`, `gemini`, `opencode`, `aider` or
    /// `exec:<command>` (default: the model worker with the node's model).
    #[serde(default)]
    worker: Option<String>,
    /// Code: after Switchyard's verification, each attempt's model re-reads its change and
    /// writes a short self-review (risks, files touched, tests added) shown beside the
    /// verification — never instead of it. Model workers only; one more call each, reserved
    /// under the cap.
    #[serde(default)]
    self_review: bool,
    /// Text runs: a JSON Schema the result must match. Switchyard recovers the JSON from
    /// the answer, asks once for a repair, and a cascade escalates when it still fails.
    #[serde(default)]
    schema: Option<serde_json::Value>,
}

impl RunCreateInput {
    /// Whether the caller named what runs (else routing chooses, and may find nothing).
    fn names_a_runner(&self) -> bool {
        !self.models.is_empty()
            || !self.ladder.is_empty()
            || self.worker.is_some()
            || self.plan.is_some()
    }

    fn request(self, launcher: String) -> Result<RunRequest, CallToolResult> {
        let plan = match self.plan {
            Some(value) => Some(serde_json::from_value::<Plan>(value).map_err(|e| {
                reply::invalid(format!(
                    "plan is not a plan as switchyard_plan returns it: {e}"
                ))
            })?),
            None => None,
        };
        let options = RunOptions {
            task: self.task,
            mode: self.mode.map(RunMode::from),
            budget: self.budget.map(Into::into),
            max_usd: self.max_usd,
            max_parallel_nodes: self.max_parallel_nodes,
            node_timeout_s: self.node_timeout,
            run_timeout_s: self.run_timeout,
            preset: self.preset,
            repo: self.repo,
            verify: self.verify.map(Commands::into_vec),
            worker: self.worker,
            self_review: self.self_review,
            models: self.models,
            ladder: self.ladder,
            members: self.members,
            plan,
            schema: self.schema.map(|schema| schema.to_string()),
            launcher,
            ..RunOptions::default()
        };
        options.request().map_err(|e| reply::invalid(e.to_string()))
    }
}

/// What `switchyard_run_create` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Created {
    run_id: String,
    status: RunState,
    mode: RunMode,
    /// Who the run is recorded as started by (this agent).
    launcher: String,
    max_usd: f64,
    /// Its nodes as planned.
    nodes: u32,
    next: String,
}

/// Names a run.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunIdInput {
    /// The run id (`runId` from switchyard_run_create).
    run_id: String,
}

/// `switchyard_run_status`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunStatusInput {
    /// The run id (`runId` from switchyard_run_create).
    run_id: String,
    /// Wait up to this many seconds (at most 60) for the run to move — a node or the run
    /// changes state, or it ends — before answering, instead of polling.
    #[serde(default)]
    wait_seconds: Option<u32>,
}

/// The longest `switchyard_run_status` waits for a run to move.
const MAX_STATUS_WAIT_S: u32 = 60;

/// Follows run `id` (the engine's feed, from now on) until it moves or ends, or `wait`
/// passes. An unknown run returns at once (the status call then says so).
async fn until_run_moves(engine: &Arc<Engine>, id: &str, wait: Duration) {
    let Ok(mut feed) = engine.follow_run(id, u32::MAX).await else {
        return;
    };
    let moved = async {
        // The first item says where the run stands now.
        if let Some(FeedItem::State { live: false, .. }) = feed.next().await {
            return;
        }
        while let Some(item) = feed.next().await {
            match item {
                FeedItem::State { .. } | FeedItem::End { .. } => return,
                FeedItem::Log { entry, .. }
                    if matches!(entry.entry, RunLog::Node { .. } | RunLog::State { .. }) =>
                {
                    return
                }
                _ => {}
            }
        }
    };
    let _ = tokio::time::timeout(wait, moved).await;
}

/// `switchyard_run_result`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunResultInput {
    /// The run id.
    run_id: String,
    /// Also each node's output (each cut at 16 KiB).
    #[serde(default)]
    nodes: bool,
}

/// `switchyard_run_list`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunListInput {
    #[serde(default)]
    status: Option<RunStateInput>,
    #[serde(default)]
    mode: Option<RunModeInput>,
    /// Only what this launcher started (`app`, `cli`, `claude-code`, …).
    #[serde(default)]
    launcher: Option<String>,
    /// Only tasks containing these words (case-insensitive).
    #[serde(default)]
    text: Option<String>,
    /// How many, newest first (1-100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
}

#[derive(Debug, Serialize)]
struct RunList {
    runs: Vec<RunSummary>,
    /// More runs matched than are listed.
    truncated: bool,
}

/// A run as a cancel left it.
#[derive(Debug, Serialize)]
struct Canceled {
    #[serde(flatten)]
    summary: RunSummary,
    next: String,
}

/// `switchyard_artifact_get`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ArtifactInput {
    run_id: String,
    /// The node (`id` in switchyard_run_status: `n1`, `m1`, `merge`, `c1`, a plan step's id).
    node_id: String,
    /// Bytes to skip (to read a large output in pieces).
    #[serde(default)]
    offset: u64,
    /// The most bytes returned (1-1048576, default 65536).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1_048_576))]
    max_bytes: Option<u32>,
}

/// One node's stored output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    run_id: String,
    node_id: String,
    status: NodeState,
    /// The artifact is stored (its SHA-256 checked when read); else the text streamed so far.
    complete: bool,
    /// From `offset`, at most `maxBytes` of it.
    text: String,
    /// SHA-256 of the whole stored output.
    sha256: Option<String>,
    /// The whole output's size.
    bytes: usize,
    offset: usize,
    /// More follows after `text`.
    truncated: bool,
}

fn created_next(summary: &RunSummary) -> String {
    match summary.state {
        RunState::Paused => format!(
            "Recorded and paused after planning; it runs once the human resumes it in the \
             app (or with `switchyard runs resume {}`).",
            summary.id
        ),
        _ => "Started. Poll switchyard_run_status with this runId every 5-15 seconds; when it \
              completes, read it with switchyard_run_result (a code run ends in the human's \
              review instead)."
            .to_owned(),
    }
}

#[tool_router(router = runs_tools, vis = "pub(crate)")]
impl Server {
    /// Starts a run and returns at once.
    #[tool(
        name = "switchyard_run_create",
        description = "Start a Switchyard run and return at once with its runId: one task in \
                       mode single, collective, cascade, plan or swarm, across models (text) \
                       or, with repo, coding workers in their own git worktrees checked by \
                       Switchyard's gates and verification and ending in the human's review. \
                       Limits (USD cap, parallelism, timeouts) default to the user's Settings. \
                       The run is recorded as yours and goes on if this session ends; follow \
                       it with switchyard_run_status.",
        annotations(
            title = "Create a run",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn run_create(
        &self,
        Parameters(input): Parameters<RunCreateInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let named = input.names_a_runner();
        let launcher = self.launcher(&context);
        let request = match input.request(launcher) {
            Ok(request) => request,
            Err(refused) => return refused,
        };
        let engine = self.shared_engine();
        let started = match self.run_launch() {
            Some(mut launch) => engine.start_run_detached(request, &mut *launch).await,
            None => engine.start_run(request).await,
        };
        match started {
            Ok(summary) => {
                tracing::info!(run = %summary.id, by = %summary.launcher, "an agent started a run");
                reply::ok(&Created {
                    next: created_next(&summary),
                    run_id: summary.id,
                    status: summary.state,
                    mode: summary.mode,
                    launcher: summary.launcher,
                    max_usd: summary.max_usd,
                    nodes: summary.nodes,
                })
            }
            Err(EngineError::NotFound(message)) if !named => reply::fail(
                ErrorCode::NotFound,
                format!("{message}; name a model with models (or, with repo, a worker)"),
            ),
            Err(error) => reply::engine_error(&error),
        }
    }

    /// Where a run stands.
    #[tool(
        name = "switchyard_run_status",
        description = "A run's state and reason, each node's progress (id, task, status, model \
                       or worker, dependsOn, cost, a code node's attempt), the USD spent and \
                       reserved against its cap, and `next`: poll again, read the result, or \
                       wait for the human's review. With waitSeconds (up to 60) it answers \
                       when the run next moves (a node or the run changes state) or ends, \
                       instead of at once.",
        annotations(title = "Run status", read_only_hint = true, open_world_hint = false)
    )]
    async fn run_status(&self, Parameters(input): Parameters<RunStatusInput>) -> CallToolResult {
        let id = input.run_id.trim();
        if let Some(wait) = input.wait_seconds.filter(|w| *w > 0) {
            let wait = Duration::from_secs(u64::from(wait.min(MAX_STATUS_WAIT_S)));
            until_run_moves(self.shared_engine(), id, wait).await;
        }
        match self.engine().poll_run(id).await {
            Ok(detail) => reply::ok(&RunStatus::of(&detail, self.agents_may_approve())),
            Err(error) => reply::engine_error(&error),
        }
    }

    /// A run's result text.
    #[tool(
        name = "switchyard_run_result",
        description = "A run's result: for a text run the final text (the answer, the merge, \
                       the last step, or a swarm's final nodes), at most 64 KiB with a marker \
                       when cut, and with nodes=true each node's output (16 KiB each); for a \
                       code run the attempts to follow with switchyard_review_status.",
        annotations(title = "Run result", read_only_hint = true, open_world_hint = false)
    )]
    async fn run_result(&self, Parameters(input): Parameters<RunResultInput>) -> CallToolResult {
        let id = input.run_id.trim();
        let engine = self.engine();
        let detail = match engine.poll_run(id).await {
            Ok(detail) => detail,
            Err(error) => return reply::engine_error(&error),
        };
        let s = &detail.summary;
        let next = run_next(&detail, self.agents_may_approve());
        if is_code(&detail) {
            let review = detail
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Code)
                .map(|n| ReviewPointer {
                    node_id: n.id.clone(),
                    status: n.state,
                    attempt_id: n.current_attempt().map(str::to_owned),
                })
                .collect();
            return reply::ok(&RunResult {
                run_id: s.id.clone(),
                mode: s.mode,
                state: s.state,
                kind: NodeKind::Code,
                complete: !s.state.is_live(),
                text: None,
                bytes: 0,
                truncated: false,
                nodes: None,
                review: Some(review),
                next,
            });
        }
        let output = match engine.run_output(id, None).await {
            Ok(output) => output,
            Err(error) => return reply::engine_error(&error),
        };
        let (text, truncated) = bounded(&output.text, MAX_RESULT_BYTES);
        let nodes = input.nodes.then(|| {
            output
                .nodes
                .iter()
                .map(|n| {
                    let (text, truncated) = bounded(&n.text, MAX_NODE_BYTES);
                    NodeText {
                        id: n.node_id.clone(),
                        status: n.state,
                        complete: n.complete,
                        bytes: n.text.len(),
                        text,
                        truncated,
                        sha256: n.sha256.clone(),
                    }
                })
                .collect()
        });
        reply::ok(&RunResult {
            run_id: s.id.clone(),
            mode: s.mode,
            state: s.state,
            kind: NodeKind::Text,
            complete: s.state == RunState::Completed,
            bytes: output.text.len(),
            text: Some(text),
            truncated,
            nodes,
            review: None,
            next,
        })
    }

    /// Lists runs, newest first.
    #[tool(
        name = "switchyard_run_list",
        description = "Runs newest first (every launcher's: the app's, the CLI's, agents'), \
                       filtered by status, mode, launcher or words in the task; at most 100 \
                       per call (default 20), `truncated` when more matched.",
        annotations(title = "Runs", read_only_hint = true, open_world_hint = false)
    )]
    async fn run_list(&self, Parameters(input): Parameters<RunListInput>) -> CallToolResult {
        let limit = input.limit.unwrap_or(DEFAULT_RUNS);
        if !(1..=MAX_RUNS).contains(&limit) {
            return reply::invalid(format!("limit must be 1 to {MAX_RUNS}, not {limit}"));
        }
        let filter = RunFilter {
            state: input.status.map(Into::into),
            mode: input.mode.map(Into::into),
            launcher: input.launcher,
            text: input.text,
            // One more than asked: whether more matched.
            limit: Some(limit + 1),
        };
        match self.engine().list_runs(filter).await {
            Ok(mut runs) => {
                let truncated = runs.len() > limit as usize;
                runs.truncate(limit as usize);
                reply::ok(&RunList { runs, truncated })
            }
            Err(error) => reply::engine_error(&error),
        }
    }

    /// Cancels a run.
    #[tool(
        name = "switchyard_run_cancel",
        description = "Cancel a live, paused or interrupted run: its calls and workers stop \
                       (also when another Switchyard process owns it: that process is asked \
                       and followed for up to 10 seconds). Returns the run as it ended; what \
                       finished is kept.",
        annotations(
            title = "Cancel a run",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn run_cancel(
        &self,
        Parameters(input): Parameters<RunIdInput>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let id = input.run_id.trim();
        tracing::info!(run = id, by = %self.launcher(&context), "an agent cancels a run");
        match self.engine().cancel_run(id).await {
            Ok(summary) => reply::ok(&Canceled {
                next: match summary.state {
                    RunState::Canceled => "Canceled; what finished is kept.".to_owned(),
                    state => format!(
                        "It is {}: poll switchyard_run_status to see it end.",
                        state.as_str()
                    ),
                },
                summary,
            }),
            Err(error) => reply::engine_error(&error),
        }
    }

    /// One node's stored output.
    #[tool(
        name = "switchyard_artifact_get",
        description = "One node's stored output (its artifact) with its SHA-256 and size; \
                       read a large one in pieces with offset and maxBytes (default 64 KiB, at \
                       most 1 MiB). A running node gives the text streamed so far.",
        annotations(title = "Node output", read_only_hint = true, open_world_hint = false)
    )]
    async fn artifact_get(&self, Parameters(input): Parameters<ArtifactInput>) -> CallToolResult {
        let max = input.max_bytes.unwrap_or(DEFAULT_ARTIFACT_BYTES);
        if !(1..=MAX_ARTIFACT_BYTES).contains(&max) {
            return reply::invalid(format!(
                "maxBytes must be 1 to {MAX_ARTIFACT_BYTES}, not {max}"
            ));
        }
        let (run, node) = (input.run_id.trim(), input.node_id.trim());
        let engine = self.engine();
        let detail = match engine.run_detail(run).await {
            Ok(detail) => detail,
            Err(error) => return reply::engine_error(&error),
        };
        if let Some(code) = detail
            .nodes
            .iter()
            .find(|n| n.id == node && n.kind == NodeKind::Code)
        {
            return reply::invalid(format!(
                "node {node} of run {run} is a code node: its result is a change in review \
                 (attempt {}), not a text artifact; see switchyard_review_status",
                code.current_attempt().unwrap_or("not started yet")
            ));
        }
        let output = match engine.run_output(run, Some(node)).await {
            Ok(output) => output,
            Err(error) => return reply::engine_error(&error),
        };
        let Some(out) = output.nodes.into_iter().next() else {
            return reply::fail(
                ErrorCode::NotFound,
                format!("run {run} has no node {node:?}"),
            );
        };
        let total = out.text.len();
        let mut start = usize::try_from(input.offset)
            .unwrap_or(usize::MAX)
            .min(total);
        while !out.text.is_char_boundary(start) {
            start -= 1;
        }
        let (text, truncated) = prefix(&out.text[start..], max as usize);
        reply::ok(&Artifact {
            run_id: output.run_id,
            node_id: out.node_id,
            status: out.state,
            complete: out.complete,
            text: text.to_owned(),
            sha256: out.sha256,
            bytes: total,
            offset: start,
            truncated,
        })
    }
}
