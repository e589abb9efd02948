// Run shapes as the engine sends them, for the page's tests.
import type {
  NodeTry,
  NodeView,
  RunDetail,
  RunPreview,
  RunState,
  RunSummary,
  SpendReport,
} from "./types";

export function summary(patch: Partial<RunSummary> = {}): RunSummary {
  return {
    id: "r1",
    task: "Explain monads to a Rust programmer",
    mode: "cascade",
    state: "running",
    reason: null,
    reasonText: null,
    launcher: "app",
    costUsd: 0.0012,
    maxUsd: 0.5,
    savingsUsd: 0.0101,
    createdMs: 1_766_000_000_000,
    finishedMs: null,
    nodes: 1,
    nodesDone: 0,
    ...patch,
    live: patch.live ?? ["queued", "planning", "running"].includes(patch.state ?? "running"),
  };
}

export function attempt(patch: Partial<NodeTry> = {}): NodeTry {
  return {
    id: "c1-1",
    n: 1,
    purpose: "answer",
    model: "wtest:openai/gpt-4o-mini",
    worker: null,
    state: "failed",
    rung: 1,
    reservedUsd: 0.0025,
    costUsd: 0,
    tokens: 0,
    tokensIn: 0,
    tokensOut: 0,
    startedMs: 1_766_000_000_100,
    finishedMs: 1_766_000_000_300,
    error: "provider: the cheap model refused",
    signal: { kind: "providerFailed", code: "provider", message: "the cheap model refused" },
    signalText: "The model call failed: the cheap model refused",
    attemptId: null,
    ...patch,
  };
}

export function node(patch: Partial<NodeView> = {}): NodeView {
  return {
    id: "c1",
    task: "Explain monads to a Rust programmer",
    kind: "text",
    role: "cascade",
    state: "running",
    model: "wtest:openai/gpt-4o",
    worker: null,
    dependsOn: [],
    column: 0,
    costUsd: 0.0012,
    tokensIn: 120,
    tokensOut: 90,
    startedMs: 1_766_000_000_100,
    finishedMs: null,
    rung: 2,
    attempts: [
      attempt(),
      attempt({
        n: 2,
        model: "wtest:openai/gpt-4o",
        state: "settled",
        rung: 2,
        costUsd: 0.0012,
        tokensIn: 120,
        tokensOut: 90,
        error: null,
        signal: null,
      }),
    ],
    trace: {
      items: [
        { source: "task", chars: 36, totalChars: 36, truncated: false },
        { source: "failure:1", chars: 60, totalChars: 60, truncated: false },
      ],
    },
    outputChars: 0,
    rating: null,
    rateable: false,
    error: null,
    usedInputs: null,
    attemptId: null,
    ...patch,
  };
}

export function detail(
  patch: { seq?: number; state?: RunState; nodes?: NodeView[]; summary?: Partial<RunSummary> } = {},
): RunDetail {
  return {
    summary: summary({ state: patch.state ?? "running", ...patch.summary }),
    nodes: patch.nodes ?? [node()],
    ladder: {
      rungs: [
        { tier: "low", model: "wtest:openai/gpt-4o-mini" },
        { tier: "high", model: "wtest:openai/gpt-4o" },
      ],
    },
    baselineModel: "anthropic/claude-opus-4",
    baselineUsd: 0.0113,
    staticUsd: 0.0042,
    limits: {
      maxParallelNodes: 4,
      nodeTimeoutS: 180,
      codeNodeTimeoutS: 900,
      runTimeoutS: 1800,
      maxUsd: 0.5,
      cliReservationUsd: 0.5,
      maxOutputTokens: 4096,
    },
    reservedUsd: 0,
    repo: null,
    startedMs: 1_766_000_000_050,
    error: null,
    seq: patch.seq ?? 3,
  };
}

export function preview(patch: Partial<RunPreview> = {}): RunPreview {
  return {
    mode: "cascade",
    task: "Explain monads",
    nodes: [
      {
        id: "c1",
        task: "Explain monads",
        kind: "text",
        role: "cascade",
        model: "wtest:openai/gpt-4o-mini",
        worker: null,
        dependsOn: [],
        join: "all",
        contextFrom: [],
      },
    ],
    columns: [0],
    ladder: {
      rungs: [
        { tier: "low", model: "wtest:openai/gpt-4o-mini" },
        { tier: "medium", model: "wtest:openai/gpt-4o" },
      ],
    },
    plan: null,
    warnings: [],
    worstCaseUsd: 0.0431,
    limits: detail().limits,
    baselineModel: "anthropic/claude-opus-4",
    ...patch,
  };
}

export function spend(patch: Partial<SpendReport> = {}): SpendReport {
  return {
    runs: 3,
    costUsd: 0.0123,
    savingsUsd: 0.0456,
    byModel: [
      { key: "wtest:openai/gpt-4o", runs: 2, costUsd: 0.01, savingsUsd: 0 },
      { key: "wtest:openai/gpt-4o-mini", runs: 1, costUsd: 0.0023, savingsUsd: 0 },
    ],
    byMode: [
      { key: "cascade", runs: 2, costUsd: 0.011, savingsUsd: 0.04 },
      { key: "single", runs: 1, costUsd: 0.0013, savingsUsd: 0.0056 },
    ],
    byDay: [
      { key: "2026-12-18", runs: 1, costUsd: 0.002, savingsUsd: 0.01 },
      { key: "2026-12-19", runs: 2, costUsd: 0.0103, savingsUsd: 0.0356 },
    ],
    ...patch,
  };
}
