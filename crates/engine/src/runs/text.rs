//! What a text node does: build its context (recorded as its trace), make its call — or, for
//! a cascade, climb the ladder until a rung succeeds — and store the answer as its artifact.

use switchyard_core::error::ErrorCode;
use switchyard_core::run::cascade::{judge_prompt, parse_judge_score, Rung};
use switchyard_core::run::collective::{merge_context, parse_used_inputs, MemberAnswer};
use switchyard_core::run::context::{ContextBuilder, NodeContext, DEFAULT_CONTEXT_CHARS};
use switchyard_core::run::{CallPurpose, FailureSignal, NodeRole, NodeState, RungOutcome};
use switchyard_store::runs::nodes::{NodeChanges, NodeRow};

use super::artifacts::{output_path, read_output, write_output};
use super::call::{CallError, CallSpec};
use super::cascade::Tried;
use super::driver::RunCtx;
use super::now_ms;
use crate::EngineError;

/// An answer to store as the node's output.
struct Answer {
    text: String,
    model: String,
    rung: Option<u32>,
    used_inputs: Option<Vec<u32>>,
}

/// Runs text node `node`
/// (chosen by the driver, still `pending`) to its end; returns the state it ended in.
pub(crate) async fn run_text_node(ctx: &RunCtx, node: &NodeRow) -> NodeState {
    let mut begun = false;
    let result = match node.role {
        NodeRole::Cascade => cascade(ctx, node, &mut begun).await,
        NodeRole::Merge => merge(ctx, node, &mut begun).await,
        _ => single(ctx, node, &mut begun).await,
    };
    ctx.engine.runs.drop_live(&ctx.run_id, &node.node_id);
    if !begun && !ctx.begin_node(&node.node_id, None).await {
        return NodeState::Pending;
    }
    let ended = match result {
        Ok(answer) => store_answer(ctx, node, answer).await,
        Err(end) => end.apply(ctx, node).await,
    };
    // Only now: a follower in another process reads the live file until the node's end is
    // stored, so the text never disappears in between.
    let live = super::artifacts::live_path(ctx.engine.home(), &ctx.run_id, &node.node_id);
    let _ = tokio::fs::remove_file(live).await;
    ended
}

/// How a node that produced no answer ends.
enum NoAnswer {
    Failed(ErrorCode, String),
    Budget(String),
    Stopped,
}

impl NoAnswer {
    async fn apply(self, ctx: &RunCtx, node: &NodeRow) -> NodeState {
        match self {
            NoAnswer::Failed(code, message) => {
                ctx.fail_node(&node.node_id, NodeState::Running, code, &message)
                    .await
            }
            NoAnswer::Budget(message) => {
                let message = format!("budget_exceeded: {message}");
                ctx.fail_node(
                    &node.node_id,
                    NodeState::Running,
                    ErrorCode::InvalidInput,
                    &message,
                )
                .await
            }
            NoAnswer::Stopped => ctx.stop_node(&node.node_id, NodeState::Running).await,
        }
    }
}

impl From<CallError> for NoAnswer {
    fn from(error: CallError) -> Self {
        match error {
            CallError::Failed { code, message, .. } => NoAnswer::Failed(code, message),
            CallError::Budget(message) => NoAnswer::Budget(message),
            CallError::Stopped => NoAnswer::Stopped,
        }
    }
}

impl From<EngineError> for NoAnswer {
    fn from(error: EngineError) -> Self {
        NoAnswer::Failed(error.code(), error.to_string())
    }
}

/// Records `context`'s trace on the node, starting it (`running`) if it has not begun.
async fn record_trace(ctx: &RunCtx, node: &NodeRow, context: &NodeContext, begun: &mut bool) {
    let json = serde_json::to_string(&context.trace).ok();
    if *begun {
        if let Some(json) = json {
            ctx.move_node_in_place(&node.node_id, NodeChanges::new().trace(json))
                .await;
        }
    } else {
        *begun = ctx.begin_node(&node.node_id, json).await;
    }
}

