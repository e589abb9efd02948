// The launch form's input as the engine's run request, and what the preview's choices become
// once the user has seen them. Pure: the engine resolves, validates and prices the request.
import { lines } from "../review/workers";
import type { BudgetTier, Plan, RunMode, RunOptions, RunPreview } from "./types";

/** What the user typed and picked, as text (numbers are parsed when the request is built). */
export interface LaunchInput {
  task: string;
  mode: RunMode;
  budget: BudgetTier;
  /** The hard USD cap; empty: the Settings default. */
  maxUsd: string;
  maxParallelNodes: string;
  nodeTimeoutS: string;
  runTimeoutS: string;
  preset: string;
  /** A repository folder makes the run's nodes code nodes. */
  repo: string;
  /** Verification commands, one per line. */
  verify: string;
  /** Code nodes' worker; empty: the model worker with each node's model. */
  worker: string;
  /** Collective: how many members routing recommends. */
  members: string;
  /** Plan / swarm: the model of steps the plan gives none. */
  stepModel: string;
  /** Cascade (text): a judge whose score below the threshold escalates. */
  judgeModel: string;
  judgeThreshold: string;
  pauseAfterPlan: boolean;
  pauseBeforeIntegration: boolean;
  /** Code runs: workers and verification may reach the network (otherwise an `exec:` worker
   * and verification have none, and an agent CLI reaches only its provider). */
  allowNetwork: boolean;
  /** Code runs: each attempt's model re-reads its verified change. */
  selfReview: boolean;
  /** Text runs: a JSON Schema the result must match; empty: none. */
  schema: string;
}

export const EMPTY_LAUNCH: LaunchInput = {
  task: "",
  mode: "cascade",
  budget: "medium",
  maxUsd: "",
  maxParallelNodes: "",
  nodeTimeoutS: "",
  runTimeoutS: "",
  preset: "",
  repo: "",
  verify: "",
  worker: "",
  members: "",
  stepModel: "",
  judgeModel: "",
  judgeThreshold: "7",
  pauseAfterPlan: false,
  pauseBeforeIntegration: false,
  allowNetwork: false,
  selfReview: false,
  schema: "",
};

/** The preview's choices the user edits; sent back so what launches is what was shown. */
export interface LaunchEdits {
  /** Single: the model. Collective: the members (models, or workers for code). */
  models?: string[];
  /** Cascade: the rungs' models (or workers for code), cheapest first. */
  ladder?: string[];
  /** Plan / swarm: the edited plan. */
  plan?: Plan;
}

/** The run is a code run (its nodes work in worktrees of the repository). */
export function isCode(input: LaunchInput): boolean {
  return input.repo.trim() !== "";
}

const WHOLE = /^[1-9][0-9]*$/;

function whole(text: string): number | null {
  return WHOLE.test(text.trim()) ? Number(text.trim()) : null;
}

function dollars(text: string): number | null {
  const t = text.trim().replace(/^\$/, "");
  if (t === "" || !/^[0-9]*\.?[0-9]+$/.test(t)) return null;
  return Number(t);
}

/** Why the form cannot be previewed or launched yet, or `null`. */
export function launchProblem(input: LaunchInput): string | null {
  if (input.task.trim() === "") return "Describe the task.";
  if (input.maxUsd.trim() !== "" && dollars(input.maxUsd) === null) {
    return "The USD cap is a number of dollars, e.g. 0.50.";
  }
  for (const [text, what] of [
    [input.maxParallelNodes, "Max parallel nodes"],
    [input.nodeTimeoutS, "The node timeout"],
    [input.runTimeoutS, "The run timeout"],
    [input.members, "The number of members"],
  ] as const) {
    if (text.trim() !== "" && whole(text) === null) return `${what} is a whole number.`;
  }
  if (input.mode === "cascade" && !isCode(input) && input.judgeModel.trim() !== "") {
    const threshold = whole(input.judgeThreshold);
    if (threshold === null || threshold > 10) return "The judge's threshold is 1–10.";
  }
  return null;
}

/**
 * The launch options for `input` with the preview's (edited) choices: what the form shows
 * for the chosen mode and kind of run. The engine checks them and turns them into its request
 * the way it does the CLI's flags (`RunOptions::request`: which limit a node timeout sets,
 * which options need a repository or a mode).
 */
export function launchOptions(input: LaunchInput, edits: LaunchEdits = {}): RunOptions {
  const code = isCode(input);
  const judge =
    input.mode === "cascade" && !code && input.judgeModel.trim() !== ""
      ? { model: input.judgeModel.trim(), threshold: whole(input.judgeThreshold) ?? 7 }
      : null;
  const verify = lines(input.verify);
  return {
    task: input.task.trim(),
    mode: input.mode,
    budget: input.budget,
    maxUsd: dollars(input.maxUsd),
    maxParallelNodes: whole(input.maxParallelNodes),
    nodeTimeoutS: whole(input.nodeTimeoutS),
    runTimeoutS: whole(input.runTimeoutS),
    preset: input.preset.trim() === "" ? null : input.preset.trim(),
    repo: code ? input.repo.trim() : null,
    verify: code && verify.length > 0 ? verify : null,
    worker: code && input.worker.trim() !== "" ? input.worker.trim() : null,
    models: requestModels(input, edits),
    ladder: input.mode === "cascade" && edits.ladder ? edits.ladder.map((m) => m.trim()) : [],
    plan: (input.mode === "plan" || input.mode === "swarm") && edits.plan ? edits.plan : null,
    judge,
    members: input.mode === "collective" ? whole(input.members) : null,
    pauseAfterPlan: input.pauseAfterPlan,
    pauseBeforeIntegration: code && input.pauseBeforeIntegration,
    allowNetwork: code && input.allowNetwork === true,
    selfReview: code && input.selfReview === true,
    schema: !code && input.schema.trim() !== "" ? input.schema.trim() : null,
  };
}

function requestModels(input: LaunchInput, edits: LaunchEdits): string[] {
  if (input.mode === "plan" || input.mode === "swarm") {
    return input.stepModel.trim() === "" ? [] : [input.stepModel.trim()];
  }
  if (edits.models && (input.mode === "single" || input.mode === "collective")) {
    return edits.models.map((m) => m.trim()).filter(Boolean);
  }
  return [];
}

/**
 * The choices a preview made, as edits: the models (or workers) routing picked for single
 * and collective runs, the ladder of a cascade, the plan of a plan or swarm. Launching with
 * them runs exactly what the preview showed.
 */
export function editsFromPreview(preview: RunPreview): LaunchEdits {
  switch (preview.mode) {
    case "single":
    case "collective": {
      const members = preview.nodes.filter((n) => n.role !== "merge");
      return {
        models: members
          .map((n) => (n.kind === "code" ? (n.worker ?? n.model) : n.model))
          .filter((m): m is string => m !== null),
      };
    }
    case "cascade":
      return { ladder: preview.ladder?.rungs.map((r) => r.model) ?? [] };
    case "plan":
    case "swarm":
      return preview.plan ? { plan: preview.plan } : {};
  }
}

/** Edits to a list of models (members or rungs): set one, add one, remove one, move one. */
export function setAt(list: readonly string[], index: number, value: string): string[] {
  return list.map((v, i) => (i === index ? value : v));
}

export function removeAt(list: readonly string[], index: number): string[] {
  return list.filter((_, i) => i !== index);
}

/** Moves item `index` one place up (`-1`) or down (`1`); out of range changes nothing. */
export function move(list: readonly string[], index: number, by: -1 | 1): string[] {
  const to = index + by;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return [...list];
  const next = [...list];
  const [item] = next.splice(index, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}
