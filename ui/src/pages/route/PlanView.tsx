import { type ReactNode, useState } from "react";
import { categoryLabel, describeBudget } from "./format";
import { PlanGraph } from "./PlanGraph";
import { addStep, editTask, reassignModel, removeStep, stepsOf, toggleDependency } from "./plan";
import { useBudgetTiers } from "./tiers";
import type { Plan, PlanIssue } from "./types";

interface Props {
  plan: Plan;
  issues: PlanIssue[];
  /** Model ids the page has seen (pick, runners-up, recommendations), for the model field. */
  knownModels: string[];
  /** Applies an edit: the page revalidates and sets the recomputed plan. */
  onEdit: (next: Plan) => void;
  rechecking: boolean;
  editError: string | null;
  /** What goes under the plan (the Route page's Launch); told how many errors remain. */
  footer?: (errors: number) => ReactNode;
}

/** The plan or swarm as a graph, its warnings, and the editor for one step. */
export function PlanView({
  plan,
  issues,
  knownModels,
  onEdit,
  rechecking,
  editError,
  footer,
}: Props) {
  const steps = stepsOf(plan);
  const tiers = useBudgetTiers();
  const [selected, setSelected] = useState<string | null>(null);
  const [newTask, setNewTask] = useState("");
  const current = steps.find((s) => s.id === selected) ?? null;
  const errors = issues.filter((i) => i.severity === "error");
  const warnings = [
    ...plan.warnings.map((message) => ({ message, severity: "warning" as const })),
    ...issues
      .filter((i) => !plan.warnings.includes(i.message))
      .map((i) => ({ message: i.message, severity: i.severity })),
  ];
  const waves = new Set(steps.map((s) => s.wave).filter((w) => w !== null)).size;

  return (
    <div
      className="card plan-card"
      id="route-plan-card"
      data-mode={plan.mode}
      data-task={plan.task}
    >
      <div className="card-title-row">
        <h2>{plan.mode === "plan" ? "Plan" : "Swarm"}</h2>
        <span className="muted small">
          {steps.length} step{steps.length === 1 ? "" : "s"} · {plan.edges.length} dependenc
          {plan.edges.length === 1 ? "y" : "ies"} · {waves} wave{waves === 1 ? "" : "s"}
          {plan.origin === "model" ? " · proposed by a model" : " · rule-based"}
        </span>
        <span className="grow" />
        {rechecking && <span className="muted small">Rechecking…</span>}
      </div>
      {plan.mode === "swarm" && (
        <p className="muted small">
          Steps in one wave run in parallel; each waits only for the arrows pointing into it.
        </p>
      )}

      {warnings.length > 0 && (
        <ul className="plan-warnings" id="route-plan-warnings">
          {warnings.map((w) => (
            <li key={w.message} className={w.severity}>
              {w.message}
            </li>
          ))}
        </ul>
      )}
      {editError && <p className="error small">{editError}</p>}

      {steps.length === 0 ? (
        <p className="muted">No steps. Add one below.</p>
      ) : (
        <PlanGraph
          steps={steps}
          edges={plan.edges}
          issues={issues}
          selected={selected}
          onSelect={(id) => setSelected(id === selected ? null : id)}
        />
      )}

      {current ? (
        <div className="step-editor" id="route-step-editor" data-step={current.id}>
          <div className="card-title-row">
            <h3>
              Step <span className="mono">{current.id}</span>
            </h3>
            <span className="pill category">{categoryLabel(current.category)}</span>
            <span className="muted small">{describeBudget(current.budget, tiers)}</span>
            <span className="grow" />
            <button
              type="button"
              className="danger-ghost"
              id="route-step-remove"
              onClick={() => {
                setSelected(null);
                onEdit(removeStep(plan, current.id));
              }}
            >
              Remove step
            </button>
          </div>
          <label className="field-label" htmlFor="route-step-task">
            Task
          </label>
          <textarea
            id="route-step-task"
            rows={2}
            defaultValue={current.task}
            key={`${current.id}-task`}
            onBlur={(e) => {
              if (e.target.value.trim() !== "" && e.target.value !== current.task) {
                onEdit(editTask(plan, current.id, e.target.value));
              }
            }}
          />
          <label className="field-label" htmlFor="route-step-model">
            Model
          </label>
          <input
            id="route-step-model"
            className="mono"
            list="route-known-models"
            placeholder="catalog id, e.g. anthropic/claude-sonnet-4"
            defaultValue={current.model ?? ""}
            key={`${current.id}-model-${current.model ?? ""}`}
            onBlur={(e) => {
              if (e.target.value.trim() !== (current.model ?? "")) {
                onEdit(reassignModel(plan, current.id, e.target.value));
              }
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") e.currentTarget.blur();
            }}
          />
          <datalist id="route-known-models">
            {knownModels.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          {plan.mode === "swarm" ? (
            <fieldset className="deps">
              <legend className="field-label">Waits for</legend>
              {steps
                .filter((s) => s.id !== current.id)
                .map((s) => (
                  <label key={s.id} className="check">
                    <input
                      type="checkbox"
                      data-dep={s.id}
                      checked={current.dependsOn.includes(s.id)}
                      onChange={() => onEdit(toggleDependency(plan, current.id, s.id))}
                    />
                    <span className="mono">{s.id}</span>
                    <span className="muted dep-task">{s.task}</span>
                  </label>
                ))}
            </fieldset>
          ) : (
            <p className="muted small">A plan runs its steps in list order.</p>
          )}
          {current.notes.length > 0 && (
            <ul className="step-notes muted small">
              {current.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        steps.length > 0 && (
          <p className="muted small">Click a step to reassign its model, edit or remove it.</p>
        )
      )}

      <form
        className="add-step"
        onSubmit={(e) => {
          e.preventDefault();
          if (newTask.trim() === "") return;
          onEdit(addStep(plan, newTask, selected ? [selected] : []));
          setNewTask("");
        }}
      >
        <input
          id="route-add-step"
          placeholder={
            plan.mode === "swarm" && current
              ? `New step, waiting for ${current.id}`
              : "New step, e.g. Write the README"
          }
          value={newTask}
          onChange={(e) => setNewTask(e.target.value)}
        />
        <button type="submit" disabled={newTask.trim() === ""}>
          Add step
        </button>
      </form>

      {footer?.(errors.length)}
    </div>
  );
}
