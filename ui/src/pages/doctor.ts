// Pure helpers over the doctor report (tested in doctor.test.ts).
import type { CheckStatus, DoctorReport, WorkerCli, WorkerCliStatus } from "../ipc";

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** The worst status among the checks (same rule as the Rust side's `DoctorReport::overall`). */
export function overallStatus(report: DoctorReport): CheckStatus {
  return report.checks.reduce<CheckStatus>(
    (worst, check) => (RANK[check.status] > RANK[worst] ? check.status : worst),
    "ok",
  );
}

/** "2 of 5 worker CLIs installed: claude, aider" style summary (installed = found and
 * answered `--version`). */
export function workerSummary(report: DoctorReport): string {
  const found = report.workerClis.filter((w) => w.installed).map((w) => w.name);
  const total = report.workerClis.length;
  return found.length === 0
    ? `none of ${total} worker CLIs installed`
    : `${found.length} of ${total} installed: ${found.join(", ")}`;
}

const SOURCE_LABEL = { setting: "set in Settings", path: "PATH", loginShell: "login shell PATH" };

/** One line about a CLI for the Agent CLIs card: version and where, or why it is missing. */
export function workerDetail(w: WorkerCliStatus): string {
  if (w.installed) {
    const where = w.source ? ` (${SOURCE_LABEL[w.source]})` : "";
    return `${w.version ?? "unknown version"} · ${w.path ?? ""}${where}`;
  }
  return w.problem ?? "not found";
}

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
  };
}
