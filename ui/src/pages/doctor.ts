// A placeholder doctor status (the engine words every status itself).
import type { WorkerCli, WorkerCliStatus } from "../ipc";

/** A status as the engine reports a CLI it could not find (for tests and placeholders). */
export function missingWorker(cli: WorkerCli, problem: string | null = null): WorkerCliStatus {
  return {
    name: cli,
    cli,
    program: cli,
    title: cli,
    path: null,
    version: null,
    source: null,
    installed: false,
    configuredPath: null,
    problem,
    account: null,
    accountDetail: null,
    ready: false,
    fix: null,
    ownAccount: false,
    models: [],
    label: `${cli} (not installed)`,
    detail: problem ?? "not found",
  };
}
