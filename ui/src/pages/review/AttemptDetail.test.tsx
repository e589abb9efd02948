import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AttemptFeedItem } from "../../ipc";
import { seriousA11yFindings } from "../../testing/axe";
import { AttemptDetail } from "./AttemptDetail";
import { capturedDiff, file, logEntry, review, summary } from "./testdata";

const state = vi.hoisted(() => ({
  push: null as null | ((item: AttemptFeedItem) => void),
  review: vi.fn(),
  cancel: vi.fn(),
  recover: vi.fn(),
  watch: vi.fn(),
  fileDiff: vi.fn(),
}));

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    reviewIpc: {
      review: state.review,
      cancel: state.cancel,
      recover: state.recover,
      watch: state.watch,
      fileDiff: state.fileDiff,
    },
    reviewEvents: { onAttemptState: vi.fn(() => Promise.resolve(() => {})) },
  };
});

beforeEach(() => {
  state.review.mockReset();
  state.cancel.mockReset();
  state.watch.mockReset();
  state.watch.mockImplementation(
    async (_id: string, _after: number, onItem: (item: AttemptFeedItem) => void) => {
      state.push = onItem;
    },
  );
});
afterEach(cleanup);

const START = 1_790_000_000_000;

describe("AttemptDetail while the worker runs", () => {
  it("streams the log, counts elapsed time, cancels, and reloads when the attempt stops", async () => {
    const running = review("a1", {
      summary: summary("a1", {
        state: "running",
        createdMs: START,
        elapsedMs: null,
        gatesPassed: null,
      }),
      diff: null,
      gates: [],
      verification: null,
      canApprove: false,
    });
    state.review.mockResolvedValue(running);
    let now = START + 5_000;
    render(<AttemptDetail id="a1" now={() => now} />);
    await screen.findByText("Cancel");
    expect(state.watch).toHaveBeenCalledWith("a1", 0, expect.any(Function));
    expect(document.querySelector("#attempt-elapsed")?.textContent).toBe("5 s");

    act(() => {
      state.push?.({ type: "state", state: "running", live: true });
      // The engine's feed says what each entry changed in the transcript; the page places it.
      state.push?.({
        type: "log",
        entry: logEntry(1, { type: "state", state: "running", note: null }),
        transcript: {
          index: 0,
          item: { kind: "state", seq: 1, state: "running", note: null },
          usage: null,
        },
      });
      state.push?.({
        type: "log",
        entry: logEntry(2, {
          type: "worker",
          event: { kind: "assistantText", text: "Reading", delta: true },
        }),
        transcript: { index: 1, item: { kind: "text", seq: 2, text: "Reading" }, usage: null },
      });
      state.push?.({
        type: "log",
        entry: logEntry(3, {
          type: "worker",
          event: { kind: "assistantText", text: " the pager", delta: true },
        }),
        transcript: {
          index: 1,
          item: { kind: "text", seq: 2, text: "Reading the pager" },
          usage: null,
        },
      });
    });
    expect(screen.getAllByText("Reading the pager")).toHaveLength(1);
    expect(document.querySelectorAll("#attempt-log li[data-seq]")).toHaveLength(2);

    now = START + 65_000;
    await waitFor(
      () => expect(document.querySelector("#attempt-elapsed")?.textContent).toBe("1 min 05 s"),
      {
        timeout: 2500,
      },
    );

    state.cancel.mockResolvedValue(summary("a1", { state: "canceled" }));
    fireEvent.click(screen.getByText("Cancel"));
    await waitFor(() =>
      expect(document.querySelector("#attempt-state")?.textContent).toBe("Canceled"),
    );
    expect(state.cancel).toHaveBeenCalledWith("a1");
    expect(screen.queryByText("Cancel")).toBeNull();

    state.review.mockResolvedValue(review("a1", { summary: summary("a1", { state: "review" }) }));
    // Another process moved it on: the feed says so, and the page reads the review again.
    act(() => {
      state.push?.({
        type: "log",
        entry: logEntry(4, { type: "state", state: "review", note: null }),
        transcript: {
          index: 2,
          item: { kind: "state", seq: 4, state: "review", note: null },
          usage: null,
        },
      });
      state.push?.({ type: "state", state: "review", live: false });
      state.push?.({ type: "end", state: "review" });
    });
    await waitFor(() =>
      expect(document.querySelector("#attempt-state")?.textContent).toBe("Needs review"),
    );
    expect(state.review).toHaveBeenCalledTimes(2);
    expect(document.querySelector("#gates-panel")).toBeTruthy();
    expect(document.querySelector("#review-actions")).toBeTruthy();
  });

  it("shows why an attempt failed", async () => {
    state.review.mockResolvedValue(
      review("a2", {
        summary: summary("a2", {
          state: "failed",
          error: { code: "timeout", message: "the worker ran past 30 s and was stopped" },
        }),
      }),
    );
    render(<AttemptDetail id="a2" now={() => START} />);
    const failure = await screen.findByText(/the worker ran past 30 s/);
    expect(failure.closest("#attempt-failure")?.textContent).toBe(
      "The worker ran out of time: the worker ran past 30 s and was stopped",
    );
    expect(screen.queryByText("Cancel")).toBeNull();
  });

  it("offers Recover for an interrupted attempt and shows the re-verified result", async () => {
    state.review.mockResolvedValue(
      review("a3", { summary: summary("a3", { state: "interrupted" }), canApprove: false }),
    );
    state.recover.mockResolvedValue(review("a3"));
    render(<AttemptDetail id="a3" now={() => START} />);
    fireEvent.click(await screen.findByText("Recover"));
    await waitFor(() =>
      expect(document.querySelector("#attempt-state")?.textContent).toBe("Needs review"),
    );
    expect(state.recover).toHaveBeenCalledWith("a3");
    expect(screen.queryByText("Recover")).toBeNull();
  });

  it("follows the log again when recover re-queues an attempt whose worker never ran", async () => {
    state.review.mockResolvedValue(
      review("a6", { summary: summary("a6", { state: "interrupted" }), canApprove: false }),
    );
    const queued = review("a6", {
      summary: summary("a6", { state: "queued", elapsedMs: null, gatesPassed: null }),
      diff: null,
      gates: [],
      verification: null,
      canApprove: false,
    });
    state.recover.mockResolvedValue(queued);
    render(<AttemptDetail id="a6" now={() => START} />);
    fireEvent.click(await screen.findByText("Recover"));
    state.review.mockResolvedValue(queued);
    await waitFor(() => expect(state.watch).toHaveBeenCalledTimes(2));
    expect(state.watch).toHaveBeenLastCalledWith("a6", 0, expect.any(Function));
    // Live again: the page offers Cancel.
    await screen.findByText("Cancel");
  });
});

