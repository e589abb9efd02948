import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type {
  CatalogStatus,
  HeldSnapshot,
  RefreshProgress,
  RefreshReport,
  RefreshTicket,
  SourceId,
  SourceStatus,
} from "../../ipc";

type Started = { refreshId: number; trigger: "user" | "schedule"; fromDir: string | null };
type Step = { refreshId: number; progress: RefreshProgress };
type Outcome = {
  refreshId: number;
  report: RefreshReport | null;
  error: { code: "network" | "canceled"; message: string } | null;
};

const handlers: {
  started?: (s: Started) => void;
  progress?: (p: Step) => void;
  done?: (o: Outcome) => void;
} = {};
const refreshCalls: (string | null)[] = [];
const acceptCalls: SourceId[] = [];
let refreshFails = false;
let nextTicket: RefreshTicket = { refreshId: 7, alreadyRunning: false };

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
            message: "/data/corpus is not a directory",
          });
        }
        return nextTicket;
      }),
      acceptHeld: vi.fn(async (source: SourceId) => {
        acceptCalls.push(source);
        return null;
      }),
    },
    catalogEvents: {
      onRefreshStarted: vi.fn((h: (s: Started) => void) => {
        handlers.started = h;
        return Promise.resolve(() => {});
      }),
      onRefreshProgress: vi.fn((h: (p: Step) => void) => {
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

const HELD: HeldSnapshot = {
  source: "openRouter",
  reason: { kind: "empty" },
  records: 0,
  previousRecords: 421,
  origin: "https://openrouter.ai/api/v1/models",
  heldAt: "2026-12-01T10:00:00Z",
  message:
    "held back: OpenRouter answered with no records; the previous data stays in use until it is accepted anyway",
};

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
  refreshId: null,
  held: [],
};

const REPORT: RefreshReport = {
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
      held: null,
    },
    {
      source: "lmArena",
      origin: null,
      records: 0,
      matched: 0,
      unmatched: 0,
      skipped: 0,
      error: "timed out",
      held: null,
    },
  ],
};

function Page({ onFinished, status = STATUS }: { onFinished: () => void; status?: CatalogStatus }) {
  const { refresh, startRefresh, acceptHeld } = useCatalogRefresh(onFinished);
  return (
    <CatalogStatusPanel
      status={status}
      statusError={null}
      refresh={refresh}
      onRefresh={(dir) => void startRefresh(dir)}
      onAccept={(s) => void acceptHeld(s)}
    />
  );
}

afterEach(() => {
  cleanup();
  refreshCalls.length = 0;
  acceptCalls.length = 0;
  refreshFails = false;
  nextTicket = { refreshId: 7, alreadyRunning: false };
});

const state = (id: string) =>
  document.querySelector(`#catalog-sources tr[data-source='${id}'] td:last-child`)?.textContent;

const step = (refreshId: number, source: SourceId | null, stage: RefreshProgress["stage"]) =>
  handlers.progress?.({ refreshId, progress: { source, stage, message: null } });

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
      handlers.started?.({ refreshId: 7, trigger: "user", fromDir: null });
      step(7, null, "started");
      step(7, "openRouter", "saved");
      step(7, "lmArena", "fetching");
    });
    expect(state("openRouter")).toBe("saved");
    expect(state("lmArena")).toContain("fetching");
    act(() => {
      handlers.done?.({ refreshId: 7, report: REPORT, error: null });
    });
    expect(onFinished).toHaveBeenCalledTimes(1);
    const report = document.querySelector("#catalog-refresh-report");
    expect(report?.textContent).toContain("340 models");
    expect(report?.textContent).toContain("timed out (previous data kept)");
    expect(screen.getByText("Refresh from the network")).toBeTruthy();
  });

  it("another refresh's error outcome does not end the refresh this view follows", async () => {
    const onFinished = vi.fn();
    render(<Page onFinished={onFinished} />);
    fireEvent.click(screen.getByText("Refresh from the network"));
    await waitFor(() => expect(refreshCalls).toEqual([null]));
    act(() => {
      handlers.started?.({ refreshId: 7, trigger: "user", fromDir: null });
      step(7, "openRouter", "fetching");
    });
    await waitFor(() => expect(screen.getByText("Refreshing…")).toBeTruthy());
    act(() => {
      // A loser of a start race (or any other refresh) ends with an error: not ours.
      handlers.done?.({
        refreshId: 6,
        report: null,
        error: { code: "network", message: "a catalog refresh is already running" },
      });
      step(6, "openRouter", "failed");
    });
    expect(screen.getByText("Refreshing…")).toBeTruthy();
    expect(document.querySelector("#catalog-refresh-error")).toBeNull();
    expect(state("openRouter")).toContain("fetching");
    expect(onFinished).not.toHaveBeenCalled();
    act(() => {
      handlers.done?.({ refreshId: 7, report: REPORT, error: null });
    });
    expect(onFinished).toHaveBeenCalledTimes(1);
    expect(screen.getByText("Refresh from the network")).toBeTruthy();
  });

  it("a start that finds a refresh running follows that one", async () => {
    nextTicket = { refreshId: 3, alreadyRunning: true };
    const onFinished = vi.fn();
    render(<Page onFinished={onFinished} />);
    fireEvent.click(screen.getByText("Refresh from the network"));
    await waitFor(() =>
      expect(document.querySelector("#catalog-refresh-joined")?.textContent).toContain(
        "already running",
      ),
    );
    act(() => step(3, "lmArena", "parsing"));
    expect(state("lmArena")).toContain("parsing");
    act(() => handlers.done?.({ refreshId: 3, report: REPORT, error: null }));
    expect(onFinished).toHaveBeenCalledTimes(1);
    expect(document.querySelector("#catalog-refresh-joined")).toBeNull();
  });

  it("follows a scheduled refresh that begins while idle", () => {
    const onFinished = vi.fn();
    render(<Page onFinished={onFinished} />);
    act(() => {
      handlers.started?.({ refreshId: 11, trigger: "schedule", fromDir: null });
      step(11, "openRouter", "fetching");
    });
    expect(screen.getByText("Refreshing…")).toBeTruthy();
    expect(state("openRouter")).toContain("fetching");
    act(() => handlers.done?.({ refreshId: 11, report: REPORT, error: null }));
    expect(onFinished).toHaveBeenCalledTimes(1);
    expect(screen.getByText("Refresh from the network")).toBeTruthy();
  });

  it("shows a held-back source with its reason and accepts it anyway", async () => {
    const onFinished = vi.fn();
    const status: CatalogStatus = {
      ...STATUS,
      held: [HELD],
      sources: [
        source("openRouter", { error: HELD.message, unmatched: 0, unmatchedKeys: [] }),
        source("lmArena"),
      ],
    };
    render(<Page onFinished={onFinished} status={status} />);
    const row = state("openRouter");
    expect(row).toContain("held back");
    expect(row).toContain("answered with no records");
    const button = screen.getByText("Accept anyway (0 records)") as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    expect(button.title).toContain("421 records in use");
    fireEvent.click(button);
    await waitFor(() => expect(acceptCalls).toEqual(["openRouter"]));
    await waitFor(() => expect(onFinished).toHaveBeenCalledTimes(1));
    expect(state("lmArena")).toBe("ok");
  });

  it("disables Accept anyway while a refresh runs", () => {
    render(<Page onFinished={() => {}} status={{ ...STATUS, held: [HELD], refreshing: true }} />);
    const button = screen.getByText("Accept anyway (0 records)") as HTMLButtonElement;
    expect(button.disabled).toBe(true);
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
        "not a directory",
      ),
    );
  });
});
