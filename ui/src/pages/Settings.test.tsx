import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type {
  AppInfo,
  ConfinementSupport,
  DoctorReport,
  FirstRunChecklist,
  WorkerCliStatus,
  WorktreeUsage,
} from "../ipc";
import { seriousA11yFindings } from "../testing/axe";

const report: DoctorReport = {
  generatedAt: "2026-11-29T10:00:00Z",
  checks: [
    { id: "database", title: "Database", status: "ok", detail: "3 migrations applied" },
    { id: "keychain", title: "Keychain", status: "fail", detail: "no keychain available: no bus" },
  ],
  gitVersion: "git version 2.47.3",
  confinement: null,
  workerClis: [
    {
      name: "claude",
      cli: "claude",
      program: "claude",
      title: "Claude Code",
      path: null,
      version: null,
      source: null,
      installed: false,
      configuredPath: null,
      problem: "claude is not on PATH",
      account: null,
      accountDetail: null,
      ready: false,
      fix: "install claude or set its path in Settings → Agent CLIs",
      ownAccount: false,
      models: [],
      label: "Claude Code (not installed)",
      detail: "claude is not on PATH",
    },
  ],
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
  overall: "fail",
  workerSummary: "none of 1 worker CLIs installed",
};

const claudeMissing: WorkerCliStatus = {
  name: "claude",
  cli: "claude",
  program: "claude",
  title: "Claude Code",
  path: null,
  version: null,
  source: null,
  installed: false,
  configuredPath: null,
  problem: "claude is not on PATH or the login shell's PATH",
  account: null,
  accountDetail: null,
  ready: false,
  fix: "install claude or set its path in Settings → Agent CLIs",
  ownAccount: false,
  models: [],
  label: "Claude Code (not installed)",
  detail: "claude is not on PATH or the login shell's PATH",
};
const aiderInstalled: WorkerCliStatus = {
  name: "aider",
  cli: "aider",
  program: "aider",
  title: "Aider",
  path: "/home/u/.local/bin/aider",
  version: "aider 0.86.1",
  source: "loginShell",
  installed: true,
  configuredPath: null,
  problem: null,
  account: "routedProvider",
  accountDetail: "the key of the provider the routed model names (aider:<provider/model>)",
  ready: true,
  fix: null,
  ownAccount: false,
  models: ["deepseek/deepseek-chat"],
  label: "Aider (0.86.1)",
  detail: "aider 0.86.1 · /home/u/.local/bin/aider (login shell PATH)",
};
const usage: WorktreeUsage = {
  path: "/data/switchyard/worktrees",
  worktrees: 2,
  bytes: 3 * 1024 * 1024,
  retentionDays: 7,
};

const unavailable: ConfinementSupport = {
  mode: "none",
  bwrap: false,
  bwrapVersion: null,
  socat: true,
  reason: "bubblewrap (bwrap) is not installed or not on PATH",
  allowUnconfined: false,
  detail: "no worker can start: bubblewrap (bwrap) is not installed or not on PATH",
};

const prefs = vi.hoisted(() => ({
  setTheme: vi.fn(async (theme: string) => ({
    theme,
    checklistDismissed: true,
    plotHidden: false,
  })),
}));

const checklist: FirstRunChecklist = {
  done: 1,
  dismissed: true,
  items: [
    {
      id: "keychain",
      title: "Keychain reachable",
      done: true,
      detail: "Secret Service answered",
      fix: null,
      fixLabel: null,
    },
    {
      id: "model",
      title: "A provider key or a local model server",
      done: false,
      detail: "no provider key and no local model server (Ollama, LM Studio) answered",
      fix: "openKeys",
      fixLabel: "Add a key",
    },
  ],
};

const learned = {
  category: "coding",
  model: "deepseek/deepseek-v4-flash",
  evidence: {
    prior: 0.62,
    successes: 2,
    failures: 7,
    since: "2026-12-01T10:00:00Z",
    estimate: 0.34,
    weight: 8.7,
  },
};

