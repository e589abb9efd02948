import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CatalogStatus, RefreshProgress, RefreshReport, SourceStatus } from "../../ipc";

type Outcome = { report: RefreshReport | null; error: { code: "network"; message: string } | null };

const handlers: { progress?: (p: RefreshProgress) => void; done?: (o: Outcome) => void } = {};
const refreshCalls: (string | null)[] = [];
let refreshFails = false;

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    catalogIpc: {
      refresh: vi.fn(async (fromDir: string | null) => {
        refreshCalls.push(fromDir);
        if (refreshFails) {
          throw new original.IpcFailure({
            code: "invalidInput",
            message: "a catalog refresh is already running",
          });
        }
        return null;
      }),
    },
    catalogEvents: {
      onRefreshProgress: vi.fn((h: (p: RefreshProgress) => void) => {
        handlers.progress = h;
        return Promise.resolve(() => {});
      }),
      onRefreshed: vi.fn((h: (o: Outcome) => void) => {
        handlers.done = h;
        return Promise.resolve(() => {});
      }),
    },
  };
});

const { CatalogStatusPanel } = await import("./CatalogStatusPanel");
const { useCatalogRefresh } = await import("./useCatalogRefresh");

function source(id: SourceStatus["source"], overrides: Partial<SourceStatus> = {}): SourceStatus {
  return {
    source: id,
    fetchedAt: "2026-11-29T10:09:01Z",
    dataDate: "2026-08-21",
    records: 10,
    matched: 8,
    unmatched: 2,
    skipped: 0,
    error: null,
    unmatchedKeys: ["old-model-a", "old-model-b"],
    ...overrides,
  };
}

const STATUS: CatalogStatus = {
  snapshotDate: "2026-08-22",
  modelCount: 334,
  bundledSources: ["lmArena"],
  bundledDate: "2026-11-29",
  sources: [
    source("openRouter", { unmatched: 0, unmatchedKeys: [] }),
    source("lmArena", { error: "HTTP 503" }),
  ],
  refreshing: false,
};

function Page({ onFinished }: { onFinished: () => void }) {
  const { refresh, startRefresh } = useCatalogRefresh(onFinished);
  return (
    <CatalogStatusPanel
      status={STATUS}
      statusError={null}
      refresh={refresh}
      onRefresh={(dir) => void startRefresh(dir)}
    />
  );
}

afterEach(() => {
  cleanup();
  refreshCalls.length = 0;
  refreshFails = false;
});

const state = (id: string) =>
  document.querySelector(`#catalog-sources tr[data-source='${id}'] td:last-child`)?.textContent;

describe("CatalogStatusPanel", () => {
  it("shows counts, errors, the bundled note and unmatched records", () => {
    render(<Page onFinished={() => {}} />);
    expect(
      screen.getByText(
        /LMArena: served from the snapshot bundled with the app \(produced 2026-11-29\)/,
      ),
    ).toBeTruthy();
    expect(state("lmArena")).toContain("HTTP 503");
    expect(state("openRouter")).toBe("ok");
    expect(screen.getByText("old-model-a")).toBeTruthy();
  });

  it("refreshes from the network, follows progress per source and shows the report", async () => {
    const onFinished = vi.fn();
    render(<Page onFinished={onFinished} />);
    fireEvent.click(screen.getByText("Refresh from the network"));
    await waitFor(() => expect(refreshCalls).toEqual([null]));
    expect(screen.getByText("Refreshing…")).toBeTruthy();
    act(() => {
      handlers.progress?.({ source: null, stage: "started", message: null });
      handlers.progress?.({ source: "openRouter", stage: "saved", message: null });
      handlers.progress?.({ source: "lmArena", stage: "fetching", message: null });
    });
    expect(state("openRouter")).toBe("saved");
    expect(state("lmArena")).toContain("fetching");
    act(() => {
      handlers.done?.({
        report: {
          modelCount: 340,
          snapshotDate: "2026-09-01",
          sources: [
            {
              source: "openRouter",
              origin: "https://openrouter.ai/api/v1/models",
              records: 430,
              matched: 430,
              unmatched: 0,
              skipped: 0,
              error: null,
            },
            {
              source: "lmArena",
              origin: null,
              records: 0,
              matched: 0,
              unmatched: 0,
              skipped: 0,
              error: "timed out",
            },
          ],
        },
        error: null,
      });
    });
    expect(onFinished).toHaveBeenCalledTimes(1);
    const report = document.querySelector("#catalog-refresh-report");
    expect(report?.textContent).toContain("340 models");
    expect(report?.textContent).toContain("timed out (previous data kept)");
    expect(screen.getByText("Refresh from the network")).toBeTruthy();
  });

  it("imports from a folder and shows why a refresh could not start", async () => {
    render(<Page onFinished={() => {}} />);
    fireEvent.change(screen.getByPlaceholderText("/path/to/folder"), {
      target: { value: " /data/corpus " },
    });
    refreshFails = true;
    fireEvent.click(screen.getByText("Import"));
    await waitFor(() => expect(refreshCalls).toEqual(["/data/corpus"]));
    await waitFor(() =>
      expect(document.querySelector("#catalog-refresh-error")?.textContent).toContain(
        "already running",
      ),
    );
  });
});
