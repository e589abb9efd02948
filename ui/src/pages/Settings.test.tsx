import { act, fireEvent, render, screen } from "@testing-library/react";
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
    ipc: {
      runDoctor: vi.fn(async () => report),
      classifierSettings: vi.fn(async () => ({ assist: false, threshold: 0.6, model: null })),
      setClassifierSettings: vi.fn(async (settings: unknown) => settings),
    },
    ipcEvents: { onDoctorUpdated: vi.fn(() => Promise.resolve(() => {})) },
  };
});

const { Settings } = await import("./Settings");
const { ipc } = await import("../ipc");
const { parseThreshold } = await import("./ClassifierSettingsCard");

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

  it("turns the classifier's model fallback on with a threshold and saves it", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    const toggle = document.querySelector("#classifier-assist") as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect((document.querySelector("#classifier-threshold") as HTMLInputElement).value).toBe("0.6");
    fireEvent.click(toggle);
    fireEvent.change(document.querySelector("#classifier-threshold") as HTMLInputElement, {
      target: { value: "0.5" },
    });
    fireEvent.change(document.querySelector("#classifier-model") as HTMLInputElement, {
      target: { value: " ollama:qwen3 " },
    });
    await act(async () => {
      fireEvent.click(document.querySelector("#classifier-save") as HTMLButtonElement);
    });
    expect(ipc.setClassifierSettings).toHaveBeenCalledWith({
      assist: true,
      threshold: 0.5,
      model: "ollama:qwen3",
    });
    expect(screen.getByText("Saved.")).toBeTruthy();
  });

  it("accepts only thresholds from 0 to 1", () => {
    expect(parseThreshold("0.45")).toBe(0.45);
    expect(parseThreshold("1")).toBe(1);
    expect(parseThreshold("")).toBeNull();
    expect(parseThreshold("1.5")).toBeNull();
    expect(parseThreshold("abc")).toBeNull();
  });
});
