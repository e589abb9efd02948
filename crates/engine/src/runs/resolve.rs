//! From a request to nodes: what each mode runs, with which models, what it could cost at
//! most, and what the user should know. [`Engine::preview_run`] returns it for the launch
//! form; [`Engine::start_run`] records exactly what it resolves to.

use std::collections::{HashMap, HashSet};

use switchyard_core::catalog::card::Pricing;
use switchyard_core::outcomes::TaskFeatures;
use switchyard_core::providers::ProviderKind;
use switchyard_core::roles::ComposeRequest;
use switchyard_core::routing::plan::{recompute, validate_plan, Plan, PlanMode, Severity};
use switchyard_core::routing::{
    classify, pick, BudgetTier, Classification, PlanTaskRequest, RouteTaskRequest,
};
use switchyard_core::run::cascade::{skip_unlikely, LADDER_TIERS};
use switchyard_core::run::dag::{self, DagNode};
use switchyard_core::run::ledger::worst_case_usd;
use switchyard_core::run::limits::{self, SETTING_BASELINE_MODEL};
use switchyard_core::run::savings::default_baseline;
use switchyard_core::run::schema::OutputSchema;
use switchyard_core::run::{
    Join, Ladder, NodeKind, NodeRole, NodeSpec, NodeState, RunLimits, RunMode, RunPreview,
    RunRequest, SkippedRung,
};

use super::code::{worker_for, worker_model};
use crate::learning::benchmark_prior;
use crate::routing::RouteInputs;
use crate::{Engine, EngineError};

/// The longest task accepted, in characters.
pub const MAX_TASK_CHARS: usize = 100_000;
/// Collective members when the request names none.
pub const DEFAULT_MEMBERS: u32 = 3;
/// Collective members accepted.
pub const MEMBERS: std::ops::RangeInclusive<u32> = 2..=6;

/// A request resolved: its preview plus what executing it needs.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub preview: RunPreview,
    /// Models that cannot be called (no route, no key, no price), with why.
    pub refused: Vec<(String, EngineError)>,
    /// A code run's base: the repository's head now.
    pub base: Option<String>,
}

fn spec(id: &str, task: &str, role: NodeRole, model: Option<String>) -> NodeSpec {
    NodeSpec {
        id: id.to_owned(),
        task: task.to_owned(),
        kind: NodeKind::Text,
        role,
        model,
        worker: None,
        depends_on: Vec::new(),
        join: Join::All,
        context_from: Vec::new(),
    }
}

/// A code node run by `worker` (its model, for the model worker, is what gets priced).
fn code_spec(id: &str, task: &str, role: NodeRole, worker: String) -> NodeSpec {
    NodeSpec {
        kind: NodeKind::Code,
        model: worker_model(&worker),
        worker: Some(worker),
        ..spec(id, task, role, None)
    }
}

/// The node of a code plan or swarm that brings its steps' merged change to review: it
/// waits for every step (any that merged is enough), and its attempt applies the run
/// branch to the run's base, so the human reviews — and Switchyard re-verifies — the
/// combined diff. It calls no model; its worker is set when it starts (see `runs::combine`).
fn combined_spec(steps: &[NodeSpec]) -> NodeSpec {
    let ids: Vec<String> = steps.iter().map(|s| s.id.clone()).collect();
    NodeSpec {
        kind: NodeKind::Code,
        depends_on: ids,
        join: Join::Any,
        ..spec(COMBINED_NODE, COMBINED_TASK, NodeRole::Merge, None)
    }
}

/// Whether `entry` names a coding-agent CLI or an `exec:` command (not a model).
fn is_process_worker(entry: &str) -> bool {
    matches!(
        switchyard_core::worker::WorkerSpec::parse(entry),
        Ok(switchyard_core::worker::WorkerSpec::Cli { .. }
            | switchyard_core::worker::WorkerSpec::Exec { .. })
    )
}

/// The id of a code plan's or swarm's combined node.
pub(crate) const COMBINED_NODE: &str = "combined";
/// What the combined node does, as the run page shows it.
const COMBINED_TASK: &str = "Combine the steps' merged changes for review";