/// The outputs of the nodes `node` takes context from, in its order (done ones only).
async fn inputs(ctx: &RunCtx, node: &NodeRow) -> Result<Vec<(NodeRow, String)>, NoAnswer> {
    // Only the inputs: a swarm's node reads one or two rows, not the whole run.
    let all = ctx
        .engine
        .store()
        .run_nodes_named(&ctx.run_id, &node.context_from)
        .await
        .map_err(EngineError::from)?;
    let mut found = Vec::new();
    for id in &node.context_from {
        let Some(input) = all.iter().find(|n| &n.node_id == id) else {
            continue;
        };
        if !input.state.satisfies_dependents() {
            continue;
        }
        let (Some(path), Some(sha)) = (&input.output_path, &input.output_sha256) else {
            continue;
        };
        match read_output(path, sha).await {
            Some(text) => found.push((input.clone(), text)),
            None => {
                return Err(NoAnswer::Failed(
                    ErrorCode::NotFound,
                    format!("the output of {id} is missing or changed since it was stored"),
                ))
            }
        }
    }
    Ok(found)
}

/// Whether `node`'s answer is the run's result, checked against the run's schema.
fn checked(ctx: &RunCtx, node: &NodeRow) -> bool {
    ctx.schema.is_some()
        && matches!(
            node.role,
            NodeRole::Single | NodeRole::Cascade | NodeRole::Merge
        )
}

/// The prompt of a single, member or step node.
async fn context_of(ctx: &RunCtx, node: &NodeRow) -> Result<NodeContext, NoAnswer> {
    let mut builder = ContextBuilder::new().task(&ctx.task);
    if let (true, Some(schema)) = (checked(ctx, node), &ctx.schema) {
        builder = builder.instruction(&schema.instruction());
    }
    if node.role == NodeRole::Step {
        builder = builder.plan(&ctx.outline).step(&node.node_id, &node.task);
        for (input, text) in inputs(ctx, node).await? {
            builder = builder.input(
                &input.node_id,
                &format!("Output of {} ({})", input.node_id, first_line(&input.task)),
                &text,
            );
        }
    }
    Ok(builder.build(DEFAULT_CONTEXT_CHARS))
}

/// The first line of `text`, at most 80 characters (a task named in a prompt or a label).
pub(super) fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line.chars().take(80).collect()
}

async fn single(ctx: &RunCtx, node: &NodeRow, begun: &mut bool) -> Result<Answer, NoAnswer> {
    let model = node.model.clone().ok_or_else(|| {
        NoAnswer::Failed(
            ErrorCode::InvalidInput,
            format!("node {} has no model", node.node_id),
        )
    })?;
    let context = context_of(ctx, node).await?;
    record_trace(ctx, node, &context, begun).await;
    let answer = ctx
        .call(CallSpec {
            node_id: &node.node_id,
            purpose: CallPurpose::Answer,
            model: &model,
            rung: None,
            system: ctx.system.clone(),
            prompt: context.prompt,
            live: Some(ctx.engine.runs.live_text(&ctx.run_id, &node.node_id)),
        })
        .await?;
    let text = match conform(ctx, node, &model, None, answer.text).await? {
        Ok(text) => text,
        Err(signal) => return Err(schema_failed(&signal)),
    };
    Ok(Answer {
        text,
        model,
        rung: None,
        used_inputs: None,
    })
}

/// A node whose answer failed the schema even after the repair request.
fn schema_failed(signal: &FailureSignal) -> NoAnswer {
    NoAnswer::Failed(ErrorCode::GateFailed, signal.describe())
}

/// `text` made to match the run's schema, if the node is checked: the recovered JSON, or
/// after one repair request to `model`; `Ok(Err(SchemaFailed))` when it still does not.
async fn conform(
    ctx: &RunCtx,
    node: &NodeRow,
    model: &str,
    rung: Option<u32>,
    text: String,
) -> Result<Result<String, FailureSignal>, NoAnswer> {
    let Some(schema) = ctx.schema.as_ref().filter(|_| checked(ctx, node)) else {
        return Ok(Ok(text));
    };
    let problem = match schema.check(&text) {
        Ok(json) => return Ok(Ok(json)),
        Err(problem) => problem,
    };
    let repaired = ctx
        .call(CallSpec {
            node_id: &node.node_id,
            purpose: CallPurpose::Answer,
            model,
            rung,
            system: ctx.system.clone(),
            prompt: schema.repair_prompt(&ctx.task, &text, &problem),
            live: None,
        })
        .await;
    let repaired = match repaired {
        Ok(answer) => answer.text,
        Err(CallError::Failed { message, .. }) => {
            return Ok(Err(FailureSignal::SchemaFailed {
                detail: format!("{problem}; the repair request failed: {message}"),
            }))
        }
        Err(other) => return Err(other.into()),
    };
    Ok(schema
        .check(&repaired)
        .map_err(|detail| FailureSignal::SchemaFailed { detail }))
}

