import { PlanView } from "../route/PlanView";
import { formatCost, formatElapsed, modeTitle } from "./format";
import type { LaunchEdits } from "./launch";
import { ModelListEditor } from "./ModelListEditor";
import { RunGraph } from "./RunGraph";
import type { Plan, PlanIssue, RunPreview } from "./types";

const TIER_LABEL: Record<string, string> = {
  low: "budget",
  medium: "standard",
  high: "premium",
  any: "any price",
};

interface Props {
  preview: RunPreview;
  edits: LaunchEdits;
  /** The plan's problems (plan and swarm runs), from the engine's revalidation. */
  issues: PlanIssue[];
  /** The plan being edited when it does not validate yet (the preview shows the last good one). */
  draftPlan: Plan | null;
  code: boolean;
  known: readonly string[];
  busy: boolean;
  error: string | null;
  onEdit: (edits: LaunchEdits) => void;
  onReset: () => void;
  launch: {
    allowed: boolean;
    busy: boolean;
    error: string | null;
    /** It stops after planning (a pause point). */
    pauses: boolean;
    onLaunch: () => void;
  };
}

/** What the launch will run, editable: models, members, the ladder, or the plan's steps. */
export function PreviewCard({
  preview,
  edits,
  issues,
  draftPlan,
  code,
  known,
  busy,
  error,
  onEdit,
  onReset,
  launch,
}: Props) {
  const limits = preview.limits;
  const members = edits.models ?? [];
  const plan = draftPlan ?? edits.plan ?? preview.plan;
  // The plan editor lists the plan's own warnings; the rest are the run engine's.
  const warnings = preview.warnings.filter((w) => !(plan?.warnings ?? []).includes(w));
  return (
    <div
      className="card run-preview"
      id="run-preview-card"
      data-mode={preview.mode}
      data-busy={busy}
    >
      <div className="card-title-row">
        <h2>Preview: {modeTitle(preview.mode).toLowerCase()} run</h2>
        <span className="muted small">
          {preview.nodes.length} node{preview.nodes.length === 1 ? "" : "s"}
        </span>
        <span className="grow" />
        {busy && <span className="muted small">Checking…</span>}
        <button type="button" className="ghost" id="run-preview-reset" onClick={onReset}>
          Let routing choose again
        </button>
      </div>

      <dl className="facts preview-facts">
        <dt>Worst case</dt>
        <dd id="run-worst-case">
          {preview.worstCaseUsd == null
            ? "unknown (a model has no known price)"
            : `${formatCost(preview.worstCaseUsd)} if every call used its whole output cap`}
        </dd>
        <dt>USD cap</dt>
        <dd id="run-cap">
          {formatCost(limits.maxUsd)} — a call whose worst case does not fit is not made
        </dd>
        <dt>Limits</dt>
        <dd>
          {limits.maxParallelNodes} node{limits.maxParallelNodes === 1 ? "" : "s"} at once ·{" "}
          {formatElapsed((code ? limits.codeNodeTimeoutS : limits.nodeTimeoutS) * 1000)} per node ·{" "}
          {formatElapsed(limits.runTimeoutS * 1000)} per run
        </dd>
        <dt>Savings against</dt>
        <dd className="mono" id="run-baseline">
          {preview.baselineModel ?? "no priced baseline"}
        </dd>
      </dl>

      {warnings.length > 0 && (
        <ul className="plan-warnings" id="run-preview-warnings">
          {warnings.map((w) => (
            <li key={w} className="warning">
              {w}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="error" id="run-preview-error">
          {error}
        </p>
      )}

      {preview.mode === "cascade" && (
        <>
          <h3>Ladder</h3>
          <p className="muted small">
            The first rung answers; the next is tried only on a real failure (the provider failed
            after its retries, {code ? "verification or a gate failed" : "the judge scored it low"}
            ), never because of the answer's length.
          </p>
          <ModelListEditor
            kind="rung"
            models={edits.ladder ?? []}
            labels={preview.ladder?.rungs.map((r) => TIER_LABEL[r.tier] ?? r.tier)}
            min={1}
            max={6}
            known={known}
            placeholder={code ? "model id or worker (claude, codex…)" : "provider:model"}
            onChange={(ladder) => onEdit({ ...edits, ladder })}
          />
        </>
      )}
      {preview.mode === "collective" && (
        <>
          <h3>Members</h3>
          <p className="muted small">
            {code
              ? "Each member works in its own worktree; their attempts open side by side in Review."
              : "Each member answers on its own; the merge node combines them and says which it used."}
          </p>
          <ModelListEditor
            kind="member"
            models={members}
            min={2}
            max={code ? 5 : 6}
            known={known}
            placeholder={code ? "model id or worker" : "provider:model"}
            onChange={(models) => onEdit({ ...edits, models })}
          />
        </>
      )}
      {preview.mode === "single" && (
        <>
          <h3>{code ? "Worker" : "Model"}</h3>
          <ModelListEditor
            kind="member"
            models={members}
            min={1}
            max={1}
            known={known}
            placeholder={code ? "model id or worker" : "provider:model"}
            onChange={(models) => onEdit({ ...edits, models })}
          />
        </>
      )}
      {(preview.mode === "plan" || preview.mode === "swarm") && plan && (
        <PlanView
          plan={plan}
          issues={issues}
          knownModels={[...known]}
          onEdit={(next) => onEdit({ ...edits, plan: next })}
          rechecking={busy}
          editError={null}
        />
      )}

      {preview.mode !== "plan" && preview.mode !== "swarm" && (
        <RunGraph
          id="run-preview-graph"
          selected={null}
          items={preview.nodes.map((n, i) => ({
            id: n.id,
            dependsOn: n.dependsOn,
            column: preview.columns[i] ?? 0,
            task: n.role === "merge" && n.kind === "text" ? "Merge the members' answers" : n.task,
            who: n.worker ?? n.model,
            state: null,
          }))}
        />
      )}
      <div className="form-actions launch-actions">
        <button
          type="button"
          className="primary"
          id="run-launch"
          disabled={!launch.allowed}
          onClick={launch.onLaunch}
        >
          {launch.busy ? "Launching…" : launch.pauses ? "Launch (paused after planning)" : "Launch"}
        </button>
        <span className="muted small">
          Runs exactly this, under the {formatCost(limits.maxUsd)} cap.
        </span>
      </div>
      {launch.error && (
        <p className="error" id="run-launch-error" role="alert">
          {launch.error}
        </p>
      )}
    </div>
  );
}
