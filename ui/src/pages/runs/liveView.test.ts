import { describe, expect, it } from "vitest";
import { firstNode, graphItems, lastLine, shareNodes, streaming } from "./liveView";
import { applyItems, liveFrom } from "./stream";
import { detail, node } from "./testdata.test-util";

describe("live run view", () => {
  it("shows each box's live state, cost and the end of what it streams", () => {
    const d = detail({
      nodes: [
        node({ id: "m1", role: "member", rung: null, state: "running", costUsd: 0 }),
        node({ id: "m2", role: "member", rung: null, state: "pending", costUsd: 0 }),
        node({ id: "merge", role: "merge", rung: null, dependsOn: ["m1", "m2"], state: "pending" }),
      ],
    });
    const live = applyItems(liveFrom(d), [
      { type: "output", nodeId: "m1", reset: true, text: "first line\nsecond line so far" },
      {
        type: "log",
        entry: {
          seq: 9,
          atMs: 1,
          entry: { type: "node", nodeId: "m2", state: "running", note: null },
        },
      },
    ]);
    const items = graphItems(d, live);
    expect(items.map((i) => i.state)).toEqual(["running", "running", "pending"]);
    expect(items[0]?.tail).toBe("second line so far");
    expect(items[1]?.tail).toBeUndefined();
    expect(items[2]?.task).toBe("Merge the members' answers");
    expect(items[0]?.note).toBe("$0.00");
    expect(streaming(d, live).map((s) => s.id)).toEqual(["m1"]);
    expect(firstNode(d, live)).toBe("m1");
  });

  it("cuts a long last line from the front and shows a finished run's last node first", () => {
    expect(lastLine(`a\n${"x".repeat(100)}`, 10)).toBe(`…${"x".repeat(9)}`);
    expect(lastLine("done\n\n")).toBe("done");
    const d = detail({
      nodes: [node({ id: "a", state: "done" }), node({ id: "b", state: "done" })],
    });
    expect(firstNode(d, liveFrom(d))).toBe("b");
  });
});

describe("reloaded details", () => {
  it("keep unchanged nodes as the same objects and take the changed ones", () => {
    const before = detail({ nodes: [node({ id: "a" }), node({ id: "b", costUsd: 0 })] });
    const fresh = detail({ nodes: [node({ id: "a" }), node({ id: "b", costUsd: 0.5 })] });
    const shared = shareNodes(before, fresh);
    expect(shared.nodes[0]).toBe(before.nodes[0]);
    expect(shared.nodes[1]).toBe(fresh.nodes[1]);
    const again = shareNodes(
      shared,
      detail({ nodes: [node({ id: "a" }), node({ id: "b", costUsd: 0.5 })] }),
    );
    expect(again.nodes).toBe(shared.nodes);
    expect(shareNodes(null, fresh)).toBe(fresh);
  });
});
