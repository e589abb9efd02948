import { describe, expect, it } from "vitest";
import type { CheckStatus, DoctorReport, WorkerCli } from "../ipc";
import { missingWorker, overallStatus, workerDetail, workerSummary } from "./doctor";

function installed(cli: WorkerCli, path: string) {
  return {
    ...missingWorker(cli),
    path,
    version: `${cli} 1.0`,
    source: "path" as const,
    installed: true,
  };
}

function report(statuses: CheckStatus[], workers: [WorkerCli, string | null][] = []): DoctorReport {
  return {
    generatedAt: "2026-11-29T00:00:00Z",
    checks: statuses.map((status, i) => ({ id: `c${i}`, title: `C${i}`, status, detail: "" })),
    gitVersion: null,
    confinement: null,
    workerClis: workers.map(([cli, path]) => (path ? installed(cli, path) : missingWorker(cli))),
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
    expect(workerSummary(r)).toBe("2 of 3 installed: claude, aider");
  });

  it("says when none is installed", () => {
    expect(workerSummary(report([], [["claude", null]]))).toBe("none of 1 worker CLIs installed");
  });

  it("does not count a CLI that is on PATH but does not answer --version", () => {
    const broken = { ...missingWorker("codex", "--version failed"), path: "/usr/bin/codex" };
    const r = { ...report([]), workerClis: [broken] };
    expect(workerSummary(r)).toBe("none of 1 worker CLIs installed");
  });
});

describe("workerDetail", () => {
  it("gives version and where for an installed CLI and the reason for a missing one", () => {
    expect(
      workerDetail({ ...installed("gemini", "/home/u/.npm/bin/gemini"), source: "loginShell" }),
    ).toBe("gemini 1.0 · /home/u/.npm/bin/gemini (login shell PATH)");
    expect(workerDetail(missingWorker("aider", "aider is not on PATH"))).toBe(
      "aider is not on PATH",
    );
  });
});
