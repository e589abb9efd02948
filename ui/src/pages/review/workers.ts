// The worker picker's choices: installed agent CLIs, catalog models for the built-in model
// worker, a model by id (a custom endpoint's models are not in the catalog) and a custom
// command (`exec:`).
import type { ModelSummary, ProviderStatus, WorkerCliStatus } from "../../ipc";
import { COMPARE_WORKERS } from "../../ipc";

/** The worker prefix of a custom command. */
export const EXEC_PREFIX = "exec:";
/** The worker prefix of the built-in model worker. */
export const MODEL_PREFIX = "model:";

export interface WorkerOption {
  /** What `AttemptRequest.worker` gets. */
  value: string;
  label: string;
  group: "cli" | "model";
  /** The CLI was not found (still listed, so the user sees why it is missing). */
  missing?: boolean;
  /** For a CLI: the catalog models it can be routed to, in its own naming, cheapest first. */
  models?: readonly string[];
}

/**
 * A CLI worker value split into the CLI and the model it is routed to (`claude:sonnet` →
 * `{cli: "claude", model: "sonnet"}`; `claude` → model `""`); `null` for other workers. The
 * CLIs are the picker's `cli` options (the engine's list).
 */
export function cliWorker(
  value: string,
  options: readonly WorkerOption[],
): { cli: string; model: string } | null {
  const at = value.indexOf(":");
  const cli = at < 0 ? value : value.slice(0, at);
  if (!options.some((o) => o.group === "cli" && o.value === cli)) return null;
  return { cli, model: at < 0 ? "" : value.slice(at + 1) };
}

/** The worker value of `cli` routed to `model` (the CLI's default when blank). */
export function withCliModel(cli: string, model: string): string {
  const trimmed = model.trim();
  return trimmed === "" ? cli : `${cli}:${trimmed}`;
}

/**
 * The engine's CLIs (installed first; missing ones after, disabled), then models cheapest
 * first.
 */
export function workerOptions(
  models: readonly ModelSummary[],
  clis: readonly WorkerCliStatus[],
): WorkerOption[] {
  const cli: WorkerOption[] = clis
    .map((status) => ({
      value: status.program,
      label: status.label,
      group: "cli" as const,
      missing: !status.installed,
      models: status.models,
    }))
    .sort((a, b) => Number(a.missing) - Number(b.missing));
  const model: WorkerOption[] = [...models]
    .sort(
      (a, b) =>
        (a.blendedPerM ?? Number.POSITIVE_INFINITY) - (b.blendedPerM ?? Number.POSITIVE_INFINITY),
    )
    .map((m) => ({
      value: `model:${m.id}`,
      label: m.label,
      group: "model" as const,
    }));
  return [...cli, ...model];
}

/**
 * How the picker shows a worker value: a custom command, a model typed by id, or one of the
 * listed choices. `typing` is the row's own "Model by id" choice, kept even when the typed id
 * happens to equal a listed model.
 */
export type PickerMode = "exec" | "modelId" | "cli" | "listed";

export function pickerMode(
  value: string,
  options: readonly WorkerOption[],
  typing: boolean,
): PickerMode {
  if (value.startsWith(EXEC_PREFIX)) return "exec";
  if (cliWorker(value, options)) return "cli";
  if (!value.startsWith(MODEL_PREFIX)) return "listed";
  if (typing || value === MODEL_PREFIX) return "modelId";
  return options.some((o) => o.value === value) ? "listed" : "modelId";
}

/**
 * `<provider>:` prefixes to suggest for a model typed by id: providers that answer prompts
 * and whose models the catalog does not list (custom endpoints first, then local servers).
 */
export function modelIdPrefixes(providers: readonly ProviderStatus[]): string[] {
  const custom = providers.filter((p) => p.custom && p.kind !== "data-source");
  const local = providers.filter((p) => !p.custom && p.kind === "local");
  return [...custom, ...local].map((p) => `${p.id}:`);
}

/** Splits a textarea into trimmed, non-empty lines. */
export function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Why the form cannot be sent yet, or `null`. */
export function formProblem(form: {
  repo: string;
  task: string;
  workers: readonly string[];
  compare: boolean;
  timeout: string;
}): string | null {
  if (form.repo.trim() === "") return "Choose a repository.";
  if (form.task.trim() === "") return "Describe the task.";
  const workers = form.workers.map((w) => w.trim()).filter(Boolean);
  if (workers.some((w) => w === EXEC_PREFIX)) return "Give the exec: worker a command.";
  if (workers.some((w) => w === MODEL_PREFIX)) {
    return "Type the model's id as provider:model.";
  }
  if (form.compare) {
    const { min, max } = COMPARE_WORKERS;
    if (workers.length < min || workers.length > max) {
      return `Compare needs ${min} to ${max} workers.`;
    }
  } else if (workers.length !== 1) {
    return "Choose a worker.";
  }
  if (form.timeout.trim() !== "" && !/^[1-9][0-9]*$/.test(form.timeout.trim())) {
    return "The timeout is a whole number of seconds.";
  }
  return null;
}
