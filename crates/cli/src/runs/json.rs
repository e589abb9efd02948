//! The runs JSON contract, built field by field in snake_case (the engine's types are
//! camelCase for the UI), and the same things for people.

use serde_json::{json, Map, Value};
use switchyard_core::attempt::{AttemptReview, AttemptSummary};
use switchyard_core::run::savings::{SpendReport, SpendTotal};
use switchyard_core::run::{
    ContextTrace, FailureSignal, Ladder, NodeTry, NodeView, RunDetail, RunError, RunOutput,
    RunSummary,
};

use crate::attempts::{dollars, first_line, review_json};

fn error_json(error: Option<&RunError>) -> Value {
    error.map_or(Value::Null, |e| {
        json!({
            "code": serde_json::to_value(e.code).unwrap_or(Value::Null),
            "message": e.message,
        })
    })
}

/// A cascade's failure signal: `{kind, …its details}`.
fn signal_json(signal: Option<&FailureSignal>) -> Value {
    let Some(signal) = signal else {
        return Value::Null;
    };
    match signal {
        FailureSignal::VerificationFailed { detail } => {
            json!({"kind": "verification_failed", "detail": detail})
        }
        FailureSignal::GateFailed { gate, detail } => {
            json!({"kind": "gate_failed", "gate": gate, "detail": detail})
        }
        FailureSignal::SchemaFailed { detail } => {
            json!({"kind": "schema_failed", "detail": detail})
        }
        FailureSignal::ProviderFailed { code, message } => json!({
            "kind": "provider_failed",
            "code": serde_json::to_value(code).unwrap_or(Value::Null),
            "message": message,
        }),
        FailureSignal::JudgeBelow { score, threshold } => {
            json!({"kind": "judge_below", "score": score, "threshold": threshold})
        }
    }
}

/// One try of a node (a model call, or a code node's attempt).
fn try_json(t: &NodeTry) -> Value {
    json!({
        "id": t.id,
        "n": t.n,
        "purpose": t.purpose.as_str(),
        "model": t.model,
        "worker": t.worker,
        "status": t.state.as_str(),
        "rung": t.rung,
        "cost_usd": t.cost_usd,
        "reserved_usd": t.reserved_usd,
        "tokens": t.tokens,
        "tokens_in": t.tokens_in,
        "tokens_out": t.tokens_out,
        "started_ms": t.started_ms,
        "finished_ms": t.finished_ms,
        "error": t.error,
        "signal": signal_json(t.signal.as_ref()),
        "attempt": t.attempt_id,
    })
}

fn trace_json(trace: &ContextTrace) -> Value {
    Value::Array(
        trace
            .items
            .iter()
            .map(|i| {
                json!({
                    "source": i.source,
                    "chars": i.chars,
                    "total_chars": i.total_chars,
                    "truncated": i.truncated,
                    "heading": i.heading,
                })
            })
            .collect(),
    )
}

fn node_json(n: &NodeView) -> Value {
    json!({
        "id": n.id,
        "task": n.task,
        "kind": n.kind.as_str(),
        "role": n.role.as_str(),
        "status": n.state.as_str(),
        "model": n.model,
        "worker": n.worker,
        "depends_on": n.depends_on,
        "cost_usd": n.cost_usd,
        "tokens": n.tokens_in.saturating_add(n.tokens_out),
        "tokens_in": n.tokens_in,
        "tokens_out": n.tokens_out,
        "rung": n.rung,
        "started_ms": n.started_ms,
        "finished_ms": n.finished_ms,
        "output_chars": n.output_chars,
        "rating": n.rating,
        "used_inputs": n.used_inputs,
        "error": error_json(n.error.as_ref()),
        "trace": trace_json(&n.trace),
        "attempts": n.attempts.iter().map(try_json).collect::<Vec<_>>(),
    })
}

