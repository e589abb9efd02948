import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seriousA11yFindings } from "../../testing/axe";
import { budgetTiers } from "../route/testdata.test-util";
import { detail, node, preview, spend, summary } from "./testdata.test-util";
import type { RunFeedItem, RunOptions, RunSummary } from "./types";

// A fake engine: the page's only door is `./api` (and the catalog, keys and roles it asks for
// suggestions, which answer empty here).
let runs: RunSummary[] = [];
let feed: ((item: RunFeedItem) => void) | null = null;
// Routing picks the ladder unless the options give one (as the engine does).
const previewRun = vi.fn(async (options: RunOptions) =>
  preview({
    ladder: {
      rungs: (options.ladder?.length
        ? options.ladder
        : ["wtest:openai/gpt-4o-mini", "wtest:openai/gpt-4o"]
      ).map((model, i) => ({ tier: i === 0 ? "low" : "medium", model })),
    },
  }),
);
const start = vi.fn(async (_options: RunOptions) => summary({ id: "r9", state: "queued" }));
const list = vi.fn(async () => runs);
const runDetail = vi.fn(async (_id: string) => detail({ seq: 3 }));
const resume = vi.fn(async (_id: string) => summary({ state: "queued" }));

vi.mock("./api", () => ({
  runsIpc: {
    list: () => list(),
    spend: vi.fn(async () => spend({ runs: 0, byDay: [], byModel: [], byMode: [] })),
    defaults: vi.fn(async () => null),
    preview: (options: RunOptions) => previewRun(options),
    start: (options: RunOptions) => start(options),
    detail: (id: string) => runDetail(id),
    watch: vi.fn(async (_id: string, _after: number, onItem: (item: RunFeedItem) => void) => {
      feed = onItem;
    }),
    output: vi.fn(async () => ({ runId: "r1", text: "", nodes: [] })),
    cancel: vi.fn(async () => summary({ state: "canceled" })),
    resume: (id: string) => resume(id),
  },
  runsEvents: {
    onRunState: vi.fn(async () => () => {}),
    onRunNode: vi.fn(async () => () => {}),
  },
  routeIpc: {
    revalidate: vi.fn(async () => ({ plan: null, issues: [] })),
    budgetTiers: vi.fn(async () => budgetTiers()),
  },
}));

vi.mock("../../ipc", async (original) => ({
  ...(await original<typeof import("../../ipc")>()),
  catalogIpc: { listModels: vi.fn(async () => []) },
  keysIpc: { providers: vi.fn(async () => []) },
  rolesIpc: { presets: vi.fn(async () => []) },
  ipc: { lastDoctorReport: vi.fn(async () => null) },
}));

const { RunsPage } = await import("./RunsPage");
const { openLaunchForm, peekLaunchPrefill } = await import("./handoff");

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no #${id}`);
  return el;
}

beforeEach(() => {
  runs = [];
  feed = null;
  vi.clearAllMocks();
});
afterEach(() => {
  cleanup();
  window.location.hash = "";
});