async fn merge(ctx: &RunCtx, node: &NodeRow, begun: &mut bool) -> Result<Answer, NoAnswer> {
    let model = node.model.clone().ok_or_else(|| {
        NoAnswer::Failed(
            ErrorCode::InvalidInput,
            "the merge node has no model".into(),
        )
    })?;
    let members: Vec<MemberAnswer> = inputs(ctx, node)
        .await?
        .into_iter()
        .map(|(input, text)| MemberAnswer {
            node_id: input.node_id,
            model: input.model.unwrap_or_default(),
            text,
        })
        .collect();
    if members.is_empty() {
        return Err(NoAnswer::Failed(
            ErrorCode::NotFound,
            "no member answered; there is nothing to merge".into(),
        ));
    }
    let context = merge_context(&ctx.task, &members, DEFAULT_CONTEXT_CHARS);
    record_trace(ctx, node, &context, begun).await;
    let prompt = match &ctx.schema {
        Some(schema) => format!("{}\n\n{}", context.prompt, schema.instruction()),
        None => context.prompt,
    };
    let answer = ctx
        .call(CallSpec {
            node_id: &node.node_id,
            purpose: CallPurpose::Answer,
            model: &model,
            rung: None,
            system: ctx.system.clone(),
            prompt,
            live: Some(ctx.engine.runs.live_text(&ctx.run_id, &node.node_id)),
        })
        .await?;
    let used = parse_used_inputs(&answer.text, members.len());
    let text = match conform(ctx, node, &model, None, answer.text).await? {
        Ok(text) => text,
        Err(signal) => return Err(schema_failed(&signal)),
    };
    Ok(Answer {
        text,
        model,
        rung: None,
        used_inputs: used,
    })
}

async fn cascade(ctx: &RunCtx, node: &NodeRow, begun: &mut bool) -> Result<Answer, NoAnswer> {
    let Some(ladder) = ctx.ladder.clone() else {
        return Err(NoAnswer::Failed(
            ErrorCode::Internal,
            "the cascade has no ladder".into(),
        ));
    };
    let mut rungs = TextRungs {
        ctx,
        node,
        begun,
        last_call: None,
    };
    super::cascade::climb(ctx, node, &ladder, &mut rungs).await
}

/// A text cascade's rungs: a model call each, conformed to the schema and judged.
struct TextRungs<'a> {
    ctx: &'a RunCtx,
    node: &'a NodeRow,
    begun: &'a mut bool,
    /// The call of the rung tried last, which a failure is recorded on.
    last_call: Option<u32>,
}