describe("AttemptDetail for a revision", () => {
  it("switches the diff between the base and the previous attempt", async () => {
    state.review.mockResolvedValue(
      review("a3", {
        summary: summary("a3", { state: "review", parent: "a1" }),
        diff: capturedDiff([file("calc.sh"), file("NOTES.md")]),
        previous: capturedDiff([file("NOTES.md")]),
      }),
    );
    render(<AttemptDetail id="a3" now={() => START} />);
    const toPrevious = await screen.findByRole("button", { name: "Against previous attempt" });
    const toBase = screen.getByRole("button", { name: "Against base" });
    const main = () => document.querySelector(".attempt-main")?.textContent ?? "";
    expect(toBase.getAttribute("aria-pressed")).toBe("true");
    expect(main()).toContain("calc.sh");
    expect(main()).toContain("NOTES.md");
    fireEvent.click(toPrevious);
    expect(toPrevious.getAttribute("aria-pressed")).toBe("true");
    expect(main()).not.toContain("calc.sh");
    expect(main()).toContain("NOTES.md");
    fireEvent.click(toBase);
    expect(main()).toContain("calc.sh");
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("loads a deferred file of the previous diff from that diff", async () => {
    const notes = file("NOTES.md");
    state.fileDiff.mockReset();
    state.fileDiff.mockResolvedValue(notes);
    state.review.mockResolvedValue(
      review("a5", {
        summary: summary("a5", { state: "review", parent: "a1" }),
        diff: capturedDiff([file("calc.sh"), file("NOTES.md")]),
        previous: capturedDiff([file("calc.sh"), { ...notes, hunks: [], hunksDeferred: true }]),
      }),
    );
    render(<AttemptDetail id="a5" now={() => START} />);
    fireEvent.click(await screen.findByRole("button", { name: "Against previous attempt" }));
    fireEvent.click(screen.getByRole("button", { name: /NOTES\.md/ }));
    await waitFor(() => expect(state.fileDiff).toHaveBeenCalledWith("a5", "NOTES.md", "previous"));
    expect(state.fileDiff).toHaveBeenCalledTimes(1);
  });

  it("offers no toggle for a first attempt", async () => {
    state.review.mockResolvedValue(
      review("a4", {
        summary: summary("a4", { state: "review" }),
        diff: capturedDiff([file("calc.sh"), file("NOTES.md")]),
      }),
    );
    render(<AttemptDetail id="a4" now={() => START} />);
    await waitFor(() =>
      expect(document.querySelector(".attempt-main")?.textContent).toContain("calc.sh"),
    );
    expect(screen.queryByRole("button", { name: "Against previous attempt" })).toBeNull();
  });
});