vi.mock("../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../ipc")>();
  return {
    ...original,
    ipc: {
      uiPrefs: vi.fn(async () => ({
        theme: "system",
        checklistDismissed: true,
        plotHidden: false,
      })),
      setTheme: prefs.setTheme,
      firstRunChecklist: vi.fn(async () => checklist),
      setChecklistDismissed: vi.fn(async (dismissed: boolean) => ({ ...checklist, dismissed })),
      runDoctor: vi.fn(async () => report),
      classifierSettings: vi.fn(async () => ({ assist: false, threshold: 0.6, model: null })),
      setClassifierSettings: vi.fn(async (settings: unknown) => settings),
      agentPreferences: vi.fn(async () => [
        { agent: "claude-code", startModel: null, outcomes: 4, succeeded: 3 },
      ]),
      setAgentStartModel: vi.fn(async (agent: string, model: string | null) => [
        { agent, startModel: model, outcomes: 4, succeeded: 3 },
      ]),
      learningSettings: vi.fn(async () => ({
        since: null,
        skipBelow: 0.3,
        outcomes: 12,
        estimates: [learned],
        savings: { outcomes: 9, costUsd: 0.02, staticUsd: 0.05, premiumUsd: 0.4 },
      })),
      setSkipBelow: vi.fn(async (skipBelow: number) => ({
        since: null,
        skipBelow,
        outcomes: 12,
        estimates: [learned],
        savings: { outcomes: 9, costUsd: 0.02, staticUsd: 0.05, premiumUsd: 0.4 },
      })),
      resetLearning: vi.fn(async () => ({
        since: "2026-12-07T01:00:00Z",
        skipBelow: 0.3,
        outcomes: 0,
        estimates: [],
        savings: { outcomes: 0, costUsd: 0, staticUsd: 0, premiumUsd: 0 },
      })),
      listWorkerClis: vi.fn(async () => [claudeMissing, aiderInstalled]),
      setWorkerPath: vi.fn(async (_cli: string, path: string | null) => ({
        ...claudeMissing,
        path,
        version: "2.0.14 (Claude Code)",
        source: "setting",
        installed: true,
        configuredPath: path,
        problem: null,
        account: "none",
        accountDetail: "no anthropic key in Switchyard and not logged in",
        ready: false,
        fix: "add a key for anthropic in Settings → Keys, or run `claude` once and log in",
        label: "Claude Code (2.0.14, not ready)",
        detail: `2.0.14 (Claude Code) · ${path} (set in Settings)`,
      })),
      setWorkerAccount: vi.fn(async (_cli: string, own: boolean) => ({
        ...aiderInstalled,
        ownAccount: own,
        account: own ? "own" : "routedProvider",
        accountDetail: own
          ? "its own account, chosen in Settings (its own settings under your home)"
          : "the key of the provider the routed model names (aider:<provider/model>)",
      })),
      worktreeUsage: vi.fn(async () => usage),
      setWorktreeRetention: vi.fn(async (days: number) => ({ ...usage, retentionDays: days })),
      pruneWorktrees: vi.fn(async () => ({
        worktrees: ["att-a", "att-b"],
        logs: ["att-a"],
        problems: ["/gone/repo: not a git repository; its attempts' worktrees stay"],
        usage: { ...usage, worktrees: 0, bytes: 0 },
      })),
      confinementSupport: vi.fn(async () => unavailable),
      setAllowUnconfined: vi.fn(async (allowed: boolean) => ({
        ...unavailable,
        allowUnconfined: allowed,
        mode: "none",
        detail: allowed ? "workers run UNCONFINED (allowed in Settings)" : unavailable.detail,
      })),
    },
    ipcEvents: { onDoctorUpdated: vi.fn(() => Promise.resolve(() => {})) },
    // The Connect an agent card has its own tests (agents/AgentConnectCard.test.tsx).
    agentsIpc: { connectConfigs: vi.fn(() => new Promise(() => {})), setAgentsMayApprove: vi.fn() },
  };
});

const { Settings } = await import("./Settings");
const { ipc } = await import("../ipc");
const { parseThreshold } = await import("./ClassifierSettingsCard");
const { describePrune, formatBytes, parseRetention } = await import("./WorktreesCard");

const info: AppInfo = {
  version: "0.1.0",
  dataDir: "/data/switchyard",
  databasePath: "/data/switchyard/switchyard.db",
  schemaVersion: "20261129090000",
  migrationsApplied: 3,
  catalogSnapshotDate: null,
};