fn ladder_json(ladder: Option<&Ladder>) -> Value {
    ladder.map_or(Value::Null, |l| {
        Value::Array(
            l.rungs
                .iter()
                .map(|r| json!({"tier": r.tier.id(), "model": r.model}))
                .collect(),
        )
    })
}

/// The run JSON `run`, `runs show`, `runs cancel` and `runs recover` print. A run whose
/// result is one code attempt also carries that attempt's `diff`, `gates` and
/// `verification` (and `attempt`, its id) at the top level, as `run --worker` prints them.
pub fn run_json(detail: &RunDetail, attempt: Option<&AttemptReview>) -> Value {
    let s = &detail.summary;
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    put("run", json!(s.id));
    put("kind", json!("run"));
    put("mode", json!(s.mode.as_str()));
    put("status", json!(s.state.as_str()));
    put("reason", json!(s.reason.map(|r| r.as_str())));
    put("launcher", json!(s.launcher));
    put("task", json!(s.task));
    put("cost_usd", json!(s.cost_usd));
    put("max_usd", json!(s.max_usd));
    put("reserved_usd", json!(detail.reserved_usd));
    put("savings_usd", json!(s.savings_usd));
    put("baseline_model", json!(detail.baseline_model));
    put("baseline_usd", json!(detail.baseline_usd));
    put("static_usd", json!(detail.static_usd));
    put("repo", json!(detail.repo));
    put("created_ms", json!(s.created_ms));
    put("started_ms", json!(detail.started_ms));
    put("finished_ms", json!(s.finished_ms));
    put("nodes_done", json!(s.nodes_done));
    put("error", error_json(detail.error.as_ref()));
    put("ladder", ladder_json(detail.ladder.as_ref()));
    put(
        "limits",
        json!({
            "max_parallel_nodes": detail.limits.max_parallel_nodes,
            "node_timeout_s": detail.limits.node_timeout_s,
            "code_node_timeout_s": detail.limits.code_node_timeout_s,
            "run_timeout_s": detail.limits.run_timeout_s,
            "max_usd": detail.limits.max_usd,
            "cli_reservation_usd": detail.limits.cli_reservation_usd,
            "max_output_tokens": detail.limits.max_output_tokens,
        }),
    );
    put(
        "nodes",
        Value::Array(detail.nodes.iter().map(node_json).collect()),
    );
    if let Some(review) = attempt {
        let review = review_json(review);
        put("attempt", review["run"].clone());
        for key in [
            "worker",
            "diff",
            "gates",
            "verification",
            "usage",
            "can_approve",
            "approve_blocked",
        ] {
            put(key, review[key].clone());
        }
    }
    Value::Object(out)
}

/// One run as `runs list` prints it.
pub fn run_row_json(s: &RunSummary) -> Value {
    json!({
        "kind": "run",
        "run": s.id,
        "id": s.id,
        "mode": s.mode.as_str(),
        "status": s.state.as_str(),
        "reason": s.reason.map(|r| r.as_str()),
        "launcher": s.launcher,
        "task": s.task,
        "cost_usd": s.cost_usd,
        "max_usd": s.max_usd,
        "savings_usd": s.savings_usd,
        "created_ms": s.created_ms,
        "finished_ms": s.finished_ms,
        "nodes": s.nodes,
        "nodes_done": s.nodes_done,
    })
}

/// A standalone attempt as `runs list` prints it: every field it always had, plus `kind`
/// and `mode`.
pub fn attempt_row_json(s: &AttemptSummary) -> Value {
    let mut row = crate::attempts::summary_json(s);
    if let Value::Object(map) = &mut row {
        map.insert("kind".into(), json!("attempt"));
        map.insert("id".into(), json!(s.id));
        map.insert("mode".into(), json!("single"));
    }
    row
}

/// `runs output --json`.
pub fn output_json(output: &RunOutput, node: Option<&str>) -> Value {
    json!({
        "run": output.run_id,
        "node": node,
        "text": output.text,
        "nodes": output.nodes.iter().map(|n| json!({
            "id": n.node_id,
            "status": n.state.as_str(),
            "text": n.text,
            "complete": n.complete,
            "sha256": n.sha256,
        })).collect::<Vec<_>>(),
    })
}

