import { describe, expect, it } from "vitest";
import { COL_GAP, layoutRunGraph, NODE_W, PAD } from "./dag";

const node = (id: string, dependsOn: string[] = [], column = dependsOn.length === 0 ? 0 : 1) => ({
  id,
  dependsOn,
  column,
});

describe("run graph layout", () => {
  it("stacks a column in run order and draws one edge per dependency", () => {
    const layout = layoutRunGraph([node("a"), node("b"), node("c", ["a", "b"]), node("d", ["a"])]);
    expect(layout.columns).toBe(2);
    expect(layout.nodes.map((n) => [n.node.id, n.column, n.row])).toEqual([
      ["a", 0, 0],
      ["b", 0, 1],
      ["c", 1, 0],
      ["d", 1, 1],
    ]);
    expect(layout.edges.map((e) => `${e.edge.from}>${e.edge.to}`)).toEqual(["a>c", "b>c", "a>d"]);
    expect(layout.width).toBe(PAD * 2 + 2 * NODE_W + COL_GAP);
    for (const edge of layout.edges) expect(edge.path.startsWith("M ")).toBe(true);
  });

  it("routes an edge that skips a column along a lane, and survives bad input", () => {
    const layout = layoutRunGraph([node("a"), node("b", ["a"]), node("c", ["b", "a"], 2)]);
    const skip = layout.edges.find((e) => e.edge.from === "a" && e.edge.to === "c");
    expect(skip?.path).toContain(" L ");
    const odd = layoutRunGraph([node("x", ["y", "ghost"], 0), node("y", ["x"])]);
    expect(odd.nodes).toHaveLength(2);
    expect(odd.edges.every((e) => e.edge.from !== "ghost")).toBe(true);
    expect(layoutRunGraph([]).width).toBe(0);
  });
});