describe("Settings", () => {
  afterEach(cleanup);

  it("shows the first-run checklist with each open item's fix, and offers it at start again", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    const card = document.querySelector("#first-run-settings");
    expect(card?.textContent).toContain("1 of 2 done");
    expect(card?.querySelector("[data-item='keychain']")?.getAttribute("data-done")).toBe("yes");
    expect(card?.querySelector("[data-item='model'] [data-fix='openKeys']")?.textContent).toBe(
      "Add a key",
    );
    expect(card?.querySelector("[data-item='keychain'] [data-fix]")).toBeNull();
    expect(document.querySelector("#first-run-show")).toBeTruthy();
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("stores the theme and puts it on the page", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    await act(async () => {
      fireEvent.click(document.querySelector("[data-theme-choice='dark']") as HTMLElement);
    });
    expect(prefs.setTheme).toHaveBeenCalledWith("dark");
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(document.querySelector("[data-theme-choice='dark']")?.getAttribute("aria-pressed")).toBe(
      "true",
    );
    await act(async () => {
      fireEvent.click(document.querySelector("[data-theme-choice='system']") as HTMLElement);
    });
    expect(document.documentElement.dataset.theme).toBeUndefined();
  });

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

  it("shows what routing learns from, saves the skip threshold and forgets after a confirmation", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    expect(document.querySelector("#learning-count")?.textContent).toContain("12 outcomes");
    const row = document.querySelector("#learning-estimates tbody tr")?.textContent ?? "";
    expect(row).toContain("deepseek/deepseek-v4-flash");
    expect(row).toContain("2 of 9 verified");
    expect(row).toContain("34%");
    expect(document.querySelector("#learning-savings")?.textContent).toContain("9 outcomes cost");
    fireEvent.change(document.querySelector("#learning-skip") as HTMLInputElement, {
      target: { value: "0.45" },
    });
    await act(async () => {
      fireEvent.click(document.querySelector("#learning-save") as HTMLButtonElement);
    });
    expect(ipc.setSkipBelow).toHaveBeenCalledWith(0.45);
    fireEvent.click(document.querySelector("#learning-reset") as HTMLButtonElement);
    expect(ipc.resetLearning).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(document.querySelector("#learning-reset-confirm") as HTMLButtonElement);
    });
    expect(ipc.resetLearning).toHaveBeenCalledTimes(1);
    expect(document.querySelector("#learning-count")?.textContent).toContain("0 outcomes");
    expect(document.querySelector("#learning-estimates")).toBeNull();
  });

  it("lists agents with their record and saves a starting model for one", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    const row = document.querySelector(
      "#agent-preferences-table tr[data-agent='claude-code']",
    ) as HTMLElement;
    expect(row.textContent).toContain("3 of 4 succeeded");
    fireEvent.change(screen.getByLabelText("Starting model for claude-code"), {
      target: { value: " openai/gpt-5-mini " },
    });
    await act(async () => {
      fireEvent.click(within(row).getByText("Save"));
    });
    expect(ipc.setAgentStartModel).toHaveBeenCalledWith("claude-code", "openai/gpt-5-mini");
    expect(
      (screen.getByLabelText("Starting model for claude-code") as HTMLInputElement).value,
    ).toBe("openai/gpt-5-mini");
  });

  it("accepts only thresholds from 0 to 1", () => {
    expect(parseThreshold("0.45")).toBe(0.45);
    expect(parseThreshold("1")).toBe(1);
    expect(parseThreshold("")).toBeNull();
    expect(parseThreshold("1.5")).toBeNull();
    expect(parseThreshold("abc")).toBeNull();
  });

  it("lists each agent CLI installed or missing and saves a path for one", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    const claude = document.querySelector('#agent-clis tr[data-cli="claude"]') as HTMLElement;
    const aider = document.querySelector('#agent-clis tr[data-cli="aider"]') as HTMLElement;
    expect(claude.dataset.installed).toBe("no");
    expect(claude.querySelector("th")?.textContent).toBe("Claude Codeclaude");
    expect(claude.textContent).toContain("claude is not on PATH or the login shell's PATH");
    expect(aider.dataset.installed).toBe("yes");
    expect(aider.textContent).toContain(
      "aider 0.86.1 · /home/u/.local/bin/aider (login shell PATH)",
    );
    expect(document.querySelector("#isolation-note")?.textContent).toContain(
      "Each CLI runs in a bubblewrap sandbox",
    );

    const field = claude.querySelector('input[aria-label="claude path"]') as HTMLInputElement;
    fireEvent.change(field, { target: { value: " /opt/claude/bin/claude " } });
    const save = Array.from(claude.querySelectorAll("button")).find(
      (b) => b.textContent === "Save",
    ) as HTMLButtonElement;
    await act(async () => {
      fireEvent.click(save);
    });
    expect(ipc.setWorkerPath).toHaveBeenCalledWith("claude", "/opt/claude/bin/claude");
    const updated = document.querySelector('#agent-clis tr[data-cli="claude"]') as HTMLElement;
    expect(updated.dataset.installed).toBe("yes");
    expect(updated.textContent).toContain("2.0.14 (Claude Code)");
    expect(updated.textContent).toContain("set in Settings");
    // Found now, but with no account to call its provider with: not ready, and the fix.
    expect(updated.dataset.ready).toBe("no");
    expect(updated.querySelector(".cli-fix")?.textContent).toBe(
      "Fix: add a key for anthropic in Settings → Keys, or run `claude` once and log in",
    );
    expect(aider.dataset.ready).toBe("yes");
    expect(aider.querySelector(".cli-account")?.textContent).toContain("routed model");

    // "Use the CLI's own account": the choice goes to the engine and its answer is shown.
    const own = aider.querySelector("#cli-own-aider") as HTMLInputElement;
    expect(own.checked).toBe(false);
    await act(async () => {
      fireEvent.click(own);
    });
    expect(ipc.setWorkerAccount).toHaveBeenCalledWith("aider", true);
    const chosen = document.querySelector('#agent-clis tr[data-cli="aider"]') as HTMLElement;
    expect((chosen.querySelector("#cli-own-aider") as HTMLInputElement).checked).toBe(true);
    expect(chosen.querySelector(".cli-account")?.textContent).toContain("chosen in Settings");
  });

  it("shows worktree disk usage and saves the retention", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    expect(document.querySelector("#worktrees-usage")?.textContent).toBe("3.0 MB in 2 worktrees");
    const days = document.querySelector("#worktrees-retention") as HTMLInputElement;
    expect(days.value).toBe("7");
    fireEvent.change(days, { target: { value: "30" } });
    await act(async () => {
      fireEvent.click(document.querySelector("#worktrees-save") as HTMLButtonElement);
    });
    expect(ipc.setWorktreeRetention).toHaveBeenCalledWith(30);
    expect((document.querySelector("#worktrees-retention") as HTMLInputElement).value).toBe("30");
  });

  it("removes old worktrees on request and shows what went", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    await act(async () => {
      fireEvent.click(document.querySelector("#worktrees-prune") as HTMLButtonElement);
    });
    expect(ipc.pruneWorktrees).toHaveBeenCalledTimes(1);
    expect(document.querySelector("#worktrees-usage")?.textContent).toBe("0 B in 0 worktrees");
    expect(screen.getByText("Removed 2 worktrees and 1 log.", { exact: false })).toBeTruthy();
    expect(screen.getByText("/gone/repo", { exact: false })).toBeTruthy();
  });

  it("says when no sandbox is available and allows unconfined workers on request", async () => {
    await act(async () => {
      render(<Settings info={info} />);
    });
    expect(document.querySelector("#confinement-mode")?.textContent).toBe("blocked");
    expect(document.querySelector("#confinement-bwrap")?.textContent).toBe("unavailable");
    const allow = document.querySelector("#confinement-allow-unconfined") as HTMLInputElement;
    expect(allow.checked).toBe(false);
    await act(async () => {
      fireEvent.click(allow);
    });
    expect(ipc.setAllowUnconfined).toHaveBeenCalledWith(true);
    expect(document.querySelector("#confinement-mode")?.textContent).toBe("unconfined");
    expect(document.querySelector("#confinement-detail")?.textContent).toContain("UNCONFINED");
  });

  it("describes a prune in words", () => {
    const usage0 = { ...usage, worktrees: 0 };
    expect(describePrune({ worktrees: [], logs: [], problems: [], usage: usage0 })).toBe(
      "Nothing is older than the retention.",
    );
    expect(describePrune({ worktrees: ["a"], logs: [], problems: [], usage: usage0 })).toBe(
      "Removed 1 worktree.",
    );
    expect(describePrune({ worktrees: [], logs: ["a", "b"], problems: [], usage: usage0 })).toBe(
      "Removed 0 worktrees and 2 logs.",
    );
  });

  it("parses retention days and formats sizes", () => {
    expect(parseRetention("0")).toBe(0);
    expect(parseRetention(" 14 ")).toBe(14);
    expect(parseRetention("3651")).toBeNull();
    expect(parseRetention("1.5")).toBeNull();
    expect(parseRetention("-1")).toBeNull();
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(null)).toBe("0 B");
  });
});
