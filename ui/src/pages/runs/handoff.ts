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

/** The prepared launch, once: a second call returns `null`. */
export function takeLaunchPrefill(): LaunchPrefill | null {
  const taken = pending;
  pending = null;
  return taken;
}
