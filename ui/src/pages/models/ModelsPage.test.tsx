import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { CatalogStatus, ModelQuery, ModelSummary } from "../../ipc";
import { seriousA11yFindings } from "../../testing/axe";
import { summary } from "./testdata";

const MODELS: ModelSummary[] = [
  summary({
    id: "acme/coder",
    blendedPerM: 3,
    categories: { coding: { score: 82, coverage: 0.6 }, general: { score: 70, coverage: 0.5 } },
  }),
  summary({
    id: "acme/chatty",
    blendedPerM: 0.5,
    categories: { general: { score: 60, coverage: 0.4 } },
  }),
  summary({ id: "zeta/unscored", blendedPerM: null }),
];

const queries: ModelQuery[] = [];
/** What the page asked Rust to store for the plot, in order. */
const plotChoices: boolean[] = [];
/** Milliseconds the next plot stores take. */
const plotStoreDelays: number[] = [];
/** Errors the next plot choices are refused with. */
const plotStoreFails: unknown[] = [];
const options: Record<string, unknown>[] = [];

// A fake engine that honours the category and search filters, enough for the page's wiring.
function fakeList(query: ModelQuery): ModelSummary[] {
  const words = (query.search ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  return MODELS.filter(
    (m) =>
      (!query.category || m.categories[query.category]) && words.every((w) => m.id.includes(w)),
  );
}

const STATUS: CatalogStatus = {
  snapshotDate: "2026-08-22",
  modelCount: MODELS.length,
  bundledSources: ["openRouter"],
  bundledDate: "2026-11-29",
  sources: [],
  refreshing: false,
  refreshId: null,
  held: [],
};

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    ipc: {
      ...original.ipc,
      setPlotHidden: vi.fn(async (hidden: boolean) => {
        const delay = plotStoreDelays.shift();
        if (delay) await new Promise((done) => setTimeout(done, delay));
        if (plotStoreFails.length > 0) throw plotStoreFails.shift();
        plotChoices.push(hidden);
        return { theme: "system", checklistDismissed: false, plotHidden: hidden };
      }),
    },
    catalogIpc: {
      listModels: vi.fn(async (query: ModelQuery) => {
        queries.push(query);
        return fakeList(query);
      }),
      status: vi.fn(async () => STATUS),
    },
    catalogEvents: {
      onRefreshStarted: vi.fn(() => Promise.resolve(() => {})),
      onRefreshProgress: vi.fn(() => Promise.resolve(() => {})),
      onRefreshed: vi.fn(() => Promise.resolve(() => {})),
    },
  };
});

// No canvas in jsdom: a chart that records what it was asked to draw.
vi.mock("./chart", () => ({
  createChart: () => ({
    on: () => {},
    resize: () => {},
    dispose: () => {},
    setOption: (option: Record<string, unknown>) => options.push(option),
  }),
}));

const { ModelsPage } = await import("./ModelsPage");

beforeAll(() => {
  // jsdom has no layout: give the table's scroller a height so the virtualizer renders rows.
  Object.defineProperty(HTMLElement.prototype, "clientHeight", {
    configurable: true,
    get: () => 600,
  });
  Object.defineProperty(HTMLElement.prototype, "clientWidth", {
    configurable: true,
    get: () => 1000,
  });
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
});

afterEach(() => {
  cleanup();
  queries.length = 0;
  options.length = 0;
  plotChoices.length = 0;
  delete window.__SWITCHYARD_PREFS__;
});

function rowIds(): string[] {
  return [...document.querySelectorAll("#models-table .models-row")].map(
    (r) => r.getAttribute("data-model-id") ?? "",
  );
}

