// Pure helpers over the doctor report (tested in doctor.test.ts).
import type { CheckStatus, DoctorReport } from "../ipc";

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** The worst status among the checks (same rule as the Rust side's `DoctorReport::overall`). */
export function overallStatus(report: DoctorReport): CheckStatus {
  return report.checks.reduce<CheckStatus>(
    (worst, check) => (RANK[check.status] > RANK[worst] ? check.status : worst),
    "ok",
  );
}

/** "2 of 5 worker CLIs found: claude, aider" style summary. */
export function workerSummary(report: DoctorReport): string {
  const found = report.workerClis.filter((w) => w.path !== null).map((w) => w.name);
  const total = report.workerClis.length;
  return found.length === 0
    ? `none of ${total} worker CLIs on PATH`
    : `${found.length} of ${total} found: ${found.join(", ")}`;
}
