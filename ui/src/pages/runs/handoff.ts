// A launch prepared elsewhere (the Route page's Launch button) waiting for the Runs page's
// launch form to open. Kept in memory: it lives only until the form takes it.
import type { BudgetTier, Plan, RunMode } from "./types";

export interface LaunchPrefill {
  task: string;
  mode: RunMode;
  budget: BudgetTier;
  /** A plan or swarm to launch as it is (the user may still edit it in the preview). */
  plan: Plan | null;
}

let pending: LaunchPrefill | null = null;

/** Leaves `prefill` for the launch form and opens it. */
export function openLaunchForm(prefill: LaunchPrefill) {
  pending = prefill;
  window.location.hash = "#/runs/new";
}

/**
 * The prepared launch, if any. Read while the form's first render builds its state (so that
 * render already shows it, and React may call the initializer twice); the form then calls
 * `clearLaunchPrefill` once it has taken it.
 */
export function peekLaunchPrefill(): LaunchPrefill | null {
  return pending;
}

/** Forgets `taken` once the form holds it: reopening the form later starts from what was kept. */
export function clearLaunchPrefill(taken: LaunchPrefill | null) {
  if (taken !== null && pending === taken) pending = null;
}
