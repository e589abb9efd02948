// The one layout of a layered graph (the Route page's plan, the Runs page's run): each node in
// the column it is given, stacked in the given order within a column; arrows from the right
// side of one node to the left side of the next. Pure, so it is tested alone.

/** Box sizes and gaps, in pixels. */
export interface LayerSizes {
  nodeW: number;
  nodeH: number;
  colGap: number;
  rowGap: number;
  pad: number;
}

export interface LayerNode {
  id: string;
  /** Rust computes it: a run node's `column`, a plan step's `wave`. */
  column: number;
}

export interface LayerEdge {
  from: string;
  to: string;
}

export interface Placed<T> {
  node: T;
  column: number;
  row: number;
  x: number;
  y: number;
}

export interface Line<E> {
  edge: E;
  /** SVG path from the right side of `from` to the left side of `to`. */
  path: string;
  /** Points right-to-left or within one column (a cycle, or a plan edited into one). */
  backward: boolean;
}

export interface Layers<T, E> {
  nodes: Placed<T>[];
  edges: Line<E>[];
  width: number;
  height: number;
  columns: number;
  /** Edges naming a node that is not there (not drawn). */
  dangling: number;
}

export function layoutLayers<T extends LayerNode, E extends LayerEdge>(
  nodes: readonly T[],
  edges: readonly E[],
  sizes: LayerSizes,
): Layers<T, E> {
  const { nodeW, nodeH, colGap, rowGap, pad } = sizes;
  const rows = new Map<number, number>();
  const placed: Placed<T>[] = nodes.map((node) => {
    const row = rows.get(node.column) ?? 0;
    rows.set(node.column, row + 1);
    return {
      node,
      column: node.column,
      row,
      x: pad + node.column * (nodeW + colGap),
      y: pad + row * (nodeH + rowGap),
    };
  });
  const byId = new Map(placed.map((p) => [p.node.id, p]));
  const lines: Line<E>[] = [];
  let dangling = 0;
  for (const edge of edges) {
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    if (!from || !to) {
      dangling += 1;
      continue;
    }
    lines.push({ edge, ...edgePath(from, to, sizes) });
  }
  const columns = rows.size === 0 ? 0 : Math.max(...rows.keys()) + 1;
  const tallest = Math.max(0, ...rows.values());
  return {
    nodes: placed,
    edges: lines,
    width: columns === 0 ? 0 : pad * 2 + columns * nodeW + (columns - 1) * colGap,
    height: tallest === 0 ? 0 : pad * 2 + tallest * nodeH + (tallest - 1) * rowGap,
    columns,
    dangling,
  };
}

interface Box {
  column: number;
  row: number;
  x: number;
  y: number;
}

function edgePath(
  from: Box,
  to: Box,
  { nodeW, nodeH, colGap, rowGap, pad }: LayerSizes,
): { path: string; backward: boolean } {
  const x1 = from.x + nodeW;
  const y1 = from.y + nodeH / 2;
  const x2 = to.x - 6;
  const y2 = to.y + nodeH / 2;
  if (to.column === from.column + 1) {
    const bend = (x2 - x1) / 2;
    return {
      path: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`,
      backward: false,
    };
  }
  if (to.column > from.column) {
    // Skipping columns: run along the row gap below the lower end, so no node is crossed
    // (rows line up across columns, so no node sits in that gap).
    const lane = pad + Math.max(from.row, to.row) * (nodeH + rowGap) + nodeH + rowGap / 2;
    const half = colGap / 2;
    return {
      path: [
        `M ${x1} ${y1}`,
        `C ${x1 + half} ${y1}, ${x1 + half} ${lane}, ${x1 + colGap} ${lane}`,
        `L ${to.x - colGap} ${lane}`,
        `C ${x2 - half} ${lane}, ${x2 - half} ${y2}, ${x2} ${y2}`,
      ].join(" "),
      backward: false,
    };
  }
  // Backward or same-column: loop below the nodes so the arrow stays readable.
  const bx1 = from.x + nodeW / 2;
  const bx2 = to.x + nodeW / 2;
  const by1 = from.y + nodeH;
  const by2 = to.y + nodeH + 6;
  const low = Math.max(by1, by2) + 28;
  return { path: `M ${bx1} ${by1} C ${bx1} ${low}, ${bx2} ${low}, ${bx2} ${by2}`, backward: true };
}
