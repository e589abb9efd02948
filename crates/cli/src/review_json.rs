//! The attempt JSON the CLI prints (`run`, `review`, `runs list` and the other attempt verbs):
//! a contract scripts and benches depend on, built field by field in snake_case (the engine's
//! own types are camelCase for the UI).

use serde_json::{json, Map, Value};
use switchyard_core::attempt::{file_status_name, AttemptReview, AttemptSummary};
use switchyard_core::confinement::ConfinementReport;
use switchyard_core::review::diff::CapturedDiff;
use switchyard_core::review::gates::{GateName, GateResult};
use switchyard_core::verify::VerificationRecord;
use switchyard_core::worker::Usage;

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The gate's name as the CLI prints it.
pub fn gate_name(name: GateName) -> &'static str {
    match name {
        GateName::LockedPaths => "locked_paths",
        GateName::Escape => "escape",
        GateName::Secrets => "secrets",
        GateName::Size => "size",
        GateName::Repository => "repository",
        GateName::Verification => "verification",
    }
}

fn gate_json(gate: &GateResult) -> Value {
    json!({
        "name": gate_name(gate.name),
        "passed": gate.passed,
        "detail": gate.detail,
        "evidence": gate.evidence.iter().map(|f| json!({
            "path": f.path,
            "line": f.line,
            "rule": f.rule,
            "message": f.message,
        })).collect::<Vec<_>>(),
    })
}

fn usage_json(usage: &Usage) -> Value {
    json!({
        "input": usage.input,
        "output": usage.output,
        "cached": usage.cached,
        "cost_usd": usage.cost_usd,
        "estimated": usage.estimated,
    })
}

/// Switchyard's verification in one object: the first failing command decides the exit code
/// and the log tail (the last command when all passed).
fn verification_json(record: &VerificationRecord) -> Value {
    let deciding = record.first_failure().or(record.commands.last());
    let summary = if record.commands.is_empty() {
        "no verification commands".to_owned()
    } else {
        let counts: Vec<String> = record.commands.iter().filter_map(|c| c.summary()).collect();
        if !counts.is_empty() {
            counts.join("; ")
        } else {
            let passed = record.commands.iter().filter(|c| c.passed).count();
            format!("{passed} of {} commands passed", record.commands.len())
        }
    };
    json!({
        "passed": record.passed,
        "exit_code": deciding.and_then(|c| c.exit_code),
        "duration_ms": record.duration_ms,
        "summary": summary,
        "log_tail": deciding.map(|c| c.log_tail.as_str()).unwrap_or(""),
        "commands": record.commands.iter().map(|c| json!({
            "command": c.command,
            "passed": c.passed,
            "exit_code": c.exit_code,
            "signal": c.signal,
            "duration_ms": c.duration_ms,
            "summary": c.summary(),
            "log_sha256": c.log_sha256,
            "log_bytes": c.log_bytes,
            "error": c.error,
            "refused_writes": c.refused_writes,
        })).collect::<Vec<_>>(),
    })
}

fn error_json(summary: &AttemptSummary) -> Value {
    summary.error.as_ref().map_or(Value::Null, |e| {
        json!({
            "code": serde_json::to_value(e.code).unwrap_or(Value::Null),
            "message": e.message,
        })
    })
}

/// One attempt as `runs list` prints it.
pub fn summary_json(s: &AttemptSummary) -> Value {
    json!({
        "run": s.id,
        "status": s.state.as_str(),
        "worker": s.worker,
        "worker_version": s.worker_version,
        "task": s.task,
        "repo": s.repo,
        "base": s.base,
        "target_branch": s.target_branch,
        "parent": s.parent,
        "compare": s.compare,
        "launcher": s.launcher,
        "created_ms": s.created_ms,
        "updated_ms": s.updated_ms,
        "elapsed_ms": s.elapsed_ms,
        "files_changed": s.files_changed,
        "additions": s.additions,
        "deletions": s.deletions,
        "gates_passed": s.gates_passed,
        "cost_usd": s.cost_usd,
        "error": error_json(s),
        "confinement": s.confinement.map(|m| m.as_str()),
    })
}