/// The models a ladder's rungs call (for code, only rungs run by the model worker).
pub(crate) fn ladder_models(ladder: &Ladder, code: bool) -> Vec<String> {
    ladder
        .rungs
        .iter()
        .filter_map(|r| {
            if code {
                worker_model(&worker_for(&r.model))
            } else {
                Some(r.model.clone())
            }
        })
        .collect()
}

fn invalid(message: impl Into<String>) -> EngineError {
    EngineError::InvalidInput(message.into())
}

/// A plan's steps as the outline every step's context carries.
pub(crate) fn outline_of(plan: &Plan) -> String {
    plan.steps()
        .iter()
        .map(|s| {
            let after = if s.depends_on.is_empty() {
                String::new()
            } else {
                format!(" (after {})", s.depends_on.join(", "))
            };
            format!("- {}: {}{after}", s.id, s.task.trim())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Engine {
    /// What `request` would run: its nodes with models, the ladder or plan, warnings, and
    /// the estimated worst-case cost. Nothing is recorded.
    ///
    /// Errors: `InvalidInput` (empty task, bad limits, a plan that does not validate, a
    /// repository that is not one), `NotFound` (no model fits), `Role` errors of the preset.
    pub async fn preview_run(&self, request: RunRequest) -> Result<RunPreview, EngineError> {
        Ok(self.resolve_run(&request).await?.preview)
    }

    /// The limits from the settings and the max parallel runs, warnings logged.
    pub(crate) async fn run_settings(&self) -> Result<(RunLimits, u32), EngineError> {
        let keys = [
            limits::SETTING_MAX_PARALLEL_RUNS,
            limits::SETTING_MAX_PARALLEL_NODES,
            limits::SETTING_NODE_TIMEOUT,
            limits::SETTING_CODE_NODE_TIMEOUT,
            limits::SETTING_RUN_TIMEOUT,
            limits::SETTING_MAX_USD,
            limits::SETTING_CLI_RESERVATION,
        ];
        let mut values = HashMap::new();
        for key in keys {
            if let Some(value) = self.store().setting(key).await? {
                values.insert(key, value);
            }
        }
        let (limits, runs, warnings) = RunLimits::from_settings(|key| values.get(key).cloned());
        for warning in warnings {
            tracing::warn!("{warning}");
        }
        Ok((limits, runs))
    }

    /// The price a run pays for `model`: free for local servers, else the catalog's.
    /// Errors: routing's (`InvalidInput`, `NotFound`, `MissingCredential`, …), or
    /// `InvalidInput` for a model without a known price.
    pub(crate) async fn model_pricing(&self, model: &str) -> Result<Pricing, EngineError> {
        let routed = self.route_model(model).await?;
        if routed.provider.kind == ProviderKind::Local {
            return Ok(Pricing {
                prompt_per_m: Some(0.0),
                completion_per_m: Some(0.0),
            });
        }
        match self.catalog_pricing(model).await {
            Some(p) if p.prompt_per_m.is_some() && p.completion_per_m.is_some() => Ok(p),
            _ => Err(invalid(format!(
                "{model} has no known price in the catalog; under a USD cap only priced or \
                 local models can be called"
            ))),
        }
    }

    /// The best usable model for `task` in `tier`, without recording a pick.
    /// `launcher`'s own outcomes weigh double.
    async fn route_pick(
        &self,
        task: &str,
        tier: BudgetTier,
        launcher: &str,
    ) -> Result<String, EngineError> {
        let classification = self.classify_assisted(task).await;
        let inputs = self.route_inputs(false, Some(launcher)).await?;
        pick_in(&inputs, &classification, task, tier, launcher)
    }

    /// A cascade's ladder from routing: each tier's pick, cheapest tier first (the task
    /// classified and the routing inputs loaded once for all of them), less the rungs recorded
    /// outcomes say will likely fail the task's category (see [`skip_unlikely`]).
    async fn routed_ladder(
        &self,
        task: &str,
        launcher: &str,
    ) -> Result<(Vec<String>, Vec<SkippedRung>), EngineError> {
        let classification = self.classify_assisted(task).await;
        let inputs = self.route_inputs(false, Some(launcher)).await?;
        let mut models: Vec<String> = Vec::new();
        for tier in LADDER_TIERS {
            if let Ok(model) = pick_in(&inputs, &classification, task, tier, launcher) {
                if !models.contains(&model) {
                    models.push(model);
                }
            }
        }
        let threshold = self.skip_below().await?;
        // The local classifier's reading: the features recorded outcomes carry.
        let features = TaskFeatures::of(task, &classify(task));
        let category = features.category;
        if threshold <= 0.0 || models.len() < 2 || !inputs.learned.has_category(category) {
            return Ok((models, Vec::new()));
        }
        let prior = |model: &str| benchmark_prior(&inputs.state.catalog, model, category);
        let skipped = skip_unlikely(&mut models, &features, &inputs.learned, threshold, prior);
        Ok((models, skipped))
    }

    /// The baseline savings are measured against: the setting, else the catalog's top
    /// general model; with its prices.
    pub(crate) async fn baseline(&self) -> Option<(String, Pricing)> {
        let chosen = self
            .store()
            .setting(SETTING_BASELINE_MODEL)
            .await
            .ok()
            .flatten();
        let state = self.catalog_state().await.ok()?;
        let model = match chosen
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
        {
            Some(model) => model,
            None => default_baseline(&state.catalog.models)?.id.clone(),
        };
        let pricing = self.catalog_pricing(&model).await?;
        pricing.blended_per_m()?;
        Some((model, pricing))
    }

    /// Resolves `request` (see [`Engine::preview_run`]).
    pub(crate) async fn resolve_run(&self, request: &RunRequest) -> Result<Resolved, EngineError> {
        let task = request.task.trim();
        if task.is_empty() {
            return Err(invalid("the task is empty"));
        }
        if task.chars().count() > MAX_TASK_CHARS {
            return Err(invalid(format!(
                "the task is longer than {MAX_TASK_CHARS} characters"
            )));
        }
        let (settings, _) = self.run_settings().await?;
        let mut limits = settings.with(&request.limits.unwrap_or_default());
        if let Some(max_usd) = request.max_usd {
            limits.max_usd = max_usd;
        }
        limits.validate().map_err(|e| invalid(e.0))?;
        let code = request
            .repo
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty());
        if let Some(schema) = request.schema.as_deref() {
            if code {
                return Err(invalid(
                    "a JSON schema checks text answers; code runs are checked by their gates",
                ));
            }
            OutputSchema::parse(schema).map_err(|e| invalid(e.to_string()))?;
        }
        if code && request.judge.is_some() {
            return Err(invalid(
                "a judge scores text answers; code cascades escalate on their gates",
            ));
        }
        let mut base = None;
        if let Some(repo) = request.repo.as_deref().filter(|_| code) {
            base = Some(self.detect_verification(repo).await?.head);
        }
        if let Some(judge) = &request.judge {
            judge.validate().map_err(|e| invalid(e.0))?;
        }
        let tier = request.budget.unwrap_or_default();
        let mut warnings = Vec::new();
        let launcher = request.launcher.as_str();
        // Used only where the request names no model: a single run's model, a routed
        // cascade's first rung.
        let start = self.start_model_for(launcher).await?;
        if let Some(model) = start
            .as_ref()
            .filter(|_| starts_from_routing(request, code))
        {
            warnings.push(format!(
                "starting with {model}, the starting model set for {launcher}"
            ));
        }
        let given: Vec<String> = request
            .models
            .iter()
            .flatten()
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect();
        let mut ladder = None;
        let mut plan = None;
        let nodes = match request.mode {
            RunMode::Single if !code => {
                let model = match given.first() {
                    Some(model) => model.clone(),
                    None => match &start {
                        Some(model) => model.clone(),
                        None => self.route_pick(task, tier, launcher).await?,
                    },
                };
                vec![spec("n1", task, NodeRole::Single, Some(model))]
            }
            RunMode::Single => {
                let worker = match (&request.worker, given.first()) {
                    (Some(worker), _) if !worker.trim().is_empty() => worker.trim().to_owned(),
                    (_, Some(entry)) => worker_for(entry),
                    _ => match &start {
                        Some(model) => worker_for(model),
                        None => worker_for(&self.route_pick(task, tier, launcher).await?),
                    },
                };
                vec![code_spec("n1", task, NodeRole::Single, worker)]
            }
            RunMode::Collective if code => {
                let members: Vec<String> = if given.is_empty() {
                    let count = request.members.unwrap_or(DEFAULT_MEMBERS);
                    let mut route = RouteTaskRequest::new(task);
                    route.budget = tier;
                    let size = switchyard_core::compare::COMPARE_WORKERS;
                    let found = self
                        .recommend_models(route, count.clamp(size.min, size.max))
                        .await?;
                    found
                        .models
                        .into_iter()
                        .map(|m| worker_for(&m.id))
                        .collect()
                } else {
                    given.iter().map(|g| worker_for(g)).collect()
                };
                let size = switchyard_core::compare::COMPARE_WORKERS;
                if !size.admits(members.len()) {
                    return Err(invalid(format!(
                        "a code collective compares {}–{} workers, not {}",
                        size.min,
                        size.max,
                        members.len()
                    )));
                }
                // Its members are one compare group, started together from one base: more
                // of them than the run's parallel nodes would break that limit.
                if members.len() > limits.max_parallel_nodes as usize {
                    return Err(invalid(format!(
                        "a code collective runs its {} workers at once, more than the run's {} \
                         parallel nodes; name fewer workers or raise max parallel nodes",
                        members.len(),
                        limits.max_parallel_nodes
                    )));
                }
                members
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| code_spec(&format!("m{}", i + 1), task, NodeRole::Member, w))
                    .collect()
            }
            RunMode::Collective => {
                let members = if given.is_empty() {
                    let count = request.members.unwrap_or(DEFAULT_MEMBERS);
                    if !MEMBERS.contains(&count) {
                        return Err(invalid(format!(
                            "a collective has {}–{} members, not {count}",
                            MEMBERS.start(),
                            MEMBERS.end()
                        )));
                    }
                    let mut route = RouteTaskRequest::new(task);
                    route.budget = tier;
                    let found = self.recommend_models(route, count).await?;
                    found.models.into_iter().map(|m| m.id).collect::<Vec<_>>()
                } else {
                    given.clone()
                };
                if members.len() < 2 {
                    warnings.push(format!(
                        "only {} model qualified; the collective has one member",
                        members.len()
                    ));
                }
                let merge_model = match self.route_pick(task, tier, launcher).await {
                    Ok(model) => model,
                    Err(_) => members.first().cloned().unwrap_or_default(),
                };
                let mut nodes: Vec<NodeSpec> = members
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        spec(
                            &format!("m{}", i + 1),
                            task,
                            NodeRole::Member,
                            Some(m.clone()),
                        )
                    })
                    .collect();
                let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
                let mut merge = spec("merge", task, NodeRole::Merge, Some(merge_model));
                merge.depends_on = ids.clone();
                merge.context_from = ids;
                merge.join = Join::Any;
                nodes.push(merge);
                nodes
            }
            RunMode::Cascade => {
                let built = match &request.ladder {
                    Some(models) => Ladder::from_models(models),
                    None => {
                        let (mut models, skipped) = self.routed_ladder(task, launcher).await?;
                        warnings.extend(skipped.iter().map(|s| s.reason.clone()));
                        // The agent's starting model is the first rung, whatever it learned.
                        if let Some(model) = &start {
                            models.retain(|m| m != model);
                            models.insert(0, model.clone());
                        }
                        if models.is_empty() {
                            return Err(EngineError::NotFound(
                                "no model fits any tier of the cascade; name the ladder".into(),
                            ));
                        }
                        let mut ladder = Ladder::from_models(&models);
                        ladder.skipped = skipped;
                        ladder
                    }
                };
                built.validate().map_err(|e| invalid(e.0))?;
                let first = built.rungs.first().map(|r| r.model.clone());
                ladder = Some(built);
                match (code, first) {
                    (true, Some(first)) => {
                        vec![code_spec("c1", task, NodeRole::Cascade, worker_for(&first))]
                    }
                    (_, first) => vec![spec("c1", task, NodeRole::Cascade, first)],
                }
            }
            RunMode::Plan | RunMode::Swarm => {
                let mode = if request.mode == RunMode::Plan {
                    PlanMode::Plan
                } else {
                    PlanMode::Swarm
                };
                let planned = match &request.plan {
                    Some(plan) if plan.mode() != mode => {
                        return Err(invalid(format!(
                            "the plan given is a {:?} plan, not a {} one",
                            plan.mode(),
                            request.mode.as_str()
                        )))
                    }
                    Some(plan) => plan.clone(),
                    None => {
                        self.plan_task(PlanTaskRequest {
                            task: task.to_owned(),
                            mode,
                            budget: tier,
                            max_price: None,
                            any_provider: false,
                            use_model_planner: false,
                            planner_model: None,
                        })
                        .await?
                    }
                };
                // The structure only: a step's model may be any reference a provider serves
                // (`<provider>:<model>`), checked below by routing and pricing it.
                let mut checked = planned;
                recompute(&mut checked);
                let errors: Vec<String> = validate_plan(&checked)
                    .iter()
                    .filter(|i| i.severity == Severity::Error)
                    .map(|i| i.message.clone())
                    .collect();
                if !errors.is_empty() {
                    return Err(invalid(format!(
                        "the plan cannot run: {}",
                        errors.join("; ")
                    )));
                }
                warnings.extend(checked.warnings().iter().cloned());
                let steps = checked.steps();
                let mut nodes = Vec::with_capacity(steps.len());
                let mut earlier: Vec<String> = Vec::new();
                for step in steps {
                    let chosen = step.model.clone().or_else(|| given.first().cloned());
                    let worker_given = request
                        .worker
                        .as_deref()
                        .map(str::trim)
                        .filter(|w| !w.is_empty());
                    let mut node = match (code, chosen) {
                        // A worker named on the step (the DAG edited) wins over the run's.
                        (true, Some(entry)) if is_process_worker(&entry) => {
                            code_spec(&step.id, &step.task, NodeRole::Step, entry)
                        }
                        (true, chosen) => {
                            let worker = match (worker_given, chosen) {
                                (Some(worker), _) => worker.to_owned(),
                                (None, Some(model)) => worker_for(&model),
                                (None, None) => {
                                    return Err(invalid(format!(
                                        "step {} has no model or worker; choose one",
                                        step.id
                                    )))
                                }
                            };
                            code_spec(&step.id, &step.task, NodeRole::Step, worker)
                        }
                        (false, Some(model)) => {
                            spec(&step.id, &step.task, NodeRole::Step, Some(model))
                        }
                        (false, None) => {
                            return Err(invalid(format!(
                                "step {} has no model; choose one",
                                step.id
                            )))
                        }
                    };
                    if request.mode == RunMode::Plan {
                        node.depends_on = earlier.last().cloned().into_iter().collect();
                        node.context_from = earlier.clone();
                    } else {
                        node.depends_on = step.depends_on.clone();
                        node.context_from = step.depends_on.clone();
                    }
                    earlier.push(step.id.clone());
                    nodes.push(node);
                }
                plan = Some(checked.clone());
                if code {
                    nodes.push(combined_spec(&nodes));
                }
                nodes
            }
        };
        let graph: Vec<DagNode> = nodes
            .iter()
            .map(|n| DagNode {
                id: n.id.clone(),
                depends_on: n.depends_on.clone(),
                state: NodeState::Pending,
                join: n.join,
            })
            .collect();
        dag::validate(&graph).map_err(|e| invalid(e.to_string()))?;
        let columns = {
            let by_id = dag::columns(&graph);
            nodes
                .iter()
                .map(|n| by_id.get(&n.id).copied().unwrap_or(0))
                .collect()
        };
        if nodes.iter().any(|n| !switchyard_core::run::valid_id(&n.id)) {
            return Err(invalid("node ids are 1–64 letters, digits, - or _"));
        }

        let mut models: Vec<String> = nodes.iter().filter_map(|n| n.model.clone()).collect();
        if let Some(ladder) = &ladder {
            models.extend(ladder_models(ladder, code));
        }
        if let Some(judge) = &request.judge {
            models.push(judge.model.trim().to_owned());
        }
        let mut seen = HashSet::new();
        models.retain(|m| seen.insert(m.clone()));
        let mut prices = HashMap::new();
        let mut refused = Vec::new();
        for model in models {
            match self.model_pricing(&model).await {
                Ok(pricing) => {
                    prices.insert(model, pricing);
                }
                Err(error) => {
                    warnings.push(format!("{model} cannot be called: {error}"));
                    refused.push((model, error));
                }
            }
        }
        let worst_case_usd = worst_case(&nodes, ladder.as_ref(), request, &limits, &prices, task);
        // An unknown preset is refused now, not when the first node starts.
        if let Some(preset) = request
            .preset
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            self.compose_role(ComposeRequest {
                task: task.to_owned(),
                persona: None,
                stack: Vec::new(),
                domain: None,
                format: None,
                guardrails: Vec::new(),
                preset: Some(preset.to_owned()),
            })
            .await?;
        }
        let baseline = self.baseline().await;
        Ok(Resolved {
            preview: RunPreview {
                mode: request.mode,
                task: task.to_owned(),
                nodes,
                columns,
                ladder,
                plan,
                warnings,
                worst_case_usd,
                limits,
                baseline_model: baseline.as_ref().map(|(m, _)| m.clone()),
            },
            refused,
            base,
        })
    }
}

