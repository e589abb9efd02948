// Lays a plan out as a graph: one column per wave, steps stacked in task order; steps with
// no wave (in or after a cycle) get a last column of their own. Pure, so it is tested alone.
import type { PlanEdge, PlanStep } from "./types";

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 92;
export const COLUMN_GAP = 70;
export const ROW_GAP = 18;
export const PADDING = 12;

export interface NodeBox {
  step: PlanStep;
  /** The column: the wave, or one past the last wave for steps without one. */
  column: number;
  row: number;
  x: number;
  y: number;
}

export interface EdgeLine {
  edge: PlanEdge;
  /** SVG path from the right side of `from` to the left side of `to`. */
  path: string;
  /** Points right-to-left or within one column (a cycle or a stale wave). */
  backward: boolean;
}

export interface GraphLayout {
  nodes: NodeBox[];
  edges: EdgeLine[];
  width: number;
  height: number;
  columns: number;
  /** Edges naming a step that is not in the plan (not drawn). */
  dangling: number;
}

export function layoutGraph(steps: PlanStep[], edges: PlanEdge[]): GraphLayout {
  const maxWave = steps.reduce((max, s) => (s.wave === null ? max : Math.max(max, s.wave)), -1);
  const unplaced = maxWave + 1;
  const rows = new Map<number, number>();
  const nodes: NodeBox[] = steps.map((step) => {
    const column = step.wave ?? unplaced;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return {
      step,
      column,
      row,
      x: PADDING + column * (NODE_WIDTH + COLUMN_GAP),
      y: PADDING + row * (NODE_HEIGHT + ROW_GAP),
    };
  });
  const byId = new Map(nodes.map((n) => [n.step.id, n]));
  const lines: EdgeLine[] = [];
  let dangling = 0;
  for (const edge of edges) {
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    if (!from || !to) {
      dangling += 1;
      continue;
    }
    lines.push({ edge, ...edgePath(from, to) });
  }
  const columns = rows.size === 0 ? 0 : Math.max(...rows.keys()) + 1;
  const tallest = Math.max(0, ...rows.values());
  return {
    nodes,
    edges: lines,
    width: columns === 0 ? 0 : PADDING * 2 + columns * NODE_WIDTH + (columns - 1) * COLUMN_GAP,
    height: tallest === 0 ? 0 : PADDING * 2 + tallest * NODE_HEIGHT + (tallest - 1) * ROW_GAP,
    columns,
    dangling,
  };
}

function edgePath(from: NodeBox, to: NodeBox): { path: string; backward: boolean } {
  const midY = (box: NodeBox) => box.y + NODE_HEIGHT / 2;
  if (to.column > from.column + 1) {
    return { path: lanePath(from, to), backward: false };
  }
  if (to.column > from.column) {
    const x1 = from.x + NODE_WIDTH;
    const x2 = to.x - 6;
    const bend = (x2 - x1) / 2;
    return {
      path: `M ${x1} ${midY(from)} C ${x1 + bend} ${midY(from)}, ${x2 - bend} ${midY(to)}, ${x2} ${midY(to)}`,
      backward: false,
    };
  }
  // Backward or same-column: loop below the nodes so the arrow stays readable.
  const x1 = from.x + NODE_WIDTH / 2;
  const x2 = to.x + NODE_WIDTH / 2;
  const y1 = from.y + NODE_HEIGHT;
  const y2 = to.y + NODE_HEIGHT + 6;
  const low = Math.max(y1, y2) + 28;
  return {
    path: `M ${x1} ${y1} C ${x1} ${low}, ${x2} ${low}, ${x2} ${y2}`,
    backward: true,
  };
}

/**
 * An edge that skips columns would cross the nodes in between; it runs instead along the
 * row gap below the lower of its two ends (rows line up across columns, so no node sits in
 * that gap), curving in and out through the column gaps.
 */
function lanePath(from: NodeBox, to: NodeBox): string {
  const row = Math.max(from.row, to.row);
  const lane = PADDING + row * (NODE_HEIGHT + ROW_GAP) + NODE_HEIGHT + ROW_GAP / 2;
  const half = COLUMN_GAP / 2;
  const x1 = from.x + NODE_WIDTH;
  const y1 = from.y + NODE_HEIGHT / 2;
  const x2 = to.x - 6;
  const y2 = to.y + NODE_HEIGHT / 2;
  return [
    `M ${x1} ${y1}`,
    `C ${x1 + half} ${y1}, ${x1 + half} ${lane}, ${x1 + COLUMN_GAP} ${lane}`,
    `L ${to.x - COLUMN_GAP} ${lane}`,
    `C ${x2 - half} ${lane}, ${x2 - half} ${y2}, ${x2} ${y2}`,
  ].join(" ");
}
