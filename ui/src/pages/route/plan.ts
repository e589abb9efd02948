// Pure plan edits. Each returns a new plan; the engine's `revalidatePlan` then recomputes
// edges and waves, so these only touch what the user changed.
import type { Plan, PlanStep } from "./types";

/** The plan's steps (a swarm calls them nodes). */
export function stepsOf(plan: Plan): PlanStep[] {
  return plan.mode === "plan" ? plan.steps : plan.nodes;
}

/** `plan` with its steps replaced. */
export function withSteps(plan: Plan, steps: PlanStep[]): Plan {
  return plan.mode === "plan" ? { ...plan, steps } : { ...plan, nodes: steps };
}

function mapStep(plan: Plan, id: string, change: (step: PlanStep) => PlanStep): Plan {
  return withSteps(
    plan,
    stepsOf(plan).map((step) => (step.id === id ? change(step) : step)),
  );
}

/** Gives step `id` another model; an empty id clears it (the run engine may pick one). */
export function reassignModel(plan: Plan, id: string, model: string): Plan {
  const trimmed = model.trim();
  return mapStep(plan, id, (step) => ({ ...step, model: trimmed === "" ? null : trimmed }));
}

/** Changes what step `id` must do. */
export function editTask(plan: Plan, id: string, task: string): Plan {
  return mapStep(plan, id, (step) => ({ ...step, task }));
}

/** Removes step `id` and every dependency on it. */
export function removeStep(plan: Plan, id: string): Plan {
  return withSteps(
    plan,
    stepsOf(plan)
      .filter((step) => step.id !== id)
      .map((step) =>
        step.dependsOn.includes(id)
          ? { ...step, dependsOn: step.dependsOn.filter((d) => d !== id) }
          : step,
      ),
  );
}

/** The next free id in the plan's own style: `s<n>` for a plan, `n<n>` for a swarm. */
export function nextStepId(plan: Plan): string {
  const prefix = plan.mode === "plan" ? "s" : "n";
  const taken = new Set(stepsOf(plan).map((s) => s.id));
  let n = stepsOf(plan).length + 1;
  while (taken.has(`${prefix}${n}`)) n += 1;
  return `${prefix}${n}`;
}

/**
 * Appends a step. It copies the category and budget of the last step (the user edits what
 * matters), has no model yet and, in a swarm, depends on `dependsOn`.
 */
export function addStep(plan: Plan, task: string, dependsOn: string[] = []): Plan {
  const steps = stepsOf(plan);
  const last = steps[steps.length - 1];
  const step: PlanStep = {
    id: nextStepId(plan),
    task: task.trim(),
    category: last?.category ?? "general",
    budget: last?.budget ?? { tier: "medium", maxPricePerM: null },
    model: null,
    dependsOn: plan.mode === "plan" ? (last ? [last.id] : []) : dependsOn,
    wave: null,
    phase: null,
    artifacts: [],
    needs: last?.needs ?? {
      vision: false,
      longContext: null,
      tools: false,
      structuredOutput: false,
    },
    notes: ["added by hand"],
  };
  return withSteps(plan, [...steps, step]);
}

/** Makes step `id` wait (or stop waiting) for step `on`. */
export function toggleDependency(plan: Plan, id: string, on: string): Plan {
  if (id === on) return plan;
  return mapStep(plan, id, (step) => ({
    ...step,
    dependsOn: step.dependsOn.includes(on)
      ? step.dependsOn.filter((d) => d !== on)
      : [...step.dependsOn, on],
  }));
}