describe("ModelsPage", () => {
  // First: it reads the stored preference before any choice made in this session.
  it("starts without the plot, and never draws it, when the stored preference hid it", async () => {
    window.__SWITCHYARD_PREFS__ = { theme: "system", checklistDismissed: false, plotHidden: true };
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    expect(document.querySelector("#models-plot")).toBeNull();
    expect(screen.getByRole("button", { name: "Show plot" })).toBeTruthy();
    expect(options).toEqual([]);
  });

  it("stores a hidden or shown plot, and a page opened again keeps the choice", async () => {
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    await waitFor(() =>
      expect(document.querySelector("#models-plot")?.getAttribute("data-state")).toBe("ready"),
    );
    fireEvent.click(screen.getByRole("button", { name: "Hide plot" }));
    expect(document.querySelector("#models-plot")).toBeNull();
    await waitFor(() => expect(plotChoices).toEqual([true]));
    cleanup();
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    expect(document.querySelector("#models-plot")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Show plot" }));
    await waitFor(() => expect(plotChoices).toEqual([true, false]));
    expect(document.querySelector("#models-plot")).not.toBeNull();
  });

  it("stores quick choices in the order they were made", async () => {
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    plotStoreDelays.push(80);
    fireEvent.click(screen.getByRole("button", { name: "Hide plot" }));
    fireEvent.click(screen.getByRole("button", { name: "Show plot" }));
    const toggle = document.querySelector("#plot-toggle");
    expect(toggle?.getAttribute("data-saving")).toBe("true");
    await waitFor(() => expect(plotChoices).toEqual([true, false]));
    await waitFor(() => expect(toggle?.getAttribute("data-saving")).toBe("false"));
    expect(document.querySelector("#models-plot")).not.toBeNull();
  });

  it("says so when the choice cannot be stored, and still hides the plot", async () => {
    const { IpcFailure } = await import("../../ipc");
    plotStoreFails.push(new IpcFailure({ code: "database", message: "database is locked" }));
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    fireEvent.click(screen.getByRole("button", { name: "Hide plot" }));
    expect(document.querySelector("#models-plot")).toBeNull();
    await waitFor(() =>
      expect(document.querySelector("#plot-pref-error")?.textContent).toContain(
        "database is locked",
      ),
    );
    fireEvent.click(screen.getByRole("button", { name: "Show plot" }));
    await waitFor(() => expect(plotChoices).toEqual([false]));
    expect(document.querySelector("#plot-pref-error")).toBeNull();
  });

  it("lists every model, plots those with a score and a price", async () => {
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toEqual(["acme/coder", "acme/chatty", "zeta/unscored"]));
    const plot = document.querySelector("#models-plot");
    await waitFor(() => expect(plot?.getAttribute("data-state")).toBe("ready"));
    expect(plot?.getAttribute("data-points")).toBe("2");
    expect(plot?.getAttribute("data-skipped")).toBe("1");
    expect(plot?.getAttribute("data-top-id")).toBe("acme/coder");
    await waitFor(() => expect(options.length).toBeGreaterThan(0));
    expect(screen.getByText(/bundled snapshot of 2026-11-29/)).toBeTruthy();
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("sends the chosen category to the engine and shows its scores", async () => {
    render(<ModelsPage />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    fireEvent.change(screen.getByLabelText("Category"), { target: { value: "coding" } });
    await waitFor(() => expect(rowIds()).toEqual(["acme/coder"]));
    expect(queries.at(-1)?.category).toBe("coding");
    expect(document.querySelector("#models-table")?.getAttribute("data-category")).toBe("coding");
    expect(screen.getByText("Coding score")).toBeTruthy();
  });

  it("debounces the search and shows the empty state with a way out", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      render(<ModelsPage />);
      await waitFor(() => expect(rowIds()).toHaveLength(3));
      const before = queries.length;
      const search = screen.getByLabelText("Search models");
      fireEvent.change(search, { target: { value: "no" } });
      fireEvent.change(search, { target: { value: "nothing-like-this" } });
      expect(queries.length).toBe(before);
      await act(async () => {
        vi.advanceTimersByTime(200);
      });
      await waitFor(() => expect(queries.at(-1)?.search).toBe("nothing-like-this"));
      expect(queries.length).toBe(before + 1);
      await waitFor(() => expect(screen.getByText("No models match these filters.")).toBeTruthy());
      fireEvent.click(screen.getAllByText("Clear filters")[0] as HTMLElement);
      await waitFor(() => expect(rowIds()).toHaveLength(3));
    } finally {
      vi.useRealTimers();
    }
  });
});
