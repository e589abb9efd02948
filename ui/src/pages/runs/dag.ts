// Lays a run's nodes out as a layered graph: each node in the column Rust gave it (one past
// its deepest dependency, so every arrow points right), stacked in run order within a
// column. Pure, so it is tested alone; a dependency that names no node draws no edge.

export const NODE_W = 200;
export const NODE_H = 74;
export const COL_GAP = 56;
export const ROW_GAP = 14;
export const PAD = 10;

export interface GraphNode {
  id: string;
  dependsOn: readonly string[];
  /** One past its deepest dependency: Rust computes it (`dag::columns`). */
  column: number;
}

export interface PlacedNode<T extends GraphNode> {
  node: T;
  column: number;
  row: number;
  x: number;
  y: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  /** SVG path from the right side of `from` to the left side of `to`. */
  path: string;
}

export interface RunGraphLayout<T extends GraphNode> {
  nodes: PlacedNode<T>[];
  edges: PlacedEdge[];
  width: number;
  height: number;
  columns: number;
}

export function layoutRunGraph<T extends GraphNode>(nodes: readonly T[]): RunGraphLayout<T> {
  const rows = new Map<number, number>();
  const placed: PlacedNode<T>[] = nodes.map((node) => {
    const column = node.column;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return {
      node,
      column,
      row,
      x: PAD + column * (NODE_W + COL_GAP),
      y: PAD + row * (NODE_H + ROW_GAP),
    };
  });
  const byId = new Map(placed.map((p) => [p.node.id, p]));
  const edges: PlacedEdge[] = [];
  for (const to of placed) {
    for (const dep of to.node.dependsOn) {
      const from = byId.get(dep);
      if (from) edges.push({ from: dep, to: to.node.id, path: edgePath(from, to) });
    }
  }
  const columns = rows.size === 0 ? 0 : Math.max(...rows.keys()) + 1;
  const tallest = Math.max(0, ...rows.values());
  return {
    nodes: placed,
    edges,
    width: columns === 0 ? 0 : PAD * 2 + columns * NODE_W + (columns - 1) * COL_GAP,
    height: tallest === 0 ? 0 : PAD * 2 + tallest * NODE_H + (tallest - 1) * ROW_GAP,
    columns,
  };
}

function edgePath(from: PlacedNode<GraphNode>, to: PlacedNode<GraphNode>): string {
  const x1 = from.x + NODE_W;
  const y1 = from.y + NODE_H / 2;
  const x2 = to.x - 6;
  const y2 = to.y + NODE_H / 2;
  if (to.column === from.column + 1) {
    const bend = (x2 - x1) / 2;
    return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
  }
  // Skipping columns: run along the row gap below the lower end, so no node is crossed
  // (rows line up across columns).
  const lane = PAD + Math.max(from.row, to.row) * (NODE_H + ROW_GAP) + NODE_H + ROW_GAP / 2;
  const half = COL_GAP / 2;
  return [
    `M ${x1} ${y1}`,
    `C ${x1 + half} ${y1}, ${x1 + half} ${lane}, ${x1 + COL_GAP} ${lane}`,
    `L ${to.x - COL_GAP} ${lane}`,
    `C ${x2 - half} ${lane}, ${x2 - half} ${y2}, ${x2} ${y2}`,
  ].join(" ");
}