impl super::cascade::Rungs for TextRungs<'_> {
    type Success = Answer;
    type Stop = NoAnswer;

    async fn try_rung(
        &mut self,
        number: u32,
        rung: &Rung,
        failures: &[(u32, FailureSignal)],
    ) -> Result<Tried<Answer>, NoAnswer> {
        let (ctx, node) = (self.ctx, self.node);
        let mut builder = ContextBuilder::new().task(&ctx.task);
        for (at, signal) in failures {
            builder = builder.failure(*at, &signal.describe());
        }
        if let Some(schema) = &ctx.schema {
            builder = builder.instruction(&schema.instruction());
        }
        let context = builder.build(DEFAULT_CONTEXT_CHARS);
        record_trace(ctx, node, &context, self.begun).await;
        ctx.move_node_in_place(
            &node.node_id,
            NodeChanges::new()
                .rung(Some(number))
                .model(Some(rung.model.clone())),
        )
        .await;
        self.last_call = None;
        let answered = ctx
            .call(CallSpec {
                node_id: &node.node_id,
                purpose: CallPurpose::Answer,
                model: &rung.model,
                rung: Some(number),
                system: ctx.system.clone(),
                prompt: context.prompt,
                live: Some(ctx.engine.runs.live_text(&ctx.run_id, &node.node_id)),
            })
            .await;
        let answer = match answered {
            Ok(answer) => answer,
            Err(error) => {
                return match error.signal() {
                    Some(signal) => Ok(Tried {
                        outcome: RungOutcome::Failed(signal),
                        success: None,
                    }),
                    None => Err(error.into()),
                }
            }
        };
        self.last_call = Some(answer.n);
        let conformed = conform(ctx, node, &rung.model, Some(number), answer.text).await?;
        let text = match conformed {
            Ok(text) => text,
            Err(signal) => {
                return Ok(Tried {
                    outcome: RungOutcome::Failed(signal),
                    success: None,
                })
            }
        };
        Ok(Tried {
            outcome: judge(ctx, node, number, &text).await?,
            success: Some(Answer {
                text,
                model: rung.model.clone(),
                rung: Some(number),
                used_inputs: None,
            }),
        })
    }

    async fn escalated(&mut self, _number: u32, signal: &FailureSignal) {
        // A call the provider failed was finished with its own signal already.
        let (Some(n), Ok(json)) = (self.last_call, serde_json::to_string(signal)) else {
            return;
        };
        let ctx = self.ctx;
        let _ = ctx
            .engine
            .store()
            .set_call_signal(&ctx.run_id, &self.node.node_id, n, ctx.token(), &json)
            .await;
    }

    fn stopped(&self) -> NoAnswer {
        NoAnswer::Stopped
    }

    fn lost(&self) -> NoAnswer {
        NoAnswer::Failed(ErrorCode::Internal, "no answer".into())
    }

    fn exhausted(&self, last: String) -> NoAnswer {
        NoAnswer::Failed(
            ErrorCode::Provider,
            format!("every rung of the cascade failed; the last: {last}"),
        )
    }
}

/// The judge's verdict on rung `rung`'s answer (accepted without a judge, or when the judge
/// itself fails: that is not the answer's failure).
async fn judge(
    ctx: &RunCtx,
    node: &NodeRow,
    rung: u32,
    answer: &str,
) -> Result<RungOutcome, NoAnswer> {
    let Some(judge) = &ctx.judge else {
        return Ok(RungOutcome::Succeeded);
    };
    let verdict = ctx
        .call(CallSpec {
            node_id: &node.node_id,
            purpose: CallPurpose::Judge,
            model: &judge.model,
            rung: Some(rung),
            system: None,
            prompt: judge_prompt(&ctx.task, answer),
            live: None,
        })
        .await;
    match verdict {
        Ok(reply) => Ok(judge.verdict(parse_judge_score(&reply.text))),
        Err(CallError::Failed { message, .. }) => {
            tracing::warn!(run = %ctx.run_id, %message, "the judge failed; the answer is accepted");
            Ok(RungOutcome::Succeeded)
        }
        Err(other) => Err(other.into()),
    }
}

/// Stores `answer` as the node's artifact and moves it to `done`.
async fn store_answer(ctx: &RunCtx, node: &NodeRow, answer: Answer) -> NodeState {
    let path = output_path(ctx.engine.home(), &ctx.run_id, &node.node_id);
    let sha = match write_output(&path, &answer.text).await {
        Ok(sha) => sha,
        Err(error) => {
            return ctx
                .fail_node(
                    &node.node_id,
                    NodeState::Running,
                    error.code(),
                    &error.to_string(),
                )
                .await
        }
    };
    let chars = u32::try_from(answer.text.chars().count()).unwrap_or(u32::MAX);
    let used = answer
        .used_inputs
        .and_then(|used| serde_json::to_string(&used).ok());
    let changes = NodeChanges::new()
        .output(path.display().to_string(), sha, chars)
        .model(Some(answer.model))
        .rung(answer.rung)
        .used_inputs(used)
        .finished_ms(Some(now_ms()));
    if ctx
        .move_node(
            &node.node_id,
            NodeState::Running,
            NodeState::Done,
            changes,
            None,
        )
        .await
    {
        NodeState::Done
    } else {
        NodeState::Running
    }
}