fn totals_json(totals: &[SpendTotal], key: &str) -> Value {
    Value::Array(
        totals
            .iter()
            .map(|t| {
                let mut row = Map::new();
                row.insert(key.to_owned(), json!(t.key));
                row.insert("runs".into(), json!(t.runs));
                row.insert("cost_usd".into(), json!(t.cost_usd));
                row.insert("savings_usd".into(), json!(t.savings_usd));
                Value::Object(row)
            })
            .collect(),
    )
}

/// `runs spend --json`.
pub fn spend_json(report: &SpendReport, since_ms: Option<i64>) -> Value {
    json!({
        "since_ms": since_ms,
        "runs": report.runs,
        "cost_usd": report.cost_usd,
        "savings_usd": report.savings_usd,
        "by_model": totals_json(&report.by_model, "model"),
        "by_mode": totals_json(&report.by_mode, "mode"),
        "by_day": totals_json(&report.by_day, "day"),
    })
}

/// The run for people.
pub fn describe_run(detail: &RunDetail, attempt: Option<&AttemptReview>) -> String {
    let s = &detail.summary;
    let reason = s
        .reason
        .map(|r| format!(" ({})", r.as_str()))
        .unwrap_or_default();
    let mut out = format!(
        "run {} — {}{reason}, {} by {}\n",
        s.id,
        s.state.as_str(),
        s.mode.as_str(),
        s.launcher
    );
    out.push_str(&format!("task: {}\n", first_line(&s.task)));
    let savings = match (s.savings_usd, &detail.baseline_model) {
        (Some(saved), Some(model)) => format!("; saved {} against {model}", dollars(saved)),
        _ => String::new(),
    };
    out.push_str(&format!(
        "cost: {} of {} cap{savings}\n",
        dollars(s.cost_usd),
        dollars(s.max_usd)
    ));
    for n in &detail.nodes {
        let who = n.model.as_deref().or(n.worker.as_deref()).unwrap_or("-");
        let after = if n.depends_on.is_empty() {
            String::new()
        } else {
            format!(" after {}", n.depends_on.join(", "))
        };
        out.push_str(&format!(
            "  {:<10} {:<11} {who}  {}{after}\n",
            n.id,
            n.state.as_str(),
            dollars(n.cost_usd)
        ));
        for t in &n.attempts {
            let rung = t.rung.map(|r| format!("rung {r} ")).unwrap_or_default();
            let note = t
                .signal
                .as_ref()
                .map(FailureSignal::describe)
                .or_else(|| t.error.clone())
                .map(|n| format!(" — {}", first_line(&n)))
                .unwrap_or_default();
            out.push_str(&format!(
                "      {rung}{} {} {} ({} in, {} out){note}\n",
                t.model,
                t.state.as_str(),
                dollars(t.cost_usd),
                t.tokens_in,
                t.tokens_out
            ));
        }
        if let Some(error) = &n.error {
            out.push_str(&format!("      error: {}\n", first_line(&error.message)));
        }
    }
    if let Some(error) = &detail.error {
        out.push_str(&format!("error: {}\n", error.message));
    }
    if let Some(review) = attempt {
        out.push_str(&format!(
            "attempt {} (see `switchyard review {}`): gates {}\n",
            review.summary.id,
            review.summary.id,
            if review.gates.iter().all(|g| g.passed) {
                "passed"
            } else {
                "FAILED"
            }
        ));
    }
    out.trim_end().to_owned()
}

/// One `runs list` line for people.
pub fn run_line(s: &RunSummary) -> String {
    format!(
        "{}  {:<11} {:<10} {:<12} {}",
        s.id,
        s.state.as_str(),
        s.mode.as_str(),
        s.launcher,
        first_line(&s.task)
    )
}