describe("Runs page", () => {
  it("says how to start when there are no runs, and lists runs when there are", async () => {
    window.location.hash = "#/runs";
    const { unmount } = render(<RunsPage now={() => 1_766_000_060_000} />);
    expect(await screen.findByText(/No runs yet/)).toBeTruthy();
    unmount();
    runs = [
      summary({ id: "a", state: "failed", reason: "budget_exceeded" }),
      summary({ id: "b", state: "completed", launcher: "claude-code" }),
    ];
    render(<RunsPage now={() => 1_766_000_060_000} />);
    await waitFor(() => expect(byId("runs-list").getAttribute("data-count")).toBe("2"));
    expect(document.querySelector("[data-run='a'] [data-reason]")?.textContent).toBe(
      "budget exceeded",
    );
    expect(document.querySelector("[data-run='b']")?.textContent).toContain("claude-code");
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("previews a cascade, sends an edited ladder back to the engine, and launches it", async () => {
    window.location.hash = "#/runs/new";
    render(<RunsPage />);
    fireEvent.change(byId("run-task"), { target: { value: "Explain monads" } });
    fireEvent.change(byId("run-max-usd"), { target: { value: "0.05" } });
    fireEvent.click(byId("run-preview"));
    await waitFor(() => expect(byId("run-rungs").getAttribute("data-count")).toBe("2"));
    expect(previewRun.mock.calls[0]?.[0]).toMatchObject({
      mode: "cascade",
      maxUsd: 0.05,
      ladder: [],
    });

    const rung = byId("run-rung-0") as HTMLInputElement;
    fireEvent.change(rung, { target: { value: "wtest:openai/gpt-4.1-mini" } });
    fireEvent.blur(rung);
    await waitFor(() => expect(previewRun).toHaveBeenCalledTimes(2));
    expect(previewRun.mock.calls[1]?.[0].ladder).toEqual([
      "wtest:openai/gpt-4.1-mini",
      "wtest:openai/gpt-4o",
    ]);

    await waitFor(() => expect((byId("run-launch") as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(byId("run-launch"));
    await waitFor(() => expect(window.location.hash).toBe("#/runs/r9"));
    expect(start.mock.calls[0]?.[0]).toMatchObject({
      task: "Explain monads",
      mode: "cascade",
      maxUsd: 0.05,
      ladder: ["wtest:openai/gpt-4.1-mini", "wtest:openai/gpt-4o"],
    });
  });

  it("follows a run live: node states, streamed text and the ledger from the feed", async () => {
    runDetail.mockResolvedValue(
      detail({
        seq: 3,
        nodes: [node({ id: "m1", role: "member", rung: null, attempts: [], state: "running" })],
        summary: { mode: "collective", maxUsd: 0.5 },
      }),
    );
    window.location.hash = "#/runs/r1";
    render(<RunsPage />);
    await waitFor(() => expect(feed).not.toBeNull());
    act(() => {
      feed?.({ type: "output", nodeId: "m1", reset: true, text: "Monads wrap " });
      feed?.({ type: "output", nodeId: "m1", reset: false, text: "values." });
      feed?.({
        type: "log",
        entry: {
          seq: 4,
          atMs: 1,
          entry: {
            type: "call",
            nodeId: "m1",
            n: 1,
            model: "m",
            state: "reserved",
            reservedUsd: 0.1,
            costUsd: 0,
            spentUsd: 0.02,
            runReservedUsd: 0.1,
          },
        },
      });
    });
    await waitFor(() =>
      expect(document.querySelector("#run-live [data-node='m1'] pre")?.textContent).toBe(
        "Monads wrap values.",
      ),
    );
    expect(byId("run-spent").textContent).toBe("$0.0200");
    // Against the static picks, from Rust's figure: the run spent more than they would have.
    expect(byId("run-static-note").textContent).toMatch(/cost \$0\.0042 \(\$0\.0158 more\)/);
    expect(byId("run-reserved").textContent).toContain("$0.10");
    expect(byId("run-detail").getAttribute("data-seq")).toBe("4");
    expect(Number(byId("run-detail").dataset.updates)).toBeGreaterThan(0);

    act(() => {
      feed?.({
        type: "log",
        entry: {
          seq: 5,
          atMs: 2,
          entry: { type: "node", nodeId: "m1", state: "done", note: null },
        },
      });
    });
    await waitFor(() =>
      expect(document.querySelector("[data-node='m1']")?.getAttribute("data-state")).toBe("done"),
    );
  });

  it("resumes a run paused after planning and follows it again", async () => {
    runDetail.mockResolvedValue(
      detail({ seq: 2, state: "paused", nodes: [node({ state: "pending" })] }),
    );
    window.location.hash = "#/runs/r1";
    render(<RunsPage />);
    await waitFor(() => expect(feed).not.toBeNull());
    act(() => feed?.({ type: "end", state: "paused" }));
    runDetail.mockResolvedValue(
      detail({ seq: 3, state: "queued", nodes: [node({ state: "pending" })] }),
    );
    feed = null;
    fireEvent.click(byId("run-resume"));
    await waitFor(() => expect(resume).toHaveBeenCalledWith("r1"));
    // A new feed from the resumed run's newest entry.
    await waitFor(() => expect(feed).not.toBeNull());
    await waitFor(() => expect(byId("run-detail").getAttribute("data-state")).toBe("queued"));
  });
  // Last: the form keeps what was typed across openings (module state), as users expect.
  it("opens the Route page's launch with its task in the first render, once", async () => {
    openLaunchForm({ task: "Ship the users API", mode: "single", budget: "high", plan: null });
    // The first render, before any effect runs (the app's WebDriver can read the DOM in
    // between), already holds the task.
    expect(renderToStaticMarkup(<RunsPage />)).toMatch(
      /<textarea id="run-task"[^>]*>Ship the users API</,
    );
    const { unmount } = render(<RunsPage />);
    expect((byId("run-task") as HTMLInputElement).value).toBe("Ship the users API");
    expect(peekLaunchPrefill()).toBeNull();
    await waitFor(() => expect(previewRun).toHaveBeenCalledTimes(1));
    expect(previewRun.mock.calls[0]?.[0]).toMatchObject({
      task: "Ship the users API",
      mode: "single",
    });
    unmount();
    // Opened again from the sidebar: what was typed is kept, nothing is previewed again.
    window.location.hash = "#/runs/new";
    render(<RunsPage />);
    expect((byId("run-task") as HTMLInputElement).value).toBe("Ship the users API");
    expect(previewRun).toHaveBeenCalledTimes(1);
  });
});
