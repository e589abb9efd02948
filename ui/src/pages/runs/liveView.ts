// What the run page draws from a detail and its live state: graph boxes with live states and
// the last words a running node streamed, and which node to show first. Pure.

import { nodeWord } from "../../states";
import { formatCost } from "./format";
import type { GraphItem } from "./RunGraph";
import type { LiveRun } from "./stream";
import type { NodeState, NodeView, RunDetail } from "./types";

/** The most characters of a node's last line shown in its box. */
export const TAIL_CHARS = 28;

/** The end of the last non-empty line of `text`, cut to `max` characters. */
export function lastLine(text: string, max = TAIL_CHARS): string {
  const trimmed = text.trimEnd();
  const line = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  return line.length > max ? `…${line.slice(line.length - max + 1)}` : line;
}

export function stateOf(detail: RunDetail, live: LiveRun | null, id: string): NodeState {
  return live?.nodes[id] ?? detail.nodes.find((n) => n.id === id)?.state ?? "pending";
}

export function graphItems(detail: RunDetail, live: LiveRun | null): GraphItem[] {
  return detail.nodes.map((n) => {
    const state = stateOf(detail, live, n.id);
    const text = live?.text[n.id];
    const running = nodeWord(state).live;
    const rung = n.rung != null && n.role === "cascade" ? `rung ${n.rung} · ` : "";
    return {
      id: n.id,
      dependsOn: n.dependsOn,
      column: n.column,
      task: n.role === "merge" && n.kind === "text" ? "Merge the members' answers" : n.task,
      who: n.worker ?? n.model,
      state,
      note: `${rung}${formatCost(n.costUsd)}`,
      tail: running && text ? lastLine(text) || undefined : undefined,
    };
  });
}

/** The node to show first: a running one, else the run's last node (its result). */
export function firstNode(detail: RunDetail, live: LiveRun | null): string | null {
  const running = detail.nodes.find((n) => {
    const s = stateOf(detail, live, n.id);
    return nodeWord(s).live;
  });
  return running?.id ?? detail.nodes[detail.nodes.length - 1]?.id ?? null;
}

/** Nodes streaming now, in run order, with their text. */
export function streaming(detail: RunDetail, live: LiveRun | null): { id: string; text: string }[] {
  if (!live) return [];
  return detail.nodes
    .filter((n) => stateOf(detail, live, n.id) === "running" && (live.text[n.id] ?? "") !== "")
    .map((n) => ({ id: n.id, text: live.text[n.id] ?? "" }));
}

/**
 * `fresh` with every node that did not change since `before` kept as the same object, so a
 * reload while nodes stream re-renders only what the engine changed.
 */
export function shareNodes(before: RunDetail | null, fresh: RunDetail): RunDetail {
  if (!before) return fresh;
  const old = new Map<string, { node: NodeView; json: string }>(
    before.nodes.map((n) => [n.id, { node: n, json: JSON.stringify(n) }]),
  );
  let same = before.nodes.length === fresh.nodes.length;
  const nodes = fresh.nodes.map((n, i) => {
    const kept = old.get(n.id);
    if (kept && kept.json === JSON.stringify(n)) {
      if (before.nodes[i] !== kept.node) same = false;
      return kept.node;
    }
    same = false;
    return n;
  });
  return { ...fresh, nodes: same ? before.nodes : nodes };
}
