// What an open run page knows beyond its last detail load: states and the ledger from the
// run's log, and the text its running nodes streamed. Everything here comes from the engine
// (states, costs); this only applies it. Feed items are batched per animation frame so four
// nodes streaming at once cost one render per frame, not one per delta.
import type { NodeState, RunDetail, RunFeedItem, RunReason, RunState } from "./types";

/** The most characters of a node's streamed text a page keeps (the stored output is whole). */
export const LIVE_TEXT_LIMIT = 64_000;

export interface LiveRun {
  /** The newest log entry applied. */
  seq: number;
  state: RunState;
  /** Whether the run can still change (Rust says so). */
  live: boolean;
  reason: RunReason | null;
  nodes: Record<string, NodeState>;
  spentUsd: number | null;
  reservedUsd: number | null;
  /** Streamed text by node (its tail when longer than `LIVE_TEXT_LIMIT`). */
  text: Record<string, string>;
  /** Characters dropped from the front of a node's text. */
  dropped: Record<string, number>;
  /** The feed said nothing more will come. */
  ended: boolean;
  /** Entries arrived that the detail shows more of (tries, tokens, costs): reload it. */
  stale: boolean;
}

/** The live view of a freshly loaded detail. */
export function liveFrom(detail: RunDetail): LiveRun {
  return {
    seq: detail.seq,
    state: detail.summary.state,
    live: detail.summary.live,
    reason: detail.summary.reason,
    nodes: Object.fromEntries(detail.nodes.map((n) => [n.id, n.state])),
    spentUsd: detail.summary.costUsd,
    reservedUsd: detail.reservedUsd,
    text: {},
    dropped: {},
    ended: false,
    stale: false,
  };
}

/** A reloaded detail over the live view: the detail's states and ledger, the streamed text kept. */
export function rebase(live: LiveRun, detail: RunDetail): LiveRun {
  const fresh = liveFrom(detail);
  if (detail.seq < live.seq) {
    // An older snapshot than what the feed already applied: keep the newer view.
    return { ...live, stale: true };
  }
  return { ...fresh, text: live.text, dropped: live.dropped, ended: live.ended };
}

function appendText(live: LiveRun, node: string, reset: boolean, piece: string): LiveRun {
  const before = reset ? "" : (live.text[node] ?? "");
  let text = before + piece;
  let dropped = reset ? 0 : (live.dropped[node] ?? 0);
  if (text.length > LIVE_TEXT_LIMIT) {
    const cut = text.length - LIVE_TEXT_LIMIT;
    text = text.slice(cut);
    dropped += cut;
  }
  return {
    ...live,
    text: { ...live.text, [node]: text },
    dropped: { ...live.dropped, [node]: dropped },
  };
}

/** `live` with `items` applied in order. Log entries at or before `live.seq` are skipped. */
export function applyItems(live: LiveRun, items: readonly RunFeedItem[]): LiveRun {
  let next = live;
  for (const item of items) {
    if (item.type === "output") {
      next = appendText(next, item.nodeId, item.reset, item.text);
      continue;
    }
    if (item.type === "end") {
      next = { ...next, state: item.state, live: false, ended: true, stale: true };
      continue;
    }
    if (item.type === "state") {
      if (item.state !== next.state || item.live !== next.live) {
        next = { ...next, state: item.state, live: item.live, stale: true };
      }
      continue;
    }
    const { seq, entry } = item.entry;
    if (seq <= next.seq) continue;
    next = { ...next, seq };
    switch (entry.type) {
      case "state":
        next = { ...next, state: entry.state, reason: entry.reason, stale: true };
        break;
      case "node":
        next = { ...next, nodes: { ...next.nodes, [entry.nodeId]: entry.state }, stale: true };
        break;
      case "call":
        next = {
          ...next,
          spentUsd: entry.spentUsd,
          reservedUsd: entry.runReservedUsd,
          stale: true,
        };
        break;
    }
  }
  return next;
}

export type Schedule = (run: () => void) => unknown;

/**
 * Collects items and hands them over once per frame: `flush(items, since)` with `since` the
 * time the first of them arrived (for the page's update measure).
 */
export function frameBatcher<T>(
  flush: (items: T[], since: number) => void,
  schedule: Schedule = (run) => requestAnimationFrame(run),
  now: () => number = () => performance.now(),
) {
  let queue: T[] = [];
  let since = 0;
  let scheduled = false;
  let stopped = false;
  const drain = () => {
    scheduled = false;
    if (stopped || queue.length === 0) return;
    const items = queue;
    queue = [];
    flush(items, since);
  };
  return {
    push(item: T) {
      if (stopped) return;
      if (queue.length === 0) since = now();
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        schedule(drain);
      }
    },
    /** Hands over what is queued now (the page is about to reload, or the feed ended). */
    drain,
    stop() {
      stopped = true;
      queue = [];
    },
  };
}
