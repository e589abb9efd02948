import { describe, expect, it } from "vitest";
import { applyItems, frameBatcher, LIVE_TEXT_LIMIT, liveFrom, rebase } from "./stream";
import { detail } from "./testdata.test-util";
import type { RunFeedItem } from "./types";

const log = (seq: number, entry: Extract<RunFeedItem, { type: "log" }>["entry"]["entry"]) =>
  ({ type: "log", entry: { seq, atMs: 1, entry } }) as const;

describe("live run state", () => {
  it("applies node and run states and the ledger from the log, once per entry", () => {
    const start = liveFrom(detail({ seq: 3 }));
    expect(start.nodes).toEqual({ c1: "running" });
    const next = applyItems(start, [
      log(2, { type: "node", nodeId: "c1", state: "failed", note: null }),
      log(4, {
        type: "call",
        nodeId: "c1",
        n: 2,
        model: "wtest:openai/gpt-4o",
        state: "settled",
        reservedUsd: 0.05,
        costUsd: 0.002,
        spentUsd: 0.0021,
        runReservedUsd: 0,
      }),
      log(5, { type: "node", nodeId: "c1", state: "done", note: null }),
      log(6, { type: "state", state: "completed", reason: null, note: null }),
    ]);
    expect(next.seq).toBe(6);
    expect(next.nodes.c1).toBe("done");
    expect(next.spentUsd).toBe(0.0021);
    expect(next.reservedUsd).toBe(0);
    expect(next.state).toBe("completed");
    expect(next.stale).toBe(true);
  });

  it("appends streamed text, restarts it on reset, and keeps only a bounded tail", () => {
    let live = liveFrom(detail({}));
    live = applyItems(live, [
      { type: "output", nodeId: "c1", reset: true, text: "first rung" },
      { type: "output", nodeId: "c1", reset: true, text: "The " },
      { type: "output", nodeId: "c1", reset: false, text: "answer" },
    ]);
    expect(live.text.c1).toBe("The answer");
    live = applyItems(live, [
      { type: "output", nodeId: "c1", reset: false, text: "x".repeat(LIVE_TEXT_LIMIT) },
    ]);
    expect(live.text.c1?.length).toBe(LIVE_TEXT_LIMIT);
    expect(live.dropped.c1).toBe("The answer".length);
  });

  it("a reloaded detail replaces states but keeps the streamed text; an older one does not", () => {
    let live = applyItems(liveFrom(detail({ seq: 3 })), [
      { type: "output", nodeId: "c1", reset: true, text: "so far" },
      log(9, { type: "state", state: "completed", reason: null, note: null }),
    ]);
    const older = rebase(live, detail({ seq: 5 }));
    expect(older.state).toBe("completed");
    live = rebase(live, detail({ seq: 9, state: "completed" }));
    expect(live.text.c1).toBe("so far");
    expect(live.stale).toBe(false);
  });

  it("the end of the feed marks the run ended", () => {
    const live = applyItems(liveFrom(detail({})), [{ type: "end", state: "failed" }]);
    expect(live.ended).toBe(true);
    expect(live.state).toBe("failed");
  });
});

describe("frame batcher", () => {
  it("hands over everything pushed within one frame at once, with the first arrival time", () => {
    const frames: Array<() => void> = [];
    const flushed: Array<{ items: number[]; since: number }> = [];
    let clock = 100;
    const batcher = frameBatcher<number>(
      (items, since) => flushed.push({ items, since }),
      (run) => frames.push(run),
      () => clock,
    );
    batcher.push(1);
    clock = 105;
    batcher.push(2);
    batcher.push(3);
    expect(frames).toHaveLength(1);
    frames.shift()?.();
    expect(flushed).toEqual([{ items: [1, 2, 3], since: 100 }]);
    clock = 200;
    batcher.push(4);
    frames.shift()?.();
    expect(flushed[1]).toEqual({ items: [4], since: 200 });
    batcher.push(5);
    batcher.stop();
    frames.shift()?.();
    expect(flushed).toHaveLength(2);
  });
});