/// `task`'s pick in `tier` from loaded routing inputs, asked by `launcher`.
fn pick_in(
    inputs: &RouteInputs,
    classification: &Classification,
    task: &str,
    tier: BudgetTier,
    launcher: &str,
) -> Result<String, EngineError> {
    let mut request = RouteTaskRequest::new(task);
    request.budget = tier;
    request.launcher = Some(launcher.to_owned());
    let route = request
        .route_request(classification)
        .map_err(|e| invalid(e.to_string()))?;
    inputs
        .with_context(|ctx| pick(&route, ctx))
        .map(|p| p.id)
        .map_err(|e| EngineError::NotFound(e.to_string()))
}

/// Whether `request` leaves its first model to routing: a single run naming no model (or, for
/// code, no worker), or a cascade naming no ladder. Only then does an agent's starting model
/// apply.
fn starts_from_routing(request: &RunRequest, code: bool) -> bool {
    let named = request
        .models
        .iter()
        .flatten()
        .any(|m| !m.trim().is_empty());
    match request.mode {
        RunMode::Single if code => {
            !named
                && request
                    .worker
                    .as_deref()
                    .is_none_or(|w| w.trim().is_empty())
        }
        RunMode::Single => !named,
        RunMode::Cascade => request.ladder.is_none(),
        _ => false,
    }
}

