// The worker picker's choices: installed agent CLIs, catalog models for the built-in model
// worker, and a custom command (`exec:`).
import type { ModelSummary, WorkerCliStatus } from "../../ipc";

/** The CLI adapters Switchyard knows, in the order the picker lists them. */
export const CLI_WORKERS = ["claude", "codex", "gemini", "opencode", "aider"] as const;

const CLI_TITLE: Record<string, string> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  opencode: "OpenCode",
  aider: "Aider",
};

export interface WorkerOption {
  /** What `AttemptRequest.worker` gets. */
  value: string;
  label: string;
  group: "cli" | "model";
  /** The CLI was not found (still listed, so the user sees why it is missing). */
  missing?: boolean;
}

/** Installed CLIs first (missing ones after, disabled), then models cheapest first. */
export function workerOptions(
  models: readonly ModelSummary[],
  clis: readonly WorkerCliStatus[],
): WorkerOption[] {
  const found = new Map(clis.map((c) => [c.name, c.path != null]));
  const cli: WorkerOption[] = CLI_WORKERS.map((name) => ({
    value: name,
    label: `${CLI_TITLE[name] ?? name}${found.get(name) ? "" : " (not installed)"}`,
    group: "cli" as const,
    missing: !found.get(name),
  })).sort((a, b) => Number(a.missing) - Number(b.missing));
  const model: WorkerOption[] = [...models]
    .sort(
      (a, b) =>
        (a.blendedPerM ?? Number.POSITIVE_INFINITY) - (b.blendedPerM ?? Number.POSITIVE_INFINITY),
    )
    .map((m) => ({
      value: `model:${m.id}`,
      label: `${m.name} (${m.provider}${m.blendedPerM != null ? `, $${m.blendedPerM.toFixed(2)}/M` : ""})`,
      group: "model" as const,
    }));
  return [...cli, ...model];
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
  if (workers.some((w) => w === "exec:")) return "Give the exec: worker a command.";
  if (form.compare) {
    if (workers.length < 2 || workers.length > 5) return "Compare needs 2 to 5 workers.";
  } else if (workers.length !== 1) {
    return "Choose a worker.";
  }
  if (form.timeout.trim() !== "" && !/^[1-9][0-9]*$/.test(form.timeout.trim())) {
    return "The timeout is a whole number of seconds.";
  }
  return null;
}
