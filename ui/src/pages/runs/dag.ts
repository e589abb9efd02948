// A run's nodes as a layered graph: each node in the column Rust gave it (one past its
// deepest dependency, so every arrow points right), stacked in run order within a column; a
// dependency that names no node draws no edge.
import { type Layers, layoutLayers } from "../../components/layered";

export const NODE_W = 200;
export const NODE_H = 74;
export const COL_GAP = 56;
export const ROW_GAP = 14;
export const PAD = 10;

const SIZES = { nodeW: NODE_W, nodeH: NODE_H, colGap: COL_GAP, rowGap: ROW_GAP, pad: PAD };

export interface GraphNode {
  id: string;
  dependsOn: readonly string[];
  /** One past its deepest dependency: Rust computes it (`dag::columns`). */
  column: number;
}

export function layoutRunGraph<T extends GraphNode>(
  nodes: readonly T[],
): Layers<T, { from: string; to: string }> {
  const edges = nodes.flatMap((to) => to.dependsOn.map((from) => ({ from, to: to.id })));
  return layoutLayers(nodes, edges, SIZES);
}
