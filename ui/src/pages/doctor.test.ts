import { describe, expect, it } from "vitest";
import type { CheckStatus, DoctorReport } from "../ipc";
import { overallStatus, workerSummary } from "./doctor";

function report(statuses: CheckStatus[], workers: [string, string | null][] = []): DoctorReport {
  return {
    generatedAt: "2026-11-29T00:00:00Z",
    checks: statuses.map((status, i) => ({ id: `c${i}`, title: `C${i}`, status, detail: "" })),
    gitVersion: null,
    workerClis: workers.map(([name, path]) => ({ name, path })),
    localEndpoints: [],
  };
}

describe("overallStatus", () => {
  it("is ok with no checks and the worst status otherwise", () => {
    expect(overallStatus(report([]))).toBe("ok");
    expect(overallStatus(report(["ok", "warn", "ok"]))).toBe("warn");
    expect(overallStatus(report(["warn", "fail", "ok"]))).toBe("fail");
  });
});

describe("workerSummary", () => {
  it("names the CLIs found", () => {
    const r = report(
      [],
      [
        ["claude", "/usr/bin/claude"],
        ["codex", null],
        ["aider", "/opt/aider"],
      ],
    );
    expect(workerSummary(r)).toBe("2 of 3 found: claude, aider");
  });

  it("says when none is installed", () => {
    expect(workerSummary(report([], [["claude", null]]))).toBe("none of 1 worker CLIs on PATH");
  });
});