/// A captured diff: each file with its status and counts, the totals and the hash.
fn diff_json(diff: &CapturedDiff) -> Value {
    json!({
        "files": diff.files.iter().map(|f| json!({
            "path": f.path,
            "status": file_status_name(f.status),
            "additions": f.additions,
            "deletions": f.deletions,
            "old_path": f.old_path,
            "binary": f.is_binary,
            "symlink": f.is_symlink,
            "content_omitted": f.content_omitted,
        })).collect::<Vec<_>>(),
        "additions": diff.additions,
        "deletions": diff.deletions,
        "sha256": diff.sha256,
        "base": diff.base,
        "patch_bytes": diff.patch_bytes,
    })
}

/// How the worker was confined: `{mode: "bwrap"|"landlock"|"none", network:
/// "provider-only"|"none"|"open", denied: [...]}` plus what it could reach and write.
pub fn confinement_json(report: &ConfinementReport) -> Value {
    json!({
        "mode": report.mode.as_str(),
        "network": report.network.as_str(),
        "allowed": report.allowed,
        "writable": report.writable,
        "denied": report.denied.iter().map(|d| json!({
            "kind": serde_json::to_value(d.kind).unwrap_or(Value::Null),
            "source": serde_json::to_value(d.source).unwrap_or(Value::Null),
            "target": d.target,
            "detail": d.detail,
        })).collect::<Vec<_>>(),
        "denied_more": report.denied_more,
    })
}

/// The review JSON `run`, `review` and the other verbs print.
pub fn review_json(review: &AttemptReview) -> Value {
    let s = &review.summary;
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    put("run", json!(s.id));
    put("status", json!(s.state.as_str()));
    put("worker", json!(s.worker));
    put("diff", review.diff.as_ref().map_or(Value::Null, diff_json));
    // A revision's change against the attempt it revises (`base` is that attempt's tree).
    put(
        "previous",
        review.previous.as_ref().map_or(Value::Null, diff_json),
    );
    put(
        "gates",
        Value::Array(review.gates.iter().map(gate_json).collect()),
    );
    put(
        "verification",
        review
            .verification
            .as_ref()
            .map_or(Value::Null, verification_json),
    );
    // The worker's own review, as the app shows it (the Rust view type, camelCase fields).
    put(
        "self_review",
        review
            .self_review
            .as_ref()
            .and_then(|r| serde_json::to_value(r).ok())
            .unwrap_or(Value::Null),
    );
    put(
        "usage",
        review.usage.as_ref().map_or(Value::Null, usage_json),
    );
    put(
        "cost_usd",
        json!(s.cost_usd.or(review.usage.and_then(|u| u.cost_usd))),
    );
    put("error", error_json(s));
    put(
        "confinement",
        review
            .confinement
            .as_ref()
            .map_or(Value::Null, confinement_json),
    );
    put("worker_version", json!(s.worker_version));
    put("task", json!(s.task));
    put("repo", json!(s.repo));
    put("base", json!(s.base));
    put("target_branch", json!(s.target_branch));
    put("parent", json!(s.parent));
    put("compare", json!(s.compare));
    put("created_ms", json!(s.created_ms));
    put("elapsed_ms", json!(s.elapsed_ms));
    put("can_approve", json!(review.can_approve));
    put("approve_blocked", json!(review.approve_blocked));
    put("verify_commands", json!(review.verify_commands));
    put(
        "decision",
        review.decision.as_ref().map_or(Value::Null, decision_json),
    );
    put(
        "integration",
        review.integration.as_ref().map_or(Value::Null, |i| {
            json!({
                "branch": i.branch,
                "old": i.old,
                "new": i.new,
                "fast_forward": i.fast_forward,
            })
        }),
    );
    Value::Object(out)
}

fn decision_json(decision: &switchyard_core::attempt::ReviewDecision) -> Value {
    use switchyard_core::attempt::ReviewDecision;
    match decision {
        ReviewDecision::Approved { message, commit } => {
            json!({"kind": "approved", "message": message, "commit": commit})
        }
        ReviewDecision::Rejected { reason } => json!({"kind": "rejected", "reason": reason}),
        ReviewDecision::ChangesRequested {
            comment,
            lines,
            next_attempt,
        } => json!({
            "kind": "changes_requested",
            "comment": comment,
            "lines": lines.iter().map(|l| json!({"path": l.path, "line": l.line, "text": l.text}))
                .collect::<Vec<_>>(),
            "next_attempt": next_attempt,
        }),
    }
}
