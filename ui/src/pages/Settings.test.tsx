import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { AppInfo, DoctorReport } from "../ipc";

const report: DoctorReport = {
  generatedAt: "2026-11-29T10:00:00Z",
  checks: [
    { id: "database", title: "Database", status: "ok", detail: "3 migrations applied" },
    { id: "keychain", title: "Keychain", status: "fail", detail: "no keychain available: no bus" },
  ],
  gitVersion: "git version 2.47.3",
  workerClis: [{ name: "claude", path: null }],
  localEndpoints: [
    {
      id: "ollama",
      name: "Ollama",
      url: "http://127.0.0.1:11434",
      reachable: false,
      modelCount: null,
      error: "connection refused",
    },
  ],
};

vi.mock("../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../ipc")>();
  return {
    ...original,
    ipc: { runDoctor: vi.fn(async () => report) },
    ipcEvents: { onDoctorUpdated: vi.fn(() => Promise.resolve(() => {})) },
  };
});

const { Settings } = await import("./Settings");

const info: AppInfo = {
  version: "0.1.0",
  dataDir: "/data/switchyard",
  databasePath: "/data/switchyard/switchyard.db",
  schemaVersion: "20261129090000",
  migrationsApplied: 3,
  catalogSnapshotDate: null,
};

describe("Settings", () => {
  it("shows the installation facts and the doctor report with the worst status", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    expect(screen.getByText("/data/switchyard/switchyard.db")).toBeTruthy();
    expect(screen.getByText("20261129090000 (3 migrations applied)")).toBeTruthy();
    expect(screen.getByText("no keychain available: no bus")).toBeTruthy();
    expect(document.querySelector("#doctor-overall")?.textContent).toBe("Failed");
    expect(screen.getByText("connection refused", { exact: false })).toBeTruthy();
  });
});