/// The estimated most the run could cost: every call at its whole output cap, each prompt
/// the task plus its inputs at their whole output caps (cascades: every rung, and its judge).
/// `None` when a model's price is unknown.
fn worst_case(
    nodes: &[NodeSpec],
    ladder: Option<&Ladder>,
    request: &RunRequest,
    limits: &RunLimits,
    prices: &HashMap<String, Pricing>,
    task: &str,
) -> Option<f64> {
    let out = limits.max_output_tokens;
    let task_tokens = u32::try_from(task.len()).unwrap_or(u32::MAX);
    let call = |model: &str, inputs: usize| -> Option<f64> {
        let prompt = task_tokens
            .saturating_add(out.saturating_mul(u32::try_from(inputs).unwrap_or(u32::MAX)));
        worst_case_usd(prompt, out, prices.get(model)?)
    };
    let mut total = 0.0;
    for node in nodes {
        if node.kind == NodeKind::Code && node.role == NodeRole::Merge {
            // Applying the run branch costs nothing.
            continue;
        }
        if node.kind == NodeKind::Code {
            let attempt = |worker: &str| match worker_model(worker) {
                Some(model) => {
                    let p = prices.get(&model)?;
                    let price = p.prompt_per_m?.max(p.completion_per_m?);
                    Some(f64::from(crate::attempts::MODEL_MAX_TOKENS) * price / 1e6)
                }
                None => Some(limits.cli_reservation_usd),
            };
            match (node.role, ladder) {
                (NodeRole::Cascade, Some(ladder)) => {
                    for rung in &ladder.rungs {
                        total += attempt(&worker_for(&rung.model))?;
                    }
                }
                _ => total += attempt(node.worker.as_deref()?)?,
            }
        } else if node.role == NodeRole::Cascade {
            for rung in ladder.map(|l| l.rungs.as_slice()).unwrap_or_default() {
                total += call(&rung.model, 0)?;
                if let Some(judge) = &request.judge {
                    total += call(judge.model.trim(), 1)?;
                }
            }
        } else {
            total += call(node.model.as_deref()?, node.context_from.len())?;
        }
    }
    Some(total)
}
