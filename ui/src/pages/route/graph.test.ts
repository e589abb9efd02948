import { describe, expect, it } from "vitest";
import { COLUMN_GAP, layoutGraph, NODE_HEIGHT, NODE_WIDTH, ROW_GAP } from "./graph";
import { step } from "./testdata.test-util";

const edgesOf = (steps: ReturnType<typeof step>[]) =>
  steps.flatMap((s) => s.dependsOn.map((from) => ({ from, to: s.id, reason: "x" })));

describe("layoutGraph", () => {
  it("puts each wave in its own column and stacks parallel steps", () => {
    const steps = [
      step("n1", [], 0),
      step("n2", ["n1"], 1),
      step("n3", ["n1"], 1),
      step("n4", ["n2", "n3"], 2),
    ];
    const layout = layoutGraph(steps, edgesOf(steps));
    const at = (id: string) => layout.nodes.find((n) => n.node.step.id === id);
    expect(layout.columns).toBe(3);
    expect(at("n2")?.column).toBe(1);
    expect(at("n3")?.column).toBe(1);
    expect(at("n2")?.x).toBe(at("n3")?.x);
    expect(at("n3")?.y).toBeGreaterThan(at("n2")?.y ?? Infinity);
    expect((at("n4")?.x ?? 0) - (at("n2")?.x ?? 0)).toBe(NODE_WIDTH + COLUMN_GAP);
    expect(layout.edges).toHaveLength(4);
    expect(layout.edges.every((e) => !e.backward)).toBe(true);
  });

  it("gives steps without a wave (a cycle) a last column and marks their edges backward", () => {
    const steps = [step("n1", [], 0), step("n2", ["n3"], null), step("n3", ["n2"], null)];
    const layout = layoutGraph(steps, edgesOf(steps));
    expect(layout.columns).toBe(2);
    expect(layout.nodes.filter((n) => n.column === 1).map((n) => n.node.step.id)).toEqual([
      "n2",
      "n3",
    ]);
    expect(layout.edges.filter((e) => e.backward)).toHaveLength(2);
  });

  it("runs an edge that skips a column along a row gap, clear of the nodes between", () => {
    const steps = [
      step("n1", [], 0),
      step("n2", [], 0),
      step("n3", ["n1"], 1),
      step("n4", ["n3", "n2"], 2),
    ];
    const layout = layoutGraph(steps, edgesOf(steps));
    const skip = layout.edges.find((e) => e.edge.from === "n2" && e.edge.to === "n4");
    const between = layout.nodes.find((n) => n.node.step.id === "n3");
    const lane = Number(skip?.path.split(" L ")[1]?.split(" ")[1]);
    expect(skip?.backward).toBe(false);
    expect(Number.isFinite(lane)).toBe(true);
    // Below n2 (row 1), so not through n3 (row 0 of the middle column) nor any row-1 node.
    expect(lane).toBeGreaterThan((between?.y ?? 0) + NODE_HEIGHT);
    const n2 = layout.nodes.find((n) => n.node.step.id === "n2");
    expect(lane).toBeGreaterThan((n2?.y ?? 0) + NODE_HEIGHT);
    expect(lane).toBeLessThan((n2?.y ?? 0) + NODE_HEIGHT + ROW_GAP);
  });

  it("skips edges to missing steps and counts them", () => {
    const steps = [step("n1", [], 0)];
    const layout = layoutGraph(steps, [{ from: "n9", to: "n1", reason: "x" }]);
    expect(layout.edges).toHaveLength(0);
    expect(layout.dangling).toBe(1);
  });

  it("sizes the drawing to fit every node", () => {
    const steps = [step("n1", [], 0), step("n2", [], 0), step("n3", ["n1"], 1)];
    const layout = layoutGraph(steps, edgesOf(steps));
    for (const node of layout.nodes) {
      expect(node.x + NODE_WIDTH).toBeLessThanOrEqual(layout.width);
    }
    expect(layoutGraph([], []).width).toBe(0);
  });
});
